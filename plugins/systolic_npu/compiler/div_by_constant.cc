#include "compiler/div_by_constant.h"

#include <cmath>
#include <cstring>

#include "compiler/op_reading.h"
#include "fp16.h"

namespace tessera::systolic {

absl::StatusOr<std::vector<uint8_t>> DivisorReciprocal(const kit::SnapshotTensor& b, Why* why) {
  if (!b.is_constant)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_OP, "DIV: the divisor '", b.name,
                "' is computed at run time (the vector unit has no divider; only DIV by a "
                "constant runs, as MUL by its reciprocal)");
  if (b.dtype != TSR_DTYPE_F32 && b.dtype != TSR_DTYPE_F16)
    SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_DTYPE, "DIV on ", DtypeText(b.dtype), " (f32, f16)");
  const size_t es = b.dtype == TSR_DTYPE_F32 ? 4 : 2;
  const size_t n = static_cast<size_t>(kit::ElementCount(b.shape));
  if (b.constant.size() != n * es)
    SNPU_REFUSE(TSR_REFUSAL_OTHER, "DIV: divisor '", b.name, "' holds ", b.constant.size(),
                " bytes, not ", n * es);
  // Smallest normal magnitude of the dtype: below it a reciprocal has lost
  // bits (subnormal); its inverse bounds the divisors that overflow.
  const float min_normal = b.dtype == TSR_DTYPE_F32 ? 0x1p-126f : 0x1p-14f;
  const float max_finite = b.dtype == TSR_DTYPE_F32 ? 0x1.fffffep127f : 65504.0f;
  std::vector<uint8_t> out(n * es);
  for (size_t i = 0; i < n; ++i) {
    float c;
    if (es == 4) {
      std::memcpy(&c, b.constant.data() + i * 4, 4);
    } else {
      uint16_t h;
      std::memcpy(&h, b.constant.data() + i * 2, 2);
      c = HalfToFloat(h);
    }
    const float r = 1.0f / c;
    if (c != 0 && !std::isinf(c) && !std::isnan(c)) {
      const float ar = std::fabs(r);
      // f16: rn16(r) must be a finite normal too (r < 65520 rounds finite).
      if (!(ar >= min_normal) || !(ar <= max_finite))
        SNPU_REFUSE(TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, "DIV: divisor ", c, " at index ", i,
                    " of '", b.name, "' has no normal ", DtypeText(b.dtype),
                    " reciprocal (x * 1/c would not approximate x / c)");
    }
    if (es == 4) {
      std::memcpy(out.data() + i * 4, &r, 4);
    } else {
      const uint16_t h = FloatToHalf(r);
      std::memcpy(out.data() + i * 2, &h, 2);
    }
  }
  return out;
}

}  // namespace tessera::systolic
