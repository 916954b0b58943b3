// Budgets: the flag syntax, the one message every overrun reads as, and
// each budget of a whole graph (graph/graph_budgets.h) tripping alone.
#include "framework/core/base/budgets.h"

#include <vector>

#include "framework/core/graph/graph_budgets.h"
#include "framework/core/model/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

TEST(Budgets, SetBudgetTakesNamesValuesAndSuffixes) {
  Budgets b;
  ASSERT_TRUE(SetBudget(b, "max_tensor_bytes=3K").ok());
  EXPECT_EQ(b.max_tensor_bytes, 3u * 1024);
  ASSERT_TRUE(SetBudget(b, "max_model_bytes=2G").ok());
  EXPECT_EQ(b.max_model_bytes, 2ull * 1024 * 1024 * 1024);
  ASSERT_TRUE(SetBudget(b, "max_op_count=0").ok());
  EXPECT_EQ(b.max_op_count, 0u);
  ASSERT_TRUE(SetBudget(b, "max_partition_count=18446744073709551615").ok());
  EXPECT_EQ(b.max_partition_count, 18446744073709551615ull);
  for (const char* bad : {"max_op_count=-1", "max_op_count=", "max_op_count", "max_op_count=lots",
                          "max_op_count=18446744073709551616", "max_tensor_bytes=16777216T"})
    EXPECT_EQ(SetBudget(b, bad).code(), absl::StatusCode::kInvalidArgument) << bad;
  const absl::Status unknown = SetBudget(b, "max_cats=1");
  EXPECT_THAT(unknown.message(), HasSubstr("unknown budget 'max_cats'"));
  EXPECT_THAT(unknown.message(), HasSubstr("max_bytecode_bytes"));
}

TEST(Budgets, TheDefaultsAreTheDocumentedOnes) {
  const Budgets b;
  EXPECT_EQ(b.max_model_bytes, 17179869184u);  // 16 GiB
  EXPECT_EQ(b.max_tensor_count, 1000000u);
  EXPECT_EQ(b.max_tensor_bytes, 17179869184u);      // 16 GiB
  EXPECT_EQ(b.max_activation_bytes, 68719476736u);  // 64 GiB
  EXPECT_EQ(b.max_op_count, 1000000u);
  EXPECT_EQ(b.max_partition_count, 10000u);
  EXPECT_EQ(b.max_bytecode_bytes, 4294967296u);        // 4 GiB
  EXPECT_EQ(b.max_device_memory_bytes, 17179869184u);  // 16 GiB
  EXPECT_EQ(AllBudgets().size(), 8u);
}

TEST(Budgets, AnOverrunNamesWhatTheValueTheBudgetAndTheFlag) {
  Budgets b;
  b.max_tensor_bytes = 100;
  EXPECT_TRUE(CheckBudget(b, &Budgets::max_tensor_bytes, 100, "tensor 't'").ok());
  const absl::Status s = CheckBudget(b, &Budgets::max_tensor_bytes, 101, "tensor 't'");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(),
            "tensor 't' is 101 bytes, above the budget max_tensor_bytes = 100 (raise it with --budget "
            "max_tensor_bytes=VALUE, or Budgets::max_tensor_bytes in the API)");
}

// x f32 [8] (32 bytes) -> RELU -> y (32 bytes); w f32 [2] constant (8 bytes)
// feeds nothing that counts: activations are x and y, 64 bytes.
Graph EightFloats() {
  ModelBuilder b("eight");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {8});
  const int32_t w = b.Constant<float>("w", {2}, std::vector<float>{1, 2});
  const int32_t y = b.Op(TSR_OP_RELU, {x});
  b.Output(y);
  b.Output(w);
  return *std::move(b).Build();
}

TEST(GraphBudgets, EachBudgetTripsJustPastItsLimit) {
  Graph g = EightFloats();
  const std::vector<uint8_t> blob(100, 0);
  g.bytecodes.push_back({"vendor", "soc", blob});
  ASSERT_EQ(g.tensors.size(), 3u);  // x, w, y
  ASSERT_EQ(g.ops.size(), 1u);
  ASSERT_TRUE(CheckGraphBudgets(g, Budgets{}).ok());
  struct Case {
    uint64_t Budgets::*member;
    uint64_t value;  // what the graph has of it
    const char* message;
  };
  for (const Case& c : {Case{&Budgets::max_tensor_count, 3, "the tensor count is 3"},
                        Case{&Budgets::max_op_count, 1, "the op count is 1"},
                        Case{&Budgets::max_tensor_bytes, 32, "tensor 'x' is 32 bytes"},
                        Case{&Budgets::max_activation_bytes, 64, "(every non-constant tensor) is 64 bytes"},
                        Case{&Budgets::max_bytecode_bytes, 100, "the bytecode is 100 bytes"}}) {
    Budgets at;
    at.*c.member = c.value;
    EXPECT_TRUE(CheckGraphBudgets(g, at).ok()) << c.message;
    Budgets below;
    below.*c.member = c.value - 1;
    const absl::Status s = CheckGraphBudgets(g, below);
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << c.message;
    EXPECT_THAT(s.message(), HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace tessera
