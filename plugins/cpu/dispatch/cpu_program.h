// A loaded cpu executable: the decoded partition plus the per-op kernel
// attributes, and, with the fast kernels, one prepared oneDNN op (weights
// packed, primitives created) for every op they handle. Ops they don't
// handle run the reference kernels.
#ifndef TESSERA_PLUGINS_CPU_DISPATCH_CPU_PROGRAM_H_
#define TESSERA_PLUGINS_CPU_DISPATCH_CPU_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/cpu/fast_kernels/fast_kernels.h"
#include "plugins/kit/graph_snapshot.h"
#include "support/reference_kernels/kernel_api.h"
#include "tessera/dispatch.h"

namespace tessera::cpu {

struct CpuProgram {
  kit::GraphSnapshot graph;
  std::vector<Attributes> op_attrs;       // per op
  std::vector<size_t> tensor_bytes;       // per tensor
  std::vector<int32_t> input_slot;        // tensor -> graph input index or -1
  std::vector<int32_t> output_slot;       // tensor -> graph output index or -1
  // Per op: the prepared fast kernel, or nullptr (reference kernel) with
  // the reason in fast_refusal.
  std::vector<std::unique_ptr<fast::FastOp>> fast_ops;
  std::vector<std::string> fast_refusal;
  // Activation fusion (fast kernels only): a RELU or CLIP that is the only
  // reader of a FULLY_CONNECTED / MATMUL / CONV_2D output becomes the fast
  // op's post-op. fast_outputs[o] are the tensors op o writes (the
  // activation's output when fused); fused_into[a] = o marks the activation
  // op a as done by op o (-1 otherwise).
  std::vector<std::vector<int32_t>> fast_outputs;
  // The tensors a fast op reads: the op's inputs, or a fused elementwise
  // group's inputs (tensor -1: an omitted optional input).
  std::vector<std::vector<int32_t>> fast_inputs;
  std::vector<int32_t> fused_into;
  int threads = 1;                        // OpenMP threads for the fast kernels
  // Per op: run its fast kernel with `threads` (true) or with one thread.
  // Waking the OpenMP workers (the wait policy is passive, see
  // cpu_dispatch_entry.cc) costs tens of microseconds on a busy machine,
  // more than small ops take on one thread.
  std::vector<bool> fast_parallel;
  size_t fast_op_count = 0;
  // What one run launches: fast kernels (a chain or fused group counts
  // once, however many ops it does) and the layout reorders inside them
  // (metrics fast_kernels and reorders).
  size_t fast_kernel_count = 0;
  size_t fast_reorder_count = 0;
};

// A kernel's view of a program tensor (`data` may be nullptr: type only),
// and a constant's bytes (read-only to kernels).
TensorRef SnapshotRef(const kit::SnapshotTensor& t, void* data);
void* ConstantData(const kit::SnapshotTensor& t);

// Decodes and checks an encoded partition; constants point into `encoded`,
// which must outlive the program. With `engine` (cpu.kernels=fast) every
// op the fast kernels handle is prepared here, once: this is the cpu
// plugin's compile step at run time (see fast/fast_kernels.h for why the
// AOT bytecode stays the portable graph).
//
// `max_memory_bytes` (the option cpu.max_memory_bytes) bounds the bytes of
// every tensor a run touches (inputs, outputs, intermediates), checked
// before anything is prepared: the fast kernels' preparation (oneDNN
// primitives, index maps) grows with those tensors, so a small bytecode
// that declares huge ones is refused here rather than allocated for
// (fuzz finding 9).
//
// `bindings` (ABI 1.4, borrowed until the program is gone) give the bytes of
// the constants the encoding names by key; see kit/constant_references.h.
inline constexpr uint64_t kDefaultMaxMemoryBytes = uint64_t{16} << 30;  // the host's max_device_memory_bytes
absl::StatusOr<CpuProgram> LoadCpuProgram(std::span<const uint8_t> encoded, const fast::FastEngine* engine = nullptr,
                                          uint64_t max_memory_bytes = kDefaultMaxMemoryBytes,
                                          std::span<const tsr_constant_binding> bindings = {});

// What one invocation keeps between runs: intermediate tensors, the
// TensorRefs handed to the reference kernels, the fast kernels' state.
struct FreeDeleter {
  void operator()(void* p) const;
};

struct CpuRunState {
  bool ready = false;
  std::vector<std::unique_ptr<uint8_t, FreeDeleter>> intermediates;  // per tensor, 64-byte aligned
  std::vector<void*> data;                          // per tensor, this run
  std::vector<std::vector<TensorRef>> op_inputs;    // per op (reference kernels)
  std::vector<std::vector<TensorRef>> op_outputs;
  std::vector<std::vector<void*>> op_input_ptrs;    // per op (fast kernels)
  std::vector<std::vector<void*>> op_output_ptrs;
  std::vector<std::unique_ptr<fast::FastOpState>> fast;  // per op
  size_t last_fast_ops = 0;                         // ops the last run ran fast
};

// Runs the program. `inputs`/`outputs` are the attached host buffers, in
// graph input/output order. `state` belongs to one invocation and is set up
// on its first run.
absl::Status RunCpuProgram(const CpuProgram& program, CpuRunState& state, std::span<void* const> inputs,
                           std::span<void* const> outputs);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_DISPATCH_CPU_PROGRAM_H_
