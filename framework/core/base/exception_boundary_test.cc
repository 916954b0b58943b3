#include "framework/core/base/exception_boundary.h"

#include <new>
#include <stdexcept>
#include <vector>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

TEST(ExceptionBoundary, ValuesAndStatusesPassThrough) {
  absl::StatusOr<int> v = CatchAsStatus("x", []() -> absl::StatusOr<int> { return 7; });
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 7);
  absl::Status s = CatchAsStatus("x", [] { return absl::NotFoundError("gone"); });
  EXPECT_EQ(s, absl::NotFoundError("gone"));
}

TEST(ExceptionBoundary, BadAllocIsResourceExhausted) {
  absl::Status s = CatchAsStatus("importing", []() -> absl::Status { throw std::bad_alloc(); });
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("importing: out of memory"));
}

TEST(ExceptionBoundary, LengthErrorIsResourceExhausted) {
  absl::StatusOr<std::vector<int>> s = CatchAsStatus("sizing", []() -> absl::StatusOr<std::vector<int>> {
    std::vector<int> v;
    v.reserve(v.max_size() + 1);  // throws std::length_error
    return v;
  });
  EXPECT_EQ(s.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(ExceptionBoundary, OtherExceptionsAreInternal) {
  absl::Status s = CatchAsStatus("parsing", []() -> absl::Status { throw std::runtime_error("boom"); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("parsing: internal error: boom"));
  absl::Status t = CatchAsStatus("parsing", []() -> absl::Status { throw 42; });
  EXPECT_EQ(t.code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace tessera
