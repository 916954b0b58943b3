// Crafted ONNX files that used to corrupt memory, abort on std::bad_alloc
// or run for a minute in the importer's constant folding. Each builds the
// tiny model in code; the expected outcome is a clear error (or, where the
// op is legal, the value an independent hand computation gives).
#include <cstring>
#include <limits>

#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrInt;
using testing::Floats;
using testing::FloatTensor;
using ::testing::HasSubstr;
using testing::OnnxModelBuilder;
using testing::RunReference;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int64_t kTwo32 = int64_t{1} << 32;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

void ExpectExhausted(const absl::StatusOr<Graph>& g, const std::string& what) {
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kResourceExhausted) << g.status();
  EXPECT_THAT(g.status().message(), HasSubstr(what));
  EXPECT_THAT(g.status().message(), HasSubstr("import budget"));
}

// A graph that returns one constant: the value of a folded node (`inputs`
// for graph inputs the constant does not depend on).
std::vector<float> RunConstant(const Graph& g, const std::vector<HostTensor>& inputs = {}) {
  absl::StatusOr<std::vector<HostTensor>> out = RunReference(g, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->empty()) return {};
  return Floats((*out)[0]);
}

// rows * cols = 2^32 * 2^32 wrapped to 0: a 0-byte mask, then 2^64 writes.
TEST(OnnxImportLimits, TriluShapeThatWrapsIsRefused) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {kTwo32, kTwo32});
  b.Node("Trilu", {"x"}, {"y"});
  b.Output("y");
  ExpectExhausted(ImportOnnxBytes(b.Bytes()), "Trilu mask");
}

TEST(OnnxImportLimits, TriluMaskAboveTheBudgetIsRefused) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {65536, 65536});  // a 4 GiB mask
  b.Node("Trilu", {"x"}, {"y"});
  b.Output("y");
  ExpectExhausted(ImportOnnxBytes(b.Bytes()), "Trilu mask");
}

// k = INT64_MIN used to make j - i >= k overflow-free only by luck, and a
// k from a double outside int64 was undefined; extreme k still means
// "everything" (upper, k very negative) and "nothing" (upper, k huge).
TEST(OnnxImportLimits, TriluExtremeKKeepsItsMeaning) {
  for (int64_t k : {kInt64Min, int64_t{-1}, int64_t{1}, kInt64Max}) {
    OnnxModelBuilder b;
    b.Input("x", kFloat, {2, 3});
    b.Int64Init("k", {}, {k});
    b.Node("Trilu", {"x", "k"}, {"y"});
    b.Output("y");
    absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
    ASSERT_TRUE(g.ok()) << g.status();
    absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6})});
    ASSERT_TRUE(out.ok()) << out.status();
    // Upper triangle keeps x[i][j] where j - i >= k (hand-derived).
    std::vector<float> expected;
    if (k == kInt64Min) expected = {1, 2, 3, 4, 5, 6};
    if (k == -1) expected = {1, 2, 3, 4, 5, 6};
    if (k == 1) expected = {0, 2, 3, 0, 0, 6};
    if (k == kInt64Max) expected = {0, 0, 0, 0, 0, 0};
    EXPECT_EQ(Floats((*out)[0]), expected) << "k=" << k;
  }
}

TEST(OnnxImportLimits, EyeLikeShapeThatWrapsIsRefused) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {kTwo32, kTwo32});
  b.Node("EyeLike", {"x"}, {"y"});
  b.Output("y");
  ExpectExhausted(ImportOnnxBytes(b.Bytes()), "EyeLike");
}

// r + k overflowed for k near INT64_MAX (undefined behaviour; a wrapped
// column then wrote before the buffer).
TEST(OnnxImportLimits, EyeLikeExtremeKIsAllZeros) {
  for (int64_t k : {kInt64Min, int64_t{1}, kInt64Max}) {
    OnnxModelBuilder b;
    b.Input("x", kFloat, {3, 4});
    onnx::NodeProto& n = b.Node("EyeLike", {"x"}, {"y"});
    AttrInt(n, "k", k);
    b.Output("y");
    absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
    ASSERT_TRUE(g.ok()) << g.status();
    std::vector<float> expected(12, 0.0f);
    if (k == 1) expected[0 * 4 + 1] = expected[1 * 4 + 2] = expected[2 * 4 + 3] = 1;  // (r, r + 1)
    EXPECT_EQ(RunConstant(*g, {FloatTensor({3, 4}, std::vector<float>(12, 5.0f))}), expected) << "k=" << k;
  }
}

// An Expand to 3e9 elements used to allocate and fill 3 GB (56 s), and
// 2^62 elements aborted the process with std::length_error / bad_alloc.
TEST(OnnxImportLimits, ExpandAboveTheBudgetFailsFast) {
  for (int64_t n : {int64_t{3'000'000'000}, int64_t{1} << 62}) {
    OnnxModelBuilder b;
    b.Input("x", kFloat, {1});
    b.Int64Init("shape", {1}, {n});
    b.Node("Expand", {"x", "shape"}, {"y"});
    b.Output("y");
    // The budget error (not bad_alloc, not an abort) shows the check ran
    // before the allocation; no wall-clock assertion.
    absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
    ExpectExhausted(g, "Expand condition");
  }
}

TEST(OnnxImportLimits, DropoutMaskAboveTheBudgetIsRefused) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {kTwo32, kTwo32});
  b.Node("Dropout", {"x"}, {"y", "mask"});
  b.Output("y");
  b.Output("mask");
  ExpectExhausted(ImportOnnxBytes(b.Bytes()), "Dropout mask");
}

// The budget is the caller's: ConstantOfShape int64 [128] is 1024 bytes.
TEST(OnnxImportLimits, ConstantOfShapeObeysTheConfiguredBudget) {
  for (int64_t count : {int64_t{128}, int64_t{129}}) {
    OnnxModelBuilder b;
    b.Int64Init("shape", {1}, {count});
    onnx::NodeProto& n = b.Node("ConstantOfShape", {"shape"}, {"y"});
    onnx::AttributeProto* a = n.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
    a->mutable_t()->add_dims(1);
    a->mutable_t()->add_int64_data(7);
    b.Output("y");
    ImportOptions options;
    options.max_folded_constant_bytes = 1024;
    absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes(), options);
    if (count == 128) {
      ASSERT_TRUE(g.ok()) << g.status();
    } else {
      ExpectExhausted(g, "ConstantOfShape");
      EXPECT_THAT(g.status().message(), HasSubstr("1032 bytes"));
    }
  }
}

// A folded op's result obeys the same budget (Add of two constants).
TEST(OnnxImportLimits, FoldedOpResultObeysTheBudget) {
  OnnxModelBuilder b;
  b.FloatInit("a", {4, 1}, {1, 2, 3, 4});
  b.FloatInit("c", {1, 4}, {10, 20, 30, 40});
  b.Node("Add", {"a", "c"}, {"y"});  // [4, 4] f32: 64 bytes
  b.Output("y");
  ImportOptions options;
  options.max_folded_constant_bytes = 63;
  ExpectExhausted(ImportOnnxBytes(b.Bytes(), options), "ADD");
  options.max_folded_constant_bytes = 64;
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes(), options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(RunConstant(*g), (std::vector<float>{11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43, 14, 24, 34, 44}));
}

// The budget judges growth: a transpose, a reshape or a narrowing cast of
// a constant larger than the budget makes nothing new and is folded.
TEST(OnnxImportLimits, FoldsThatDoNotGrowAreNeverRefused) {
  OnnxModelBuilder b;
  b.FloatInit("w", {2, 3}, {1, 2, 3, 4, 5, 6});  // 24 bytes
  b.Node("Transpose", {"w"}, {"t"});
  b.Node("Flatten", {"t"}, {"f"});                                          // [3, 2] -> [3, 2]: a reshape of the fold
  AttrInt(b.Node("Cast", {"f"}, {"y"}), "to", onnx::TensorProto::FLOAT16);  // 12 bytes
  b.Output("y");
  ImportOptions options;
  options.max_folded_constant_bytes = 8;
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes(), options);
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].dtype, TSR_DTYPE_F16);
  // 1, 4, 2, 5, 3, 6 as IEEE binary16, little-endian.
  EXPECT_EQ((*out)[0].data,
            (std::vector<uint8_t>{0x00, 0x3C, 0x00, 0x44, 0x00, 0x40, 0x00, 0x45, 0x00, 0x42, 0x00, 0x46}));
}

// Each fold under the budget, the total growing with the node count: the
// running total of what folds added is bounded by the same budget. Each
// Add turns 32 bytes of inputs into 64 bytes: 32 bytes of growth.
TEST(OnnxImportLimits, TotalGrowthOfFoldsObeysTheBudget) {
  auto adds = [](int n) {
    OnnxModelBuilder b;
    b.FloatInit("a", {4, 1}, {1, 2, 3, 4});
    b.FloatInit("c", {1, 4}, {10, 20, 30, 40});
    for (int i = 0; i < n; ++i) b.Node("Add", {"a", "c"}, {"y" + std::to_string(i)});
    b.Output("y" + std::to_string(n - 1));
    return b.Bytes();
  };
  ImportOptions options;
  options.max_folded_constant_bytes = 100;
  EXPECT_TRUE(ImportOnnxBytes(adds(3), options).ok());             // 96 bytes of growth
  absl::StatusOr<Graph> four = ImportOnnxBytes(adds(4), options);  // 128
  ExpectExhausted(four, "all folded constants together");
  EXPECT_THAT(four.status().message(), HasSubstr("128 bytes"));
}

// limit - start overflowed int64 (undefined); a float Range's count
// (6e76) was cast to int64 (undefined).
TEST(OnnxImportLimits, RangeWhoseCountOverflowsIsRefused) {
  {
    OnnxModelBuilder b;
    b.Int64Init("s", {}, {kInt64Min});
    b.Int64Init("l", {}, {kInt64Max});
    b.Int64Init("d", {}, {1});
    b.Node("Range", {"s", "l", "d"}, {"y"});
    b.Output("y");
    absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
    ASSERT_FALSE(g.ok());
    EXPECT_THAT(g.status().message(), HasSubstr("overflows"));
  }
  {
    OnnxModelBuilder b;
    b.FloatInit("s", {}, {-3e38f});
    b.FloatInit("l", {}, {3e38f});
    b.FloatInit("d", {}, {1e-38f});
    b.Node("Range", {"s", "l", "d"}, {"y"});
    b.Output("y");
    absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
    ASSERT_FALSE(g.ok());
    EXPECT_THAT(g.status().message(), HasSubstr("not representable"));
  }
  {
    OnnxModelBuilder b;  // 2^40 elements: over the budget, before allocating
    b.Int64Init("s", {}, {0});
    b.Int64Init("l", {}, {int64_t{1} << 40});
    b.Int64Init("d", {}, {1});
    b.Node("Range", {"s", "l", "d"}, {"y"});
    b.Output("y");
    ExpectExhausted(ImportOnnxBytes(b.Bytes()), "Range");
  }
}

// A float Range running the wrong way is empty, however far (-6e76).
TEST(OnnxImportLimits, FloatRangeTheWrongWayIsEmpty) {
  OnnxModelBuilder b;
  b.FloatInit("s", {}, {3e38f});
  b.FloatInit("l", {}, {-3e38f});
  b.FloatInit("d", {}, {1e-38f});
  b.Node("Range", {"s", "l", "d"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->tensors[g->outputs[0]].shape, (std::vector<int64_t>{0}));
}

// The integer Range count is exact: ceil((limit - start) / delta).
TEST(OnnxImportLimits, RangeCountIsExact) {
  OnnxModelBuilder b;
  b.Int64Init("s", {}, {10});
  b.Int64Init("l", {}, {3});
  b.Int64Init("d", {}, {-3});
  b.Node("Range", {"s", "l", "d"}, {"r"});
  AttrInt(b.Node("Cast", {"r"}, {"y"}), "to", onnx::TensorProto::FLOAT);
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(RunConstant(*g), (std::vector<float>{10, 7, 4}));  // ceil(7 / 3) = 3 values
}

// Tile of an empty tensor multiplied a dimension by a huge repeat.
TEST(OnnxImportLimits, TileWhoseDimensionOverflowsIsRefused) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {3, 0});
  b.Int64Init("r", {2}, {int64_t{1} << 62, 1});
  b.Node("Tile", {"x", "r"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("overflows"));
}

// The product of the known Reshape dims overflowed (undefined).
TEST(OnnxImportLimits, ReshapeWhoseShapeOverflowsIsRefused) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {4});
  b.Int64Init("shape", {3}, {kTwo32, kTwo32, -1});
  b.Node("Reshape", {"x", "shape"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("overflows"));
}

// Gather on constants folds through the reference kernel; an index out of
// range is an error, not a read outside the data.
TEST(OnnxImportLimits, GatherFoldWithOutOfRangeIndexIsRefused) {
  OnnxModelBuilder b;
  b.FloatInit("data", {3}, {1, 2, 3});
  b.Int64Init("idx", {1}, {int64_t{1} << 40});
  b.Node("Gather", {"data", "idx"}, {"y"});
  b.Output("y");
  EXPECT_FALSE(ImportOnnxBytes(b.Bytes()).ok());
}

// blocksize * blocksize and H * blocksize overflowed.
TEST(OnnxImportLimits, DepthToSpaceWithHugeBlocksizeIsRefused) {
  for (const char* op : {"DepthToSpace", "SpaceToDepth"}) {
    OnnxModelBuilder b;
    b.Input("x", kFloat, {1, 4, 2, 2});
    AttrInt(b.Node(op, {"x"}, {"y"}), "blocksize", kTwo32);
    b.Output("y");
    absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
    ASSERT_FALSE(g.ok()) << op;
    EXPECT_THAT(g.status().message(), HasSubstr("blocksize too large")) << op;
  }
}

// The split sizes' sum overflowed and could wrap back to the dimension.
TEST(OnnxImportLimits, SplitSizesThatOverflowAreRefused) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {4});
  b.Int64Init("split", {3}, {kInt64Max, kInt64Max, 6});  // wraps to 4
  b.Node("Split", {"x", "split"}, {"a", "b", "c"});
  b.Output("a");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("overflow"));
}

TEST(OnnxImportLimits, NegativeBudgetIsRefused) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {1});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  ImportOptions options;
  options.max_folded_constant_bytes = -1;
  EXPECT_FALSE(ImportOnnxBytes(b.Bytes(), options).ok());
}

}  // namespace
}  // namespace tessera::onnx_import
