#include "framework/core/base/install_layout.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/regular_file.h"

namespace tessera {
namespace fs = std::filesystem;

std::string ExecutableDirectory() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

namespace {
std::string BesideExecutable(const fs::path& relative) {
  const std::string dir = ExecutableDirectory();
  return dir.empty() ? std::string() : fs::weakly_canonical(fs::path(dir) / relative).string();
}
}  // namespace

std::string BundledPluginDirectory() { return BesideExecutable(fs::path("..") / "lib"); }

std::string BundledSocDirectory() { return BesideExecutable(fs::path("..") / "share" / "tessera" / "socs"); }

std::vector<std::string> SocNamesIn(const std::string& directory) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(directory, ec))
    if (e.path().extension() == ".soc") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<SocSelection> FindSoc(const std::string& requested, const std::string& directory) {
  const bool is_path = requested.find('/') != std::string::npos || fs::path(requested).extension() == ".soc";
  const fs::path file = is_path ? fs::path(requested) : fs::path(directory) / (requested + ".soc");
  // Through ReadRegularFile: `--soc` takes any path, and a FIFO would hang
  // the read while /dev/zero would fill memory. A SoC description is a few
  // kilobytes; the budget only refuses what cannot be one.
  absl::StatusOr<std::string> text = ReadRegularFile(file.string(), kMaxSocFileBytes);
  if (absl::IsNotFound(text.status()))
    return absl::NotFoundError(absl::StrCat("unknown SoC '", requested,
                                            "' (bundled: ", absl::StrJoin(SocNamesIn(directory), ", "),
                                            "; or give a path to a .soc file)"));
  if (!text.ok()) return absl::Status(text.status().code(), absl::StrCat("SoC file: ", text.status().message()));
  return SocSelection{file.stem().string(), *std::move(text)};
}

}  // namespace tessera
