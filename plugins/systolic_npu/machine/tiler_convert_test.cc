// RESHAPE (copy), QUANTIZE and DEQUANTIZE lowerings: the code they emit,
// their results against hand-computed vectors (the docs/ops.md formulas of
// the CPU reference), both execution modes, and the verifier's rules for
// the new VECTOR ops.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/cycle_model.h"
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using snpu_test::Bytes;
using snpu_test::RunEntry;
using snpu_test::SmallNpu;

constexpr float kInf = std::numeric_limits<float>::infinity();

size_t CountOps(const Program& p, Opcode op) {
  size_t n = 0;
  for (const Instruction& in : p.entries[0].code) n += in.op == op;
  return n;
}

ConvertLayer Layer(ConvertOp op, int64_t count, int32_t in, int32_t out, float scale = 1, int32_t zp = 0) {
  ConvertLayer L;
  L.op = op;
  L.count = count;
  L.in_dtype = in;
  L.out_dtype = out;
  L.q = {scale, zp};
  return L;
}

// Runs in both modes; they must agree on every byte and metric.
snpu_test::RunResult RunBoth(const Program& p, const SystolicNpuConfig& npu, std::span<const uint8_t> input) {
  const auto fast = RunEntry(p, npu, {input}, {ExecMode::kFast, Overlap::kDefault});
  const auto stepped = RunEntry(p, npu, {input}, {ExecMode::kCycleStepped, Overlap::kDefault});
  EXPECT_EQ(fast.outputs, stepped.outputs);
  EXPECT_EQ(fast.metrics, stepped.metrics);
  return fast;
}

TEST(TilerConvert, CopyIsDmaOnlyInChunksAndBitExact) {
  // 1 KiB input bank halves: 3000 f32 = 12000 bytes -> 24 chunks of 128.
  const SystolicNpuConfig npu = SmallNpu(4, 4, 1, 1, 1);
  for (int32_t dt : {TSR_DTYPE_F32, TSR_DTYPE_F16, TSR_DTYPE_I8, TSR_DTYPE_I32}) {
    const int64_t n = 3000;
    auto p = CompileConvertProgram(Layer(ConvertOp::kCopy, n, dt, dt), npu);
    ASSERT_TRUE(p.ok()) << p.status();
    const size_t es = NpuDtypeSize(dt);
    const size_t chunks = (n * es + 511) / 512;
    EXPECT_EQ(CountOps(*p, Opcode::kVector), 0u);
    EXPECT_EQ(CountOps(*p, Opcode::kDmaLoad), chunks);
    EXPECT_EQ(CountOps(*p, Opcode::kDmaStore), chunks);
    std::mt19937 rng(dt);
    const auto in = snpu_test::RandomI8(rng, n * es);  // any bit patterns, NaNs too
    const auto r = RunBoth(*p, npu, in);
    EXPECT_EQ(r.outputs[0], in);
    // The metrics are those of the copy: bytes once each way, no compute.
    EXPECT_EQ(r.metrics.dram_read_bytes, n * es);
    EXPECT_EQ(r.metrics.dram_write_bytes, n * es);
    EXPECT_EQ(r.metrics.sram_write_bytes, n * es);
    EXPECT_EQ(r.metrics.cycles_compute, 0u);
    EXPECT_EQ(r.metrics.macs, 0u);
    EXPECT_GT(r.metrics.cycles_total, 0u);
    EXPECT_EQ(EstimateEntry(*p, p->entries[0], npu, Overlap::kDefault), r.metrics);
  }
}

TEST(TilerConvert, QuantizeF32HandVectors) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  const std::vector<float> x = {0,    1,     2.5f,  -2.5f, 1000, 0.25f, 0.75f, -0.25f, std::nanf(""),
                                kInf, -kInf, -1000, 1.75f};
  auto p = CompileConvertProgram(Layer(ConvertOp::kQuantize, x.size(), TSR_DTYPE_F32, TSR_DTYPE_I8, 0.5f, 1), npu);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(CountOps(*p, Opcode::kVector), 1u);
  const auto r = RunBoth(*p, npu, Bytes(x));
  // x / 0.5 = {0, 2, 5, -5, 2000, 0.5, 1.5, -0.5, NaN, inf, -inf, -2000, 3.5}:
  // ties to even, + 1, saturate, NaN -> 0.
  const std::vector<int8_t> want = {1, 3, 6, -4, 127, 1, 3, 1, 0, 127, -128, -128, 5};
  std::vector<int8_t> got(r.outputs[0].size());
  std::memcpy(got.data(), r.outputs[0].data(), got.size());
  EXPECT_EQ(got, want);
}

TEST(TilerConvert, QuantizeF16InputAndManyChunks) {
  // 600 f16 elements through 512-byte halves: several chunks.
  const SystolicNpuConfig npu = SmallNpu(4, 4, 1, 1, 1);
  std::vector<float> xf;
  for (int i = 0; i < 600; ++i) xf.push_back(-40.0f + 0.15f * static_cast<float>(i));
  const std::vector<uint16_t> xh = snpu_test::ToHalf(xf);
  auto p = CompileConvertProgram(Layer(ConvertOp::kQuantize, xh.size(), TSR_DTYPE_F16, TSR_DTYPE_I8, 0.25f, -3), npu);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_GT(CountOps(*p, Opcode::kVector), 1u);
  const auto r = RunBoth(*p, npu, Bytes(xh));
  for (size_t i = 0; i < xh.size(); ++i)
    ASSERT_EQ(static_cast<int8_t>(r.outputs[0][i]), QuantizeToInt8(HalfToFloat(xh[i]), 0.25f, -3)) << i;
  // By hand: -40 / 0.25 - 3 = -163 saturates to -128; 49.85 / 0.25 = 199.4
  // to 127; -25 / 0.25 - 3 = -103 (x[100], exact in f16).
  EXPECT_EQ(static_cast<int8_t>(r.outputs[0][0]), -128);
  EXPECT_EQ(static_cast<int8_t>(r.outputs[0][599]), 127);
  EXPECT_EQ(static_cast<int8_t>(r.outputs[0][100]), -103);
}

TEST(TilerConvert, DequantizeToF32AndF16) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  std::vector<int8_t> q;
  for (int v = -128; v <= 127; ++v) q.push_back(static_cast<int8_t>(v));
  auto p32 = CompileConvertProgram(Layer(ConvertOp::kDequantize, q.size(), TSR_DTYPE_I8, TSR_DTYPE_F32, 0.5f, -1), npu);
  ASSERT_TRUE(p32.ok()) << p32.status();
  const auto r32 = RunBoth(*p32, npu, Bytes(q));
  const std::vector<float> y = snpu_test::AsFloats(r32.outputs[0]);
  ASSERT_EQ(y.size(), 256u);
  EXPECT_EQ(y[0], -63.5f);   // (-128 + 1) * 0.5
  EXPECT_EQ(y[128], 0.5f);   // (0 + 1) * 0.5
  EXPECT_EQ(y[255], 64.0f);  // (127 + 1) * 0.5
  // f16 output: the f32 result rounded once to nearest even.
  auto p16 = CompileConvertProgram(Layer(ConvertOp::kDequantize, q.size(), TSR_DTYPE_I8, TSR_DTYPE_F16, 0.1f, 0), npu);
  ASSERT_TRUE(p16.ok()) << p16.status();
  const auto r16 = RunBoth(*p16, npu, Bytes(q));
  std::vector<uint16_t> h(256);
  std::memcpy(h.data(), r16.outputs[0].data(), 512);
  EXPECT_EQ(HalfToFloat(h[255]), 12.703125f);  // 12.7f: 1625.6 ulps of 2^-7 -> 1626
  EXPECT_EQ(HalfToFloat(h[128]), 0.0f);
  EXPECT_EQ(HalfToFloat(h[0]), -12.796875f);  // -12.8f -> -1638.4 ulps -> -1638
  for (int i = 0; i < 256; ++i) ASSERT_EQ(h[i], FloatToHalf(DequantizeInt8(q[i], 0.1f, 0))) << i;
}

TEST(TilerConvert, RejectsBadLayers) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  EXPECT_FALSE(CompileConvertProgram(Layer(ConvertOp::kCopy, 8, TSR_DTYPE_F32, TSR_DTYPE_F16), npu).ok());
  EXPECT_FALSE(CompileConvertProgram(Layer(ConvertOp::kCopy, 0, TSR_DTYPE_F32, TSR_DTYPE_F32), npu).ok());
  EXPECT_FALSE(CompileConvertProgram(Layer(ConvertOp::kCopy, 8, TSR_DTYPE_U8, TSR_DTYPE_U8), npu).ok());
  EXPECT_FALSE(CompileConvertProgram(Layer(ConvertOp::kQuantize, 8, TSR_DTYPE_F32, TSR_DTYPE_U8, 1, 0), npu).ok());
  EXPECT_FALSE(CompileConvertProgram(Layer(ConvertOp::kQuantize, 8, TSR_DTYPE_I8, TSR_DTYPE_I8, 1, 0), npu).ok());
  EXPECT_FALSE(CompileConvertProgram(Layer(ConvertOp::kDequantize, 8, TSR_DTYPE_I8, TSR_DTYPE_I32, 1, 0), npu).ok());
  for (float bad : {0.0f, -1.0f, kInf, std::nanf("")})
    EXPECT_FALSE(CompileConvertProgram(Layer(ConvertOp::kQuantize, 8, TSR_DTYPE_F32, TSR_DTYPE_I8, bad, 0), npu).ok())
        << bad;
  EXPECT_FALSE(CompileConvertProgram(Layer(ConvertOp::kDequantize, 8, TSR_DTYPE_I8, TSR_DTYPE_F32, 1, 128), npu).ok());
}

// The verifier's rules for QUANTIZE / DEQUANTIZE, on hand-edited programs.
class ConvertVerifier : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = CompileConvertProgram(Layer(ConvertOp::kQuantize, 16, TSR_DTYPE_F32, TSR_DTYPE_I8, 0.5f, 0), npu_);
    ASSERT_TRUE(p.ok()) << p.status();
    p_ = *p;
    for (Instruction& in : p_.entries[0].code)
      if (in.op == Opcode::kVector) vec_ = &in;
    ASSERT_NE(vec_, nullptr);
    ASSERT_TRUE(VerifyProgram(p_, npu_).ok());
  }
  void SetDesc(float scale, int32_t zp) {
    const QuantDesc d = MakeQuantDesc(scale, zp);
    std::memcpy(p_.constant_data.data() + p_.constants[vec_->f[5]].offset, &d, sizeof d);
  }
  std::string Rejects() {
    const absl::Status s = VerifyProgram(p_, npu_);
    EXPECT_FALSE(s.ok());
    return std::string(s.message());
  }
  SystolicNpuConfig npu_ = SmallNpu(4, 4);
  Program p_;
  Instruction* vec_ = nullptr;
};

TEST_F(ConvertVerifier, RejectsBadDescriptors) {
  for (float bad : {0.0f, -0.5f, kInf, std::nanf("")}) {
    SetDesc(bad, 0);
    EXPECT_NE(Rejects().find("quant descriptor out of range"), std::string::npos) << bad;
  }
  for (int32_t zp : {128, -129, 1 << 20}) {
    SetDesc(0.5f, zp);
    EXPECT_NE(Rejects().find("quant descriptor out of range"), std::string::npos) << zp;
  }
  SetDesc(0.5f, -128);
  EXPECT_TRUE(VerifyProgram(p_, npu_).ok());
  vec_->f[5] = kNoConstant;
  Rejects();
  vec_->f[5] = 99;  // no such constant
  Rejects();
}

TEST_F(ConvertVerifier, RejectsBadDtypePairsAndFields) {
  const Instruction ok = *vec_;
  const std::pair<int, int> bad_quantize[] = {{TSR_DTYPE_F32, TSR_DTYPE_F16},
                                              {TSR_DTYPE_I8, TSR_DTYPE_I8},
                                              {TSR_DTYPE_I32, TSR_DTYPE_I8},
                                              {TSR_DTYPE_F32, TSR_DTYPE_I32}};
  for (auto [b, c] : bad_quantize) {
    *vec_ = ok;
    vec_->b = static_cast<uint8_t>(b);
    vec_->c = static_cast<uint8_t>(c);
    EXPECT_NE(Rejects().find("QUANTIZE is f32/f16 -> i8"), std::string::npos) << b << " " << c;
  }
  *vec_ = ok;
  vec_->a = static_cast<uint8_t>(VectorOp::kDequantize);  // f32 -> i8 is not a dequantize
  EXPECT_NE(Rejects().find("DEQUANTIZE is i8 -> f32/f16"), std::string::npos);
  vec_->b = TSR_DTYPE_I8;
  vec_->c = TSR_DTYPE_F16;
  EXPECT_TRUE(VerifyProgram(p_, npu_).ok());
  vec_->f[1] = 64;  // src1 unused
  EXPECT_NE(Rejects().find("src1 must be zero"), std::string::npos);
  *vec_ = ok;
  vec_->f[6] = 1;  // flags reserved
  Rejects();
  *vec_ = ok;
  vec_->a = kVectorOpCount;  // beyond the last op
  Rejects();
}

}  // namespace
}  // namespace tessera::systolic
