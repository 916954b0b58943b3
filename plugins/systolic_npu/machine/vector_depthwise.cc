#include "plugins/systolic_npu/machine/vector_depthwise.h"

#include "absl/strings/str_cat.h"
#include "plugins/systolic_npu/machine/element_access.h"

namespace tessera::systolic {

namespace {

bool InRange(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

// One output element per (position, channel); `dt` a template argument so
// the per-tap loads compile to the one dtype's load.
template <int32_t dt>
void Depthwise(const PoolDesc& d, uint64_t channels, const uint8_t* src, const uint8_t* w, uint8_t* out) {
  constexpr bool kFloat = dt != TSR_DTYPE_I8;
  const size_t es = NpuDtypeSize(dt);
  const uint64_t plane = uint64_t(d.in_h) * d.in_w;
  for (int32_t oh = 0; oh < d.out_h; ++oh) {
    const int64_t h0 = int64_t{oh} * d.stride_h - d.pad_top;
    int64_t kh0, kh1;
    TapRange(h0, d.dilation_h, d.kernel_h, 0, d.in_h, &kh0, &kh1);
    for (int32_t ow = 0; ow < d.out_w; ++ow) {
      const int64_t w0 = int64_t{ow} * d.stride_w - d.pad_left;
      int64_t kw0, kw1;
      TapRange(w0, d.dilation_w, d.kernel_w, 0, d.in_w, &kw0, &kw1);
      const uint64_t pos = uint64_t(oh) * d.out_w + ow;
      for (uint64_t ch = 0; ch < channels; ++ch) {
        const uint8_t* s = src + ch * plane * es;
        float facc = 0;
        int32_t iacc = 0;
        for (int64_t kh = 0; kh < d.kernel_h; ++kh) {
          const bool row_in = kh >= kh0 && kh < kh1;
          for (int64_t kw = 0; kw < d.kernel_w; ++kw) {
            const bool in = row_in && kw >= kw0 && kw < kw1;
            const uint8_t* wp = w + (uint64_t(kh * d.kernel_w + kw) * channels + ch) * es;
            if constexpr (kFloat) {
              if (!in) continue;  // float padding is +0.0: skipped
              const uint8_t* e =
                  s + (uint64_t(h0 + kh * d.dilation_h) * d.in_w + uint64_t(w0 + kw * d.dilation_w)) * es;
              facc += LoadFloat(e, dt) * LoadFloat(wp, dt);
            } else {
              const int32_t x =
                  in ? LoadInt(s + uint64_t(h0 + kh * d.dilation_h) * d.in_w + uint64_t(w0 + kw * d.dilation_w), dt)
                     : d.pad_value;
              iacc = static_cast<int32_t>(static_cast<uint32_t>(iacc) +
                                          static_cast<uint32_t>(x * LoadInt(wp, dt)));  // wraps as the array
            }
          }
        }
        uint8_t* o = out + (pos * channels + ch) * 4;
        if constexpr (kFloat) {
          StoreFloat(o, TSR_DTYPE_F32, facc);
        } else {
          StoreInt(o, TSR_DTYPE_I32, iacc);
        }
      }
    }
  }
}

}  // namespace

std::string DepthwiseProblem(const Program& p, const Instruction& in) {
  const int32_t dt = in.b, ot = in.c;
  if (!(dt == TSR_DTYPE_I8 && ot == TSR_DTYPE_I32) && !(dt == TSR_DTYPE_F16 && ot == TSR_DTYPE_F32))
    return absl::StrCat("DEPTHWISE is i8 -> i32 or f16 -> f32, not ", NpuDtypeName(dt), " -> ", NpuDtypeName(ot));
  const PoolDesc d = p.Descriptor<PoolDesc>(in.f[5]);
  const int32_t L = 1 << 16;
  if (!InRange(d.in_h, 1, L) || !InRange(d.in_w, 1, L) || !InRange(d.kernel_h, 1, L) || !InRange(d.kernel_w, 1, L) ||
      !InRange(d.stride_h, 1, L) || !InRange(d.stride_w, 1, L) || !InRange(d.dilation_h, 1, L) ||
      !InRange(d.dilation_w, 1, L) || !InRange(d.pad_top, 0, L) || !InRange(d.pad_left, 0, L) ||
      !InRange(d.out_h, 1, L) || !InRange(d.out_w, 1, L) || d.count_include_pad != 0 || d.pad_bottom != 0 ||
      d.pad_right != 0)
    return "depthwise descriptor out of range";
  if (dt != TSR_DTYPE_I8 && d.pad_value != 0) return "float DEPTHWISE pads with +0.0: pad_value must be 0";
  if (dt == TSR_DTYPE_I8 && !InRange(d.pad_value, -128, 127)) return "DEPTHWISE pad_value outside int8";
  if (uint64_t(d.in_h) * d.in_w != in.f[4]) return "DEPTHWISE: cols must equal in_h * in_w";
  const uint64_t taps = uint64_t(d.kernel_h) * d.kernel_w;
  if (taps > 4096) return "depthwise window larger than 4096";
  if (in.f[6] != taps) return absl::StrCat("DEPTHWISE: f6 must be the tap count ", taps, ", not ", in.f[6]);
  return "";
}

void ExecuteDepthwise(const Program& p, const Instruction& in, const uint8_t* src0, const uint8_t* src1, uint8_t* out) {
  const PoolDesc d = p.Descriptor<PoolDesc>(in.f[5]);
  if (in.b == TSR_DTYPE_I8) {
    Depthwise<TSR_DTYPE_I8>(d, in.f[3], src0, src1, out);
  } else {
    Depthwise<TSR_DTYPE_F16>(d, in.f[3], src0, src1, out);
  }
}

}  // namespace tessera::systolic
