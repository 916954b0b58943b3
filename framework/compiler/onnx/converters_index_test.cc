// ArgMax / ArgMin / TopK / CumSum import: the op and attributes the
// converters write, and outputs worked by hand from the ONNX definitions.
#include <cstring>

#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "tessera/ops.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrInt;
using ::testing::ElementsAre;
using testing::Floats;
using testing::FloatTensor;
using ::testing::HasSubstr;
using testing::OnnxModelBuilder;
using testing::RunReference;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

std::vector<int64_t> I64s(const HostTensor& t) {
  EXPECT_EQ(t.dtype, TSR_DTYPE_I64);
  std::vector<int64_t> v(t.data.size() / 8);
  if (!v.empty()) std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

TEST(OnnxIndexImport, ArgMaxLastIndexAndArgMinNoKeepdims) {
  OnnxModelBuilder b(13);
  b.Input("x", kFloat, {2, 3});
  onnx::NodeProto& mx = b.Node("ArgMax", {"x"}, {"imax"});
  AttrInt(mx, "axis", -1);
  AttrInt(mx, "select_last_index", 1);
  onnx::NodeProto& mn = b.Node("ArgMin", {"x"}, {"imin"});
  AttrInt(mn, "keepdims", 0);  // axis 0
  b.Output("imax");
  b.Output("imin");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->ops[0].type, TSR_OP_ARG_MAX);
  EXPECT_EQ(g->ops[0].FindAttr(TSR_ATTR_AXIS)->ints, (std::vector<int64_t>{1}));
  EXPECT_EQ(g->tensors[g->outputs[0]].shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(g->tensors[g->outputs[1]].shape, (std::vector<int64_t>{3}));
  // Rows [4, 9, 9] and [0, -2, 0]; columns [4, 0], [9, -2], [9, 0].
  auto y = RunReference(*g, {FloatTensor({2, 3}, {4, 9, 9, 0, -2, 0})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(I64s((*y)[0]), ElementsAre(2, 2));
  EXPECT_THAT(I64s((*y)[1]), ElementsAre(1, 1, 1));
}

TEST(OnnxIndexImport, TopKReadsKFromItsInput) {
  OnnxModelBuilder b(11);
  b.Input("x", kFloat, {2, 4});
  b.Int64Init("k", {1}, {2});
  onnx::NodeProto& n = b.Node("TopK", {"x", "k"}, {"v", "i"});
  AttrInt(n, "largest", 0);
  b.Output("v");
  b.Output("i");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->ops.size(), 1u);
  EXPECT_EQ(g->ops[0].type, TSR_OP_TOP_K);
  EXPECT_EQ(g->ops[0].FindAttr(TSR_ATTR_K)->ints, (std::vector<int64_t>{2}));
  EXPECT_EQ(g->ops[0].FindAttr(TSR_ATTR_AXIS)->ints, (std::vector<int64_t>{1}));  // default -1
  EXPECT_EQ(g->tensors[g->outputs[1]].dtype, TSR_DTYPE_I64);
  // Smallest two per row of [[3, 1, 2, 1], [0, 5, -1, 7]]; the tie 1, 1
  // keeps index order.
  auto y = RunReference(*g, {FloatTensor({2, 4}, {3, 1, 2, 1, 0, 5, -1, 7})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Floats((*y)[0]), ElementsAre(1, 1, -1, 0));
  EXPECT_THAT(I64s((*y)[1]), ElementsAre(1, 3, 2, 0));
}

TEST(OnnxIndexImport, TopKRefusesARuntimeKAndAKTooLarge) {
  OnnxModelBuilder b(11);
  b.Input("x", kFloat, {4});
  b.Input("k", onnx::TensorProto::INT64, {1});
  b.Node("TopK", {"x", "k"}, {"v", "i"});
  b.Output("v");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(g.status().message(), HasSubstr("must be a constant"));
  OnnxModelBuilder b2(11);
  b2.Input("x", kFloat, {4});
  b2.Int64Init("k", {1}, {5});
  b2.Node("TopK", {"x", "k"}, {"v", "i"});
  b2.Output("v");
  g = ImportOnnxBytes(b2.Bytes());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(g.status().message(), HasSubstr("axis length"));
}

TEST(OnnxIndexImport, CumSumReverseExclusiveAlongAxis1) {
  OnnxModelBuilder b(14);
  b.Input("x", kFloat, {2, 3});
  b.Int64Init("axis", {}, {1});
  onnx::NodeProto& n = b.Node("CumSum", {"x", "axis"}, {"y"});
  AttrInt(n, "reverse", 1);
  AttrInt(n, "exclusive", 1);
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->ops[0].type, TSR_OP_CUM_SUM);
  // Row [1, 2, 3]: sums of the elements after each one: 5, 3, 0.
  auto y = RunReference(*g, {FloatTensor({2, 3}, {1, 2, 3, 10, 20, 30})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_THAT(Floats((*y)[0]), ElementsAre(5, 3, 0, 50, 30, 0));
}

}  // namespace
}  // namespace tessera::onnx_import
