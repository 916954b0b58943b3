// Tests load plugins the same way: the build tree's bundled plugin
// directory ($TESSERA_BUILD_DIR/lib, which ctest sets), plus any test
// plugin directories, and never the environment (TESSERA_PLUGIN_PATH would
// make a test depend on the shell it runs in).
#ifndef TESSERA_TESTING_BUNDLED_PLUGINS_FOR_TEST_H_
#define TESSERA_TESTING_BUNDLED_PLUGINS_FOR_TEST_H_

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "framework/loader/plugin_registry.h"

namespace tessera {

inline std::string TestBuildDir() {
  const char* dir = std::getenv("TESSERA_BUILD_DIR");
  return dir ? dir : ".";
}

inline PluginRegistry BundledPluginsForTest(std::vector<std::string> extra_dirs = {}) {
  PluginSearchOptions options;
  options.read_environment = false;
  options.directories = std::move(extra_dirs);
  options.bundled_directory = TestBuildDir() + "/lib";
  return PluginRegistry::Discover(options);
}

}  // namespace tessera

#endif  // TESSERA_TESTING_BUNDLED_PLUGINS_FOR_TEST_H_
