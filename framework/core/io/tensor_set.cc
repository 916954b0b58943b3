// The ONNX backend-test layout: DIR/<prefix>_0.pb, <prefix>_1.pb, ...
// (declared in tensor_proto.h).
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/core/io/tensor_proto.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

// "<prefix>_<N>.pb" -> N.
std::optional<size_t> SetIndex(const std::string& filename, const std::string& prefix) {
  const std::string head = prefix + "_";
  constexpr std::string_view kExt = ".pb";
  if (filename.size() <= head.size() + kExt.size() || filename.compare(0, head.size(), head) != 0 ||
      filename.compare(filename.size() - kExt.size(), kExt.size(), kExt) != 0)
    return std::nullopt;
  const std::string digits = filename.substr(head.size(), filename.size() - head.size() - kExt.size());
  if (digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;  // "input_01.pb" is not part of the set
  size_t n = 0;
  for (char c : digits) n = n * 10 + static_cast<size_t>(c - '0');
  return n;
}

absl::Status CheckPrefix(const std::string& prefix) {
  if (prefix.empty() || prefix.find('/') != std::string::npos)
    return absl::InvalidArgumentError(
        absl::StrCat("tensor set prefix '", prefix, "' must be a plain name such as 'input'"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ListTensorSet(const std::string& dir, const std::string& prefix) {
  absl::Status ps = CheckPrefix(prefix);
  if (!ps.ok()) return ps;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return absl::NotFoundError(absl::StrCat("'", dir, "' is not a directory"));
  std::map<size_t, std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (std::optional<size_t> i = SetIndex(name, prefix)) files[*i] = e.path().string();
  }
  if (ec) return absl::UnavailableError(absl::StrCat("cannot list '", dir, "': ", ec.message()));
  std::vector<std::string> out;
  size_t expected = 0;
  for (const auto& [index, path] : files) {
    if (index != expected)
      return absl::InvalidArgumentError(absl::StrCat("'", dir, "': ", prefix, "_", expected, ".pb is missing but ",
                                                     prefix, "_", index, ".pb exists"));
    out.push_back(path);
    ++expected;
  }
  return out;
}

absl::StatusOr<std::vector<HostTensor>> ReadTensorSet(const std::string& dir, const std::string& prefix) {
  absl::StatusOr<std::vector<std::string>> paths = ListTensorSet(dir, prefix);
  if (!paths.ok()) return paths.status();
  std::vector<HostTensor> out;
  for (const std::string& path : *paths) {
    absl::StatusOr<HostTensor> t = ReadTensorProtoFile(path);
    if (!t.ok()) return t.status();
    out.push_back(*std::move(t));
  }
  return out;
}

absl::Status WriteTensorSet(const std::vector<HostTensor>& tensors, const std::string& dir, const std::string& prefix) {
  absl::Status ps = CheckPrefix(prefix);
  if (!ps.ok()) return ps;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir, ec))
    return absl::PermissionDeniedError(absl::StrCat("cannot create directory '", dir, "'"));
  for (size_t i = 0; i < tensors.size(); ++i) {
    absl::Status s = WriteTensorProtoFile(tensors[i], (fs::path(dir) / absl::StrCat(prefix, "_", i, ".pb")).string());
    if (!s.ok()) return s;
  }
  // Remove a stale tail from an earlier, longer set.
  std::vector<fs::path> stale;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    std::optional<size_t> i = SetIndex(e.path().filename().string(), prefix);
    if (i && *i >= tensors.size()) stale.push_back(e.path());
  }
  for (const fs::path& p : stale) {
    fs::remove(p, ec);
    if (ec) return absl::PermissionDeniedError(absl::StrCat("cannot remove stale '", p.string(), "'"));
  }
  return absl::OkStatus();
}

}  // namespace tessera
