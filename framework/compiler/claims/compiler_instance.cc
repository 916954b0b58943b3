#include "framework/compiler/claims/compiler_instance.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <set>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "framework/loader/plugin_log.h"
#include "tessera/ops.h"

namespace tessera {

const char* RefusalReasonName(int32_t reason) {
  switch (reason) {
    case TSR_REFUSAL_NONE:
      return "none";
    case TSR_REFUSAL_UNSUPPORTED_OP:
      return "unsupported_op";
    case TSR_REFUSAL_UNSUPPORTED_DTYPE:
      return "unsupported_dtype";
    case TSR_REFUSAL_DYNAMIC_SHAPE:
      return "dynamic_shape";
    case TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE:
      return "attribute_out_of_range";
    case TSR_REFUSAL_TOO_LARGE:
      return "too_large";
    case TSR_REFUSAL_UNSUPPORTED_QUANTIZATION:
      return "unsupported_quantization";
    case kRefusalNotProfitable:
      return "not_profitable";
    case kRefusalPolicy:
      return "policy";
    case kRefusalCompileFailed:
      return "compile_failed";
    case kRefusalPrecision:
      return "precision";
    default:
      return "other";
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
  opts.header = HostFilledHeader(sizeof(opts), library.version);
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

namespace {

bool AtLeast12(tsr_version v) { return tsr_version_compare(v, tsr_version{1, 2}) >= 0; }
bool AtLeast14(tsr_version v) { return tsr_version_compare(v, tsr_version{1, 4}) >= 0; }

// The host's claim sink (ABI 1.2): what the plugin reported, per op.
struct ClaimSink {
  std::vector<OpClaim> claims;
  std::vector<bool> reported;
  std::vector<std::vector<size_t>> groups;
  std::vector<uint32_t> group_of;  // 0 = none
};

ClaimSink* SinkOf(tsr_claim_sink s) { return reinterpret_cast<ClaimSink*>(s); }

// Reads a plugin-owned tsr_op_claim of any size: members past its
// struct_size take their documented defaults.
tsr_status SinkReportOp(tsr_claim_sink handle, size_t op, const tsr_op_claim* c) {
  ClaimSink* sink = SinkOf(handle);
  if (sink == nullptr || c == nullptr || op >= sink->claims.size() ||
      c->header.struct_size < offsetof(tsr_op_claim, supported) + sizeof(c->supported))
    return TSR_INVALID_ARGUMENT;
  if (sink->reported[op]) return TSR_ALREADY_EXISTS;
  auto has = [&](size_t end) { return c->header.struct_size >= end; };
  OpClaim claim;
  claim.supported = c->supported != 0;
  if (has(offsetof(tsr_op_claim, reason) + sizeof(c->reason))) claim.reason = c->reason;
  if (claim.supported)
    claim.reason = TSR_REFUSAL_NONE;
  else if (claim.reason == TSR_REFUSAL_NONE || claim.reason < 0 || claim.reason > TSR_REFUSAL_OTHER)
    claim.reason = TSR_REFUSAL_OTHER;
  if (has(offsetof(tsr_op_claim, reason_detail) + sizeof(c->reason_detail)) && c->reason_detail != nullptr)
    claim.detail = std::string(c->reason_detail, strnlen(c->reason_detail, 4096));
  if (has(offsetof(tsr_op_claim, estimated_time_us) + sizeof(c->estimated_time_us)))
    claim.estimated_time_us = c->estimated_time_us;
  if (has(offsetof(tsr_op_claim, estimated_cycles) + sizeof(c->estimated_cycles)))
    claim.estimated_cycles = c->estimated_cycles;
  if (has(offsetof(tsr_op_claim, flags) + sizeof(c->flags))) claim.flags = c->flags;
  sink->claims[op] = std::move(claim);
  sink->reported[op] = true;
  return TSR_OK;
}

tsr_status SinkAddGroup(tsr_claim_sink handle, const size_t* ops, size_t count) {
  ClaimSink* sink = SinkOf(handle);
  if (sink == nullptr || ops == nullptr || count < 2) return TSR_INVALID_ARGUMENT;
  std::set<size_t> seen;
  for (size_t i = 0; i < count; ++i)
    if (ops[i] >= sink->claims.size() || sink->group_of[ops[i]] != 0 || !seen.insert(ops[i]).second)
      return TSR_INVALID_ARGUMENT;
  sink->groups.emplace_back(ops, ops + count);
  const uint32_t id = static_cast<uint32_t>(sink->groups.size());
  for (size_t i = 0; i < count; ++i) sink->group_of[ops[i]] = id;
  return TSR_OK;
}

const tsr_claim_sink_api kClaimSinkApi = {
    .header = {sizeof(tsr_claim_sink_api), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    .report_op = SinkReportOp,
    .add_group = SinkAddGroup,
};

// A group is convex when no path leaves it and comes back: no member
// reaches another member through a non-member. Ops of a view are in
// topological order, so such a path stays between the first and the last
// member.
bool GroupIsConvex(const GraphView& view, const std::vector<size_t>& members) {
  const Graph& g = view.graph();
  std::set<size_t> in(members.begin(), members.end());
  const size_t last = *in.rbegin();
  std::unordered_map<int32_t, std::vector<size_t>> readers;  // tensor -> local ops in the window
  for (size_t i = *in.begin(); i <= last; ++i)
    for (int32_t t : g.ops[view.ops()[i]].inputs)
      if (t >= 0) readers[t].push_back(i);
  std::set<size_t> visited;
  std::deque<size_t> frontier;
  auto push_readers = [&](size_t op) {
    for (int32_t t : g.ops[view.ops()[op]].outputs)
      if (auto it = readers.find(t); it != readers.end())
        for (size_t r : it->second)
          if (visited.insert(r).second) frontier.push_back(r);
  };
  for (size_t m : members) push_readers(m);
  // Walk only through non-members; reaching a member from outside means a cycle.
  while (!frontier.empty()) {
    const size_t op = frontier.front();
    frontier.pop_front();
    if (in.count(op)) continue;  // a direct member-to-member edge is fine
    for (int32_t t : g.ops[view.ops()[op]].outputs)
      if (auto it = readers.find(t); it != readers.end())
        for (size_t r : it->second) {
          if (in.count(r)) return false;
          if (visited.insert(r).second) frontier.push_back(r);
        }
  }
  return true;
}

// The SoC members every option struct shares: borrowed from `soc` for
// the call.
template <typename Options>
void FillSoc(Options& opts, const SocSelection& soc) {
  opts.soc_model = soc.name.empty() ? nullptr : soc.name.c_str();
  opts.soc_description = soc.description.empty() ? nullptr : soc.description.c_str();
  opts.soc_description_size = soc.description.size();
}

}  // namespace

absl::StatusOr<std::vector<OpClaim>> CompilerInstance::Partition(const GraphView& view, const SocSelection& soc) const {
  const size_t n = view.ops().size();
  const tsr_version v = library_.version;
  tsr_partition_options opts{};
  opts.header = HostFilledHeader(sizeof(opts), v);
  FillSoc(opts, soc);
  const tsr_graph_view_api* view_api = GraphViewApiFor(v);
  std::vector<OpClaim> claims(n);
  ClaimSink sink;
  if (AtLeast12(v)) {
    sink.claims.assign(n, OpClaim{false, TSR_REFUSAL_OTHER, "not reported by the plugin"});
    sink.reported.assign(n, false);
    sink.group_of.assign(n, 0);
    tsr_status code = library_.api->claim_ops(plugin_, view_api, view.handle(), &opts, &kClaimSinkApi,
                                              reinterpret_cast<tsr_claim_sink>(&sink));
    if (code != TSR_OK) return Status(code, "claim_ops failed");
    claims = std::move(sink.claims);
    for (size_t g = 0; g < sink.groups.size(); ++g)
      for (size_t o : sink.groups[g]) claims[o].group = static_cast<uint32_t>(g + 1);
  } else {
    // ABI 1.0/1.1: the frozen array, exactly 40 bytes per entry.
    static_assert(sizeof(tsr_op_support) == 40, "tsr_op_support is frozen at 1.1");
    std::vector<tsr_op_support> support(n);
    for (tsr_op_support& s : support) {
      s = tsr_op_support{};
      s.header = HostFilledHeader(sizeof(tsr_op_support), v);
      s.estimated_time_us = -1;
    }
    tsr_status code = library_.api->partition(plugin_, view_api, view.handle(), &opts, support.data());
    if (code != TSR_OK) return Status(code, "partition failed");
    for (size_t i = 0; i < n; ++i) {
      claims[i].supported = support[i].supported != 0;
      claims[i].reason = claims[i].supported
                             ? TSR_REFUSAL_NONE
                             : (support[i].reason == TSR_REFUSAL_NONE ? TSR_REFUSAL_OTHER : support[i].reason);
      if (support[i].reason_detail != nullptr)
        claims[i].detail = std::string(support[i].reason_detail, strnlen(support[i].reason_detail, 4096));
      claims[i].estimated_time_us = support[i].estimated_time_us;
      claims[i].estimated_cycles = support[i].estimated_cycles;
    }
  }
  // Refusals on the plugin's behalf: it cannot know what its version did
  // not define (tessera/ops.h tsr_*_since_minor).
  for (size_t i = 0; i < n; ++i) {
    const Op& op = view.graph().ops[view.ops()[i]];
    const int32_t type_minor = tsr_op_type_since_minor(op.type);
    if (op.type != TSR_OP_DISPATCH && (type_minor < 0 || type_minor > v.minor) && v.major == 1) {
      claims[i] = {false, TSR_REFUSAL_UNSUPPORTED_OP,
                   absl::StrCat("op type ", op.type, " is newer than the ABI ", v.major, ".", v.minor,
                                " this plugin negotiated")};
      continue;
    }
    for (const auto& [key, attr] : op.attrs) {
      const int32_t minor = tsr_attr_key_since_minor(key);
      if (minor < 0 || (v.major == 1 && minor > v.minor)) {
        claims[i] = {false, TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE,
                     absl::StrCat("attribute key ", key, " is newer than the ABI ", v.major, ".", v.minor,
                                  " this plugin negotiated (refused on its behalf)")};
        break;
      }
    }
  }
  // Groups: all claimed and convex, or none of them claimed.
  for (size_t g = 0; g < sink.groups.size(); ++g) {
    const std::vector<size_t>& members = sink.groups[g];
    std::string why;
    for (size_t o : members)
      if (!claims[o].supported) why = absl::StrCat("op group ", g + 1, ": a member is refused");
    if (why.empty() && !GroupIsConvex(view, members))
      why = absl::StrCat("op group ", g + 1, " is not convex (a path leaves it and comes back)");
    if (why.empty()) continue;
    for (size_t o : members) {
      if (claims[o].supported) claims[o] = {false, TSR_REFUSAL_OTHER, why};
      claims[o].group = 0;
    }
  }
  return claims;
}

absl::StatusOr<std::unique_ptr<CompiledArtifact>> CompilerInstance::Compile(
    const std::vector<const GraphView*>& partitions, uint32_t mode, const SocSelection& soc,
    bool constants_outlive_result, bool partial_ok, bool external_constants_ok) const {
  std::vector<tsr_graph> graphs;
  for (const GraphView* p : partitions) graphs.push_back(p->handle());
  tsr_compile_options opts{};
  opts.header = HostFilledHeader(sizeof(opts), library_.version);
  opts.mode = mode;
  // Partial results only where the plugin can say which partition failed.
  if (partial_ok && AtLeast12(library_.version) &&
      TSR_ABI_HAS(library_.api, tsr_compiler_plugin_api, compiled_partition_status))
    opts.flags |= TSR_COMPILE_FLAG_PARTIAL_OK;
  // External constants only where the plugin can report them and the
  // bytecode will be written beside the constants (AOT).
  if (external_constants_ok && mode == TSR_COMPILE_MODE_AOT && AtLeast14(library_.version) &&
      TSR_ABI_HAS(library_.api, tsr_compiler_plugin_api, compiled_constant_references) &&
      library_.api->compiled_constant_references != nullptr)
    opts.flags |= TSR_COMPILE_FLAG_EXTERNAL_CONSTANTS_OK;
  FillSoc(opts, soc);
  opts.constants_outlive_result = constants_outlive_result ? 1 : 0;
  tsr_compiled compiled = nullptr;
  tsr_status code =
      library_.api->compile(plugin_, GraphViewApiFor(library_.version), graphs.data(), graphs.size(), &opts, &compiled);
  if (code != TSR_OK) return Status(code, "compile failed");
  if (compiled == nullptr) return Status(TSR_INTERNAL, "compile returned no result");
  return std::make_unique<CompiledArtifact>(shared_from_this(), compiled);
}

absl::StatusOr<std::optional<double>> CompilerInstance::EstimatePartition(const GraphView& partition,
                                                                          const SocSelection& soc) const {
  if (!AtLeast12(library_.version) || !TSR_ABI_HAS(library_.api, tsr_compiler_plugin_api, estimate_partition) ||
      library_.api->estimate_partition == nullptr)
    return std::optional<double>();
  tsr_partition_options opts{};
  opts.header = HostFilledHeader(sizeof(opts), library_.version);
  FillSoc(opts, soc);
  tsr_partition_estimate out{};
  out.header = HostFilledHeader(sizeof(out), library_.version);
  out.device_time_us = -1;
  tsr_status code =
      library_.api->estimate_partition(plugin_, GraphViewApiFor(library_.version), partition.handle(), &opts, &out);
  if (code != TSR_OK) return Status(code, "estimate_partition failed");
  if (out.fits == 0 || !(out.device_time_us >= 0)) return std::optional<double>();
  return std::optional<double>(out.device_time_us);
}

absl::StatusOr<std::string> CompilerInstance::CompatibilityInfo(uint32_t mode, const SocSelection& soc) const {
  if (!AtLeast12(library_.version) || !TSR_ABI_HAS(library_.api, tsr_compiler_plugin_api, compatibility_info))
    return std::string();
  tsr_compile_options opts{};
  opts.header = HostFilledHeader(sizeof(opts), library_.version);
  opts.mode = mode;
  FillSoc(opts, soc);
  std::string text(256, '\0');
  size_t length = 0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    tsr_status code = library_.api->compatibility_info(plugin_, &opts, text.data(), text.size(), &length);
    if (code != TSR_OK) return Status(code, "compatibility_info failed");
    if (length < text.size()) break;
    text.assign(length + 1, '\0');  // too small: the full length is known now
  }
  text.resize(std::min(length, text.size() - 1));
  return text;
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

absl::Status CompiledArtifact::PartitionFailure(size_t partition) const {
  const CompilerPluginLibrary& lib = owner_->library();
  if (tsr_version_compare(lib.version, tsr_version{1, 2}) < 0 ||
      !TSR_ABI_HAS(lib.api, tsr_compiler_plugin_api, compiled_partition_status))
    return absl::OkStatus();
  tsr_status partition_code = TSR_OK;
  char text[512];
  size_t length = 0;
  tsr_status code =
      lib.api->compiled_partition_status(compiled_, partition, &partition_code, text, sizeof(text), &length);
  if (code != TSR_OK) return owner_->Status(code, "compiled_partition_status failed");
  if (partition_code == TSR_OK) return absl::OkStatus();
  const absl::StatusCode c = partition_code > 0 && partition_code <= 16 ? static_cast<absl::StatusCode>(partition_code)
                                                                        : absl::StatusCode::kInternal;
  return absl::Status(c, text);
}

std::vector<uint32_t> CompiledArtifact::PartitionCulprits(size_t partition) const {
  const CompilerPluginLibrary& lib = owner_->library();
  if (tsr_version_compare(lib.version, tsr_version{1, 2}) < 0 ||
      !TSR_ABI_HAS(lib.api, tsr_compiler_plugin_api, compiled_partition_culprits) ||
      lib.api->compiled_partition_culprits == nullptr)
    return {};
  const uint32_t* ids = nullptr;
  size_t count = 0;
  if (lib.api->compiled_partition_culprits(compiled_, partition, &ids, &count) != TSR_OK || ids == nullptr) return {};
  return std::vector<uint32_t>(ids, ids + count);
}

absl::StatusOr<std::vector<tsr_constant_reference>> CompiledArtifact::ConstantReferences(size_t partition) const {
  const CompilerPluginLibrary& lib = owner_->library();
  if (!AtLeast14(lib.version) || !TSR_ABI_HAS(lib.api, tsr_compiler_plugin_api, compiled_constant_references) ||
      lib.api->compiled_constant_references == nullptr)
    return std::vector<tsr_constant_reference>{};
  const tsr_constant_reference* refs = nullptr;
  size_t count = 0;
  tsr_status code = lib.api->compiled_constant_references(compiled_, partition, &refs, &count);
  if (code != TSR_OK) return owner_->Status(code, "compiled_constant_references failed");
  if (count > 0 && refs == nullptr) return owner_->Status(TSR_INTERNAL, "compiled_constant_references gave NULL");
  // A headed array: step by the plugin's struct_size, never our sizeof.
  size_t stride = 0;
  if (!tsr_abi_array_stride(refs, count, sizeof(tsr_constant_reference), &stride))
    return owner_->Status(TSR_INTERNAL,
                          "compiled_constant_references gave an array whose elements' struct_size "
                          "differ, are unaligned or are smaller than a 1.4 tsr_constant_reference");
  std::vector<tsr_constant_reference> out(count);
  for (size_t i = 0; i < count; ++i) {
    std::memcpy(&out[i], tsr_abi_array_at(refs, stride, i), sizeof(tsr_constant_reference));
    out[i].header.struct_size = sizeof(tsr_constant_reference);
  }
  return out;
}

absl::StatusOr<tsr_jit_handle> CompiledArtifact::JitHandle(size_t partition) const {
  tsr_jit_handle handle = nullptr;
  tsr_status code = owner_->library().api->compiled_jit_handle(compiled_, partition, &handle);
  if (code != TSR_OK) return owner_->Status(code, "no JIT handle");
  if (handle == nullptr) return owner_->Status(TSR_INTERNAL, "NULL JIT handle");
  return handle;
}

}  // namespace tessera
