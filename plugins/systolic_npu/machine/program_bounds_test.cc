// Every bound of the bytecode verifier and parser (program.cc) at exactly
// its limit and one past it. The limits come from
// docs/systolic_npu_isa.md and the instruction comments of isa.h, written
// here as numbers; a program is built by hand with one instruction, so
// nothing but the bound under test differs between the two cases.
#include <cstring>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/program.h"
#include "plugins/systolic_npu/machine/quant.h"
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using snpu_test::SmallNpu;
using ::testing::HasSubstr;

constexpr uint32_t kBank = 4096;  // SmallNpu's 4 KiB banks
constexpr int32_t kF32 = TSR_DTYPE_F32, kI8 = TSR_DTYPE_I8, kI32 = TSR_DTYPE_I32;

uint32_t In(uint32_t off) { return SramAddress(Bank::kInput, off); }
uint32_t Acc(uint32_t off) { return SramAddress(Bank::kAccum, off); }

// One entry: region 1 an input of `in_bytes`, region 2 an output of 64
// bytes; a 64-byte constant pool (region 0) holding one data constant.
Program Base(const SystolicNpuConfig& npu, uint64_t in_bytes = 64) {
  Program p;
  p.target = TargetInfo::FromSoc(npu);
  const std::vector<uint8_t> zeros(64);
  p.AddData(zeros.data(), zeros.size(), kI8);
  EntryPoint e;
  e.name = "main";
  e.regions = {Region{RegionKind::kInput, 0, kF32, {}, in_bytes}, Region{RegionKind::kOutput, 0, kF32, {16}, 64}};
  p.entries.push_back(e);
  return p;
}

absl::Status Verify(Program p, const Instruction& in, const SystolicNpuConfig& npu = SmallNpu(4, 4)) {
  p.entries[0].code = {in};
  return VerifyProgram(p, npu);
}
absl::Status Verify(const Instruction& in, const SystolicNpuConfig& npu = SmallNpu(4, 4)) {
  return Verify(Base(npu), in, npu);
}

std::string Message(const absl::Status& s) { return s.ok() ? "OK" : std::string(s.message()); }

TEST(ProgramBounds, SramRangeEndsAtTheBankEnd) {
  // A 1 x 16 f32 tile is 64 bytes: at offset 4032 it ends at 4096.
  EXPECT_TRUE(Verify(MakeDmaLoadStrided(In(kBank - 64), 1, 0, 1, 16, 16, 1, kF32, kF32)).ok());
  EXPECT_THAT(Message(Verify(MakeDmaLoadStrided(In(kBank - 63), 1, 0, 1, 16, 16, 1, kF32, kF32))),
              HasSubstr("exceeds the 4096-byte bank"));
  EXPECT_TRUE(Verify(MakeDmaStore(Acc(kBank - 64), 2, 0, 1, 16, 16, 1, kF32, kF32)).ok());
  EXPECT_THAT(Message(Verify(MakeDmaStore(Acc(kBank - 60), 2, 0, 1, 16, 16, 1, kF32, kF32))),
              HasSubstr("exceeds the 4096-byte bank"));
}

TEST(ProgramBounds, DramAccessEndsAtTheRegionEnd) {
  // Strided 2 x 8 f32, row stride 8: last byte (1*8 + 7)*4 + 4 = 64, the
  // region's size; row stride 9 ends at 68; offset 4 ends at 68.
  EXPECT_TRUE(Verify(MakeDmaLoadStrided(In(0), 1, 0, 2, 8, 8, 1, kF32, kF32)).ok());
  EXPECT_THAT(Message(Verify(MakeDmaLoadStrided(In(0), 1, 0, 2, 8, 9, 1, kF32, kF32))), HasSubstr("beyond region 1"));
  EXPECT_THAT(Message(Verify(MakeDmaLoadStrided(In(0), 1, 4, 2, 8, 8, 1, kF32, kF32))), HasSubstr("beyond region 1"));
  // Column stride 2 over 8 columns: (7*2)*4 + 4 = 60 + offset 4 = 64.
  EXPECT_TRUE(Verify(MakeDmaStore(Acc(0), 2, 4, 1, 8, 0, 2, kF32, kF32)).ok());
  EXPECT_THAT(Message(Verify(MakeDmaStore(Acc(0), 2, 8, 1, 8, 0, 2, kF32, kF32))), HasSubstr("beyond region 2"));
  // Region 0 is the 64-byte constant pool.
  EXPECT_TRUE(Verify(MakeDmaLoadStrided(In(0), 0, 0, 1, 16, 16, 1, kF32, kF32)).ok());
  EXPECT_THAT(Message(Verify(MakeDmaLoadStrided(In(0), 0, 4, 1, 16, 16, 1, kF32, kF32))), HasSubstr("beyond region 0"));
}

TEST(ProgramBounds, RegionIndexAtTheRegionCount) {
  // The entry has 2 regions: 2 is the last, 3 does not exist.
  EXPECT_TRUE(Verify(MakeDmaStore(Acc(0), 2, 0, 1, 16, 16, 1, kF32, kF32)).ok());
  EXPECT_THAT(Message(Verify(MakeDmaStore(Acc(0), 3, 0, 1, 16, 16, 1, kF32, kF32))),
              HasSubstr("DRAM region 3 does not exist"));
  EXPECT_THAT(Message(Verify(MakeDmaLoadStrided(In(0), 3, 0, 1, 16, 16, 1, kF32, kF32))),
              HasSubstr("DRAM region 3 does not exist"));
}

TEST(ProgramBounds, ConstantIndexAtThePoolCount) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  Program p = Base(npu);
  const uint32_t clip = p.AddDescriptor(ConstantKind::kClipDesc, ClipDesc{-3, 3});  // the last
  ASSERT_EQ(clip + 1, p.constants.size());
  EXPECT_TRUE(Verify(p, MakeVector(VectorOp::kClip, kI8, kI8, In(0), 0, Acc(0), 1, 16, clip)).ok());
  EXPECT_THAT(Message(Verify(p, MakeVector(VectorOp::kClip, kI8, kI8, In(0), 0, Acc(0), 1, 16, clip + 1))),
              HasSubstr("does not exist"));
}

// WS: K <= rows, N <= cols; OS: M <= rows, N <= cols; IS: K <= rows,
// M <= cols (isa.h). A 3 x 5 array tells rows from columns.
TEST(ProgramBounds, MatmulTileAtTheArraySize) {
  const SystolicNpuConfig npu = SmallNpu(3, 5);
  auto mm = [&](uint8_t df, uint32_t m, uint32_t k, uint32_t n) {
    return Message(Verify(MakeMatmulTile(df, kI8, false, In(0), SramAddress(Bank::kWeight, 0), Acc(0), m, k, n), npu));
  };
  const uint32_t big = 7;  // the free dimension: any size
  EXPECT_EQ(mm(0, big, 3, 5), "OK");
  EXPECT_THAT(mm(0, big, 4, 5), HasSubstr("ws tile K=4"));
  EXPECT_THAT(mm(0, big, 3, 6), HasSubstr("ws tile K=3 N=6"));
  EXPECT_EQ(mm(1, 3, big, 5), "OK");
  EXPECT_THAT(mm(1, 4, big, 5), HasSubstr("os tile M=4"));
  EXPECT_THAT(mm(1, 3, big, 6), HasSubstr("os tile M=3 N=6"));
  EXPECT_EQ(mm(2, 5, 3, big), "OK");
  EXPECT_THAT(mm(2, 5, 4, big), HasSubstr("is tile K=4"));
  EXPECT_THAT(mm(2, 6, 3, big), HasSubstr("is tile K=3 M=6"));
}

// Tile and vector shapes: 2^30 rows or columns pass the shape check (and
// then fail on the bank), 2^30 + 1 is a bad shape.
TEST(ProgramBounds, ShapeAtTwoToThe30) {
  const uint32_t lim = 1u << 30;
  for (uint32_t rows : {lim, lim + 1}) {
    const std::string m = Message(Verify(MakeVector(VectorOp::kRelu, kF32, kF32, In(0), 0, Acc(0), rows, 1)));
    EXPECT_EQ(m.find("bad shape") != std::string::npos, rows != lim) << rows << ": " << m;
    EXPECT_NE(m, "OK");
  }
  for (uint32_t cols : {lim, lim + 1}) {
    const std::string m = Message(Verify(MakeDmaLoadStrided(In(0), 1, 0, 1, cols, 0, 0, kF32, kF32)));
    EXPECT_EQ(m.find("bad shape") != std::string::npos, cols != lim) << cols << ": " << m;
    EXPECT_NE(m, "OK");
  }
}

Instruction Pool(uint32_t desc, uint32_t cols) {
  return MakeVector(VectorOp::kMaxPool, kI8, kI8, In(0), 0, Acc(0), 1, cols, desc);
}

// A 64 x 64 window is 4096 taps, the limit; 64 x 65 is one row past.
TEST(ProgramBounds, PoolWindowOf4096Taps) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  for (int32_t kw : {64, 65}) {
    Program p = Base(npu);
    PoolDesc d;
    d.in_h = 64;
    d.in_w = kw;
    d.kernel_h = 64;
    d.kernel_w = kw;
    d.out_h = d.out_w = 1;
    const uint32_t desc = p.AddDescriptor(ConstantKind::kPoolDesc, d);
    const std::string m = Message(Verify(p, Pool(desc, 64 * kw), npu));
    if (kw == 64)
      EXPECT_EQ(m, "OK");
    else
      EXPECT_THAT(m, HasSubstr("pool window larger than 4096"));
  }
}

// Pool descriptor fields: strides, dilations and pads up to 2^16,
// count_include_pad 0 or 1.
TEST(ProgramBounds, PoolDescriptorFieldsAtTheirRange) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  auto with = [&](auto edit) {
    Program p = Base(npu);
    PoolDesc d;
    d.in_h = 4;
    d.in_w = 4;
    d.kernel_h = 2;
    d.kernel_w = 2;
    d.out_h = d.out_w = 2;
    edit(d);
    return Message(Verify(p, Pool(p.AddDescriptor(ConstantKind::kPoolDesc, d), 16), npu));
  };
  const int32_t L = 1 << 16;
  EXPECT_EQ(with([&](PoolDesc& d) { d.stride_h = L; }), "OK");
  EXPECT_THAT(with([&](PoolDesc& d) { d.stride_h = L + 1; }), HasSubstr("pool descriptor out of range"));
  EXPECT_EQ(with([&](PoolDesc& d) { d.pad_right = L; }), "OK");
  EXPECT_THAT(with([&](PoolDesc& d) { d.pad_right = L + 1; }), HasSubstr("pool descriptor out of range"));
  EXPECT_EQ(with([&](PoolDesc& d) { d.dilation_w = L; }), "OK");
  EXPECT_THAT(with([&](PoolDesc& d) { d.dilation_w = L + 1; }), HasSubstr("pool descriptor out of range"));
  EXPECT_EQ(with([&](PoolDesc& d) { d.count_include_pad = 1; }), "OK");
  EXPECT_THAT(with([&](PoolDesc& d) { d.count_include_pad = 2; }), HasSubstr("pool descriptor out of range"));
  EXPECT_EQ(with([&](PoolDesc& d) { d.pad_top = 0; }), "OK");
  EXPECT_THAT(with([&](PoolDesc& d) { d.pad_top = -1; }), HasSubstr("pool descriptor out of range"));
}

// ROW_SUM: 255 * cols must fit int32, so at most 2^23 columns.
TEST(ProgramBounds, RowSumOfTwoToThe23Columns) {
  const std::string at = Message(Verify(MakeVector(VectorOp::kRowSum, kI8, kI32, In(0), 0, Acc(0), 1, 1u << 23)));
  EXPECT_THAT(at, Not(HasSubstr("ROW_SUM of more")));
  EXPECT_THAT(at, HasSubstr("exceeds"));  // 8 MiB in a 4 KiB bank
  EXPECT_THAT(Message(Verify(MakeVector(VectorOp::kRowSum, kI8, kI32, In(0), 0, Acc(0), 1, (1u << 23) + 1))),
              HasSubstr("ROW_SUM of more than 2^23 columns"));
}

// REQUANTIZE: zero point and activation bounds in [-128, 127], min <= max.
TEST(ProgramBounds, RequantDescriptorAtTheInt8Range) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  auto with = [&](int32_t zp, int32_t lo, int32_t hi) {
    Program p = Base(npu);
    const uint32_t desc = p.AddDescriptor(ConstantKind::kRequantDesc, RequantDesc{zp, lo, hi});
    return Message(Verify(
        p, MakeVector(VectorOp::kRequantize, kI32, kI8, In(0), SramAddress(Bank::kWeight, 0), Acc(0), 1, 4, desc),
        npu));
  };
  const std::string bad = "requantize descriptor out of range";
  EXPECT_EQ(with(127, -128, 127), "OK");
  EXPECT_EQ(with(-128, -128, 127), "OK");
  EXPECT_THAT(with(128, -128, 127), HasSubstr(bad));
  EXPECT_THAT(with(-129, -128, 127), HasSubstr(bad));
  EXPECT_THAT(with(0, -129, 127), HasSubstr(bad));
  EXPECT_THAT(with(0, -128, 128), HasSubstr(bad));
  EXPECT_EQ(with(0, 5, 5), "OK");
  EXPECT_THAT(with(0, 5, 4), HasSubstr(bad));
}

TEST(ProgramBounds, QuantDescriptorZeroPointAt127) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  for (int32_t zp : {127, 128}) {
    Program p = Base(npu);
    const uint32_t desc = p.AddDescriptor(ConstantKind::kQuantDesc, MakeQuantDesc(0.5f, zp));
    const std::string m =
        Message(Verify(p, MakeVector(VectorOp::kQuantize, kF32, kI8, In(0), 0, Acc(0), 1, 4, desc), npu));
    if (zp == 127)
      EXPECT_EQ(m, "OK");
    else
      EXPECT_THAT(m, HasSubstr("quant descriptor out of range"));
  }
}

// IM2COL: one channel of a 4 x 4 f32 image (region 1, 64 bytes), 2 x 2
// kernel, 3 x 3 output: the patch matrix is 9 x 4; the image read is
// offset + ((channels - 1) * channel_stride + in_h * in_w) * 4 bytes.
std::string Im2col(uint32_t offset, uint32_t rows, uint32_t cols, uint32_t m0, uint32_t k0,
                   void (*edit)(Im2colDesc&) = nullptr) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  Program p = Base(npu);
  Im2colDesc d;
  d.channels = 1;
  d.in_h = d.in_w = 4;
  d.kernel_h = d.kernel_w = 2;
  d.out_h = d.out_w = 3;
  d.channel_stride = 16;
  if (edit) edit(d);
  const uint32_t desc = p.AddDescriptor(ConstantKind::kIm2colDesc, d);
  return Message(Verify(p, MakeDmaLoadIm2col(In(0), 1, offset, rows, cols, desc, m0, k0, kF32, kF32), npu));
}

TEST(ProgramBounds, Im2colTileAtThePatchMatrixEdge) {
  EXPECT_EQ(Im2col(0, 3, 4, 6, 0), "OK");  // rows 6..8 of 9
  EXPECT_THAT(Im2col(0, 3, 4, 7, 0), HasSubstr("outside the patch matrix"));
  EXPECT_EQ(Im2col(0, 9, 2, 0, 2), "OK");  // columns 2..3 of 4
  EXPECT_THAT(Im2col(0, 9, 2, 0, 3), HasSubstr("outside the patch matrix"));
}

TEST(ProgramBounds, Im2colImageEndsAtTheRegionEnd) {
  EXPECT_EQ(Im2col(0, 9, 4, 0, 0), "OK");  // 16 floats: bytes [0, 64)
  EXPECT_THAT(Im2col(4, 9, 4, 0, 0), HasSubstr("im2col image beyond its DRAM region"));
  // Two channels 16 floats apart end at (1 * 16 + 16) * 4 = 128 bytes.
  EXPECT_THAT(Im2col(0, 9, 4, 0, 0, [](Im2colDesc& d) { d.channels = 2; }),
              HasSubstr("im2col image beyond its DRAM region"));
}

// Descriptor fields up to 2^16 (channel stride 2^30): at the limit the
// descriptor is in range (the image then overflows the 64-byte region),
// one past it is not.
TEST(ProgramBounds, Im2colDescriptorFieldsAtTheirRange) {
  const std::string beyond = "im2col image beyond its DRAM region", bad = "im2col descriptor out of range";
  EXPECT_THAT(Im2col(0, 9, 4, 0, 0, [](Im2colDesc& d) { d.channels = 1 << 16; }), HasSubstr(beyond));
  EXPECT_THAT(Im2col(0, 9, 4, 0, 0, [](Im2colDesc& d) { d.channels = (1 << 16) + 1; }), HasSubstr(bad));
  EXPECT_THAT(Im2col(0, 9, 4, 0, 0, [](Im2colDesc& d) { d.in_w = 1 << 16; }), HasSubstr(beyond));
  EXPECT_THAT(Im2col(0, 9, 4, 0, 0, [](Im2colDesc& d) { d.in_w = (1 << 16) + 1; }), HasSubstr(bad));
  EXPECT_EQ(Im2col(0, 9, 4, 0, 0, [](Im2colDesc& d) { d.stride_h = 1 << 16; }), "OK");
  EXPECT_THAT(Im2col(0, 9, 4, 0, 0, [](Im2colDesc& d) { d.stride_h = (1 << 16) + 1; }), HasSubstr(bad));
  EXPECT_EQ(Im2col(0, 9, 4, 0, 0, [](Im2colDesc& d) { d.pad_left = 1 << 16; }), "OK");
  EXPECT_THAT(Im2col(0, 9, 4, 0, 0, [](Im2colDesc& d) { d.pad_left = (1 << 16) + 1; }), HasSubstr(bad));
  EXPECT_THAT(Im2col(0, 9, 4, 0, 0,
                     [](Im2colDesc& d) {
                       d.channels = 2;
                       d.channel_stride = 1 << 30;
                     }),
              HasSubstr(beyond));
  EXPECT_THAT(Im2col(0, 9, 4, 0, 0,
                     [](Im2colDesc& d) {
                       d.channels = 2;
                       d.channel_stride = (1 << 30) + 1;
                     }),
              HasSubstr(bad));
}

// VerifyProgram's region table: sizes in [1, 2^40], at most 255 regions.
TEST(ProgramBounds, RegionSizeAndCount) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  for (uint64_t size : {uint64_t{1}, uint64_t{1} << 40}) {
    Program p = Base(npu, size);
    EXPECT_TRUE(VerifyProgram(p, npu).ok()) << size;
  }
  for (uint64_t size : {uint64_t{0}, (uint64_t{1} << 40) + 1})
    EXPECT_THAT(Message(VerifyProgram(Base(npu, size), npu)), HasSubstr("region 1: bad size")) << size;
  for (size_t count : {size_t{255}, size_t{256}}) {
    Program p = Base(npu);
    p.entries[0].regions.resize(count, Region{RegionKind::kScratch, 0, kF32, {}, 16});
    const std::string m = Message(VerifyProgram(p, npu));
    if (count == 255)
      EXPECT_EQ(m, "OK");
    else
      EXPECT_THAT(m, HasSubstr("too many regions"));
  }
}

// The parser's counts. Offsets from the body layout of
// docs/systolic_npu_isa.md: header 56 bytes (constant count at 28, entry
// count at 48), constant records of 24 bytes (kind first), entry header 80
// bytes (region count at 64, instruction count at 68), region records of
// 88 bytes (rank at 12).
class ParseBounds : public ::testing::Test {
 protected:
  void SetUp() override {
    Program p = Base(npu_);
    p.entries[0].code = {MakeSync()};
    std::vector<EntryRange> ranges;
    body_ = SerializeProgram(p, &ranges);
    entry_ = ranges.at(0).offset;
    ASSERT_TRUE(ParseProgram(body_).ok());
  }
  std::string ParseWith(size_t at, uint32_t v) {
    std::vector<uint8_t> b = body_;
    std::memcpy(b.data() + at, &v, 4);
    const absl::StatusOr<Program> p = ParseProgram(b);
    return p.ok() ? "OK" : std::string(p.status().message());
  }
  SystolicNpuConfig npu_ = SmallNpu(4, 4);
  std::vector<uint8_t> body_;
  size_t entry_ = 0;
};

TEST_F(ParseBounds, EntryCountAt65536) {
  EXPECT_THAT(ParseWith(48, 65536), HasSubstr("entry 1 truncated"));
  EXPECT_THAT(ParseWith(48, 65537), HasSubstr("too many entry points"));
}

TEST_F(ParseBounds, RegionCountAt255) {
  EXPECT_THAT(ParseWith(entry_ + 64, 255), HasSubstr("'main' truncated"));
  EXPECT_THAT(ParseWith(entry_ + 64, 256), HasSubstr("too many regions"));
}

TEST_F(ParseBounds, InstructionCountAtTwoToThe26) {
  EXPECT_THAT(ParseWith(entry_ + 68, 1u << 26), HasSubstr("'main' truncated"));
  EXPECT_THAT(ParseWith(entry_ + 68, (1u << 26) + 1), HasSubstr("too many instructions"));
}

TEST_F(ParseBounds, RankAt8) {
  EXPECT_EQ(ParseWith(entry_ + 80 + 12, 8), "OK");
  EXPECT_THAT(ParseWith(entry_ + 80 + 12, 9), HasSubstr("rank > 8"));
}

// Constant kinds 1..7: 7 (QUANT) is known (then the 64-byte record is the
// wrong size for it), 8 is not.
TEST_F(ParseBounds, ConstantKindAt7) {
  EXPECT_THAT(ParseWith(56, 7), HasSubstr("descriptor size 64 (want 8)"));
  EXPECT_THAT(ParseWith(56, 8), HasSubstr("unknown kind 8"));
  EXPECT_THAT(ParseWith(56, 0), HasSubstr("unknown kind 0"));
}

}  // namespace
}  // namespace tessera::systolic
