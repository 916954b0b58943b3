#include "plugins/systolic_npu/machine/vector_unit.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "plugins/systolic_npu/machine/fp16.h"
#include "plugins/systolic_npu/machine/lookup_tables.h"
#include "plugins/systolic_npu/machine/quant.h"
#include "plugins/systolic_npu/machine/vector_depthwise.h"
#include "plugins/systolic_npu/machine/vector_softmax.h"

namespace tessera::systolic {

namespace {

uint8_t* At(uint8_t* banks[3], uint32_t addr) { return banks[SramBankBits(addr)] + SramOffset(addr); }

bool IsFloat(int32_t dt) { return dt == TSR_DTYPE_F32 || dt == TSR_DTYPE_F16; }

float BitsToFloat(int32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Pooling as docs/ops.md specifies it: padding never wins a max and never
// adds to a sum; NaN propagates through max; float sums in fp32 in window
// order (kh, then kw). The in-bounds taps of each window are found once
// per output row and column (TapRange), so the loops visit only them, in
// the same order.
// `dt` is a template argument so that the per-tap loads compile to the
// one dtype's load (this loop is most of a small CNN's vector time).
template <int32_t dt>
void Pool(const Program& p, const Instruction& in, const uint8_t* src, uint8_t* out) {
  const PoolDesc d = p.Descriptor<PoolDesc>(in.f[5]);
  const bool is_max = static_cast<VectorOp>(in.a) == VectorOp::kMaxPool;
  const size_t es = NpuDtypeSize(dt);
  const uint64_t plane = uint64_t(d.in_h) * d.in_w;
  const uint64_t out_plane = uint64_t(d.out_h) * d.out_w;
  const bool fl = IsFloat(dt);
  for (uint64_t ch = 0; ch < in.f[3]; ++ch) {
    const uint8_t* s = src + ch * plane * es;
    for (int32_t oh = 0; oh < d.out_h; ++oh) {
      const int64_t h0 = int64_t{oh} * d.stride_h - d.pad_top;
      int64_t kh0, kh1, ph0, ph1;
      TapRange(h0, d.dilation_h, d.kernel_h, 0, d.in_h, &kh0, &kh1);
      TapRange(h0, d.dilation_h, d.kernel_h, -int64_t{d.pad_top}, int64_t{d.in_h} + d.pad_bottom, &ph0, &ph1);
      for (int32_t ow = 0; ow < d.out_w; ++ow) {
        const int64_t w0 = int64_t{ow} * d.stride_w - d.pad_left;
        int64_t kw0, kw1, pw0, pw1;
        TapRange(w0, d.dilation_w, d.kernel_w, 0, d.in_w, &kw0, &kw1);
        TapRange(w0, d.dilation_w, d.kernel_w, -int64_t{d.pad_left}, int64_t{d.in_w} + d.pad_right, &pw0, &pw1);
        float fmax = -std::numeric_limits<float>::infinity(), fsum = 0;
        bool nan = false;
        int32_t imax = -128, isum = 0;
        for (int64_t kh = kh0; kh < kh1; ++kh) {
          const uint8_t* r = s + uint64_t(h0 + kh * d.dilation_h) * d.in_w * es;
          for (int64_t kw = kw0; kw < kw1; ++kw) {
            const uint8_t* e = r + uint64_t(w0 + kw * d.dilation_w) * es;
            if (fl) {
              const float v = LoadFloat(e, dt);
              nan = nan || std::isnan(v);
              if (v > fmax) fmax = v;
              fsum += v;
            } else {
              const int32_t v = LoadInt(e, dt);
              if (v > imax) imax = v;
              isum += v;
            }
          }
        }
        const int32_t count = static_cast<int32_t>((kh1 - kh0) * (kw1 - kw0));
        const int32_t padded = static_cast<int32_t>((ph1 - ph0) * (pw1 - pw0));
        uint8_t* o = out + (ch * out_plane + uint64_t(oh) * d.out_w + ow) * es;
        const int32_t divisor = d.count_include_pad ? padded : count;
        if (fl) {
          float v;
          if (is_max) {
            v = nan ? std::numeric_limits<float>::quiet_NaN() : fmax;
          } else {
            v = fsum / static_cast<float>(divisor);  // 0/0 = NaN: no taps
          }
          StoreFloat(o, dt, v);
        } else {
          int32_t v = imax;
          if (!is_max) {  // TFLite rounding: half away from zero
            v = divisor == 0 ? 0 : isum > 0 ? (isum + divisor / 2) / divisor : (isum - divisor / 2) / divisor;
          }
          StoreInt(o, dt, Clamp32(v, -128, 127));
        }
      }
    }
  }
}

}  // namespace

uint64_t VectorResultBytes(const Program& p, const Instruction& in) {
  const VectorOp op = static_cast<VectorOp>(in.a);
  const uint64_t os = NpuDtypeSize(in.c);
  if (op == VectorOp::kMaxPool || op == VectorOp::kAvgPool || op == VectorOp::kDepthwise) {
    const PoolDesc d = p.Descriptor<PoolDesc>(in.f[5]);
    return uint64_t{in.f[3]} * uint64_t(d.out_h) * uint64_t(d.out_w) * os;
  }
  if (op == VectorOp::kRowSum) return uint64_t{in.f[3]} * os;
  return uint64_t{in.f[3]} * in.f[4] * os;
}

void ExecuteVector(const Program& p, const Instruction& in, uint8_t* banks[3]) {
  const VectorOp op = static_cast<VectorOp>(in.a);
  const int32_t dt = in.b, ot = in.c;
  const size_t es = NpuDtypeSize(dt), os = NpuDtypeSize(ot);
  const uint64_t rows = in.f[3], cols = in.f[4], n = rows * cols;
  const uint8_t* s0 = At(banks, in.f[0]);
  const uint8_t* s1 = At(banks, in.f[1]);
  uint8_t* dst = At(banks, in.f[2]);

  // Results go to a staging buffer first, so src and dst may overlap.
  // Staging reused across instructions (per thread): allocating and
  // zero-filling a fresh buffer per VECTOR showed up in small layers.
  thread_local std::vector<uint8_t> staging;
  auto stage = [&](uint64_t bytes) {
    if (staging.size() < bytes) staging.resize(bytes);
    return staging.data();
  };
  if (op == VectorOp::kMaxPool || op == VectorOp::kAvgPool) {
    const PoolDesc d = p.Descriptor<PoolDesc>(in.f[5]);
    const uint64_t bytes = rows * d.out_h * d.out_w * os;
    uint8_t* out = stage(bytes);
    if (dt == TSR_DTYPE_F32) {
      Pool<TSR_DTYPE_F32>(p, in, s0, out);
    } else if (dt == TSR_DTYPE_F16) {
      Pool<TSR_DTYPE_F16>(p, in, s0, out);
    } else {
      Pool<TSR_DTYPE_I8>(p, in, s0, out);
    }
    std::memcpy(dst, out, bytes);
    return;
  }
  if (op == VectorOp::kDepthwise) {
    const uint64_t bytes = VectorResultBytes(p, in);
    uint8_t* out = stage(bytes);
    ExecuteDepthwise(p, in, s0, s1, out);
    std::memcpy(dst, out, bytes);
    return;
  }
  if (op == VectorOp::kRowSum) {  // I8 -> I32, exact (cols <= 2^23 by the verifier)
    uint8_t* out = stage(rows * 4);
    for (uint64_t r = 0; r < rows; ++r) {
      int32_t sum = 0;
      for (uint64_t c = 0; c < cols; ++c) sum += static_cast<int8_t>(s0[r * cols + c]);
      StoreInt(&out[r * 4], TSR_DTYPE_I32, sum);
    }
    std::memcpy(dst, out, rows * 4);
    return;
  }
  uint8_t* out = stage(n * os);
  if (op == VectorOp::kSoftmax) {
    ExecuteSoftmaxRows(dt, rows, cols, s0, out);
    std::memcpy(dst, out, n * os);
    return;
  }
  switch (op) {
    case VectorOp::kBiasAdd:
      for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c) {
          const uint64_t i = r * cols + c;
          if (dt == TSR_DTYPE_F32) {
            StoreFloat(&out[i * 4], TSR_DTYPE_F32,
                       LoadFloat(s0 + i * 4, TSR_DTYPE_F32) + LoadFloat(s1 + c * 4, TSR_DTYPE_F32));
          } else {  // 32-bit wrapping add
            const uint32_t v =
                static_cast<uint32_t>(LoadInt(s0 + i * 4, dt)) + static_cast<uint32_t>(LoadInt(s1 + c * 4, dt));
            StoreInt(&out[i * 4], dt, static_cast<int32_t>(v));
          }
        }
      break;
    case VectorOp::kRelu:
      if (dt == TSR_DTYPE_F32) {  // the common case, as one tight loop
        for (uint64_t i = 0; i < n; ++i) {
          const float v = LoadFloat(s0 + i * 4, TSR_DTYPE_F32);
          StoreFloat(&out[i * 4], TSR_DTYPE_F32, v < 0.0f ? 0.0f : v);
        }
        break;
      }
      for (uint64_t i = 0; i < n; ++i) {
        if (IsFloat(dt)) {
          const float v = LoadFloat(s0 + i * es, dt);
          StoreFloat(&out[i * es], dt, v < 0.0f ? 0.0f : v);
        } else {
          const int32_t v = LoadInt(s0 + i * es, dt);
          StoreInt(&out[i * es], dt, v < 0 ? 0 : v);
        }
      }
      break;
    case VectorOp::kClip: {
      const ClipDesc d = p.Descriptor<ClipDesc>(in.f[5]);
      for (uint64_t i = 0; i < n; ++i) {
        if (IsFloat(dt)) {
          const float lo = BitsToFloat(d.lo), hi = BitsToFloat(d.hi);
          float v = LoadFloat(s0 + i * es, dt);
          v = v < lo ? lo : v;  // max, then min (lo > hi yields hi);
          v = v > hi ? hi : v;  // NaN passes through
          StoreFloat(&out[i * es], dt, v);
        } else {
          int32_t v = LoadInt(s0 + i * es, dt);
          v = v < d.lo ? d.lo : v;
          v = v > d.hi ? d.hi : v;
          StoreInt(&out[i * es], dt, v);
        }
      }
      break;
    }
    case VectorOp::kRequantize: {
      const RequantDesc d = p.Descriptor<RequantDesc>(in.f[5]);
      for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c) {
          const uint64_t i = r * cols + c;
          const int32_t mult = LoadInt(s1 + c * 4, TSR_DTYPE_I32);
          const int32_t shift = LoadInt(s1 + (cols + c) * 4, TSR_DTYPE_I32);
          // Shifts outside [-31, 30] are clamped by the shifter.
          const int32_t sh = shift < -31 ? -31 : (shift > 30 ? 30 : shift);
          out[i] = static_cast<uint8_t>(
              RequantizeOne(LoadInt(s0 + i * 4, TSR_DTYPE_I32), mult, sh, d.out_zero_point, d.act_min, d.act_max));
        }
      break;
    }
    case VectorOp::kAdd:
    case VectorOp::kSub:
    case VectorOp::kMul: {
      const bool add = op == VectorOp::kAdd;
      const EltwiseKind kind = add ? EltwiseKind::kAdd : op == VectorOp::kSub ? EltwiseKind::kSub : EltwiseKind::kMul;
      const bool per_col = (in.f[6] & kVectorBroadcastSrc1) != 0;
      const bool per_row = (in.f[6] & kVectorBroadcastSrc1PerRow) != 0;
      auto j = [&](uint64_t i) { return per_col ? i % cols : (per_row ? i / cols : i); };
      if (IsFloat(dt)) {
        for (uint64_t i = 0; i < n; ++i) {
          const float a = LoadFloat(s0 + i * es, dt), b = LoadFloat(s1 + j(i) * es, dt);
          StoreFloat(&out[i * es], dt, add ? a + b : (op == VectorOp::kSub ? a - b : a * b));
        }
      } else {  // I8: the QELTWISE pipeline
        const QuantEltwiseDesc q = p.Descriptor<QuantEltwiseDesc>(in.f[5]);
        for (uint64_t i = 0; i < n; ++i)
          out[i] =
              static_cast<uint8_t>(QuantEltwiseOne(q, kind, static_cast<int8_t>(s0[i]), static_cast<int8_t>(s1[j(i)])));
      }
      break;
    }
    case VectorOp::kSigmoid:
    case VectorOp::kTanh:
    case VectorOp::kExp: {
      float (*f)(float) = op == VectorOp::kSigmoid ? LutSigmoid : op == VectorOp::kTanh ? LutTanh : LutExp;
      for (uint64_t i = 0; i < n; ++i) StoreFloat(&out[i * es], dt, f(LoadFloat(s0 + i * es, dt)));
      break;
    }
    case VectorOp::kTable: {  // I8 -> I8: T[x + 128], one table or one per row
      const bool per_row = (in.f[6] & kVectorBroadcastSrc1PerRow) != 0;
      for (uint64_t r = 0; r < rows; ++r) {
        const uint8_t* t = s1 + (per_row ? r * kTableBytes : 0);
        for (uint64_t c = 0; c < cols; ++c) {
          const uint64_t i = r * cols + c;
          out[i] = t[static_cast<int8_t>(s0[i]) + 128];
        }
      }
      break;
    }
    case VectorOp::kQuantize: {  // F32/F16 -> I8
      const QuantDesc d = p.Descriptor<QuantDesc>(in.f[5]);
      const float scale = QuantDescScale(d);
      for (uint64_t i = 0; i < n; ++i)
        out[i] = static_cast<uint8_t>(QuantizeToInt8(LoadFloat(s0 + i * es, dt), scale, d.zero_point));
      break;
    }
    case VectorOp::kDequantize: {  // I8 -> F32/F16 (rounded once, to nearest even)
      const QuantDesc d = p.Descriptor<QuantDesc>(in.f[5]);
      const float scale = QuantDescScale(d);
      for (uint64_t i = 0; i < n; ++i)
        StoreFloat(&out[i * os], ot, DequantizeInt8(static_cast<int8_t>(s0[i]), scale, d.zero_point));
      break;
    }
    default:
      return;  // unreachable for verified code
  }
  std::memcpy(dst, out, n * os);
}

}  // namespace tessera::systolic
