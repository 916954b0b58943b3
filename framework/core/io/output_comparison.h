// How a runner (tessera onnx-test, the conformance suite) judges one output
// against its expected value: the runner's own tolerance per dtype, the cap
// on what a plugin may declare for a reduced precision, and the
// element-wise comparison itself. One small piece with its own unit test
// (output_comparison_test.cc), so the judge is itself judged.
//
//   float:    |actual - expected| <= atol + rtol * |expected|
//             NaN matches NaN only; an infinity matches the same infinity only
//   integers and bool: exact
//
// The runner's own tolerance: f32 rtol 1e-4, atol 1e-5; f16 rtol 1e-3,
// atol 1e-3. A dispatch library may declare a wider one for a partition it
// ran in reduced precision (tsr_numerics), but never wider than the cap
// of that precision, so no plugin passes itself by declaring a loose
// tolerance (docs/testing.md, "Tolerance caps"):
//   FP16: rtol and atol <= 2^-8 (FP16's unit roundoff is 2^-11: the cap
//         allows a K-term dot product's error to grow by about 8 units)
//   BF16: rtol and atol <= 2^-5 (unit roundoff 2^-8, the same 8 units)
//   FP32 or an unknown precision: no widening beyond the runner's own.
#ifndef TESSERA_FRAMEWORK_CORE_IO_OUTPUT_COMPARISON_H_
#define TESSERA_FRAMEWORK_CORE_IO_OUTPUT_COMPARISON_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "framework/core/graph/host_tensor.h"
#include "tessera/dispatch.h"

namespace tessera {

struct Tolerance {
  double relative = 0;
  double absolute = 0;
};

// Element i of a dense tensor as a double (f16 decoded exactly; unknown
// dtypes read as 0).
double TensorElementAsDouble(const HostTensor& t, int64_t i);

// The runner's own tolerance for an output of `dtype` (tsr_dtype).
Tolerance OwnTolerance(int32_t dtype);

// The widest tolerance a declaration of `precision` (tsr_precision) may
// widen the comparison to.
Tolerance DeclaredToleranceCap(int32_t precision);

// The tolerance applied: the runner's own, widened to the declaration but
// never past its precision's cap. `capped` (optional) says whether the
// cap cut the declaration.
Tolerance CappedTolerance(const Tolerance& own, int32_t precision, const Tolerance& declared, bool* capped = nullptr);

// What the judge knows of one output besides the two tensors.
struct OutputJudgement {
  Tolerance elementwise;                   // the runner's own, widened by capped declarations
  int32_t precision = TSR_PRECISION_FP32;  // the lowest precision any op it depends on ran at
  int64_t depth = 0;                       // ops on its longest path from the inputs (0: no allowance)
};

// A float's unit roundoff: FP32 2^-24, FP16 2^-11, BF16 2^-8 (unknown: FP32).
double UnitRoundoff(int32_t precision);

// The error a computation `depth` ops deep may accumulate, relative to the
// magnitude of its output (the largest |expected| of the tensor): 8 units
// of roundoff per op, the allowance the declaration caps give a K-term dot
// product, composed over the depth, and never more than the cap of the
// precision (FP32 2^-12, FP16 2^-8, BF16 2^-5), however deep.
double DepthAllowance(int32_t precision, int64_t depth);
inline constexpr double kDepthAllowanceUnits = 8;

// A reduced-precision output must also keep this signal-to-noise ratio
// against the reference: 10 log10(sum e^2 / sum (a - e)^2) (FP16 has about
// 66 dB of its own; 40 dB is 1% of the output's RMS).
inline constexpr double kMinReducedPrecisionSnrDb = 40;

// The judge (docs/conformance.md, "The judge"): output `index` passes when
// every float element is within
//     atol + rtol * |e| + DepthAllowance(precision, depth) * max|expected|
// (NaN matches NaN, an infinity the same infinity, integers exactly), and,
// when `precision` is reduced, the output's SNR is at least
// kMinReducedPrecisionSnrDb. Returns the max abs error over the finite
// elements, or InvalidArgument (dtype or shape differ) or OutOfRange (the
// first element outside the bound, both values and the max abs error; or
// the SNR). `max_abs_error` (optional) gets the max abs error, failing or
// not (infinity when a NaN or an infinity disagrees).
absl::StatusOr<double> JudgeOutput(const HostTensor& actual, const HostTensor& expected, size_t index,
                                   const OutputJudgement& judgement, double* max_abs_error = nullptr);

// JudgeOutput at `tolerance` alone: FP32, no depth allowance.
absl::StatusOr<double> CompareOutput(const HostTensor& actual, const HostTensor& expected, size_t index,
                                     const Tolerance& tolerance);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_IO_OUTPUT_COMPARISON_H_
