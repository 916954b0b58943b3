// The judge of onnx-test and conformance, judged by hand vectors: values
// exactly at each tolerance pass, the next representable value fails;
// NaN, infinities, integers and malformed tensors each get their rule.
// Every bound below is worked in binary fractions, so "at the limit" is
// exact in double arithmetic.
#include "framework/core/io/output_comparison.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tessera/common.h"
#include "tessera/dispatch.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

HostTensor F32(std::vector<float> v) {
  HostTensor t{"", TSR_DTYPE_F32, {static_cast<int64_t>(v.size())}, {}};
  t.data.resize(v.size() * 4);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

HostTensor F16Bits(std::vector<uint16_t> v) {
  HostTensor t{"", TSR_DTYPE_F16, {static_cast<int64_t>(v.size())}, {}};
  t.data.resize(v.size() * 2);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

HostTensor I32(std::vector<int32_t> v) {
  HostTensor t{"", TSR_DTYPE_I32, {static_cast<int64_t>(v.size())}, {}};
  t.data.resize(v.size() * 4);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

TEST(OutputComparison, RunnersOwnTolerances) {
  // The numbers docs/conformance.md states for the runner.
  EXPECT_EQ(OwnTolerance(TSR_DTYPE_F32).relative, 1e-4);
  EXPECT_EQ(OwnTolerance(TSR_DTYPE_F32).absolute, 1e-5);
  EXPECT_EQ(OwnTolerance(TSR_DTYPE_F16).relative, 1e-3);
  EXPECT_EQ(OwnTolerance(TSR_DTYPE_F16).absolute, 1e-3);
}

TEST(OutputComparison, ExactlyAtTheTolerancePassesOneUlpPastFails) {
  // expected 2: bound = atol + rtol * |e| = 0.5 + 0.25 * 2 = 1 exactly.
  const Tolerance tol{0.25, 0.5};
  absl::StatusOr<double> at = CompareOutput(F32({3.0f, 1.0f}), F32({2.0f, 2.0f}), 0, tol);
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_EQ(*at, 1.0);
  const float past = std::nextafter(3.0f, 4.0f);  // 3 + 2^-22
  absl::StatusOr<double> over = CompareOutput(F32({2.0f, past}), F32({2.0f, 2.0f}), 4, tol);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(over.status().message(), HasSubstr("output 4 element 1"));
  // Below: the relative term scales with |expected| (here -8: 0.5 + 2 = 2.5).
  EXPECT_TRUE(CompareOutput(F32({-10.5f}), F32({-8.0f}), 0, tol).ok());
  EXPECT_FALSE(CompareOutput(F32({std::nextafter(-10.5f, -11.0f)}), F32({-8.0f}), 0, tol).ok());
}

TEST(OutputComparison, RunnersF32ToleranceAtItsEdge) {
  // 1 + 2^-14 is 6.1e-5 away from 1: inside 1e-5 + 1e-4; 1 + 2^-13 is
  // 1.22e-4 away: outside 1.1e-4.
  const Tolerance own = OwnTolerance(TSR_DTYPE_F32);
  EXPECT_TRUE(CompareOutput(F32({1.0f + 0x1p-14f}), F32({1.0f}), 0, own).ok());
  EXPECT_FALSE(CompareOutput(F32({1.0f + 0x1p-13f}), F32({1.0f}), 0, own).ok());
}

TEST(OutputComparison, HalvesDecodeExactly) {
  // 0x3C00 = 1, 0x3C01 = 1 + 2^-10: one f16 step apart.
  EXPECT_TRUE(CompareOutput(F16Bits({0x3C01}), F16Bits({0x3C00}), 0, Tolerance{0, 0x1p-10}).ok());
  EXPECT_FALSE(CompareOutput(F16Bits({0x3C01}), F16Bits({0x3C00}), 0, Tolerance{0, 0x1p-11}).ok());
  EXPECT_EQ(TensorElementAsDouble(F16Bits({0xC000}), 0), -2.0);
  EXPECT_EQ(TensorElementAsDouble(F16Bits({0x0001}), 0), 0x1p-24);  // smallest subnormal
  EXPECT_TRUE(std::isinf(TensorElementAsDouble(F16Bits({0x7C00}), 0)));
  EXPECT_TRUE(std::isnan(TensorElementAsDouble(F16Bits({0x7E00}), 0)));
}

TEST(OutputComparison, NaNMatchesOnlyNaN) {
  const Tolerance wide{1, 1e30};
  absl::StatusOr<double> both = CompareOutput(F32({kNaN, 1.0f}), F32({kNaN, 1.0f}), 0, wide);
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(*both, 0.0);
  EXPECT_FALSE(CompareOutput(F32({1.0f}), F32({kNaN}), 0, wide).ok());
  EXPECT_FALSE(CompareOutput(F32({kNaN}), F32({1.0f}), 0, wide).ok());
}

TEST(OutputComparison, InfinityMatchesOnlyTheSameInfinity) {
  const Tolerance wide{1, 1e30};
  EXPECT_TRUE(CompareOutput(F32({kInf, -kInf}), F32({kInf, -kInf}), 0, wide).ok());
  EXPECT_FALSE(CompareOutput(F32({-kInf}), F32({kInf}), 0, wide).ok());
  EXPECT_FALSE(CompareOutput(F32({3e38f}), F32({kInf}), 0, wide).ok());  // huge is not infinite
  EXPECT_FALSE(CompareOutput(F32({kInf}), F32({3e38f}), 0, wide).ok());
}

TEST(OutputComparison, IntegersAreExactWhateverTheTolerance) {
  const Tolerance wide{1, 100};
  EXPECT_TRUE(CompareOutput(I32({5, -7}), I32({5, -7}), 0, wide).ok());
  absl::StatusOr<double> off = CompareOutput(I32({5, -6}), I32({5, -7}), 2, wide);
  ASSERT_FALSE(off.ok());
  EXPECT_THAT(off.status().message(), HasSubstr("output 2 element 1: got -6, expected -7"));
}

TEST(OutputComparison, MismatchedTensorsAreErrorsNotCrashes) {
  const Tolerance tol = OwnTolerance(TSR_DTYPE_F32);
  EXPECT_EQ(CompareOutput(F32({1}), I32({1}), 0, tol).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CompareOutput(F32({1, 2}), F32({1}), 0, tol).status().code(), absl::StatusCode::kInvalidArgument);
  HostTensor short_data = F32({1, 2});
  short_data.data.resize(5);  // shape says 2 elements, 5 bytes present
  EXPECT_EQ(CompareOutput(short_data, F32({1, 2}), 0, tol).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(OutputComparison, DeclaredTolerancesAreCappedPerPrecision) {
  // The documented caps: FP16 2^-8, BF16 2^-5, FP32 and unknown: none.
  EXPECT_EQ(DeclaredToleranceCap(TSR_PRECISION_FP16).relative, 1.0 / 256);
  EXPECT_EQ(DeclaredToleranceCap(TSR_PRECISION_FP16).absolute, 1.0 / 256);
  EXPECT_EQ(DeclaredToleranceCap(TSR_PRECISION_BF16).relative, 1.0 / 32);
  const Tolerance own = OwnTolerance(TSR_DTYPE_F32);
  bool capped = true;
  // The NPU's FP16 declaration (2^-9) is inside the cap: applied as is.
  Tolerance t = CappedTolerance(own, TSR_PRECISION_FP16, Tolerance{1.0 / 512, 1.0 / 512}, &capped);
  EXPECT_EQ(t.relative, 1.0 / 512);
  EXPECT_EQ(t.absolute, 1.0 / 512);
  EXPECT_FALSE(capped);
  // Exactly at the cap: applied, not reported as capped.
  t = CappedTolerance(own, TSR_PRECISION_FP16, Tolerance{1.0 / 256, 1.0 / 256}, &capped);
  EXPECT_EQ(t.relative, 1.0 / 256);
  EXPECT_FALSE(capped);
  // A plugin declaring 10% for FP16 gets 2^-8.
  t = CappedTolerance(own, TSR_PRECISION_FP16, Tolerance{0.1, 0.5}, &capped);
  EXPECT_EQ(t.relative, 1.0 / 256);
  EXPECT_EQ(t.absolute, 1.0 / 256);
  EXPECT_TRUE(capped);
  // An FP32 or unknown-precision declaration widens nothing.
  t = CappedTolerance(own, TSR_PRECISION_FP32, Tolerance{0.1, 0.1}, &capped);
  EXPECT_EQ(t.relative, own.relative);
  EXPECT_EQ(t.absolute, own.absolute);
  EXPECT_TRUE(capped);
  t = CappedTolerance(own, 77, Tolerance{0.1, 0.1}, &capped);
  EXPECT_EQ(t.relative, own.relative);
  // A declaration tighter than the runner's own never narrows it.
  t = CappedTolerance(own, TSR_PRECISION_FP16, Tolerance{0, 0}, &capped);
  EXPECT_EQ(t.relative, own.relative);
  EXPECT_EQ(t.absolute, own.absolute);
}

TEST(OutputComparison, ACappedDeclarationFailsWhatItWouldHavePassed) {
  // expected 1, actual 1.0625: 0.0625 off. A declared FP16 rtol 0.1 would
  // pass it; the cap (2^-8 + 2^-8 = 2^-7) fails it.
  const Tolerance applied = CappedTolerance(OwnTolerance(TSR_DTYPE_F32), TSR_PRECISION_FP16, Tolerance{0.1, 0.1});
  EXPECT_TRUE(CompareOutput(F32({1.0625f}), F32({1.0f}), 0, Tolerance{0.1, 0.1}).ok());
  EXPECT_FALSE(CompareOutput(F32({1.0625f}), F32({1.0f}), 0, applied).ok());
  EXPECT_TRUE(CompareOutput(F32({1.0f + 0x1p-7f}), F32({1.0f}), 0, applied).ok());  // at the capped bound
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(OutputJudge, TheDepthAllowanceIsEightUnitsPerOpUpToTheCap) {
  // 8 * 2^-24 * depth, capped at 2^-12 for FP32 (depth 32 reaches it).
  EXPECT_EQ(DepthAllowance(TSR_PRECISION_FP32, 0), 0);
  EXPECT_EQ(DepthAllowance(TSR_PRECISION_FP32, 1), 0x1p-21);
  EXPECT_EQ(DepthAllowance(TSR_PRECISION_FP32, 16), 0x1p-17);
  EXPECT_EQ(DepthAllowance(TSR_PRECISION_FP32, 512), 0x1p-12);
  EXPECT_EQ(DepthAllowance(TSR_PRECISION_FP32, int64_t{1} << 40), 0x1p-12);  // never looser, however deep
  // FP16: 8 * 2^-11 per op, capped at 2^-8 (depth 1 reaches it); BF16 at 2^-5.
  EXPECT_EQ(DepthAllowance(TSR_PRECISION_FP16, 1), 0x1p-8);
  EXPECT_EQ(DepthAllowance(TSR_PRECISION_FP16, 1000), 0x1p-8);
  EXPECT_EQ(DepthAllowance(TSR_PRECISION_BF16, 1000), 0x1p-5);
}

TEST(OutputJudge, AnErrorSmallAgainstTheOutputsMagnitudePassesAtDepth) {
  // The case: 6.9e-5 off on an element near 0 of an output whose
  // magnitude is 161. The elementwise rule alone (1e-5 + 1e-4 * 0.5)
  // fails it; at depth 64 the allowance is 8 * 2^-24 * 64 * 161 = 4.8e-3.
  const HostTensor expected = F32({161.0f, 0.5f});
  const HostTensor actual = F32({161.0f, 0.5f + 6.9e-5f});
  const Tolerance own = OwnTolerance(TSR_DTYPE_F32);
  EXPECT_FALSE(JudgeOutput(actual, expected, 0, OutputJudgement{own, TSR_PRECISION_FP32, 0}).ok());
  absl::StatusOr<double> deep = JudgeOutput(actual, expected, 0, OutputJudgement{own, TSR_PRECISION_FP32, 64});
  ASSERT_TRUE(deep.ok()) << deep.status();
  EXPECT_NEAR(*deep, 6.9e-5, 1e-7);
  // Exactly at the bound: atol 0, rtol 0, depth 1 on magnitude 2^21: the
  // allowance is 2^-21 * 2^21 = 1; 1 off passes, the next float fails.
  const Tolerance none{0, 0};
  const HostTensor big = F32({0x1p21f, 0.0f});
  EXPECT_TRUE(JudgeOutput(F32({0x1p21f, 1.0f}), big, 0, OutputJudgement{none, TSR_PRECISION_FP32, 1}).ok());
  EXPECT_FALSE(
      JudgeOutput(F32({0x1p21f, std::nextafter(1.0f, 2.0f)}), big, 0, OutputJudgement{none, TSR_PRECISION_FP32, 1})
          .ok());
}

TEST(OutputJudge, AWrongAnswerStillFailsAtAnyDepth) {
  // A dropped bias of 0.05 on an output of magnitude 1: the FP32 cap is
  // 2^-12 of the magnitude (2.4e-4), so no depth passes it.
  const HostTensor expected = F32({1.0f, 0.3f, -0.7f});
  const HostTensor dropped = F32({0.95f, 0.25f, -0.75f});
  EXPECT_FALSE(JudgeOutput(dropped, expected, 0,
                           OutputJudgement{OwnTolerance(TSR_DTYPE_F32), TSR_PRECISION_FP32, int64_t{1} << 30})
                   .ok());
  // A swapped operand (a - b for b - a) negates the output.
  const HostTensor negated = F32({-1.0f, -0.3f, 0.7f});
  EXPECT_FALSE(
      JudgeOutput(negated, expected, 0, OutputJudgement{OwnTolerance(TSR_DTYPE_F32), TSR_PRECISION_FP32, 1000}).ok());
}

TEST(OutputJudge, ReducedPrecisionMustKeepFortyDecibels) {
  // FP16 at the caps, |e| = 1 = the magnitude: the element bound is
  // 2^-8 + 2^-8 * 1 + 2^-8 * 1 = 0.0117. Every element 1.1% off is inside
  // it, but the SNR is 10 log10(1 / 0.011^2) = 39.2 dB: it fails. At 0.9%
  // off, 40.9 dB: it passes.
  const Tolerance fp16 = CappedTolerance(OwnTolerance(TSR_DTYPE_F32), TSR_PRECISION_FP16, Tolerance{1, 1});
  const HostTensor expected = F32({1.0f, -1.0f, 1.0f, -1.0f});
  const HostTensor off_1_1 = F32({1.011f, -1.011f, 1.011f, -1.011f});
  absl::StatusOr<double> low = JudgeOutput(off_1_1, expected, 0, OutputJudgement{fp16, TSR_PRECISION_FP16, 1});
  ASSERT_FALSE(low.ok());
  EXPECT_THAT(std::string(low.status().message()), HasSubstr("signal-to-noise ratio 39.2 dB"));
  const HostTensor off_0_9 = F32({1.009f, -1.009f, 1.009f, -1.009f});  // 40.9 dB
  EXPECT_TRUE(JudgeOutput(off_0_9, expected, 0, OutputJudgement{fp16, TSR_PRECISION_FP16, 1}).ok());
  // An output of zeros (no signal) is judged elementwise alone.
  EXPECT_TRUE(JudgeOutput(F32({0.001f}), F32({0.0f}), 0, OutputJudgement{fp16, TSR_PRECISION_FP16, 1}).ok());
}

TEST(OutputJudge, TheMaxErrorIsReportedWhenItFails) {
  double max_err = 0;
  EXPECT_FALSE(JudgeOutput(F32({1.0f, 5.0f}), F32({1.0f, 2.0f}), 0, OutputJudgement{}, &max_err).ok());
  EXPECT_EQ(max_err, 3.0);
  EXPECT_FALSE(JudgeOutput(F32({1.0f}), F32({kNaN}), 0, OutputJudgement{}, &max_err).ok());
  EXPECT_TRUE(std::isinf(max_err));
}

}  // namespace
}  // namespace tessera
