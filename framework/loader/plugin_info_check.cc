#include "framework/loader/plugin_info_check.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "framework/loader/code_address.h"

namespace tessera {
namespace {

// As plugin_registry.cc's bound on function tables: no struct comes near it.
constexpr uint32_t kMaxStructBytes = 4096;

absl::Status Garbage(const char* what, const void* pointer) {
  return absl::FailedPreconditionError(
      absl::StrCat("info ", what, " (", absl::Hex(reinterpret_cast<uintptr_t>(pointer)),
                   ") is not readable data of a loaded library: a garbage info struct"));
}

// The header, then the whole struct as its size says, at least `v1_bytes`.
absl::Status CheckStruct(const tsr_abi_header* header, size_t v1_bytes, const char* what) {
  if (!IsLoadedData(header, sizeof(tsr_abi_header))) return Garbage(what, header);
  if (header->struct_size < v1_bytes || header->struct_size > kMaxStructBytes)
    return absl::FailedPreconditionError(absl::StrCat(what, " size ", header->struct_size, " is implausible (",
                                                      v1_bytes, "..", kMaxStructBytes, " bytes)"));
  if (!IsLoadedData(header, header->struct_size)) return Garbage(what, header);
  return absl::OkStatus();
}

absl::Status CheckString(const char* s, const char* field, bool required) {
  if (s == nullptr && !required) return absl::OkStatus();
  if (!IsLoadedString(s, kMaxPluginInfoString))
    return absl::FailedPreconditionError(absl::StrCat(
        "info field '", field, "' (", absl::Hex(reinterpret_cast<uintptr_t>(s)),
        ") is not a string in a loaded library's readable data of at most ", kMaxPluginInfoString, " bytes"));
  return absl::OkStatus();
}

absl::Status CheckSocModels(const char* const* models, size_t count) {
  if (count > kMaxPluginSocModels)
    return absl::FailedPreconditionError(
        absl::StrCat("info soc_model_count ", count, " is implausible (at most ", kMaxPluginSocModels, ")"));
  if (count == 0) return absl::OkStatus();
  if (!IsLoadedData(models, count * sizeof(const char*))) return Garbage("soc_models", models);
  for (size_t i = 0; i < count; ++i)
    if (absl::Status s = CheckString(models[i], "soc_models[]", /*required=*/false); !s.ok()) return s;
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckPluginTableMemory(const tsr_abi_header* api) {
  if (!IsLoadedData(api, sizeof(tsr_abi_header)) || !IsLoadedData(api, api->struct_size))
    return absl::FailedPreconditionError(absl::StrCat("function table (", absl::Hex(reinterpret_cast<uintptr_t>(api)),
                                                      ") is not readable data of a loaded library: a garbage table"));
  return absl::OkStatus();
}

absl::Status CheckPluginInfo(const tsr_compiler_plugin_info* info) {
  constexpr size_t kV1 = offsetof(tsr_compiler_plugin_info, compile_modes) + sizeof(uint32_t);
  if (absl::Status s = CheckStruct(&info->header, kV1, "compiler info struct"); !s.ok()) return s;
  if (absl::Status s = CheckString(info->vendor, "vendor", true); !s.ok()) return s;
  if (absl::Status s = CheckString(info->plugin_version, "plugin_version", false); !s.ok()) return s;
  if (absl::Status s = CheckSocModels(info->soc_models, info->soc_model_count); !s.ok()) return s;
  if (TSR_ABI_HAS_FIELD(info, tsr_compiler_plugin_info, short_name))
    if (absl::Status s = CheckString(info->short_name, "short_name", false); !s.ok()) return s;
  if (TSR_ABI_HAS_FIELD(info, tsr_compiler_plugin_info, build_id))
    if (absl::Status s = CheckString(info->build_id, "build_id", false); !s.ok()) return s;
  return absl::OkStatus();
}

absl::Status CheckPluginInfo(const tsr_dispatch_info* info) {
  constexpr size_t kV1 = offsetof(tsr_dispatch_info, capabilities) + sizeof(uint32_t);
  if (absl::Status s = CheckStruct(&info->header, kV1, "dispatch info struct"); !s.ok()) return s;
  if (absl::Status s = CheckString(info->vendor, "vendor", true); !s.ok()) return s;
  if (absl::Status s = CheckString(info->library_version, "library_version", false); !s.ok()) return s;
  if (absl::Status s = CheckSocModels(info->soc_models, info->soc_model_count); !s.ok()) return s;
  if (TSR_ABI_HAS_FIELD(info, tsr_dispatch_info, build_id))
    if (absl::Status s = CheckString(info->build_id, "build_id", false); !s.ok()) return s;
  return absl::OkStatus();
}

}  // namespace tessera
