// The precision policy (docs/partitioning.md §precision): what the app
// allows an accelerator to give up. Under `fp32`, the default, an op whose
// claim says its float math would run in FP16 or INT8
// (TSR_CLAIM_FLAG_COMPUTES_FP16/_INT8) is refused on the plugin's behalf,
// so it runs where it keeps FP32 accuracy. `allow-fp16` offers FP16 claims
// whose range is proven: every F32 tensor the op reads or writes stayed
// within kFp16SafeMax on the calibration samples (constants: within FP16's
// 65504), so FP16 never turns a finite input into an infinity silently.
// `allow-int8` offers FP16 the same way and INT8 claims as well. Integer
// math on a quantized model is its own precision: plugins flag none of it.
#ifndef TESSERA_FRAMEWORK_COMPILER_PARTITION_PRECISION_POLICY_H_
#define TESSERA_FRAMEWORK_COMPILER_PARTITION_PRECISION_POLICY_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "framework/compiler/partition/partition_plan.h"
#include "framework/core/graph/graph.h"

namespace tessera {

enum class Precision { kFp32, kAllowFp16, kAllowInt8 };
const char* PrecisionPolicyName(Precision precision);  // "fp32", "allow-fp16", "allow-int8"
std::optional<Precision> ParsePrecisionPolicy(std::string_view name);

// FP16's largest finite value, and the bound a calibrated range must keep:
// a 16x headroom over what the samples showed, since they are samples.
inline constexpr double kFp16Max = 65504;
inline constexpr double kFp16SafeMax = kFp16Max / 16;

struct PrecisionOptions {
  Precision precision = Precision::kFp32;
  // By tensor name (names survive the rewrites between the graph that was
  // calibrated and the one compiled): the largest |value| seen on the
  // calibration samples. A tensor not listed was never observed; a
  // non-finite value seen is +inf (never fits).
  std::map<std::string, double> observed_max_abs;
  std::string samples;  // where the ranges came from, for the report ("" = none)
};

// Withdraws, in every accelerator's claims on `graph`, the claims the
// policy does not allow (reason kRefusalPrecision, detail saying which
// precision, what the option allows and, for an unproven range, the
// tensor and its range). The one place the policy is enforced.
void ApplyPrecisionPolicy(const Graph& graph, const PrecisionOptions& options, std::vector<AcceleratorClaims>* claims);

// What partition `ops` of `accelerator` computes in, from its claims:
// "int8" when some op's float math runs in INT8, "fp16" when in FP16,
// else "fp32" (float math in FP32, integer math exact).
const char* PartitionPrecision(const AcceleratorClaims& claims, const std::vector<int32_t>& ops);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_PARTITION_PRECISION_POLICY_H_
