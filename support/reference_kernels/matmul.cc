// MATMUL (numpy matmul: 1-D promotion, batch broadcasting; optional bias
// [N] as input 2) and FULLY_CONNECTED (X [..., K], W [N, K], optional bias
// [N]; y = X * W^T + b). Both apply TSR_ATTR_ACTIVATION after the bias.
//  * f32/f16: products accumulated in f64, bias added, activation, one
//    rounding to the output dtype.
//  * i32/i64 MATMUL: integer arithmetic wrapping modulo 2^bits.
//  * i8/u8: the integer pipeline of fused.h (see docs/ops.md).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "support/reference_kernels/broadcast.h"
#include "support/reference_kernels/fused.h"
#include "support/reference_kernels/kernel_util.h"
#include "support/reference_kernels/ops_internal.h"

namespace tessera::cpu::internal {
namespace {

const TensorRef* OptionalBias(std::span<const TensorRef> inputs) { return IsPresent(inputs, 2) ? &inputs[2] : nullptr; }

absl::Status CheckBiasShape(int32_t op, const TensorRef* bias, int64_t n) {
  if (bias && (bias->shape.size() != 1 || bias->shape[0] != n))
    return OpError(op, absl::StrCat("bias shape ", ShapeStr(bias->shape), " must be [", n, "]"));
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckMatMul(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 2, 3, 1);
  for (size_t i = 0; s.ok() && i < 2; ++i) s = CheckPresent(op, inputs, i);
  if (!s.ok()) return s;
  const TensorRef &a = inputs[0], &b = inputs[1], &y = outputs[0];
  const TensorRef* bias = OptionalBias(inputs);
  if (a.dtype == TSR_DTYPE_I32 || a.dtype == TSR_DTYPE_I64) {
    if (b.dtype != a.dtype || y.dtype != a.dtype || (bias && bias->dtype != a.dtype))
      return OpError(op, absl::StrCat("all dtypes must be ", DTypeName(a.dtype)));
    return absl::OkStatus();
  }
  return CheckComputeTypes(op, a, b, bias, y);
}

absl::Status RunMatMul(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                       std::span<TensorRef> outputs) {
  const TensorRef &a = inputs[0], &b = inputs[1], &y = outputs[0];
  const TensorRef* bias = OptionalBias(inputs);
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  if (a.shape.empty() || b.shape.empty()) return OpError(op, "inputs must have rank >= 1");
  Shape as = a.shape, bs = b.shape;
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  const int64_t M = as[as.size() - 2], K = as.back();
  const int64_t K2 = bs[bs.size() - 2], N = bs.back();
  if (K != K2) return OpError(op, absl::StrCat("inner dims differ: ", ShapeStr(a.shape), " x ", ShapeStr(b.shape)));
  const Shape batches[2] = {Shape(as.begin(), as.end() - 2), Shape(bs.begin(), bs.end() - 2)};
  auto batch = BroadcastShapes(op, batches);
  if (!batch.ok()) return batch.status();
  Shape out = *batch;
  if (a.shape.size() > 1) out.push_back(M);
  if (b.shape.size() > 1) out.push_back(N);
  if (!(s = CheckOutputShape(op, y, out)).ok()) return s;
  if (!(s = CheckBiasShape(op, bias, N)).ok()) return s;
  auto act = ParseActivation(op, attrs);
  if (!act.ok()) return act.status();
  BroadcastWalker walker(*batch, batches);

  if (IsFloatDType(a.dtype)) {
    const std::vector<float> A = LoadFloats(a), B = LoadFloats(b);
    std::vector<float> bv = bias ? LoadFloats(*bias) : std::vector<float>(N, 0);
    std::vector<double> acc(N);
    walker.ForEach([&](int64_t bo, const int64_t* off) {
      const float* ap = A.data() + off[0] * M * K;
      const float* bp = B.data() + off[1] * K * N;
      for (int64_t i = 0; i < M; ++i) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t k = 0; k < K; ++k) {
          const double av = ap[i * K + k];
          const float* brow = bp + k * N;
          for (int64_t j = 0; j < N; ++j) acc[j] += av * brow[j];
        }
        for (int64_t j = 0; j < N; ++j)
          StoreFloat(y, (bo * M + i) * N + j, static_cast<float>(act->Apply(acc[j] + bv[j])));
      }
    });
    return absl::OkStatus();
  }

  if (a.dtype == TSR_DTYPE_I32 || a.dtype == TSR_DTYPE_I64) {
    if (act->kind != TSR_ACTIVATION_NONE) return OpError(op, "fused activation unsupported for integer MATMUL");
    const std::vector<int64_t> A = LoadInts(a), B = LoadInts(b);
    std::vector<uint64_t> acc(N);
    walker.ForEach([&](int64_t bo, const int64_t* off) {
      for (int64_t i = 0; i < M; ++i) {
        for (int64_t j = 0; j < N; ++j) acc[j] = bias ? static_cast<uint64_t>(LoadInt(*bias, j)) : 0;
        for (int64_t k = 0; k < K; ++k) {
          const uint64_t av = static_cast<uint64_t>(A[off[0] * M * K + i * K + k]);
          const int64_t* brow = B.data() + off[1] * K * N + k * N;
          for (int64_t j = 0; j < N; ++j) acc[j] += av * static_cast<uint64_t>(brow[j]);
        }
        for (int64_t j = 0; j < N; ++j) StoreInt(y, (bo * M + i) * N + j, static_cast<int64_t>(acc[j]));
      }
    });
    return absl::OkStatus();
  }

  // Quantized: per-channel weights along b's last axis.
  auto p = MakeIntegerPipeline(op, a, b, y, static_cast<int64_t>(b.shape.size()) - 1, N, *act);
  if (!p.ok()) return p.status();
  std::vector<int32_t> A(a.element_count()), B(b.element_count());
  for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<int32_t>(LoadInt(a, i)) - p->x_zero_point;
  for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<int32_t>(LoadInt(b, i)) - p->w_zero_point[i % N];
  std::vector<int64_t> acc(N);
  walker.ForEach([&](int64_t bo, const int64_t* off) {
    for (int64_t i = 0; i < M; ++i) {
      std::fill(acc.begin(), acc.end(), 0);
      for (int64_t k = 0; k < K; ++k) {
        const int64_t av = A[off[0] * M * K + i * K + k];
        const int32_t* brow = B.data() + off[1] * K * N + k * N;
        for (int64_t j = 0; j < N; ++j) acc[j] += av * brow[j];
      }
      for (int64_t j = 0; j < N; ++j) {
        const int64_t bj = bias ? LoadInt(*bias, j) : 0;
        StoreInt(y, (bo * M + i) * N + j, p->Finish(WrapToInt32(acc[j] + bj), j));
      }
    }
  });
  return absl::OkStatus();
}

absl::Status CheckFullyConnected(int32_t op, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs) {
  absl::Status s = CheckArity(op, inputs, outputs, 2, 3, 1);
  for (size_t i = 0; s.ok() && i < 2; ++i) s = CheckPresent(op, inputs, i);
  if (!s.ok()) return s;
  return CheckComputeTypes(op, inputs[0], inputs[1], OptionalBias(inputs), outputs[0]);
}

absl::Status RunFullyConnected(int32_t op, const Attributes& attrs, std::span<const TensorRef> inputs,
                               std::span<TensorRef> outputs) {
  const TensorRef &x = inputs[0], &w = inputs[1], &y = outputs[0];
  const TensorRef* bias = OptionalBias(inputs);
  absl::Status s = CheckAllData(op, inputs, outputs);
  if (!s.ok()) return s;
  if (w.shape.size() != 2) return OpError(op, absl::StrCat("weights must be [N, K], got ", ShapeStr(w.shape)));
  const int64_t N = w.shape[0], K = w.shape[1];
  if (x.shape.empty() || x.shape.back() != K)
    return OpError(op, absl::StrCat("input shape ", ShapeStr(x.shape), " must end in K=", K));
  Shape out(x.shape.begin(), x.shape.end() - 1);
  out.push_back(N);
  if (!(s = CheckOutputShape(op, y, out)).ok()) return s;
  if (!(s = CheckBiasShape(op, bias, N)).ok()) return s;
  auto act = ParseActivation(op, attrs);
  if (!act.ok()) return act.status();
  const int64_t rows = K > 0 ? x.element_count() / K : ShapeElements(out) / std::max<int64_t>(N, 1);

  if (IsFloatDType(x.dtype)) {
    const std::vector<float> X = LoadFloats(x), W = LoadFloats(w);
    std::vector<float> bv = bias ? LoadFloats(*bias) : std::vector<float>(N, 0);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += static_cast<double>(X[r * K + k]) * W[n * K + k];
        StoreFloat(y, r * N + n, static_cast<float>(act->Apply(acc + bv[n])));
      }
    }
    return absl::OkStatus();
  }

  auto p = MakeIntegerPipeline(op, x, w, y, 0, N, *act);
  if (!p.ok()) return p.status();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t n = 0; n < N; ++n) {
      int64_t acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += (LoadInt(x, r * K + k) - p->x_zero_point) * (LoadInt(w, n * K + k) - p->w_zero_point[n]);
      const int64_t bn = bias ? LoadInt(*bias, n) : 0;
      StoreInt(y, r * N + n, p->Finish(WrapToInt32(acc + bn), n));
    }
  }
  return absl::OkStatus();
}

}  // namespace tessera::cpu::internal
