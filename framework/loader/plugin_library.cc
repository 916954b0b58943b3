#include "framework/loader/plugin_library.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace tessera {

const char* PluginRoleName(PluginRole role) { return role == PluginRole::kCompiler ? "compiler" : "dispatch"; }

SharedLibrary::~SharedLibrary() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

absl::Status PluginStatus(tsr_status code, const char* (*get_last_error)(void), const std::string& context) {
  if (code == TSR_OK) return absl::OkStatus();
  const char* text = get_last_error != nullptr ? get_last_error() : nullptr;
  std::string message = absl::StrCat(context, ": ", text != nullptr && *text ? text : "(no error text)");
  absl::StatusCode mapped = absl::StatusCode::kUnknown;
  if (code > 0 && code <= 16) {
    mapped = static_cast<absl::StatusCode>(code);
  } else if (code == TSR_VERSION_UNSUPPORTED || code == TSR_BYTECODE_INCOMPATIBLE) {
    mapped = absl::StatusCode::kFailedPrecondition;
  } else if (code == TSR_BUDGET_EXCEEDED) {
    mapped = absl::StatusCode::kResourceExhausted;  // the class (never retry) is read from the raw code
  } else if (code == TSR_BYTECODE_INVALID || code == TSR_BYTECODE_CHECKSUM) {
    mapped = absl::StatusCode::kDataLoss;
  }
  return absl::Status(mapped, message);
}

}  // namespace tessera
