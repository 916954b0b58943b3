#include "framework/loader/plugin_registry.h"
#include "framework/loader/code_address.h"
#include "framework/loader/plugin_info_check.h"
#include "framework/loader/plugin_probe.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "framework/core/base/environment.h"
#include "framework/core/base/regular_file.h"
#include "framework/core/base/status_macros.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCompilerPrefix = "libtessera_compiler_";
constexpr std::string_view kDispatchPrefix = "libtessera_dispatch_";
constexpr std::string_view kSuffix = ".so";

uint32_t VersionKey(tsr_version v) { return (uint32_t{v.major} << 16) | v.minor; }
std::string VersionText(tsr_version v) { return absl::StrCat(v.major, ".", v.minor); }

constexpr tsr_version kHostVersion{TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
// No function table comes near this: 512 pointers. A larger struct_size is
// garbage, and trusting it would let TSR_ABI_HAS read past the table.
constexpr uint32_t kMaxTableBytes = 4096;
constexpr tsr_version kHostFloor{TSR_ABI_VERSION_FLOOR_MAJOR, TSR_ABI_VERSION_FLOOR_MINOR};

bool ValidVendorName(const std::string& v) {
  return !v.empty() && v.size() < 32 && std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// dlopen + dlsym + negotiate; returns the table pointer and agreed version.
template <typename Api, typename NegotiateFn>
absl::StatusOr<std::pair<std::shared_ptr<SharedLibrary>, std::pair<const Api*, tsr_version>>> OpenAndNegotiate(
    const std::string& path, const char* entry_symbol) {
  if (!fs::path(path).is_absolute())
    return absl::InvalidArgumentError("path is not absolute (plugins load only from named directories)");
  // dlopen would open a FIFO and wait for a writer forever, and it takes
  // a path, not a descriptor (fdlopen is not portable; /proc/self/fd/N
  // needs procfs), so the check is a stat of the path just before. The
  // file can be swapped between the two (a TOCTOU window): this guards
  // against a mistaken or stray file in a plugin directory, not against
  // whoever can write there, who can place any code anyway.
  // A missing file is left to dlopen, whose message says so.
  if (absl::Status regular = CheckIsRegularFile(path); !regular.ok() && !absl::IsNotFound(regular)) return regular;
  ::dlerror();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = ::dlerror();
    return absl::UnavailableError(absl::StrCat("dlopen failed: ", err ? err : "unknown error"));
  }
  auto library = std::make_shared<SharedLibrary>(handle);
  auto negotiate = reinterpret_cast<NegotiateFn>(::dlsym(handle, entry_symbol));
  if (negotiate == nullptr) return absl::NotFoundError(absl::StrCat("missing symbol ", entry_symbol));
  RETURN_IF_ERROR(CheckEntrySymbolIsCode(reinterpret_cast<const void*>(negotiate), entry_symbol));
  tsr_version agreed{};
  const Api* api = nullptr;
  const tsr_status code = negotiate(kHostVersion, &agreed, &api);
  if (code == TSR_VERSION_UNSUPPORTED)
    return absl::FailedPreconditionError(absl::StrCat("version refused: the library speaks no ABI version this host (",
                                                      VersionText(kHostVersion), ", floor ", VersionText(kHostFloor),
                                                      ") knows"));
  if (code != TSR_OK)
    return absl::FailedPreconditionError(absl::StrCat("entry symbol ", entry_symbol, " failed with status ", code));
  if (api == nullptr) return absl::FailedPreconditionError("NULL table: the entry symbol returned no function table");
  if (!IsLoadedData(api, sizeof(tsr_abi_header)))
    return absl::FailedPreconditionError(absl::StrCat("function table (", absl::Hex(reinterpret_cast<uintptr_t>(api)),
                                                      ") is not readable data of a loaded library: a garbage table"));
  // Sanity before any member is read: a table is a header and some
  // function pointers. A size below the header or beyond any table this
  // ABI could grow to (a corrupted or garbage header) is refused, not trusted.
  if (api->header.struct_size < sizeof(tsr_abi_header) || api->header.struct_size > kMaxTableBytes)
    return absl::FailedPreconditionError(absl::StrCat("implausible table size ", api->header.struct_size,
                                                      " bytes (a function table is ", sizeof(tsr_abi_header), "..",
                                                      kMaxTableBytes, " bytes)"));
  RETURN_IF_ERROR(CheckPluginTableMemory(&api->header));
  // The host alone judges the answer (the Vulkan loader's rule): anything
  // from its floor up to its own version, whatever the major.
  if (VersionKey(agreed) < VersionKey(kHostFloor) || VersionKey(agreed) > VersionKey(kHostVersion))
    return absl::FailedPreconditionError(absl::StrCat("version refused: the library answered ABI ", VersionText(agreed),
                                                      ", outside this host's range ", VersionText(kHostFloor), "..",
                                                      VersionText(kHostVersion)));
  return std::make_pair(std::move(library), std::make_pair(api, agreed));
}

// Present, non-NULL, and code (framework/loader/code_address.h): a garbage
// pointer would crash the host at its first call.
#define TSR_REQUIRE_MEMBER(api, Type, member)                                                                    \
  if (!TSR_ABI_HAS(api, Type, member))                                                                           \
    return absl::FailedPreconditionError(                                                                        \
        absl::StrCat("table is missing v1 member '" #member "' (struct_size ", (api)->header.struct_size, ")")); \
  if (!IsCodeAddress(reinterpret_cast<const void*>((api)->member)))                                              \
    return absl::FailedPreconditionError(absl::StrCat("table member '" #member "' is not code (",                \
                                                      absl::Hex(reinterpret_cast<uintptr_t>((api)->member)),     \
                                                      "): a garbage table"));

std::vector<std::string> SplitList(const char* value, char sep) {
  std::vector<std::string> out;
  if (value == nullptr) return out;
  for (absl::string_view part : absl::StrSplit(value, sep, absl::SkipEmpty())) out.emplace_back(part);
  return out;
}

}  // namespace

absl::StatusOr<CompilerPluginLibrary> PluginRegistry::LoadCompiler(const std::string& path, const std::string& vendor) {
  ASSIGN_OR_RETURN(auto opened, (OpenAndNegotiate<tsr_compiler_plugin_api, tsr_compiler_plugin_negotiate_fn>(
                                    path, TSR_COMPILER_PLUGIN_ENTRY)));
  const tsr_compiler_plugin_api* api = opened.second.first;
  TSR_REQUIRE_MEMBER(api, tsr_compiler_plugin_api, get_last_error);
  TSR_REQUIRE_MEMBER(api, tsr_compiler_plugin_api, get_info);
  TSR_REQUIRE_MEMBER(api, tsr_compiler_plugin_api, create);
  TSR_REQUIRE_MEMBER(api, tsr_compiler_plugin_api, destroy);
  // 1.2 plugins claim through the host's sink; 1.0/1.1 plugins through the
  // frozen array. Each needs only its own path.
  const tsr_version agreed = opened.second.second;
  if (tsr_version_compare(agreed, tsr_version{1, 2}) >= 0) {
    TSR_REQUIRE_MEMBER(api, tsr_compiler_plugin_api, claim_ops);
  } else {
    TSR_REQUIRE_MEMBER(api, tsr_compiler_plugin_api, partition);
  }
  TSR_REQUIRE_MEMBER(api, tsr_compiler_plugin_api, compile);
  TSR_REQUIRE_MEMBER(api, tsr_compiler_plugin_api, compiled_bytecode);
  TSR_REQUIRE_MEMBER(api, tsr_compiler_plugin_api, compiled_entry_point);
  TSR_REQUIRE_MEMBER(api, tsr_compiler_plugin_api, compiled_jit_handle);
  TSR_REQUIRE_MEMBER(api, tsr_compiler_plugin_api, release_compiled);
  const tsr_compiler_plugin_info* info = nullptr;
  RETURN_IF_ERROR(PluginStatus(api->get_info(&info), api->get_last_error, "get_info failed"));
  if (info == nullptr) return absl::FailedPreconditionError("get_info returned no info struct");
  RETURN_IF_ERROR(CheckPluginInfo(info));
  if (info->vendor == nullptr) return absl::FailedPreconditionError("get_info returned no vendor");
  if (!TSR_ABI_HAS_FIELD(info, tsr_compiler_plugin_info, compile_modes))
    return absl::FailedPreconditionError(
        absl::StrCat("info struct too small (struct_size ", info->header.struct_size, ")"));
  if (vendor != info->vendor)
    return absl::FailedPreconditionError(
        absl::StrCat("file name says vendor '", vendor, "' but the plugin reports '", info->vendor, "'"));
  return CompilerPluginLibrary{vendor, path, opened.second.second, api, info, std::move(opened.first)};
}

absl::StatusOr<DispatchLibrary> PluginRegistry::LoadDispatch(const std::string& path, const std::string& vendor) {
  ASSIGN_OR_RETURN(auto opened,
                   (OpenAndNegotiate<tsr_dispatch_api, tsr_dispatch_negotiate_fn>(path, TSR_DISPATCH_ENTRY)));
  const tsr_dispatch_api* api = opened.second.first;
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, get_last_error);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, get_info);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, create_device_context);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, destroy_device_context);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, load_executable);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, unload_executable);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, executable_io_count);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, buffer_requirements);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, allocate_buffer);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, register_buffer);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, release_buffer);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, map_buffer);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, unmap_buffer);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, create_invocation);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, destroy_invocation);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, attach_input);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, attach_output);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, invoke);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, metric_count);
  TSR_REQUIRE_MEMBER(api, tsr_dispatch_api, get_metric);
  const tsr_dispatch_info* info = nullptr;
  RETURN_IF_ERROR(PluginStatus(api->get_info(&info), api->get_last_error, "get_info failed"));
  if (info == nullptr) return absl::FailedPreconditionError("get_info returned no info struct");
  RETURN_IF_ERROR(CheckPluginInfo(info));
  if (vendor != info->vendor)
    return absl::FailedPreconditionError(
        absl::StrCat("file name says vendor '", vendor, "' but the library reports '", info->vendor, "'"));
  return DispatchLibrary{vendor, path, opened.second.second, api, info, std::move(opened.first)};
}

PluginRegistry PluginRegistry::Discover(const PluginSearchOptions& options) {
  PluginRegistry r;
  std::vector<SearchedDirectory> dirs;
  std::set<std::string> filter(options.vendor_filter.begin(), options.vendor_filter.end());
  filter.erase("");
  if (options.read_environment) {
    for (const std::string& d : SplitList(EnvironmentOverride("TESSERA_PLUGIN_PATH"), ':'))
      dirs.push_back({d, "TESSERA_PLUGIN_PATH", ""});
    std::vector<std::string> env_filter = SplitList(EnvironmentOverride("TESSERA_PLUGIN_FILTER"), ',');
    if (!env_filter.empty()) {
      std::set<std::string> env_set;
      for (const std::string& v : env_filter) env_set.insert(v);
      if (filter.empty()) {
        filter = env_set;
      } else {
        std::set<std::string> both;
        for (const std::string& v : filter)
          if (env_set.count(v)) both.insert(v);
        filter = both.empty() ? std::set<std::string>{"\x01none"} : both;
      }
    }
  }
  for (const std::string& d : options.directories) dirs.push_back({d, "options", ""});
  if (!options.bundled_directory.empty()) dirs.push_back({options.bundled_directory, "bundled", ""});

  std::set<std::string> seen_dirs;
  for (SearchedDirectory& dir : dirs) {
    std::error_code ec;
    if (!fs::path(dir.path).is_absolute()) {
      dir.note = "ignored: relative directory (name an absolute path)";
      r.directories_.push_back(dir);
      continue;
    }
    const std::string canonical = fs::weakly_canonical(dir.path, ec).string();
    if (!seen_dirs.insert(canonical).second) {
      dir.note = "ignored: already searched";
      r.directories_.push_back(dir);
      continue;
    }
    if (!fs::is_directory(dir.path, ec)) {
      dir.note = "ignored: not a directory";
      r.directories_.push_back(dir);
      continue;
    }
    r.directories_.push_back(dir);
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::directory_iterator(dir.path, ec)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      const std::string name = file.filename().string();
      if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix) continue;
      PluginRole role;
      std::string_view prefix;
      if (name.rfind(kCompilerPrefix, 0) == 0) {
        role = PluginRole::kCompiler;
        prefix = kCompilerPrefix;
      } else if (name.rfind(kDispatchPrefix, 0) == 0) {
        role = PluginRole::kDispatch;
        prefix = kDispatchPrefix;
      } else
        continue;
      if (role == PluginRole::kCompiler && !options.load_compilers) continue;
      const std::string vendor = name.substr(prefix.size(), name.size() - prefix.size() - kSuffix.size());
      const std::string path = file.string();
      if (!ValidVendorName(vendor)) {
        r.skipped_.push_back({path, role, "vendor name must match [a-z0-9_]{1,31}"});
        continue;
      }
      if (!filter.empty() && !filter.count(vendor)) {
        r.skipped_.push_back({path, role, "filtered out (TESSERA_PLUGIN_FILTER / accelerator selection)"});
        continue;
      }
      // Before the probe too: a FIFO would block the child until its timeout.
      if (absl::Status regular = CheckIsRegularFile(path); !regular.ok()) {
        r.skipped_.push_back({path, role, std::string(regular.message())});
        continue;
      }
      if (options.probe_in_child) {
        const ProbeResult probe = ProbeInChildProcess(path, role, vendor);
        if (probe.kind != ProbeResult::Kind::kOk) {
          r.skipped_.push_back({path, role, probe.detail});
          continue;
        }
      }
      if (role == PluginRole::kCompiler) {
        if (const CompilerPluginLibrary* prior = r.FindCompiler(vendor)) {
          r.skipped_.push_back({path, role, absl::StrCat("duplicate vendor: already loaded from ", prior->path)});
          continue;
        }
        absl::StatusOr<CompilerPluginLibrary> lib = LoadCompiler(path, vendor);
        if (lib.ok())
          r.compilers_.push_back(*std::move(lib));
        else
          r.skipped_.push_back({path, role, std::string(lib.status().message())});
      } else {
        if (const DispatchLibrary* prior = r.FindDispatch(vendor)) {
          r.skipped_.push_back({path, role, absl::StrCat("duplicate vendor: already loaded from ", prior->path)});
          continue;
        }
        absl::StatusOr<DispatchLibrary> lib = LoadDispatch(path, vendor);
        if (lib.ok())
          r.dispatchers_.push_back(*std::move(lib));
        else
          r.skipped_.push_back({path, role, std::string(lib.status().message())});
      }
    }
  }
  return r;
}

int32_t CompilerPriority(const CompilerPluginLibrary& lib) {
  // 1.0/1.1 plugins declare no priority: after every accelerator that does,
  // before the fallbacks.
  constexpr int32_t kUndeclared = 500000;
  if (tsr_version_compare(lib.version, tsr_version{1, 2}) < 0 ||
      !TSR_ABI_HAS_FIELD(lib.info, tsr_compiler_plugin_info, default_priority))
    return kUndeclared;
  return lib.info->default_priority;
}

const CompilerPluginLibrary* FallbackCompiler(const std::vector<CompilerPluginLibrary>& compilers) {
  const CompilerPluginLibrary* best = nullptr;
  for (const CompilerPluginLibrary& c : compilers)
    if (CompilerPriority(c) >= TSR_PRIORITY_FALLBACK &&
        (best == nullptr || CompilerPriority(c) < CompilerPriority(*best)))
      best = &c;
  return best;
}

const char* CompilerShortName(const CompilerPluginLibrary& lib) {
  if (tsr_version_compare(lib.version, tsr_version{1, 2}) < 0 ||
      !TSR_ABI_HAS_FIELD(lib.info, tsr_compiler_plugin_info, short_name) || lib.info->short_name == nullptr)
    return nullptr;
  return lib.info->short_name;
}

const CompilerPluginLibrary* PluginRegistry::FindCompilerByName(const std::string& name) const {
  if (const CompilerPluginLibrary* exact = FindCompiler(name)) return exact;
  for (const CompilerPluginLibrary& c : compilers_)
    if (const char* alias = CompilerShortName(c); alias != nullptr && name == alias) return &c;
  return nullptr;
}

const CompilerPluginLibrary* PluginRegistry::FindCompiler(const std::string& vendor) const {
  for (const CompilerPluginLibrary& c : compilers_)
    if (c.vendor == vendor) return &c;
  return nullptr;
}

const DispatchLibrary* PluginRegistry::FindDispatch(const std::string& vendor) const {
  for (const DispatchLibrary& d : dispatchers_)
    if (d.vendor == vendor) return &d;
  return nullptr;
}

}  // namespace tessera
