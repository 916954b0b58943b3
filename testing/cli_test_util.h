// Runs the built `tessera` binary the way users and scripts do, for the CLI
// tests: exit code plus combined stdout/stderr, and self-deleting temp files.
#ifndef TESSERA_TESTING_CLI_TEST_UTIL_H_
#define TESSERA_TESTING_CLI_TEST_UTIL_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace tessera {

struct Result {
  int exit_code = -1;
  std::string output;  // stdout + stderr
};

// Runs `command` with the shell (stderr joined to stdout).
inline Result RunShellCommand(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  Result r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

inline Result Tessera(const std::string& args) {
  const char* dir = std::getenv("TESSERA_BUILD_DIR");
  return RunShellCommand(std::string(dir ? dir : ".") + "/bin/tessera " + args);
}

// A whole file's bytes ("" when it cannot be read).
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class TempFile {
 public:
  TempFile() {
    char path[] = "/tmp/tessera_cli_test_XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd >= 0) ::close(fd);
    path_ = path;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }
  void Write(const std::vector<uint8_t>& bytes) const {
    std::ofstream(path_, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }

 private:
  std::string path_;
};

}  // namespace tessera

#endif  // TESSERA_TESTING_CLI_TEST_UTIL_H_
