// IM2COL from F32 DRAM into F16 SRAM converts each input row once into a
// staging copy and walks that (executor.cc); the F16 -> F16 load walks the
// input directly. A convolution of F32 data must therefore give exactly
// the bits of the same convolution of that data rounded to F16 first
// (weights and bias are the same f32 constants; the F16 layer rounds its
// f32 result once, which is what rounding the F32 layer's result gives).
// Random shapes with padding, strides, dilation, groups, and SRAM small
// enough that tiles start mid-image and mid-patch.
#include <random>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/fp16.h"
#include "plugins/systolic_npu/machine/test_util.h"
#include "plugins/systolic_npu/machine/tiler.h"

namespace tessera::systolic {
namespace {

TEST(Im2colStaging, F32InputGivesTheBitsOfF16Input) {
  std::mt19937 rng(21);
  int compared = 0;
  for (int iter = 0; iter < 60; ++iter) {
    const SystolicNpuConfig npu = snpu_test::SmallNpu(2 + rng() % 6, 2 + rng() % 6, 1, 2, 2);
    Conv2dLayer L = snpu_test::RandomConv(rng);
    // Images of several tiles: tiles then start at later output rows, so
    // the staged rows start inside the image.
    L.in_h = 6 + rng() % 14;
    L.in_w = 6 + rng() % 14;
    L.dilation_w = 1 + rng() % 2;
    const int64_t wn = L.out_channels * (L.in_channels / L.groups) * L.kernel_h * L.kernel_w;
    L.weights_dtype = TSR_DTYPE_F32;
    L.weights = snpu_test::FloatBytes(snpu_test::RandomF(rng, wn));
    L.bias_f = snpu_test::RandomF(rng, L.out_channels);
    L.activation.kind = static_cast<Activation>(rng() % 2);
    const auto xf = snpu_test::RandomF(rng, L.batch * L.in_channels * L.in_h * L.in_w);
    L.dtype = TSR_DTYPE_F32;
    auto p32 = CompileConv2dProgram(L, npu, TilerOptions{});
    L.dtype = TSR_DTYPE_F16;
    auto p16 = CompileConv2dProgram(L, npu, TilerOptions{});
    if (!p32.ok() && p32.status().code() == absl::StatusCode::kResourceExhausted) continue;
    ASSERT_TRUE(p32.ok()) << p32.status();
    ASSERT_TRUE(p16.ok()) << p16.status();
    const auto x32 = snpu_test::FloatBytes(xf);
    const auto x16 = snpu_test::FloatsAs(xf, TSR_DTYPE_F16);
    const auto y32 = snpu_test::RunEntry(*p32, npu, {x32}, ExecOptions{}).outputs.at(0);
    const auto y16 = snpu_test::RunEntry(*p16, npu, {x16}, ExecOptions{}).outputs.at(0);
    ASSERT_EQ(y32.size(), 2 * y16.size());
    for (size_t i = 0; i < y16.size() / 2; ++i) {
      float f;
      uint16_t h;
      std::memcpy(&f, y32.data() + 4 * i, 4);
      std::memcpy(&h, y16.data() + 2 * i, 2);
      ASSERT_EQ(FloatToHalf(f), h) << "iter " << iter << " output " << i;
    }
    ++compared;
  }
  EXPECT_GT(compared, 40);
}

}  // namespace
}  // namespace tessera::systolic
