// Runs an uncompiled graph op by op on the cpu plugin's reference kernels
// (the project's numerical oracle), in host memory. Calibration observes
// every intermediate tensor through it, and the accuracy report takes its
// FP32 outputs as the reference. The framework may link the reference
// kernels (as constant folding does); plugins never link the framework.
#ifndef TESSERA_FRAMEWORK_COMPILER_QUANTIZE_REFERENCE_INTERPRETER_H_
#define TESSERA_FRAMEWORK_COMPILER_QUANTIZE_REFERENCE_INTERPRETER_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/core/graph/graph.h"
#include "framework/core/graph/host_tensor.h"

namespace tessera::quantize {

// Called once per graph input and once per op output, with the tensor's
// index in the graph and its value (valid for the call only).
using TensorVisitor = std::function<void(int32_t tensor, const HostTensor& value)>;

// `inputs` in graph input order; dtypes and shapes must match exactly.
// Returns the graph outputs in order. DISPATCH ops are refused (the graph
// must not be compiled). Intermediates are freed after their last use.
absl::StatusOr<std::vector<HostTensor>> RunOnReferenceKernels(const Graph& graph, const std::vector<HostTensor>& inputs,
                                                              const TensorVisitor& visit = {});

// Checks `inputs` against the graph's inputs: count, dtype, shape, bytes.
// `what` names the inputs' origin in the message (e.g. a sample directory).
absl::Status CheckInputsMatch(const Graph& graph, const std::vector<HostTensor>& inputs, const std::string& what);

}  // namespace tessera::quantize

#endif  // TESSERA_FRAMEWORK_COMPILER_QUANTIZE_REFERENCE_INTERPRETER_H_
