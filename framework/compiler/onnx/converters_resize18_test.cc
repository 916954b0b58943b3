// Resize-18/19 import (axes, keep_aspect_ratio_policy, antialias,
// half_pixel_symmetric), run on the cpu reference kernels. The expected
// values come from ONNX Runtime 1.30 (CPU provider), printed by
//   NODE_PATH=DIR/node_modules node framework/compiler/onnx/testdata/resize18_ort_vectors.js
// (the script's header says how to install DIR); its cases use the same
// inputs as Input() here.
#include <algorithm>
#include <cmath>
#include <string>
#include <variant>

#include "framework/compiler/onnx/constant_folding.h"
#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "tessera/ops.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrInt;
using testing::AttrInts;
using testing::AttrString;
using testing::Floats;
using testing::FloatTensor;
using ::testing::HasSubstr;
using testing::OnnxModelBuilder;
using testing::OpTypes;
using testing::RunReference;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

// ((7k) mod 23) / 4 − 2, as resize18_ort_vectors.js's Input().
std::vector<float> Input(int64_t count) {
  std::vector<float> v(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) v[k] = static_cast<float>((7 * k) % 23) / 4 - 2;
  return v;
}

int64_t Count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

using AttrValue = std::variant<int64_t, std::string, std::vector<int64_t>>;

struct Case {
  int64_t opset = 18;
  std::vector<int64_t> shape;
  std::vector<float> scales;  // or
  std::vector<int64_t> sizes;
  std::map<std::string, AttrValue> attrs;
};

std::vector<uint8_t> Model(const Case& c) {
  OnnxModelBuilder b(c.opset);
  b.Input("x", kFloat, c.shape);
  std::vector<std::string> inputs = {"x", ""};
  if (!c.scales.empty()) {
    b.FloatInit("scales", {static_cast<int64_t>(c.scales.size())}, c.scales);
    inputs.push_back("scales");
  } else {
    b.Int64Init("sizes", {static_cast<int64_t>(c.sizes.size())}, c.sizes);
    inputs.insert(inputs.end(), {"", "sizes"});
  }
  onnx::NodeProto& n = b.Node("Resize", inputs, {"y"});
  for (const auto& [name, v] : c.attrs) {
    if (const int64_t* i = std::get_if<int64_t>(&v)) AttrInt(n, name, *i);
    if (const std::string* s = std::get_if<std::string>(&v)) AttrString(n, name, *s);
    if (const auto* ints = std::get_if<std::vector<int64_t>>(&v)) AttrInts(n, name, *ints);
  }
  b.Output("y");
  return b.Bytes();
}

absl::StatusOr<Graph> Import(const Case& c, const ImportOptions& options = {}) {
  return ImportOnnxBytes(Model(c), options);
}

// Imports c, checks the output shape and runs it on Input(); the values
// must match ORT's within 1e-5 relative (1e-6 absolute near 0).
Graph ExpectOrtValues(const Case& c, const std::vector<int64_t>& out_shape, const std::vector<float>& ort) {
  absl::StatusOr<Graph> g = Import(c);
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return {};
  EXPECT_EQ(g->tensors[g->outputs[0]].shape, out_shape);
  absl::StatusOr<std::vector<HostTensor>> y = RunReference(*g, {FloatTensor(c.shape, Input(Count(c.shape)))});
  EXPECT_TRUE(y.ok()) << y.status();
  if (!y.ok()) return *g;
  const std::vector<float> got = Floats((*y)[0]);
  EXPECT_EQ(got.size(), ort.size());
  for (size_t i = 0; i < got.size() && i < ort.size(); ++i)
    EXPECT_NEAR(got[i], ort[i], std::max(1e-6, 1e-5 * std::fabs(ort[i]))) << "element " << i;
  return *g;
}

bool Has(const Graph& g, int32_t op) {
  for (int32_t t : OpTypes(g))
    if (t == op) return true;
  return false;
}

// Before Resize-18 support, antialias = 1 imported as a plain RESIZE (wrong
// numbers, no error): it is now per-axis MATMULs with ORT's values.
TEST(OnnxResize18Import, LinearAntialiasDownscaleMatchesOrt) {
  const Graph g =
      ExpectOrtValues({18, {1, 1, 4, 6}, {1, 1, 0.5f, 0.5f}, {}, {{"mode", "linear"}, {"antialias", 1}}}, {1, 1, 2, 3},
                      {0.17578125f, 1.2109375f, 0.26953125f, 1.48046875f, 0.5390625f, 0.13671875f});
  EXPECT_FALSE(Has(g, TSR_OP_RESIZE));
  EXPECT_TRUE(Has(g, TSR_OP_MATMUL));
}

TEST(OnnxResize18Import, CubicAntialiasMatchesOrt) {
  ExpectOrtValues({18, {1, 1, 4, 6}, {1, 1, 0.5f, 0.5f}, {}, {{"mode", "cubic"}, {"antialias", 1}}}, {1, 1, 2, 3},
                  {0.0223617554f, 1.42558861f, 0.177635193f, 1.77451324f, 0.498132706f, 0.290138245f});
  ExpectOrtValues(
      {18, {1, 1, 4, 6}, {1, 1, 0.6f, 0.6f}, {}, {{"mode", "cubic"}, {"antialias", 1}, {"exclude_outside", 1}}},
      {1, 1, 2, 3}, {-0.485924393f, 1.31928253f, 0.608493745f, 2.12192917f, 0.367897093f, 1.15884256f});
}

TEST(OnnxResize18Import, AntialiasOnAMiddleAxisAndANegativeAxis) {
  ExpectOrtValues(
      {18, {1, 2, 5, 3}, {0.4f}, {}, {{"mode", "cubic"}, {"antialias", 1}, {"axes", std::vector<int64_t>{2}}}},
      {1, 2, 2, 3},
      {1.0981257f, -0.972750247f, 1.13950002f, 2.47274995f, 0.401874363f, -0.139499962f, 0.889500022f, 2.63950038f,
       -1.51862538f, -0.389499962f, 1.36049998f, 1.90299988f});
  ExpectOrtValues({18,
                   {1, 1, 4, 6},
                   {0.5f},
                   {},
                   {{"mode", "linear"},
                    {"antialias", 1},
                    {"axes", std::vector<int64_t>{-1}},
                    {"coordinate_transformation_mode", "pytorch_half_pixel"}}},
                  {1, 1, 4, 3},
                  {-0.90625f, 1.65625f, 0.625f, 0.96875f, 0.65625f, -0.375f, 2.125f, 1.09375f, 0.78125f, 1.125f,
                   0.09375f, -0.21875f});
}

TEST(OnnxResize18Import, AxesWithSizes) {
  ExpectOrtValues(
      {18, {1, 1, 4, 6}, {}, {3, 2}, {{"mode", "linear"}, {"antialias", 1}, {"axes", std::vector<int64_t>{2, 3}}}},
      {1, 1, 3, 2}, {0.194444507f, 0.699495018f, 1.31944454f, 0.430555612f, 1.05050528f, 0.161616266f});
}

// keep_aspect_ratio_policy: one scale (min / max of sizes / in over the
// axes), sizes round half up from it, and the scale drives the transform.
TEST(OnnxResize18Import, KeepAspectRatioPolicy) {
  ExpectOrtValues({18,
                   {1, 1, 4, 6},
                   {},
                   {3, 3},
                   {{"mode", "linear"},
                    {"antialias", 1},
                    {"axes", std::vector<int64_t>{2, 3}},
                    {"keep_aspect_ratio_policy", "not_larger"}}},
                  {1, 1, 2, 3},  // scale min(3/4, 3/6) = 0.5
                  {0.17578125f, 1.2109375f, 0.26953125f, 1.48046875f, 0.5390625f, 0.13671875f});
  ExpectOrtValues(
      {18,
       {1, 1, 4, 6},
       {},
       {3, 3},
       {{"mode", "linear"}, {"axes", std::vector<int64_t>{2, 3}}, {"keep_aspect_ratio_policy", "not_smaller"}}},
      {1, 1, 3, 5},  // scale max(3/4, 3/6) = 0.75: 6 · 0.75 = 4.5 rounds up to 5
      {-1.07638872f, 0.458333313f, 2.79166651f, -0.625000238f, 0.833333313f, 2.0625f, 0.5625f, 1.45833313f,
       0.437500179f, -0.5f, 1.20833349f, 0.666666687f, 0.124999955f, 1.50000072f, -1.83333325f});
  // align_corners with that scale: ONNX's reference divides by the resized
  // length 0.75 · 6 − 1 = 3.5, not by out − 1 = 4 (where ORT 1.30 differs);
  // expected from the bilinear formula at x' = x · 5 / 3.5, y' = y · 3 / 2.
  absl::StatusOr<Graph> g = Import({18,
                                    {1, 1, 4, 6},
                                    {},
                                    {3, 3},
                                    {{"mode", "linear"},
                                     {"axes", std::vector<int64_t>{2, 3}},
                                     {"keep_aspect_ratio_policy", "not_smaller"},
                                     {"coordinate_transformation_mode", "align_corners"}}});
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<HostTensor>> y = RunReference(*g, {FloatTensor({1, 1, 4, 6}, Input(24))});
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<float> in = Input(24), got = Floats((*y)[0]);
  ASSERT_EQ(got.size(), 15u);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c) {
      const double yr = r * 1.5, xc = c * 5 / 3.5;
      const int y0 = static_cast<int>(yr), x0 = static_cast<int>(xc), y1 = std::min(y0 + 1, 3),
                x1 = std::min(x0 + 1, 5);
      const double fy = yr - y0, fx = xc - x0;
      const double want = (1 - fy) * ((1 - fx) * in[y0 * 6 + x0] + fx * in[y0 * 6 + x1]) +
                          fy * ((1 - fx) * in[y1 * 6 + x0] + fx * in[y1 * 6 + x1]);
      EXPECT_NEAR(got[r * 5 + c], want, 1e-5 * std::max(1.0, std::fabs(want))) << r << "," << c;
    }
  // A plain RESIZE whose scales carry 0.75 (align_corners uses 4.5, not 5).
  ASSERT_EQ(OpTypes(*g), (std::vector<int32_t>{TSR_OP_RESIZE}));
  EXPECT_EQ(g->ops[0].FindAttr(TSR_ATTR_SCALES)->floats, (std::vector<float>{1, 1, 0.75f, 0.75f}));
  // The same policy with the axes negative gives the same graph.
  absl::StatusOr<Graph> neg = Import({18,
                                      {1, 1, 4, 6},
                                      {},
                                      {3, 3},
                                      {{"mode", "linear"},
                                       {"axes", std::vector<int64_t>{-2, -1}},
                                       {"keep_aspect_ratio_policy", "not_smaller"},
                                       {"coordinate_transformation_mode", "align_corners"}}});
  ASSERT_TRUE(neg.ok()) << neg.status();
  EXPECT_EQ(neg->tensors[neg->outputs[0]].shape, (std::vector<int64_t>{1, 1, 3, 5}));
  EXPECT_EQ(neg->ops[0].FindAttr(TSR_ATTR_SCALES)->floats, (std::vector<float>{1, 1, 0.75f, 0.75f}));
}

// Antialias changes only shrinking axes: an upscale stays one RESIZE.
TEST(OnnxResize18Import, AntialiasUpscaleIsThePlainResize) {
  const Graph g =
      ExpectOrtValues({18, {1, 1, 2, 3}, {1, 1, 2, 1.5f}, {}, {{"mode", "linear"}, {"antialias", 1}}}, {1, 1, 4, 4},
                      {-2.0f, -1.125f, 0.0416665971f, 1.20833325f, -0.6875f, -0.53125f, -0.0833333954f, 1.08333325f,
                       1.9375f, 0.65625f, -0.333333373f, 0.833333194f, 3.25f, 1.25f, -0.458333373f, 0.708333194f});
  EXPECT_EQ(OpTypes(g), (std::vector<int32_t>{TSR_OP_RESIZE}));
}

// The spec applies antialias to linear and cubic only; nearest imports as
// without it (ORT and ONNX's reference refuse the combination instead).
TEST(OnnxResize18Import, NearestIgnoresAntialias) {
  Case with{18, {1, 1, 4, 6}, {1, 1, 0.5f, 0.5f}, {}, {{"mode", "nearest"}, {"antialias", 1}}};
  Case without = with;
  without.attrs.erase("antialias");
  absl::StatusOr<Graph> a = Import(with), b = Import(without);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(OpTypes(*a), (std::vector<int32_t>{TSR_OP_RESIZE}));
  absl::StatusOr<double> diff = testing::MaxRelativeDifference(*a, *b, {FloatTensor(with.shape, Input(24))});
  ASSERT_TRUE(diff.ok()) << diff.status();
  EXPECT_EQ(*diff, 0.0);
}

TEST(OnnxResize18Import, HalfPixelSymmetricMatchesOrt) {
  const Graph g = ExpectOrtValues({19,
                                   {1, 1, 4, 6},
                                   {1, 1, 0.6f, 0.6f},
                                   {},
                                   {{"mode", "linear"}, {"coordinate_transformation_mode", "half_pixel_symmetric"}}},
                                  {1, 1, 2, 3},
                                  {-0.569444537f, 1.70833325f, -1.12500036f, 2.87500048f, 0.0416667461f, 2.00000072f});
  EXPECT_TRUE(Has(g, TSR_OP_MATMUL));
  ExpectOrtValues({19,
                   {1, 1, 2, 3},
                   {1, 1, 1.7f, 1.3f},
                   {},
                   {{"mode", "nearest"}, {"coordinate_transformation_mode", "half_pixel_symmetric"}}},
                  {1, 1, 3, 3}, {-2.0f, -0.25f, 1.5f, -2.0f, -0.25f, 1.5f, 3.25f, -0.75f, 1.0f});
  ExpectOrtValues({19,
                   {1, 1, 4, 6},
                   {1, 1, 0.7f, 0.45f},
                   {},
                   {{"mode", "cubic"}, {"antialias", 1}, {"coordinate_transformation_mode", "half_pixel_symmetric"}}},
                  {1, 1, 2, 2}, {0.571614683f, 0.613465428f, 1.23021042f, 0.949077666f});
  // With sizes, out = scale · in exactly: the offset is 0, plain half_pixel.
  absl::StatusOr<Graph> sized =
      Import({19,
              {1, 1, 4, 6},
              {},
              {1, 1, 3, 4},
              {{"mode", "linear"}, {"coordinate_transformation_mode", "half_pixel_symmetric"}}});
  ASSERT_TRUE(sized.ok()) << sized.status();
  ASSERT_EQ(OpTypes(*sized), (std::vector<int32_t>{TSR_OP_RESIZE}));
  EXPECT_EQ(sized->ops[0].FindAttr(TSR_ATTR_COORD_TRANSFORM)->ints, (std::vector<int64_t>{TSR_COORD_HALF_PIXEL}));
}

// An f16 input is resampled in f32 and cast back: ORT's f32 values,
// rounded to f16.
TEST(OnnxResize18Import, AntialiasOnF16) {
  OnnxModelBuilder b(18);
  b.Input("x", onnx::TensorProto::FLOAT16, {1, 1, 4, 6});
  b.FloatInit("scales", {4}, {1, 1, 0.5f, 0.5f});
  onnx::NodeProto& n = b.Node("Resize", {"x", "", "scales"}, {"y"});
  AttrString(n, "mode", "linear");
  AttrInt(n, "antialias", 1);
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  HostTensor x{"", TSR_DTYPE_F16, {1, 1, 4, 6}, std::vector<uint8_t>(48)};
  const std::vector<float> in = Input(24);
  for (int64_t i = 0; i < 24; ++i) StoreElement(TSR_DTYPE_F16, in[i], x.data.data(), i);
  absl::StatusOr<std::vector<HostTensor>> y = RunReference(*g, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ((*y)[0].dtype, TSR_DTYPE_F16);
  const std::vector<float> ort = {0.17578125f, 1.2109375f, 0.26953125f, 1.48046875f, 0.5390625f, 0.13671875f};
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_NEAR(LoadElement(TSR_DTYPE_F16, (*y)[0].data.data(), i), ort[i], std::fabs(ort[i]) * 0x1p-11) << i;
}

TEST(OnnxResize18Import, AxesWithRoiSpreadToFullRank) {
  OnnxModelBuilder b(18);
  b.Input("x", kFloat, {1, 1, 4, 6});
  b.FloatInit("roi", {4}, {0.25f, 0.5f, 0.75f, 1.0f});
  b.Int64Init("sizes", {2}, {2, 3});
  onnx::NodeProto& n = b.Node("Resize", {"x", "roi", "", "sizes"}, {"y"});
  AttrString(n, "mode", "linear");
  AttrString(n, "coordinate_transformation_mode", "tf_crop_and_resize");
  AttrInts(n, "axes", {2, 3});
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->ops[0].FindAttr(TSR_ATTR_ROI)->floats, (std::vector<float>{0, 0, 0.25f, 0.5f, 1, 1, 0.75f, 1.0f}));
  EXPECT_EQ(g->tensors[g->outputs[0]].shape, (std::vector<int64_t>{1, 1, 2, 3}));
}

void ExpectRefused(const Case& c, absl::StatusCode code, const std::string& reason, const ImportOptions& options = {}) {
  absl::StatusOr<Graph> g = Import(c, options);
  EXPECT_EQ(g.status().code(), code) << g.status();
  EXPECT_THAT(g.status().message(), HasSubstr(reason));
}

TEST(OnnxResize18Import, RefusalsNameTheProblem) {
  const std::vector<int64_t> shape = {1, 1, 4, 6};
  ExpectRefused({18, shape, {0.5f, 0.5f}, {}, {{"axes", std::vector<int64_t>{3, -1}}}},
                absl::StatusCode::kInvalidArgument, "twice");
  ExpectRefused({18, shape, {0.5f}, {}, {{"axes", std::vector<int64_t>{4}}}}, absl::StatusCode::kInvalidArgument,
                "out of range");
  ExpectRefused({18, shape, {1, 1, 0.5f}, {}, {{"axes", std::vector<int64_t>{2, 3}}}},
                absl::StatusCode::kInvalidArgument, "scales has 3 values for 2 axes");
  ExpectRefused({18, shape, {}, {2, 2}, {{"keep_aspect_ratio_policy", "fit"}, {"axes", std::vector<int64_t>{2, 3}}}},
                absl::StatusCode::kInvalidArgument, "keep_aspect_ratio_policy");
  ExpectRefused({18,
                 shape,
                 {},
                 {1, 1, 2, 3},
                 {{"mode", "linear"}, {"antialias", 1}, {"coordinate_transformation_mode", "tf_crop_and_resize"}}},
                absl::StatusCode::kUnimplemented, "antialias with tf_crop_and_resize");
  // Each interpolation matrix is a constant within the folding budget.
  ImportOptions small;
  small.max_folded_constant_bytes = 40;  // the width matrix [3, 6] f32 needs 72
  ExpectRefused({18, shape, {1, 1, 0.5f, 0.5f}, {}, {{"mode", "linear"}, {"antialias", 1}}},
                absl::StatusCode::kResourceExhausted, "Resize interpolation matrix of axis 3", small);
}

}  // namespace
}  // namespace tessera::onnx_import
