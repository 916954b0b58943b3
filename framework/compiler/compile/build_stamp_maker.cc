#include "framework/compiler/compile/build_stamp_maker.h"

#include "absl/strings/str_cat.h"
#include "framework/core/base/sha256.h"
#include "framework/core/base/status_macros.h"
#include "tessera/compiler_plugin.h"

#ifndef TESSERA_SDK_VERSION
#define TESSERA_SDK_VERSION "unknown"
#endif

namespace tessera {
namespace {

absl::StatusOr<VendorBuildStamp> StampOf(const CompilerInstance& instance, uint32_t mode_bit, const SocSelection& soc) {
  const CompilerPluginLibrary& lib = instance.library();
  const tsr_compiler_plugin_info& info = *lib.info;
  VendorBuildStamp v;
  v.vendor = lib.vendor;
  v.plugin_version = info.plugin_version != nullptr ? info.plugin_version : "";
  if (TSR_ABI_HAS_FIELD(&info, tsr_compiler_plugin_info, build_id) && info.build_id != nullptr)
    v.build_id = info.build_id;
  v.abi_version = absl::StrCat(lib.version.major, ".", lib.version.minor);
  ASSIGN_OR_RETURN(v.compatibility, instance.CompatibilityInfo(mode_bit, soc));
  return v;
}

}  // namespace

absl::StatusOr<BuildStamp> MakeBuildStamp(const CompiledGraph& model, const CompileOptions& options,
                                          const BuildStamp* source_stamp) {
  BuildStamp s;
  s.sdk_version = TESSERA_SDK_VERSION;
  s.soc = options.soc.name;
  if (!options.soc.description.empty()) s.soc_description_sha256 = Sha256Hex(options.soc.description);
  s.mode = CompileModeName(options.mode);
  s.accelerators = model.accelerators;
  s.options = options.plugin_options;
  s.partition_policy = PartitionPolicyName(options.partitioning.policy);
  s.min_ops = options.partitioning.min_ops;
  s.max_partitions = options.partitioning.max_partitions;
  const uint32_t mode_bit = options.mode == CompileMode::kAot ? TSR_COMPILE_MODE_AOT : TSR_COMPILE_MODE_JIT;
  for (const BytecodeBlob& blob : model.graph.bytecodes) {
    if (s.Find(blob.vendor) != nullptr) continue;
    const CompilerInstance* compiled_here = nullptr;
    for (const auto& instance : model.instances)
      if (instance->vendor() == blob.vendor) compiled_here = instance.get();
    if (compiled_here != nullptr) {
      ASSIGN_OR_RETURN(VendorBuildStamp v, StampOf(*compiled_here, mode_bit, options.soc));
      s.vendors.push_back(std::move(v));
    } else if (const VendorBuildStamp* kept = source_stamp ? source_stamp->Find(blob.vendor) : nullptr) {
      s.vendors.push_back(*kept);
    }
  }
  for (const LeftForJit& l : model.left_for_jit) s.left_for_jit.push_back({l.vendor, l.op_ids});
  return s;
}

}  // namespace tessera
