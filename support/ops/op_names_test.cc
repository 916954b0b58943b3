#include "support/ops/op_names.h"

#include <string>

#include "gtest/gtest.h"

namespace tessera {
namespace {

TEST(OpNames, EveryOpOfTheHeaderHasItsName) {
  // Spot values read off api/tessera/ops.h, first, last of each ABI step.
  EXPECT_STREQ(kOpTypeNames[TSR_OP_UNKNOWN], "UNKNOWN");
  EXPECT_STREQ(kOpTypeNames[TSR_OP_ADD], "ADD");
  EXPECT_STREQ(kOpTypeNames[TSR_OP_DISPATCH], "DISPATCH");
  EXPECT_STREQ(kOpTypeNames[TSR_OP_RESIZE], "RESIZE");
  EXPECT_STREQ(kOpTypeNames[TSR_OP_CONV_TRANSPOSE_2D], "CONV_TRANSPOSE_2D");
  EXPECT_STREQ(kOpTypeNames[TSR_OP_ARG_MAX], "ARG_MAX");
  EXPECT_STREQ(kOpTypeNames[TSR_OP_CUM_SUM], "CUM_SUM");
  for (size_t i = 0; i < kOpTypeNames.size(); ++i) EXPECT_NE(kOpTypeNames[i], nullptr) << i;
}

TEST(OpNames, NamesAndTypesRoundTripAndUnknownsAreRefused) {
  for (int32_t t = 1; t < TSR_OP_COUNT_V1_4; ++t) EXPECT_EQ(OpTypeNamed(kOpTypeNames[t]), t);
  EXPECT_EQ(OpTypeNamed("CONV_2D"), TSR_OP_CONV_2D);
  EXPECT_EQ(OpTypeNamed("UNKNOWN"), -1);  // not an op anyone can name
  EXPECT_EQ(OpTypeNamed("conv_2d"), -1);  // names are exact
  EXPECT_EQ(OpTypeNamed(""), -1);
  EXPECT_EQ(OpTypeNameOrNull(-1), nullptr);
  EXPECT_EQ(OpTypeNameOrNull(TSR_OP_COUNT_V1_4), nullptr);
  EXPECT_STREQ(OpTypeNameOrNull(TSR_OP_COUNT_V1_4 - 1), "CUM_SUM");
}

}  // namespace
}  // namespace tessera
