#include "framework/core/base/environment.h"

#include <cstdlib>

namespace tessera {

const char* EnvironmentOverrideFor(const char* name, bool at_secure) {
  if (at_secure) return nullptr;
  // secure_getenv also answers nullptr when glibc itself runs in secure
  // mode: a second opinion on the same kernel flag.
  return ::secure_getenv(name);
}

const char* EnvironmentOverride(const char* name) {
  return EnvironmentOverrideFor(name, RunningWithElevatedPrivileges());
}

std::string TemporaryDirectoryFor(bool at_secure) {
  const char* tmp = EnvironmentOverrideFor("TMPDIR", at_secure);
  // A relative TMPDIR would depend on the working directory: ignored.
  if (tmp == nullptr || tmp[0] != '/') return "/tmp";
  return tmp;
}

std::string TemporaryDirectory() { return TemporaryDirectoryFor(RunningWithElevatedPrivileges()); }

}  // namespace tessera
