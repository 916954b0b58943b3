#include "framework/core/model/compiled_target.h"

#include "absl/strings/str_cat.h"

namespace tessera {
namespace {

bool SocSpecific(const std::string& soc) { return !soc.empty() && soc != "any"; }

}  // namespace

absl::Status CheckCompiledTarget(const Graph& compiled, const std::string& run_soc) {
  if (run_soc.empty()) return absl::OkStatus();
  for (const BytecodeBlob& blob : compiled.bytecodes) {
    if (!SocSpecific(blob.soc_model) || blob.soc_model == run_soc) continue;
    return absl::FailedPreconditionError(absl::StrCat(
        "the model's ", blob.vendor, " bytecode was compiled for SoC '", blob.soc_model, "', and this run targets '",
        run_soc, "': run it with --soc ", blob.soc_model, ", or compile the model again for ", run_soc));
  }
  return absl::OkStatus();
}

std::optional<std::string> CompiledSoc(const Graph& compiled) {
  std::optional<std::string> soc;
  for (const BytecodeBlob& blob : compiled.bytecodes) {
    if (!SocSpecific(blob.soc_model)) continue;
    if (soc && *soc != blob.soc_model) return std::nullopt;
    soc = blob.soc_model;
  }
  return soc;
}

}  // namespace tessera
