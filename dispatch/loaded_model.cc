#include "dispatch/loaded_model.h"

#include <algorithm>
#include <map>
#include <optional>
#include <cstring>
#include <set>

#include "absl/strings/str_cat.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/base/sha256.h"
#include "dispatch/device_memory_budget.h"
#include "tessera/bytecode.h"
#include "tessera/ops.h"

namespace tessera {

absl::StatusOr<std::shared_ptr<const LoadedModel>> LoadedModel::Create(const Graph& graph,
                                                                       std::span<const tsr_jit_handle> jit_slots,
                                                                       const PluginRegistry& registry,
                                                                       const RuntimeOptions& options) {
  std::vector<const DispatchLibrary*> libraries;
  for (const Op& op : graph.ops) {
    if (op.type != TSR_OP_DISPATCH || !op.dispatch)
      return absl::FailedPreconditionError(absl::StrCat("op id ", op.id, " (", OpTypeName(op.type),
                                                        ") is not compiled; compile the model before running it"));
    const DispatchLibrary* lib = registry.FindDispatch(op.dispatch->vendor);
    if (lib == nullptr)
      return absl::NotFoundError(absl::StrCat("no dispatch library for vendor '", op.dispatch->vendor, "' (op id ", op.id,
                                              " needs libtessera_dispatch_", op.dispatch->vendor,
                                              ".so in a plugin directory; see `tessera plugins`)"));
    libraries.push_back(lib);
  }
  ASSIGN_OR_RETURN(std::shared_ptr<LoadedModel> model, CreateWith(graph, jit_slots, libraries, options));
  RETURN_IF_ERROR(model->AdoptCpuPlans(registry, options));
  return std::shared_ptr<const LoadedModel>(std::move(model));
}

absl::StatusOr<std::shared_ptr<LoadedModel>> LoadedModel::CreateWith(
    const Graph& graph, std::span<const tsr_jit_handle> jit_slots, const std::vector<const DispatchLibrary*>& libraries,
    const RuntimeOptions& options) {
  std::shared_ptr<LoadedModel> e(new LoadedModel());
  e->graph_ = graph;
  e->policy_ = options.resilience;
  RETURN_IF_ERROR(e->Load(libraries, jit_slots, options));
  e->cpu_plans_.resize(e->steps_.size());
  return e;
}

// The plans are only checked here (their libraries found, their shape
// matching the step they stand in for); loading waits for a failure.
absl::Status LoadedModel::AdoptCpuPlans(const PluginRegistry& registry, const RuntimeOptions& options) {
  plan_options_ = {options.soc, options.plugin_options, options.resilience, {}};
  plan_options_.resilience.fallback = false;  // a plan's failure is the run's error
  plan_options_.resilience.deadline_ms = 0;   // and a plan is never abandoned: it is the last resort
  for (size_t k = 0; k < steps_.size(); ++k) {
    const Op& op = graph_.ops[steps_[k].op];
    auto it = options.cpu_plans.find(op.id);
    if (it == options.cpu_plans.end()) continue;
    const Graph& plan = it->second;
    size_t live_inputs = 0;
    for (int32_t t : op.inputs) live_inputs += t >= 0 && !graph_.tensors[t].is_constant;
    if (plan.inputs.size() != live_inputs || plan.outputs.size() != op.outputs.size())
      return absl::InternalError(absl::StrCat("the cpu plan of op id ", op.id, " has ", plan.inputs.size(), " inputs and ",
                                              plan.outputs.size(), " outputs; the op has ", live_inputs, " and ",
                                              op.outputs.size()));
    CpuPlanSlot& slot = cpu_plans_[k];
    for (const Op& p : plan.ops) {
      const DispatchLibrary* lib = p.dispatch ? registry.FindDispatch(p.dispatch->vendor) : nullptr;
      if (lib == nullptr)
        return absl::NotFoundError(absl::StrCat("the cpu plan of op id ", op.id, " needs a dispatch library for '",
                                                p.dispatch ? p.dispatch->vendor : "?", "'"));
      slot.libraries.push_back(*lib);
    }
    slot.graph = plan;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const LoadedModel>> LoadedModel::CpuPlan(size_t step) const {
  std::lock_guard<std::mutex> lock(cpu_plan_lock_);
  const CpuPlanSlot& slot = cpu_plans_[step];
  if (!slot.graph) return absl::FailedPreconditionError("no cpu plan");
  if (slot.loaded == nullptr) {
    std::vector<const DispatchLibrary*> libraries;
    for (const DispatchLibrary& lib : slot.libraries) libraries.push_back(&lib);
    ASSIGN_OR_RETURN(slot.loaded, CreateWith(*slot.graph, {}, libraries, plan_options_));
  }
  return slot.loaded;
}

absl::Status LoadedModel::Load(const std::vector<const DispatchLibrary*>& libraries,
                               std::span<const tsr_jit_handle> jit_slots, const RuntimeOptions& options) {
  std::map<std::string, int32_t> session_of;
  std::set<int32_t> verified_blobs;  // indices into graph_.bytecodes
  std::string run_soc_sha256;        // this run's SoC file, hashed when a stamp needs it
  std::vector<DeviceMemoryUse> device_memory;  // per session: Budgets::max_device_memory_bytes
  for (size_t o = 0; o < graph_.ops.size(); ++o) {
    const Op& op = graph_.ops[o];
    const DispatchRef& ref = *op.dispatch;
    auto [it, fresh] = session_of.emplace(ref.vendor, static_cast<int32_t>(sessions_.size()));
    if (fresh) {
      ASSIGN_OR_RETURN(std::unique_ptr<DeviceSession> session,
                       DeviceSession::Create(*libraries[o], options.soc, options.plugin_options));
      sessions_.push_back(std::move(session));
      device_memory.emplace_back(ref.vendor, options.budgets);
    }
    steps_.emplace_back();
    LoadedStep* step = &steps_.back();
    step->op = static_cast<int32_t>(o);
    step->session = it->second;
    const DeviceSession& s = *sessions_[step->session];
    tsr_executable_source src{};
    src.header = HostFilledHeader(sizeof(src), s.library().version);
    src.entry_point = ref.entry_point.c_str();
    if (ref.jit_slot >= 0) {
      if (static_cast<size_t>(ref.jit_slot) >= jit_slots.size())
        return absl::FailedPreconditionError(absl::StrCat(
            "op id ", op.id, " needs JIT handle ", ref.jit_slot,
            ", which does not exist in this process: JIT results live only in the process that compiled them"));
      src.kind = TSR_EXECUTABLE_JIT_HANDLE;
      src.jit_handle = jit_slots[ref.jit_slot];
    } else {
      const BytecodeBlob& blob = graph_.bytecodes[ref.bytecode];
      src.kind = TSR_EXECUTABLE_BYTECODE;
      src.bytecode = blob.bytes.data();
      src.bytecode_size = blob.bytes.size();
      // One CRC per blob, not one per entry point: the host verifies each
      // blob once and tells the library (ENVELOPE_VERIFIED), but only when
      // a CRC really covered the blob: here (a blob compiled in memory), or
      // the loader's at VerifyLevel::kFull (the file's data CRC or the
      // envelope's). A blob loaded at kStructure had its layout checked,
      // not its bytes: the library keeps its own CRC.
      if (verified_blobs.insert(ref.bytecode).second) {
        char err[160];
        const uint32_t verify_flags = blob.crc == BlobCrc::kUnchecked ? 0 : TSR_BYTECODE_VERIFY_SKIP_CHECKSUM;
        const tsr_status v = tsr_bytecode_verify_ex(blob.bytes.data(), blob.bytes.size(), ref.vendor.c_str(),
                                                    verify_flags, nullptr, err, sizeof(err));
        if (v != TSR_OK)
          return absl::FailedPreconditionError(
              absl::StrCat("op id ", op.id, ": bytecode ", ref.bytecode, " of vendor '", ref.vendor, "': ", err));
        // The library's verdict, once per blob, before anything of it loads.
        const BuildStamp* stamp = graph_.build_stamp ? &*graph_.build_stamp : nullptr;
        ASSIGN_OR_RETURN(BlobCompatibility verdict, CheckBlobCompatibility(s, blob.bytes, stamp, options.soc.name));
        if (run_soc_sha256.empty() && !options.soc.description.empty() && stamp != nullptr &&
            !stamp->soc_description_sha256.empty())
          run_soc_sha256 = Sha256Hex(options.soc.description);  // once per load
        CheckStampedSocDescription(verdict, stamp, options.soc.name, run_soc_sha256);
        compatibility_.push_back(std::move(verdict));
      }
      if (blob.crc != BlobCrc::kDeferred) src.flags = TSR_SOURCE_FLAG_ENVELOPE_VERIFIED;
      // The constants the bytecode names: the mapped bytes themselves, no
      // copy and no digest (the footer's data CRC covers them at
      // --verify full). VerifyGraph checked each is a constant.
      if (!ref.constants.empty()) {
        if (tsr_version_compare(s.library().version, tsr_version{1, 4}) < 0)
          return absl::FailedPreconditionError(absl::StrCat(
              "op id ", op.id, ": its bytecode references ", ref.constants.size(), " external constants, but the '",
              ref.vendor, "' dispatch library negotiated ABI ", s.library().version.major, ".",
              s.library().version.minor, ", which cannot receive them (1.4 needed)"));
        for (const DispatchConstant& c : ref.constants) {
          // VerifyGraph checked a loaded model; a graph built in memory
          // reaches here unverified, and a bad index must not be read.
          if (c.tensor < 0 || static_cast<size_t>(c.tensor) >= graph_.tensors.size() ||
              !graph_.tensors[c.tensor].is_constant)
            return absl::InvalidArgumentError(absl::StrCat("op id ", op.id, ": external constant key ", c.key,
                                                           " names tensor ", c.tensor,
                                                           ", which is not a constant of this model"));
          const Tensor& t = graph_.tensors[c.tensor];
          // The ABI promises TSR_CONSTANT_ALIGNMENT: a loaded model's
          // constants have it (the writer places them 64-byte aligned); a
          // graph built in memory may not, and its constant is copied once.
          const uint8_t* data = t.data.data();
          if (reinterpret_cast<uintptr_t>(data) % TSR_CONSTANT_ALIGNMENT != 0) {
            std::vector<uint8_t>& copy = step->aligned_constants.emplace_back(t.data.size() + TSR_CONSTANT_ALIGNMENT);
            const uintptr_t at = reinterpret_cast<uintptr_t>(copy.data());
            uint8_t* aligned = copy.data() + (TSR_CONSTANT_ALIGNMENT - at % TSR_CONSTANT_ALIGNMENT) % TSR_CONSTANT_ALIGNMENT;
            std::memcpy(aligned, t.data.data(), t.data.size());
            data = aligned;
          }
          step->constant_bindings.push_back(tsr_constant_binding{
              .header = {sizeof(tsr_constant_binding), s.library().version.major, s.library().version.minor},
              .key = c.key,
              .flags = 0,
              .data = data,
              .size_bytes = t.data.size(),
              .file_offset = 0,
              .fd = -1,
              .reserved0 = 0});
        }
        src.constants = step->constant_bindings.data();
        src.constant_count = step->constant_bindings.size();
      }
    }
    RETURN_IF_ERROR(device_memory[step->session].AddExecutable(
        src.kind == TSR_EXECUTABLE_BYTECODE ? BytecodeEntryBytes(src.bytecode, src.bytecode_size, src.entry_point) : 0));
    RETURN_IF_ERROR(s.Check(s.api()->load_executable(s.context(), &src, &step->executable),
                            absl::StrCat("load_executable('", ref.entry_point, "') for op id ", op.id)));
    ASSIGN_OR_RETURN(step->numerics, QueryNumerics(s, step->executable));
    size_t ins = 0, outs = 0;
    RETURN_IF_ERROR(s.Check(s.api()->executable_io_count(step->executable, &ins, &outs), "executable_io_count"));
    if (ins != op.inputs.size() || outs != op.outputs.size())
      return absl::FailedPreconditionError(absl::StrCat("op id ", op.id, ": the executable has ", ins, " inputs and ", outs,
                                                        " outputs, the model says ", op.inputs.size(), " and ",
                                                        op.outputs.size()));
    for (int io = 0; io < 2; ++io) {
      const std::vector<int32_t>& tensors = io == 0 ? op.inputs : op.outputs;
      auto& alignments = io == 0 ? step->input_alignments : step->output_alignments;
      auto& layouts = io == 0 ? step->input_layouts : step->output_layouts;
      for (size_t i = 0; i < tensors.size(); ++i) {
        tsr_buffer_requirements req{};
        req.header = HostFilledHeader(sizeof(req), s.library().version);
        RETURN_IF_ERROR(s.Check(s.api()->buffer_requirements(step->executable, io == 0 ? TSR_IO_INPUT : TSR_IO_OUTPUT, i, &req),
                                "buffer_requirements"));
        const Tensor& t = graph_.tensors[tensors[i]];
        // A library may ask for more than the dense size (padding), never
        // for a different element type. Each refusal names what is wrong.
        const std::string what = absl::StrCat("op id ", op.id, ": ", s.library().vendor, " requirements for '", t.name, "'");
        if (req.dtype != t.dtype)
          return absl::FailedPreconditionError(absl::StrCat(what, " ask for ", DTypeName(req.dtype), ", the tensor is ",
                                                            DTypeName(t.dtype)));
        if (req.buffer_type_count == 0 || req.buffer_type_count > TSR_MAX_BUFFER_TYPES)
          return absl::FailedPreconditionError(absl::StrCat(what, " list ", req.buffer_type_count,
                                                            " buffer types (1..", TSR_MAX_BUFFER_TYPES, ")"));
        if ((req.alignment & (req.alignment - 1)) != 0)
          return absl::FailedPreconditionError(absl::StrCat(what, " ask for alignment ", req.alignment,
                                                            ", which is not a power of two (or 0)"));
        alignments.push_back(req.alignment);
        ASSIGN_OR_RETURN(std::vector<BufferLayout> alternatives,
                         QueryLayouts(s, step->executable, io == 0 ? TSR_IO_INPUT : TSR_IO_OUTPUT, i, req, t.shape,
                                      DTypeSize(t.dtype), what));
        layouts.push_back(std::move(alternatives));
      }
    }
  }
  for (size_t i = 0; i < sessions_.size(); ++i) session_locks_.push_back(std::make_unique<std::mutex>());
  for (size_t i = 0; i < steps_.size(); ++i) step_locks_.push_back(std::make_unique<std::mutex>());
  RETURN_IF_ERROR(PlanBuffers());
  for (const StorageSpec& spec : storages_)
    if (spec.allocating_session >= 0) RETURN_IF_ERROR(device_memory[spec.allocating_session].AddBuffer(spec.size));
  return absl::OkStatus();
}

// PlanBuffers, AddStorage and TypeName: buffer_plan.cc.

OutputTolerance LoadedModel::OutputToleranceFor(size_t index, double own_relative, double own_absolute) const {
  std::vector<DeclaredNumerics> per_op(graph_.ops.size());
  for (const LoadedStep& step : steps_) per_op[step.op] = step.numerics;
  const int32_t tensor = index < graph_.outputs.size() ? graph_.outputs[index] : -1;
  return ToleranceFor(graph_, per_op, tensor, own_relative, own_absolute);
}

LoadedModel::~LoadedModel() {
  for (const LoadedStep& step : steps_) sessions_[step.session]->api()->unload_executable(step.executable);
  steps_.clear();
  sessions_.clear();
}

}  // namespace tessera
