// CompiledModel::check_output: the judge (framework/core/io/
// output_comparison.h) with what the compiled model knows of the output:
// the declarations of the reduced-precision partitions it depends on,
// each capped, and its depth.
#include <algorithm>

#include "framework/app/app_internal.h"
#include "framework/core/io/output_comparison.h"
#include "tessera/app/tessera_app.hpp"
#include "tessera/dispatch.h"

namespace tessera::app {
namespace {

// The lower of two precisions: BF16 below FP16 below FP32.
int32_t Lower(int32_t a, int32_t b) {
  auto rank = [](int32_t p) { return p == TSR_PRECISION_BF16 ? 2 : p == TSR_PRECISION_FP16 ? 1 : 0; };
  return rank(b) > rank(a) ? b : a;
}

}  // namespace

Result<CompiledModel::OutputCheck> CompiledModel::check_output(size_t index, const Tensor& actual,
                                                               const Tensor& expected) const {
  OutputCheck check;
  const tessera::Tolerance own = OwnTolerance(actual.info().dtype);
  check.tolerance = output_tolerance(index, own.relative, own.absolute);
  OutputJudgement judgement{own, TSR_PRECISION_FP32, check.tolerance.depth};
  // Each declaration widens the comparison only up to its precision's cap.
  for (const Numerics& n : check.tolerance.reduced_by) {
    bool capped = false;
    const tessera::Tolerance t = CappedTolerance(own, n.precision_code, tessera::Tolerance{n.rtol, n.atol}, &capped);
    judgement.elementwise = {std::max(judgement.elementwise.relative, t.relative),
                             std::max(judgement.elementwise.absolute, t.absolute)};
    judgement.precision = Lower(judgement.precision, n.precision_code);
    check.capped = check.capped || capped;
  }
  check.rtol = judgement.elementwise.relative;
  check.atol = judgement.elementwise.absolute;
  check.depth_allowance = DepthAllowance(judgement.precision, judgement.depth);
  absl::StatusOr<double> judged =
      JudgeOutput(ToHostTensor(actual), ToHostTensor(expected), index, judgement, &check.max_abs_error);
  if (!judged.ok() && judged.status().code() != absl::StatusCode::kOutOfRange) return FromAbsl(judged.status());
  if (!judged.ok()) check.failure = std::string(judged.status().message());
  return check;
}

}  // namespace tessera::app
