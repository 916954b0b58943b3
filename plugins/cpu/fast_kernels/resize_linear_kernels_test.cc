// The linear RESIZE fast kernel against the reference kernel (f64, one
// rounding). Bound (resize_linear_kernels.cc): each of the k passes rounds
// two f32 weights, two products and a sum, ≤ 3 ulps of the interpolated
// magnitude (the reference run on |x|), plus the reference's own final
// rounding and the f32 rounding of that magnitude: (3k + 2)·2⁻²⁴·(Σ w|x|).
// Every coordinate transform the fast path takes, up and down, integral
// and non-integral scales, with and without SCALES, one axis or several;
// hand vectors; inf beside an unread tap; and what it refuses.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "plugins/cpu/fast_kernels/fast_kernels.h"
#include "plugins/cpu/fast_kernels/fast_test_util.h"
#include "support/reference_kernels/test_util.h"
#include "testing/allocation_counter.h"

namespace tessera::cpu::fast {
namespace {

constexpr double kUlp = 1.0 / (1 << 24);

Attributes Linear(int64_t coord, std::vector<float> scales = {}) {
  Attributes a;
  a.SetInts(TSR_ATTR_RESIZE_MODE, {TSR_RESIZE_LINEAR});
  a.SetInts(TSR_ATTR_COORD_TRANSFORM, {coord});
  if (!scales.empty()) a.SetFloats(TSR_ATTR_SCALES, scales);
  return a;
}

int Resampled(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  int k = 0;
  for (size_t d = 0; d < in.size(); ++d) k += in[d] != out[d];
  return k;
}

TEST(FastLinearResize, MatchesTheReferenceWithinTheDerivedBound) {
  auto engine = Engine();
  std::mt19937 rng(11);
  struct Shape2 {
    std::vector<int64_t> in, out;
    std::vector<float> scales;  // empty: sizes only
  };
  const std::vector<Shape2> shapes = {
      {{1, 3, 5, 7}, {1, 3, 10, 14}, {}},                  // x2 up
      {{1, 3, 5, 7}, {1, 3, 10, 14}, {1, 1, 2, 2}},        // x2 up, SCALES
      {{1, 2, 9, 8}, {1, 2, 4, 3}, {}},                    // down, non-integral
      {{1, 2, 9, 8}, {1, 2, 4, 3}, {1, 1, 0.45f, 0.4f}},   // down, scales not out/in
      {{2, 3, 6, 5}, {2, 3, 13, 2}, {}},                   // one axis up, one down
      {{1, 2, 7, 5}, {1, 2, 16, 11}, {1, 1, 2.3f, 2.2f}},  // up, non-integral scales
      {{1, 4, 6, 6}, {1, 4, 6, 17}, {}},                   // one axis (the innermost)
      {{1, 4, 6, 6}, {1, 4, 15, 6}, {}},                   // one axis (rows)
      {{3, 5, 4}, {6, 5, 9}, {}},                          // rank 3, outer and inner axes
      {{1, 1, 5, 5}, {1, 1, 20, 20}, {1, 1, 4, 4}},        // x4 (PaddleOCR's head)
      {{2, 3, 4, 5}, {2, 3, 4, 5}, {}},                    // no axis changes: a copy
  };
  int cases = 0;
  for (int64_t coord : {TSR_COORD_HALF_PIXEL, TSR_COORD_ALIGN_CORNERS, TSR_COORD_ASYMMETRIC,
                        TSR_COORD_PYTORCH_HALF_PIXEL, TSR_COORD_TF_HALF_PIXEL_FOR_NN})
    for (const Shape2& s : shapes) {
      Case c;
      c.op = TSR_OP_RESIZE;
      c.attrs = Linear(coord, s.scales);
      c.inputs = {RandomF32(rng, s.in)};
      c.constant = {false};
      c.out_shape = s.out;
      c.label = "coord " + std::to_string(coord) + " case " + std::to_string(cases % shapes.size());
      // TF_HALF_PIXEL_FOR_NN resamples even an unchanged axis (x' = x + 0.5).
      const int k = coord == TSR_COORD_TF_HALF_PIXEL_FOR_NN ? static_cast<int>(s.in.size()) : Resampled(s.in, s.out);
      ExpectMatchesReference(*engine, c, (3 * k + 2) * kUlp, 0);
      ++cases;
    }
  EXPECT_EQ(cases, 55);
}

std::vector<float> RunFast(const FastEngine& engine, const Attributes& a, const kt::Tensor& x,
                           std::vector<int64_t> out_shape) {
  return RunFastOnly(engine, TSR_OP_RESIZE, a, {x.ref}, std::move(out_shape));
}

TEST(FastLinearResize, HandVectors) {
  auto engine = Engine();
  // half_pixel, 4 -> 8: x' = (o + 0.5)/2 − 0.5 = o/2 − 0.25. o=0: −0.25
  // clamps both taps to 0 → 1; o=1: 0.25 → 0.75·1 + 0.25·2 = 1.25; then
  // steps of 0.5 up to o=6: 2.75 → 0.25·3 + 0.75·4 = 3.75; o=7: 3.25, both
  // taps clamp to 3 → 4. All exact in f32.
  EXPECT_EQ(RunFast(*engine, Linear(TSR_COORD_HALF_PIXEL), kt::F32({4}, {1, 2, 3, 4}), {8}),
            (std::vector<float>{1, 1.25, 1.75, 2.25, 2.75, 3.25, 3.75, 4}));
  // align_corners, 2x2 -> 3x3: x' = o·(2−1)/(3−1) = o/2 on both axes, so
  // the corners are the input and every midpoint the mean of its
  // neighbours: [[1, 2], [3, 4]] -> 1 1.5 2 / 2 2.5 3 / 3 3.5 4.
  EXPECT_EQ(RunFast(*engine, Linear(TSR_COORD_ALIGN_CORNERS), kt::F32({1, 1, 2, 2}, {1, 2, 3, 4}), {1, 1, 3, 3}),
            (std::vector<float>{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}));
  // asymmetric, SCALES 0.5 on [0, 10, 20, 30, 40, 50]: x' = 2o, integral,
  // so each output is one input (ratio 1 on the left tap): 0, 20, 40.
  EXPECT_EQ(RunFast(*engine, Linear(TSR_COORD_ASYMMETRIC, {0.5f}), kt::F32({6}, {0, 10, 20, 30, 40, 50}), {3}),
            (std::vector<float>{0, 20, 40}));
}

TEST(FastLinearResize, AnUnreadTapDoesNotTurnInfIntoNan) {
  // align_corners 2 -> 3 on [inf, 1]: x' = 0, 0.5, 1. x' = 1 is integral:
  // the reference reads only input 1 (weight 0 on input 0 is skipped), so
  // the last output is 1, not 0·inf = NaN; the middle one is inf.
  auto engine = Engine();
  const float inf = std::numeric_limits<float>::infinity();
  const kt::Tensor x = kt::F32({2}, {inf, 1});
  kt::Tensor want = kt::Empty(TSR_DTYPE_F32, {3});
  ASSERT_TRUE(kt::RunOp(TSR_OP_RESIZE, Linear(TSR_COORD_ALIGN_CORNERS), {x.ref}, want).ok());
  const auto* w = static_cast<const float*>(want.ref.data);
  EXPECT_EQ((std::vector<float>{w[0], w[1], w[2]}), (std::vector<float>{inf, inf, 1}));
  EXPECT_EQ(RunFast(*engine, Linear(TSR_COORD_ALIGN_CORNERS), x, {3}), (std::vector<float>{inf, inf, 1}));
}

TEST(FastLinearResize, NoAllocationPerRun) {
  // Tap tables at prepare, intermediates at NewState: a run (three passes
  // here, so both ping-pong buffers) allocates nothing.
  if (!kCountsAllocations) GTEST_SKIP() << "the sanitizers replace operator new";
  auto engine = Engine();
  std::mt19937 rng(3);
  const kt::Tensor x = RandomF32(rng, {2, 3, 5, 6});
  kt::Tensor y = kt::Empty(TSR_DTYPE_F32, {2, 7, 9, 11});
  TensorRef typed_x = x.ref, typed_y = y.ref;
  typed_x.data = typed_y.data = nullptr;
  std::string why;
  std::unique_ptr<FastOp> op =
      engine->Prepare(TSR_OP_RESIZE, Linear(TSR_COORD_HALF_PIXEL), {&typed_x, 1}, {&typed_y, 1}, &why);
  ASSERT_NE(op, nullptr) << why;
  auto state = op->NewState();
  ASSERT_TRUE(state.ok());
  void* in[] = {x.ref.data};
  void* out[] = {y.ref.data};
  AllocationCounter allocations;
  const absl::Status s = op->Run(**state, in, out);
  const int count = allocations.count();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(count, 0);
}

TEST(FastLinearResize, RefusesToTheReference) {
  auto engine = Engine();
  TensorRef x{}, y{};
  x.dtype = y.dtype = TSR_DTYPE_F32;
  x.shape = {1, 1, 4, 4};
  y.shape = {1, 1, 8, 8};
  auto refused = [&](const Attributes& a, const std::string& reason) {
    std::string why;
    EXPECT_EQ(engine->Prepare(TSR_OP_RESIZE, a, {&x, 1}, {&y, 1}, &why), nullptr) << reason;
    EXPECT_NE(why.find(reason), std::string::npos) << why;
  };
  Attributes crop = Linear(TSR_COORD_TF_CROP_AND_RESIZE);
  crop.SetFloats(TSR_ATTR_ROI, {0, 0, 0, 0, 1, 1, 1, 1});
  refused(crop, "tf_crop_and_resize");
  Attributes exclude = Linear(TSR_COORD_HALF_PIXEL);
  exclude.SetInts(TSR_ATTR_EXCLUDE_OUTSIDE, {1});
  refused(exclude, "EXCLUDE_OUTSIDE");
  refused(Linear(TSR_COORD_HALF_PIXEL, {1, 1, -2, 2}), "must be positive");  // the reference reports it
  x.dtype = y.dtype = TSR_DTYPE_F16;
  refused(Linear(TSR_COORD_HALF_PIXEL), "f32 only");
  // An output axis past 2^20: refused before any tap table is built (fuzz
  // finding 6: a tiny bytecode must not buy a large table at load).
  x.dtype = y.dtype = TSR_DTYPE_F32;
  x.shape = {2};
  for (int64_t out : {(int64_t{1} << 20) + 1, int64_t{1} << 40}) {
    y.shape = {out};
    refused(Linear(TSR_COORD_HALF_PIXEL), "axis size");
  }
}

}  // namespace
}  // namespace tessera::cpu::fast
