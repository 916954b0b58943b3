#include "framework/compiler/claims/graph_view_impl.h"

#include <algorithm>
#include <random>
#include <set>

#include "framework/core/model/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

// Global tensors:
//   0 x  f32[2,4]   graph input
//   1 c1 f32[2,4]   constant
//   2 c2 f32[4]     constant
//   3 a  = ADD(x, c1)                 op 0
//   4 b  = CLIP(a) {clip_min, clip_max} op 1   (also a graph output)
//   5 d  = MUL(b, c2)                 op 2
//   6 e  = SOFTMAX(d) {axis=-1}       op 3   graph output
class GraphViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ModelBuilder b("view");
    const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 4});
    const int32_t c1 = b.Constant<float>("c1", {2, 4}, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
    const int32_t c2 = b.Constant<float>("c2", {4}, std::vector<float>{0.5f, 1, 2, 4}, Quantization{{0.25f}, {0}, -1});
    const int32_t a = b.Op(TSR_OP_ADD, {x, c1}, {}, {.name = "a"});
    const int32_t bb =
        b.Op(TSR_OP_CLIP, {a}, {{TSR_ATTR_CLIP_MIN, Floats({0.f})}, {TSR_ATTR_CLIP_MAX, Floats({6.f})}}, {.name = "b"});
    const int32_t d = b.Op(TSR_OP_MUL, {bb, c2}, {}, {.name = "d"});
    const int32_t e = b.Op(TSR_OP_SOFTMAX, {d}, {{TSR_ATTR_AXIS, Ints({-1})}}, {.name = "e"});
    b.Output(e);
    b.Output(bb);
    absl::StatusOr<Graph> g = std::move(b).Build();
    ASSERT_TRUE(g.ok()) << g.status();
    graph_ = *std::move(g);
    api_ = GraphViewApi();
  }

  std::vector<std::string> Names(const GraphView& v, const std::vector<int32_t>& locals) {
    std::vector<std::string> out;
    for (int32_t t : locals) out.push_back(api_->tensor_name(v.handle(), t));
    return out;
  }

  Graph graph_;
  const tsr_graph_view_api* api_ = nullptr;
};

TEST_F(GraphViewTest, TableHeader) {
  EXPECT_EQ(api_->header.struct_size, sizeof(tsr_graph_view_api));
  EXPECT_EQ(api_->header.major, TSR_ABI_VERSION_MAJOR);
  EXPECT_EQ(api_->header.minor, TSR_ABI_VERSION_MINOR);
}

TEST_F(GraphViewTest, MiddlePartitionBoundaryAndRenumbering) {
  GraphView v = GraphView::Partition(graph_, {1, 2});
  tsr_graph g = v.handle();
  // Local tensors in first-use order: a, b, c2, d.
  EXPECT_EQ(v.tensors(), (std::vector<int32_t>{3, 4, 2, 5}));
  ASSERT_EQ(api_->tensor_count(g), 4u);
  EXPECT_EQ(Names(v, {0, 1, 2, 3}), (std::vector<std::string>{"a", "b", "c2", "d"}));
  EXPECT_EQ(v.Local(3), 0);
  EXPECT_EQ(v.Local(0), -1);  // x is not part of this view
  // Boundary: a comes from op 0; b is a graph output; d feeds op 3.
  ASSERT_EQ(api_->input_count(g), 1u);
  EXPECT_EQ(api_->input(g, 0), 0);
  ASSERT_EQ(api_->output_count(g), 2u);
  EXPECT_EQ(Names(v, {api_->output(g, 0), api_->output(g, 1)}), (std::vector<std::string>{"b", "d"}));
  // Ops, with local indices and global ids.
  ASSERT_EQ(api_->op_count(g), 2u);
  EXPECT_EQ(api_->op_type(g, 0), TSR_OP_CLIP);
  EXPECT_EQ(api_->op_type(g, 1), TSR_OP_MUL);
  EXPECT_EQ(api_->op_id(g, 0), graph_.ops[1].id);
  EXPECT_EQ(api_->op_id(g, 1), graph_.ops[2].id);
  ASSERT_EQ(api_->op_input_count(g, 1), 2u);
  EXPECT_EQ(api_->op_input(g, 1, 0), 1);  // b
  EXPECT_EQ(api_->op_input(g, 1, 1), 2);  // c2
  ASSERT_EQ(api_->op_output_count(g, 1), 1u);
  EXPECT_EQ(api_->op_output(g, 1, 0), 3);  // d
}

TEST_F(GraphViewTest, FirstAndLastPartitions) {
  GraphView first = GraphView::Partition(graph_, {0});
  EXPECT_EQ(Names(first, first.inputs()), (std::vector<std::string>{"x"}));  // c1 is a constant, not an input
  EXPECT_EQ(Names(first, first.outputs()), (std::vector<std::string>{"a"}));
  GraphView last = GraphView::Partition(graph_, {3});
  EXPECT_EQ(Names(last, last.inputs()), (std::vector<std::string>{"d"}));
  EXPECT_EQ(Names(last, last.outputs()), (std::vector<std::string>{"e"}));
  GraphView whole = GraphView::Whole(graph_);
  EXPECT_EQ(whole.ops(), (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(Names(whole, whole.inputs()), (std::vector<std::string>{"x"}));
  EXPECT_EQ(Names(whole, whole.outputs()), (std::vector<std::string>{"b", "e"}));
  EXPECT_EQ(api_->tensor_count(whole.handle()), graph_.tensors.size());
}

TEST_F(GraphViewTest, TensorsShapesQuantAndConstantData) {
  GraphView v = GraphView::Partition(graph_, {1, 2});
  tsr_graph g = v.handle();
  const int32_t c2 = v.Local(2);
  ASSERT_GE(c2, 0);
  EXPECT_EQ(api_->tensor_dtype(g, c2), TSR_DTYPE_F32);
  const int64_t* dims = nullptr;
  size_t rank = 0;
  ASSERT_EQ(api_->tensor_shape(g, c2, &dims, &rank), TSR_OK);
  ASSERT_EQ(rank, 1u);
  EXPECT_EQ(dims[0], 4);
  // Constant data is the graph's own span, not a copy.
  const void* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(api_->tensor_constant_data(g, c2, &data, &size), TSR_OK);
  EXPECT_EQ(data, graph_.tensors[2].data.data());
  EXPECT_EQ(size, graph_.tensors[2].data.size());
  EXPECT_EQ(api_->tensor_constant_data(g, v.Local(3), &data, &size), TSR_NOT_FOUND);
  tsr_quantization q{};
  ASSERT_EQ(api_->tensor_quantization(g, c2, &q), TSR_OK);
  ASSERT_EQ(q.count, 1u);
  EXPECT_EQ(q.scales[0], 0.25f);
  EXPECT_EQ(q.zero_points[0], 0);
  ASSERT_EQ(api_->tensor_quantization(g, v.Local(3), &q), TSR_OK);
  EXPECT_EQ(q.count, 0u);
}

TEST_F(GraphViewTest, AttributesThroughTheTable) {
  GraphView v = GraphView::Partition(graph_, {1, 2, 3});
  tsr_graph g = v.handle();
  const float* floats = nullptr;
  size_t count = 0;
  ASSERT_EQ(api_->op_attr_floats(g, 0, TSR_ATTR_CLIP_MAX, &floats, &count), TSR_OK);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(floats[0], 6.f);
  ASSERT_EQ(api_->op_attr_floats(g, 0, TSR_ATTR_CLIP_MIN, &floats, &count), TSR_OK);
  EXPECT_EQ(floats[0], 0.f);
  const int64_t* ints = nullptr;
  ASSERT_EQ(api_->op_attr_ints(g, 2, TSR_ATTR_AXIS, &ints, &count), TSR_OK);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(ints[0], -1);
  // Absent, or of the other kind: NOT_FOUND, outputs untouched.
  ints = nullptr;
  count = 77;
  EXPECT_EQ(api_->op_attr_ints(g, 0, TSR_ATTR_CLIP_MAX, &ints, &count), TSR_NOT_FOUND);
  EXPECT_EQ(api_->op_attr_floats(g, 2, TSR_ATTR_AXIS, &floats, &count), TSR_NOT_FOUND);
  EXPECT_EQ(api_->op_attr_ints(g, 1, TSR_ATTR_AXIS, &ints, &count), TSR_NOT_FOUND);
  EXPECT_EQ(ints, nullptr);
  EXPECT_EQ(count, 77u);
}

TEST_F(GraphViewTest, OutOfRangeIndicesDoNotCrash) {
  GraphView v = GraphView::Partition(graph_, {1, 2});
  tsr_graph g = v.handle();
  const size_t big = 1u << 20;
  EXPECT_EQ(api_->op_type(g, 2), TSR_OP_UNKNOWN);
  EXPECT_EQ(api_->op_type(g, big), TSR_OP_UNKNOWN);
  EXPECT_EQ(api_->op_input_count(g, big), 0u);
  EXPECT_EQ(api_->op_output_count(g, big), 0u);
  EXPECT_EQ(api_->op_input(g, 0, 5), TSR_NO_TENSOR);
  EXPECT_EQ(api_->op_input(g, big, 0), TSR_NO_TENSOR);
  EXPECT_EQ(api_->op_output(g, 0, 1), TSR_NO_TENSOR);
  EXPECT_EQ(api_->op_output(g, big, 0), TSR_NO_TENSOR);
  EXPECT_EQ(api_->op_id(g, big), 0u);
  const int64_t* ints = nullptr;
  const float* floats = nullptr;
  size_t count = 0;
  EXPECT_EQ(api_->op_attr_ints(g, big, TSR_ATTR_AXIS, &ints, &count), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(api_->op_attr_floats(g, big, TSR_ATTR_CLIP_MIN, &floats, &count), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(api_->op_attr_floats(g, 0, TSR_ATTR_CLIP_MIN, nullptr, &count), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(api_->op_attr_ints(g, 0, TSR_ATTR_AXIS, &ints, nullptr), TSR_INVALID_ARGUMENT);
  for (int32_t t : {4, 1000, -1, -5, INT32_MIN}) {
    EXPECT_STREQ(api_->tensor_name(g, t), "") << t;
    EXPECT_EQ(api_->tensor_dtype(g, t), TSR_DTYPE_UNKNOWN) << t;
    const int64_t* dims = nullptr;
    size_t rank = 0;
    EXPECT_EQ(api_->tensor_shape(g, t, &dims, &rank), TSR_INVALID_ARGUMENT) << t;
    tsr_quantization q{};
    EXPECT_EQ(api_->tensor_quantization(g, t, &q), TSR_INVALID_ARGUMENT) << t;
    const void* data = nullptr;
    size_t size = 0;
    EXPECT_EQ(api_->tensor_constant_data(g, t, &data, &size), TSR_INVALID_ARGUMENT) << t;
  }
  EXPECT_EQ(api_->tensor_shape(g, 0, nullptr, nullptr), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(api_->tensor_quantization(g, 0, nullptr), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(api_->tensor_constant_data(g, 0, nullptr, nullptr), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(api_->input(g, 1), TSR_NO_TENSOR);
  EXPECT_EQ(api_->input(g, big), TSR_NO_TENSOR);
  EXPECT_EQ(api_->output(g, 2), TSR_NO_TENSOR);
  // A NULL graph handle reads as an empty graph.
  EXPECT_EQ(api_->op_count(nullptr), 0u);
  EXPECT_EQ(api_->tensor_count(nullptr), 0u);
  EXPECT_EQ(api_->input_count(nullptr), 0u);
  EXPECT_EQ(api_->output_count(nullptr), 0u);
  EXPECT_EQ(api_->op_type(nullptr, 0), TSR_OP_UNKNOWN);
  EXPECT_STREQ(api_->tensor_name(nullptr, 0), "");
  EXPECT_EQ(api_->input(nullptr, 0), TSR_NO_TENSOR);
}

TEST_F(GraphViewTest, OmittedOptionalInput) {
  ModelBuilder b("opt");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {1, 3, 4, 4});
  const int32_t w = b.Constant<float>("w", {2, 3, 1, 1}, std::vector<float>(6, 1.f));
  const int32_t y = b.Op(TSR_OP_CONV_2D, {x, w, -1});
  b.Output(y);
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok()) << g.status();
  GraphView v = GraphView::Whole(*g);
  ASSERT_EQ(api_->op_input_count(v.handle(), 0), 3u);
  EXPECT_EQ(api_->op_input(v.handle(), 0, 2), TSR_NO_TENSOR);
  EXPECT_EQ(api_->tensor_count(v.handle()), 3u);  // x, w, y: no slot for the omitted bias
}

TEST(GraphViewPartition, SharedUsesGiveTheBoundaryOfABruteForceScan) {
  // Views made from one GraphUses (O(partition) each) against the
  // definition, by scanning the whole graph: inputs are tensors read here
  // and made elsewhere (not constants); outputs are tensors made here and
  // read outside or leaving the graph.
  std::mt19937 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    ModelBuilder b("random");
    std::vector<int32_t> live = {b.Input("x", TSR_DTYPE_F32, {4}),
                                 b.Constant<float>("c", {4}, std::vector<float>{1, 2, 3, 4})};
    const int n = 2 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i)
      live.push_back(b.Op(TSR_OP_ADD, {live[rng() % live.size()], live[rng() % live.size()]}));
    b.Output(live.back());
    b.Output(live[2 + rng() % n]);
    Graph g = *std::move(b).Build();
    const GraphUses uses(g);
    std::vector<int32_t> ops;
    for (int o = 0; o < n; ++o)
      if (rng() % 2) ops.push_back(o);
    GraphView v = GraphView::Partition(g, ops, uses);
    std::set<int32_t> in(ops.begin(), ops.end()), made, want_inputs, want_outputs, got_inputs, got_outputs;
    for (int32_t o : ops) made.insert(g.ops[o].outputs.begin(), g.ops[o].outputs.end());
    for (int32_t o : ops)
      for (int32_t t : g.ops[o].inputs)
        if (!made.count(t) && !g.tensors[t].is_constant) want_inputs.insert(t);
    for (int32_t t : made) {
      bool outside = std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end();
      for (int o = 0; o < n; ++o)
        if (!in.count(o) && std::find(g.ops[o].inputs.begin(), g.ops[o].inputs.end(), t) != g.ops[o].inputs.end())
          outside = true;
      if (outside) want_outputs.insert(t);
    }
    for (int32_t l : v.inputs()) got_inputs.insert(v.tensors()[l]);
    for (int32_t l : v.outputs()) got_outputs.insert(v.tensors()[l]);
    EXPECT_EQ(got_inputs, want_inputs) << "trial " << trial;
    EXPECT_EQ(got_outputs, want_outputs) << "trial " << trial;
    EXPECT_EQ(v.inputs().size(), want_inputs.size()) << "an input listed twice";
    EXPECT_EQ(v.outputs().size(), want_outputs.size()) << "an output listed twice";
  }
}

}  // namespace
}  // namespace tessera
