#include "loaded_model.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "base/status_macros.h"
#include "compile/sha256.h"
#include "device_memory_budget.h"
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
          step->constant_bindings.push_back({c.key, 0, t.data.data(), t.data.size()});
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
      auto& types = io == 0 ? step->input_types : step->output_types;
      auto& sizes = io == 0 ? step->input_sizes : step->output_sizes;
      auto& alignments = io == 0 ? step->input_alignments : step->output_alignments;
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
        types.emplace_back(req.buffer_types, req.buffer_types + req.buffer_type_count);
        sizes.push_back(std::max<uint64_t>(req.size_bytes, t.byte_size()));
        alignments.push_back(req.alignment);
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

// Vendor types are numbered per library (common.h's namespace rule), so
// only the library that allocates one can name it.
std::string LoadedModel::TypeName(int32_t type, int32_t session) const {
  if (type < TSR_BUFFER_TYPE_VENDOR_BASE || session < 0) return BufferTypeName(type);
  const DeviceSession& s = *sessions_[session];
  const tsr_dispatch_api* api = s.api();
  size_t count = 0;
  if (!TSR_ABI_HAS(api, tsr_dispatch_api, get_buffer_type_info) || api->buffer_type_count == nullptr ||
      api->buffer_type_count(s.context(), &count) != TSR_OK)
    return BufferTypeName(type);
  for (size_t i = 0; i < count; ++i) {
    tsr_buffer_type_info info{};
    info.header = HostFilledHeader(sizeof(info), s.library().version);
    if (api->get_buffer_type_info(s.context(), i, &info) == TSR_OK && info.type == type && info.name != nullptr)
      return info.name;
  }
  return BufferTypeName(type);
}

absl::StatusOr<int32_t> LoadedModel::AddStorage(int32_t tensor, int32_t type, int32_t allocating_session,
                                                uint64_t size, uint32_t alignment) {
  if (type != TSR_BUFFER_TYPE_HOST && allocating_session < 0)
    return absl::FailedPreconditionError(absl::StrCat("no library can allocate buffer type ", BufferTypeName(type)));
  storages_.push_back({tensor, type, type == TSR_BUFFER_TYPE_HOST ? -1 : allocating_session, size, alignment});
  return static_cast<int32_t>(storages_.size() - 1);
}

absl::Status LoadedModel::PlanBuffers() {
  const int32_t tensor_count = static_cast<int32_t>(graph_.tensors.size());
  primary_storage_.assign(tensor_count, -1);
  // Endpoints of every tensor: producer (step, index) or the app; consumers.
  struct Endpoint { int32_t step; size_t index; };  // step -1 = the app
  std::vector<std::optional<Endpoint>> producer(tensor_count);
  std::vector<std::vector<Endpoint>> consumers(tensor_count);
  for (int32_t t : graph_.inputs) producer[t] = Endpoint{-1, 0};
  for (size_t s = 0; s < steps_.size(); ++s) {
    const Op& op = graph_.ops[steps_[s].op];
    for (size_t i = 0; i < op.inputs.size(); ++i) consumers[op.inputs[i]].push_back({static_cast<int32_t>(s), i});
    for (size_t i = 0; i < op.outputs.size(); ++i) producer[op.outputs[i]] = Endpoint{static_cast<int32_t>(s), i};
  }
  for (int32_t t : graph_.outputs) consumers[t].push_back({-1, 0});
  const BufferTypeList app = {TSR_BUFFER_TYPE_HOST};
  // Every endpoint's minimum size and alignment apply to the tensor's
  // buffers (all its copies have the same dense contents).
  std::vector<uint64_t> size(tensor_count, 0);
  std::vector<uint32_t> alignment(tensor_count, 0);
  for (int32_t t = 0; t < tensor_count; ++t) size[t] = graph_.tensors[t].byte_size();
  for (size_t s = 0; s < steps_.size(); ++s) {
    const Op& op = graph_.ops[steps_[s].op];
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      size[op.inputs[i]] = std::max(size[op.inputs[i]], steps_[s].input_sizes[i]);
      alignment[op.inputs[i]] = std::max(alignment[op.inputs[i]], steps_[s].input_alignments[i]);
    }
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      size[op.outputs[i]] = std::max(size[op.outputs[i]], steps_[s].output_sizes[i]);
      alignment[op.outputs[i]] = std::max(alignment[op.outputs[i]], steps_[s].output_alignments[i]);
    }
  }
  for (size_t s = 0; s < steps_.size(); ++s) {
    steps_[s].input_storage.assign(graph_.ops[steps_[s].op].inputs.size(), -1);
    steps_[s].output_storage.assign(graph_.ops[steps_[s].op].outputs.size(), -1);
  }
  for (int32_t t = 0; t < tensor_count; ++t) {
    if (!producer[t] || graph_.tensors[t].is_constant) continue;
    const Endpoint p = *producer[t];
    // Library-scoped types (DEVICE_DRAM, vendor types) match only within
    // one device session.
    auto owner = [&](const Endpoint& e) { return e.step < 0 ? -1 : steps_[e.step].session; };
    const BufferEndpoint produced{p.step < 0 ? app : steps_[p.step].output_types[p.index], owner(p)};
    std::vector<BufferEndpoint> accepted;
    for (const Endpoint& c : consumers[t])
      accepted.push_back({c.step < 0 ? app : steps_[c.step].input_types[c.index], owner(c)});
    const BufferDecision d = NegotiateBufferTypes(produced, accepted);
    // Who allocates a non-host type: the producer, else a consumer that reads it.
    auto allocator_for = [&](int32_t type, const Endpoint& preferred) -> int32_t {
      if (preferred.step >= 0) return steps_[preferred.step].session;
      for (size_t i = 0; i < consumers[t].size(); ++i)
        if (!d.reads_primary[i] && d.consumer_types[i] == type && consumers[t][i].step >= 0)
          return steps_[consumers[t][i].step].session;
      return -1;
    };
    ASSIGN_OR_RETURN(int32_t primary,
                     AddStorage(t, d.primary_type, allocator_for(d.primary_type, p), size[t], alignment[t]));
    primary_storage_[t] = primary;
    if (p.step >= 0) steps_[p.step].output_storage[p.index] = primary;
    std::map<std::pair<int32_t, int32_t>, int32_t> converted;  // (type, owner or -1 if shared) -> storage
    for (size_t i = 0; i < consumers[t].size(); ++i) {
      const Endpoint& c = consumers[t][i];
      int32_t storage = primary;
      if (!d.reads_primary[i]) {
        const int32_t type = d.consumer_types[i];
        const std::pair<int32_t, int32_t> key{type, tsr_buffer_type_is_shared(type) ? -1 : owner(c)};
        auto it = converted.find(key);
        if (it == converted.end()) {
          ASSIGN_OR_RETURN(int32_t extra, AddStorage(t, type, allocator_for(type, c), size[t], alignment[t]));
          it = converted.emplace(key, extra).first;
        }
        storage = it->second;
        const Tensor& tensor = graph_.tensors[t];
        conversions_.push_back({t, tensor.name, d.primary_type, type, tensor.byte_size(),
                                c.step < 0 ? "app" : sessions_[steps_[c.step].session]->library().vendor, 0,
                                TypeName(d.primary_type, storages_[primary].allocating_session),
                                TypeName(type, storages_[storage].allocating_session)});
        if (c.step >= 0) steps_[c.step].conversions_before.push_back({primary, storage, conversions_.size() - 1});
      }
      if (c.step >= 0) steps_[c.step].input_storage[c.index] = storage;
    }
  }
  for (const LoadedStep& step : steps_)
    for (size_t i = 0; i < step.input_storage.size(); ++i)
      if (step.input_storage[i] < 0)
        return absl::FailedPreconditionError(absl::StrCat("op id ", graph_.ops[step.op].id, ": input ", i, " has no producer"));
  return absl::OkStatus();
}

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
