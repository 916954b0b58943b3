#include "framework/compiler/compile/bytecode_check.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "framework/core/base/status_macros.h"
#include "tessera/bytecode.h"

namespace tessera {
namespace {

std::string Padded(const char* field, size_t size) { return std::string(field, strnlen(field, size)); }

}  // namespace

absl::Status CheckCompiledBytecode(const CompiledArtifact& artifact, const std::string& vendor, const std::string& soc,
                                   const std::vector<size_t>& partitions) {
  ASSIGN_OR_RETURN(std::span<const uint8_t> blob, artifact.Bytecode());
  tsr_bytecode_header header{};
  char error[256] = {0};
  // The vendor is checked below, with both names in the message.
  if (tsr_bytecode_verify(blob.data(), blob.size(), nullptr, &header, error, sizeof error) != TSR_OK)
    return absl::DataLossError(absl::StrCat(vendor, " returned bytecode that fails the envelope check: ", error));
  const std::string blob_vendor = Padded(header.vendor, sizeof header.vendor);
  if (blob_vendor != vendor)
    return absl::FailedPreconditionError(
        absl::StrCat(vendor, " returned bytecode whose envelope names vendor '", blob_vendor, "'"));
  const std::string blob_soc = Padded(header.soc_model, sizeof header.soc_model);
  if (!soc.empty() && blob_soc != soc && blob_soc != "any")
    return absl::FailedPreconditionError(
        absl::StrCat(vendor, " was asked for SoC '", soc, "' and returned bytecode compiled for '", blob_soc, "'"));
  for (size_t p : partitions) {
    ASSIGN_OR_RETURN(std::string name, artifact.EntryPoint(p));
    tsr_bytecode_entry entry{};
    if (tsr_bytecode_find_entry(blob.data(), &header, name.c_str(), &entry) != TSR_OK)
      return absl::FailedPreconditionError(absl::StrCat(vendor, " named entry point '", name, "' for partition ", p,
                                                        ", which its bytecode does not contain"));
  }
  return absl::OkStatus();
}

}  // namespace tessera
