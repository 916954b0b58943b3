#include "framework/cli/demo_model.h"
#include "framework/cli/fragmenting_models.h"

#include <cmath>
#include <random>

#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::cli {
namespace {

std::vector<float> RandomWeights(std::mt19937& rng, size_t n, float scale) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> w(n);
  for (float& v : w) v = dist(rng);
  return w;
}

}  // namespace

absl::StatusOr<Graph> BuildAttentionRopeModel(const AttentionShape& s) {
  if (s.heads <= 0 || s.model_dim % s.heads != 0 || (s.model_dim / s.heads) % 2 != 0)
    return absl::InvalidArgumentError("model_dim must split into heads of even size");
  const int64_t S = s.seq, D = s.model_dim, H = s.heads, Dh = D / H, half = Dh / 2;
  std::mt19937 rng(2024);
  const float wscale = 1.0f / std::sqrt(static_cast<float>(D));
  ModelBuilder b("attention_rope");
  b.Metadata("description", "one attention block with rotary position embedding (demo)");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {S, D});

  auto dense = [&](const std::string& name, int32_t in) {
    const int32_t w = b.Constant<float>(name + ".weight", {D, D}, RandomWeights(rng, D * D, wscale));
    const int32_t bias = b.Constant<float>(name + ".bias", {D}, RandomWeights(rng, D, 0.02f));
    return b.Op(TSR_OP_FULLY_CONNECTED, {in, w, bias}, {}, {.name = name});
  };
  // [S, D] -> [H, S, Dh]
  auto heads = [&](int32_t t, const std::string& name) {
    const int32_t r = b.Op(TSR_OP_RESHAPE, {t}, {{TSR_ATTR_SHAPE, Ints({S, H, Dh})}});
    return b.Op(TSR_OP_TRANSPOSE, {r}, {{TSR_ATTR_PERM, Ints({1, 0, 2})}}, {.name = name});
  };

  // Rotary angles: theta[p, i] = p * 10000^(-2i/Dh), computed in-graph.
  std::vector<float> positions(S), inv_freq(half);
  for (int64_t p = 0; p < S; ++p) positions[p] = static_cast<float>(p);
  for (int64_t i = 0; i < half; ++i) inv_freq[i] = std::pow(10000.0f, -2.0f * static_cast<float>(i) / static_cast<float>(Dh));
  const int32_t pos = b.Constant<float>("rope.positions", {S, 1}, positions);
  const int32_t freq = b.Constant<float>("rope.inv_freq", {1, half}, inv_freq);
  const int32_t theta = b.Op(TSR_OP_MUL, {pos, freq}, {}, {.name = "rope.theta"});
  const int32_t cos = b.Op(TSR_OP_COS, {theta}, {}, {.name = "rope.cos"});
  const int32_t sin = b.Op(TSR_OP_SIN, {theta}, {}, {.name = "rope.sin"});
  // rotate(t) = concat(t1*cos - t2*sin, t1*sin + t2*cos) over the last axis.
  auto rope = [&](int32_t t, const std::string& name) {
    const int32_t t1 = b.Op(TSR_OP_SLICE, {t}, {{TSR_ATTR_STARTS, Ints({0})}, {TSR_ATTR_ENDS, Ints({half})}, {TSR_ATTR_AXES, Ints({2})}});
    const int32_t t2 = b.Op(TSR_OP_SLICE, {t}, {{TSR_ATTR_STARTS, Ints({half})}, {TSR_ATTR_ENDS, Ints({Dh})}, {TSR_ATTR_AXES, Ints({2})}});
    const int32_t a = b.Op(TSR_OP_SUB, {b.Op(TSR_OP_MUL, {t1, cos}), b.Op(TSR_OP_MUL, {t2, sin})});
    const int32_t c = b.Op(TSR_OP_ADD, {b.Op(TSR_OP_MUL, {t1, sin}), b.Op(TSR_OP_MUL, {t2, cos})});
    return b.Op(TSR_OP_CONCAT, {a, c}, {{TSR_ATTR_AXIS, Ints({2})}}, {.name = name});
  };

  const int32_t q = rope(heads(dense("q_proj", x), "q_heads"), "q_rot");
  const int32_t k = rope(heads(dense("k_proj", x), "k_heads"), "k_rot");
  const int32_t v = heads(dense("v_proj", x), "v_heads");
  const int32_t kt = b.Op(TSR_OP_TRANSPOSE, {k}, {{TSR_ATTR_PERM, Ints({0, 2, 1})}}, {.name = "k_t"});
  const int32_t scores = b.Op(TSR_OP_MATMUL, {q, kt}, {}, {.name = "scores"});
  const float inv_sqrt = 1.0f / std::sqrt(static_cast<float>(Dh));
  const int32_t scaled = b.Op(TSR_OP_MUL, {scores, b.Constant<float>("attn.scale", {1}, std::vector<float>{inv_sqrt})});
  // Causal mask: position p sees positions <= p.
  std::vector<uint8_t> mask_bytes(S * S);
  for (int64_t i = 0; i < S; ++i)
    for (int64_t j = 0; j < S; ++j) mask_bytes[i * S + j] = j <= i ? 1 : 0;
  const int32_t mask = b.ConstantBytes("attn.causal_mask", TSR_DTYPE_BOOL, {S, S}, mask_bytes);
  const int32_t neg = b.Constant<float>("attn.masked_value", {1}, std::vector<float>{-1e9f});
  const int32_t masked = b.Op(TSR_OP_SELECT, {mask, scaled, neg}, {}, {.name = "scores_masked"});
  const int32_t probs = b.Op(TSR_OP_SOFTMAX, {masked}, {{TSR_ATTR_AXIS, Ints({-1})}}, {.name = "probs"});
  const int32_t ctx = b.Op(TSR_OP_MATMUL, {probs, v}, {}, {.name = "context"});
  const int32_t merged = b.Op(TSR_OP_RESHAPE, {b.Op(TSR_OP_TRANSPOSE, {ctx}, {{TSR_ATTR_PERM, Ints({1, 0, 2})}})},
                              {{TSR_ATTR_SHAPE, Ints({S, D})}});
  const int32_t y = dense("o_proj", merged);
  b.Output(y);
  return std::move(b).Build();
}

absl::StatusOr<Graph> BuildMlpModel(int64_t batch) {
  if (batch <= 0) return absl::InvalidArgumentError("batch must be positive");
  std::mt19937 rng(2025);
  ModelBuilder b("mlp");
  b.Metadata("description", "classifier MLP 784-256-128-10 (demo)");
  int32_t h = b.Input("x", TSR_DTYPE_F32, {batch, 784});
  const int64_t widths[] = {784, 256, 128, 10};
  for (int layer = 0; layer < 3; ++layer) {
    const int64_t in = widths[layer], out = widths[layer + 1];
    const std::string name = "fc" + std::to_string(layer + 1);
    // He-style scale keeps activations of unit order through the RELUs.
    const int32_t w = b.Constant<float>(name + ".weight", {out, in},
                                        RandomWeights(rng, out * in, std::sqrt(2.0f / static_cast<float>(in))));
    const int32_t bias = b.Constant<float>(name + ".bias", {out}, RandomWeights(rng, out, 0.05f));
    h = b.Op(TSR_OP_FULLY_CONNECTED, {h, w, bias}, {}, {.name = name});
    if (layer < 2) h = b.Op(TSR_OP_RELU, {h}, {}, {.name = name + ".relu"});
  }
  b.Output(b.Op(TSR_OP_SOFTMAX, {h}, {{TSR_ATTR_AXIS, Ints({-1})}}, {.name = "probs"}));
  return std::move(b).Build();
}

absl::StatusOr<Graph> BuildWideMlpModel(const WideMlpShape& s) {
  if (s.batch <= 0 || s.width <= 0 || s.layers <= 0)
    return absl::InvalidArgumentError("batch, width and layers must be positive");
  std::mt19937 rng(2027);
  ModelBuilder b("mlp_wide");
  b.Metadata("description", "wide MLP " + std::to_string(s.layers) + " x FC " + std::to_string(s.width) +
                                " + RELU, batch " + std::to_string(s.batch) + " (demo: the NPU's GEMM win)");
  int32_t h = b.Input("x", TSR_DTYPE_F32, {s.batch, s.width});
  for (int layer = 0; layer < s.layers; ++layer) {
    const std::string name = "fc" + std::to_string(layer + 1);
    const int32_t w =
        b.Constant<float>(name + ".weight", {s.width, s.width},
                          RandomWeights(rng, s.width * s.width, std::sqrt(2.0f / static_cast<float>(s.width))));
    const int32_t bias = b.Constant<float>(name + ".bias", {s.width}, RandomWeights(rng, s.width, 0.05f));
    h = b.Op(TSR_OP_FULLY_CONNECTED, {h, w, bias}, {}, {.name = name});
    h = b.Op(TSR_OP_RELU, {h}, {}, {.name = name + ".relu"});
  }
  b.Output(h);
  return std::move(b).Build();
}

absl::StatusOr<Graph> BuildSmallCnnModel(int64_t batch) {
  if (batch <= 0) return absl::InvalidArgumentError("batch must be positive");
  std::mt19937 rng(2026);
  ModelBuilder b("small_cnn");
  b.Metadata("description", "small image CNN: conv, max pool, depthwise conv, avg pool, FC (demo)");
  int32_t h = b.Input("x", TSR_DTYPE_F32, {batch, 3, 32, 32});
  auto conv = [&](const std::string& name, int32_t in, int64_t in_ch, int64_t out_ch, int64_t groups) {
    const int64_t fan_in = in_ch / groups * 9;
    const int32_t w = b.Constant<float>(name + ".weight", {out_ch, in_ch / groups, 3, 3},
                                        RandomWeights(rng, out_ch * fan_in, std::sqrt(2.0f / static_cast<float>(fan_in))));
    const int32_t bias = b.Constant<float>(name + ".bias", {out_ch}, RandomWeights(rng, out_ch, 0.05f));
    const int32_t c = b.Op(TSR_OP_CONV_2D, {in, w, bias},
                           {{TSR_ATTR_PADS, Ints({1, 1, 1, 1})}, {TSR_ATTR_GROUPS, Ints({groups})}}, {.name = name});
    return b.Op(TSR_OP_RELU, {c}, {}, {.name = name + ".relu"});
  };
  auto pool = [&](int32_t op, const std::string& name, int32_t in, int64_t k) {
    return b.Op(op, {in}, {{TSR_ATTR_KERNEL_SHAPE, Ints({k, k})}, {TSR_ATTR_STRIDES, Ints({k, k})}}, {.name = name});
  };
  h = conv("conv1", h, 3, 16, 1);                     // [B,16,32,32]
  h = pool(TSR_OP_MAX_POOL_2D, "pool1", h, 2);        // [B,16,16,16]
  h = conv("conv2", h, 16, 32, 1);                    // [B,32,16,16]
  h = pool(TSR_OP_MAX_POOL_2D, "pool2", h, 2);        // [B,32,8,8]
  h = conv("conv3_dw", h, 32, 32, 32);                // depthwise
  h = pool(TSR_OP_AVG_POOL_2D, "global_pool", h, 8);  // [B,32,1,1]
  h = b.Op(TSR_OP_RESHAPE, {h}, {{TSR_ATTR_SHAPE, Ints({batch, 32})}}, {.name = "flatten"});
  const int32_t w = b.Constant<float>("fc.weight", {10, 32}, RandomWeights(rng, 10 * 32, 0.25f));
  const int32_t bias = b.Constant<float>("fc.bias", {10}, RandomWeights(rng, 10, 0.05f));
  b.Output(b.Op(TSR_OP_FULLY_CONNECTED, {h, w, bias}, {}, {.name = "logits"}));
  return std::move(b).Build();
}

absl::StatusOr<Graph> BuildDemoModel(const std::string& name) {
  if (name == "attention") return BuildAttentionRopeModel({});
  if (name == "mlp") return BuildMlpModel(16);
  if (name == "mlp-wide") return BuildWideMlpModel({});
  if (name == "cnn") return BuildSmallCnnModel(2);
  if (name == "frag-chain") return BuildFragmentingChain(64);
  if (name == "frag-gated") return BuildFragmentingGatedMlp(4);
  return absl::InvalidArgumentError("unknown demo model '" + name +
                                    "' (mlp-wide, attention, mlp, cnn, frag-chain, frag-gated)");
}

absl::StatusOr<std::vector<uint8_t>> DemoModelBytes(const std::string& name) {
  absl::StatusOr<Graph> graph = BuildDemoModel(name);
  if (!graph.ok()) return graph.status();
  return SerializeModel(*graph);
}

}  // namespace tessera::cli
