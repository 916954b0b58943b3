// The nearest RESIZE fast kernel (linear: resize_linear_kernels_test.cc) against the reference kernel (the
// oracle), bit for bit: every rounding mode and coordinate transform but
// tf_crop_and_resize, up- and down-sampling, sizes and scales, f32 with
// inf and NaN among the values (nearest selects, it never mixes).
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "fast/fast_kernels.h"
#include "test_util.h"

namespace tessera::cpu::fast {
namespace {

TEST(FastResize, NearestMatchesTheReferenceBitForBit) {
  auto engine = FastEngine::Create(1);
  ASSERT_TRUE(engine.ok()) << engine.status();
  kt::Tensor x = kt::Empty(TSR_DTYPE_F32, {1, 2, 3, 5});
  auto* px = static_cast<float*>(x.ref.data);
  for (int i = 0; i < 30; ++i) px[i] = 0.25f * static_cast<float>(i) - 3;
  px[4] = std::numeric_limits<float>::infinity();
  px[11] = std::numeric_limits<float>::quiet_NaN();
  int prepared = 0;
  for (int64_t coord : {TSR_COORD_HALF_PIXEL, TSR_COORD_ASYMMETRIC, TSR_COORD_PYTORCH_HALF_PIXEL,
                        TSR_COORD_TF_HALF_PIXEL_FOR_NN, TSR_COORD_ALIGN_CORNERS})
    for (int64_t nearest : {TSR_NEAREST_ROUND_PREFER_FLOOR, TSR_NEAREST_ROUND_PREFER_CEIL, TSR_NEAREST_FLOOR,
                            TSR_NEAREST_CEIL})
      for (bool with_scales : {false, true}) {
        Attributes a;
        a.SetInts(TSR_ATTR_RESIZE_MODE, {TSR_RESIZE_NEAREST});
        a.SetInts(TSR_ATTR_COORD_TRANSFORM, {coord});
        a.SetInts(TSR_ATTR_NEAREST_MODE, {nearest});
        // Up 7/3 on H, down 2/5 on W (with scales: 2.4 and 0.5, floor).
        if (with_scales) a.SetFloats(TSR_ATTR_SCALES, {1, 1, 2.4f, 0.5f});
        kt::Tensor want = kt::Empty(TSR_DTYPE_F32, {1, 2, 7, 2}), got = kt::Empty(TSR_DTYPE_F32, {1, 2, 7, 2});
        ASSERT_TRUE(kt::RunOp(TSR_OP_RESIZE, a, {x}, want).ok());
        TensorRef typed_x = x.ref, typed_y = got.ref;
        typed_x.data = typed_y.data = nullptr;
        std::string why;
        std::unique_ptr<FastOp> op = (*engine)->Prepare(TSR_OP_RESIZE, a, {&typed_x, 1}, {&typed_y, 1}, &why);
        ASSERT_NE(op, nullptr) << why;
        ++prepared;
        auto state = op->NewState();
        ASSERT_TRUE(state.ok());
        void* in[] = {x.ref.data};
        void* out[] = {got.ref.data};
        ASSERT_TRUE(op->Run(**state, in, out).ok());
        EXPECT_EQ(std::memcmp(want.ref.data, got.ref.data, want.ref.byte_size()), 0)
            << "coord " << coord << " nearest " << nearest << " scales " << with_scales;
      }
  EXPECT_EQ(prepared, 40);
}

TEST(FastResize, CubicAndCropStayOnTheReference) {
  auto engine = FastEngine::Create(1);
  ASSERT_TRUE(engine.ok()) << engine.status();
  TensorRef x{}, y{};
  x.dtype = y.dtype = TSR_DTYPE_F32;
  x.shape = {4};
  y.shape = {8};
  for (auto [mode, coord] : std::vector<std::pair<int64_t, int64_t>>{
           {TSR_RESIZE_CUBIC, TSR_COORD_HALF_PIXEL},
           {TSR_RESIZE_NEAREST, TSR_COORD_TF_CROP_AND_RESIZE}}) {
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

}  // namespace
}  // namespace tessera::cpu::fast
