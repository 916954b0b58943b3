// The building blocks every fast kernel shares: a prepared op is a plan of
// oneDNN primitives (steps) over memories (slots: the op's inputs and
// outputs, packed constants, temporaries), built once at load and executed
// on every run; plus the checks and layout helpers the preparers use.
// Internal to plugins/cpu/fast: a preparer that does not handle a case
// throws NotHandled (Refuse), which fast_kernels.cc turns into "run the
// reference kernel".
#ifndef TESSERA_PLUGINS_CPU_FAST_KERNELS_DNNL_PLAN_H_
#define TESSERA_PLUGINS_CPU_FAST_KERNELS_DNNL_PLAN_H_

#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/cpu/fast_kernels/fast_kernels.h"

namespace tessera::cpu::fast::detail {

using dnnl::memory;
using Dims = memory::dims;

// ---- A prepared op: slots (memories) and steps (primitives) ---------------

enum class SlotKind { kInput, kOutput, kConstant, kTemp };

struct Slot {
  SlotKind kind = SlotKind::kTemp;
  int index = -1;  // op input/output index (kInput/kOutput)
  memory::desc desc;
  memory constant;  // kConstant: owned, packed
};

struct Step {
  dnnl::primitive primitive;
  std::vector<std::pair<int, int>> args;  // (DNNL_ARG_*, slot)
  int threads = 0;                        // OpenMP threads to run it with; 0: the caller's
};

class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t bytes) {
    const size_t rounded = (bytes + 63) / 64 * 64;
    p_ = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  }
  ~AlignedBuffer() { std::free(p_); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

class PlanState : public FastOpState {
 public:
  dnnl::stream stream;
  std::vector<memory> memories;                       // per slot
  std::vector<std::unique_ptr<AlignedBuffer>> temps;  // backing kTemp slots
  std::vector<std::vector<dnnl_exec_arg_t>> args;     // per step
};

class PlanOp : public FastOp {
 public:
  PlanOp(std::string name, dnnl::engine engine) : name_(std::move(name)), engine_(std::move(engine)) {}
  const char* name() const override { return name_.c_str(); }

  int AddSlot(SlotKind kind, int index, const memory::desc& desc) {
    slots_.push_back({kind, index, desc, {}});
    return static_cast<int>(slots_.size()) - 1;
  }
  int AddConstant(memory packed) {
    slots_.push_back({SlotKind::kConstant, -1, packed.get_desc(), packed});
    return static_cast<int>(slots_.size()) - 1;
  }
  // The primitive's scratchpad, when it wants one (scratchpad_mode::user).
  void AddScratchpad(const memory::desc& desc, std::vector<std::pair<int, int>>& args) {
    if (desc.get_size() == 0) return;
    args.push_back({DNNL_ARG_SCRATCHPAD, AddSlot(SlotKind::kTemp, -1, desc)});
  }
  void AddStep(dnnl::primitive p, std::vector<std::pair<int, int>> args) {
    if (p.get_kind() == dnnl::primitive::kind::reorder) ++reorders_;
    steps_.push_back({std::move(p), std::move(args)});
  }
  size_t reorders() const override { return reorders_; }
  size_t step_count() const { return steps_.size(); }
  // Steps from `first` on run with `threads` OpenMP threads (see
  // RegionLink::parallel).
  void SetThreadsFrom(size_t first, int threads) {
    for (size_t i = first; i < steps_.size(); ++i) steps_[i].threads = threads;
  }

  // Layout conversions already in the plan, so that a tensor read in one
  // layout by several primitives (a region input read by two
  // convolutions) is converted once: the slot holding `from` in `want`,
  // or -1.
  int Converted(int from, const memory::desc& want) const {
    for (const Conversion& c : conversions_)
      if (c.from == from && c.want == want) return c.to;
    return -1;
  }
  void NoteConversion(int from, const memory::desc& want, int to) { conversions_.push_back({from, want, to}); }

  absl::StatusOr<std::unique_ptr<FastOpState>> NewState() const override {
    try {
      auto st = std::make_unique<PlanState>();
      st->stream = dnnl::stream(engine_);
      for (const Slot& s : slots_) {
        switch (s.kind) {
          case SlotKind::kConstant:
            st->memories.push_back(s.constant);
            break;
          case SlotKind::kTemp:
            st->temps.push_back(std::make_unique<AlignedBuffer>(s.desc.get_size()));
            if (st->temps.back()->get() == nullptr) return absl::ResourceExhaustedError("fast kernels: out of memory");
            st->memories.emplace_back(s.desc, engine_, st->temps.back()->get());
            break;
          default:  // bound to the caller's pointer on every run
            st->memories.emplace_back(s.desc, engine_, static_cast<void*>(nullptr));
            break;
        }
      }
      for (const Step& step : steps_) {
        std::vector<dnnl_exec_arg_t> a;
        for (auto [arg, slot] : step.args) a.push_back({arg, st->memories[slot].get()});
        st->args.push_back(std::move(a));
      }
      return std::unique_ptr<FastOpState>(std::move(st));
    } catch (const std::exception& e) {
      return absl::InternalError(absl::StrCat(name_, ": oneDNN state: ", e.what()));
    }
  }

  absl::Status Run(FastOpState& state, std::span<void* const> inputs, std::span<void* const> outputs) const override {
    auto& st = static_cast<PlanState&>(state);
    for (size_t s = 0; s < slots_.size(); ++s) {
      const Slot& slot = slots_[s];
      void* p = nullptr;
      if (slot.kind == SlotKind::kInput) {
        p = static_cast<size_t>(slot.index) < inputs.size() ? inputs[slot.index] : nullptr;
      } else if (slot.kind == SlotKind::kOutput) {
        p = static_cast<size_t>(slot.index) < outputs.size() ? outputs[slot.index] : nullptr;
      } else {
        continue;
      }
      if (p == nullptr) return absl::InvalidArgumentError(absl::StrCat(name_, ": tensor not bound"));
      if (dnnl_memory_set_data_handle(st.memories[s].get(), p) != dnnl_success)
        return absl::InternalError(absl::StrCat(name_, ": oneDNN rejected a buffer"));
    }
    for (size_t i = 0; i < steps_.size(); ++i) {
      std::optional<ScopedThreads> threads;
      if (steps_[i].threads > 0) threads.emplace(steps_[i].threads);
      const dnnl_status_t rc = dnnl_primitive_execute(steps_[i].primitive.get(), st.stream.get(),
                                                      static_cast<int>(st.args[i].size()), st.args[i].data());
      if (rc != dnnl_success) return absl::InternalError(absl::StrCat(name_, ": oneDNN execute failed (", rc, ")"));
    }
    if (dnnl_stream_wait(st.stream.get()) != dnnl_success)
      return absl::InternalError(absl::StrCat(name_, ": oneDNN wait failed"));
    return absl::OkStatus();
  }

 private:
  std::string name_;
  dnnl::engine engine_;
  std::vector<Slot> slots_;
  std::vector<Step> steps_;
  size_t reorders_ = 0;
  struct Conversion {
    int from;
    memory::desc want;
    int to;
  };
  std::vector<Conversion> conversions_;
};

// ---- Checks and layout helpers ---------------------------------------------

// Thrown (and caught in Prepare) when the fast path does not handle an op.
struct NotHandled {
  std::string why;
};

[[noreturn]] void Refuse(std::string why);

std::string ShapeText(std::span<const int64_t> s);
Dims RowMajorStrides(const Dims& dims);
memory::desc Plain(const Dims& dims);                    // f32, row-major
memory::desc Any(const Dims& dims);                      // f32, the primitive's choice
bool Present(std::span<const TensorRef> ins, size_t i);  // optional input given
// f32, not quantized, no empty dims (omitted optional inputs are skipped).
void RequireF32(int32_t op, std::span<const TensorRef> tensors);
void RequireOutputShape(int32_t op, const TensorRef& out, const std::vector<int64_t>& expected);
// Window attributes (STRIDES, DILATIONS, PADS, KERNEL_SHAPE, OUTPUT_PADDING)
// come from untrusted bytecode: bounded before any arithmetic, so the
// window and span sums cannot overflow (fuzzed PADS of 2^62 did, in pooling
// and then in CONV_2D). Nothing real comes near; the reference kernel takes
// what is refused here.
constexpr int64_t kMaxWindowAttribute = int64_t{1} << 24;
// `len` values of `key` in [min_value, kMaxWindowAttribute], or `len`
// copies of `dflt` when the attribute is absent.
std::vector<int64_t> PairOrDefault(const Attributes& attrs, int32_t key, size_t len, int64_t dflt, int64_t min_value,
                                   const char* what);
// oneDNN's binary algorithm for ADD, SUB, MUL or DIV.
dnnl::algorithm BinaryAlgorithm(int32_t op);
// Fused activation as an eltwise post-op; user scratchpad.
dnnl::primitive_attr ComputeAttr(int32_t op, const Attributes& attrs);
// Copies (reorders) constant data given in `user` layout into a new,
// library-owned memory of layout `want`: done once, at load.
memory Pack(const dnnl::engine& engine, const memory::desc& user, const void* data, const memory::desc& want);
// Binds an op input: packed constant when the tensor is constant, else
// the caller's pointer in `user` layout (the primitive must accept it).
int BindInput(PlanOp& plan, const dnnl::engine& engine, const TensorRef& t, int index, const memory::desc& user,
              const memory::desc& want);

// An activation tensor inside a plan: its slot and layout.
struct Act {
  int slot;
  memory::desc desc;
  bool is_output = false;
};

// `a` in layout `want`: itself, or a temporary it is reordered into (once
// per plan: a second request reuses the first conversion).
Act Into(PlanOp& plan, const dnnl::engine& engine, const Act& a, const memory::desc& want);
// Ends a plan's activation `a` as output `output` in plain layout (a
// reorder, unless `a` was written there directly).
void Finish(PlanOp& plan, const dnnl::engine& engine, const Act& a, const memory::desc& plain, int output = 0);
// A primitive's destination: output `output` directly when the activation
// is one (`output` >= 0) and the primitive writes the plain layout, else a
// temporary in the primitive's layout.
Act Destination(PlanOp& plan, const memory::desc& desc, const memory::desc& plain, int output);

}  // namespace tessera::cpu::fast::detail

#endif  // TESSERA_PLUGINS_CPU_FAST_KERNELS_DNNL_PLAN_H_
