// CLI flags in framework error texts, renamed to the app options they
// stand for (api_terms.h).
#include "framework/app/api_terms.h"

#include <atomic>
#include <cctype>
#include <utility>

namespace tessera::app {
namespace {

// Longest phrases first: "tessera import --max-folded-bytes" before the
// bare flag. Each flag ends at a character that cannot continue a flag name.
constexpr std::pair<std::string_view, std::string_view> kTerms[] = {
    {"tessera import --max-folded-bytes", "LoadOptions::max_folded_bytes"},
    {"tessera inspect MODEL --json", "Model::inputs()"},
    {"--max-folded-bytes", "LoadOptions::max_folded_bytes"},
    {"--input-shape", "LoadOptions::input_shapes"},
    {"--freeze-input", "LoadOptions::frozen_inputs"},
    {"--budget", "LoadOptions::budgets"},
    {"--policy", "CompileOptions::policy"},
    {"--precision", "CompileOptions::precision"},
    {"--min-ops", "CompileOptions::min_ops"},
    {"--max-partitions", "CompileOptions::max_partitions"},
    {"--mode", "CompileOptions::mode"},
    {"--soc", "CompileOptions::soc"},
    {"--accelerators", "CompileOptions::accelerators"},
    {"--quantize", "CompileOptions::quantize"},
    {"--calibration-dir", "CompileOptions::calibration_dir"},
    {"--cache-dir", "CompileOptions::cache_dir"},
};

std::atomic<bool> keep_cli_terms{false};

bool FlagCharacter(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

}  // namespace

std::string InApiTerms(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  size_t i = 0;
  while (i < message.size()) {
    bool replaced = false;
    for (const auto& [flag, option] : kTerms) {
      if (message.compare(i, flag.size(), flag) != 0) continue;
      const size_t end = i + flag.size();
      if (end < message.size() && FlagCharacter(message[end]) && FlagCharacter(flag.back())) continue;
      out.append(option);
      i = end;
      replaced = true;
      break;
    }
    if (!replaced) out.push_back(message[i++]);
  }
  return out;
}

std::string ErrorTextForApp(std::string_view message) {
  return keep_cli_terms.load(std::memory_order_relaxed) ? std::string(message) : InApiTerms(message);
}

void KeepCliTermsInErrors() { keep_cli_terms.store(true, std::memory_order_relaxed); }

}  // namespace tessera::app
