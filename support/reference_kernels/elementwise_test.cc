#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;

using ::testing::HasSubstr;
using V = std::vector<double>;
using IV = std::vector<int64_t>;

TEST(BinaryTest, AddBroadcastF32) {
  Tensor a = F32({2, 1}, {1, 2}), b = F32({3}, {10, 20, 30});
  Tensor y = Empty(TSR_DTYPE_F32, {2, 3});
  ASSERT_TRUE(RunOp(TSR_OP_ADD, Attrs(), {a, b}, y).ok());
  EXPECT_EQ(Values(y), (V{11, 21, 31, 12, 22, 32}));
}

TEST(BinaryTest, SubMulDivF32) {
  Tensor a = F32({4}, {1, 2, 3, -4}), b = F32({4}, {4, 0.5, -2, 0});
  Tensor y = Empty(TSR_DTYPE_F32, {4});
  ASSERT_TRUE(RunOp(TSR_OP_SUB, Attrs(), {a, b}, y).ok());
  EXPECT_EQ(Values(y), (V{-3, 1.5, 5, -4}));
  ASSERT_TRUE(RunOp(TSR_OP_MUL, Attrs(), {a, b}, y).ok());
  EXPECT_EQ(Values(y), (V{4, 1, -6, -0.0}));
  ASSERT_TRUE(RunOp(TSR_OP_DIV, Attrs(), {a, b}, y).ok());
  const V d = Values(y);
  EXPECT_EQ(d[0], 0.25);
  EXPECT_EQ(d[1], 4);
  EXPECT_EQ(d[2], -1.5);
  EXPECT_EQ(d[3], -std::numeric_limits<double>::infinity());  // IEEE
}

TEST(BinaryTest, F16RoundsToNearestEven) {
  // 1 + 2^-11 ties to 1.0; 1 + 3*2^-11 ties to 1 + 2^-9.
  Tensor a = F16({2}, {1, 1}), b = F16({2}, {std::ldexp(1.0, -11), 3 * std::ldexp(1.0, -11)});
  Tensor y = Empty(TSR_DTYPE_F16, {2});
  ASSERT_TRUE(RunOp(TSR_OP_ADD, Attrs(), {a, b}, y).ok());
  EXPECT_EQ(Values(y), (V{1.0, 1.0 + std::ldexp(1.0, -9)}));
  // Overflow to inf.
  Tensor big = F16({1}, {60000}), y1 = Empty(TSR_DTYPE_F16, {1});
  ASSERT_TRUE(RunOp(TSR_OP_ADD, Attrs(), {big, big}, y1).ok());
  EXPECT_TRUE(std::isinf(Values(y1)[0]));
}

TEST(BinaryTest, IntegerWrapAround) {
  Tensor a = I8({2}, {100, -100}), y = Empty(TSR_DTYPE_I8, {2});
  ASSERT_TRUE(RunOp(TSR_OP_ADD, Attrs(), {a, a}, y).ok());
  EXPECT_EQ(Ints(y), (IV{-56, 56}));
  Tensor u = U8({2}, {200, 3}), v = U8({2}, {100, 5}), yu = Empty(TSR_DTYPE_U8, {2});
  ASSERT_TRUE(RunOp(TSR_OP_ADD, Attrs(), {u, v}, yu).ok());
  EXPECT_EQ(Ints(yu), (IV{44, 8}));
  ASSERT_TRUE(RunOp(TSR_OP_SUB, Attrs(), {u, v}, yu).ok());
  EXPECT_EQ(Ints(yu), (IV{100, 254}));
  Tensor big = I64({1}, {std::numeric_limits<int64_t>::max()});
  Tensor one = I64({1}, {1}), y64 = Empty(TSR_DTYPE_I64, {1});
  ASSERT_TRUE(RunOp(TSR_OP_ADD, Attrs(), {big, one}, y64).ok());
  EXPECT_EQ(Ints(y64)[0], std::numeric_limits<int64_t>::min());
}

TEST(BinaryTest, IntegerDivTruncates) {
  Tensor a = I32({5}, {7, -7, 7, -7, -2147483648.0});
  Tensor b = I32({5}, {2, 2, -2, -2, -1});
  Tensor y = Empty(TSR_DTYPE_I32, {5});
  ASSERT_TRUE(RunOp(TSR_OP_DIV, Attrs(), {a, b}, y).ok());
  EXPECT_EQ(Ints(y), (IV{3, -3, -3, 3, -2147483648LL}));
  Tensor z = I32({5}, {1, 1, 0, 1, 1});
  absl::Status s = RunOp(TSR_OP_DIV, Attrs(), {a, z}, y);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("division by zero"));
}

TEST(BinaryTest, PowMixedTypes) {
  Tensor f = F32({2}, {2, 3}), e = F32({2}, {3, 0.5}), yf = Empty(TSR_DTYPE_F32, {2});
  ASSERT_TRUE(RunOp(TSR_OP_POW, Attrs(), {f, e}, yf).ok());
  EXPECT_EQ(Values(yf)[0], 8);
  EXPECT_FLOAT_EQ(Values(yf)[1], 1.7320508f);
  // ONNX test_pow_types_int64_int64.
  Tensor bi = I64({3}, {1, 2, 3}), ei = I64({3}, {4, 5, 6}), yi = Empty(TSR_DTYPE_I64, {3});
  ASSERT_TRUE(RunOp(TSR_OP_POW, Attrs(), {bi, ei}, yi).ok());
  EXPECT_EQ(Ints(yi), (IV{1, 32, 729}));
  // Int base, float exponent: output int (truncated).
  Tensor b32 = I32({3}, {4, 9, 2}), ef = F32({3}, {0.5, 0.5, 0.5}), y32 = Empty(TSR_DTYPE_I32, {3});
  ASSERT_TRUE(RunOp(TSR_OP_POW, Attrs(), {b32, ef}, y32).ok());
  EXPECT_EQ(Ints(y32), (IV{2, 3, 1}));
  // Float base, int exponent.
  Tensor fb = F32({2}, {2, -3}), ie = I64({1}, {3});
  ASSERT_TRUE(RunOp(TSR_OP_POW, Attrs(), {fb, ie}, yf).ok());
  EXPECT_EQ(Values(yf), (V{8, -27}));
  // Negative integer exponents truncate 1/b^n.
  Tensor nb = I32({3}, {2, -1, 1}), ne = I32({3}, {-1, -3, -5});
  ASSERT_TRUE(RunOp(TSR_OP_POW, Attrs(), {nb, ne}, y32).ok());
  EXPECT_EQ(Ints(y32), (IV{0, -1, 1}));
}

TEST(BinaryTest, MaxMinPropagateNaN) {
  const double nan = std::nan("");
  Tensor a = F32({3}, {1, nan, -2}), b = F32({3}, {2, 5, -3});
  Tensor y = Empty(TSR_DTYPE_F32, {3});
  ASSERT_TRUE(RunOp(TSR_OP_MAXIMUM, Attrs(), {a, b}, y).ok());
  V v = Values(y);
  EXPECT_EQ(v[0], 2);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], -2);
  ASSERT_TRUE(RunOp(TSR_OP_MINIMUM, Attrs(), {a, b}, y).ok());
  v = Values(y);
  EXPECT_EQ(v[0], 1);
  EXPECT_EQ(v[2], -3);
  Tensor i = I8({2}, {-5, 7}), j = I8({1}, {0}), yi = Empty(TSR_DTYPE_I8, {2});
  ASSERT_TRUE(RunOp(TSR_OP_MAXIMUM, Attrs(), {i, j}, yi).ok());
  EXPECT_EQ(Ints(yi), (IV{0, 7}));
}

TEST(BinaryTest, Errors) {
  Tensor a = F32({2}, {1, 2}), i = I32({2}, {1, 2}), y = Empty(TSR_DTYPE_F32, {2});
  // Exactly two inputs.
  EXPECT_EQ(RunOp(TSR_OP_MAXIMUM, Attrs(), {a, a, a}, y).code(), absl::StatusCode::kInvalidArgument);
  // Mixed dtypes.
  EXPECT_EQ(RunOp(TSR_OP_ADD, Attrs(), {a, i}, y).code(), absl::StatusCode::kInvalidArgument);
  // Unsupported dtype.
  Tensor b = Bool({2}, {1, 0}), yb = Empty(TSR_DTYPE_BOOL, {2});
  absl::Status s = RunOp(TSR_OP_ADD, Attrs(), {b, b}, yb);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(), "ADD: dtype bool unsupported");
  // Wrong output shape.
  Tensor y3 = Empty(TSR_DTYPE_F32, {3});
  s = RunOp(TSR_OP_ADD, Attrs(), {a, a}, y3);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("output 0 shape [3] but the op produces [2]"));
  // Incompatible shapes.
  Tensor c = F32({3}, {1, 2, 3});
  EXPECT_EQ(RunOp(TSR_OP_ADD, Attrs(), {a, c}, y).code(), absl::StatusCode::kInvalidArgument);
  // Missing data.
  Tensor nodata = Empty(TSR_DTYPE_F32, {2});
  nodata.ref.data = nullptr;
  EXPECT_EQ(RunOp(TSR_OP_ADD, Attrs(), {a, nodata}, y).code(), absl::StatusCode::kInvalidArgument);
}

TEST(BinaryTest, QuantizedAddRequantizesHalfToEven) {
  // a: scale 0.5 zp 0; b: scale 0.25 zp 4; y: scale 0.5 zp -10.
  Tensor a = WithQuant(I8({4}, {10, 20, 1, 127}), {0.5f}, {0});
  Tensor b = WithQuant(I8({4}, {8, 12, 7, 127}), {0.25f}, {4});
  Tensor y = WithQuant(Empty(TSR_DTYPE_I8, {4}), {0.5f}, {-10});
  ASSERT_TRUE(RunOp(TSR_OP_ADD, Attrs(), {a, b}, y).ok());
  // 5+1=6 -> 12-10=2; 10+2=12 -> 24-10=14; 0.5+0.75=1.25 -> 2.5 -> 2 -> -8;
  // 63.5+30.75=94.25 -> 188.5 -> 188 -> 178 -> saturates to 127.
  EXPECT_EQ(Ints(y), (IV{2, 14, -8, 127}));
}

TEST(BinaryTest, QuantizedMulU8) {
  Tensor a = WithQuant(U8({1}, {138}), {0.1f}, {128});
  Tensor b = WithQuant(U8({1}, {143}), {0.2f}, {128});
  Tensor y = WithQuant(Empty(TSR_DTYPE_U8, {1}), {0.05f}, {100});
  ASSERT_TRUE(RunOp(TSR_OP_MUL, Attrs(), {a, b}, y).ok());
  EXPECT_EQ(Ints(y), (IV{160}));  // 1.0 * 3.0 = 3.0 -> 60 + 100
}

TEST(BinaryTest, QuantizedSubIsAddsPipeline) {
  // a: scale 0.5 zp 0; b: scale 0.25 zp 4; y: scale 0.5 zp -10.
  Tensor a = WithQuant(I8({4}, {10, 1, 4, -128}), {0.5f}, {0});
  Tensor b = WithQuant(I8({4}, {8, 5, 7, 127}), {0.25f}, {4});
  Tensor y = WithQuant(Empty(TSR_DTYPE_I8, {4}), {0.5f}, {-10});
  ASSERT_TRUE(RunOp(TSR_OP_SUB, Attrs(), {a, b}, y).ok());
  // 5-1=4 -> 8-10=-2; 0.5-0.25=0.25 -> 0.5 ties to 0 -> -10;
  // 2-0.75=1.25 -> 2.5 ties to 2 -> -8; -64-30.75 -> -189.5 -> saturates.
  EXPECT_EQ(Ints(y), (IV{-2, -10, -8, -128}));
}

TEST(BinaryTest, QuantizedDivInF32) {
  // a: scale 0.5 zp 0; b: scale 0.25 zp 0; y: scale 0.25 zp 3.
  Tensor a = WithQuant(I8({7}, {10, 3, -7, 100, 0, 5, 2}), {0.5f}, {0});
  Tensor b = WithQuant(I8({7}, {8, 8, 8, 0, 0, 16, 12}), {0.25f}, {0});
  Tensor y = WithQuant(Empty(TSR_DTYPE_I8, {7}), {0.25f}, {3});
  ASSERT_TRUE(RunOp(TSR_OP_DIV, Attrs(), {a, b}, y).ok());
  // 5/2=2.5 -> 10+3; 1.5/2=0.75 -> 3+3; -3.5/2=-1.75 -> -7+3;
  // 50/0=+inf -> 127; 0/0=NaN -> 0 (QUANTIZE's NaN rule, not the zero
  // point); 2.5/4=0.625 -> 2.5 ties to 2 -> 5; 1/3 -> 1.33 -> 1 -> 4.
  EXPECT_EQ(Ints(y), (IV{13, 6, -4, 127, 0, 5, 4}));
}

TEST(BinaryTest, QuantizedErrors) {
  Tensor a = WithQuant(I8({1}, {1}), {0.5f}, {0});
  Tensor y = WithQuant(Empty(TSR_DTYPE_I8, {1}), {0.5f}, {0});
  EXPECT_EQ(RunOp(TSR_OP_MAXIMUM, Attrs(), {a, a}, y).code(), absl::StatusCode::kUnimplemented);
  Tensor plain = I8({1}, {1});
  EXPECT_EQ(RunOp(TSR_OP_ADD, Attrs(), {a, plain}, y).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::cpu
