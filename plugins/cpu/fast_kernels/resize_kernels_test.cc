// The nearest RESIZE fast kernel (linear: resize_linear_kernels_test.cc) against the reference kernel (the
// oracle), bit for bit: every rounding mode and coordinate transform but
// tf_crop_and_resize, up- and down-sampling, sizes and scales, f32 with
// inf and NaN among the values (nearest selects, it never mixes).
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "plugins/cpu/fast_kernels/fast_kernels.h"
#include "support/reference_kernels/test_util.h"
#include "testing/allocation_counter.h"

namespace tessera::cpu::fast {
namespace {

// Runs the fast nearest RESIZE of x to `out_shape` under `a` and the
// reference, and compares the bytes.
void ExpectNearestMatchesReference(const kt::Tensor& x, const std::vector<int64_t>& out_shape, const Attributes& a) {
  auto engine = FastEngine::Create(1);
  ASSERT_TRUE(engine.ok()) << engine.status();
  kt::Tensor want = kt::Empty(x.ref.dtype, out_shape), got = kt::Empty(x.ref.dtype, out_shape);
  ASSERT_TRUE(kt::RunOp(TSR_OP_RESIZE, a, {x}, want).ok());
  TensorRef typed_x = x.ref, typed_y = got.ref;
  typed_x.data = typed_y.data = nullptr;
  std::string why;
  std::unique_ptr<FastOp> op = (*engine)->Prepare(TSR_OP_RESIZE, a, {&typed_x, 1}, {&typed_y, 1}, &why);
  ASSERT_NE(op, nullptr) << why;
  auto state = op->NewState();
  ASSERT_TRUE(state.ok());
  void* in[] = {x.ref.data};
  void* out[] = {got.ref.data};
  ASSERT_TRUE(op->Run(**state, in, out).ok());
  EXPECT_EQ(std::memcmp(want.ref.data, got.ref.data, want.ref.byte_size()), 0);
}

TEST(FastResize, NearestMatchesTheReferenceBitForBit) {
  kt::Tensor x = kt::Empty(TSR_DTYPE_F32, {1, 2, 3, 5});
  auto* px = static_cast<float*>(x.ref.data);
  for (int i = 0; i < 30; ++i) px[i] = 0.25f * static_cast<float>(i) - 3;
  px[4] = std::numeric_limits<float>::infinity();
  px[11] = std::numeric_limits<float>::quiet_NaN();
  for (int64_t coord : {TSR_COORD_HALF_PIXEL, TSR_COORD_ASYMMETRIC, TSR_COORD_PYTORCH_HALF_PIXEL,
                        TSR_COORD_TF_HALF_PIXEL_FOR_NN, TSR_COORD_ALIGN_CORNERS})
    for (int64_t nearest :
         {TSR_NEAREST_ROUND_PREFER_FLOOR, TSR_NEAREST_ROUND_PREFER_CEIL, TSR_NEAREST_FLOOR, TSR_NEAREST_CEIL})
      for (bool with_scales : {false, true}) {
        Attributes a;
        a.SetInts(TSR_ATTR_RESIZE_MODE, {TSR_RESIZE_NEAREST});
        a.SetInts(TSR_ATTR_COORD_TRANSFORM, {coord});
        a.SetInts(TSR_ATTR_NEAREST_MODE, {nearest});
        // Up 7/3 on H, down 2/5 on W (with scales: 2.4 and 0.5, floor).
        if (with_scales) a.SetFloats(TSR_ATTR_SCALES, {1, 1, 2.4f, 0.5f});
        SCOPED_TRACE(::testing::Message() << "coord " << coord << " nearest " << nearest << " scales " << with_scales);
        ExpectNearestMatchesReference(x, {1, 2, 7, 2}, a);  // all 40 must prepare
      }
}

TEST(FastResize, CubicAndCropStayOnTheReference) {
  auto engine = FastEngine::Create(1);
  ASSERT_TRUE(engine.ok()) << engine.status();
  TensorRef x{}, y{};
  x.dtype = y.dtype = TSR_DTYPE_F32;
  x.shape = {4};
  y.shape = {8};
  for (auto [mode, coord] : std::vector<std::pair<int64_t, int64_t>>{
           {TSR_RESIZE_CUBIC, TSR_COORD_HALF_PIXEL}, {TSR_RESIZE_NEAREST, TSR_COORD_TF_CROP_AND_RESIZE}}) {
    Attributes a;
    a.SetInts(TSR_ATTR_RESIZE_MODE, {mode});
    a.SetInts(TSR_ATTR_COORD_TRANSFORM, {coord});
    std::string why;
    EXPECT_EQ((*engine)->Prepare(TSR_OP_RESIZE, a, {&x, 1}, {&y, 1}, &why), nullptr);
    EXPECT_FALSE(why.empty());
  }
}

TEST(FastResize, AxesOver2To24StayOnTheReferenceBeforeAnyMapIsBuilt) {
  // The index maps are built at load, one entry per output position of an
  // axis: an output axis of 2^32 would be a 17 GB map for a tiny input.
  auto engine = FastEngine::Create(1);
  ASSERT_TRUE(engine.ok()) << engine.status();
  TensorRef x{}, y{};
  x.dtype = y.dtype = TSR_DTYPE_F32;
  x.shape = {2};
  for (int64_t out : {(int64_t{1} << 24) + 1, int64_t{1} << 32}) {
    y.shape = {out};
    std::string why;
    EXPECT_EQ((*engine)->Prepare(TSR_OP_RESIZE, Attributes{}, {&x, 1}, {&y, 1}, &why), nullptr) << out;
    EXPECT_NE(why.find("axis size"), std::string::npos) << why;
  }
}

// The gather runs row by row over the last axis: ranks 1 and 5, a last
// axis left alone, and f16 (2-byte elements) take the other branches.
TEST(FastResize, NearestRowGatherMatchesTheReferenceAcrossRanksAndF16) {
  Attributes a;
  a.SetInts(TSR_ATTR_RESIZE_MODE, {TSR_RESIZE_NEAREST});
  kt::Tensor line = kt::Empty(TSR_DTYPE_F32, {5});
  for (int i = 0; i < 5; ++i) static_cast<float*>(line.ref.data)[i] = static_cast<float>(i * i) - 3;
  ExpectNearestMatchesReference(line, {13}, a);
  kt::Tensor five = kt::Empty(TSR_DTYPE_F32, {2, 3, 2, 2, 3});
  for (int i = 0; i < 72; ++i) static_cast<float*>(five.ref.data)[i] = 0.5f * static_cast<float>(i);
  ExpectNearestMatchesReference(five, {2, 7, 1, 4, 3}, a);  // last axis unchanged
  kt::Tensor half = kt::Empty(TSR_DTYPE_F16, {1, 1, 3, 4});
  for (int i = 0; i < 12; ++i) static_cast<uint16_t*>(half.ref.data)[i] = static_cast<uint16_t>(0x3C00 + 97 * i);
  ExpectNearestMatchesReference(half, {1, 1, 6, 9}, a);
}

// Fuzz finding 7: a 622-byte bytecode resized [1,1,2,4] to
// [1,16777216,1,2]. Its maps came from the reference kernel run over an
// iota (32-byte tap tables and a heap vector per position): 730 MB and
// 2 s at load. A map is now 4 bytes per output position, built with no
// allocation per position.
TEST(FastResize, NearestMapsCostFourBytesPerOutputPosition) {
  if (!kCountsAllocations) GTEST_SKIP() << "the sanitizer owns operator new";
  auto engine = FastEngine::Create(1);
  ASSERT_TRUE(engine.ok()) << engine.status();
  TensorRef x{}, y{};
  x.dtype = y.dtype = TSR_DTYPE_F32;
  x.shape = {1, 1, 2, 4};
  y.shape = {1, int64_t{1} << 24, 1, 2};
  Attributes a;
  a.SetInts(TSR_ATTR_RESIZE_MODE, {TSR_RESIZE_NEAREST});
  std::string why;
  size_t bytes = 0;
  int calls = 0;
  {
    AllocationCounter counter;
    std::unique_ptr<FastOp> op = (*engine)->Prepare(TSR_OP_RESIZE, a, {&x, 1}, {&y, 1}, &why);
    ASSERT_NE(op, nullptr) << why;
    bytes = counter.bytes();
    calls = counter.count();
  }
  const size_t map_bytes = 4 * (1 + (size_t{1} << 24) + 1 + 2);
  EXPECT_GE(bytes, map_bytes);
  EXPECT_LE(bytes, map_bytes + 64 * 1024) << "maps should be all a prepare allocates, beside small bookkeeping";
  EXPECT_LE(calls, 64);
}

// The fuzzer's bytecode also carried a SHAPE attribute that contradicts
// the output: the reference refuses that at run, and the fast kernel now
// checks the attributes with the reference's own parser before building
// anything. EXCLUDE_OUTSIDE may zero both taps, which no gather gives.
TEST(FastResize, NearestRefusesWhatTheReferenceRefusesAndExcludeOutside) {
  auto engine = FastEngine::Create(1);
  ASSERT_TRUE(engine.ok()) << engine.status();
  TensorRef x{}, y{};
  x.dtype = y.dtype = TSR_DTYPE_F32;
  x.shape = {1, 1, 2, 4};
  y.shape = {1, 3, 1, 2};
  Attributes a;
  a.SetInts(TSR_ATTR_RESIZE_MODE, {TSR_RESIZE_NEAREST});
  a.SetInts(TSR_ATTR_SHAPE, {1, 1, 1, 2});
  std::string why;
  EXPECT_EQ((*engine)->Prepare(TSR_OP_RESIZE, a, {&x, 1}, {&y, 1}, &why), nullptr);
  EXPECT_NE(why.find("SHAPE [1,1,1,2] differs from the output [1,3,1,2]"), std::string::npos) << why;
  Attributes b;
  b.SetInts(TSR_ATTR_RESIZE_MODE, {TSR_RESIZE_NEAREST});
  b.SetInts(TSR_ATTR_EXCLUDE_OUTSIDE, {1});
  why.clear();
  EXPECT_EQ((*engine)->Prepare(TSR_OP_RESIZE, b, {&x, 1}, {&y, 1}, &why), nullptr);
  EXPECT_NE(why.find("EXCLUDE_OUTSIDE"), std::string::npos) << why;
}

}  // namespace
}  // namespace tessera::cpu::fast
