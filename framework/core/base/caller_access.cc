#include "framework/core/base/caller_access.h"

#include <fcntl.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"

namespace tessera {

bool RunningWithElevatedPrivileges() { return ::getauxval(AT_SECURE) != 0; }

absl::Status CheckCallerMayAccessFor(const std::string& path, CallerAccess access, bool at_secure) {
  if (!at_secure) return absl::OkStatus();
  // Flags 0, not AT_EACCESS: the real uid and gid are the ones checked.
  const int mode = access == CallerAccess::kRead ? R_OK : W_OK;
  std::string checked = path;
  int rc = ::faccessat(AT_FDCWD, path.c_str(), mode, 0);
  if (rc != 0 && errno == ENOENT && access == CallerAccess::kWrite) {
    // A new file: the caller must be able to create it in its directory.
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    checked = parent.empty() ? "." : parent.string();
    rc = ::faccessat(AT_FDCWD, checked.c_str(), W_OK | X_OK, 0);
  }
  if (rc == 0) return absl::OkStatus();
  const int err = errno;
  return absl::PermissionDeniedError(
      absl::StrCat("'", path,
                   "' is refused: this process runs with elevated privileges (setuid/setgid), and the user who "
                   "started it (uid ",
                   ::getuid(), ") may not ", access == CallerAccess::kRead ? "read it" : "write it",
                   checked != path ? absl::StrCat(" (cannot create files in '", checked, "')") : std::string(), ": ",
                   std::strerror(err), "; only what the caller could open is opened"));
}

absl::Status CheckCallerMayAccess(const std::string& path, CallerAccess access) {
  return CheckCallerMayAccessFor(path, access, RunningWithElevatedPrivileges());
}

}  // namespace tessera
