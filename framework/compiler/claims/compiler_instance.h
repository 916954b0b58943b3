// RAII over one compiler-plugin instance and its compiled results, turning
// the C calls into absl::Status with the plugin's own error text.
#ifndef TESSERA_FRAMEWORK_COMPILER_CLAIMS_COMPILER_INSTANCE_H_
#define TESSERA_FRAMEWORK_COMPILER_CLAIMS_COMPILER_INSTANCE_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/compiler/claims/graph_view_impl.h"
#include "framework/core/base/shared_text.h"
#include "framework/core/base/soc_selection.h"
#include "framework/loader/plugin_library.h"

namespace tessera {

struct OpClaim {
  bool supported = false;
  int32_t reason = 0;  // tsr_refusal_reason
  SharedText detail;   // shared between copies: a withdrawal gives many ops one text
  double estimated_time_us = -1;
  uint64_t estimated_cycles = 0;
  uint32_t flags = 0;  // TSR_CLAIM_FLAG_* (ABI 1.2 plugins)
  uint32_t group = 0;  // 0 = none; ops sharing a group go to one partition or none
};

// Reasons the host records on a plugin's behalf. They sit outside the ABI's
// tsr_refusal_reason range and never cross the ABI.
enum HostRefusalReason : int32_t {
  kRefusalNotProfitable = 1 << 20,  // the cost model: the partition does not pay for itself
  kRefusalPolicy,                   // --policy cpu, --min-ops, --max-partitions
  kRefusalCompileFailed,            // the plugin's compile failed for these ops
  kRefusalPrecision,                // --precision: the op's math runs in a precision the app does not allow
};

// "unsupported_op", ..., "not_profitable", "policy", "compile_failed", "precision".
const char* RefusalReasonName(int32_t reason);

// One compile() result. Keeps its plugin instance alive: JIT handles and
// bytecode pointers stay valid as long as this object lives.
class CompiledArtifact {
 public:
  CompiledArtifact(std::shared_ptr<const class CompilerInstance> owner, tsr_compiled compiled);
  ~CompiledArtifact();
  CompiledArtifact(const CompiledArtifact&) = delete;
  CompiledArtifact& operator=(const CompiledArtifact&) = delete;

  absl::StatusOr<std::span<const uint8_t>> Bytecode() const;
  absl::StatusOr<std::string> EntryPoint(size_t partition) const;
  absl::StatusOr<tsr_jit_handle> JitHandle(size_t partition) const;
  // The failure of partition `partition` (OK when it compiled), from the
  // plugin's compiled_partition_status; OK when the plugin has none.
  absl::Status PartitionFailure(size_t partition) const;
  // The op ids that made partition `partition` fail, from the plugin's
  // compiled_partition_culprits; empty when it names none or has no such
  // call ("the partition as a whole").
  std::vector<uint32_t> PartitionCulprits(size_t partition) const;
  // The constants partition `partition`'s bytecode names instead of
  // embedding (ABI 1.4, TSR_COMPILE_FLAG_EXTERNAL_CONSTANTS_OK), with
  // partition-local tensor indices; empty for plugins without the call.
  absl::StatusOr<std::vector<tsr_constant_reference>> ConstantReferences(size_t partition) const;

 private:
  std::shared_ptr<const CompilerInstance> owner_;
  tsr_compiled compiled_;
};

class CompilerInstance : public std::enable_shared_from_this<CompilerInstance> {
 public:
  static absl::StatusOr<std::shared_ptr<CompilerInstance>> Create(
      const CompilerPluginLibrary& library, const std::vector<std::pair<std::string, std::string>>& options);
  ~CompilerInstance();

  const CompilerPluginLibrary& library() const { return library_; }
  const std::string& vendor() const { return library_.vendor; }

  // Claims for every op of `view`: through claim_ops for plugins that
  // negotiated 1.2, through the frozen 40-byte array for 1.0/1.1. Then the
  // host's own refusals on the plugin's behalf: ops or attributes newer
  // than the negotiated version, and op groups that are refused in part or
  // are not convex.
  absl::StatusOr<std::vector<OpClaim>> Partition(const GraphView& view, const SocSelection& soc) const;
  // With `partial_ok`, a plugin that reports per-partition status compiles
  // what it can; see CompiledArtifact::PartitionFailure.
  absl::StatusOr<std::unique_ptr<CompiledArtifact>> Compile(const std::vector<const GraphView*>& partitions,
                                                            uint32_t mode, const SocSelection& soc,
                                                            bool constants_outlive_result, bool partial_ok = false,
                                                            bool external_constants_ok = false) const;
  // The plugin's estimate of `partition` as a whole (estimate_partition):
  // nullopt when it has none, gives none, or says the partition would not fit.
  absl::StatusOr<std::optional<double>> EstimatePartition(const GraphView& partition, const SocSelection& soc) const;
  // The plugin's compatibility string for these options ("" when it has none).
  absl::StatusOr<std::string> CompatibilityInfo(uint32_t mode, const SocSelection& soc) const;
  absl::Status Status(tsr_status code, const std::string& context) const;

 private:
  CompilerInstance(CompilerPluginLibrary library, tsr_compiler_plugin plugin)
      : library_(std::move(library)), plugin_(plugin) {}
  CompilerPluginLibrary library_;
  tsr_compiler_plugin plugin_;
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_CLAIMS_COMPILER_INSTANCE_H_
