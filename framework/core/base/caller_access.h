// What the caller of a privileged process may open. A setuid or setgid
// program (or one with file capabilities: the kernel's AT_SECURE) opens
// files with its raised effective ids, so a path the caller names (a
// model, a `--soc` file, an output) would be read or written with rights
// the caller does not have: `--soc /etc/shadow` would be read, `--outputs
// /root/x` written. Under AT_SECURE every caller-named path is first
// checked with the *real* ids (access(2), which uses them; faccessat without
// AT_EACCESS), and what the caller could not open is refused. Outside
// AT_SECURE the real and effective ids are the same and nothing is checked.
// (The check and the open are two steps: the point is the caller's rights,
// and a path the caller controls cannot gain rights between them.)
#ifndef TESSERA_FRAMEWORK_CORE_BASE_CALLER_ACCESS_H_
#define TESSERA_FRAMEWORK_CORE_BASE_CALLER_ACCESS_H_

#include <string>

#include "absl/status/status.h"

namespace tessera {

// True when the kernel marked this process AT_SECURE.
bool RunningWithElevatedPrivileges();

// What the caller asks to do with a path.
enum class CallerAccess { kRead, kWrite };

// OK when the process runs without elevated privileges, or when the real
// user and group may read (kRead) or write (kWrite) `path`; a path that does
// not exist yet is written when the real ids may create it in its
// directory. Else PermissionDenied naming the path, the real uid and why.
absl::Status CheckCallerMayAccess(const std::string& path, CallerAccess access);

// The same with AT_SECURE given, for tests.
absl::Status CheckCallerMayAccessFor(const std::string& path, CallerAccess access, bool at_secure);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_CALLER_ACCESS_H_
