#include "dispatch/execution_context.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatch/elapsed_micros.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"

namespace tessera {
namespace {

constexpr uint32_t kHostAlignment = 64;
using Clock = std::chrono::steady_clock;

// A buffer description for `s`: no fd, alignment 0 = the library's default.
tsr_buffer_desc Describe(const DeviceSession& s, int32_t type, uint64_t size, uint32_t alignment, void* host_address) {
  tsr_buffer_desc desc{};
  desc.header = HostFilledHeader(sizeof(desc), s.library().version);
  desc.buffer_type = type;
  desc.size_bytes = size;
  desc.alignment = alignment;
  desc.host_address = host_address;
  desc.fd = -1;
  return desc;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ExecutionContext>> ExecutionContext::Create(std::shared_ptr<const LoadedModel> model) {
  if (model == nullptr) return absl::InvalidArgumentError("ExecutionContext of no model");
  std::unique_ptr<ExecutionContext> c(new ExecutionContext(std::move(model)));
  RETURN_IF_ERROR(c->Materialize());
  return c;
}

absl::Status ExecutionContext::Allocate(int32_t index) {
  const StorageSpec& spec = model_->storages()[index];
  Storage& storage = storages_[index];
  if (spec.allocating_session < 0) {
    const uint64_t align = std::max<uint64_t>(spec.alignment, kHostAlignment);
    const uint64_t rounded = std::max<uint64_t>((spec.size + align - 1) / align * align, align);
    storage.host = std::aligned_alloc(align, rounded);
    if (storage.host == nullptr) return absl::ResourceExhaustedError("out of host memory");
    std::memset(storage.host, 0, rounded);
    return absl::OkStatus();
  }
  const DeviceSession& s = Session(spec.allocating_session);
  const tsr_buffer_desc desc = Describe(s, spec.type, spec.size, spec.alignment, nullptr);
  std::lock_guard<std::mutex> lock(model_->SessionLock(spec.allocating_session));
  return s.Check(s.api()->allocate_buffer(s.context(), &desc, &storage.owner_buffer),
                 absl::StrCat("allocate_buffer(", BufferTypeName(spec.type), ")"));
}

absl::Status ExecutionContext::Materialize() {
  const std::vector<LoadedStep>& steps = model_->steps();
  storages_.resize(model_->storages().size());
  for (size_t i = 0; i < storages_.size(); ++i) RETURN_IF_ERROR(Allocate(static_cast<int32_t>(i)));
  conversions_ = model_->conversions();
  input_bindings_.resize(model_->graph().inputs.size());
  output_bindings_.resize(model_->graph().outputs.size());
  invocations_.assign(steps.size(), nullptr);
  cpu_contexts_.resize(steps.size());
  for (size_t k = 0; k < steps.size(); ++k) {
    const LoadedStep& step = steps[k];
    const DeviceSession& s = Session(step.session);
    // A lost device's steps run their cpu plans: nothing of them is made.
    if (s.lost()) continue;
    {
      std::lock_guard<std::mutex> lock(model_->StepLock(k));
      RETURN_IF_ERROR(s.Check(s.api()->create_invocation(step.executable, &invocations_[k]), "create_invocation"));
    }
    // Attach once; the buffers stay attached for every run of this context.
    for (size_t i = 0; i < step.input_storage.size(); ++i) {
      ASSIGN_OR_RETURN(tsr_buffer b, BufferIn(step.input_storage[i], step.session));
      RETURN_IF_ERROR(s.Check(s.api()->attach_input(invocations_[k], i, b), "attach_input"));
    }
    for (size_t i = 0; i < step.output_storage.size(); ++i) {
      ASSIGN_OR_RETURN(tsr_buffer b, BufferIn(step.output_storage[i], step.session));
      RETURN_IF_ERROR(s.Check(s.api()->attach_output(invocations_[k], i, b), "attach_output"));
    }
  }
  return MakeTimelines();
}

absl::StatusOr<tsr_buffer> ExecutionContext::BufferIn(int32_t index, int32_t session) {
  const StorageSpec& spec = model_->storages()[index];
  Storage& st = storages_[index];
  if (spec.allocating_session == session) return st.owner_buffer;
  auto key = std::make_pair(index, session);
  if (auto it = imported_.find(key); it != imported_.end()) return it->second;
  // The namespace rule: DEVICE_DRAM and vendor types are one library's own
  // memory and never cross to another (buffer negotiation plans a copy).
  if (!tsr_buffer_type_is_shared(spec.type))
    return absl::InternalError(
        absl::StrCat("buffer plan error: ", BufferTypeName(spec.type), " storage of one library handed to another"));
  // Import: the same memory, registered with another library of the same
  // buffer type (zero-copy between them). Bundled simulated devices keep
  // every buffer host-addressable, so import is by address; the storage
  // stays mapped while anyone holds that address.
  if (st.import_address == nullptr) {
    ASSIGN_OR_RETURN(uint8_t * mapped, Map(index));
    st.import_address = mapped;
    st.mapped_for_import = spec.allocating_session >= 0;
  }
  const DeviceSession& s = Session(session);
  const tsr_buffer_desc desc = Describe(s, spec.type, spec.size, 0, st.import_address);
  tsr_buffer buffer = nullptr;
  {
    std::lock_guard<std::mutex> lock(model_->SessionLock(session));
    RETURN_IF_ERROR(s.Check(s.api()->register_buffer(s.context(), &desc, &buffer),
                            absl::StrCat("register_buffer(", BufferTypeName(spec.type), ")")));
  }
  imported_[key] = buffer;
  return buffer;
}

absl::StatusOr<uint8_t*> ExecutionContext::Map(int32_t index) {
  const StorageSpec& spec = model_->storages()[index];
  Storage& st = storages_[index];
  if (st.bound_address != nullptr) return static_cast<uint8_t*>(st.bound_address);
  if (spec.allocating_session < 0) return static_cast<uint8_t*>(st.host);
  const DeviceSession& s = Session(spec.allocating_session);
  void* address = nullptr;
  RETURN_IF_ERROR(s.Check(s.api()->map_buffer(st.owner_buffer, &address), "map_buffer"));
  return static_cast<uint8_t*>(address);
}

absl::Status ExecutionContext::Unmap(int32_t index) {
  const StorageSpec& spec = model_->storages()[index];
  if (spec.allocating_session < 0 || storages_[index].bound_address != nullptr) return absl::OkStatus();
  const DeviceSession& s = Session(spec.allocating_session);
  return s.Check(s.api()->unmap_buffer(storages_[index].owner_buffer), "unmap_buffer");
}

absl::StatusOr<std::vector<HostTensor>> ExecutionContext::Run(const std::vector<HostTensor>& inputs,
                                                              ExecutionProfile* profile) {
  const Graph& graph = model_->graph();
  if (inputs.size() != graph.inputs.size())
    return absl::InvalidArgumentError(
        absl::StrCat("model takes ", graph.inputs.size(), " inputs, got ", inputs.size()));
  // RunInto sees bytes only: the dtype and shape are checked here. The
  // views live inline, so Run allocates only what it returns.
  absl::InlinedVector<std::span<const uint8_t>, 4> in;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = graph.tensors[graph.inputs[i]];
    if (inputs[i].dtype != t.dtype || inputs[i].shape != t.shape || inputs[i].data.size() != t.byte_size())
      return absl::InvalidArgumentError(
          absl::StrCat("input ", i, " ('", t.name, "') must be ", DTypeName(t.dtype), " of shape [",
                       absl::StrJoin(t.shape, ","), "] (", t.byte_size(), " bytes); got ", DTypeName(inputs[i].dtype),
                       " [", absl::StrJoin(inputs[i].shape, ","), "] (", inputs[i].data.size(), " bytes)"));
    in.push_back(inputs[i].data);
  }
  std::vector<HostTensor> outputs;
  absl::InlinedVector<std::span<uint8_t>, 4> out;
  outputs.reserve(graph.outputs.size());
  for (int32_t t : graph.outputs) {
    const Tensor& tensor = graph.tensors[t];
    outputs.push_back({tensor.name, tensor.dtype, tensor.shape, std::vector<uint8_t>(tensor.byte_size())});
    out.push_back(outputs.back().data);
  }
  RETURN_IF_ERROR(RunInto(in, out, profile));
  return outputs;
}

absl::Status ExecutionContext::CheckBuffers(std::span<const std::span<const uint8_t>> inputs,
                                            std::span<const std::span<uint8_t>> outputs) const {
  // The messages are built on failure only: a good call allocates nothing.
  const Graph& graph = model_->graph();
  if (inputs.size() != graph.inputs.size() || outputs.size() != graph.outputs.size())
    return absl::InvalidArgumentError(absl::StrCat("model takes ", graph.inputs.size(), " inputs and gives ",
                                                   graph.outputs.size(), " outputs; got buffers for ", inputs.size(),
                                                   " inputs and ", outputs.size(), " outputs"));
  auto check = [&](const char* kind, size_t i, int32_t tensor, size_t bytes, bool null) -> absl::Status {
    const Tensor& t = graph.tensors[tensor];
    if (bytes != t.byte_size())
      return absl::InvalidArgumentError(absl::StrCat(kind, " ", i, " ('", t.name, "') is ", t.byte_size(), " bytes (",
                                                     DTypeName(t.dtype), " [", absl::StrJoin(t.shape, ","),
                                                     "]); its buffer has ", bytes));
    if (null && bytes > 0)
      return absl::InvalidArgumentError(absl::StrCat(kind, " ", i, " ('", t.name, "'): NULL buffer"));
    return absl::OkStatus();
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    RETURN_IF_ERROR(check("input", i, graph.inputs[i], inputs[i].size(), inputs[i].data() == nullptr));
  for (size_t i = 0; i < outputs.size(); ++i)
    RETURN_IF_ERROR(check("output", i, graph.outputs[i], outputs[i].size(), outputs[i].data() == nullptr));
  return absl::OkStatus();
}

absl::Status ExecutionContext::RunInto(std::span<const std::span<const uint8_t>> inputs,
                                       std::span<const std::span<uint8_t>> outputs, ExecutionProfile* profile) {
  run_start_ = Clock::now();
  // A bound buffer is attached in place: copying the call's bytes into it
  // would overwrite the app's memory behind its back.
  if (bound_count_ > 0)
    return absl::FailedPreconditionError(
        "RunInto: app buffers are bound to this context; run with RunBound, or unbind them");
  RETURN_IF_ERROR(CheckBuffers(inputs, outputs));
  const Graph& graph = model_->graph();
  for (size_t i = 0; i < inputs.size(); ++i) {
    RETURN_IF_ERROR(WriteDense(model_->primary_storage(graph.inputs[i]), inputs[i]));
  }
  RETURN_IF_ERROR(RunSteps(profile));
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!outputs[i].empty()) RETURN_IF_ERROR(ReadOutput(i, outputs[i]));
  if (profile != nullptr) {
    profile->total_us = MicrosSince(run_start_);
    profile->conversions = conversions_;  // with the outputs' own, timed just now
    for (std::span<const uint8_t> in : inputs) profile->io_copy_bytes += in.size();
    for (std::span<uint8_t> out : outputs) profile->io_copy_bytes += out.size();
  }
  return absl::OkStatus();
}

absl::Status ExecutionContext::ReadOutput(size_t i, std::span<uint8_t> bytes) {
  const Graph& graph = model_->graph();
  const Tensor& tensor = graph.tensors[graph.outputs[i]];
  if (tensor.is_constant) {
    std::memcpy(bytes.data(), tensor.data.data(), bytes.size());
    return absl::OkStatus();
  }
  // The app's conversion (another layout or memory) runs here.
  const Clock::time_point start = Clock::now();
  RETURN_IF_ERROR(ReadDense(model_->primary_storage(graph.outputs[i]), bytes));
  if (const int32_t r = model_->output_conversion(i); r >= 0) {
    conversions_[r].host_time_us = MicrosSince(start);
    conversions_[r].start_us = std::chrono::duration<double, std::micro>(start - run_start_).count();
  }
  return absl::OkStatus();
}

absl::Status ExecutionContext::RunSteps(ExecutionProfile* profile) {
  if (profile != nullptr) *profile = ExecutionProfile{};
  fallbacks_.clear();
  // Whatever way the run ends, nothing queued outlives it (a no-op when
  // every step finished, and on a run without async steps).
  struct DrainOnExit {
    ExecutionContext* c;
    ~DrainOnExit() { c->DrainAsync(); }
  } drain{this};
  const std::vector<LoadedStep>& steps = model_->steps();
  for (size_t k = 0; k < steps.size(); ++k) {
    const LoadedStep& step = steps[k];
    RETURN_IF_ERROR(CheckRunLimits(k));
    RETURN_IF_ERROR(BeforeStep(k, profile));
    for (const LoadedStep::Conversion& c : step.conversions_before) {
      const Clock::time_point start = Clock::now();
      RETURN_IF_ERROR(Convert(c));
      conversions_[c.record].host_time_us = MicrosSince(start);
      conversions_[c.record].start_us = std::chrono::duration<double, std::micro>(start - run_start_).count();
    }
    RETURN_IF_ERROR(IssueStep(k, profile));
  }
  RETURN_IF_ERROR(SettleAll(profile));
  // A deadline passed during the last step still fails the run.
  if (limits_.deadline != std::chrono::steady_clock::time_point::max()) RETURN_IF_ERROR(CheckRunLimits(steps.size()));
  if (profile != nullptr) {
    profile->conversions = conversions_;
    profile->fallbacks = fallbacks_;
  }
  return absl::OkStatus();
}

absl::Status ExecutionContext::CheckRunLimits(size_t step) const {
  if (limits_.cancel != nullptr && limits_.cancel->load(std::memory_order_acquire))
    return absl::CancelledError(
        absl::StrCat("the run was cancelled after ", step, " of ", model_->steps().size(), " steps"));
  if (limits_.deadline != std::chrono::steady_clock::time_point::max() && Clock::now() > limits_.deadline)
    return absl::DeadlineExceededError(absl::StrCat("the run passed its ", limits_.deadline_ms, " ms deadline after ",
                                                    step, " of ", model_->steps().size(), " steps"));
  return absl::OkStatus();
}

ExecutionContext::~ExecutionContext() {
  const std::vector<LoadedStep>& steps = model_->steps();
  DestroyTimelines();     // waits for anything still queued on them
  cpu_contexts_.clear();  // their own buffers and invocations, in their own libraries
  ReleaseBindings();      // the app's buffers, before the invocations that hold them
  for (size_t k = 0; k < invocations_.size(); ++k)
    if (invocations_[k] != nullptr) Session(steps[k].session).api()->destroy_invocation(invocations_[k]);
  for (auto& [key, buffer] : imported_) {
    std::lock_guard<std::mutex> lock(model_->SessionLock(key.second));
    Session(key.second).api()->release_buffer(buffer);
  }
  for (size_t i = 0; i < storages_.size(); ++i) {
    const StorageSpec& spec = model_->storages()[i];
    Storage& st = storages_[i];
    if (spec.allocating_session >= 0 && st.owner_buffer != nullptr) {
      const DeviceSession& s = Session(spec.allocating_session);
      // Teardown cannot report failures; the buffer is released next anyway.
      if (st.mapped_for_import && s.api()->unmap_buffer(st.owner_buffer) != TSR_OK) {
      }
      std::lock_guard<std::mutex> lock(model_->SessionLock(spec.allocating_session));
      s.api()->release_buffer(st.owner_buffer);
    }
    std::free(st.host);
  }
}

}  // namespace tessera
