// Every bounds check of VerifyGraph at exactly its limit (accepted) and one
// past it (refused with the message that names it). The graphs are built
// by hand: x -> RELU -> y, plus whatever each case adds. An index equal to
// the count is the classic off-by-one: a `>` where `>=` belongs reads one
// element past a vector, which no fuzzer is guaranteed to hit.
#include "framework/core/graph/graph_verifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// Tensors 0 = x (input), 1 = y (RELU of x, the output), 2 = z (spare).
Graph Relu() {
  Graph g;
  g.tensors = {{"x", TSR_DTYPE_F32, {4}}, {"y", TSR_DTYPE_F32, {4}}, {"z", TSR_DTYPE_F32, {4}}};
  Op relu;
  relu.type = TSR_OP_RELU;
  relu.inputs = {0};
  relu.outputs = {1};
  g.ops = {relu};
  g.inputs = {0};
  g.outputs = {1};
  return g;
}

std::string Error(const Graph& g) {
  const absl::Status s = VerifyGraph(g);
  return s.ok() ? "(ok)" : std::string(s.message());
}

TEST(GraphVerifier, TheBaseGraphIsValid) { EXPECT_EQ(Error(Relu()), "(ok)"); }

TEST(GraphVerifier, GraphInputIndexAtTheTensorCount) {
  Graph g = Relu();
  g.inputs = {0, 2};  // the last tensor: fine
  EXPECT_EQ(Error(g), "(ok)");
  g.inputs = {0, 3};  // == tensor count
  EXPECT_THAT(Error(g), HasSubstr("graph input index 3 out of range"));
  g.inputs = {-1};
  EXPECT_THAT(Error(g), HasSubstr("graph input index -1 out of range"));
}

TEST(GraphVerifier, OpInputIndexAtTheTensorCount) {
  Graph g = Relu();
  g.inputs = {0, 2};
  g.ops[0].type = TSR_OP_ADD;
  g.ops[0].inputs = {0, 2};
  EXPECT_EQ(Error(g), "(ok)");
  g.ops[0].inputs = {0, 3};
  EXPECT_THAT(Error(g), HasSubstr("input index 3 out of range"));
  g.ops[0].inputs = {0, -2};  // -1 means "omitted", -2 is garbage
  EXPECT_THAT(Error(g), HasSubstr("input index -2 out of range"));
}

TEST(GraphVerifier, OpOutputIndexAtTheTensorCount) {
  Graph g = Relu();
  g.ops[0].outputs = {1, 2};
  EXPECT_EQ(Error(g), "(ok)");
  g.ops[0].outputs = {1, 3};
  EXPECT_THAT(Error(g), HasSubstr("output index 3 out of range"));
}

TEST(GraphVerifier, GraphOutputIndexAtTheTensorCount) {
  Graph g = Relu();
  g.ops[0].outputs = {1, 2};
  g.outputs = {1, 2};
  EXPECT_EQ(Error(g), "(ok)");
  g.outputs = {1, 3};
  EXPECT_THAT(Error(g), HasSubstr("graph output index 3 out of range"));
}

TEST(GraphVerifier, DispatchBytecodeIndexAtTheBlobCount) {
  Graph g = Relu();
  static const uint8_t kBlob[1] = {7};
  g.bytecodes = {{"npu", "soc", std::span<const uint8_t>(kBlob, 1)}};
  g.ops[0].type = TSR_OP_DISPATCH;
  g.ops[0].dispatch = DispatchRef{"npu", "soc", "main", 0, -1, {}};
  EXPECT_EQ(Error(g), "(ok)");
  g.ops[0].dispatch->bytecode = 1;  // == blob count
  EXPECT_THAT(Error(g), HasSubstr("bytecode index 1 out of range"));
  g.ops[0].dispatch->bytecode = -1;  // neither AOT nor JIT
  EXPECT_THAT(Error(g), HasSubstr("bytecode index -1 out of range"));
  g.ops[0].dispatch->jit_slot = 0;  // a JIT slot needs no blob
  EXPECT_EQ(Error(g), "(ok)");
}

TEST(GraphVerifier, PerChannelAxisAtTheRank) {
  Graph g = Relu();
  g.tensors[2].shape = {2, 3};
  g.tensors[2].dtype = TSR_DTYPE_I8;
  g.tensors[2].quant = Quantization{{0.5f, 0.25f, 0.125f}, {0, 0, 0}, 1};  // axis 1 = last, size 3
  EXPECT_EQ(Error(g), "(ok)");
  g.tensors[2].quant.axis = 2;  // == rank
  EXPECT_THAT(Error(g), HasSubstr("per-channel quantization does not match axis 2"));
  g.tensors[2].quant.axis = 0;  // in range, but dim 0 is 2, not 3
  EXPECT_THAT(Error(g), HasSubstr("does not match axis 0"));
  // A scalar: axis 0 is already the rank. (A check that let it through
  // would read dim 0 of an empty shape, whose storage is null.)
  g.tensors[2].shape = {};
  g.tensors[2].quant = Quantization{{0.5f, 0.25f}, {0, 0}, 0};
  EXPECT_THAT(Error(g), HasSubstr("per-channel quantization does not match axis 0"));
}

TEST(GraphVerifier, RankAtTheLimit) {
  Graph g = Relu();
  g.tensors[2].shape = std::vector<int64_t>(kMaxTensorRank, 1);
  EXPECT_EQ(Error(g), "(ok)");
  g.tensors[2].shape.push_back(1);
  EXPECT_THAT(Error(g), HasSubstr("rank 9 exceeds 8"));
}

TEST(GraphVerifier, TensorBytesAtTheLimit) {
  Graph g = Relu();
  g.tensors[2].dtype = TSR_DTYPE_U8;
  g.tensors[2].shape = {int64_t{1} << 24, int64_t{1} << 24};  // 2^48 bytes: the limit
  EXPECT_EQ(Error(g), "(ok)");
  g.tensors[2].dtype = TSR_DTYPE_F16;  // 2^49 bytes
  EXPECT_THAT(Error(g), HasSubstr("-byte tensor limit"));
  g.tensors[2].dtype = TSR_DTYPE_U8;
  g.tensors[2].shape = {(int64_t{1} << 48) + 1};  // one byte past
  EXPECT_THAT(Error(g), HasSubstr("-byte tensor limit"));
}

TEST(GraphVerifier, OpTypeAndAttributeKeyAtTheirTableEnds) {
  // The newest op / attribute key of ABI 1.4 is valid; its COUNT marker is not.
  Graph g = Relu();
  g.ops[0].type = TSR_OP_COUNT_V1_4 - 1;
  EXPECT_EQ(VerifyGraph(g).message().find("unknown op type"), std::string_view::npos);
  g.ops[0].type = TSR_OP_COUNT_V1_4;
  EXPECT_THAT(Error(g), HasSubstr("unknown op type 54"));
  g = Relu();
  g.ops[0].attrs[TSR_ATTR_KEY_COUNT_V1_4 - 1] = Attribute{{1}, {}};
  EXPECT_EQ(Error(g), "(ok)");
  g.ops[0].attrs[TSR_ATTR_KEY_COUNT_V1_4] = Attribute{{1}, {}};
  EXPECT_THAT(Error(g), HasSubstr("unknown attribute key 38"));
  // The first keys of each minor are valid too (the ranges are contiguous).
  g = Relu();
  for (int32_t key :
       {int32_t{TSR_ATTR_KEY_COUNT_V1}, int32_t{TSR_ATTR_KEY_COUNT_V1_2}, int32_t{TSR_ATTR_KEY_COUNT_V1_3}})
    g.ops[0].attrs[key] = {{1}, {}};
  EXPECT_EQ(Error(g), "(ok)");
}

}  // namespace
}  // namespace tessera
