// Discovery and loading of vendor libraries, in the manner of Vulkan's
// loader: explicit directories only, a file-name pattern
// (libtessera_compiler_<vendor>.so / libtessera_dispatch_<vendor>.so),
// environment variables to add and filter, and a stated reason for every
// library skipped. Nothing is loaded from the current directory, and
// LD_LIBRARY_PATH is neither read nor changed: every dlopen gets an absolute
// path.
#ifndef TESSERA_FRAMEWORK_LOADER_PLUGIN_REGISTRY_H_
#define TESSERA_FRAMEWORK_LOADER_PLUGIN_REGISTRY_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/loader/plugin_library.h"

namespace tessera {

struct PluginSearchOptions {
  // Searched first to last; a vendor found twice keeps its first library.
  // Directories from TESSERA_PLUGIN_PATH (colon-separated, absolute) come
  // first, then `directories`, then `bundled_directory`.
  std::vector<std::string> directories;
  std::string bundled_directory;  // "" = none
  bool read_environment = true;   // TESSERA_PLUGIN_PATH, TESSERA_PLUGIN_FILTER
  // Keep only these vendors ("" entries ignored). Empty = all. Combined
  // with TESSERA_PLUGIN_FILTER (comma-separated) by intersection.
  std::vector<std::string> vendor_filter;
  // False for a runtime that only runs compiled models: compiler libraries
  // are then never opened (not even dlopen()ed), so a broken or crashing
  // compiler .so in a plugin directory cannot affect running a .tsr.
  bool load_compilers = true;
  // Load each library in a child process first (plugin_probe.h), and skip
  // those that crash, hang or fail there. Costs a fork per library.
  bool probe_in_child = false;
};

struct SkippedLibrary {
  std::string path;
  PluginRole role;
  std::string reason;
};

struct SearchedDirectory {
  std::string path;
  std::string origin;  // "TESSERA_PLUGIN_PATH", "options", "bundled"
  std::string note;    // why it was not searched, if it wasn't
};

class PluginRegistry {
 public:
  static PluginRegistry Discover(const PluginSearchOptions& options);

  const std::vector<CompilerPluginLibrary>& compilers() const { return compilers_; }
  const std::vector<DispatchLibrary>& dispatchers() const { return dispatchers_; }
  const std::vector<SkippedLibrary>& skipped() const { return skipped_; }
  const std::vector<SearchedDirectory>& directories() const { return directories_; }

  const CompilerPluginLibrary* FindCompiler(const std::string& vendor) const;
  const DispatchLibrary* FindDispatch(const std::string& vendor) const;
  // By vendor name, or by the short name a 1.2 plugin declares ("npu").
  const CompilerPluginLibrary* FindCompilerByName(const std::string& name) const;

  // Loads one library file; exposed for tests and `tessera plugins`.
  static absl::StatusOr<CompilerPluginLibrary> LoadCompiler(const std::string& path, const std::string& vendor);
  static absl::StatusOr<DispatchLibrary> LoadDispatch(const std::string& path, const std::string& vendor);

 private:
  std::vector<CompilerPluginLibrary> compilers_;
  std::vector<DispatchLibrary> dispatchers_;
  std::vector<SkippedLibrary> skipped_;
  std::vector<SearchedDirectory> directories_;
};

// A compiler's declared default priority (lower is tried first under
// "auto"; ABI 1.2 info), or 500000 for 1.0/1.1 plugins, which declare none.
int32_t CompilerPriority(const CompilerPluginLibrary& lib);
// Its declared short name, or NULL.
const char* CompilerShortName(const CompilerPluginLibrary& lib);
// The fallback: the loaded compiler that claims everything (declared
// priority TSR_PRIORITY_FALLBACK or more; the lowest such, then the first
// loaded), or NULL when none is loaded. Its vendor compiles the cpu plans
// and the warm-up plan, and its steps are the runtime's last resort. Every
// caller asks here: no vendor name is written into the framework.
const CompilerPluginLibrary* FallbackCompiler(const std::vector<CompilerPluginLibrary>& compilers);
inline const CompilerPluginLibrary* FallbackCompiler(const PluginRegistry& registry) {
  return FallbackCompiler(registry.compilers());
}

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_LOADER_PLUGIN_REGISTRY_H_
