#include "framework/cli/cache_flags.h"

#include <cstdio>
#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "framework/core/base/terminal_text.h"

namespace tessera::cli {

void AddCacheFlags(FlagSpec& spec) { spec.values.insert({"cache-dir", "cache-max-bytes"}); }

absl::Status ApplyCacheFlags(const Args& args, app::CompileOptions& options) {
  if (args.Has("cache-dir")) {
    options.cache_dir = args.ValueOr("cache-dir", "");
    if (options.cache_dir.empty()) return absl::InvalidArgumentError("--cache-dir is empty");
  }
  if (auto text = args.Value("cache-max-bytes")) {
    if (!args.Has("cache-dir")) return absl::InvalidArgumentError("--cache-max-bytes needs --cache-dir");
    if (!absl::SimpleAtoi(*text, &options.cache_max_bytes) || options.cache_max_bytes == 0)
      return absl::InvalidArgumentError(absl::StrCat("--cache-max-bytes must be a positive integer, not '", *text, "'"));
  }
  return absl::OkStatus();
}

void RouteCacheLog(const Args& args, app::EnvironmentOptions& options) {
  if (!args.Has("cache-dir")) return;
  options.log_level = app::LogLevel::kInfo;
  options.log_sink = [](const std::string& vendor, app::LogLevel level, const std::string& text) {
    if (vendor == "tessera") {
      std::cerr << "tessera: " << TerminalSafe(text, TerminalLayout::kText) << "\n";
      return;
    }
    // As the plugin host prints them without a sink (framework/loader/plugin_log.cc).
    if (level < app::LogLevel::kWarning) return;
    std::fprintf(stderr, "tessera[%s] %s: %s\n", vendor.c_str(), level == app::LogLevel::kWarning ? "warning" : "error",
                 text.c_str());
  };
}

void AddWarmupFlag(FlagSpec& spec) { spec.values.insert("warmup"); }

absl::Status ApplyWarmupFlag(const Args& args, app::CompileOptions& options) {
  const std::optional<std::string> warmup = args.Value("warmup");
  if (!warmup) return absl::OkStatus();
  if (*warmup != "background") return absl::InvalidArgumentError("run --warmup takes only 'background'");
  if (options.mode != app::CompileMode::kJit)
    return absl::InvalidArgumentError("--warmup background needs --mode jit (an AOT model is compiled once, or cached)");
  options.background_warmup = true;
  return absl::OkStatus();
}

}  // namespace tessera::cli
