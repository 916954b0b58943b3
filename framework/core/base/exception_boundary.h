// The exception boundary: the framework's public entry points (import,
// model loading, tensor files, the CLI commands) return absl::Status, and
// nothing thrown inside them may escape as an exception: an uncaught
// std::bad_alloc from a crafted file would abort the process (exit 134).
#ifndef TESSERA_FRAMEWORK_CORE_BASE_EXCEPTION_BOUNDARY_H_
#define TESSERA_FRAMEWORK_CORE_BASE_EXCEPTION_BOUNDARY_H_

#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace tessera {

// The status for the exception being handled (call inside a catch block).
inline absl::Status StatusFromCurrentException(absl::string_view what) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(what, ": out of memory (std::bad_alloc)"));
  } catch (const std::length_error& e) {
    return absl::ResourceExhaustedError(absl::StrCat(what, ": size too large (", e.what(), ")"));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(what, ": internal error: ", e.what()));
  } catch (...) {
    return absl::InternalError(absl::StrCat(what, ": internal error: unknown exception"));
  }
}

// Runs `body` (returning absl::Status or absl::StatusOr<T>) and returns its
// result, or the error for any exception it throws. `what` prefixes the
// message ("importing 'model.onnx'").
template <typename Body>
auto CatchAsStatus(absl::string_view what, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (...) {
    return StatusFromCurrentException(what);
  }
}

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_EXCEPTION_BOUNDARY_H_
