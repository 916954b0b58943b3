// Two demo graphs built to fragment an accelerator's plan (the partitioning
// study in docs/partitioning.md uses them beside attention, mlp and cnn):
//   frag-chain  64 steps of [ADD a bias (NPU) -> SIN (cpu only)] on a
//               16-element vector: a shape computation's tiny arithmetic.
//               Greedy cuts at every step; the NPU's dispatch overhead is
//               paid 64 times for nanoseconds of work.
//   frag-gated  4 gated-MLP blocks on [16, 256] (a 16-token decoder step): FC up and FC gate (NPU),
//               SIN on one branch (cpu only), MUL, FC down (NPU), ADD the
//               residual, LAYER_NORM (cpu only). Large matmuls worth the
//               NPU, separated by ops it cannot run: a cost model must
//               weigh every cut against real work.
#include "framework/cli/fragmenting_models.h"

#include <cmath>
#include <random>
#include <string>

#include "framework/core/model/model_builder.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::cli {
namespace {

std::vector<float> Seeded(std::mt19937& rng, size_t n, float scale) {
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

}  // namespace

absl::StatusOr<Graph> BuildFragmentingChain(int steps) {
  if (steps <= 0) return absl::InvalidArgumentError("steps must be positive");
  std::mt19937 rng(31);
  ModelBuilder b("frag_chain");
  b.Metadata("description", "ADD (npu) / SIN (cpu) alternating on a 16-element vector (demo, built to fragment)");
  int32_t h = b.Input("x", TSR_DTYPE_F32, {16});
  for (int i = 0; i < steps; ++i) {
    const std::string name = "step" + std::to_string(i);
    const int32_t bias = b.Constant<float>(name + ".bias", {16}, Seeded(rng, 16, 0.5f));
    h = b.Op(TSR_OP_ADD, {h, bias}, {}, {.name = name + ".add"});
    h = b.Op(TSR_OP_SIN, {h}, {}, {.name = name + ".sin"});
  }
  b.Output(h);
  return std::move(b).Build();
}

absl::StatusOr<Graph> BuildFragmentingGatedMlp(int blocks) {
  if (blocks <= 0) return absl::InvalidArgumentError("blocks must be positive");
  std::mt19937 rng(37);
  constexpr int64_t kTokens = 16, kDim = 256, kHidden = 512;
  ModelBuilder b("frag_gated");
  b.Metadata("description", "gated MLP blocks: FC (npu), SIN gate and LAYER_NORM (cpu) between them (demo)");
  int32_t h = b.Input("x", TSR_DTYPE_F32, {kTokens, kDim});
  auto fc = [&](const std::string& name, int32_t in, int64_t k, int64_t n) {
    const int32_t w = b.Constant<float>(name + ".weight", {n, k}, Seeded(rng, n * k, std::sqrt(1.0f / k)));
    const int32_t bias = b.Constant<float>(name + ".bias", {n}, Seeded(rng, n, 0.05f));
    return b.Op(TSR_OP_FULLY_CONNECTED, {in, w, bias}, {}, {.name = name});
  };
  for (int i = 0; i < blocks; ++i) {
    const std::string name = "block" + std::to_string(i);
    const int32_t up = fc(name + ".up", h, kDim, kHidden);
    const int32_t gate = b.Op(TSR_OP_SIN, {fc(name + ".gate", h, kDim, kHidden)}, {}, {.name = name + ".sin"});
    const int32_t mixed = b.Op(TSR_OP_MUL, {up, gate}, {}, {.name = name + ".mul"});
    const int32_t down = fc(name + ".down", mixed, kHidden, kDim);
    const int32_t residual = b.Op(TSR_OP_ADD, {down, h}, {}, {.name = name + ".residual"});
    const int32_t scale = b.Constant<float>(name + ".ln.scale", {kDim}, std::vector<float>(kDim, 1.0f));
    const int32_t shift = b.Constant<float>(name + ".ln.shift", {kDim}, std::vector<float>(kDim, 0.0f));
    h = b.Op(TSR_OP_LAYER_NORM, {residual, scale, shift},
             {{TSR_ATTR_AXIS, Ints({-1})}, {TSR_ATTR_EPSILON, Attribute{{}, {1e-5f}}}}, {.name = name + ".ln"});
  }
  b.Output(h);
  return std::move(b).Build();
}

}  // namespace tessera::cli
