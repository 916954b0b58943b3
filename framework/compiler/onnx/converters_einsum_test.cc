// Einsum import: the common matmul forms against products written out by
// hand, and the refused forms with their reasons.
#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrString;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::FirstOutputFloats;
using testing::Floats;
using testing::FloatTensor;
using ::testing::HasSubstr;
using testing::OnnxModelBuilder;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

absl::StatusOr<Graph> EinsumModel(const std::string& eq, const std::vector<std::vector<int64_t>>& shapes) {
  OnnxModelBuilder b(12);
  std::vector<std::string> names;
  for (size_t i = 0; i < shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    b.Input(names.back(), kFloat, shapes[i]);
  }
  AttrString(b.Node("Einsum", names, {"y"}), "equation", eq);
  b.Output("y");
  return ImportOnnxBytes(b.Bytes());
}

TEST(OnnxEinsumImport, MatMulAndTransposedOperands) {
  // A = [[1, 2, 3], [4, 5, 6]], B = [[1, 0], [0, 1], [1, 1]]: AB = [[4, 5], [10, 11]].
  const HostTensor a = FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6});
  auto g = EinsumModel("ij,jk->ik", {{2, 3}, {3, 2}});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(FirstOutputFloats(*g, {a, FloatTensor({3, 2}, {1, 0, 0, 1, 1, 1})}), ElementsAre(4, 5, 10, 11));
  // B given as Bᵀ [2, 3] ("ij,kj->ik"), and the result transposed ("->ki").
  auto gt = EinsumModel("ij,kj->ki", {{2, 3}, {2, 3}});
  ASSERT_TRUE(gt.ok()) << gt.status();
  EXPECT_THAT(FirstOutputFloats(*gt, {a, FloatTensor({2, 3}, {1, 0, 1, 0, 1, 1})}), ElementsAre(4, 10, 5, 11));
}

TEST(OnnxEinsumImport, BatchedAndAttentionForms) {
  // b = 2 batches of [1, 2] · [2, 1].
  auto g = EinsumModel("bij,bjk->bik", {{2, 1, 2}, {2, 2, 1}});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(FirstOutputFloats(*g, {FloatTensor({2, 1, 2}, {1, 2, 3, 4}), FloatTensor({2, 2, 1}, {5, 6, 7, 8})}),
              ElementsAre(1 * 5 + 2 * 6, 3 * 7 + 4 * 8));
  // Q·Kᵀ per head: q[1,1,2,2] = [[1,2],[3,4]], k = [[1,1],[0,2]] -> [[3,4],[7,8]].
  auto att = EinsumModel("bhid,bhjd->bhij", {{1, 1, 2, 2}, {1, 1, 2, 2}});
  ASSERT_TRUE(att.ok()) << att.status();
  EXPECT_THAT(
      FirstOutputFloats(*att, {FloatTensor({1, 1, 2, 2}, {1, 2, 3, 4}), FloatTensor({1, 1, 2, 2}, {1, 1, 0, 2})}),
      ElementsAre(3, 4, 7, 8));
}

TEST(OnnxEinsumImport, InnerProductTransposeSumAndImplicitOutput) {
  auto dot = EinsumModel("i,i->", {{3}, {3}});
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_TRUE(dot->tensors[dot->outputs[0]].shape.empty());
  EXPECT_THAT(FirstOutputFloats(*dot, {FloatTensor({3}, {1, 2, 3}), FloatTensor({3}, {4, 5, 6})}), ElementsAre(32));
  const HostTensor m = FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6});
  auto tr = EinsumModel("ij->ji", {{2, 3}});
  ASSERT_TRUE(tr.ok()) << tr.status();
  EXPECT_THAT(FirstOutputFloats(*tr, {m}), ElementsAre(1, 4, 2, 5, 3, 6));
  auto rows = EinsumModel("ij->i", {{2, 3}});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(FirstOutputFloats(*rows, {m}), ElementsAre(6, 15));
  // Implicit output: letters used once, alphabetically: "ji" -> "ij", a transpose.
  auto implicit = EinsumModel("ji", {{2, 3}});
  ASSERT_TRUE(implicit.ok()) << implicit.status();
  EXPECT_EQ(implicit->tensors[implicit->outputs[0]].shape, (std::vector<int64_t>{3, 2}));
  EXPECT_THAT(FirstOutputFloats(*implicit, {m}), ElementsAreArray({1, 4, 2, 5, 3, 6}));
  // An outer product (nothing contracted), and a letter summed in A only.
  auto outer = EinsumModel("i,j->ij", {{2}, {2}});
  ASSERT_TRUE(outer.ok()) << outer.status();
  EXPECT_THAT(FirstOutputFloats(*outer, {FloatTensor({2}, {1, 2}), FloatTensor({2}, {3, 4})}), ElementsAre(3, 4, 6, 8));
  auto summed = EinsumModel("ij,k->k", {{2, 3}, {2}});
  ASSERT_TRUE(summed.ok()) << summed.status();
  EXPECT_THAT(FirstOutputFloats(*summed, {m, FloatTensor({2}, {1, -1})}), ElementsAre(21, -21));
}

TEST(OnnxEinsumImport, RefusedFormsSayWhy) {
  auto diag = EinsumModel("bii->bi", {{1, 2, 2}});
  EXPECT_EQ(diag.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(diag.status().message(), HasSubstr("diagonal"));
  auto ellipsis = EinsumModel("...ij,...jk->...ik", {{2, 2}, {2, 2}});
  EXPECT_EQ(ellipsis.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(ellipsis.status().message(), HasSubstr("ellipsis"));
  auto three = EinsumModel("i,i,i->", {{2}, {2}, {2}});
  EXPECT_EQ(three.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(three.status().message(), HasSubstr("3 operands"));
  auto sizes = EinsumModel("ij,jk->ik", {{2, 3}, {2, 2}});
  EXPECT_EQ(sizes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(sizes.status().message(), HasSubstr("letter 'j'"));
}

}  // namespace
}  // namespace tessera::onnx_import
