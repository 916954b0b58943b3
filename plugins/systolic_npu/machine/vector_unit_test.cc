// The vector unit's SUB and broadcast modes on hand vectors: the expected
// values are worked out by hand from docs/ops.md (float: one fp32
// operation, F16 rounded to nearest even; INT8 ADD / MUL: dequantize,
// compute and requantize in f32, ties to even, saturate).
#include "plugins/systolic_npu/machine/vector_unit.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/cycle_model.h"
#include "plugins/systolic_npu/machine/fp16.h"
#include "plugins/systolic_npu/machine/quant.h"
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

// Three 256-byte banks: src0 in the input bank, src1 in the weight bank,
// dst in the accumulator bank, all at offset 0.
struct Banks {
  std::vector<uint8_t> b[3] = {std::vector<uint8_t>(256), std::vector<uint8_t>(256), std::vector<uint8_t>(256)};
  uint8_t* ptr[3] = {b[0].data(), b[1].data(), b[2].data()};
  template <typename T>
  void Put(int bank, const std::vector<T>& v) {
    std::memcpy(b[bank].data(), v.data(), v.size() * sizeof(T));
  }
  template <typename T>
  std::vector<T> Result(size_t n) const {
    std::vector<T> v(n);
    std::memcpy(v.data(), b[2].data(), n * sizeof(T));
    return v;
  }
};

const uint32_t kSrc0 = SramAddress(Bank::kInput, 0), kSrc1 = SramAddress(Bank::kWeight, 0),
               kDst = SramAddress(Bank::kAccum, 0);

Instruction Binary(VectorOp op, int32_t dt, uint32_t rows, uint32_t cols, uint32_t flags, uint32_t desc = kNoConstant) {
  Instruction in = MakeVector(op, dt, dt, kSrc0, kSrc1, kDst, rows, cols, desc);
  in.f[6] = flags;
  return in;
}

TEST(VectorUnit, SubF32AndF16) {
  Program p;
  Banks m;
  m.Put<float>(0, {1.5f, -2.0f, 0.1f});
  m.Put<float>(1, {0.25f, 0.5f, 0.1f});
  ExecuteVector(p, Binary(VectorOp::kSub, TSR_DTYPE_F32, 1, 3, 0), m.ptr);
  EXPECT_EQ(m.Result<float>(3), (std::vector<float>{1.25f, -2.5f, 0.0f}));
  // F16: 1 - 2^-11 is exact; 1 - 2^-12 lies halfway between 1 - 2^-11 and 1
  // and rounds to the even one, 1.0; 2^-14 - 2^-15 = 2^-15, a subnormal.
  m.Put<uint16_t>(0, {0x3C00, 0x3C00, 0x0400});  // 1, 1, 2^-14
  m.Put<uint16_t>(1, {0x1000, 0x0C00, 0x0200});  // 2^-11, 2^-12, 2^-15
  ExecuteVector(p, Binary(VectorOp::kSub, TSR_DTYPE_F16, 1, 3, 0), m.ptr);
  EXPECT_EQ(m.Result<uint16_t>(3), (std::vector<uint16_t>{0x3BFF, 0x3C00, 0x0200}));
}

TEST(VectorUnit, PerRowBroadcastFloat) {
  Program p;
  Banks m;
  m.Put<float>(0, {1, 2, 3, 4, 5, 6});
  m.Put<float>(1, {10, 20});  // one value per row
  ExecuteVector(p, Binary(VectorOp::kAdd, TSR_DTYPE_F32, 2, 3, kVectorBroadcastSrc1PerRow), m.ptr);
  EXPECT_EQ(m.Result<float>(6), (std::vector<float>{11, 12, 13, 24, 25, 26}));
  ExecuteVector(p, Binary(VectorOp::kSub, TSR_DTYPE_F32, 2, 3, kVectorBroadcastSrc1PerRow), m.ptr);
  EXPECT_EQ(m.Result<float>(6), (std::vector<float>{-9, -8, -7, -16, -15, -14}));
  ExecuteVector(p, Binary(VectorOp::kMul, TSR_DTYPE_F32, 2, 3, kVectorBroadcastSrc1PerRow), m.ptr);
  EXPECT_EQ(m.Result<float>(6), (std::vector<float>{10, 20, 30, 80, 100, 120}));
  // The row broadcast (bit 0) still reads one row of `cols` values.
  m.Put<float>(1, {10, 20, 30});
  ExecuteVector(p, Binary(VectorOp::kSub, TSR_DTYPE_F32, 2, 3, kVectorBroadcastSrc1), m.ptr);
  EXPECT_EQ(m.Result<float>(6), (std::vector<float>{-9, -18, -27, -6, -15, -24}));
}

TEST(VectorUnit, PerRowBroadcastInt8) {
  Program p;
  // a: scale 0.5, zp 1; b: scale 0.25, zp -2; out: scale 0.125, zp 3.
  const uint32_t d1 =
      p.AddDescriptor(ConstantKind::kQuantEltwiseDesc, MakeQuantEltwiseDesc(0.5f, 1, 0.25f, -2, 0.125f, 3));
  Banks m;
  m.Put<int8_t>(0, {5, -1, 127, 9, 1, -128});
  m.Put<int8_t>(1, {6, -2});  // rb = 2.0 for row 0, 0.0 for row 1
  // ra = 2, -1, 63 | 4, 0, -64.5.
  // MUL: 4, -2, 126 | 0, 0, 0  -> /0.125 + 3 = 35, -13, 1011 -> 127 | 3, 3, 3.
  ExecuteVector(p, Binary(VectorOp::kMul, TSR_DTYPE_I8, 2, 3, kVectorBroadcastSrc1PerRow, d1), m.ptr);
  EXPECT_EQ(m.Result<int8_t>(6), (std::vector<int8_t>{35, -13, 127, 3, 3, 3}));
  // ADD: 4, 1, 65 | 4, 0, -64.5 -> 35, 11, 523 -> 127 | 35, 3, -513 -> -128.
  ExecuteVector(p, Binary(VectorOp::kAdd, TSR_DTYPE_I8, 2, 3, kVectorBroadcastSrc1PerRow, d1), m.ptr);
  EXPECT_EQ(m.Result<int8_t>(6), (std::vector<int8_t>{35, 11, 127, 35, 3, -128}));
  // Ties to even: out scale 0.5, zp 3. ra = 0.5 (a = 2); rb = -0.25 (b = -3)
  // gives r / s = 0.5 -> 0 -> 3; rb = 0.25 (b = -1) gives 1.5 -> 2 -> 5.
  const uint32_t d2 =
      p.AddDescriptor(ConstantKind::kQuantEltwiseDesc, MakeQuantEltwiseDesc(0.5f, 1, 0.25f, -2, 0.5f, 3));
  m.Put<int8_t>(0, {2, 2});  // ra = (2 - 1) * 0.5 = 0.5
  m.Put<int8_t>(1, {-3, -1});
  ExecuteVector(p, Binary(VectorOp::kAdd, TSR_DTYPE_I8, 2, 1, kVectorBroadcastSrc1PerRow, d2), m.ptr);
  EXPECT_EQ(m.Result<int8_t>(2), (std::vector<int8_t>{3, 5}));
}

// Cost of a per-row broadcast: the usual 4 + ceil(elements / lanes); src1
// traffic is one element per row.
TEST(VectorUnit, PerRowBroadcastCyclesAndTraffic) {
  const SystolicNpuConfig npu = snpu_test::SmallNpu(4, 4);  // 4 lanes
  Program p;
  const Instruction in = Binary(VectorOp::kSub, TSR_DTYPE_F32, 3, 5, kVectorBroadcastSrc1PerRow);
  EXPECT_EQ(VectorCycles(p, in, npu), 4u + 4u);  // ceil(15 / 4)
  const Traffic t = InstructionTraffic(p, in);
  EXPECT_EQ(t.sram_read, 15u * 4 + 3u * 4);
  EXPECT_EQ(t.sram_write, 15u * 4);
  const Footprint fp = InstructionFootprint(p, in);
  ASSERT_EQ(fp.read_count, 2);
  EXPECT_EQ(fp.reads[1].hi - fp.reads[1].lo, 3u * 4);
}

// INT8 SUB: the ADD pipeline with one f32 subtraction. a: scale 0.5 zp 1;
// b: scale 0.25 zp -2; out: scale 0.5 zp 3.
TEST(VectorUnit, SubInt8) {
  Program p;
  const uint32_t d =
      p.AddDescriptor(ConstantKind::kQuantEltwiseDesc, MakeQuantEltwiseDesc(0.5f, 1, 0.25f, -2, 0.5f, 3));
  Banks m;
  m.Put<int8_t>(0, {5, 2, 2, -128});
  m.Put<int8_t>(1, {6, -1, -5, 127});
  // ra = 2, 0.5, 0.5, -64.5; rb = 2, 0.25, -0.75, 32.25.
  // r = 0 -> 3; 0.25 -> 0.5 ties to 0 -> 3; 1.25 -> 2.5 ties to 2 -> 5;
  // -96.75 -> -193.5 -> saturates to -128.
  ExecuteVector(p, Binary(VectorOp::kSub, TSR_DTYPE_I8, 1, 4, 0, d), m.ptr);
  EXPECT_EQ(m.Result<int8_t>(4), (std::vector<int8_t>{3, 3, 5, -128}));
}

// TABLE: dst = T[src0 + 128], one table, or one per row (f6 bit 1).
TEST(VectorUnit, TableOneAndPerRow) {
  Program p;
  Banks m;
  m.b[1].assign(512, 0);
  m.ptr[1] = m.b[1].data();
  for (int i = 0; i < 256; ++i) {
    m.b[1][i] = static_cast<uint8_t>(255 - i);      // table 0: T[j] = 255 - j (as int8)
    m.b[1][256 + i] = static_cast<uint8_t>(i / 2);  // table 1: T[j] = j / 2
  }
  m.Put<int8_t>(0, {-128, 0, 127, -1, 5, 100});
  ExecuteVector(p, MakeVector(VectorOp::kTable, TSR_DTYPE_I8, TSR_DTYPE_I8, kSrc0, kSrc1, kDst, 2, 3), m.ptr);
  // j = q + 128 = 0, 128, 255, 127, 133, 228 -> 255 - j = -1, 127, 0, -128, 122, 27.
  EXPECT_EQ(m.Result<int8_t>(6), (std::vector<int8_t>{-1, 127, 0, -128, 122, 27}));
  Instruction per_row = MakeVector(VectorOp::kTable, TSR_DTYPE_I8, TSR_DTYPE_I8, kSrc0, kSrc1, kDst, 2, 3);
  per_row.f[6] = kVectorBroadcastSrc1PerRow;
  ExecuteVector(p, per_row, m.ptr);
  // Row 1 reads table 1: 127 / 2, 133 / 2, 228 / 2 = 63, 66, 114.
  EXPECT_EQ(m.Result<int8_t>(6), (std::vector<int8_t>{-1, 127, 0, 63, 66, 114}));
  // Cost: 4 + ceil(6 / 4); src1 traffic: the tables read.
  const SystolicNpuConfig npu = snpu_test::SmallNpu(4, 4);
  EXPECT_EQ(VectorCycles(p, per_row, npu), 4u + 2u);
  EXPECT_EQ(InstructionTraffic(p, per_row).sram_read, 6u + 512u);
  const Footprint fp = InstructionFootprint(p, per_row);
  ASSERT_EQ(fp.read_count, 2);
  EXPECT_EQ(fp.reads[1].hi - fp.reads[1].lo, 512u);
}

// ROW_SUM: exact int32 sums of int8 rows; lanes across rows, one column
// per pass: 4 + cols * ceil(rows / lanes).
TEST(VectorUnit, RowSum) {
  Program p;
  Banks m;
  m.Put<int8_t>(0, {-128, -128, -128, 1, 2, 3, 127, 127, 127});
  const Instruction in = MakeVector(VectorOp::kRowSum, TSR_DTYPE_I8, TSR_DTYPE_I32, kSrc0, 0, kDst, 3, 3);
  ExecuteVector(p, in, m.ptr);
  EXPECT_EQ(m.Result<int32_t>(3), (std::vector<int32_t>{-384, 6, 381}));
  const SystolicNpuConfig npu = snpu_test::SmallNpu(4, 4);
  EXPECT_EQ(VectorCycles(p, in, npu), 4u + 3u * 1u);
  EXPECT_EQ(InstructionTraffic(p, in).sram_write, 3u * 4);
  EXPECT_EQ(VectorResultBytes(p, in), 12u);
}

}  // namespace
}  // namespace tessera::systolic
