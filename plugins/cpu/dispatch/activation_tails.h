// The activation that follows a compute op (FULLY_CONNECTED, MATMUL,
// CONV_2D), recognized at load so the fast kernels run it as the
// primitive's post-op: the compute op's output is written once, already
// activated, and a chain of convolutions stays in oneDNN's blocked layout
// across it (no reorder to plain NCHW and back, no elementwise pass).
//
// Recognized tails of an output y (every intermediate read only by the
// next op, none a graph output, all of y's shape and dtype):
//   RELU(y); CLIP(y) with attribute bounds;
//   HardSwish as exporters write it: y * CLIP(y + 3, 0, 6) * (1/6)
//     (the last step MUL by 1/6 or DIV by 6; PaddleOCR's form), and as the
//     ONNX importer writes the HardSwish op: y * CLIP(y * (1/6) + 0.5, 0, 1);
//   Swish: y * SIGMOID(alpha * y), and SiLU, y * SIGMOID(y);
//   GELU in the tanh form PyTorch and Hugging Face export ("NewGELU"):
//     (0.5 * y) * (1 + TANH(sqrt(2/pi) * (y + 0.044715 * POW(y, 3))));
// then, after any of these or after y itself, scalar affine steps: MUL or
// DIV by, ADD or SUB of one-element f32 constants (PP-LCNetV3 follows
// every activation with such a "learnable affine block"), folded into one
// alpha * v + beta. Without them each block broke a convolution chain in
// two, with a reorder to NCHW and back around two elementwise passes.
#ifndef TESSERA_PLUGINS_CPU_DISPATCH_ACTIVATION_TAILS_H_
#define TESSERA_PLUGINS_CPU_DISPATCH_ACTIVATION_TAILS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "plugins/cpu/dispatch/cpu_program.h"

namespace tessera::cpu {

struct ActivationTail {
  std::vector<size_t> ops;  // the tail's ops, in graph order; they run inside the compute op
  int32_t output = -1;      // the tensor the tail's last op writes
  int64_t kind = 0;         // TSR_ACTIVATION_* or fast::kActivationHardSwish / kActivationSwish / kActivationGeluTanh
  float clip_min = 0, clip_max = 0;
  float alpha = 1;          // Swish
  bool has_min = false, has_max = false;
  bool has_linear = false;  // the affine steps: alpha * v + beta after `kind`
  float linear_alpha = 1, linear_beta = 0;

  // The compute op's attributes with this activation set.
  Attributes Apply(Attributes attrs) const;
};

// The tail after op `o`'s single output, or nullopt. `readers[t]` lists
// the ops reading tensor t.
std::optional<ActivationTail> FindActivationTail(const CpuProgram& p, const std::vector<std::vector<size_t>>& readers,
                                                 size_t o);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_DISPATCH_ACTIVATION_TAILS_H_
