// The SoC figures the partitioner prices a plan with, read from the same
// SoC description the plugins get (docs/soc.md): the CPU's throughput
// ([cpu]), each vendor's per-invoke overhead and memory kind
// ([dispatch.VENDOR]), and the links between memory kinds
// ([transfer.FROM.TO]). Everything a file leaves out gets a documented
// default, and the model says which defaults it used.
#ifndef TESSERA_FRAMEWORK_COMPILER_PARTITION_SOC_COST_MODEL_H_
#define TESSERA_FRAMEWORK_COMPILER_PARTITION_SOC_COST_MODEL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/compiler/partition/cpu_op_class.h"
#include "support/soc/soc_format.h"

namespace tessera {

class SocCostModel {
 public:
  // Defaults for what a description leaves out (and for no description).
  static constexpr double kDefaultCpuGflops = 50;
  static constexpr double kDefaultCpuGopsInt8 = 200;
  static constexpr double kDefaultLinkGbps = 10;
  static constexpr double kDefaultLinkLatencyUs = 1;

  // `text` is the SoC file's contents; "" means none (every default).
  static absl::StatusOr<SocCostModel> Parse(std::string_view text);
  // Every default, with `why` as the first note (a description the model
  // could not read).
  static SocCostModel Defaults(std::string why);

  // Microseconds the SoC's CPU needs for `ops` operations of class `c`:
  // ops / (GEMM rate x efficiency of c), the rate gops_int8 for INT8 work
  // and gflops_f32 otherwise.
  double CpuTimeUs(double ops, bool int8, CpuOpClass c = CpuOpClass::kGemm) const;
  // One vendor's invoke overhead and memory kind; host memory and no
  // overhead when the description has no [dispatch.VENDOR].
  kit::DispatchModel Dispatch(const std::string& vendor) const;
  // Moving `bytes` from one memory kind to another: 0 within one kind; the
  // direct [transfer] link; else through host memory (two links); else the
  // default link.
  double TransferUs(const std::string& from, const std::string& to, uint64_t bytes) const;

  const kit::CpuModel& cpu() const { return cpu_; }
  // Human notes on the defaults used ("no [cpu] section: 50 GFLOP/s").
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  double LinkUs(const std::string& from, const std::string& to, uint64_t bytes, bool* found) const;

  kit::CpuModel cpu_{kDefaultCpuGflops, kDefaultCpuGopsInt8, 1};
  kit::TransferTable transfers_;
  kit::DispatchTable dispatch_;
  std::vector<std::string> notes_;
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_PARTITION_SOC_COST_MODEL_H_
