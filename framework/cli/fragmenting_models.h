// Demo graphs built to fragment an accelerator's plan (see the .cc).
#ifndef TESSERA_FRAMEWORK_CLI_FRAGMENTING_MODELS_H_
#define TESSERA_FRAMEWORK_CLI_FRAGMENTING_MODELS_H_

#include "absl/status/statusor.h"
#include "framework/core/graph/graph.h"

namespace tessera::cli {

// x [16] -> y [16]: `steps` x (ADD a constant, SIN).
absl::StatusOr<Graph> BuildFragmentingChain(int steps);
// x [16, 256] -> y [16, 256]: `blocks` gated-MLP blocks with LAYER_NORM.
absl::StatusOr<Graph> BuildFragmentingGatedMlp(int blocks);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_FRAGMENTING_MODELS_H_
