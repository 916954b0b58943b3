#include "framework/compiler/quantize/accuracy_report.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"

namespace tessera::quantize {
namespace {

HostTensor F32(const std::string& name, const std::vector<float>& v) {
  HostTensor t{name, TSR_DTYPE_F32, {static_cast<int64_t>(v.size())}, std::vector<uint8_t>(v.size() * 4)};
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

TEST(Accuracy, SnrAndMaxErrorOverAllSamples) {
  AccuracyAccumulator acc;
  // Σ ref² = 9 + 16 + 1 + 1 = 27 (+ 0), Σ err² = 0.01 + 0 + 0.04 = 0.05.
  ASSERT_TRUE(acc.Add({F32("y", {3, 4})}, {F32("y", {3.1f, 4})}).ok());
  ASSERT_TRUE(acc.Add({F32("y", {1, -1})}, {F32("y", {1, -0.8f})}).ok());
  const std::vector<OutputAccuracy> r = acc.Result();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].name, "y");
  EXPECT_NEAR(r[0].max_abs_error, 0.2, 1e-6);
  EXPECT_NEAR(r[0].snr_db, 10 * std::log10(27 / 0.05), 1e-4);
}

TEST(Accuracy, IdenticalOutputsHaveInfiniteSnr) {
  AccuracyAccumulator acc;
  ASSERT_TRUE(acc.Add({F32("y", {1, 2})}, {F32("y", {1, 2})}).ok());
  EXPECT_TRUE(std::isinf(acc.Result()[0].snr_db));
  EXPECT_EQ(acc.Result()[0].max_abs_error, 0);
  QuantizationReport report;
  report.outputs = acc.Result();
  EXPECT_THAT(FormatQuantizationReport(report), ::testing::HasSubstr("SNR inf dB"));
  JsonWriter j;
  WriteQuantizationReportJson(report, j);
  EXPECT_THAT(j.str(), ::testing::HasSubstr("\"snr_db\":null"));
}

// Integer and bool outputs are compared as numbers (bool as 0/1).
TEST(Accuracy, IntegerAndBoolOutputsAreCompared) {
  HostTensor ri{"idx", TSR_DTYPE_I64, {2}, std::vector<uint8_t>(16)}, qi = ri;
  const int64_t ref[2] = {3, -2}, got[2] = {3, 1};
  std::memcpy(ri.data.data(), ref, 16);
  std::memcpy(qi.data.data(), got, 16);
  HostTensor rb{"mask", TSR_DTYPE_BOOL, {3}, {1, 0, 1}}, qb{"mask", TSR_DTYPE_BOOL, {3}, {1, 0, 1}};
  AccuracyAccumulator acc;
  ASSERT_TRUE(acc.Add({ri, rb}, {qi, qb}).ok());
  const std::vector<OutputAccuracy> r = acc.Result();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].max_abs_error, 3.0);
  EXPECT_NEAR(r[0].snr_db, 10 * std::log10(13.0 / 9.0), 1e-9);
  EXPECT_EQ(r[1].max_abs_error, 0.0);
  EXPECT_TRUE(std::isinf(r[1].snr_db));
  // Still the same dtype on both sides.
  EXPECT_FALSE(AccuracyAccumulator().Add({ri}, {F32("idx", {3, -2})}).ok());
}

// An all-zero reference with a nonzero error has SNR -inf: the text report
// said "SNR inf dB", the sign of a perfect match.
TEST(Accuracy, AllZeroReferenceWithErrorIsNotReportedAsPerfect) {
  AccuracyAccumulator acc;
  ASSERT_TRUE(acc.Add({F32("y", {0, 0})}, {F32("y", {0.5f, 0})}).ok());
  QuantizationReport report;
  report.outputs = acc.Result();
  ASSERT_EQ(report.outputs.size(), 1u);
  EXPECT_LT(report.outputs[0].snr_db, 0);
  EXPECT_THAT(FormatQuantizationReport(report), ::testing::HasSubstr("SNR -inf dB"));
}

TEST(Accuracy, MismatchedOutputsAreErrors) {
  AccuracyAccumulator acc;
  EXPECT_FALSE(acc.Add({F32("y", {1, 2})}, {F32("y", {1})}).ok());
  EXPECT_FALSE(acc.Add({F32("y", {1})}, {}).ok());
}

}  // namespace
}  // namespace tessera::quantize
