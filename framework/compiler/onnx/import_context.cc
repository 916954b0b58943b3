#include "framework/compiler/onnx/import_context.h"

#include "framework/compiler/onnx/import_diagnostics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/compiler/onnx/constant_folding.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"
#include "support/math/checked_math.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {

int32_t ImportContext::AddTensor(Tensor t) {
  graph_.tensors.push_back(std::move(t));
  return static_cast<int32_t>(graph_.tensors.size() - 1);
}

std::string ImportContext::NewName(absl::string_view base) {
  return absl::StrCat(node_label_, "/", base, "_", counter_++);
}

int32_t ImportContext::AddInput(const std::string& name, int32_t dtype, std::vector<int64_t> shape) {
  Tensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  const int32_t id = AddTensor(std::move(t));
  graph_.inputs.push_back(id);
  return id;
}

int32_t ImportContext::AddConstant(HostTensor h, Quantization quant) {
  Tensor t;
  t.name = h.name.empty() ? NewName("const") : h.name;
  t.dtype = h.dtype;
  t.shape = std::move(h.shape);
  t.quant = std::move(quant);
  t.is_constant = true;
  t.data = graph_.AdoptBytes(std::move(h.data));
  return AddTensor(std::move(t));
}

int32_t ImportContext::AddConstant(ConvertedTensor c) {
  if (!c.view) return AddConstant(std::move(c.host));
  if (payloads_ == nullptr || payloads_->owner == nullptr) {
    c.host.data.assign(c.view->begin(), c.view->end());
    return AddConstant(std::move(c.host));
  }
  if (!keeps_payload_owner_) {
    graph_.KeepAlive(payloads_->owner);
    keeps_payload_owner_ = true;
  }
  Tensor t;
  t.name = c.host.name.empty() ? NewName("const") : c.host.name;
  t.dtype = c.host.dtype;
  t.shape = std::move(c.host.shape);
  t.is_constant = true;
  t.data = *c.view;
  return AddTensor(std::move(t));
}

absl::StatusOr<size_t> ImportContext::FoldedBytes(int32_t dtype, const std::vector<int64_t>& shape,
                                                  absl::string_view what) const {
  const size_t elem = DTypeSize(dtype);
  if (elem == 0) return absl::InvalidArgumentError(absl::StrCat(what, ": unknown dtype ", dtype));
  for (int64_t d : shape)
    if (d < 0)
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": negative dimension in [", absl::StrJoin(shape, ","), "]"));
  // An element count that overflows is simply above every budget.
  const std::optional<int64_t> count = checked::ElementCount(shape);
  const std::optional<int64_t> bytes = count ? checked::Mul(*count, static_cast<int64_t>(elem)) : std::nullopt;
  if (!bytes || *bytes > max_folded_bytes_)
    return absl::ResourceExhaustedError(
        absl::StrCat(what, ": a constant of shape [", absl::StrJoin(shape, ","), "] (", DTypeName(dtype), ") needs ",
                     bytes ? absl::StrCat(*bytes, " bytes") : std::string("more than 2^63 bytes"),
                     ", above the import budget of ", max_folded_bytes_,
                     " bytes for one folded constant (ImportOptions::max_folded_constant_bytes, tessera import "
                     "--max-folded-bytes)"));
  return static_cast<size_t>(*bytes);
}

absl::StatusOr<int32_t> ImportContext::Filled(int32_t dtype, std::vector<int64_t> shape, double value,
                                              absl::string_view what) {
  ASSIGN_OR_RETURN(const size_t bytes, FoldedBytes(dtype, shape, what));
  HostTensor h;
  h.dtype = dtype;
  h.shape = std::move(shape);
  h.data.resize(bytes);
  const int64_t n = static_cast<int64_t>(bytes / DTypeSize(dtype));
  for (int64_t i = 0; i < n; ++i) StoreElement(dtype, value, h.data.data(), i);
  return AddConstant(std::move(h));
}

int32_t ImportContext::Scalar(int32_t dtype, double value) {
  HostTensor h;
  h.dtype = dtype;
  h.data.resize(DTypeSize(dtype));
  if (!h.data.empty()) StoreElement(dtype, value, h.data.data(), 0);
  return AddConstant(std::move(h));
}

int32_t ImportContext::Int64s(const std::vector<int64_t>& values) {
  HostTensor h;
  h.dtype = TSR_DTYPE_I64;
  h.shape = {static_cast<int64_t>(values.size())};
  h.data.resize(values.size() * 8);
  if (!values.empty()) std::memcpy(h.data.data(), values.data(), h.data.size());
  return AddConstant(std::move(h));
}

absl::StatusOr<std::vector<int32_t>> ImportContext::Fold(int32_t op_type, const std::vector<int32_t>& inputs,
                                                         const std::map<int32_t, Attribute>& attrs,
                                                         const std::vector<TensorType>& outputs,
                                                         const std::vector<Quantization>& quants) {
  // The reference kernels read constants through typed pointers: one that
  // is a view into the ONNX file at an odd offset is copied for the fold
  // (graph/graph.h, kConstantAlignment).
  Graph scratch;  // owns the aligned copies for the fold
  std::vector<Tensor> aligned;
  aligned.reserve(inputs.size());
  std::vector<const Tensor*> in;
  for (int32_t t : inputs) {
    if (t < 0) {
      in.push_back(nullptr);
      continue;
    }
    const Tensor& x = graph_.tensors[t];
    if (IsAlignedConstant(x.data)) {
      in.push_back(&x);
      continue;
    }
    aligned.push_back(x);
    aligned.back().data = scratch.AdoptAlignedCopy(x.data);
    in.push_back(&aligned.back());
  }
  // The budget judges growth: a fold whose outputs are no larger than its
  // inputs (transpose, reshape, a narrowing cast) makes nothing the file
  // did not already hold, whatever its size. A growing fold is refused when
  // one output, or the running total of what folds grew, passes the budget.
  int64_t in_bytes = 0;
  for (const Tensor* x : in)
    if (x != nullptr) in_bytes += static_cast<int64_t>(x->data.size());
  std::optional<int64_t> out_bytes = 0;
  for (const TensorType& o : outputs) {
    const std::optional<int64_t> b = checked::TensorBytes(o.shape, DTypeSize(o.dtype));
    out_bytes = b && out_bytes ? checked::Add(*out_bytes, *b) : std::nullopt;
  }
  const bool grows = !out_bytes || *out_bytes > in_bytes;
  const int64_t growth = out_bytes ? std::max<int64_t>(0, *out_bytes - in_bytes) : 0;
  if (growth > max_folded_bytes_ - folded_growth_)
    return absl::ResourceExhaustedError(absl::StrCat(
        OpTypeName(op_type), ": folding it would grow the model's constants to ", folded_growth_ + growth,
        " bytes more than the file holds, above the import budget of ", max_folded_bytes_,
        " bytes for all folded constants together (ImportOptions::max_folded_constant_bytes, tessera import "
        "--max-folded-bytes)"));
  ASSIGN_OR_RETURN(
      std::vector<HostTensor> results,
      FoldConstantOp(op_type, attrs, in, outputs, quants, grows ? max_folded_bytes_ : checked::kMaxTensorBytes));
  folded_growth_ += growth;
  ++folded_ops_;
  std::vector<int32_t> ids;
  for (size_t i = 0; i < results.size(); ++i) {
    folded_bytes_ += static_cast<int64_t>(results[i].data.size());
    results[i].name = NewName(OpTypeName(op_type));
    ids.push_back(AddConstant(std::move(results[i]), i < quants.size() ? quants[i] : Quantization{}));
  }
  return ids;
}

absl::StatusOr<std::vector<int32_t>> ImportContext::EmitTyped(int32_t op_type, std::vector<int32_t> inputs,
                                                              std::map<int32_t, Attribute> attrs,
                                                              std::vector<TensorType> outputs,
                                                              std::vector<Quantization> quants, bool no_fold) {
  for (int32_t t : inputs)
    if (t < -1 || t >= static_cast<int32_t>(graph_.tensors.size()))
      return absl::InternalError(absl::StrCat(OpTypeName(op_type), ": bad input tensor index ", t));
  while (!inputs.empty() && inputs.back() == -1) inputs.pop_back();  // trailing omitted optionals
  bool all_constant = !no_fold;
  for (int32_t t : inputs)
    if (t >= 0 && !IsConstant(t)) all_constant = false;
  if (all_constant) return Fold(op_type, inputs, attrs, outputs, quants);
  Op op;
  op.type = op_type;
  op.inputs = std::move(inputs);
  op.attrs = std::move(attrs);
  op.id = static_cast<uint32_t>(graph_.ops.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor t;
    t.name = NewName(OpTypeName(op_type));
    t.dtype = outputs[i].dtype;
    t.shape = outputs[i].shape;
    if (i < quants.size()) t.quant = quants[i];
    op.outputs.push_back(AddTensor(std::move(t)));
  }
  graph_.ops.push_back(std::move(op));
  return graph_.ops.back().outputs;
}

absl::StatusOr<int32_t> ImportContext::Emit(int32_t op_type, std::vector<int32_t> inputs,
                                            std::map<int32_t, Attribute> attrs, EmitOptions options) {
  std::vector<std::optional<TensorType>> types;
  for (int32_t t : inputs) {
    if (t < 0 || t >= static_cast<int32_t>(graph_.tensors.size())) {
      types.emplace_back();
      continue;
    }
    types.push_back(TensorType{graph_.tensors[t].dtype, graph_.tensors[t].shape});
  }
  ASSIGN_OR_RETURN(std::vector<TensorType> out, InferOutputTypes(op_type, types, attrs, options.output_dtype));
  out.resize(1);
  ASSIGN_OR_RETURN(std::vector<int32_t> ids, EmitTyped(op_type, std::move(inputs), std::move(attrs), std::move(out),
                                                       {options.output_quant}, options.no_fold));
  return ids[0];
}

absl::StatusOr<int32_t> ImportContext::BinaryScalar(int32_t op_type, int32_t a, double b) {
  return Emit(op_type, {a, Scalar(dtype(a), b)});
}

absl::StatusOr<int32_t> ImportContext::Reshape(int32_t x, std::vector<int64_t> shape) {
  if (shape == this->shape(x)) return x;
  return Emit(TSR_OP_RESHAPE, {x}, {{TSR_ATTR_SHAPE, Attribute{shape, {}}}});
}

absl::StatusOr<int32_t> ImportContext::Cast(int32_t x, int32_t to) {
  if (dtype(x) == to) return x;
  EmitOptions o;
  o.output_dtype = to;
  return Emit(TSR_OP_CAST, {x}, {}, o);
}

absl::StatusOr<int32_t> ImportContext::Copy(int32_t x, bool no_fold) {
  EmitOptions o;
  o.no_fold = no_fold;
  o.output_quant = tensor(x).quant;
  return Emit(TSR_OP_RESHAPE, {x}, {{TSR_ATTR_SHAPE, Attribute{shape(x), {}}}}, o);
}

HostTensor ImportContext::ConstHost(int32_t t) const {
  const Tensor& x = graph_.tensors[t];
  return HostTensor{x.name, x.dtype, x.shape, std::vector<uint8_t>(x.data.begin(), x.data.end())};
}

namespace {
// Folding from frozen inputs stays small: a condition, a shape, a count.
constexpr int64_t kMaxFoldFromFrozenElements = 4096;
constexpr int kMaxFoldFromFrozenDepth = 32;

bool MatchesFreezable(const Tensor& x, const HostTensor& value) {
  return value.dtype == x.dtype && value.shape == x.shape && value.data.size() == x.byte_size();
}
}  // namespace

bool ImportContext::RequireConstant(int32_t t) {
  if (t < 0) return false;
  if (IsConstant(t)) return true;
  auto it = freezable_.find(t);
  if (it == freezable_.end()) return !freezable_.empty() && CanFoldFromFrozen(t, 0) && FoldFromFrozen(t);
  Tensor& x = graph_.tensors[t];
  if (!MatchesFreezable(x, it->second)) return false;
  x.is_constant = true;
  x.data = graph_.AdoptBytes(std::move(it->second.data));
  freezable_.erase(it);
  return true;
}

int32_t ImportContext::ProducerOf(int32_t t) const {
  for (size_t o = graph_.ops.size(); o-- > 0;)
    for (int32_t out : graph_.ops[o].outputs)
      if (out == t) return static_cast<int32_t>(o);
  return -1;
}

bool ImportContext::CanFoldFromFrozen(int32_t t, int depth) const {
  if (t < 0) return true;  // an omitted optional input
  if (IsConstant(t)) return true;
  if (auto it = freezable_.find(t); it != freezable_.end()) return MatchesFreezable(graph_.tensors[t], it->second);
  if (depth >= kMaxFoldFromFrozenDepth) return false;
  const int32_t p = ProducerOf(t);
  if (p < 0) return false;
  const Op& op = graph_.ops[p];
  if (op.type == TSR_OP_DISPATCH || op.outputs.size() != 1) return false;
  const int64_t n = graph_.tensors[t].element_count();
  if (n < 0 || n > kMaxFoldFromFrozenElements) return false;
  for (int32_t in : op.inputs)
    if (!CanFoldFromFrozen(in, depth + 1)) return false;
  return true;
}

bool ImportContext::FoldFromFrozen(int32_t t) {
  const int32_t p = ProducerOf(t);
  if (p < 0) return false;
  const std::vector<int32_t> inputs = graph_.ops[p].inputs;
  for (int32_t in : inputs)
    if (in >= 0 && !RequireConstant(in)) return false;
  // Inputs folded above may have erased ops before this one.
  const int32_t q = ProducerOf(t);
  if (q < 0) return false;
  const Op& op = graph_.ops[q];
  const Tensor& x = graph_.tensors[t];
  absl::StatusOr<std::vector<int32_t>> folded =
      Fold(op.type, op.inputs, op.attrs, {TensorType{x.dtype, x.shape}}, {x.quant});
  if (!folded.ok() || folded->size() != 1) return false;
  Tensor& y = graph_.tensors[t];
  y.is_constant = true;
  y.data = graph_.tensors[(*folded)[0]].data;  // the graph owns the bytes; the fresh constant goes unused
  graph_.ops.erase(graph_.ops.begin() + q);
  return true;
}

absl::StatusOr<std::vector<double>> ImportContext::ConstDoubles(int32_t t, absl::string_view what) {
  if (t < 0) return absl::InvalidArgumentError(absl::StrCat(what, " is missing"));
  if (!RequireConstant(t)) return NotConstantError(*this, t, what, " must be a constant (or fold to one)");
  const Tensor& x = graph_.tensors[t];
  const int64_t n = x.element_count();
  if (n < 0 || x.data.size() != x.byte_size())
    return absl::InvalidArgumentError(absl::StrCat(what, ": constant data too short"));
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = LoadElement(x.dtype, x.data.data(), i);
  return v;
}

absl::StatusOr<std::vector<int64_t>> ImportContext::ConstInts(int32_t t, absl::string_view what) {
  if (t < 0) return absl::InvalidArgumentError(absl::StrCat(what, " is missing"));
  if (!RequireConstant(t)) return NotConstantError(*this, t, what, " must be a constant (or fold to one)");
  const Tensor& x = graph_.tensors[t];
  const int64_t n = x.element_count();
  if (x.dtype == TSR_DTYPE_I64) {
    if (n < 0 || x.data.size() != static_cast<size_t>(n) * 8)
      return absl::InvalidArgumentError(absl::StrCat(what, ": constant data does not match its shape"));
    std::vector<int64_t> v(static_cast<size_t>(n));
    if (n > 0) std::memcpy(v.data(), x.data.data(), static_cast<size_t>(n) * 8);
    return v;
  }
  if (x.dtype != TSR_DTYPE_I32 && x.dtype != TSR_DTYPE_I8 && x.dtype != TSR_DTYPE_U8)
    return absl::InvalidArgumentError(absl::StrCat(what, " must be an integer tensor, not ", DTypeName(x.dtype)));
  ASSIGN_OR_RETURN(std::vector<double> d, ConstDoubles(t, what));
  return std::vector<int64_t>(d.begin(), d.end());
}

absl::StatusOr<double> ImportContext::ConstScalar(int32_t t, absl::string_view what) {
  ASSIGN_OR_RETURN(std::vector<double> v, ConstDoubles(t, what));
  if (v.size() != 1) return absl::InvalidArgumentError(absl::StrCat(what, " must hold exactly one value"));
  return v[0];
}

std::optional<int32_t> ImportContext::Lookup(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

}  // namespace tessera::onnx_import
