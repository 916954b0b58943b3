#include "framework/core/graph/graph_operands.h"

#include <vector>

#include "framework/core/model/model_builder.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

std::vector<int32_t> Vec(std::span<const int32_t> s) { return {s.begin(), s.end()}; }

TEST(GraphOperands, MatchesTheOpsOperandsAndProducers) {
  ModelBuilder b("g");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  const int32_t y = b.Op(TSR_OP_RELU, {x});
  const int32_t z = b.Op(TSR_OP_ADD, {x, y});
  b.Output(z);
  const Graph g = *std::move(b).Build();
  const GraphOperands ops(g);
  ASSERT_EQ(ops.op_count(), g.ops.size());
  EXPECT_EQ(ops.tensor_count(), g.tensors.size());
  for (size_t o = 0; o < g.ops.size(); ++o) {
    EXPECT_EQ(Vec(ops.inputs(o)), g.ops[o].inputs) << o;
    EXPECT_EQ(Vec(ops.outputs(o)), g.ops[o].outputs) << o;
    EXPECT_FALSE(ops.is_dispatch(o));
  }
  EXPECT_EQ(ops.producer(), g.ProducerIndex());
}

TEST(GraphOperands, KeepsOmittedInputsAndMarksDispatchOps) {
  Graph g;
  g.tensors.resize(3);
  Op first;
  first.type = TSR_OP_DISPATCH;
  first.inputs = {0, -1};
  first.outputs = {1};
  Op second;
  second.type = TSR_OP_RELU;
  second.inputs = {1};
  second.outputs = {2, 7};  // an id out of range produces nothing
  g.ops = {first, second};
  const GraphOperands ops(g);
  EXPECT_EQ(Vec(ops.inputs(0)), (std::vector<int32_t>{0, -1}));
  EXPECT_TRUE(ops.is_dispatch(0));
  EXPECT_FALSE(ops.is_dispatch(1));
  EXPECT_EQ(Vec(ops.outputs(1)), (std::vector<int32_t>{2, 7}));
  EXPECT_EQ(ops.producer(), (std::vector<int32_t>{-1, 0, 1}));
}

TEST(GraphOperands, VisitsEachOpOnceInOrderInTheSamePass) {
  ModelBuilder b("g");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  const int32_t y = b.Op(TSR_OP_RELU, {x});
  const int32_t z = b.Op(TSR_OP_ADD, {x, y});
  b.Output(b.Op(TSR_OP_MUL, {y, z}));
  const Graph g = *std::move(b).Build();
  std::vector<size_t> visited;
  std::vector<int32_t> types;
  const GraphOperands ops(g, [&](size_t o, const Op& op) {
    EXPECT_EQ(&op, &g.ops[o]);  // the graph's own op, not a copy
    visited.push_back(o);
    types.push_back(op.type);
  });
  EXPECT_EQ(visited, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(types, (std::vector<int32_t>{TSR_OP_RELU, TSR_OP_ADD, TSR_OP_MUL}));
  // The lists are the plain constructor's.
  const GraphOperands plain(g);
  for (size_t o = 0; o < g.ops.size(); ++o) {
    EXPECT_EQ(Vec(ops.inputs(o)), Vec(plain.inputs(o))) << o;
    EXPECT_EQ(Vec(ops.outputs(o)), Vec(plain.outputs(o))) << o;
  }
  EXPECT_EQ(Vec(ops.inputs(2)), (std::vector<int32_t>{y, z}));
  EXPECT_EQ(ops.producer(), plain.producer());
}

}  // namespace
}  // namespace tessera
