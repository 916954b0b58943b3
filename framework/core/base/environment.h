// The TESSERA_* environment overrides (plugin search path and filter, log
// level). A process running with elevated privileges (setuid/setgid, file
// capabilities: the kernel's AT_SECURE) ignores them, so the user who
// starts it cannot make it load code from a directory of their choosing.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_ENVIRONMENT_H_
#define TESSERA_FRAMEWORK_CORE_BASE_ENVIRONMENT_H_

#include <string>

#include "framework/core/base/caller_access.h"  // RunningWithElevatedPrivileges

namespace tessera {

// The value of `name`, or nullptr when it is unset or the process runs
// with elevated privileges (read with secure_getenv).
const char* EnvironmentOverride(const char* name);

// The decision with AT_SECURE given, for tests: nullptr when `at_secure`,
// else what secure_getenv says.
const char* EnvironmentOverrideFor(const char* name, bool at_secure);

// Where private temporaries go: $TMPDIR when it is an absolute path and
// the process runs without elevated privileges, else /tmp. With elevated
// privileges the caller's TMPDIR could aim files the process creates into
// a directory they control.
std::string TemporaryDirectory();
// The same with AT_SECURE given, for tests.
std::string TemporaryDirectoryFor(bool at_secure);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_ENVIRONMENT_H_
