// The CONV_TRANSPOSE_2D fast kernel (oneDNN deconvolution) against the
// reference kernel within the documented bound (fast_kernels.h: oneDNN
// accumulates in f32, the reference in f64), over random geometry (dense,
// grouped, depthwise; strides, dilations, asymmetric pads, output padding),
// a PaddleOCR-sized upsampling, two hand vectors, and what it refuses.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "plugins/cpu/fast_kernels/fast_kernels.h"
#include "plugins/cpu/fast_kernels/fast_test_util.h"
#include "support/reference_kernels/test_util.h"

namespace tessera::cpu::fast {
namespace {

std::string D(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

// OH = sh·(H−1) + dh·(kH−1) + 1 + output_padding − top − bottom (docs/ops.md).
int64_t Extent(int64_t in, int64_t k, int64_t s, int64_t d, int64_t op, int64_t pb, int64_t pe) {
  return s * (in - 1) + d * (k - 1) + 1 + op - pb - pe;
}

Case TransposeCase(std::mt19937& rng, int64_t n, int64_t c, int64_t h, int64_t w, int64_t mg, int64_t groups,
                   int64_t kh, int64_t kw, std::vector<int64_t> st, std::vector<int64_t> dl, std::vector<int64_t> pd,
                   std::vector<int64_t> op, bool bias) {
  Case k;
  k.op = TSR_OP_CONV_TRANSPOSE_2D;
  k.inputs = {RandomF32(rng, {n, c, h, w}), RandomF32(rng, {c, mg, kh, kw})};
  k.constant = {false, true};
  if (bias) {
    k.inputs.push_back(RandomF32(rng, {mg * groups}));
    k.constant.push_back(true);
  }
  k.attrs.SetInts(TSR_ATTR_GROUPS, {groups});
  k.attrs.SetInts(TSR_ATTR_STRIDES, st);
  k.attrs.SetInts(TSR_ATTR_DILATIONS, dl);
  k.attrs.SetInts(TSR_ATTR_PADS, pd);
  k.attrs.SetInts(TSR_ATTR_OUTPUT_PADDING, op);
  k.out_shape = {n, mg * groups, Extent(h, kh, st[0], dl[0], op[0], pd[0], pd[2]),
                 Extent(w, kw, st[1], dl[1], op[1], pd[1], pd[3])};
  k.label = "x" + D({n, c, h, w}) + " w" + D({c, mg, kh, kw}) + " g=" + std::to_string(groups) + " s=" + D(st) +
            " d=" + D(dl) + " pads=" + D(pd) + " out_pad=" + D(op) + (bias ? " bias" : "");
  return k;
}

TEST(FastConvTranspose, RandomGeometryMatchesReference) {
  auto engine = Engine();
  std::mt19937 rng(41);
  for (int iter = 0; iter < 48; ++iter) {
    const int kind = iter % 3;  // dense, grouped, depthwise
    const int64_t groups = kind == 0 ? 1 : kind == 1 ? 2 + rng() % 3 : 1 + rng() % 12;
    const int64_t c = kind == 2 ? groups : groups * (1 + rng() % 4);
    const int64_t mg = kind == 2 ? 1 : 1 + rng() % 5;
    const int64_t kh = 1 + rng() % 4, kw = 1 + rng() % 4;
    const std::vector<int64_t> st = {1 + static_cast<int64_t>(rng() % 3), 1 + static_cast<int64_t>(rng() % 3)};
    const std::vector<int64_t> dl = {1 + static_cast<int64_t>(rng() % 2), 1 + static_cast<int64_t>(rng() % 2)};
    std::vector<int64_t> pd(4), op(2);
    for (auto& p : pd) p = rng() % 3;
    // Output padding below the stride (ONNX allows up to the dilation too;
    // the fast path refuses that part: RefusesToTheReference).
    for (int a = 0; a < 2; ++a) op[a] = rng() % st[a];
    const int64_t h = 3 + rng() % 8, w = 3 + rng() % 8;  // extents stay >= 1 with pads <= 2
    Case k = TransposeCase(rng, 1 + rng() % 2, c, h, w, mg, groups, kh, kw, st, dl, pd, op, rng() % 3 != 0);
    ExpectMatchesReference(*engine, k);
  }
}

TEST(FastConvTranspose, StridedUpsamplingWithOutputPadding) {
  auto engine = Engine();
  std::mt19937 rng(5);
  // PaddleOCR's detector neck: 64 -> 64 channels, k=2, s=2 (no pads).
  ExpectMatchesReference(*engine,
                         TransposeCase(rng, 1, 64, 10, 12, 64, 1, 2, 2, {2, 2}, {1, 1}, {0, 0, 0, 0}, {0, 0}, true));
  // The detector's last upsampling: 24 -> 1 channel, k=2, s=2. One output
  // channel takes the NHWC kernel (the blocked one is mostly padding).
  ExpectMatchesReference(*engine,
                         TransposeCase(rng, 1, 24, 20, 18, 1, 1, 2, 2, {2, 2}, {1, 1}, {0, 0, 0, 0}, {0, 0}, false));
  ExpectMatchesReference(*engine,
                         TransposeCase(rng, 1, 8, 9, 7, 3, 1, 3, 3, {2, 2}, {1, 1}, {1, 1, 1, 1}, {1, 1}, true));
  // Output padding beyond the end pad: oneDNN's end pad is negative, the
  // extra row/column receives no tap (bias only).
  ExpectMatchesReference(*engine,
                         TransposeCase(rng, 1, 4, 5, 6, 3, 1, 3, 3, {2, 2}, {1, 1}, {1, 1, 0, 1}, {1, 1}, true));
  // Grouped, dilated, asymmetric pads, output padding on one axis.
  ExpectMatchesReference(*engine,
                         TransposeCase(rng, 2, 6, 7, 5, 2, 3, 3, 2, {2, 3}, {2, 1}, {2, 0, 1, 1}, {1, 0}, false));
}

std::vector<float> RunFast(const FastEngine& engine, const Attributes& a, const kt::Tensor& x, const kt::Tensor& w,
                           const kt::Tensor& b, std::vector<int64_t> out_shape) {
  return RunFastOnly(engine, TSR_OP_CONV_TRANSPOSE_2D, a, {x.ref, w.ref, b.ref}, std::move(out_shape));
}

TEST(FastConvTranspose, HandVectors) {
  auto engine = Engine();
  const kt::Tensor x = kt::F32({1, 1, 2, 2}, {1, 2, 3, 4});
  const kt::Tensor w = kt::F32({1, 1, 2, 2}, {1, 2, 3, 4});
  const kt::Tensor b = kt::F32({1}, {0.5});
  // Stride 2, k=2: every input element writes its own 2x2 block x·W,
  // blocks do not overlap: out[2i + a][2j + b] = x[i][j]·W[a][b] + 0.5.
  //   x=1: 1 2 / 3 4   x=2: 2 4 / 6 8   x=3: 3 6 / 9 12   x=4: 4 8 / 12 16
  // Output padding 1 on the width adds a fifth column no tap reaches: the
  // bias alone.
  Attributes s2;
  s2.SetInts(TSR_ATTR_STRIDES, {2, 2});
  s2.SetInts(TSR_ATTR_OUTPUT_PADDING, {0, 1});
  EXPECT_EQ(RunFast(*engine, s2, x, w, b, {1, 1, 4, 5}),
            (std::vector<float>{1.5, 2.5, 2.5, 4.5, 0.5, 3.5, 4.5,  6.5,  8.5,  0.5,  //
                                3.5, 6.5, 4.5, 8.5, 0.5, 9.5, 12.5, 12.5, 16.5, 0.5}));
  // Stride 1 with the all-ones kernel: blocks overlap, out[r][c] sums the
  // inputs whose 2x2 block covers (r, c): rows 1 3 2 / 4 10 6 / 3 7 4.
  // End pad 1 on the height crops the last row.
  const kt::Tensor ones = kt::F32({1, 1, 2, 2}, {1, 1, 1, 1});
  Attributes s1;
  s1.SetInts(TSR_ATTR_PADS, {0, 0, 1, 0});
  EXPECT_EQ(RunFast(*engine, s1, x, ones, b, {1, 1, 2, 3}), (std::vector<float>{1.5, 3.5, 2.5, 4.5, 10.5, 6.5}));
}

TEST(FastConvTranspose, RefusesToTheReference) {
  auto engine = Engine();
  const kt::Tensor x = kt::F32({1, 2, 3, 3}, std::vector<double>(18, 1));
  const kt::Tensor w = kt::F32({2, 1, 2, 2}, std::vector<double>(8, 1));
  TensorRef typed_x = x.ref, y{};
  typed_x.data = nullptr;
  y.dtype = TSR_DTYPE_F32;
  y.shape = {1, 1, 4, 4};
  auto refused = [&](const Attributes& a, std::vector<TensorRef> ins, const std::string& reason) {
    std::string why;
    EXPECT_EQ(engine->Prepare(TSR_OP_CONV_TRANSPOSE_2D, a, ins, {&y, 1}, &why), nullptr) << reason;
    EXPECT_NE(why.find(reason), std::string::npos) << why;
  };
  TensorRef runtime_w = w.ref;
  runtime_w.data = nullptr;
  refused({}, {typed_x, runtime_w}, "runtime weights");
  Attributes relu;
  relu.SetInts(TSR_ATTR_ACTIVATION, {TSR_ACTIVATION_RELU});
  refused(relu, {typed_x, w.ref}, "activation");
  // A stride past kMaxWindowAttribute (2^24): refused before any arithmetic.
  Attributes huge;
  huge.SetInts(TSR_ATTR_STRIDES, {int64_t{1} << 40, 1});
  refused(huge, {typed_x, w.ref}, "STRIDES value");
  // Output padding a stride past the end pad (stride 1, dilation 2):
  // oneDNN's end pad must exceed −stride.
  Attributes op_past;
  op_past.SetInts(TSR_ATTR_DILATIONS, {2, 1});
  op_past.SetInts(TSR_ATTR_OUTPUT_PADDING, {1, 0});
  y.shape = {1, 1, 6, 4};
  refused(op_past, {typed_x, w.ref}, "a stride past the end pad");
  // An output shape that does not follow from the attributes.
  y.shape = {1, 1, 5, 4};
  refused({}, {typed_x, w.ref}, "output shape");
}

}  // namespace
}  // namespace tessera::cpu::fast
