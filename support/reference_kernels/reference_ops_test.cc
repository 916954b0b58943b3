#include <gtest/gtest.h>

#include "support/reference_kernels/test_util.h"

namespace tessera::cpu {
namespace {

using namespace kt;

TEST(ReferenceOpsTest, DispatchIsNotAKernel) {
  Tensor x = F32({1}, {1}), y = Empty(TSR_DTYPE_F32, {1});
  absl::Status s = RunOp(TSR_OP_DISPATCH, Attrs(), {x}, y);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  std::string reason;
  std::vector<TensorRef> in = {x}, out = {y};
  EXPECT_FALSE(ReferenceSupports(TSR_OP_DISPATCH, in, out, &reason));
  EXPECT_FALSE(reason.empty());
  EXPECT_EQ(RunOp(999, Attrs(), {x}, y).code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(RunOp(TSR_OP_UNKNOWN, Attrs(), {x}, y).code(), absl::StatusCode::kUnimplemented);
}

TEST(ReferenceOpsTest, SupportsGivesReasons) {
  Tensor i = I32({1}, {1}), yi = Empty(TSR_DTYPE_I32, {1});
  std::vector<TensorRef> in = {i}, out = {yi};
  std::string reason;
  EXPECT_FALSE(ReferenceSupports(TSR_OP_SIN, in, out, &reason));
  EXPECT_EQ(reason, "SIN: dtype i32 unsupported");
  EXPECT_TRUE(ReferenceSupports(TSR_OP_NEG, in, out, &reason));
  EXPECT_TRUE(reason.empty());
  EXPECT_TRUE(ReferenceSupports(TSR_OP_NEG, in, out, nullptr));
}

// For every op and every dtype, ReferenceSupports must agree with the
// dtype checks RunReferenceOp makes: when it says no, running fails with
// the same status; when it says yes, running never fails with
// Unimplemented.
TEST(ReferenceOpsTest, SupportsAgreesWithRun) {
  const int32_t dtypes[] = {TSR_DTYPE_F32, TSR_DTYPE_F16, TSR_DTYPE_I8,  TSR_DTYPE_U8,
                            TSR_DTYPE_I32, TSR_DTYPE_I64, TSR_DTYPE_BOOL};
  for (int32_t op = 1; op < TSR_OP_COUNT_V1_4; ++op) {
    for (int32_t d : dtypes) {
      for (size_t n_in = 1; n_in <= 3; ++n_in) {
        std::vector<Tensor> owned;
        std::vector<TensorRef> in;
        for (size_t k = 0; k < n_in; ++k) {
          owned.push_back(Empty(d, {1, 1, 1, 1}));
          in.push_back(owned.back());
        }
        Tensor y = Empty(d, {1, 1, 1, 1});
        std::vector<TensorRef> out = {y};
        std::string reason;
        const bool ok = ReferenceSupports(op, in, out, &reason);
        Attributes a;
        a.SetInts(TSR_ATTR_KERNEL_SHAPE, {1, 1});
        a.SetInts(TSR_ATTR_STARTS, {0});
        a.SetInts(TSR_ATTR_ENDS, {1});
        absl::Status s = RunReferenceOp(op, a, in, out);
        if (!ok) {
          EXPECT_FALSE(s.ok()) << OpTypeName(op);
          EXPECT_EQ(std::string(s.message()), reason) << OpTypeName(op);
        } else {
          EXPECT_NE(s.code(), absl::StatusCode::kUnimplemented) << OpTypeName(op) << " " << DTypeName(d) << ": " << s;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tessera::cpu
