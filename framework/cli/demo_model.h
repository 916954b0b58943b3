// The demo models, built in code with seeded weights so every run sees the
// same model:
//   mlp-wide   (the default) a wide MLP whose GEMMs the NPU wins with FP16
//              allowed: 4 x (FULLY_CONNECTED 512x512 + RELU), batch 32;
//   attention  one attention block with rotary position embedding, the
//              pattern from the partitioning seed article: its matmuls suit
//              an NPU, its SIN/COS/SELECT/SLICE/CONCAT/TRANSPOSE force cuts;
//   mlp        a classifier MLP (FC+RELU layers, softmax at the end);
//   cnn        a small image CNN (conv+relu, max pool, depthwise conv, avg
//              pool, FC head).
#ifndef TESSERA_FRAMEWORK_CLI_DEMO_MODEL_H_
#define TESSERA_FRAMEWORK_CLI_DEMO_MODEL_H_

#include <string>

#include "absl/status/statusor.h"
#include "framework/core/graph/graph.h"

namespace tessera::cli {

struct AttentionShape {
  int64_t seq = 16;
  int64_t model_dim = 64;
  int64_t heads = 4;
};

// x [seq, model_dim] -> y [seq, model_dim]; weights are seeded, so the
// model is the same on every run.
absl::StatusOr<Graph> BuildAttentionRopeModel(const AttentionShape& shape);

// x [batch, 784] -> probabilities [batch, 10]: 784-256-128-10.
absl::StatusOr<Graph> BuildMlpModel(int64_t batch);

struct WideMlpShape {
  int64_t batch = 32;
  int64_t width = 512;
  int layers = 4;
};

// x [batch, width] -> y [batch, width]: `layers` x (FULLY_CONNECTED + RELU).
absl::StatusOr<Graph> BuildWideMlpModel(const WideMlpShape& shape);

// x [batch, 3, 32, 32] -> logits [batch, 10].
absl::StatusOr<Graph> BuildSmallCnnModel(int64_t batch);

// What `tessera demo` runs without --model.
inline constexpr char kDefaultDemoModel[] = "mlp-wide";

// "mlp-wide" | "attention" | "mlp" | "cnn" | "frag-chain" | "frag-gated"; anything else is InvalidArgument naming them.
absl::StatusOr<Graph> BuildDemoModel(const std::string& name);

// The same model as a .tsr in memory, for the app API (Model::FromMemory):
// `tessera demo` builds its model here and does everything else as an app.
absl::StatusOr<std::vector<uint8_t>> DemoModelBytes(const std::string& name);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_DEMO_MODEL_H_
