// The fast kernels of the cpu plugin: oneDNN primitives for the compute
// ops, prepared once when an executable is loaded and only executed on
// each run.
//
// What is handled (f32, not quantized; anything else returns "not handled"
// and the caller runs the reference kernel for that op):
//   FULLY_CONNECTED  matmul primitive, W [N, K] constant (packed at load),
//                    bias [N] and the fused activation as post-ops
//   MATMUL           matmul primitive with numpy batch broadcasting; a
//                    constant B is packed at load, a runtime B is read
//                    in place; bias and activation fused
//   CONV_2D          convolution primitive (groups, depthwise, strides,
//                    dilations, pads), weights packed at load, bias and
//                    activation fused; the activations are reordered to the
//                    primitive's preferred blocked layout and back when it
//                    wants one
//   CONV_TRANSPOSE_2D deconvolution primitive (groups, strides, dilations,
//                    pads, output padding less than a stride past the end
//                    pad), weights and bias packed at load
//   MAX_POOL_2D      pooling primitive (floor and ceil mode)
//   AVG_POOL_2D      pooling primitive (floor mode, windows that always see
//                    at least one real tap)
//   ADD SUB MUL DIV  binary primitive; the second input may broadcast (ADD
//                    and MUL also the first); IEEE f32, bit-identical
//   SOFTMAX          softmax primitive along the attribute axis
//   TRANSPOSE        a reorder from a permuted-strides view; exact
//   SLICE            a reorder from a strided view (positive steps); exact
//   GLOBAL_AVG_POOL  pooling primitive over the whole image (4-D)
//   SELECT           f32 values, bool condition, broadcasting: a direct
//                    copy loop (oneDNN 2.6 has no select); exact
//   RESIZE           nearest: an index gather; linear: separable passes
//                    over tap tables built at load (both: every transform
//                    but tf_crop_and_resize; linear not EXCLUDE_OUTSIDE)
//   every other elementwise op, the reductions, LAYER_NORM, RESHAPE,
//                    CONCAT, GATHER, PAD: vectorized loops (loop_op.h and the
//                    *_kernels.cc files that use it), and groups of
//                    elementwise ops fused into one pass
//
// Why packing happens at load and not in the compiler: the AOT bytecode is
// the portable graph encoding and must run on any x86/ARM host; the
// packed ("blocked") weight layout oneDNN picks depends on the CPU's ISA
// (AVX2, AVX-512, AMX...), so it is produced where the model runs, once
// per load_executable.
//
// Threads: Debian's oneDNN 2.6 uses the OpenMP runtime (libgomp). The
// thread count is an OpenMP per-thread setting, so ScopedThreads sets it on
// the calling thread for the duration of a load or an invoke and restores
// it after; `cpu.threads` (default 1) picks it.
//
// Numerics: oneDNN accumulates in f32 (the reference kernels in f64), in
// an ISA-dependent order. The tests hold the fast path to
//   |fast - reference| <= kFastRelTolerance * (sum_k |x_k * w_k| + |b|)
//                         + kFastAbsTolerance
// per output element, the bound of a few f32 roundings per accumulated term
// (for SOFTMAX the "terms" are the reference softmax of |x|: oneDNN's f32
// exp is within a few ulp).
#ifndef TESSERA_PLUGINS_CPU_FAST_KERNELS_FAST_KERNELS_H_
#define TESSERA_PLUGINS_CPU_FAST_KERNELS_FAST_KERNELS_H_

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "support/reference_kernels/kernel_api.h"

namespace tessera::cpu::fast {

inline constexpr double kFastRelTolerance = 2e-5;
inline constexpr double kFastAbsTolerance = 1e-6;

class FastOpState;

// A compute op's TSR_ATTR_ACTIVATION value for HardSwish, y * relu6(y + 3)
// / 6. The cpu plugin's own: the load step sets it when it fuses a
// HardSwish tail into the op (dispatch/activation_tails.h); it is no
// tsr_activation value, so no model carries it and the reference kernels
// never see it.
inline constexpr int64_t kActivationHardSwish = 0x48535700;  // "HSW\0"
// Swish, y * sigmoid(alpha * y), alpha in the attribute kAttrSwishAlpha
// (a key of this plugin's, outside the tsr_attr_key range).
inline constexpr int64_t kActivationSwish = 0x53575300;  // "SWS\0"
inline constexpr int32_t kAttrSwishAlpha = 0x53575301;
// GELU, tanh form: 0.5 y (1 + tanh(sqrt(2/pi) (y + 0.044715 y^3))), as
// oneDNN's eltwise_gelu_tanh post-op.
inline constexpr int64_t kActivationGeluTanh = 0x47454C00;  // "GEL\0"
// A scalar affine step after the activation, alpha * v + beta (oneDNN's
// eltwise_linear post-op): the load step sets both keys when it fuses the
// MUL/DIV by and ADD/SUB of one-element constants that follow a compute
// op (PP-LCNetV3's learnable affine blocks). Keys of this plugin's, like
// kAttrSwishAlpha.
inline constexpr int32_t kAttrLinearAlpha = 0x4C494E01;  // "LIN\1"
inline constexpr int32_t kAttrLinearBeta = 0x4C494E02;

// One prepared op: primitives plus packed constants. Immutable after
// preparation, so invocations on several threads may share it.
class FastOp {
 public:
  virtual ~FastOp() = default;
  virtual const char* name() const = 0;
  // Per-invocation state: memory objects, temporaries and the oneDNN
  // scratchpad, allocated once and reused by every run.
  virtual absl::StatusOr<std::unique_ptr<FastOpState>> NewState() const = 0;
  // `inputs`/`outputs` are the op's tensors' host pointers (constants
  // included; omitted optional inputs are nullptr).
  virtual absl::Status Run(FastOpState& state, std::span<void* const> inputs, std::span<void* const> outputs) const = 0;
  // Layout conversions (oneDNN reorders) one Run does: between the plain
  // layout of the program's tensors and the blocked one a primitive
  // prefers. Fusion and chains exist to make these fewer.
  virtual size_t reorders() const { return 0; }
};

class FastOpState {
 public:
  virtual ~FastOpState() = default;
};

// One op of a fused elementwise group (see
// FastEngine::PrepareElementwiseGroup). Each operand is an input of the
// group (`link` < 0: group input `input`) or the output of an earlier link.
struct GroupOperand {
  int link = -1;
  int input = -1;
};
struct GroupLink {
  int32_t op_type = 0;
  Attributes attrs;
  std::vector<GroupOperand> operands;
  int output = -1;  // the group output this link writes, or -1 (internal)
};

// One op of a region (see FastEngine::PrepareRegion): its tensors as for
// Prepare (constant inputs carry their data), and for each other input
// where it comes from, an earlier link's output or a region input.
struct RegionLink {
  int32_t op_type = 0;
  Attributes attrs;
  std::vector<TensorRef> inputs;
  std::vector<GroupOperand> sources;  // per input; ignored for constants and omitted inputs
  TensorRef output;
  int region_output = -1;  // the region output this link writes, or -1 (internal)
  // Whether this link's primitives use the engine's threads, or one: a
  // region mixes large convolutions with small ones (a squeeze-excitation
  // branch on [1, C, 1, 1]), and waking the OpenMP team for a small one
  // costs more than it computes.
  bool parallel = true;
};

// Per device context: the oneDNN engine and the thread count.
class FastEngine {
 public:
  static absl::StatusOr<std::unique_ptr<FastEngine>> Create(int threads);
  virtual ~FastEngine() = default;
  virtual int threads() const = 0;

  // Prepares `op_type` for these tensors (types and shapes final; constant
  // inputs carry their data, every other TensorRef has data == nullptr).
  // Returns nullptr, with the reason in *why_not, when the fast path does
  // not handle this op, dtype or attribute combination (or the shapes are
  // not exactly what the op produces); the caller then uses the reference
  // kernel, which also reports any error.
  virtual std::unique_ptr<FastOp> Prepare(int32_t op_type, const Attributes& attrs, std::span<const TensorRef> inputs,
                                          std::span<const TensorRef> outputs, std::string* why_not) const = 0;

  // A region: 4-D f32 convolutions, pools and ADD/SUB/MUL/DIV (the second
  // operand of the output's shape, one value per channel, or one value)
  // in graph order, each reading region inputs, constants and earlier
  // links' outputs, any of them several times: a residual block, a
  // squeeze-and-excitation branch and its rescale. One fast op whose
  // internal tensors stay in the layout the convolutions prefer (NHWC or
  // channel-blocked), so only the region's inputs and outputs pay a
  // reorder. `inputs` arrive and the region outputs (0, 1, ... as the links
  // name them) leave in plain NCHW. nullptr (why_not) when a link is not
  // handled.
  virtual std::unique_ptr<FastOp> PrepareRegion(std::span<const RegionLink> links, std::span<const TensorRef> inputs,
                                                std::string* why_not) const = 0;

  // Consecutive elementwise f32 ops that all produce the same shape (the
  // GELU and LayerNorm tails of a transformer block) as one pass over
  // memory: the ops run tile by tile, the intermediates stay in a few KiB
  // of scratch instead of going through memory once per op. `inputs` are
  // the group's inputs (constants with data); each must have the output
  // shape, be one value, a vector along the last dim, or one value per
  // row. `outputs` (all of the output shape) are written by the links that
  // name them. nullptr (why_not) when a link or operand does not fit.
  virtual std::unique_ptr<FastOp> PrepareElementwiseGroup(std::span<const GroupLink> links,
                                                          std::span<const TensorRef> inputs,
                                                          std::span<const TensorRef> outputs,
                                                          std::string* why_not) const = 0;
};

// Sets the OpenMP thread count of the calling thread for the scope.
class ScopedThreads {
 public:
  explicit ScopedThreads(int threads);
  ~ScopedThreads();
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
  int previous_;
};

// "oneDNN 2.6.3 (OpenMP runtime)" etc., for reports.
std::string FastLibraryVersion();

}  // namespace tessera::cpu::fast

#endif  // TESSERA_PLUGINS_CPU_FAST_KERNELS_FAST_KERNELS_H_
