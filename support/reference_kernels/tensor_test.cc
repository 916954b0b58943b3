#include <gtest/gtest.h>

#include "support/reference_kernels/kernel_api.h"

namespace tessera::cpu {
namespace {

TEST(TensorRefTest, CountsAndBytes) {
  TensorRef t;
  t.dtype = TSR_DTYPE_F16;
  t.shape = {2, 3, 4};
  EXPECT_EQ(t.element_count(), 24);
  EXPECT_EQ(t.byte_size(), 48u);
  t.shape = {};
  EXPECT_EQ(t.element_count(), 1);  // scalar
  t.shape = {3, 0};
  EXPECT_EQ(t.element_count(), 0);
}

TEST(TensorRefTest, DTypeSizesAndNames) {
  EXPECT_EQ(DTypeSize(TSR_DTYPE_F32), 4u);
  EXPECT_EQ(DTypeSize(TSR_DTYPE_F16), 2u);
  EXPECT_EQ(DTypeSize(TSR_DTYPE_I8), 1u);
  EXPECT_EQ(DTypeSize(TSR_DTYPE_U8), 1u);
  EXPECT_EQ(DTypeSize(TSR_DTYPE_I32), 4u);
  EXPECT_EQ(DTypeSize(TSR_DTYPE_I64), 8u);
  EXPECT_EQ(DTypeSize(TSR_DTYPE_BOOL), 1u);
  EXPECT_EQ(DTypeSize(TSR_DTYPE_UNKNOWN), 0u);
  EXPECT_STREQ(DTypeName(TSR_DTYPE_I32), "i32");
  EXPECT_STREQ(DTypeName(TSR_DTYPE_BOOL), "bool");
}

TEST(TensorRefTest, OpNames) {
  EXPECT_STREQ(OpTypeName(TSR_OP_ADD), "ADD");
  EXPECT_STREQ(OpTypeName(TSR_OP_CONV_2D), "CONV_2D");
  EXPECT_STREQ(OpTypeName(TSR_OP_FULLY_CONNECTED), "FULLY_CONNECTED");
  EXPECT_STREQ(OpTypeName(TSR_OP_DEQUANTIZE), "DEQUANTIZE");
  EXPECT_STREQ(OpTypeName(TSR_OP_DISPATCH), "DISPATCH");
  EXPECT_STREQ(OpTypeName(TSR_OP_GLOBAL_AVG_POOL), "GLOBAL_AVG_POOL");
  EXPECT_STREQ(OpTypeName(9999), "INVALID_OP");
}

TEST(AttributesTest, GetSet) {
  Attributes a;
  EXPECT_FALSE(a.Has(TSR_ATTR_AXIS));
  EXPECT_EQ(a.GetInt(TSR_ATTR_AXIS, -1), -1);
  EXPECT_TRUE(a.GetInts(TSR_ATTR_PERM).empty());
  a.SetInts(TSR_ATTR_PERM, {2, 0, 1});
  a.SetFloats(TSR_ATTR_EPSILON, {1e-3f});
  EXPECT_TRUE(a.Has(TSR_ATTR_PERM));
  EXPECT_EQ(a.GetInt(TSR_ATTR_PERM, 0), 2);
  ASSERT_EQ(a.GetInts(TSR_ATTR_PERM).size(), 3u);
  EXPECT_EQ(a.GetInts(TSR_ATTR_PERM)[2], 1);
  EXPECT_FLOAT_EQ(a.GetFloat(TSR_ATTR_EPSILON, 0), 1e-3f);
  EXPECT_EQ(a.GetFloats(TSR_ATTR_EPSILON).size(), 1u);
  // Replacing a value drops the other kind.
  a.SetInts(TSR_ATTR_EPSILON, {2});
  EXPECT_TRUE(a.GetFloats(TSR_ATTR_EPSILON).empty());
  EXPECT_FLOAT_EQ(a.GetFloat(TSR_ATTR_EPSILON, 0), 2.0f);
  EXPECT_EQ(a.all().size(), 2u);
}

}  // namespace
}  // namespace tessera::cpu
