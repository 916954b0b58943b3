#include "framework/compiler/compile/compile_cache_key.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/sha256.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/schema/model_format_version.h"
#include "tessera/bytecode.h"
#include "tessera/common.h"

#ifndef TESSERA_SDK_VERSION
#define TESSERA_SDK_VERSION "unknown"
#endif

namespace tessera {
namespace {

// Length-prefixed fields, so that no two different graphs hash the same
// text ("ab","c" vs "a","bc").
class CanonicalHash {
 public:
  void Bytes(std::span<const uint8_t> bytes) {
    Int(bytes.size());
    sha_.Update(bytes);
  }
  void Text(std::string_view text) {
    Bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  }
  void Int(uint64_t v) {
    uint8_t le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(v >> (8 * i));
    sha_.Update(std::span<const uint8_t>(le, 8));
  }
  template <typename T>
  void Ints(const std::vector<T>& values) {
    Int(values.size());
    for (T v : values) Int(static_cast<uint64_t>(v));
  }
  void Floats(const std::vector<float>& values) {
    Int(values.size());
    for (float f : values) {
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      Int(bits);
    }
  }
  std::string Hex() { return Sha256::Hex(sha_.Finish()); }

 private:
  Sha256 sha_;
};

std::string VersionText(tsr_version v) { return absl::StrCat(v.major, ".", v.minor); }

}  // namespace

std::string GraphContentDigest(const Graph& graph) {
  CanonicalHash h;
  h.Text("tessera graph content v1");
  h.Text(graph.name);
  h.Int(graph.tensors.size());
  for (const Tensor& t : graph.tensors) {
    h.Text(t.name);
    h.Int(static_cast<uint32_t>(t.dtype));
    h.Ints(t.shape);
    h.Floats(t.quant.scales);
    h.Ints(t.quant.zero_points);
    h.Int(static_cast<uint32_t>(t.quant.axis));
    h.Int(t.is_constant ? 1 : 0);
    h.Bytes(t.data);
  }
  h.Int(graph.ops.size());
  for (const Op& op : graph.ops) {
    h.Int(static_cast<uint32_t>(op.type));
    h.Int(op.id);
    h.Ints(op.inputs);
    h.Ints(op.outputs);
    h.Int(op.attrs.size());
    for (const auto& [key, attr] : op.attrs) {
      h.Int(static_cast<uint32_t>(key));
      h.Ints(attr.ints);
      h.Floats(attr.floats);
    }
    h.Int(op.dispatch.has_value() ? 1 : 0);
    if (op.dispatch) {
      h.Text(op.dispatch->vendor);
      h.Text(op.dispatch->soc_model);
      h.Text(op.dispatch->entry_point);
      h.Int(static_cast<uint32_t>(op.dispatch->bytecode));
      h.Ints(op.dispatch->source_op_ids);
      // Only when present, so keys of self-contained models do not move.
      for (const DispatchConstant& c : op.dispatch->constants) {
        h.Int(c.key);
        h.Int(static_cast<uint32_t>(c.tensor));
      }
    }
  }
  h.Ints(graph.inputs);
  h.Ints(graph.outputs);
  h.Int(graph.metadata.size());
  for (const auto& [key, value] : graph.metadata) {
    h.Text(key);
    h.Text(value);
  }
  h.Int(graph.bytecodes.size());
  for (const BytecodeBlob& b : graph.bytecodes) {
    h.Text(b.vendor);
    h.Text(b.soc_model);
    h.Bytes(b.bytes);
  }
  return h.Hex();
}

absl::StatusOr<CompileCacheKey> ComputeCompileCacheKey(const Graph& graph, const PluginRegistry& registry,
                                                       const CompileOptions& options) {
  ASSIGN_OR_RETURN(std::vector<const CompilerPluginLibrary*> libs, ResolveAccelerators(registry, options.accelerators));
  const uint32_t mode_bit = options.mode == CompileMode::kAot ? TSR_COMPILE_MODE_AOT : TSR_COMPILE_MODE_JIT;
  std::vector<std::string> lines = {
      "tessera compile cache key v1",
      absl::StrCat("model sha256 ", GraphContentDigest(graph)),
      absl::StrCat("sdk ", TESSERA_SDK_VERSION, " abi ", TSR_ABI_VERSION_MAJOR, ".", TSR_ABI_VERSION_MINOR,
                   " bytecode-format ", TSR_BYTECODE_FORMAT_VERSION, " model-format ", kModelFormatVersion),
      absl::StrCat("mode ", CompileModeName(options.mode)),
      absl::StrCat("accelerators requested ", absl::StrJoin(options.accelerators, ",")),
  };
  for (const CompilerPluginLibrary* lib : libs) {
    const tsr_compiler_plugin_info& info = *lib->info;
    const bool has_build_id = TSR_ABI_HAS_FIELD(&info, tsr_compiler_plugin_info, build_id) && info.build_id != nullptr;
    // The compatibility string names the options and SoC tables this
    // plugin reads; a plugin that cannot compile in this mode has none.
    std::string compatibility;
    if ((info.compile_modes & mode_bit) != 0) {
      ASSIGN_OR_RETURN(std::shared_ptr<CompilerInstance> instance,
                       CompilerInstance::Create(*lib, options.plugin_options));
      ASSIGN_OR_RETURN(compatibility, instance->CompatibilityInfo(mode_bit, options.soc));
    }
    lines.push_back(absl::StrCat("plugin ", lib->vendor, " version ",
                                 info.plugin_version != nullptr ? info.plugin_version : "", " abi ",
                                 VersionText(lib->version), " build ", has_build_id ? info.build_id : "(none)",
                                 " modes ", info.compile_modes, " compatibility [", compatibility, "]"));
  }
  // An AOT entry with a JIT-only accelerator holds its partitions as plain
  // ops; older entries of the same inputs hold none of them.
  if (options.mode == CompileMode::kAot && HasJitOnlyAccelerator(libs))
    lines.push_back("jit-only partitions left as ops for the loader");
  lines.push_back(absl::StrCat("soc ", options.soc.name, " description-sha256 ", Sha256Hex(options.soc.description)));
  for (const auto& [key, value] : options.plugin_options) lines.push_back(absl::StrCat("option ", key, "=", value));
  lines.push_back(absl::StrCat("policy ", PartitionPolicyName(options.partitioning.policy), " min-ops ",
                               options.partitioning.min_ops, " max-partitions ", options.partitioning.max_partitions));
  // FP32 (the default) adds no line, so its keys stay those of before the
  // precision policy; a reduced-precision compile depends on the ranges
  // that proved FP16 safe.
  if (options.precision.precision != Precision::kFp32) {
    std::string ranges;
    for (const auto& [name, max_abs] : options.precision.observed_max_abs)
      absl::StrAppend(&ranges, name.size(), ":", name, "=", absl::StrFormat("%a", max_abs), "\n");
    lines.push_back(absl::StrCat("precision ", PrecisionPolicyName(options.precision.precision), " ranges-sha256 ",
                                 Sha256Hex(ranges)));
  }
  CompileCacheKey key;
  key.description = absl::StrJoin(lines, "\n");
  key.hex = Sha256Hex(key.description);
  return key;
}

}  // namespace tessera
