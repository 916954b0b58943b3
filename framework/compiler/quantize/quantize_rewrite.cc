#include "framework/compiler/quantize/quantize_rewrite.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "framework/compiler/quantize/op_inspection.h"
#include "framework/compiler/quantize/scale_selection.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/graph/graph_verifier.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::quantize {
namespace {

// Ops whose reference kernels act on stored i8 values and ignore quant
// params, so the output can carry the input's parameters unchanged.
bool IsStoredIntegerOp(int32_t type) {
  switch (type) {
    case TSR_OP_RELU:
    case TSR_OP_CLIP:
    case TSR_OP_MAX_POOL_2D:
    case TSR_OP_RESHAPE:
    case TSR_OP_SQUEEZE:
    case TSR_OP_UNSQUEEZE:
    case TSR_OP_TRANSPOSE:
    case TSR_OP_SLICE:
    case TSR_OP_GATHER:
      return true;
    default:
      return false;
  }
}

Quantization PerTensor(const ActivationParams& p) { return Quantization{{p.scale}, {p.zero_point}, -1}; }

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

class Rewriter {
 public:
  Rewriter(const Graph& src, const std::vector<TensorRange>& ranges) : src_(src), ranges_(ranges) {
    // Copying the source graph shares its storage, so spans of its
    // constants stay valid in the result.
    out_ = src;
    out_.tensors.clear();
    out_.ops.clear();
    out_.inputs.clear();
    out_.outputs.clear();
    float_id_.assign(src.tensors.size(), -1);
    int8_id_.assign(src.tensors.size(), -1);
    params_.resize(src.tensors.size());
  }

  absl::StatusOr<QuantizedGraph> Run() {
    if (!src_.bytecodes.empty())
      return absl::InvalidArgumentError("the model is already compiled: quantize the FP32 model instead");
    for (const Tensor& t : src_.tensors) names_.insert(t.name);
    for (int32_t t : src_.inputs) {
      float_id_[t] = AddTensor(src_.tensors[t]);
      out_.inputs.push_back(float_id_[t]);
    }
    for (const Op& op : src_.ops) {
      if (op.type == TSR_OP_DISPATCH)
        return absl::InvalidArgumentError("the model is already compiled: quantize the FP32 model instead");
      bool done = false;
      if (IsMatrixOp(op.type))
        done = TryCompute(op);
      else if (op.type == TSR_OP_ADD || op.type == TSR_OP_MUL)
        done = TryElementwise(op);
      else if (IsStoredIntegerOp(op.type))
        done = TryStoredInteger(op);
      if (done) {
        ++stats_.quantized_ops;
      } else {
        RETURN_IF_ERROR(EmitFloat(op));
        ++stats_.float_ops;
      }
    }
    for (int32_t t : src_.outputs) {
      ASSIGN_OR_RETURN(int32_t id, Original(t));
      out_.outputs.push_back(id);
    }
    RETURN_IF_ERROR(VerifyGraph(out_));
    return QuantizedGraph{std::move(out_), stats_};
  }

 private:
  std::string UniqueName(const std::string& base) {
    std::string name = base;
    for (int i = 2; names_.count(name); ++i) name = absl::StrCat(base, "_", i);
    names_.insert(name);
    return name;
  }

  int32_t AddTensor(Tensor t) {
    out_.tensors.push_back(std::move(t));
    return static_cast<int32_t>(out_.tensors.size() - 1);
  }

  int32_t AddConstant(const std::string& name, int32_t dtype, const std::vector<int64_t>& shape,
                      std::vector<uint8_t> bytes, Quantization quant) {
    Tensor t{UniqueName(name), dtype, shape, std::move(quant)};
    t.is_constant = true;
    t.data = out_.AdoptBytes(std::move(bytes));
    return AddTensor(std::move(t));
  }

  void AddOp(int32_t type, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
             std::map<int32_t, Attribute> attrs = {}) {
    Op op;
    op.type = type;
    op.inputs = std::move(inputs);
    op.outputs = std::move(outputs);
    op.attrs = std::move(attrs);
    op.id = static_cast<uint32_t>(out_.ops.size());
    out_.ops.push_back(std::move(op));
  }

  // Activation parameters of a non-constant f32 tensor from its range, or
  // of a constant f32 tensor from its data.
  std::optional<ActivationParams> ParamsFor(int32_t t) {
    if (params_[t]) return params_[t];
    const Tensor& tensor = src_.tensors[t];
    if (tensor.dtype != TSR_DTYPE_F32) return std::nullopt;
    float lo = 0, hi = 0;
    if (tensor.is_constant) {
      const std::vector<float> v = FloatData(tensor);
      if (v.empty()) return std::nullopt;
      lo = *std::min_element(v.begin(), v.end());
      hi = *std::max_element(v.begin(), v.end());
    } else {
      const TensorRange& r = ranges_[t];
      if (!r.seen || !r.finite) return std::nullopt;
      lo = r.min;
      hi = r.max;
    }
    absl::StatusOr<ActivationParams> p = ChooseActivationParams(lo, hi);
    if (!p.ok()) return std::nullopt;
    params_[t] = *p;
    return params_[t];
  }

  // The tensor in its original dtype; a DEQUANTIZE materializes the float
  // version of a tensor that only a quantized op produced.
  absl::StatusOr<int32_t> Original(int32_t t) {
    if (t < 0) return -1;
    if (float_id_[t] >= 0) return float_id_[t];
    const Tensor& tensor = src_.tensors[t];
    if (tensor.is_constant) return float_id_[t] = AddTensor(tensor);
    if (int8_id_[t] < 0)
      return absl::InternalError(
          absl::StrCat("quantize rewrite: tensor '", tensor.name, "' read before it is produced"));
    Tensor f{tensor.name, tensor.dtype, tensor.shape};
    float_id_[t] = AddTensor(std::move(f));
    AddOp(TSR_OP_DEQUANTIZE, {int8_id_[t]}, {float_id_[t]});
    return float_id_[t];
  }

  // The int8 version of a tensor whose ParamsFor() is known; a QUANTIZE is
  // inserted for one produced in float, a constant is quantized in place.
  absl::StatusOr<int32_t> Int8(int32_t t) {
    if (int8_id_[t] >= 0) return int8_id_[t];
    const ActivationParams p = *ParamsFor(t);
    const Tensor& tensor = src_.tensors[t];
    if (tensor.is_constant) {
      std::vector<int8_t> q;
      for (float v : FloatData(tensor)) q.push_back(QuantizeValue(v, p));
      return int8_id_[t] = AddConstant(tensor.name + "_int8", TSR_DTYPE_I8, tensor.shape, Bytes(q), PerTensor(p));
    }
    ASSIGN_OR_RETURN(int32_t f, Original(t));
    int8_id_[t] = AddTensor(Tensor{UniqueName(tensor.name + "_int8"), TSR_DTYPE_I8, tensor.shape, PerTensor(p)});
    AddOp(TSR_OP_QUANTIZE, {f}, {int8_id_[t]});
    return int8_id_[t];
  }

  // A fresh i8 output for source tensor `t` with parameters `p`.
  int32_t Int8Output(int32_t t, const ActivationParams& p) {
    const Tensor& tensor = src_.tensors[t];
    params_[t] = p;
    return int8_id_[t] = AddTensor(Tensor{UniqueName(tensor.name + "_int8"), TSR_DTYPE_I8, tensor.shape, PerTensor(p)});
  }

  bool IsActivation(int32_t t) {
    return t >= 0 && !src_.tensors[t].is_constant && src_.tensors[t].dtype == TSR_DTYPE_F32 && ParamsFor(t);
  }

  bool TryCompute(const Op& op) {
    if (op.inputs.size() < 2 || op.inputs.size() > 3 || op.outputs.size() != 1) return false;
    const int32_t x = op.inputs[0], w = op.inputs[1], b = op.inputs.size() > 2 ? op.inputs[2] : -1, y = op.outputs[0];
    if (!IsActivation(x) || !IsActivation(y) || w < 0) return false;
    const Tensor& wt = src_.tensors[w];
    if (!wt.is_constant || wt.dtype != TSR_DTYPE_F32) return false;
    const size_t rank = wt.shape.size();
    if ((op.type == TSR_OP_FULLY_CONNECTED && rank != 2) || (op.type == TSR_OP_CONV_2D && rank != 4) ||
        (op.type == TSR_OP_MATMUL && rank < 2))
      return false;
    // Output channels: FC/CONV axis 0 of the weights, MATMUL the last axis of B.
    const int32_t axis = op.type == TSR_OP_MATMUL ? static_cast<int32_t>(rank - 1) : 0;
    absl::StatusOr<PerChannelWeights> qw = QuantizeWeightsPerChannel(FloatData(wt), wt.shape, axis);
    if (!qw.ok()) return false;
    std::vector<float> bias;
    if (b >= 0) {
      const Tensor& bt = src_.tensors[b];
      if (!bt.is_constant || bt.dtype != TSR_DTYPE_F32 || bt.element_count() != wt.shape[axis]) return false;
      bias = FloatData(bt);
    }
    const ActivationParams xp = *ParamsFor(x);
    std::vector<int32_t> qbias;
    if (b >= 0) {
      // acc + bias must not wrap: |acc| <= taps · 255 · 127 ((x − zp) in
      // [−255, 255], w in [−127, 127]); taps per channel over-counts MATMUL's
      // batch dims, which only makes the bound safer.
      const int64_t taps = wt.shape[axis] > 0 ? wt.element_count() / wt.shape[axis] : 0;
      const int64_t limit = std::numeric_limits<int32_t>::max() - taps * 255 * 127;
      absl::StatusOr<std::vector<int32_t>> qb = QuantizeBias(bias, xp.scale, qw->scales, limit);
      if (!qb.ok()) return false;
      qbias = *std::move(qb);
    }

    const absl::StatusOr<int32_t> xq = Int8(x);
    if (!xq.ok()) return false;
    const int32_t wq = AddConstant(wt.name + "_int8", TSR_DTYPE_I8, wt.shape, Bytes(qw->values),
                                   Quantization{qw->scales, std::vector<int64_t>(qw->scales.size(), 0), axis});
    std::vector<int32_t> inputs = {*xq, wq};
    if (b >= 0) {
      Quantization bias_quant{{}, {}, 0};
      for (float ws : qw->scales) bias_quant.scales.push_back(xp.scale * ws);
      bias_quant.zero_points.assign(bias_quant.scales.size(), 0);
      // The kernels assume this scale; it is recorded only when representable.
      const bool representable = std::all_of(bias_quant.scales.begin(), bias_quant.scales.end(),
                                             [](float s) { return s > 0 && std::isfinite(s); });
      if (!representable || bias_quant.scales.size() != static_cast<size_t>(wt.shape[axis])) bias_quant = {};
      if (bias_quant.scales.size() == 1) bias_quant.axis = -1;
      inputs.push_back(AddConstant(src_.tensors[b].name + "_int32", TSR_DTYPE_I32, src_.tensors[b].shape, Bytes(qbias),
                                   std::move(bias_quant)));
    }
    AddOp(op.type, std::move(inputs), {Int8Output(y, *ParamsFor(y))}, op.attrs);
    return true;
  }

  bool TryElementwise(const Op& op) {
    if (op.inputs.size() != 2 || op.outputs.size() != 1) return false;
    for (int32_t t : op.inputs)
      if (t < 0 || src_.tensors[t].dtype != TSR_DTYPE_F32 || !ParamsFor(t)) return false;
    if (!IsActivation(op.outputs[0])) return false;
    std::vector<int32_t> inputs;
    for (int32_t t : op.inputs) {
      absl::StatusOr<int32_t> q = Int8(t);
      if (!q.ok()) return false;
      inputs.push_back(*q);
    }
    AddOp(op.type, std::move(inputs), {Int8Output(op.outputs[0], *ParamsFor(op.outputs[0]))});
    return true;
  }

  // RELU/CLIP bounds moved into the stored domain: q ≥ zp + lo/scale is
  // r ≥ lo; the CLIP kernel rounds a float min up and a float max down.
  std::optional<std::map<int32_t, Attribute>> StoredClipAttrs(const Op& op, const ActivationParams& p) {
    float lo = 0, hi = std::numeric_limits<float>::infinity();  // RELU
    if (op.type == TSR_OP_CLIP) {
      const std::optional<std::pair<float, float>> bounds = ClipBounds(src_, op);
      if (!bounds) return std::nullopt;
      std::tie(lo, hi) = *bounds;
    }
    auto stored = [&](float r) {
      if (std::isinf(r)) return r;
      return static_cast<float>(p.zero_point + static_cast<double>(r) / p.scale);
    };
    std::map<int32_t, Attribute> attrs;
    attrs[TSR_ATTR_CLIP_MIN] = Attribute{{}, {stored(lo)}};
    if (!std::isinf(hi)) attrs[TSR_ATTR_CLIP_MAX] = Attribute{{}, {stored(hi)}};
    return attrs;
  }

  bool TryStoredInteger(const Op& op) {
    if (op.inputs.empty() || op.outputs.size() != 1) return false;
    const int32_t x = op.inputs[0], y = op.outputs[0];
    // Only worth it when the input already is int8: quantizing just to run
    // a layout op would add a QUANTIZE and gain nothing.
    if (x < 0 || int8_id_[x] < 0 || src_.tensors[y].dtype != TSR_DTYPE_F32) return false;
    const ActivationParams p = *params_[x];
    std::vector<int32_t> inputs = {int8_id_[x]};
    std::map<int32_t, Attribute> attrs = op.attrs;
    int32_t type = op.type;
    if (op.type == TSR_OP_RELU || op.type == TSR_OP_CLIP) {
      std::optional<std::map<int32_t, Attribute>> clip = StoredClipAttrs(op, p);
      if (!clip) return false;
      type = TSR_OP_CLIP;
      attrs = std::move(*clip);
    } else {
      for (size_t i = 1; i < op.inputs.size(); ++i) {
        const int32_t t = op.inputs[i];
        if (t >= 0 && src_.tensors[t].dtype == TSR_DTYPE_F32) return false;  // a float operand: not pure layout
        absl::StatusOr<int32_t> id = Original(t);
        if (!id.ok()) return false;
        inputs.push_back(*id);
      }
    }
    AddOp(type, std::move(inputs), {Int8Output(y, p)}, std::move(attrs));
    return true;
  }

  absl::Status EmitFloat(const Op& op) {
    std::vector<int32_t> inputs, outputs;
    for (int32_t t : op.inputs) {
      ASSIGN_OR_RETURN(int32_t id, Original(t));
      inputs.push_back(id);
    }
    for (int32_t t : op.outputs) outputs.push_back(float_id_[t] = AddTensor(src_.tensors[t]));
    AddOp(op.type, std::move(inputs), std::move(outputs), op.attrs);
    out_.ops.back().dispatch = op.dispatch;
    // A precompiled op's external constants follow their tensors' new ids.
    if (op.dispatch)
      for (DispatchConstant& c : out_.ops.back().dispatch->constants) {
        ASSIGN_OR_RETURN(c.tensor, Original(c.tensor));
      }
    return absl::OkStatus();
  }

  const Graph& src_;
  const std::vector<TensorRange>& ranges_;
  Graph out_;
  std::vector<int32_t> float_id_, int8_id_;  // per source tensor: index in out_, -1 = none yet
  std::vector<std::optional<ActivationParams>> params_;
  std::set<std::string> names_;
  RewriteStats stats_;
};

}  // namespace

absl::StatusOr<QuantizedGraph> QuantizeGraph(const Graph& fp32, const std::vector<TensorRange>& ranges) {
  if (ranges.size() != fp32.tensors.size())
    return absl::InvalidArgumentError(
        absl::StrCat("quantize: ", ranges.size(), " ranges for ", fp32.tensors.size(), " tensors"));
  return Rewriter(fp32, ranges).Run();
}

}  // namespace tessera::quantize
