// Small FP32 models built in code for the quantization tests, and seeded
// random calibration samples for them.
#ifndef TESSERA_FRAMEWORK_COMPILER_QUANTIZE_TEST_MODELS_H_
#define TESSERA_FRAMEWORK_COMPILER_QUANTIZE_TEST_MODELS_H_

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "framework/compiler/quantize/calibration.h"
#include "framework/core/graph/graph.h"
#include "framework/core/model/model_builder.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::quantize::testing {

inline std::vector<float> Normal(std::mt19937& rng, size_t n, float stddev) {
  std::normal_distribution<float> d(0.0f, stddev);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// x [4, 16] -> FC(32) -> RELU -> FC(10) -> y
inline Graph BuildMlp() {
  std::mt19937 rng(7);
  ModelBuilder b("mlp");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4, 16});
  const int32_t w1 = b.Constant<float>("fc1.weight", {32, 16}, Normal(rng, 32 * 16, 0.25f));
  const int32_t b1 = b.Constant<float>("fc1.bias", {32}, Normal(rng, 32, 0.1f));
  const int32_t h = b.Op(TSR_OP_FULLY_CONNECTED, {x, w1, b1}, {}, {.name = "fc1"});
  const int32_t r = b.Op(TSR_OP_RELU, {h}, {}, {.name = "fc1.relu"});
  const int32_t w2 = b.Constant<float>("fc2.weight", {10, 32}, Normal(rng, 10 * 32, 0.18f));
  const int32_t b2 = b.Constant<float>("fc2.bias", {10}, Normal(rng, 10, 0.1f));
  b.Output(b.Op(TSR_OP_FULLY_CONNECTED, {r, w2, b2}, {}, {.name = "y"}));
  return *std::move(b).Build();
}

// x [1, 3, 8, 8] -> CONV(8, 3x3, pad 1) -> RELU -> MAX_POOL 2x2 -> CONV(8)
// -> CLIP(0, 6) -> ADD(pooled) -> MUL(const) -> RESHAPE [1, 128] ->
// FC(10) = logits -> SOFTMAX = probs. Outputs: logits, probs.
inline Graph BuildCnn() {
  std::mt19937 rng(11);
  ModelBuilder b("cnn");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {1, 3, 8, 8});
  const std::map<int32_t, Attribute> same = {{TSR_ATTR_PADS, Ints({1, 1, 1, 1})}};
  const int32_t c1 = b.Op(TSR_OP_CONV_2D,
                          {x, b.Constant<float>("conv1.weight", {8, 3, 3, 3}, Normal(rng, 8 * 27, 0.3f)),
                           b.Constant<float>("conv1.bias", {8}, Normal(rng, 8, 0.1f))},
                          same, {.name = "conv1"});
  const int32_t r1 = b.Op(TSR_OP_RELU, {c1}, {}, {.name = "conv1.relu"});
  const int32_t p1 = b.Op(TSR_OP_MAX_POOL_2D, {r1},
                          {{TSR_ATTR_KERNEL_SHAPE, Ints({2, 2})}, {TSR_ATTR_STRIDES, Ints({2, 2})}}, {.name = "pool1"});
  const int32_t c2 = b.Op(TSR_OP_CONV_2D,
                          {p1, b.Constant<float>("conv2.weight", {8, 8, 3, 3}, Normal(rng, 8 * 72, 0.15f)),
                           b.Constant<float>("conv2.bias", {8}, Normal(rng, 8, 0.1f))},
                          same, {.name = "conv2"});
  const int32_t k2 = b.Op(TSR_OP_CLIP, {c2}, {{TSR_ATTR_CLIP_MIN, Floats({0.0f})}, {TSR_ATTR_CLIP_MAX, Floats({6.0f})}},
                          {.name = "conv2.clip"});
  const int32_t sum = b.Op(TSR_OP_ADD, {k2, p1}, {}, {.name = "residual"});
  const int32_t scaled =
      b.Op(TSR_OP_MUL, {sum, b.Constant<float>("gain", {1}, std::vector<float>{0.5f})}, {}, {.name = "scaled"});
  const int32_t flat = b.Op(TSR_OP_RESHAPE, {scaled}, {{TSR_ATTR_SHAPE, Ints({1, 128})}}, {.name = "flat"});
  const int32_t logits = b.Op(TSR_OP_FULLY_CONNECTED,
                              {flat, b.Constant<float>("fc.weight", {10, 128}, Normal(rng, 10 * 128, 0.09f)),
                               b.Constant<float>("fc.bias", {10}, Normal(rng, 10, 0.1f))},
                              {}, {.name = "logits"});
  const int32_t probs = b.Op(TSR_OP_SOFTMAX, {logits}, {{TSR_ATTR_AXIS, Ints({-1})}}, {.name = "probs"});
  b.Output(logits);
  b.Output(probs);
  return *std::move(b).Build();
}

// x [4, 16] -> FC = h; RELU(h) and CLIP(h, -0.3, 0.45) cannot fold (h has
// three consumers), so they run on the stored integers as CLIPs:
// y = RELU(h) + CLIP(h) * h.
inline Graph BuildStandaloneActivations() {
  std::mt19937 rng(13);
  ModelBuilder b("standalone_activations");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4, 16});
  const int32_t h =
      b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w", {16, 16}, Normal(rng, 256, 0.25f))}, {}, {.name = "h"});
  const int32_t r = b.Op(TSR_OP_RELU, {h}, {}, {.name = "h.relu"});
  const int32_t c = b.Op(TSR_OP_CLIP, {h}, {{TSR_ATTR_CLIP_MIN, Floats({-0.3f})}, {TSR_ATTR_CLIP_MAX, Floats({0.45f})}},
                         {.name = "h.clip"});
  b.Output(b.Op(TSR_OP_ADD, {r, b.Op(TSR_OP_MUL, {c, h})}, {}, {.name = "y"}));
  return *std::move(b).Build();
}

// `count` samples of uniform (-1, 1) inputs matching the graph's f32 inputs.
inline std::vector<CalibrationSample> RandomSamples(const Graph& g, int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<CalibrationSample> samples;
  for (int s = 0; s < count; ++s) {
    CalibrationSample sample{"sample_" + std::to_string(s), {}};
    for (int32_t t : g.inputs) {
      const Tensor& in = g.tensors[t];
      std::vector<float> v(static_cast<size_t>(in.element_count()));
      for (float& f : v) f = u(rng);
      HostTensor h{in.name, in.dtype, in.shape, std::vector<uint8_t>(v.size() * 4)};
      std::memcpy(h.data.data(), v.data(), h.data.size());
      sample.inputs.push_back(std::move(h));
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

}  // namespace tessera::quantize::testing

#endif  // TESSERA_FRAMEWORK_COMPILER_QUANTIZE_TEST_MODELS_H_
