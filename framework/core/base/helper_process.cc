#include "framework/core/base/helper_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/environment.h"

extern char** environ;

namespace tessera {
namespace {

// Root owns it and neither its group nor others may write it.
std::string WhyNotRootOwned(const std::string& path, const struct stat& st) {
  if (st.st_uid != 0) return absl::StrCat("'", path, "' is not owned by root");
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return absl::StrCat("'", path, "' is writable by others");
  return "";
}

std::vector<std::string> CallerEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

std::vector<char*> Pointers(std::vector<std::string>& texts) {
  std::vector<char*> out;
  for (std::string& t : texts) out.push_back(t.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::vector<std::string> TrustedHelperLocations(const std::string& name) {
  return {absl::StrCat("/usr/bin/", name), absl::StrCat("/usr/local/bin/", name)};
}

std::string WhyHelperIsNotTrusted(const std::string& path) {
  if (path.empty() || path.front() != '/') return absl::StrCat("'", path, "' is not an absolute path");
  char* resolved_c = ::realpath(path.c_str(), nullptr);
  if (resolved_c == nullptr) return absl::StrCat("'", path, "': ", std::strerror(errno));
  const std::string resolved = resolved_c;
  std::free(resolved_c);
  struct stat st {};
  if (::stat(resolved.c_str(), &st) != 0) return absl::StrCat("'", resolved, "': ", std::strerror(errno));
  if (!S_ISREG(st.st_mode) || (st.st_mode & S_IXUSR) == 0)
    return absl::StrCat("'", resolved, "' is not an executable file");
  if (std::string why = WhyNotRootOwned(resolved, st); !why.empty()) return why;
  // Every directory above it: whoever can write one of them can replace
  // the file after it was checked.
  for (std::string dir = resolved; dir != "/";) {
    dir = dir.substr(0, dir.rfind('/'));
    if (dir.empty()) dir = "/";
    if (::stat(dir.c_str(), &st) != 0) return absl::StrCat("'", dir, "': ", std::strerror(errno));
    if (std::string why = WhyNotRootOwned(dir, st); !why.empty()) return why;
  }
  return "";
}

absl::StatusOr<HelperLaunch> PlanHelperLaunch(const std::string& name, bool secure,
                                              std::span<const std::string> candidates) {
  HelperLaunch launch;
  launch.name = name;
  if (!secure) {
    launch.program = launch.name;
    launch.search_path = true;
    launch.environment = CallerEnvironment();
    return launch;
  }
  std::vector<std::string> refused;
  for (const std::string& candidate : candidates) {
    std::string why = WhyHelperIsNotTrusted(candidate);
    if (!why.empty()) {
      refused.push_back(std::move(why));
      continue;
    }
    char* resolved = ::realpath(candidate.c_str(), nullptr);
    if (resolved == nullptr) {
      refused.push_back(absl::StrCat("'", candidate, "': ", std::strerror(errno)));
      continue;
    }
    launch.program = resolved;
    std::free(resolved);
    launch.environment = {kSecureHelperPathVariable};
    return launch;
  }
  return absl::NotFoundError(
      absl::StrCat("running with elevated privileges (setuid, setgid or file capabilities), `", name,
                   "` is run only from a root-owned file no one else can write, never from PATH; none was found (",
                   refused.empty() ? "no locations" : absl::StrJoin(refused, "; "), ")"));
}

absl::StatusOr<HelperLaunch> PlanHelperLaunch(const std::string& name) {
  const std::vector<std::string> candidates = TrustedHelperLocations(name);
  return PlanHelperLaunch(name, RunningWithElevatedPrivileges(), candidates);
}

absl::StatusOr<int> RunHelper(const HelperLaunch& launch, std::span<const std::string> args) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> argv_text = {launch.name};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<std::string> env_text = launch.environment;
  std::vector<char*> argv = Pointers(argv_text), env = Pointers(env_text);
  pid_t pid = -1;
  // posix_spawn never searches PATH; only the plan for an unprivileged
  // process asks for posix_spawnp.
  const int spawned = launch.search_path
                          ? ::posix_spawnp(&pid, launch.program.c_str(), &actions, nullptr, argv.data(), env.data())
                          : ::posix_spawn(&pid, launch.program.c_str(), &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned == ENOENT) return absl::NotFoundError(absl::StrCat("`", launch.program, "` was not found"));
  if (spawned != 0)
    return absl::InternalError(absl::StrCat("cannot run `", launch.program, "`: ", std::strerror(spawned)));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return absl::InternalError(absl::StrCat("waiting for `", launch.name, "`: ", std::strerror(errno)));
  if (!WIFEXITED(status))
    return absl::InternalError(absl::StrCat("`", launch.name, "` died of signal ", WTERMSIG(status)));
  return WEXITSTATUS(status);
}

}  // namespace tessera
