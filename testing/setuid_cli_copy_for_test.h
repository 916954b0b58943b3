// A copy of the built `tessera` in a fresh directory under /tmp that a test
// can give to nobody with the setuid and setgid bits: started by root, it
// runs AT_SECURE, the way a privileged program built on Tessera would. For
// the tests that check what such a process refuses to trust.
#ifndef TESSERA_TESTING_SETUID_CLI_COPY_FOR_TEST_H_
#define TESSERA_TESTING_SETUID_CLI_COPY_FOR_TEST_H_

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace tessera {

// Why a setuid copy cannot be made here ("" when it can): chown to another
// user needs root, and ASan's runtime refuses to start a setuid binary.
inline std::string WhySetuidCopyIsUnavailable() {
#if defined(__SANITIZE_ADDRESS__)
  return "an ASan build cannot run as setuid";
#else
  if (::geteuid() != 0) return "needs root to make a setuid copy owned by another user";
  if (std::getenv("TESSERA_BUILD_DIR") == nullptr) return "TESSERA_BUILD_DIR is not set";
  return "";
#endif
}

class SetuidCliCopy {
 public:
  // dir()/bin/tessera, a plain copy; dir() and dir()/bin readable by all
  // (the copy runs as nobody). ok() is false when it could not be made.
  explicit SetuidCliCopy(const std::string& prefix) {
    std::string tmpl = "/tmp/" + prefix + "_XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) return;
    dir_ = tmpl;
    std::error_code ec;
    std::filesystem::create_directories(dir_ / "bin", ec);
    binary_ = dir_ / "bin" / "tessera";
    std::filesystem::copy_file(std::filesystem::path(std::getenv("TESSERA_BUILD_DIR")) / "bin" / "tessera", binary_,
                               ec);
    ok_ = !ec && ::chmod(dir_.c_str(), 0755) == 0 && ::chmod((dir_ / "bin").c_str(), 0755) == 0;
  }
  ~SetuidCliCopy() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  SetuidCliCopy(const SetuidCliCopy&) = delete;
  SetuidCliCopy& operator=(const SetuidCliCopy&) = delete;

  bool ok() const { return ok_; }
  const std::filesystem::path& dir() const { return dir_; }
  const std::filesystem::path& binary() const { return binary_; }

  // Gives the copy to nobody (65534) with the setuid and setgid bits.
  // False when that failed or the file system dropped the bits (nosuid).
  bool MakeSetuid() const {
    if (::chown(binary_.c_str(), 65534, 65534) != 0 || ::chmod(binary_.c_str(), 06755) != 0) return false;
    return HasSetuidBit();
  }
  // Leaves the copy root's, with the setuid bit: started by another user
  // (e.g. `setpriv --reuid=65534 ...`), it runs as root for that user, the
  // case where a caller-named path could be opened with rights they lack.
  bool MakeSetuidRoot() const { return ::chmod(binary_.c_str(), 04755) == 0 && HasSetuidBit(); }

 private:
  bool HasSetuidBit() const {
    struct stat st {};
    return ::stat(binary_.c_str(), &st) == 0 && (st.st_mode & S_ISUID) != 0;
  }
  std::filesystem::path dir_, binary_;
  bool ok_ = false;
};

}  // namespace tessera

#endif  // TESSERA_TESTING_SETUID_CLI_COPY_FOR_TEST_H_
