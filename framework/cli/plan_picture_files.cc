#include "framework/cli/plan_picture_files.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/core/base/atomic_file.h"
#include "framework/core/base/environment.h"
#include "framework/core/base/helper_process.h"

namespace tessera::cli {
namespace {

std::span<const uint8_t> Bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

// A directory only this process can use, removed with what is in it.
class PrivateTempDir {
 public:
  PrivateTempDir() {
    // TemporaryDirectory ignores TMPDIR with elevated privileges.
    std::string pattern = absl::StrCat(TemporaryDirectory(), "/tessera_picture_XXXXXX");
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

// Runs `dot -Tsvg -o svg dotfile` through the helper policy
// (base/helper_process.h): no shell, arguments passed as they are; with
// elevated privileges only a root-owned dot with a clean environment.
absl::Status RunDot(const std::string& dot_file, const std::string& svg_file) {
  absl::StatusOr<HelperLaunch> launch = PlanHelperLaunch("dot");
  if (absl::IsNotFound(launch.status()))
    return absl::FailedPreconditionError(absl::StrCat(kNoDot, "; ", launch.status().message()));
  if (!launch.ok()) return launch.status();
  const std::string args[] = {"-Tsvg", "-o", svg_file, dot_file};
  absl::StatusOr<int> exit_code = RunHelper(*launch, args);
  if (absl::IsNotFound(exit_code.status())) return absl::FailedPreconditionError(kNoDot);
  if (!exit_code.ok()) return absl::InternalError(absl::StrCat("--svg: ", exit_code.status().message()));
  // 127: the shell convention for "command not found", used by older
  // posix_spawnp when the exec fails in the child.
  if (*exit_code == 127) return absl::FailedPreconditionError(kNoDot);
  if (*exit_code != 0) return absl::InternalError(absl::StrCat("--svg: dot failed (exit status ", *exit_code, ")"));
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
  if (!dir.ok())
    return absl::InternalError(absl::StrCat("--svg: cannot make a temporary directory: ", std::strerror(errno)));
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
