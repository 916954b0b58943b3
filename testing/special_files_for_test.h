// Tests that hand FIFOs and devices to code that wants regular files.
//
// FinishesWithin runs a call that might hang (an open of a FIFO, a read
// that never ends) so that a regression fails its test instead of hanging
// the suite: the call runs in a forked child, killed at the deadline. A
// child, not a thread: a thread blocked in open() or read() cannot be
// cancelled, and the test binary could not exit cleanly around it.
//
// ScratchDirectory is a private mkdtemp directory for the FIFOs.
#ifndef TESSERA_TESTING_SPECIAL_FILES_FOR_TEST_H_
#define TESSERA_TESTING_SPECIAL_FILES_FOR_TEST_H_

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace tessera {

// A mkdtemp directory (mode 0700) under the temp directory, removed with
// its contents when the object goes. path() is "" when mkdtemp failed.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tessera_special_XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::string& path() const { return path_; }
  // A FIFO named `name` in the directory; its path, or "" on failure.
  std::string Fifo(const std::string& name) const {
    const std::string fifo = path_ + "/" + name;
    return !path_.empty() && ::mkfifo(fifo.c_str(), 0600) == 0 ? fifo : std::string();
  }

 private:
  std::string path_;
};

// How long a refusal may take before the call counts as hanging.
inline constexpr std::chrono::milliseconds kNoHangTimeout{5000};

// What `body` returned, or nullopt when it did not return within
// `timeout` (or the child died first).
inline std::optional<std::string> FinishesWithin(std::chrono::milliseconds timeout,
                                                 const std::function<std::string()>& body) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return std::nullopt;
  const pid_t pid = ::fork();
  if (pid < 0) return std::nullopt;
  if (pid == 0) {
    ::close(pipe_fds[0]);
    const std::string text = body();
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(pipe_fds[1], text.data() + done, text.size() - done);
      if (n <= 0) ::_exit(2);
      done += static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string text;
  bool finished = false;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{pipe_fds[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<size_t>(n));
      continue;
    }
    finished = n == 0;  // EOF: the child wrote everything and exited
    break;
  }
  ::close(pipe_fds[0]);
  if (!finished) ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!finished || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return text;
}

}  // namespace tessera

#endif  // TESSERA_TESTING_SPECIAL_FILES_FOR_TEST_H_
