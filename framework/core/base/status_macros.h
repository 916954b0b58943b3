// The two status macros, defined once for the whole framework (Debian's
// abseil 20220623 has no public equivalent).
#ifndef TESSERA_FRAMEWORK_CORE_BASE_STATUS_MACROS_H_
#define TESSERA_FRAMEWORK_CORE_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TSR_CONCAT_INNER_(a, b) a##b
#define TSR_CONCAT_(a, b) TSR_CONCAT_INNER_(a, b)

// Returns from the current function when `expr` (an absl::Status) fails.
#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    ::absl::Status tsr_status_ = (expr);       \
    if (!tsr_status_.ok()) return tsr_status_; \
  } while (0)

// `lhs` = value of `rexpr` (an absl::StatusOr<T>), or return its error.
#define ASSIGN_OR_RETURN(lhs, rexpr) ASSIGN_OR_RETURN_IMPL_(TSR_CONCAT_(tsr_statusor_, __LINE__), lhs, rexpr)
#define ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                           \
  if (!statusor.ok()) return statusor.status();      \
  lhs = std::move(statusor).value()

#endif  // TESSERA_FRAMEWORK_CORE_BASE_STATUS_MACROS_H_
