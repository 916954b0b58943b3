// What each dispatch library declares about the precision of an executable
// it loaded (tsr_numerics, ABI 1.1), and which of those declarations stand
// behind a given output of a compiled graph. Runners use it to compare a
// reduced-precision partition against its own declared tolerance instead
// of an FP32 one, and to say so.
#ifndef TESSERA_DISPATCH_DECLARED_NUMERICS_H_
#define TESSERA_DISPATCH_DECLARED_NUMERICS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dispatch/device_session.h"
#include "framework/core/graph/graph.h"
#include "tessera/dispatch.h"

namespace tessera {

struct DeclaredNumerics {
  std::string vendor;
  int32_t precision = TSR_PRECISION_FP32;  // tsr_precision
  double relative_tolerance = 0;
  double absolute_tolerance = 0;
  std::string description;
  bool declared = false;  // false: a 1.0 library, assumed FP32

  bool reduced() const { return precision != TSR_PRECISION_FP32; }
};

const char* PrecisionName(int32_t precision);  // "fp32", "fp16", "bf16", "unknown"

// Asks the library (when it has executable_numerics) about `executable`.
absl::StatusOr<DeclaredNumerics> QueryNumerics(const DeviceSession& session, tsr_executable executable);

// The comparison a runner should apply to one output: its own FP32
// tolerance widened to every reduced-precision declaration upstream.
struct OutputTolerance {
  double relative = 0;
  double absolute = 0;
  std::vector<DeclaredNumerics> reduced_by;  // empty: the runner's own tolerance
  // Ops on the longest path from the graph's inputs to the output, a
  // DISPATCH op counting the source ops it runs (an upper bound on the
  // depth inside it): what the judge's depth allowance scales with.
  int64_t depth = 0;
  std::string Describe() const;  // "" or "systolic_npu ran FP16: declared rtol 0.00195, atol 0.00195"
};

// `per_op[i]` is the declaration of compiled.ops[i]; `tensor` a tensor of
// `compiled`. Every op the tensor depends on (transitively) counts.
OutputTolerance ToleranceFor(const Graph& compiled, const std::vector<DeclaredNumerics>& per_op, int32_t tensor,
                             double own_relative, double own_absolute);

}  // namespace tessera

#endif  // TESSERA_DISPATCH_DECLARED_NUMERICS_H_
