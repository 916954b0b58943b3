#include "dispatch/blob_compatibility.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/bytecode.h"
#include "tessera/dispatch.h"

namespace tessera {
namespace {

std::string Fixed(const char* field, size_t size) { return std::string(field, strnlen(field, size)); }

bool AtLeast12(tsr_version v) { return v.major > 1 || (v.major == 1 && v.minor >= 2); }

std::string LibraryBuild(const DispatchLibrary& lib) {
  const tsr_dispatch_info& info = *lib.info;
  if (TSR_ABI_HAS_FIELD(&info, tsr_dispatch_info, build_id) && info.build_id != nullptr) return info.build_id;
  return "";
}

std::string LibraryName(const DispatchLibrary& lib) {
  std::string name = absl::StrCat("libtessera_dispatch_", lib.vendor, ".so");
  if (lib.info->library_version != nullptr) absl::StrAppend(&name, " ", lib.info->library_version);
  const std::string build = LibraryBuild(lib);
  if (!build.empty()) absl::StrAppend(&name, " (build ", build, ")");
  return name;
}

// The SoC models the library declares; empty when it declares none.
std::vector<std::string> LibrarySocs(const DispatchLibrary& lib) {
  std::vector<std::string> socs;
  for (size_t i = 0; i < lib.info->soc_model_count && lib.info->soc_models != nullptr; ++i)
    if (lib.info->soc_models[i] != nullptr) socs.push_back(lib.info->soc_models[i]);
  return socs;
}

// Why the library may have refused: what the host can see for itself in the
// envelope and the library's declared identity.
std::string UnsupportedReason(const DispatchLibrary& lib, const tsr_bytecode_header& h, const std::string& blob_soc,
                              const VendorBuildStamp* stamped) {
  const std::string blob_vendor = Fixed(h.vendor, sizeof(h.vendor));
  if (blob_vendor != lib.vendor) return absl::StrCat("the blob is vendor '", blob_vendor, "''s, not '", lib.vendor, "''s");
  const std::vector<std::string> socs = LibrarySocs(lib);
  bool known = socs.empty() || blob_soc == "any";
  for (const std::string& s : socs) known = known || s == "any" || s == blob_soc;
  if (!known)
    return absl::StrCat("SoC '", blob_soc, "' is not one this library runs (it runs: ", absl::StrJoin(socs, ", "), ")");
  return absl::StrCat("the library cannot run this blob's format (bytecode format ", h.format_version, ", ",
                      blob_vendor, " body format ", h.vendor_format_version, ", compiled at ABI ", h.abi_major, ".",
                      h.abi_minor, stamped != nullptr && !stamped->build_id.empty()
                                       ? absl::StrCat(" by build ", stamped->build_id)
                                       : std::string(),
                      ")");
}

std::string PreferRecompileReason(const DispatchLibrary& lib, const std::string& blob_soc, const std::string& run_soc,
                                  const VendorBuildStamp* stamped) {
  if (!run_soc.empty() && blob_soc != run_soc && blob_soc != "any")
    return absl::StrCat("it was compiled for SoC '", blob_soc, "' and this run targets '", run_soc, "'");
  if (stamped != nullptr && !stamped->build_id.empty() && stamped->build_id != LibraryBuild(lib))
    return absl::StrCat("it was compiled by build ", stamped->build_id);
  return "the library prefers a fresh compile";
}

}  // namespace

const char* CompatibilityVerdictName(CompatibilityVerdict verdict) {
  switch (verdict) {
    case CompatibilityVerdict::kOptimal: return "optimal";
    case CompatibilityVerdict::kPreferRecompile: return "prefer_recompile";
    case CompatibilityVerdict::kUnsupported: return "unsupported";
    case CompatibilityVerdict::kUnknown: break;
  }
  return "unknown";
}

absl::StatusOr<BlobCompatibility> CheckBlobCompatibility(const DeviceSession& session, std::span<const uint8_t> blob,
                                                         const BuildStamp* stamp, const std::string& run_soc) {
  const DispatchLibrary& lib = session.library();
  tsr_bytecode_header h{};
  if (blob.size() < sizeof(h)) return absl::InternalError("blob smaller than its envelope (not verified?)");
  std::memcpy(&h, blob.data(), sizeof(h));
  BlobCompatibility out;
  out.vendor = lib.vendor;
  out.soc = Fixed(h.soc_model, sizeof(h.soc_model));
  const tsr_dispatch_api* api = lib.api;
  if (!AtLeast12(lib.version) || !TSR_ABI_HAS(api, tsr_dispatch_api, check_compatibility)) {
    out.message = absl::StrCat(LibraryName(lib), " (ABI ", lib.version.major, ".", lib.version.minor,
                               ") has no check_compatibility: the blob runs unchecked");
    return out;
  }
  const VendorBuildStamp* stamped = stamp != nullptr ? stamp->Find(lib.vendor) : nullptr;
  const char* compatibility = stamped != nullptr && !stamped->compatibility.empty() ? stamped->compatibility.c_str() : nullptr;
  out.stamped = compatibility != nullptr;
  int32_t verdict = -1;
  if (absl::Status s = session.Check(api->check_compatibility(session.context(), blob.data(), blob.size(), compatibility,
                                                              &verdict),
                                     absl::StrCat("check_compatibility of the ", lib.vendor, " bytecode"));
      !s.ok())
    return s;
  switch (verdict) {
    case TSR_COMPATIBILITY_OPTIMAL:
      out.verdict = CompatibilityVerdict::kOptimal;
      return out;
    case TSR_COMPATIBILITY_PREFER_RECOMPILE:
      out.verdict = CompatibilityVerdict::kPreferRecompile;
      out.message = absl::StrCat("the ", lib.vendor, " bytecode (SoC '", out.soc, "') runs, but ", LibraryName(lib),
                                 " prefers it recompiled: ", PreferRecompileReason(lib, out.soc, run_soc, stamped),
                                 "; compile the model again for the best code");
      return out;
    case TSR_COMPATIBILITY_UNSUPPORTED:
      return absl::FailedPreconditionError(absl::StrCat(
          "the model's ", lib.vendor, " bytecode, compiled for SoC '", out.soc, "', is unsupported by ", LibraryName(lib),
          ": ", UnsupportedReason(lib, h, out.soc, stamped),
          ". The model was not loaded; compile it again from its source model with the plugins installed here"));
    default:
      return absl::FailedPreconditionError(absl::StrCat(LibraryName(lib), " answered check_compatibility with ", verdict,
                                                        ", which is no tsr_compatibility: the model was not loaded"));
  }
}

void CheckStampedSocDescription(BlobCompatibility& verdict, const BuildStamp* stamp, const std::string& run_soc,
                                const std::string& run_soc_sha256) {
  if (stamp == nullptr || stamp->soc_description_sha256.empty() || run_soc_sha256.empty()) return;
  if (stamp->soc != run_soc || verdict.soc != run_soc) return;  // another SoC: the library's check speaks for it
  if (stamp->soc_description_sha256 == run_soc_sha256) return;
  if (verdict.verdict == CompatibilityVerdict::kPreferRecompile) return;  // already told, with the library's reason
  verdict.verdict = CompatibilityVerdict::kPreferRecompile;
  verdict.message = absl::StrCat("the ", verdict.vendor, " bytecode (SoC '", run_soc,
                                 "') runs, but it was compiled against another description of that SoC (sha256 ",
                                 stamp->soc_description_sha256, "; this run's is ", run_soc_sha256,
                                 "); compile the model again for the best code");
}

}  // namespace tessera
