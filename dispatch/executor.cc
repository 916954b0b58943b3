#include "executor.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <set>

#include "tessera/bytecode.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/dtype.h"
#include "base/status_macros.h"
#include "tessera/ops.h"

namespace tessera {

struct Executor::Storage {
  int32_t tensor = -1;
  int32_t type = TSR_BUFFER_TYPE_HOST;
  uint64_t size = 0;
  int32_t owner_session = -1;        // -1: runtime-owned host memory
  tsr_buffer owner_buffer = nullptr;
  void* host = nullptr;              // runtime-owned memory (free()d)
  // Imported into other libraries by address: stays mapped until the
  // executor is destroyed, so the address they hold stays valid.
  bool mapped_for_import = false;
  void* import_address = nullptr;
};

struct Executor::Step {
  int32_t op = -1;
  int32_t session = -1;
  tsr_executable executable = nullptr;
  tsr_invocation invocation = nullptr;
  DeclaredNumerics numerics;
  std::vector<std::vector<int32_t>> input_types, output_types;
  std::vector<uint64_t> input_sizes, output_sizes;       // minimum bytes
  std::vector<uint32_t> input_alignments, output_alignments;
  std::vector<int32_t> input_storage, output_storage;
  struct Conversion {
    int32_t from = -1, to = -1;
    size_t record = 0;
  };
  std::vector<Conversion> conversions_before;
};

namespace {

constexpr uint32_t kHostAlignment = 64;
using Clock = std::chrono::steady_clock;

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(const Graph& graph, std::span<const tsr_jit_handle> jit_slots,
                                                           const PluginRegistry& registry, const RuntimeOptions& options) {
  std::unique_ptr<Executor> e(new Executor());
  e->graph_ = graph;
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
  RETURN_IF_ERROR(e->Prepare(libraries, jit_slots, options));
  return e;
}

absl::Status Executor::Prepare(const std::vector<const DispatchLibrary*>& libraries,
                               std::span<const tsr_jit_handle> jit_slots, const RuntimeOptions& options) {
  std::map<std::string, int32_t> session_of;
  std::set<int32_t> verified_blobs;  // indices into graph_.bytecodes
  for (size_t o = 0; o < graph_.ops.size(); ++o) {
    const Op& op = graph_.ops[o];
    const DispatchRef& ref = *op.dispatch;
    auto [it, fresh] = session_of.emplace(ref.vendor, static_cast<int32_t>(sessions_.size()));
    if (fresh) {
      ASSIGN_OR_RETURN(std::unique_ptr<DeviceSession> session,
                       DeviceSession::Create(*libraries[o], options.soc, options.plugin_options));
      sessions_.push_back(std::move(session));
    }
    auto step = std::make_unique<Step>();
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
      // blob once and tells the library (ENVELOPE_VERIFIED).
      if (verified_blobs.insert(ref.bytecode).second) {
        char err[160];
        const tsr_status v = tsr_bytecode_verify(blob.bytes.data(), blob.bytes.size(), ref.vendor.c_str(), nullptr, err,
                                                 sizeof(err));
        if (v != TSR_OK)
          return absl::FailedPreconditionError(
              absl::StrCat("op id ", op.id, ": bytecode ", ref.bytecode, " of vendor '", ref.vendor, "': ", err));
      }
      src.flags = TSR_SOURCE_FLAG_ENVELOPE_VERIFIED;
    }
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
    RETURN_IF_ERROR(s.Check(s.api()->create_invocation(step->executable, &step->invocation), "create_invocation"));
    steps_.push_back(std::move(step));
  }
  return PlanBuffers();
}

absl::StatusOr<int32_t> Executor::StorageFor(int32_t tensor, int32_t type, int32_t session, uint64_t size,
                                             uint32_t alignment) {
  auto storage = std::make_unique<Storage>();
  storage->tensor = tensor;
  storage->type = type;
  storage->size = size;
  if (type == TSR_BUFFER_TYPE_HOST) {
    const uint64_t align = std::max<uint64_t>(alignment, kHostAlignment);
    const uint64_t rounded = std::max<uint64_t>((size + align - 1) / align * align, align);
    storage->host = std::aligned_alloc(align, rounded);
    if (storage->host == nullptr) return absl::ResourceExhaustedError("out of host memory");
    std::memset(storage->host, 0, rounded);
  } else {
    if (session < 0)
      return absl::FailedPreconditionError(absl::StrCat("no library can allocate buffer type ", BufferTypeName(type)));
    const DeviceSession& s = *sessions_[session];
    tsr_buffer_desc desc{};
    desc.header = HostFilledHeader(sizeof(desc), s.library().version);
    desc.buffer_type = type;
    desc.size_bytes = storage->size;
    desc.alignment = alignment;
    desc.fd = -1;
    RETURN_IF_ERROR(s.Check(s.api()->allocate_buffer(s.context(), &desc, &storage->owner_buffer),
                            absl::StrCat("allocate_buffer(", BufferTypeName(type), ")")));
    storage->owner_session = session;
  }
  storages_.push_back(std::move(storage));
  return static_cast<int32_t>(storages_.size() - 1);
}

absl::StatusOr<tsr_buffer> Executor::BufferIn(int32_t storage_index, int32_t session) {
  Storage& st = *storages_[storage_index];
  if (st.owner_session == session) return st.owner_buffer;
  auto key = std::make_pair(storage_index, session);
  if (auto it = imported_.find(key); it != imported_.end()) return it->second;
  // The namespace rule: DEVICE_DRAM and vendor types are one library's own
  // memory and never cross to another (buffer negotiation plans a copy).
  if (!tsr_buffer_type_is_shared(st.type))
    return absl::InternalError(absl::StrCat("buffer plan error: ", BufferTypeName(st.type),
                                            " storage of one library handed to another"));
  // Import: the same memory, registered with another library of the same
  // buffer type (zero-copy between them). Bundled simulated devices keep
  // every buffer host-addressable, so import is by address; the storage
  // stays mapped while anyone holds that address.
  if (!st.mapped_for_import) {
    ASSIGN_OR_RETURN(uint8_t* mapped, Map(storage_index));
    st.import_address = mapped;
    st.mapped_for_import = st.owner_session >= 0;
  }
  uint8_t* address = static_cast<uint8_t*>(st.import_address);
  const DeviceSession& s = *sessions_[session];
  tsr_buffer_desc desc{};
  desc.header = HostFilledHeader(sizeof(desc), s.library().version);
  desc.buffer_type = st.type;
  desc.size_bytes = st.size;
  desc.host_address = address;
  desc.fd = -1;
  tsr_buffer buffer = nullptr;
  RETURN_IF_ERROR(s.Check(s.api()->register_buffer(s.context(), &desc, &buffer),
                          absl::StrCat("register_buffer(", BufferTypeName(st.type), ")")));
  imported_[key] = buffer;
  return buffer;
}

absl::StatusOr<uint8_t*> Executor::Map(int32_t storage_index) {
  Storage& st = *storages_[storage_index];
  if (st.owner_session < 0) return static_cast<uint8_t*>(st.host);
  const DeviceSession& s = *sessions_[st.owner_session];
  void* address = nullptr;
  RETURN_IF_ERROR(s.Check(s.api()->map_buffer(st.owner_buffer, &address), "map_buffer"));
  return static_cast<uint8_t*>(address);
}

absl::Status Executor::Unmap(int32_t storage_index) {
  Storage& st = *storages_[storage_index];
  if (st.owner_session < 0) return absl::OkStatus();
  const DeviceSession& s = *sessions_[st.owner_session];
  return s.Check(s.api()->unmap_buffer(st.owner_buffer), "unmap_buffer");
}

absl::Status Executor::Copy(int32_t from, int32_t to, uint64_t bytes) {
  ASSIGN_OR_RETURN(uint8_t* src, Map(from));
  absl::StatusOr<uint8_t*> dst = Map(to);
  if (dst.ok() && bytes > 0) std::memcpy(*dst, src, bytes);
  absl::Status a = Unmap(from);
  if (!dst.ok()) return dst.status();
  RETURN_IF_ERROR(Unmap(to));
  return a;
}

absl::Status Executor::PlanBuffers() {
  const int32_t tensor_count = static_cast<int32_t>(graph_.tensors.size());
  primary_storage_.assign(tensor_count, -1);
  // Endpoints of every tensor: producer (step, index) or the app; consumers.
  struct Endpoint { int32_t step; size_t index; };  // step -1 = the app
  std::vector<std::optional<Endpoint>> producer(tensor_count);
  std::vector<std::vector<Endpoint>> consumers(tensor_count);
  for (int32_t t : graph_.inputs) producer[t] = Endpoint{-1, 0};
  for (size_t s = 0; s < steps_.size(); ++s) {
    const Op& op = graph_.ops[steps_[s]->op];
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
    const Op& op = graph_.ops[steps_[s]->op];
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      size[op.inputs[i]] = std::max(size[op.inputs[i]], steps_[s]->input_sizes[i]);
      alignment[op.inputs[i]] = std::max(alignment[op.inputs[i]], steps_[s]->input_alignments[i]);
    }
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      size[op.outputs[i]] = std::max(size[op.outputs[i]], steps_[s]->output_sizes[i]);
      alignment[op.outputs[i]] = std::max(alignment[op.outputs[i]], steps_[s]->output_alignments[i]);
    }
  }
  for (size_t s = 0; s < steps_.size(); ++s) {
    steps_[s]->input_storage.assign(graph_.ops[steps_[s]->op].inputs.size(), -1);
    steps_[s]->output_storage.assign(graph_.ops[steps_[s]->op].outputs.size(), -1);
  }
  for (int32_t t = 0; t < tensor_count; ++t) {
    if (!producer[t] || graph_.tensors[t].is_constant) continue;
    const Endpoint p = *producer[t];
    // Library-scoped types (DEVICE_DRAM, vendor types) match only within
    // one device session.
    auto owner = [&](const Endpoint& e) { return e.step < 0 ? -1 : steps_[e.step]->session; };
    const BufferEndpoint produced{p.step < 0 ? app : steps_[p.step]->output_types[p.index], owner(p)};
    std::vector<BufferEndpoint> accepted;
    for (const Endpoint& c : consumers[t])
      accepted.push_back({c.step < 0 ? app : steps_[c.step]->input_types[c.index], owner(c)});
    const BufferDecision d = NegotiateBufferTypes(produced, accepted);
    // Who allocates a non-host type: the producer, else a consumer that reads it.
    auto allocator_for = [&](int32_t type, const Endpoint& preferred) -> int32_t {
      if (preferred.step >= 0) return steps_[preferred.step]->session;
      for (size_t i = 0; i < consumers[t].size(); ++i)
        if (!d.reads_primary[i] && d.consumer_types[i] == type && consumers[t][i].step >= 0)
          return steps_[consumers[t][i].step]->session;
      return -1;
    };
    ASSIGN_OR_RETURN(int32_t primary,
                     StorageFor(t, d.primary_type, allocator_for(d.primary_type, p), size[t], alignment[t]));
    primary_storage_[t] = primary;
    if (p.step >= 0) steps_[p.step]->output_storage[p.index] = primary;
    std::map<std::pair<int32_t, int32_t>, int32_t> converted;  // (type, owner or -1 if shared) -> storage
    for (size_t i = 0; i < consumers[t].size(); ++i) {
      const Endpoint& c = consumers[t][i];
      int32_t storage = primary;
      if (!d.reads_primary[i]) {
        const int32_t type = d.consumer_types[i];
        const std::pair<int32_t, int32_t> key{type, tsr_buffer_type_is_shared(type) ? -1 : owner(c)};
        auto it = converted.find(key);
        if (it == converted.end()) {
          ASSIGN_OR_RETURN(int32_t extra, StorageFor(t, type, allocator_for(type, c), size[t], alignment[t]));
          it = converted.emplace(key, extra).first;
        }
        storage = it->second;
        const Tensor& tensor = graph_.tensors[t];
        conversions_.push_back({t, tensor.name, d.primary_type, type, tensor.byte_size(),
                                c.step < 0 ? "app" : sessions_[steps_[c.step]->session]->library().vendor, 0});
        if (c.step >= 0) steps_[c.step]->conversions_before.push_back({primary, storage, conversions_.size() - 1});
      }
      if (c.step >= 0) steps_[c.step]->input_storage[c.index] = storage;
    }
  }
  // Attach everything once; buffers persist across runs.
  for (auto& step : steps_) {
    const DeviceSession& s = *sessions_[step->session];
    for (size_t i = 0; i < step->input_storage.size(); ++i) {
      if (step->input_storage[i] < 0)
        return absl::FailedPreconditionError(absl::StrCat("op id ", graph_.ops[step->op].id, ": input ", i, " has no producer"));
      ASSIGN_OR_RETURN(tsr_buffer b, BufferIn(step->input_storage[i], step->session));
      RETURN_IF_ERROR(s.Check(s.api()->attach_input(step->invocation, i, b), "attach_input"));
    }
    for (size_t i = 0; i < step->output_storage.size(); ++i) {
      ASSIGN_OR_RETURN(tsr_buffer b, BufferIn(step->output_storage[i], step->session));
      RETURN_IF_ERROR(s.Check(s.api()->attach_output(step->invocation, i, b), "attach_output"));
    }
  }
  return absl::OkStatus();
}

OutputTolerance Executor::OutputToleranceFor(size_t index, double own_relative, double own_absolute) const {
  std::vector<DeclaredNumerics> per_op(graph_.ops.size());
  for (const auto& step : steps_) per_op[step->op] = step->numerics;
  const int32_t tensor = index < graph_.outputs.size() ? graph_.outputs[index] : -1;
  return ToleranceFor(graph_, per_op, tensor, own_relative, own_absolute);
}

absl::StatusOr<std::vector<HostTensor>> Executor::Run(const std::vector<HostTensor>& inputs, RunProfile* profile) {
  const Clock::time_point run_start = Clock::now();
  if (inputs.size() != graph_.inputs.size())
    return absl::InvalidArgumentError(absl::StrCat("model takes ", graph_.inputs.size(), " inputs, got ", inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = graph_.tensors[graph_.inputs[i]];
    if (inputs[i].dtype != t.dtype || inputs[i].shape != t.shape || inputs[i].data.size() != t.byte_size())
      return absl::InvalidArgumentError(absl::StrCat("input ", i, " ('", t.name, "') must be ", DTypeName(t.dtype), " of shape [",
                                                     absl::StrJoin(t.shape, ","), "] (", t.byte_size(), " bytes); got ",
                                                     DTypeName(inputs[i].dtype), " [", absl::StrJoin(inputs[i].shape, ","),
                                                     "] (", inputs[i].data.size(), " bytes)"));
    const int32_t storage = primary_storage_[graph_.inputs[i]];
    ASSIGN_OR_RETURN(uint8_t* dst, Map(storage));
    if (!inputs[i].data.empty()) std::memcpy(dst, inputs[i].data.data(), inputs[i].data.size());
    RETURN_IF_ERROR(Unmap(storage));
  }
  if (profile != nullptr) *profile = RunProfile{};
  for (auto& step : steps_) {
    const Op& op = graph_.ops[step->op];
    for (const Step::Conversion& c : step->conversions_before) {
      const Clock::time_point start = Clock::now();
      RETURN_IF_ERROR(Copy(c.from, c.to, conversions_[c.record].bytes));
      conversions_[c.record].host_time_us = MicrosSince(start);
    }
    const DeviceSession& s = *sessions_[step->session];
    const Clock::time_point start = Clock::now();
    RETURN_IF_ERROR(s.Check(s.api()->invoke(step->invocation), absl::StrCat("invoke (op id ", op.id, ", entry '",
                                                                              op.dispatch->entry_point, "')")));
    const double elapsed = MicrosSince(start);
    if (profile != nullptr) {
      StepProfile sp{op.id, op.dispatch->vendor, op.dispatch->entry_point, op.dispatch->source_op_ids, elapsed, {},
                     step->numerics};
      size_t count = 0;
      if (s.api()->metric_count(step->invocation, &count) == TSR_OK) {
        for (size_t m = 0; m < count; ++m) {
          tsr_metric metric{};
          metric.header = HostFilledHeader(sizeof(metric), s.library().version);
          if (s.api()->get_metric(step->invocation, m, &metric) == TSR_OK && metric.name != nullptr)
            sp.metrics.push_back({metric.name, metric.value, metric.unit != nullptr ? metric.unit : ""});
        }
      }
      profile->steps.push_back(std::move(sp));
    }
  }
  std::vector<HostTensor> outputs;
  for (int32_t t : graph_.outputs) {
    const Tensor& tensor = graph_.tensors[t];
    HostTensor out{tensor.name, tensor.dtype, tensor.shape, std::vector<uint8_t>(tensor.byte_size())};
    if (tensor.is_constant) {
      std::memcpy(out.data.data(), tensor.data.data(), out.data.size());
    } else {
      const int32_t storage = primary_storage_[t];
      ASSIGN_OR_RETURN(uint8_t* src, Map(storage));
      if (!out.data.empty()) std::memcpy(out.data.data(), src, out.data.size());
      RETURN_IF_ERROR(Unmap(storage));
    }
    outputs.push_back(std::move(out));
  }
  if (profile != nullptr) {
    profile->conversions = conversions_;
    profile->total_us = MicrosSince(run_start);
  }
  return outputs;
}

Executor::~Executor() {
  for (auto& step : steps_) {
    const tsr_dispatch_api* api = sessions_[step->session]->api();
    api->destroy_invocation(step->invocation);
  }
  for (auto& [key, buffer] : imported_) sessions_[key.second]->api()->release_buffer(buffer);
  for (auto& st : storages_) {
    // Teardown cannot report failures; the buffer is released next anyway.
    if (st->mapped_for_import && sessions_[st->owner_session]->api()->unmap_buffer(st->owner_buffer) != TSR_OK) {
    }
    if (st->owner_session >= 0) sessions_[st->owner_session]->api()->release_buffer(st->owner_buffer);
    std::free(st->host);
  }
  for (auto& step : steps_) sessions_[step->session]->api()->unload_executable(step->executable);
  steps_.clear();
  sessions_.clear();
}

}  // namespace tessera
