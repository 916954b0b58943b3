// Shared helpers of the tiling compiler (not part of the public API).
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TILER_INTERNAL_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TILER_INTERNAL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "plugins/systolic_npu/machine/isa.h"
#include "plugins/systolic_npu/machine/program.h"
#include "plugins/systolic_npu/machine/soc_config.h"

namespace tessera::systolic::internal {

// The tiler's error for a layer it cannot lower.
inline absl::Status Invalid(const std::string& m) { return absl::InvalidArgumentError("systolic_npu tiler: " + m); }

inline constexpr uint64_t kAlign = 64;
inline uint64_t AlignDown(uint64_t v) { return v / kAlign * kAlign; }
inline uint64_t AlignUp(uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// SRAM map used by every lowering: each bank split into two ping-pong
// halves; the top of the weight bank holds two per-channel parameter
// buffers (bias / multiplier / shift for one column tile).
struct SramMap {
  uint64_t in_half = 0, w_half = 0, acc_half = 0, param_bytes = 0;
  uint32_t in(int i) const { return SramAddress(Bank::kInput, static_cast<uint32_t>(i * in_half)); }
  uint32_t w(int i) const { return SramAddress(Bank::kWeight, static_cast<uint32_t>(i * w_half)); }
  uint32_t param(int i) const {
    return SramAddress(Bank::kWeight, static_cast<uint32_t>(2 * w_half + i * param_bytes));
  }
  uint32_t acc(int i) const { return SramAddress(Bank::kAccum, static_cast<uint32_t>(i * acc_half)); }
};

inline SramMap MakeSramMap(const SystolicNpuConfig& npu) {
  SramMap m;
  m.param_bytes = AlignUp(static_cast<uint64_t>(npu.array_cols) * 4 * 3);
  m.in_half = AlignDown(static_cast<uint64_t>(npu.input_bank_bytes()) / 2);
  const uint64_t wb = static_cast<uint64_t>(npu.weight_bank_bytes());
  m.w_half = wb > 2 * m.param_bytes ? AlignDown((wb - 2 * m.param_bytes) / 2) : 0;
  m.acc_half = AlignDown(static_cast<uint64_t>(npu.accum_bank_bytes()) / 2);
  return m;
}

// DMA offsets are 32-bit.
inline absl::Status CheckOffset(uint64_t v, const char* what) {
  if (v > 0xFFFFFFFFull)
    return absl::ResourceExhaustedError(std::string("systolic_npu tiler: ") + what + " beyond 4 GiB of DRAM");
  return absl::OkStatus();
}

// A region of a one-layer program (the Compile*Program helpers): a dense
// tensor of `dims`.
inline Region MakeRegion(RegionKind kind, uint32_t io, int32_t dtype, std::vector<int64_t> dims) {
  Region r;
  r.kind = kind;
  r.io_index = io;
  r.dtype = dtype;
  uint64_t n = 1;
  for (int64_t d : dims) n *= static_cast<uint64_t>(d);
  r.size_bytes = n * NpuDtypeSize(dtype);
  r.dims = std::move(dims);
  return r;
}

}  // namespace tessera::systolic::internal

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_TILER_INTERNAL_H_
