#include "plugins/systolic_npu/compiler/div_by_constant.h"

#include <cmath>
#include <cstring>

#include "plugins/systolic_npu/compiler/op_reading.h"
#include "plugins/systolic_npu/machine/fp16.h"
#include "plugins/systolic_npu/machine/int8_tables.h"
#include "plugins/systolic_npu/machine/quant.h"

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

absl::StatusOr<std::vector<uint8_t>> Int8DivisionTables(const kit::SnapshotTensor& b,
                                                        const ElementwiseLayer& L, Why* why) {
  const size_t n = static_cast<size_t>(kit::ElementCount(b.shape));
  if (!b.is_constant || b.dtype != TSR_DTYPE_I8 || b.constant.size() != n)
    SNPU_REFUSE(TSR_REFUSAL_OTHER, "DIV on int8: divisor '", b.name, "' is not ", n,
                " constant int8 bytes");
  std::vector<uint8_t> out(n * kTableBytes);
  for (size_t i = 0; i < n; ++i) {
    const float divisor =
        DequantizeInt8(static_cast<int8_t>(b.constant[i]), L.b_q.scale, L.b_q.zero_point);
    const Int8Table t = Int8DivisionTable(L.a_q.scale, L.a_q.zero_point, divisor, L.out_q.scale,
                                          L.out_q.zero_point);
    std::memcpy(out.data() + i * kTableBytes, t.data(), kTableBytes);
  }
  return out;
}

}  // namespace tessera::systolic
