#include "support/math/checked_math.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace tessera::checked {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(CheckedMath, AddSubMulAtTheEdges) {
  EXPECT_EQ(Add<int64_t>(kMax - 1, 1), kMax);
  EXPECT_EQ(Add<int64_t>(kMax, 1), std::nullopt);
  EXPECT_EQ(Add<int64_t>(kMin, -1), std::nullopt);
  EXPECT_EQ(Sub<int64_t>(kMin + 1, 1), kMin);
  EXPECT_EQ(Sub<int64_t>(kMin, 1), std::nullopt);
  EXPECT_EQ(Sub<int64_t>(0, kMin), std::nullopt);  // -kMin does not exist
  EXPECT_EQ(Mul(int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
  EXPECT_EQ(Mul(int64_t{1} << 32, int64_t{1} << 31), std::nullopt);  // 2^63
  EXPECT_EQ(Mul<int64_t>(-1, kMin), std::nullopt);
  EXPECT_EQ(Mul(uint64_t{1} << 32, uint64_t{1} << 32), std::nullopt);  // 2^64 wraps to 0 unchecked
  EXPECT_EQ(Add<uint64_t>(~uint64_t{0}, 1), std::nullopt);
}

TEST(CheckedMath, AlignUp) {
  EXPECT_EQ(AlignUp(0, 64), 0u);
  EXPECT_EQ(AlignUp(1, 64), 64u);
  EXPECT_EQ(AlignUp(64, 64), 64u);
  EXPECT_EQ(AlignUp(~uint64_t{0} - 10, 64), std::nullopt);
  EXPECT_EQ(AlignUp(5, 0), std::nullopt);
}

TEST(CheckedMath, ElementCount) {
  EXPECT_EQ(ElementCount(std::vector<int64_t>{}), 1);
  EXPECT_EQ(ElementCount(std::vector<int64_t>{2, 3, 4}), 24);
  EXPECT_EQ(ElementCount(std::vector<int64_t>{0, kMax}), 0);
  EXPECT_EQ(ElementCount(std::vector<int64_t>{2, -1}), std::nullopt);
  // 2^32 * 2^32 = 2^64: an unchecked product wraps to 0.
  EXPECT_EQ(ElementCount(std::vector<int64_t>{int64_t{1} << 32, int64_t{1} << 32}), std::nullopt);
}

TEST(CheckedMath, TensorBytes) {
  EXPECT_EQ(TensorBytes(std::vector<int64_t>{2, 3}, 4), 24);
  // 2^62 int64 elements: 2^65 bytes, which wraps to 0 in size_t.
  EXPECT_EQ(TensorBytes(std::vector<int64_t>{int64_t{1} << 62}, 8), std::nullopt);
  EXPECT_EQ(TensorBytes(std::vector<int64_t>{int64_t{1} << 45}, 8), int64_t{1} << 48);
  EXPECT_EQ(TensorBytes(std::vector<int64_t>{(int64_t{1} << 45) + 1}, 8), std::nullopt);  // above 2^48
  EXPECT_EQ(TensorBytes(std::vector<int64_t>{1024}, 4, 4096), 4096);
  EXPECT_EQ(TensorBytes(std::vector<int64_t>{1025}, 4, 4096), std::nullopt);
  EXPECT_EQ(TensorBytes(std::vector<int64_t>{4}, 0), std::nullopt);
}

TEST(CheckedMath, DoubleToInt64) {
  EXPECT_EQ(DoubleToInt64(-3.0), -3);
  EXPECT_EQ(DoubleToInt64(2.9), 2);
  EXPECT_EQ(DoubleToInt64(-9223372036854775808.0), kMin);
  EXPECT_EQ(DoubleToInt64(9223372036854775808.0), std::nullopt);
  EXPECT_EQ(DoubleToInt64(1e300), std::nullopt);
  EXPECT_EQ(DoubleToInt64(std::numeric_limits<double>::quiet_NaN()), std::nullopt);
  EXPECT_EQ(DoubleToInt64(-std::numeric_limits<double>::infinity()), std::nullopt);
}

}  // namespace
}  // namespace tessera::checked
