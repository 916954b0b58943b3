// The precision policy on hand-made claims: what each --precision value
// offers, and the FP16 range proof against hand-chosen ranges.
#include "framework/compiler/partition/precision_policy.h"

#include <cstring>

#include "framework/compiler/claims/compiler_instance.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// x -> FULLY_CONNECTED(w) -> y -> RELU -> z, all F32; w holds `weight`.
struct FcRelu {
  Graph graph;
  std::vector<uint8_t> weight_bytes;
  explicit FcRelu(float weight) : weight_bytes(sizeof(float)) {
    std::memcpy(weight_bytes.data(), &weight, sizeof weight);
    for (const char* name : {"x", "w", "y", "z"}) {
      Tensor t;
      t.name = name;
      t.dtype = TSR_DTYPE_F32;
      t.shape = {1, 1};
      graph.tensors.push_back(t);
    }
    graph.tensors[1].is_constant = true;
    graph.tensors[1].data = weight_bytes;
    graph.inputs = {0};
    graph.outputs = {3};
    Op fc;
    fc.type = TSR_OP_FULLY_CONNECTED;
    fc.inputs = {0, 1};
    fc.outputs = {2};
    fc.id = 1;
    Op relu;
    relu.type = TSR_OP_RELU;
    relu.inputs = {2};
    relu.outputs = {3};
    relu.id = 2;
    graph.ops = {fc, relu};
  }
};

// The NPU claims both, the FC computing in FP16 and the RELU in FP32; the
// cpu claims both, unflagged.
std::vector<AcceleratorClaims> NpuAndCpu(uint32_t fc_flags = TSR_CLAIM_FLAG_COMPUTES_FP16) {
  OpClaim fc{true, TSR_REFUSAL_NONE, {}, 1.0, 0, fc_flags};
  OpClaim relu{true, TSR_REFUSAL_NONE, {}, 1.0, 0, 0};
  return {{"systolic_npu", {fc, relu}}, {"cpu", {OpClaim{true}, OpClaim{true}}}};
}

TEST(PrecisionPolicy, NamesParseBothWays) {
  for (Precision p : {Precision::kFp32, Precision::kAllowFp16, Precision::kAllowInt8})
    EXPECT_EQ(ParsePrecisionPolicy(PrecisionPolicyName(p)), p);
  EXPECT_EQ(ParsePrecisionPolicy("fp16"), std::nullopt);
  EXPECT_EQ(ParsePrecisionPolicy(""), std::nullopt);
}

TEST(PrecisionPolicy, Fp32RefusesFp16ClaimsAndKeepsTheRest) {
  const FcRelu m(0.5f);
  std::vector<AcceleratorClaims> claims = NpuAndCpu();
  ApplyPrecisionPolicy(m.graph, {}, &claims);  // default: fp32
  EXPECT_FALSE(claims[0].claims[0].supported);
  EXPECT_EQ(claims[0].claims[0].reason, kRefusalPrecision);
  EXPECT_STREQ(RefusalReasonName(claims[0].claims[0].reason), "precision");
  EXPECT_EQ(claims[0].claims[0].detail.str(), "systolic_npu computes in fp16, not allowed by --precision fp32");
  EXPECT_TRUE(claims[0].claims[1].supported);  // the FP32 RELU stays offered
  EXPECT_TRUE(claims[1].claims[0].supported);
  EXPECT_TRUE(claims[1].claims[1].supported);
}

TEST(PrecisionPolicy, AllowFp16WithoutCalibrationProvesNothing) {
  const FcRelu m(0.5f);
  std::vector<AcceleratorClaims> claims = NpuAndCpu();
  ApplyPrecisionPolicy(m.graph, {Precision::kAllowFp16, {}, ""}, &claims);
  EXPECT_FALSE(claims[0].claims[0].supported);
  EXPECT_THAT(claims[0].claims[0].detail.str(),
              HasSubstr("allowed by --precision allow-fp16, but its range is not proven"));
}

TEST(PrecisionPolicy, AllowFp16OffersAnOpWhoseEveryRangeIsWithinTheBound) {
  const FcRelu m(0.5f);
  // 65504 / 16 = 4094: 4094 fits, anything above does not.
  std::vector<AcceleratorClaims> claims = NpuAndCpu();
  ApplyPrecisionPolicy(m.graph, {Precision::kAllowFp16, {{"x", 4094}, {"y", 2047}, {"z", 2047}}, "test"}, &claims);
  EXPECT_TRUE(claims[0].claims[0].supported);
  EXPECT_EQ(claims[0].claims[0].flags, TSR_CLAIM_FLAG_COMPUTES_FP16);
  EXPECT_STREQ(PartitionPrecision(claims[0], {0, 1}), "fp16");
  EXPECT_STREQ(PartitionPrecision(claims[0], {1}), "fp32");
}

TEST(PrecisionPolicy, AllowFp16RefusesAnOpWhoseOutputRangeExceedsTheBound) {
  const FcRelu m(0.5f);
  std::vector<AcceleratorClaims> claims = NpuAndCpu();
  ApplyPrecisionPolicy(m.graph, {Precision::kAllowFp16, {{"x", 100}, {"y", 4095}, {"z", 4095}}, "the samples"},
                       &claims);
  EXPECT_FALSE(claims[0].claims[0].supported);
  EXPECT_THAT(claims[0].claims[0].detail.str(), HasSubstr("y reaches 4095 on the samples, beyond the FP16 bound 4094"));
  EXPECT_TRUE(claims[0].claims[1].supported);  // RELU is FP32 on the NPU: no proof needed
}

TEST(PrecisionPolicy, AllowFp16RefusesAnUnobservedTensorAndANonFiniteOne) {
  const FcRelu m(0.5f);
  std::vector<AcceleratorClaims> unobserved = NpuAndCpu();
  ApplyPrecisionPolicy(m.graph, {Precision::kAllowFp16, {{"x", 1}}, "s"}, &unobserved);
  EXPECT_THAT(unobserved[0].claims[0].detail.str(), HasSubstr("the range of y is not proven"));
  std::vector<AcceleratorClaims> infinite = NpuAndCpu();
  ApplyPrecisionPolicy(m.graph, {Precision::kAllowFp16, {{"x", INFINITY}, {"y", 1}}, "s"}, &infinite);
  EXPECT_FALSE(infinite[0].claims[0].supported);
}

TEST(PrecisionPolicy, AConstantBeyondFp16IsRefusedWhateverTheSamples) {
  const FcRelu m(70000.0f);  // > 65504: F16 makes it +inf
  std::vector<AcceleratorClaims> claims = NpuAndCpu();
  ApplyPrecisionPolicy(m.graph, {Precision::kAllowInt8, {{"x", 1}, {"y", 1}, {"z", 1}}, "s"}, &claims);
  EXPECT_FALSE(claims[0].claims[0].supported);
  EXPECT_THAT(claims[0].claims[0].detail.str(), HasSubstr("constant w holds 70000, beyond FP16's 65504"));
}

TEST(PrecisionPolicy, Int8ClaimsNeedAllowInt8) {
  const FcRelu m(0.5f);
  for (Precision p : {Precision::kFp32, Precision::kAllowFp16}) {
    std::vector<AcceleratorClaims> claims = NpuAndCpu(TSR_CLAIM_FLAG_COMPUTES_INT8);
    ApplyPrecisionPolicy(m.graph, {p, {}, ""}, &claims);
    EXPECT_FALSE(claims[0].claims[0].supported) << PrecisionPolicyName(p);
    EXPECT_THAT(claims[0].claims[0].detail.str(), HasSubstr("computes in int8, not allowed by --precision"));
  }
  std::vector<AcceleratorClaims> claims = NpuAndCpu(TSR_CLAIM_FLAG_COMPUTES_INT8);
  ApplyPrecisionPolicy(m.graph, {Precision::kAllowInt8, {}, ""}, &claims);
  EXPECT_TRUE(claims[0].claims[0].supported);
  EXPECT_STREQ(PartitionPrecision(claims[0], {0, 1}), "int8");
}

}  // namespace
}  // namespace tessera
