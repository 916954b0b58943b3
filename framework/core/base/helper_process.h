// The one way the framework starts another program (Graphviz `dot` for
// `partition --svg`). A process with elevated privileges (setuid/setgid,
// file capabilities: the kernel's AT_SECURE) must not run whatever the user
// who started it put first on PATH, nor hand it their environment
// (LD_PRELOAD, GVBINDIR, ...): it takes the helper from a fixed list of
// root-owned locations and gives it a clean environment, or refuses.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_HELPER_PROCESS_H_
#define TESSERA_FRAMEWORK_CORE_BASE_HELPER_PROCESS_H_

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tessera {

// How a helper is started: decided by PlanHelperLaunch, carried out by
// RunHelper.
struct HelperLaunch {
  // A bare name looked up on the caller's PATH when `search_path`, else an
  // absolute path with every symlink resolved (what was checked is what
  // runs).
  std::string program;
  bool search_path = false;
  // argv[0]: the helper's own name (dot picks its layout engine by it).
  std::string name;
  // The child's whole environment, NAME=value.
  std::vector<std::string> environment;
};

// The whole environment of a helper started with elevated privileges.
inline constexpr char kSecureHelperPathVariable[] = "PATH=/usr/bin:/bin";

// The fixed places a helper named `name` is taken from with elevated
// privileges: /usr/bin/<name>, then /usr/local/bin/<name>.
std::vector<std::string> TrustedHelperLocations(const std::string& name);

// "" when `path` may be run with elevated privileges, else the reason it
// may not: it must be absolute and name (after symlinks) a regular,
// executable file owned by root and writable by no one else, every
// directory above it owned by root and writable by no one else (so no
// other user can swap it).
std::string WhyHelperIsNotTrusted(const std::string& path);

// Decides how to start the helper `name` (a bare program name).
//  * not `secure`: as any tool would, searched on the caller's PATH with
//    the caller's environment;
//  * `secure`: the first of `candidates` that WhyHelperIsNotTrusted
//    accepts, never PATH, with kSecureHelperPathVariable as the whole
//    environment; NotFound naming every candidate and why it was refused
//    when none is acceptable.
absl::StatusOr<HelperLaunch> PlanHelperLaunch(const std::string& name, bool secure,
                                              std::span<const std::string> candidates);
// The same for this process: secure when it runs AT_SECURE, from
// TrustedHelperLocations.
absl::StatusOr<HelperLaunch> PlanHelperLaunch(const std::string& name);

// Starts `launch` with `args` after argv[0], no shell; stdin and stdout on
// /dev/null (a report on stdout stays clean), stderr inherited. Waits and
// returns the exit code. NotFound when the program is not there (ENOENT),
// Internal when it cannot be started or dies of a signal.
absl::StatusOr<int> RunHelper(const HelperLaunch& launch, std::span<const std::string> args);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_HELPER_PROCESS_H_
