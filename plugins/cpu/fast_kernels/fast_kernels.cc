#include "plugins/cpu/fast_kernels/fast_kernels.h"

#include <omp.h>

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast {
namespace {

using namespace detail;  // the preparers and NotHandled

// ---- The engine -----------------------------------------------------------------

class DnnlEngine : public FastEngine {
 public:
  explicit DnnlEngine(int threads) : threads_(threads), engine_(dnnl::engine::kind::cpu, 0) {}
  int threads() const override { return threads_; }

  std::unique_ptr<FastOp> Prepare(int32_t op_type, const Attributes& attrs, std::span<const TensorRef> inputs,
                                  std::span<const TensorRef> outputs, std::string* why_not) const override {
    ScopedThreads threads(threads_);
    std::string why;
    try {
      switch (op_type) {
        case TSR_OP_FULLY_CONNECTED:
          return PrepareFullyConnected(engine_, attrs, inputs, outputs);
        case TSR_OP_MATMUL:
          return PrepareMatmul(engine_, attrs, inputs, outputs);
        case TSR_OP_CONV_2D:
          return PrepareConv(engine_, attrs, inputs, outputs);
        case TSR_OP_CONV_TRANSPOSE_2D:
          return PrepareConvTranspose(engine_, attrs, inputs, outputs);
        case TSR_OP_MAX_POOL_2D:
        case TSR_OP_AVG_POOL_2D:
        case TSR_OP_GLOBAL_AVG_POOL: {
          if (inputs.size() != 1 || outputs.size() != 1) Refuse(absl::StrCat(OpTypeName(op_type), ": arity"));
          const RegionLink link{op_type, attrs, {inputs.begin(), inputs.end()}, {GroupOperand{-1, 0}}, outputs[0], 0};
          return detail::PrepareRegion(engine_, {&link, 1}, inputs, threads_);
        }
        case TSR_OP_ADD:
        case TSR_OP_SUB:
        case TSR_OP_MUL:
        case TSR_OP_DIV:
          // oneDNN's JIT binary kernel where it has one for this broadcast
          // pattern, else the loop (first operand broadcasting, or a
          // pattern oneDNN would run with its reference implementation).
          try {
            return PrepareBinary(op_type, engine_, inputs, outputs);
          } catch (const NotHandled&) {
            return PrepareBinaryLoop(op_type, inputs, outputs);
          }
        case TSR_OP_POW:
          try {
            return PreparePowConstant(inputs, outputs);
          } catch (const NotHandled&) {
            return PrepareBinaryLoop(op_type, inputs, outputs);
          }
        case TSR_OP_MAXIMUM:
        case TSR_OP_MINIMUM:
        case TSR_OP_EQUAL:
        case TSR_OP_LESS:
        case TSR_OP_GREATER:
          return PrepareBinaryLoop(op_type, inputs, outputs);
        case TSR_OP_NEG:
        case TSR_OP_ABS:
        case TSR_OP_SQRT:
        case TSR_OP_RSQRT:
        case TSR_OP_EXP:
        case TSR_OP_LOG:
        case TSR_OP_SIN:
        case TSR_OP_COS:
        case TSR_OP_TANH:
        case TSR_OP_SIGMOID:
        case TSR_OP_RELU:
        case TSR_OP_ERF:
        case TSR_OP_CLIP:
          return PrepareUnary(op_type, attrs, inputs, outputs);
        case TSR_OP_REDUCE_MEAN:
        case TSR_OP_REDUCE_SUM:
        case TSR_OP_REDUCE_MAX:
          return PrepareReduce(op_type, attrs, inputs, outputs);
        case TSR_OP_LAYER_NORM:
          return PrepareLayerNorm(attrs, inputs, outputs);
        case TSR_OP_RESHAPE:
        case TSR_OP_SQUEEZE:
        case TSR_OP_UNSQUEEZE:
          return PrepareReshape(op_type, inputs, outputs);
        case TSR_OP_CONCAT:
          return PrepareConcat(attrs, inputs, outputs);
        case TSR_OP_GATHER:
          return PrepareGather(attrs, inputs, outputs);
        case TSR_OP_RESIZE:
          return PrepareResize(attrs, inputs, outputs);
        case TSR_OP_PAD:
          return PreparePad(attrs, inputs, outputs);
        case TSR_OP_SOFTMAX:
          return PrepareSoftmax(engine_, attrs, inputs, outputs);
        case TSR_OP_TRANSPOSE:
          return PrepareTranspose(engine_, attrs, inputs, outputs);
        case TSR_OP_SLICE:
          return PrepareSlice(engine_, attrs, inputs, outputs);
        case TSR_OP_SELECT:
          return PrepareSelect(inputs, outputs);
        default:
          why = absl::StrCat(OpTypeName(op_type), ": no fast kernel");
          break;
      }
    } catch (const NotHandled& e) {
      why = e.why;
    } catch (const dnnl::error& e) {
      why = absl::StrCat(OpTypeName(op_type), ": oneDNN: ", e.what());
    } catch (const std::exception& e) {
      why = absl::StrCat(OpTypeName(op_type), ": ", e.what());
    }
    if (why_not) *why_not = why;
    return nullptr;
  }

  std::unique_ptr<FastOp> PrepareElementwiseGroup(std::span<const GroupLink> links, std::span<const TensorRef> inputs,
                                                  std::span<const TensorRef> outputs,
                                                  std::string* why_not) const override {
    try {
      return detail::PrepareElementwiseGroup(links, inputs, outputs);
    } catch (const NotHandled& e) {
      if (why_not) *why_not = e.why;
    }
    return nullptr;
  }

  std::unique_ptr<FastOp> PrepareRegion(std::span<const RegionLink> links, std::span<const TensorRef> inputs,
                                        std::string* why_not) const override {
    ScopedThreads threads(threads_);
    std::string why;
    try {
      return detail::PrepareRegion(engine_, links, inputs, threads_);
    } catch (const NotHandled& e) {
      why = e.why;
    } catch (const dnnl::error& e) {
      why = absl::StrCat("region: oneDNN: ", e.what());
    } catch (const std::exception& e) {
      why = absl::StrCat("region: ", e.what());
    }
    if (why_not) *why_not = why;
    return nullptr;
  }

 private:
  int threads_;
  dnnl::engine engine_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<FastEngine>> FastEngine::Create(int threads) {
  if (threads < 1) return absl::InvalidArgumentError(absl::StrCat("fast kernels: threads must be >= 1, not ", threads));
  try {
    return std::unique_ptr<FastEngine>(std::make_unique<DnnlEngine>(threads));
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("fast kernels: no oneDNN cpu engine: ", e.what()));
  }
}

ScopedThreads::ScopedThreads(int threads) : previous_(omp_get_max_threads()) {
  if (threads != previous_) omp_set_num_threads(threads);
}

ScopedThreads::~ScopedThreads() {
  if (omp_get_max_threads() != previous_) omp_set_num_threads(previous_);
}

std::string FastLibraryVersion() {
  const dnnl_version_t* v = dnnl_version();
  const char* runtime = v->cpu_runtime == DNNL_RUNTIME_OMP   ? "OpenMP"
                        : v->cpu_runtime == DNNL_RUNTIME_TBB ? "TBB"
                        : v->cpu_runtime == DNNL_RUNTIME_SEQ ? "sequential"
                                                             : "other";
  return absl::StrCat("oneDNN ", v->major, ".", v->minor, ".", v->patch, " (", runtime, " runtime)");
}

}  // namespace tessera::cpu::fast
