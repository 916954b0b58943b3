// Status and Result<T>: a value or the reason there is none.
// Part of the app API: include "tessera/app/tessera_app.hpp".
#ifndef TESSERA_APP_STATUS_HPP_
#define TESSERA_APP_STATUS_HPP_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tessera/common.h"

namespace tessera::app {

// ---- Status and results ---------------------------------------------------

class Status {
 public:
  Status() = default;  // OK
  Status(tsr_status code, std::string message) : code_(code), message_(std::move(message)) {}
  bool ok() const { return code_ == TSR_OK; }
  tsr_status code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  tsr_status code_ = TSR_OK;
  std::string message_;
};

// Reading the value of a Result that holds an error is a bug in the
// caller. The app API throws nothing (the C API sits on it, and apps may
// build without exceptions), so it ends the process the way absl's
// StatusOr does: the status's code and message on stderr, then abort(),
// rather than an exception whose what() says nothing of the cause.
[[noreturn]] inline void DieOnErrorResult(const Status& status) {
  std::fprintf(stderr, "tessera::app::Result: value read from an error Result (code %d): %s\n",
               static_cast<int>(status.code()), status.message().c_str());
  std::fflush(stderr);
  std::abort();
}

// A value or the Status that explains why there is none. value(), * and ->
// on an error Result abort with its status (DieOnErrorResult): check ok()
// first where an error is expected.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & {
    if (T* v = std::get_if<T>(&v_)) return *v;
    DieOnErrorResult(std::get<Status>(v_));
  }
  const T& value() const& {
    if (const T* v = std::get_if<T>(&v_)) return *v;
    DieOnErrorResult(std::get<Status>(v_));
  }
  T&& value() && {
    if (T* v = std::get_if<T>(&v_)) return std::move(*v);
    DieOnErrorResult(std::get<Status>(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace tessera::app

#endif  // TESSERA_APP_STATUS_HPP_
