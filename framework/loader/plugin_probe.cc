#include "framework/loader/plugin_probe.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "framework/loader/plugin_registry.h"

namespace tessera {
namespace {

// The child's whole life: load, report one line, leave without running any
// of the parent's atexit handlers or destructors.
[[noreturn]] void ProbeChild(int fd, const std::string& path, PluginRole role, const std::string& vendor) {
  absl::Status status;
  if (role == PluginRole::kCompiler)
    status = PluginRegistry::LoadCompiler(path, vendor).status();
  else
    status = PluginRegistry::LoadDispatch(path, vendor).status();
  const std::string report = status.ok() ? std::string("ok") : std::string(status.message());
  ssize_t ignored = ::write(fd, report.data(), report.size());
  (void)ignored;
  ::_exit(0);
}

}  // namespace

ProbeResult ProbeInChildProcess(const std::string& path, PluginRole role, const std::string& vendor, int timeout_ms) {
  int fds[2];
  if (::pipe(fds) != 0) return {ProbeResult::Kind::kFailed, absl::StrCat("probe: pipe failed: ", std::strerror(errno))};
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return {ProbeResult::Kind::kFailed, absl::StrCat("probe: fork failed: ", std::strerror(errno))};
  }
  if (pid == 0) {
    ::close(fds[0]);
    ProbeChild(fds[1], path, role, vendor);
  }
  ::close(fds[1]);
  std::string report;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool timed_out = false;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      break;
    }
    char buffer[512];
    const ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its end: exited or died
    if (report.size() < 4096) report.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    return {ProbeResult::Kind::kTimedOut, absl::StrCat("probe: loading took over ", timeout_ms, " ms; killed")};
  if (WIFSIGNALED(wstatus))
    return {ProbeResult::Kind::kCrashed, absl::StrCat("probe: the library crashed the process while loading (signal ",
                                                      WTERMSIG(wstatus), ", ", ::strsignal(WTERMSIG(wstatus)), ")")};
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
    return {
        ProbeResult::Kind::kCrashed,
        absl::StrCat("probe: the library ended the process while loading (exit status ", WEXITSTATUS(wstatus), ")")};
  if (report == "ok") return {ProbeResult::Kind::kOk, ""};
  return {ProbeResult::Kind::kFailed, report.empty() ? std::string("probe: no report from the child") : report};
}

}  // namespace tessera
