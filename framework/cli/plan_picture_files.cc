#include "framework/cli/plan_picture_files.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/core/base/atomic_file.h"

extern char** environ;

namespace tessera::cli {
namespace {

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// A directory only this process can use, removed with what is in it.
class PrivateTempDir {
 public:
  PrivateTempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/tessera_picture_XXXXXX");
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;  // mode 0700
  }
  ~PrivateTempDir() {
    for (const std::string& f : files_) ::unlink(f.c_str());
    if (!path_.empty()) ::rmdir(path_.c_str());
  }
  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) {
    files_.push_back(absl::StrCat(path_, "/", name));
    return files_.back();
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

constexpr char kNoDot[] =
    "--svg needs Graphviz's `dot` on PATH, which was not found: install the Debian package graphviz "
    "(apt-get install graphviz), or write a self-contained page with --html FILE instead";

// Runs `dot -Tsvg -o svg dotfile`: no shell, arguments passed as they are;
// stdin and stdout are /dev/null, so the report on stdout stays clean and
// dot's own warnings go to stderr.
absl::Status RunDot(const std::string& dot_file, const std::string& svg_file) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> argv_text = {"dot", "-Tsvg", "-o", svg_file, dot_file};
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = ::posix_spawnp(&pid, "dot", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned == ENOENT) return absl::FailedPreconditionError(kNoDot);
  if (spawned != 0) return absl::InternalError(absl::StrCat("--svg: cannot run dot: ", std::strerror(spawned)));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return absl::InternalError(absl::StrCat("--svg: waiting for dot: ", std::strerror(errno)));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return absl::FailedPreconditionError(kNoDot);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return absl::InternalError(absl::StrCat("--svg: dot failed (", WIFEXITED(status) ? "exit status " : "signal ",
                                            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), ")"));
  return absl::OkStatus();
}

}  // namespace

void AddPictureFlags(FlagSpec& spec) { spec.values.insert({"svg", "html"}); }

std::string PictureFlagsError(const Args& args) {
  if (args.Has("svg") && args.Has("html")) return "--svg and --html exclude each other: give one picture file";
  return "";
}

absl::Status RenderDotToSvg(const std::string& dot, const std::string& path) {
  PrivateTempDir dir;
  if (!dir.ok()) return absl::InternalError(absl::StrCat("--svg: cannot make a temporary directory: ", std::strerror(errno)));
  const std::string dot_file = dir.File("plan.dot"), svg_file = dir.File("plan.svg");
  if (absl::Status s = WriteFileAtomically(dot_file, Bytes(dot), 0600); !s.ok()) return s;
  if (absl::Status s = RunDot(dot_file, svg_file); !s.ok()) return s;
  std::ifstream in(svg_file, std::ios::binary);
  if (!in) return absl::InternalError("--svg: dot wrote no output");
  const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return WriteFileAtomically(path, Bytes(svg));
}

absl::Status WritePlanPicture(const Args& args, const app::CompiledModel& model) {
  using Format = app::CompiledModel::PictureFormat;
  if (std::optional<std::string> svg = args.Value("svg")) {
    app::Result<std::string> dot = model.partition_picture(Format::kDot);
    if (!dot.ok()) return absl::FailedPreconditionError(dot.status().message());
    return RenderDotToSvg(*dot, *svg);
  }
  if (std::optional<std::string> html = args.Value("html")) {
    app::Result<std::string> page = model.partition_picture(Format::kHtml);
    if (!page.ok()) return absl::FailedPreconditionError(page.status().message());
    return WriteFileAtomically(*html, Bytes(*page));
  }
  return absl::OkStatus();
}

}  // namespace tessera::cli
