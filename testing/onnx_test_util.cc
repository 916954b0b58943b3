#include "testing/onnx_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/constant_folding.h"
#include "framework/compiler/onnx/onnx_importer.h"
#include "framework/core/base/status_macros.h"
#include "gtest/gtest.h"

namespace tessera::onnx_import::testing {

OnnxModelBuilder::OnnxModelBuilder(int64_t opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("tessera-test");
  onnx::OperatorSetIdProto* id = model_.add_opset_import();
  id->set_domain("");
  id->set_version(opset);
  model_.mutable_graph()->set_name("test_graph");
}

void OnnxModelBuilder::Input(const std::string& name, int32_t elem_type, const std::vector<int64_t>& dims) {
  onnx::ValueInfoProto* v = model_.mutable_graph()->add_input();
  v->set_name(name);
  onnx::TypeProto::Tensor* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  for (int64_t d : dims) {
    onnx::TensorShapeProto::Dimension* dim = t->mutable_shape()->add_dim();
    if (d < 0)
      dim->set_dim_param("N");
    else
      dim->set_dim_value(d);
  }
}

void OnnxModelBuilder::Output(const std::string& name) { model_.mutable_graph()->add_output()->set_name(name); }

void OnnxModelBuilder::FloatInit(const std::string& name, const std::vector<int64_t>& dims,
                                 const std::vector<float>& values) {
  onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float v : values) t->add_float_data(v);
}

void OnnxModelBuilder::Int64Init(const std::string& name, const std::vector<int64_t>& dims,
                                 const std::vector<int64_t>& values) {
  onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 8));
}

onnx::NodeProto& OnnxModelBuilder::Node(const std::string& op_type, const std::vector<std::string>& inputs,
                                        const std::vector<std::string>& outputs, const std::string& name) {
  onnx::NodeProto* n = model_.mutable_graph()->add_node();
  n->set_op_type(op_type);
  n->set_name(name);
  for (const std::string& i : inputs) n->add_input(i);
  for (const std::string& o : outputs) n->add_output(o);
  return *n;
}

std::vector<uint8_t> OnnxModelBuilder::Bytes() const {
  const std::string s = model_.SerializeAsString();
  return std::vector<uint8_t>(s.begin(), s.end());
}

void AttrInt(onnx::NodeProto& n, const std::string& name, int64_t v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void AttrInts(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void AttrFloat(onnx::NodeProto& n, const std::string& name, float v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void AttrString(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

void AttrGraph(onnx::NodeProto& n, const std::string& name, const OnnxModelBuilder& body) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = body.model().graph();
}

std::vector<uint8_t> FourProblemModel() {
  constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
  OnnxModelBuilder b(15);
  b.Input("x", kFloat, {-1, 4});
  b.Input("y", kFloat, {2, 4});
  for (const char* p : {"scale", "bias", "mean", "var"}) b.FloatInit(p, {4}, {1, 1, 1, 1});
  b.Node("Frobnicate", {"y"}, {"f1"}, "frob1").set_domain("com.example");
  b.Node("Frobnicate", {"y"}, {"f2"}, "frob2").set_domain("com.example");
  b.Node("Normalizer", {"y"}, {"nm"}, "norm").set_domain("ai.onnx.ml");
  AttrInt(b.Node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"bn_out"}, "bn"), "training_mode", 1);
  b.Node("Add", {"f1", "f2"}, {"sum"}, "uses_frob");
  b.Node("Relu", {"x"}, {"r"}, "relu");  // converts: not a problem
  for (const char* o : {"bn_out", "nm", "sum", "r"}) b.Output(o);
  return b.Bytes();
}

HostTensor FloatTensor(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  HostTensor h{"", 1, shape, std::vector<uint8_t>(values.size() * 4)};
  if (!values.empty()) std::memcpy(h.data.data(), values.data(), h.data.size());
  return h;
}

std::vector<float> Floats(const HostTensor& t) {
  std::vector<float> v(t.data.size() / 4);
  if (!v.empty()) std::memcpy(v.data(), t.data.data(), v.size() * 4);
  return v;
}

absl::StatusOr<std::vector<HostTensor>> RunReference(const Graph& graph, const std::vector<HostTensor>& inputs) {
  // Each tensor's bytes: constants from the graph, inputs given, op outputs computed.
  std::vector<Tensor> values = graph.tensors;
  std::vector<std::vector<uint8_t>> storage(values.size());
  if (inputs.size() != graph.inputs.size()) return absl::InvalidArgumentError("input count differs");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int32_t t = graph.inputs[i];
    storage[t] = inputs[i].data;
    values[t].data = storage[t];
  }
  for (const Op& op : graph.ops) {
    std::vector<const Tensor*> in;
    for (int32_t t : op.inputs) in.push_back(t < 0 ? nullptr : &values[t]);
    std::vector<TensorType> out_types;
    std::vector<Quantization> quants;
    for (int32_t t : op.outputs) {
      out_types.push_back({values[t].dtype, values[t].shape});
      quants.push_back(values[t].quant);
    }
    ASSIGN_OR_RETURN(std::vector<HostTensor> results,
                     FoldConstantOp(op.type, op.attrs, in, out_types, quants, kDefaultMaxFoldedConstantBytes));
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      storage[op.outputs[i]] = std::move(results[i].data);
      values[op.outputs[i]].data = storage[op.outputs[i]];
    }
  }
  std::vector<HostTensor> out;
  for (int32_t t : graph.outputs) {
    const Tensor& v = values[t];
    out.push_back(HostTensor{v.name, v.dtype, v.shape, std::vector<uint8_t>(v.data.begin(), v.data.end())});
  }
  return out;
}

HostTensor SeededFloats(const std::vector<int64_t>& shape, uint32_t seed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t state = seed * 2654435761u + 1;
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 4.0f - 2.0f;
  }
  return FloatTensor(shape, v);
}

absl::StatusOr<double> MaxRelativeDifference(const Graph& a, const Graph& b, const std::vector<HostTensor>& inputs) {
  ASSIGN_OR_RETURN(std::vector<HostTensor> ya, RunReference(a, inputs));
  ASSIGN_OR_RETURN(std::vector<HostTensor> yb, RunReference(b, inputs));
  if (ya.size() != yb.size()) return absl::InvalidArgumentError("output counts differ");
  double worst = 0;
  for (size_t i = 0; i < ya.size(); ++i) {
    if (ya[i].dtype != yb[i].dtype || ya[i].shape != yb[i].shape)
      return absl::InvalidArgumentError(absl::StrCat("output ", i, " differs in dtype or shape"));
    if (ya[i].dtype != 1) continue;
    const std::vector<float> fa = Floats(ya[i]), fb = Floats(yb[i]);
    for (size_t k = 0; k < fa.size(); ++k) {
      const double d = std::fabs(static_cast<double>(fa[k]) - fb[k]) / (1.0 + std::fabs(static_cast<double>(fb[k])));
      if (std::isnan(d)) return absl::InvalidArgumentError(absl::StrCat("output ", i, " element ", k, " is NaN"));
      worst = std::max(worst, d);
    }
  }
  return worst;
}

std::vector<int32_t> OpTypes(const Graph& g) {
  std::vector<int32_t> v;
  for (const Op& op : g.ops) v.push_back(op.type);
  return v;
}

std::vector<float> FirstOutputFloats(const Graph& graph, const std::vector<HostTensor>& inputs) {
  absl::StatusOr<std::vector<HostTensor>> y = RunReference(graph, inputs);
  EXPECT_TRUE(y.ok()) << y.status();
  return y.ok() && !y->empty() ? Floats((*y)[0]) : std::vector<float>{};
}

}  // namespace tessera::onnx_import::testing
