#include "framework/core/model/model_builder.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "framework/core/base/dtype.h"
#include "framework/core/graph/graph_verifier.h"
#include "framework/core/graph/shape_inference.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {

ModelBuilder::ModelBuilder(std::string name) { graph_.name = std::move(name); }

void ModelBuilder::Fail(absl::Status s) {
  if (first_error_.ok()) first_error_ = std::move(s);
}

int32_t ModelBuilder::AddTensor(Tensor t) {
  graph_.tensors.push_back(std::move(t));
  return static_cast<int32_t>(graph_.tensors.size() - 1);
}

const Tensor* ModelBuilder::tensor(int32_t t) const {
  return t >= 0 && static_cast<size_t>(t) < graph_.tensors.size() ? &graph_.tensors[t] : nullptr;
}

int32_t ModelBuilder::Input(std::string name, int32_t dtype, std::vector<int64_t> shape, Quantization quant) {
  int32_t t = AddTensor(Tensor{std::move(name), dtype, std::move(shape), std::move(quant)});
  graph_.inputs.push_back(t);
  return t;
}

int32_t ModelBuilder::ConstantBytes(std::string name, int32_t dtype, std::vector<int64_t> shape,
                                    std::vector<uint8_t> bytes, Quantization quant) {
  Tensor t{std::move(name), dtype, std::move(shape), std::move(quant)};
  if (bytes.size() != t.byte_size()) {
    Fail(absl::InvalidArgumentError(
        absl::StrCat("constant '", t.name, "' has ", bytes.size(), " bytes, its shape needs ", t.byte_size())));
    return -1;
  }
  t.is_constant = true;
  t.data = graph_.AdoptBytes(std::move(bytes));
  return AddTensor(std::move(t));
}

int32_t ModelBuilder::Op(int32_t op_type, std::vector<int32_t> inputs, std::map<int32_t, Attribute> attrs,
                         OpOptions options) {
  if (!first_error_.ok()) return -1;
  std::vector<std::optional<TensorType>> types;
  for (int32_t t : inputs) {
    if (t == -1) {
      types.emplace_back();
      continue;
    }
    const Tensor* in = tensor(t);
    if (in == nullptr) {
      Fail(absl::InvalidArgumentError(absl::StrCat(OpTypeName(op_type), ": input tensor ", t, " does not exist")));
      return -1;
    }
    types.push_back(TensorType{in->dtype, in->shape});
  }
  absl::StatusOr<std::vector<TensorType>> out = InferOutputTypes(op_type, types, attrs, options.output_dtype);
  if (!out.ok()) {
    Fail(out.status());
    return -1;
  }
  tessera::Op op;
  op.type = op_type;
  op.inputs = std::move(inputs);
  op.attrs = std::move(attrs);
  op.id = static_cast<uint32_t>(graph_.ops.size());
  std::string name = options.name.empty() ? absl::StrCat(OpTypeName(op_type), "_", op.id) : options.name;
  op.outputs.push_back(AddTensor(Tensor{std::move(name), (*out)[0].dtype, (*out)[0].shape, options.output_quant}));
  graph_.ops.push_back(std::move(op));
  return graph_.ops.back().outputs[0];
}

void ModelBuilder::Output(int32_t t) {
  if (tensor(t) == nullptr) {
    Fail(absl::InvalidArgumentError(absl::StrCat("output tensor ", t, " does not exist")));
    return;
  }
  graph_.outputs.push_back(t);
}

void ModelBuilder::Metadata(std::string key, std::string value) {
  graph_.metadata.emplace_back(std::move(key), std::move(value));
}

absl::StatusOr<Graph> ModelBuilder::Build() && {
  if (!first_error_.ok()) return first_error_;
  absl::Status s = VerifyGraph(graph_);
  if (!s.ok()) return s;
  return std::move(graph_);
}

}  // namespace tessera
