// Fast kernels that are plain loops over host memory rather than oneDNN
// primitives: the op, the numpy broadcasting walk they share, and the
// vector-clone attribute of their hot loops. Internal to plugins/cpu/fast.
#ifndef TESSERA_PLUGINS_CPU_FAST_KERNELS_LOOP_OP_H_
#define TESSERA_PLUGINS_CPU_FAST_KERNELS_LOOP_OP_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "plugins/cpu/fast_kernels/fast_kernels.h"

// The plugin is built for baseline x86-64 (SSE2) because it must load on
// any x86 host; the hot loops are also compiled for AVX2 and picked at load
// time by an ifunc, so they run 8 floats wide where the CPU has it. No FMA:
// contracting a*b+c would change results against the reference.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define TSR_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TSR_VECTOR_CLONES
#endif

namespace tessera::cpu::fast::detail {

// A fast op whose run is one function over the op's pointers: no
// primitives, no per-run state. `body` returns an error only for what the
// data itself makes invalid (a GATHER index out of range).
class LoopOp : public FastOp {
 public:
  using Body = std::function<absl::Status(std::span<void* const> ins, std::span<void* const> outs)>;
  // `required_inputs`/`required_outputs`: how many leading pointers must be
  // bound (optional ones after them may be nullptr).
  LoopOp(std::string name, size_t required_inputs, size_t required_outputs, Body body)
      : name_(std::move(name)), ins_(required_inputs), outs_(required_outputs), body_(std::move(body)) {}
  const char* name() const override { return name_.c_str(); }
  absl::StatusOr<std::unique_ptr<FastOpState>> NewState() const override { return std::make_unique<FastOpState>(); }
  absl::Status Run(FastOpState&, std::span<void* const> inputs, std::span<void* const> outputs) const override {
    if (inputs.size() < ins_ || outputs.size() < outs_)
      return absl::InvalidArgumentError(absl::StrCat(name_, ": arity"));
    for (size_t i = 0; i < ins_; ++i)
      if (inputs[i] == nullptr) return absl::InvalidArgumentError(absl::StrCat(name_, ": tensor not bound"));
    for (size_t i = 0; i < outs_; ++i)
      if (outputs[i] == nullptr) return absl::InvalidArgumentError(absl::StrCat(name_, ": tensor not bound"));
    return body_(inputs, outputs);
  }

 private:
  std::string name_;
  size_t ins_, outs_;
  Body body_;
};

// Numpy broadcasting of N inputs onto their common shape, with adjacent
// dims merged wherever every input is either contiguous across them or
// broadcast along both, so that the walk is a few long rows: the innermost
// merged dim is one row, and each input advances along it with element
// stride 0 (broadcast) or 1.
class BroadcastWalk {
 public:
  // nullopt-like: ok() false with the reason when the shapes don't broadcast.
  explicit BroadcastWalk(std::span<const std::vector<int64_t>> shapes);
  bool ok() const { return ok_; }
  const std::vector<int64_t>& out_shape() const { return out_shape_; }  // uncollapsed
  int64_t row_length() const { return dims_.empty() ? 1 : dims_.back(); }
  // Element stride of input k along a row: 0 or 1.
  int64_t row_stride(size_t k) const { return dims_.empty() ? 0 : strides_[k].back(); }

  // Calls fn(out_offset, const int64_t* in_offsets) at the start of every
  // row, in row-major order. Runs on every invoke, so its counters live
  // on the stack for the ranks and arities models have (no allocation).
  template <typename Fn>
  void ForEachRow(Fn&& fn) const {
    const size_t r = dims_.size(), n = strides_.size();
    absl::InlinedVector<int64_t, 8> idx(r, 0), off(n, 0);
    const int64_t len = row_length();
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < r; ++d) rows *= dims_[d];
    for (int64_t row = 0; row < rows; ++row) {
      fn(row * len, static_cast<const int64_t*>(off.data()));
      for (size_t d = r - 1; d-- > 0;) {  // odometer over the outer dims
        if (++idx[d] < dims_[d]) {
          for (size_t k = 0; k < n; ++k) off[k] += strides_[k][d];
          break;
        }
        for (size_t k = 0; k < n; ++k) off[k] -= strides_[k][d] * (dims_[d] - 1);
        idx[d] = 0;
      }
    }
  }

 private:
  bool ok_ = false;
  std::vector<int64_t> out_shape_;
  std::vector<int64_t> dims_;                  // merged output dims
  std::vector<std::vector<int64_t>> strides_;  // per input, per merged dim
};

// Every element of a constant tensor as double (f32, f16 excluded: callers
// check the dtype), or empty when the tensor has no data at prepare time.
std::vector<double> ConstantValues(const TensorRef& t);

}  // namespace tessera::cpu::fast::detail

#endif  // TESSERA_PLUGINS_CPU_FAST_KERNELS_LOOP_OP_H_
