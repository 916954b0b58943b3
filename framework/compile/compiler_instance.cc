#include "compile/compiler_instance.h"

#include "absl/strings/str_cat.h"
#include "plugins/plugin_log.h"

namespace tessera {

const char* RefusalReasonName(int32_t reason) {
  switch (reason) {
    case TSR_REFUSAL_NONE: return "none";
    case TSR_REFUSAL_UNSUPPORTED_OP: return "unsupported_op";
    case TSR_REFUSAL_UNSUPPORTED_DTYPE: return "unsupported_dtype";
    case TSR_REFUSAL_DYNAMIC_SHAPE: return "dynamic_shape";
    case TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE: return "attribute_out_of_range";
    case TSR_REFUSAL_TOO_LARGE: return "too_large";
    case TSR_REFUSAL_UNSUPPORTED_QUANTIZATION: return "unsupported_quantization";
    default: return "other";
  }
}

absl::Status CompilerInstance::Status(tsr_status code, const std::string& context) const {
  return PluginStatus(code, library_.api->get_last_error, absl::StrCat(library_.vendor, " compiler: ", context));
}

absl::StatusOr<std::shared_ptr<CompilerInstance>> CompilerInstance::Create(
    const CompilerPluginLibrary& library, const std::vector<std::pair<std::string, std::string>>& options) {
  std::vector<tsr_key_value> kv;
  for (const auto& [k, v] : options) kv.push_back({k.c_str(), v.c_str()});
  tsr_compiler_plugin_options opts{};
  opts.header = {sizeof(opts), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  opts.options = kv.data();
  opts.option_count = kv.size();
  opts.log = PluginLogSink;
  // The registry's library record outlives every instance made from it.
  opts.log_user_data = const_cast<char*>(library.vendor.c_str());
  tsr_compiler_plugin plugin = nullptr;
  tsr_status code = library.api->create(&opts, &plugin);
  if (code != TSR_OK || plugin == nullptr)
    return PluginStatus(code == TSR_OK ? TSR_INTERNAL : code, library.api->get_last_error,
                        absl::StrCat(library.vendor, " compiler: create failed"));
  return std::shared_ptr<CompilerInstance>(new CompilerInstance(library, plugin));
}

CompilerInstance::~CompilerInstance() { library_.api->destroy(plugin_); }

absl::StatusOr<std::vector<OpClaim>> CompilerInstance::Partition(const GraphView& view, const SocSelection& soc) const {
  const size_t n = view.ops().size();
  std::vector<tsr_op_support> support(n);
  for (tsr_op_support& s : support) {
    s = tsr_op_support{};
    s.header = {sizeof(tsr_op_support), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    s.estimated_time_us = -1;
  }
  tsr_partition_options opts{};
  opts.header = {sizeof(opts), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  opts.soc_model = soc.name.empty() ? nullptr : soc.name.c_str();
  opts.soc_description = soc.description.empty() ? nullptr : soc.description.c_str();
  opts.soc_description_size = soc.description.size();
  tsr_status code = library_.api->partition(plugin_, GraphViewApi(), view.handle(), &opts, support.data());
  if (code != TSR_OK) return Status(code, "partition failed");
  std::vector<OpClaim> claims(n);
  for (size_t i = 0; i < n; ++i) {
    claims[i].supported = support[i].supported != 0;
    claims[i].reason = claims[i].supported ? TSR_REFUSAL_NONE
                                           : (support[i].reason == TSR_REFUSAL_NONE ? TSR_REFUSAL_OTHER : support[i].reason);
    if (support[i].reason_detail != nullptr) claims[i].detail = support[i].reason_detail;
    claims[i].estimated_time_us = support[i].estimated_time_us;
    claims[i].estimated_cycles = support[i].estimated_cycles;
  }
  return claims;
}

absl::StatusOr<std::unique_ptr<CompiledArtifact>> CompilerInstance::Compile(
    const std::vector<const GraphView*>& partitions, uint32_t mode, const SocSelection& soc,
    bool constants_outlive_result) const {
  std::vector<tsr_graph> graphs;
  for (const GraphView* p : partitions) graphs.push_back(p->handle());
  tsr_compile_options opts{};
  opts.header = {sizeof(opts), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  opts.mode = mode;
  opts.soc_model = soc.name.empty() ? nullptr : soc.name.c_str();
  opts.soc_description = soc.description.empty() ? nullptr : soc.description.c_str();
  opts.soc_description_size = soc.description.size();
  opts.constants_outlive_result = constants_outlive_result ? 1 : 0;
  tsr_compiled compiled = nullptr;
  tsr_status code = library_.api->compile(plugin_, GraphViewApi(), graphs.data(), graphs.size(), &opts, &compiled);
  if (code != TSR_OK) return Status(code, "compile failed");
  if (compiled == nullptr) return Status(TSR_INTERNAL, "compile returned no result");
  return std::make_unique<CompiledArtifact>(shared_from_this(), compiled);
}

CompiledArtifact::CompiledArtifact(std::shared_ptr<const CompilerInstance> owner, tsr_compiled compiled)
    : owner_(std::move(owner)), compiled_(compiled) {}

CompiledArtifact::~CompiledArtifact() { owner_->library().api->release_compiled(compiled_); }

absl::StatusOr<std::span<const uint8_t>> CompiledArtifact::Bytecode() const {
  const void* data = nullptr;
  size_t size = 0;
  tsr_status code = owner_->library().api->compiled_bytecode(compiled_, &data, &size);
  if (code != TSR_OK) return owner_->Status(code, "no bytecode");
  if (data == nullptr || size == 0) return owner_->Status(TSR_INTERNAL, "empty bytecode");
  return std::span<const uint8_t>(static_cast<const uint8_t*>(data), size);
}

absl::StatusOr<std::string> CompiledArtifact::EntryPoint(size_t partition) const {
  const char* name = nullptr;
  tsr_status code = owner_->library().api->compiled_entry_point(compiled_, partition, &name);
  if (code != TSR_OK) return owner_->Status(code, "no entry point");
  if (name == nullptr || *name == '\0') return owner_->Status(TSR_INTERNAL, "empty entry point name");
  return std::string(name);
}

absl::StatusOr<tsr_jit_handle> CompiledArtifact::JitHandle(size_t partition) const {
  tsr_jit_handle handle = nullptr;
  tsr_status code = owner_->library().api->compiled_jit_handle(compiled_, partition, &handle);
  if (code != TSR_OK) return owner_->Status(code, "no JIT handle");
  if (handle == nullptr) return owner_->Status(TSR_INTERNAL, "NULL JIT handle");
  return handle;
}

}  // namespace tessera
