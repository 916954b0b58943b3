// VECTOR SOFTMAX: hand vectors, the softmax formula in double, the cycle
// formula on hand-worked cases, the verifier's rules, and a program that
// loads, softmaxes and stores run in both execution modes (they must agree
// on every byte and metric).
#include "plugins/systolic_npu/machine/vector_softmax.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/cycle_model.h"
#include "plugins/systolic_npu/machine/lookup_tables.h"
#include "plugins/systolic_npu/machine/test_util.h"
#include "plugins/systolic_npu/machine/vector_unit.h"

namespace tessera::systolic {
namespace {

using snpu_test::Bytes;
using snpu_test::RunEntry;
using snpu_test::SmallNpu;

const uint32_t kSrc = SramAddress(Bank::kInput, 0), kDst = SramAddress(Bank::kAccum, 0);

std::vector<float> RunF32(uint64_t rows, uint64_t cols, const std::vector<float>& x) {
  std::vector<uint8_t> b0(x.size() * 4), b1(16), b2(x.size() * 4);
  std::memcpy(b0.data(), x.data(), b0.size());
  uint8_t* banks[3] = {b0.data(), b1.data(), b2.data()};
  ExecuteVector(Program{}, MakeVector(VectorOp::kSoftmax, TSR_DTYPE_F32, TSR_DTYPE_F32, kSrc, 0, kDst, rows, cols),
                banks);
  std::vector<float> y(x.size());
  std::memcpy(y.data(), b2.data(), b2.size());
  return y;
}

// Each of these is exact: EXP(0) = 1 and EXP(-inf) = +0 exactly, and the
// sums and reciprocals are powers of two.
TEST(VectorSoftmax, HandVectors) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> y = RunF32(3, 4,
                                      {0, 0, 0, 0,              // uniform
                                       1000, 1000, 1000, 1000,  // the row max keeps EXP finite
                                       0, -inf, 0, -inf});      // masked positions get exactly 0
  EXPECT_EQ(y, (std::vector<float>{0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.5f, 0, 0.5f, 0}));
  // A NaN anywhere in a row makes the whole row NaN; other rows are untouched.
  const std::vector<float> n = RunF32(2, 2, {std::nanf(""), 1, 3, 3});
  EXPECT_TRUE(std::isnan(n[0]) && std::isnan(n[1]));
  EXPECT_EQ(n[2], 0.5f);
  EXPECT_EQ(n[3], 0.5f);
}

// Against softmax in double: each EXP is within kLutRelativeTolerance, the
// subtraction of the max, the sum of `cols` terms and the scale add at
// most (cols + 4) f32 roundings, so |y - y*| <= (2 * tol + (cols + 4) 2^-24) y*
// (+ 2^-11 y* for the F16 result, whose inputs are the f16-rounded x).
TEST(VectorSoftmax, MatchesTheFormulaInF32AndF16) {
  std::mt19937 rng(32);
  for (int32_t dt : {TSR_DTYPE_F32, TSR_DTYPE_F16}) {
    const uint64_t rows = 5, cols = 37;
    const std::vector<float> x = snpu_test::RandomF(rng, rows * cols, -6, 6);
    const std::vector<uint8_t> xb = snpu_test::FloatsAs(x, dt);
    std::vector<uint8_t> y(xb.size());
    ExecuteSoftmaxRows(dt, rows, cols, xb.data(), y.data());
    const double rel = 2 * kLutRelativeTolerance + (cols + 4) * 0x1p-24 + (dt == TSR_DTYPE_F16 ? 0x1p-11 : 0);
    for (uint64_t r = 0; r < rows; ++r) {
      double m = -INFINITY, s = 0;
      for (uint64_t c = 0; c < cols; ++c) m = std::max(m, snpu_test::OutputValue(xb, dt, r * cols + c));
      for (uint64_t c = 0; c < cols; ++c) s += std::exp(snpu_test::OutputValue(xb, dt, r * cols + c) - m);
      for (uint64_t c = 0; c < cols; ++c) {
        const double want = std::exp(snpu_test::OutputValue(xb, dt, r * cols + c) - m) / s;
        EXPECT_NEAR(snpu_test::OutputValue(y, dt, r * cols + c), want, rel * want + 0x1p-24)
            << NpuDtypeName(dt) << " row " << r << " col " << c;
      }
    }
  }
}

// 4 + rows * (3 * ceil(cols / lanes) + 2 * ceil(log2 lanes) + 1).
TEST(VectorSoftmax, Cycles) {
  EXPECT_EQ(SoftmaxCycles(2, 10, 4), 4u + 2u * (3u * 3u + 2u * 2u + 1u));  // 32
  EXPECT_EQ(SoftmaxCycles(1, 1, 1), 4u + 1u * (3u + 0u + 1u));             // 8
  EXPECT_EQ(SoftmaxCycles(16, 16, 32), 4u + 16u * (3u + 2u * 5u + 1u));    // 228
  EXPECT_EQ(SoftmaxCycles(1, 5, 3), 4u + (3u * 2u + 2u * 2u + 1u));        // 15: log2 3 rounds up
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  EXPECT_EQ(VectorCycles(Program{}, MakeVector(VectorOp::kSoftmax, TSR_DTYPE_F16, TSR_DTYPE_F16, 0, 0, 0, 2, 10), npu),
            32u);
}

// x [rows, cols] f32 in DRAM -> f16 in the input bank -> SOFTMAX -> f32 out.
Program SoftmaxProgram(const SystolicNpuConfig& npu, uint32_t rows, uint32_t cols, const Instruction& vector) {
  Program p;
  p.target = TargetInfo::FromSoc(npu);
  EntryPoint e;
  e.name = "softmax";
  e.regions.push_back({RegionKind::kInput, 0, TSR_DTYPE_F32, {rows, cols}, uint64_t{rows} * cols * 4});
  e.regions.push_back({RegionKind::kOutput, 0, TSR_DTYPE_F32, {rows, cols}, uint64_t{rows} * cols * 4});
  e.code.push_back(MakeDmaLoadStrided(kSrc, 1, 0, rows, cols, cols, 1, TSR_DTYPE_F32, TSR_DTYPE_F16));
  e.code.push_back(vector);
  e.code.push_back(MakeDmaStore(kDst, 2, 0, rows, cols, cols, 1, TSR_DTYPE_F16, TSR_DTYPE_F32));
  p.entries.push_back(e);
  return p;
}

TEST(VectorSoftmax, FastAndCycleSteppedAgreeAndTheVerifierKnowsIt) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  const uint32_t rows = 6, cols = 9;
  const Instruction ok = MakeVector(VectorOp::kSoftmax, TSR_DTYPE_F16, TSR_DTYPE_F16, kSrc, 0, kDst, rows, cols);
  const Program p = SoftmaxProgram(npu, rows, cols, ok);
  ASSERT_TRUE(VerifyProgram(p, npu).ok()) << VerifyProgram(p, npu);
  std::mt19937 rng(7);
  const std::vector<float> x = snpu_test::RandomF(rng, rows * cols, -4, 4);
  const auto fast = RunEntry(p, npu, {Bytes(x)}, {ExecMode::kFast, Overlap::kDefault});
  const auto stepped = RunEntry(p, npu, {Bytes(x)}, {ExecMode::kCycleStepped, Overlap::kDefault});
  EXPECT_EQ(fast.outputs, stepped.outputs);
  EXPECT_EQ(fast.metrics, stepped.metrics);
  EXPECT_GE(fast.metrics.cycles_compute, SoftmaxCycles(rows, cols, 4));
  // Every row sums to 1 within the F16 bound.
  const std::vector<float> y = snpu_test::AsFloats(fast.outputs[0]);
  for (uint32_t r = 0; r < rows; ++r) {
    double s = 0;
    for (uint32_t c = 0; c < cols; ++c) s += y[r * cols + c];
    EXPECT_NEAR(s, 1.0, cols * 0x1p-11) << "row " << r;
  }
  // The verifier: float only, same result dtype, no src1, no descriptor.
  auto rejected = [&](Instruction bad) { return !VerifyProgram(SoftmaxProgram(npu, rows, cols, bad), npu).ok(); };
  Instruction i8 = ok;
  i8.b = i8.c = TSR_DTYPE_I8;
  EXPECT_TRUE(rejected(i8));
  Instruction widen = ok;
  widen.c = TSR_DTYPE_F32;
  EXPECT_TRUE(rejected(widen));
  Instruction src1 = ok;
  src1.f[1] = SramAddress(Bank::kWeight, 0);
  EXPECT_TRUE(rejected(src1));
  Instruction desc = ok;
  desc.f[5] = 0;
  EXPECT_TRUE(rejected(desc));
  Instruction flags = ok;
  flags.f[6] = kVectorBroadcastSrc1PerRow;
  EXPECT_TRUE(rejected(flags));
  EXPECT_EQ(std::string(VectorOpName(VectorOp::kSoftmax)), "SOFTMAX");
}

}  // namespace
}  // namespace tessera::systolic
