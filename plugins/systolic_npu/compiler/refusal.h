// How the claim checks report a refusal: an InvalidArgument status whose
// message is the human reason_detail, plus a tsr_refusal_reason code in a
// `Why` the caller owns (absl::Status has no room for the code).
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_REFUSAL_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_REFUSAL_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tessera/compiler_plugin.h"

namespace tessera::systolic {

struct Why {
  int32_t reason = TSR_REFUSAL_OTHER;
};

// Sets why->reason and returns the refusal; needs a `Why* why` in scope.
#define SNPU_REFUSE(code, ...)                                     \
  do {                                                             \
    why->reason = (code);                                          \
    return absl::InvalidArgumentError(absl::StrCat(__VA_ARGS__));  \
  } while (0)

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_REFUSAL_H_
