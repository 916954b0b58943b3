// Host relayout and the layout descriptions it reads, on small tensors
// whose bytes are worked out by hand (the offset of element [i, j] is
// i * row_stride + j * 4; NCHW [n, c, h, w] is at ((n*C + c)*H + h)*W + w,
// NHWC at ((n*H + h)*W + w)*C + c).
#include "dispatch/layout_conversion.h"

#include <cstring>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

BufferLayout Strided(uint64_t row) { return {.layout = TSR_LAYOUT_STRIDED, .row_stride_bytes = row}; }
BufferLayout Strides(std::vector<int64_t> s) { return {.layout = TSR_LAYOUT_STRIDED_ND, .strides_bytes = std::move(s)}; }

std::vector<uint8_t> Floats(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
float At(const std::vector<uint8_t>& b, size_t offset) {
  float f;
  std::memcpy(&f, b.data() + offset, 4);
  return f;
}

TEST(LayoutConversion, DenseRowsIntoPaddedRowsAndBack) {
  // [2, 3] f32: rows of 12 bytes padded to 16; padding bytes keep 0xAB.
  const std::vector<int64_t> shape = {2, 3};
  const std::vector<uint8_t> dense = Floats({1, 2, 3, 4, 5, 6});
  std::vector<uint8_t> padded(32, 0xAB);
  ASSERT_TRUE(Relayout(dense, DenseHostLayout(), padded, Strided(16), shape, 4).ok());
  EXPECT_EQ(At(padded, 0), 1);
  EXPECT_EQ(At(padded, 8), 3);
  EXPECT_EQ(At(padded, 16), 4);  // row 1 starts at 16, not 12
  EXPECT_EQ(At(padded, 24), 6);
  for (size_t b : {12, 13, 14, 15, 28, 29, 30, 31}) EXPECT_EQ(padded[b], 0xAB) << b;
  std::vector<uint8_t> back(24, 0);
  ASSERT_TRUE(Relayout(padded, Strided(16), back, DenseHostLayout(), shape, 4).ok());
  EXPECT_EQ(back, dense);
}

TEST(LayoutConversion, PaddedRowsOfA3DTensorStepWholeRowBlocks) {
  // [2, 2, 1] f32, rows of 4 bytes padded to 8: element [1, 0, 0] sits at
  // 1 * (2 rows * 8) = 16.
  const std::vector<uint8_t> dense = Floats({7, 8, 9, 10});
  std::vector<uint8_t> padded(32, 0);
  ASSERT_TRUE(Relayout(dense, DenseHostLayout(), padded, Strided(8), std::vector<int64_t>{2, 2, 1}, 4).ok());
  EXPECT_EQ(At(padded, 0), 7);
  EXPECT_EQ(At(padded, 8), 8);
  EXPECT_EQ(At(padded, 16), 9);
  EXPECT_EQ(At(padded, 24), 10);
}

TEST(LayoutConversion, NchwToNhwcAndBack) {
  // [1, 2, 2, 3] NCHW (C = 2, H = 2, W = 3): value = c*100 + h*10 + w.
  const std::vector<int64_t> shape = {1, 2, 2, 3};
  std::vector<float> nchw;
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 3; ++w) nchw.push_back(c * 100 + h * 10 + w);
  // NHWC strides in bytes: n = H*W*C*4 = 48, c = 4, h = W*C*4 = 24, w = C*4 = 8.
  const BufferLayout nhwc = Strides({48, 4, 24, 8});
  std::vector<uint8_t> out(48, 0);
  ASSERT_TRUE(Relayout(Floats(nchw), DenseHostLayout(), out, nhwc, shape, 4).ok());
  // NHWC order, by hand: (h, w, c) = (0,0,0) (0,0,1) (0,1,0) ...
  EXPECT_EQ(out, Floats({0, 100, 1, 101, 2, 102, 10, 110, 11, 111, 12, 112}));
  std::vector<uint8_t> back(48, 0);
  ASSERT_TRUE(Relayout(out, nhwc, back, DenseHostLayout(), shape, 4).ok());
  EXPECT_EQ(back, Floats(nchw));
  EXPECT_EQ(LayoutName(nhwc, shape, 4), "nhwc");
}

TEST(LayoutConversion, PaddedToNhwcWithoutADenseStep) {
  // [1, 2, 1, 2]: NCHW rows (W = 2) padded to 16 bytes; to NHWC (C innermost).
  const std::vector<int64_t> shape = {1, 2, 1, 2};
  std::vector<uint8_t> padded(32, 0);
  for (int c = 0; c < 2; ++c)
    for (int w = 0; w < 2; ++w) {
      const float v = c * 10 + w;
      std::memcpy(padded.data() + c * 16 + w * 4, &v, 4);
    }
  std::vector<uint8_t> nhwc(16, 0);
  ASSERT_TRUE(Relayout(padded, Strided(16), nhwc, Strides({16, 4, 16, 8}), shape, 4).ok());
  EXPECT_EQ(nhwc, Floats({0, 10, 1, 11}));
}

TEST(LayoutConversion, RefusesVendorLayoutsAndShortBuffers) {
  const std::vector<int64_t> shape = {2, 3};
  std::vector<uint8_t> a(24), b(24);
  absl::Status s = Relayout(a, DenseHostLayout(), b, BufferLayout{.layout = TSR_LAYOUT_VENDOR}, shape, 4);
  EXPECT_THAT(s.message(), HasSubstr("VENDOR"));
  s = Relayout(a, DenseHostLayout(), b, Strided(16), shape, 4);  // needs 16 + 12 = 28 bytes
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("need 24 and 28"));
}

TEST(BufferLayout, CanonicalFormMakesEqualBytesEqualLayouts) {
  const std::vector<int64_t> shape = {2, 3};
  // A row stride of the dense row, and dense strides, are DENSE.
  EXPECT_EQ(CanonicalLayout(Strided(12), shape, 4)->layout, TSR_LAYOUT_DENSE);
  EXPECT_EQ(CanonicalLayout(Strides({12, 4}), shape, 4)->layout, TSR_LAYOUT_DENSE);
  // Padded rows spelled as strides are STRIDED with that row stride.
  absl::StatusOr<BufferLayout> rows = CanonicalLayout(Strides({16, 4}), shape, 4);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->layout, TSR_LAYOUT_STRIDED);
  EXPECT_EQ(rows->row_stride_bytes, 16u);
  EXPECT_TRUE(SameLayout(*rows, *CanonicalLayout(Strided(16), shape, 4)));
  EXPECT_EQ(LayoutName(*rows, shape, 4), "strided(row 16 B)");
  EXPECT_EQ(LayoutExtent(*rows, shape, 4), 28u);  // 16 + 3 * 4
  // Column-major is neither: it stays STRIDED_ND.
  EXPECT_EQ(CanonicalLayout(Strides({4, 8}), shape, 4)->layout, TSR_LAYOUT_STRIDED_ND);
  EXPECT_EQ(LayoutName(*CanonicalLayout(Strides({4, 8}), shape, 4), shape, 4), "strides(4,8)");
}

TEST(BufferLayout, BadDeclarationsAreRefusedWithWhatIsWrong) {
  const std::vector<int64_t> shape = {2, 3};
  EXPECT_THAT(CanonicalLayout(Strided(8), shape, 4).status().message(),
              HasSubstr("row stride 8 bytes is below the dense row of 12 bytes"));
  EXPECT_THAT(CanonicalLayout(Strides({4}), shape, 4).status().message(), HasSubstr("STRIDED_ND of rank 1"));
  EXPECT_THAT(CanonicalLayout(Strides({-12, 4}), shape, 4).status().message(), HasSubstr("negative stride"));
  EXPECT_THAT(CanonicalLayout({.layout = 9}, shape, 4).status().message(), HasSubstr("unknown layout 9"));
  EXPECT_THAT(CanonicalLayout({.alignment = 48}, shape, 4).status().message(), HasSubstr("not a power of two"));
}

TEST(LayoutConversion, KindSaysWhatChanges) {
  EXPECT_EQ(ConversionKind(false, true), "copy");
  EXPECT_EQ(ConversionKind(true, false), "layout");
  EXPECT_EQ(ConversionKind(false, false), "copy+layout");
}

}  // namespace
}  // namespace tessera
