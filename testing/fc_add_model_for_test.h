// The all-NPU model of the RunInto tests (dispatch/ and app/): out = x·Wᵀ + b,
// x f32 [4, 16]. Under the greedy policy both ops, FULLY_CONNECTED and ADD,
// go to the systolic NPU, so a run exercises the runtime and one plugin.
#ifndef TESSERA_TESTING_FC_ADD_MODEL_FOR_TEST_H_
#define TESSERA_TESTING_FC_ADD_MODEL_FOR_TEST_H_

#include <string>
#include <vector>

#include "framework/core/model/model_builder.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {

inline Graph FcAddModelForTest(const std::string& name) {
  ModelBuilder b(name);
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4, 16});
  std::vector<float> w(16 * 16), bias(16);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 11) - 5) * 0.125f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i % 3) * 0.25f;
  const int32_t fc = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w", {16, 16}, w)});
  b.Output(b.Op(TSR_OP_ADD, {fc, b.Constant<float>("b", {16}, bias)}, {}, {.name = "out"}));
  return *std::move(b).Build();
}

// Its input x, deterministic and not all one value.
inline std::vector<float> FcAddInputForTest() {
  std::vector<float> x(4 * 16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 7 % 17) - 8) * 0.0625f;
  return x;
}

}  // namespace tessera

#endif  // TESSERA_TESTING_FC_ADD_MODEL_FOR_TEST_H_
