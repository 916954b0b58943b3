// How a compiled model was built (docs/model_format.md §2, `BuildStamp`):
// the SoC and the digest of its description file, each compiling vendor's
// plugin version, build id and compatibility string, and the compile
// options. The compiler writes it into the model file; the runtime hands
// each vendor's compatibility string to that vendor's dispatch library
// (check_compatibility, ABI 1.2) so a blob built by another build or for
// another SoC is recognised before it runs. A model compiled by an older
// tessera has none.
#ifndef TESSERA_FRAMEWORK_CORE_GRAPH_BUILD_STAMP_H_
#define TESSERA_FRAMEWORK_CORE_GRAPH_BUILD_STAMP_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

// One compiling vendor, as its compiler plugin described itself.
struct VendorBuildStamp {
  std::string vendor;
  std::string plugin_version;  // tsr_compiler_plugin_info.plugin_version
  std::string build_id;        // ABI 1.2 info member; "" when the plugin has none
  std::string abi_version;     // negotiated, e.g. "1.4"
  std::string compatibility;   // compatibility_info (ABI 1.2); "" when the plugin has none

  bool operator==(const VendorBuildStamp&) const = default;
};

struct BuildStamp {
  std::string sdk_version;                // the tessera that compiled
  std::string soc;                        // the --soc name; "" when none was named
  std::string soc_description_sha256;     // of the SoC description file's bytes (hex); "" without one
  std::string mode;                       // "aot"
  std::vector<std::string> accelerators;  // the priority order actually used
  std::vector<std::pair<std::string, std::string>> options;  // vendor options, in order
  std::string partition_policy;                              // "cost", "greedy", "cpu"
  int64_t min_ops = 0;
  int64_t max_partitions = 0;
  std::vector<VendorBuildStamp> vendors;  // one per vendor that compiled a blob
  // Partitions of a JIT-only accelerator that the compile left as plain
  // ops: a JIT handle cannot be written, so whoever loads the
  // model JIT-compiles them.
  struct LeftForJit {
    std::string vendor;
    std::vector<uint32_t> op_ids;
    bool operator==(const LeftForJit&) const = default;
  };
  std::vector<LeftForJit> left_for_jit;

  // NULL when `vendor` compiled nothing under this stamp.
  const VendorBuildStamp* Find(const std::string& vendor) const;
  bool operator==(const BuildStamp&) const = default;
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_GRAPH_BUILD_STAMP_H_
