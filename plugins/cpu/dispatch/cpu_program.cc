#include "plugins/cpu/dispatch/cpu_program.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "support/math/checked_math.h"
#include "plugins/kit/constant_references.h"
#include "plugins/cpu/dispatch/activation_tails.h"
#include "plugins/cpu/dispatch/conv_regions.h"
#include "plugins/cpu/dispatch/elementwise_groups.h"
#include "tessera/ops.h"

namespace tessera::cpu {

TensorRef SnapshotRef(const kit::SnapshotTensor& t, void* data) {
  TensorRef r;
  r.dtype = t.dtype;
  r.shape = t.shape;
  r.data = data;
  r.quant.scales = t.quant.scales;
  r.quant.zero_points = t.quant.zero_points;
  r.quant.axis = t.quant.axis;
  return r;
}

void* ConstantData(const kit::SnapshotTensor& t) {
  // Kernels never write their inputs; constants stay read-only.
  return const_cast<uint8_t*>(t.constant.data());
}

namespace {

// Multiply-accumulates (compute ops) or elements written (the rest) by op
// o, as the measure of whether its fast kernel is worth several threads.
double EstimatedWork(const CpuProgram& p, size_t o) {
  const kit::SnapshotOp& op = p.graph.ops[o];
  double out = 0;
  for (int32_t t : op.outputs) {
    double n = 1;
    for (int64_t d : p.graph.tensors[t].shape) n *= static_cast<double>(d);
    out += n;
  }
  auto dim = [&](size_t input, int from_end) -> double {
    if (input >= op.inputs.size() || op.inputs[input] < 0) return 1;
    const std::vector<int64_t>& s = p.graph.tensors[op.inputs[input]].shape;
    return s.size() >= static_cast<size_t>(from_end) ? static_cast<double>(s[s.size() - from_end]) : 1;
  };
  switch (op.type) {
    case TSR_OP_FULLY_CONNECTED:
    case TSR_OP_MATMUL: return out * dim(0, 1);                                // x K
    case TSR_OP_CONV_2D: return out * dim(1, 1) * dim(1, 2) * dim(1, 3);      // x Cin/g * kh * kw
    default: return out;
  }
}

// Below this (~0.1-0.3 ms of one core), one thread: measured on the cnn
// and attention benchmarks, whose small ops ran slower on two threads.
constexpr double kParallelWork = 4.0 * 1024 * 1024;

// The bytes of every tensor a run touches (constants live in the bytecode
// and count there), against cpu.max_memory_bytes; the sum stops growing
// once it is past the budget, so it cannot wrap.
absl::Status CheckMemoryBudget(const CpuProgram& p, uint64_t max_memory_bytes) {
  uint64_t total = 0;
  for (size_t t = 0; t < p.graph.tensors.size() && total <= max_memory_bytes; ++t)
    if (!p.graph.tensors[t].is_constant) total += p.tensor_bytes[t];  // each <= 2^48 (DecodeSnapshot)
  if (total <= max_memory_bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      "cpu program: its inputs, outputs and intermediates need ", total, " bytes or more, above cpu.max_memory_bytes = ",
      max_memory_bytes, " (raise it with --option cpu.max_memory_bytes=VALUE)"));
}

}  // namespace

void FreeDeleter::operator()(void* p) const { std::free(p); }

absl::StatusOr<CpuProgram> LoadCpuProgram(std::span<const uint8_t> encoded, const fast::FastEngine* engine,
                                          uint64_t max_memory_bytes,
                                          std::span<const tsr_constant_binding> bindings) {
  absl::StatusOr<kit::GraphSnapshot> g = kit::DecodeSnapshot(encoded);
  if (!g.ok()) return g.status();
  // External constants (ABI 1.4) point at the host's mapped model from here
  // on; a missing or wrong-size binding is refused, never read.
  if (absl::Status s = kit::ResolveConstantReferences(*g, bindings); !s.ok()) return s;
  CpuProgram p;
  p.graph = *std::move(g);
  const size_t n = p.graph.tensors.size();
  p.tensor_bytes.resize(n);
  p.input_slot.assign(n, -1);
  p.output_slot.assign(n, -1);
  for (size_t t = 0; t < n; ++t) {
    // Checked (DecodeSnapshot refuses sizes that wrap; this is the last
    // line if that ever changes): the attach check and the intermediates'
    // allocations trust these sizes.
    const int64_t bytes = kit::TensorByteSize(p.graph.tensors[t]);
    if (bytes < 0) return absl::InvalidArgumentError(absl::StrCat("cpu program: tensor ", t, " has no valid byte size"));
    p.tensor_bytes[t] = static_cast<size_t>(bytes);
  }
  if (absl::Status s = CheckMemoryBudget(p, max_memory_bytes); !s.ok()) return s;
  for (size_t i = 0; i < p.graph.inputs.size(); ++i) p.input_slot[p.graph.inputs[i]] = static_cast<int32_t>(i);
  for (size_t i = 0; i < p.graph.outputs.size(); ++i) p.output_slot[p.graph.outputs[i]] = static_cast<int32_t>(i);
  // Every tensor an op reads must be an input, a constant, or written by an
  // earlier op: the interpreter relies on it.
  std::vector<bool> ready(n, false);
  for (size_t t = 0; t < n; ++t) ready[t] = p.graph.tensors[t].is_constant || p.input_slot[t] >= 0;
  for (size_t o = 0; o < p.graph.ops.size(); ++o) {
    const kit::SnapshotOp& op = p.graph.ops[o];
    for (int32_t t : op.inputs)
      if (t >= 0 && !ready[t])
        return absl::InvalidArgumentError(absl::StrCat("cpu program: op ", o, " reads tensor ", t, " before it is written"));
    for (int32_t t : op.outputs) {
      if (p.graph.tensors[t].is_constant || p.input_slot[t] >= 0)
        return absl::InvalidArgumentError(absl::StrCat("cpu program: op ", o, " writes a constant or an input"));
      ready[t] = true;
    }
    Attributes attrs;
    for (const auto& [key, value] : op.attrs) {
      if (!value.ints.empty() || value.floats.empty()) attrs.SetInts(key, value.ints);
      if (!value.floats.empty()) attrs.SetFloats(key, value.floats);
    }
    p.op_attrs.push_back(std::move(attrs));
  }
  for (int32_t t : p.graph.outputs)
    if (!ready[t]) return absl::InvalidArgumentError("cpu program: an output is never written");

  // The fast kernels: prepared once per op, here (weights packed for this
  // CPU, primitives created). Constant inputs carry their data; the rest
  // are described by type and shape only.
  const size_t op_count = p.graph.ops.size();
  p.fast_ops.resize(op_count);
  p.fast_refusal.assign(op_count, engine ? "" : "cpu.kernels=reference");
  p.fused_into.assign(op_count, -1);
  p.fast_outputs.resize(op_count);
  p.fast_inputs.resize(op_count);
  for (size_t o = 0; o < op_count; ++o) {
    p.fast_outputs[o] = p.graph.ops[o].outputs;
    p.fast_inputs[o] = p.graph.ops[o].inputs;
  }
  if (engine != nullptr) {
    p.threads = engine->threads();
    // Ops too small for several threads are prepared on a one-thread
    // engine: oneDNN fixes a primitive's thread count when it is created
    // (its parallel regions ask for that many threads whatever the caller
    // set at run time).
    std::unique_ptr<fast::FastEngine> serial;
    if (p.threads > 1) {
      absl::StatusOr<std::unique_ptr<fast::FastEngine>> one = fast::FastEngine::Create(1);
      if (one.ok()) serial = *std::move(one);
    }
    auto engine_for = [&](double work) -> const fast::FastEngine& {
      return serial && work < kParallelWork ? *serial : *engine;
    };
    // Readers of each tensor, for activation fusion.
    std::vector<std::vector<size_t>> readers(n);
    for (size_t o = 0; o < op_count; ++o)
      for (int32_t t : p.graph.ops[o].inputs)
        if (t >= 0) readers[t].push_back(o);
    // The activation tail after each compute op, found once: the chains,
    // the elementwise groups' exclusions and the single-op fusion all ask.
    auto compute = [](int32_t type) {
      return type == TSR_OP_FULLY_CONNECTED || type == TSR_OP_MATMUL || type == TSR_OP_CONV_2D;
    };
    std::vector<std::optional<ActivationTail>> tails(op_count);
    for (size_t o = 0; o < op_count; ++o)
      if (compute(p.graph.ops[o].type)) tails[o] = FindActivationTail(p, readers, o);
    auto typed_inputs = [&](const kit::SnapshotOp& op) {
      std::vector<TensorRef> ins;
      for (int32_t t : op.inputs) {
        if (t < 0) {
          ins.emplace_back();
          continue;
        }
        const kit::SnapshotTensor& tensor = p.graph.tensors[t];
        ins.push_back(SnapshotRef(tensor, tensor.is_constant ? ConstantData(tensor) : nullptr));
      }
      return ins;
    };
    // Regions of convolutions, pools and the binary ops between them (a
    // convolution's activation tail inside): one fast op each, whose
    // internal tensors stay in the convolutions' layout.
    FuseConvRegions(p, *engine, readers, tails, [&](const std::vector<size_t>& ops) {
      double work = 0;
      for (size_t m : ops) work += EstimatedWork(p, m);
      return work >= kParallelWork;
    });
    // Runs of consecutive elementwise ops with one output shape: one fast
    // op each (a RELU that fuses into the compute op before it stays out).
    std::vector<bool> fuses_as_activation(op_count, false);
    for (size_t o = 0; o < op_count; ++o) {
      if (p.fused_into[o] >= 0 || !tails[o].has_value()) continue;
      for (size_t a : tails[o]->ops) fuses_as_activation[a] = true;
    }
    FuseElementwiseGroups(p, *engine, readers, fuses_as_activation);
    for (size_t o = 0; o < op_count; ++o) {
      if (p.fused_into[o] >= 0 || p.fast_ops[o]) continue;
      const kit::SnapshotOp& op = p.graph.ops[o];
      const std::vector<TensorRef> ins = typed_inputs(op);
      const std::optional<ActivationTail>& tail = tails[o];
      if (tail.has_value() &&
          p.op_attrs[o].GetInt(TSR_ATTR_ACTIVATION, TSR_ACTIVATION_NONE) == TSR_ACTIVATION_NONE) {
        std::vector<TensorRef> fused_outs = {SnapshotRef(p.graph.tensors[tail->output], nullptr)};
        std::string why;
        double work = EstimatedWork(p, o);
        for (size_t a : tail->ops) work += EstimatedWork(p, a);
        if (auto fused = engine_for(work).Prepare(op.type, tail->Apply(p.op_attrs[o]), ins, fused_outs, &why)) {
          p.fast_ops[o] = std::move(fused);
          p.fast_outputs[o] = {tail->output};
          for (size_t a : tail->ops) p.fused_into[a] = static_cast<int32_t>(o);
          p.fast_op_count += 1 + tail->ops.size();
          continue;
        }
      }
      std::vector<TensorRef> outs;
      for (int32_t t : op.outputs) outs.push_back(SnapshotRef(p.graph.tensors[t], nullptr));
      p.fast_ops[o] = engine_for(EstimatedWork(p, o)).Prepare(op.type, p.op_attrs[o], ins, outs, &p.fast_refusal[o]);
      if (p.fast_ops[o]) ++p.fast_op_count;
    }
  }
  for (const std::unique_ptr<fast::FastOp>& f : p.fast_ops) {
    if (!f) continue;
    ++p.fast_kernel_count;
    p.fast_reorder_count += f->reorders();
  }
  // A fused op (chain, group, compute + activation) counts its members' work.
  p.fast_parallel.assign(op_count, false);
  std::vector<double> work(op_count, 0);
  for (size_t o = 0; o < op_count; ++o) work[p.fused_into[o] >= 0 ? p.fused_into[o] : o] += EstimatedWork(p, o);
  for (size_t o = 0; o < op_count; ++o) p.fast_parallel[o] = work[o] >= kParallelWork;
  return p;
}

namespace {

absl::Status SetUp(const CpuProgram& p, CpuRunState& st) {
  const size_t n = p.graph.tensors.size();
  st.intermediates.clear();
  st.intermediates.resize(n);
  st.data.assign(n, nullptr);
  // A compute op fused with its activation (or a chain) writes the last
  // fused op's output; the tensors in between are never touched.
  std::vector<bool> unused(n, false);
  for (size_t o = 0; o < p.graph.ops.size(); ++o)
    if ((p.fast_ops[o] && p.fast_outputs[o] != p.graph.ops[o].outputs) || p.fused_into[o] >= 0)
      for (int32_t t : p.graph.ops[o].outputs) unused[t] = true;
  for (size_t o = 0; o < p.graph.ops.size(); ++o)
    if (p.fast_ops[o])
      for (int32_t t : p.fast_outputs[o]) unused[t] = false;
  for (size_t t = 0; t < n; ++t) {
    const kit::SnapshotTensor& tensor = p.graph.tensors[t];
    if (tensor.is_constant) {
      st.data[t] = ConstantData(tensor);
    } else if (p.input_slot[t] < 0 && p.output_slot[t] < 0 && !unused[t]) {
      const std::optional<uint64_t> aligned = checked::AlignUp(p.tensor_bytes[t], 64);
      if (!aligned) return absl::ResourceExhaustedError("cpu program: intermediate size overflows");
      const size_t rounded = static_cast<size_t>(*aligned);
      void* mem = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
      if (mem == nullptr) return absl::ResourceExhaustedError("cpu program: out of memory for intermediates");
      std::memset(mem, 0, rounded == 0 ? 64 : rounded);
      st.intermediates[t].reset(static_cast<uint8_t*>(mem));
      st.data[t] = mem;
    }
  }
  const size_t ops = p.graph.ops.size();
  st.op_inputs.assign(ops, {});
  st.op_outputs.assign(ops, {});
  st.op_input_ptrs.assign(ops, {});
  st.op_output_ptrs.assign(ops, {});
  st.fast.clear();
  st.fast.resize(ops);
  for (size_t o = 0; o < ops; ++o) {
    const kit::SnapshotOp& op = p.graph.ops[o];
    for (int32_t t : op.inputs) st.op_inputs[o].push_back(t >= 0 ? SnapshotRef(p.graph.tensors[t], nullptr) : TensorRef{});
    for (int32_t t : op.outputs) st.op_outputs[o].push_back(SnapshotRef(p.graph.tensors[t], nullptr));
    st.op_input_ptrs[o].assign(std::max(op.inputs.size(), p.fast_inputs[o].size()), nullptr);
    st.op_output_ptrs[o].assign(std::max(op.outputs.size(), p.fast_outputs[o].size()), nullptr);
    if (p.fast_ops[o]) {
      absl::StatusOr<std::unique_ptr<fast::FastOpState>> s = p.fast_ops[o]->NewState();
      if (!s.ok()) return s.status();
      st.fast[o] = *std::move(s);
    }
  }
  st.ready = true;
  return absl::OkStatus();
}

}  // namespace

absl::Status RunCpuProgram(const CpuProgram& p, CpuRunState& st, std::span<void* const> inputs,
                           std::span<void* const> outputs) {
  if (inputs.size() != p.graph.inputs.size() || outputs.size() != p.graph.outputs.size())
    return absl::InvalidArgumentError("cpu program: wrong number of attached buffers");
  if (!st.ready) {
    absl::Status s = SetUp(p, st);
    if (!s.ok()) {
      st.ready = false;
      return s;
    }
  }
  // The attached buffers may change between runs; everything else is fixed.
  for (size_t i = 0; i < inputs.size(); ++i) st.data[p.graph.inputs[i]] = inputs[i];
  for (size_t i = 0; i < outputs.size(); ++i) st.data[p.graph.outputs[i]] = outputs[i];
  std::optional<fast::ScopedThreads> threads;
  if (p.fast_op_count > 0) threads.emplace(p.threads);
  st.last_fast_ops = 0;
  for (size_t o = 0; o < p.graph.ops.size(); ++o) {
    const kit::SnapshotOp& op = p.graph.ops[o];
    absl::Status s;
    if (p.fused_into[o] >= 0) {
      ++st.last_fast_ops;  // done as the post-op of an earlier fast op
      continue;
    }
    if (p.fast_ops[o]) {
      const std::vector<int32_t>& written = p.fast_outputs[o];
      const std::vector<int32_t>& read = p.fast_inputs[o];
      for (size_t i = 0; i < read.size(); ++i) st.op_input_ptrs[o][i] = read[i] >= 0 ? st.data[read[i]] : nullptr;
      for (size_t i = 0; i < written.size(); ++i) st.op_output_ptrs[o][i] = st.data[written[i]];
      if (p.threads > 1 && !p.fast_parallel[o]) {
        const fast::ScopedThreads one(1);
        s = p.fast_ops[o]->Run(*st.fast[o], st.op_input_ptrs[o], st.op_output_ptrs[o]);
      } else {
        s = p.fast_ops[o]->Run(*st.fast[o], st.op_input_ptrs[o], st.op_output_ptrs[o]);
      }
      ++st.last_fast_ops;
    } else {
      for (size_t i = 0; i < op.inputs.size(); ++i)
        if (op.inputs[i] >= 0) st.op_inputs[o][i].data = st.data[op.inputs[i]];
      for (size_t i = 0; i < op.outputs.size(); ++i) st.op_outputs[o][i].data = st.data[op.outputs[i]];
      s = RunReferenceOp(op.type, p.op_attrs[o], st.op_inputs[o], st.op_outputs[o]);
    }
    if (!s.ok())
      return absl::Status(s.code(), absl::StrCat("op id ", op.id, " (", OpTypeName(op.type), "): ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace tessera::cpu
