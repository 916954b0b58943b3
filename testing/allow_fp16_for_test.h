// For tests whose subject is not precision but that need the FP16 NPU to
// take float ops (runtime, bindings, caching): --precision allow-fp16 with
// every non-constant tensor of `graph` taken as calibrated within
// `max_abs` (the tests' inputs are in (-1, 1) and their weights small).
// Tests of the precision policy itself prove ranges for real
// (framework/compiler/partition/precision_policy_test.cc, cli_precision_test).
#ifndef TESSERA_TESTING_ALLOW_FP16_FOR_TEST_H_
#define TESSERA_TESTING_ALLOW_FP16_FOR_TEST_H_

#include "framework/compiler/partition/precision_policy.h"
#include "framework/core/graph/graph.h"

namespace tessera {

inline PrecisionOptions AllowFp16ForTest(const Graph& graph, double max_abs = 64) {
  PrecisionOptions p{Precision::kAllowFp16, {}, "the test's assumed ranges"};
  for (const Tensor& t : graph.tensors)
    if (!t.is_constant) p.observed_max_abs[t.name] = max_abs;
  return p;
}

}  // namespace tessera

#endif  // TESSERA_TESTING_ALLOW_FP16_FOR_TEST_H_
