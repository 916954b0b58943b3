// INT8 GLOBAL_AVG_POOL (docs/ops.md "Quantized GLOBAL_AVG_POOL"): the exact
// int32 sum of each channel plane, the input zero point folded in as a
// bias, one requantize by s_in / (plane * s_out). Three vector
// instructions the INT8 GEMM pipeline already uses, plus ROW_SUM.
#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "plugins/systolic_npu/machine/quant.h"
#include "plugins/systolic_npu/machine/tiler.h"
#include "plugins/systolic_npu/machine/tiler_internal.h"

namespace tessera::systolic {

absl::Status EmitQuantGlobalAvgPool(const QuantGlobalAvgPoolLayer& L, TensorRef input, TensorRef output,
                                    const SystolicNpuConfig& npu, Program& p, EntryPoint& e) {
  if (L.rows < 1 || L.rows > (int64_t{1} << 32) || L.plane < 1 || L.plane > (int64_t{1} << 23))
    return absl::InvalidArgumentError(absl::StrCat("systolic_npu tiler: INT8 GLOBAL_AVG_POOL of ", L.rows, " x ",
                                                   L.plane, " (a plane of 1 to 2^23 elements, an int32 sum)"));
  if (!(L.in_q.scale > 0) || !(L.out_q.scale > 0))
    return absl::InvalidArgumentError("systolic_npu tiler: quantized scales must be positive");
  const internal::SramMap sm = internal::MakeSramMap(npu);
  const uint64_t plane = static_cast<uint64_t>(L.plane), total = static_cast<uint64_t>(L.rows);
  // One chunk of channels: rows x plane int8 in, rows int32 sums.
  const uint64_t cc = std::min<uint64_t>({total, sm.in_half / plane, sm.acc_half / 4});
  if (cc == 0)
    return absl::ResourceExhaustedError(absl::StrCat("systolic_npu tiler: one INT8 GLOBAL_AVG_POOL plane of ", plane,
                                                     " elements does not fit half the input bank (", sm.in_half,
                                                     " bytes)"));
  // [bias = -plane * zp_in, multiplier, shift] for BIAS_ADD and REQUANTIZE
  // over one column. The same f64 expression as the cpu reference.
  const QuantizedMultiplier m = QuantizeMultiplier(static_cast<double>(L.in_q.scale) /
                                                   (static_cast<double>(L.plane) * static_cast<double>(L.out_q.scale)));
  const std::array<int32_t, 3> params = {static_cast<int32_t>(-L.plane * L.in_q.zero_point), m.multiplier, m.shift};
  const uint32_t pc = p.AddData(params.data(), sizeof(params), TSR_DTYPE_I32);
  const uint32_t poff = static_cast<uint32_t>(p.constants[pc].offset);
  const uint32_t desc = p.AddDescriptor(ConstantKind::kRequantDesc, RequantDesc{L.out_q.zero_point, -128, 127});
  int t = 0;
  for (uint64_t c0 = 0; c0 < total; c0 += cc) {
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(cc, total - c0));
    const uint32_t src = sm.in(t), w = sm.w(t), acc = sm.acc(t);
    t ^= 1;
    const uint64_t ioff = input.offset + c0 * plane, ooff = output.offset + c0;
    if (auto s = internal::CheckOffset(ioff, "input"); !s.ok()) return s;
    if (auto s = internal::CheckOffset(ooff, "output"); !s.ok()) return s;
    const uint32_t cols = static_cast<uint32_t>(plane);
    e.code.push_back(MakeDmaLoadStrided(src, input.region, static_cast<uint32_t>(ioff), n, cols, cols, 1, TSR_DTYPE_I8,
                                        TSR_DTYPE_I8));
    e.code.push_back(MakeDmaLoadStrided(w, 0, poff, 1, 3, 0, 1, TSR_DTYPE_I32, TSR_DTYPE_I32));
    e.code.push_back(MakeVector(VectorOp::kRowSum, TSR_DTYPE_I8, TSR_DTYPE_I32, src, 0, acc, n, cols));
    e.code.push_back(MakeVector(VectorOp::kBiasAdd, TSR_DTYPE_I32, TSR_DTYPE_I32, acc, w, acc, n, 1));
    e.code.push_back(MakeVector(VectorOp::kRequantize, TSR_DTYPE_I32, TSR_DTYPE_I8, acc, w + 4, acc, n, 1, desc));
    e.code.push_back(
        MakeDmaStore(acc, output.region, static_cast<uint32_t>(ooff), n, 1, 1, 1, TSR_DTYPE_I8, TSR_DTYPE_I8));
  }
  return absl::OkStatus();
}

}  // namespace tessera::systolic
