// App buffers by type: a graph input or output bound to the app's own
// memory (ExecutionContext::BindInput/BindOutput, RunBound).
//
// Why in place: a camera pipeline hands the same few frame buffers round
// and round. Registering each with the libraries once and attaching it per
// frame is what makes the path zero-copy; copying a frame in per run is
// what it replaces. Where a step cannot take the app's memory (a type it
// does not list, an alignment it does not meet, a layout other than dense)
// the binding still works, as a copy, and says so.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "dispatch/execution_context.h"
#include "framework/core/base/status_macros.h"
#include "support/math/checked_math.h"

namespace tessera {

const char* BindingModeName(BindingMode mode) { return mode == BindingMode::kZeroCopy ? "zero_copy" : "copied"; }

namespace {

const char* IoName(bool output) { return output ? "output" : "input"; }

}  // namespace

std::vector<ExecutionContext::Attachment> ExecutionContext::AttachmentsOf(int32_t storage) const {
  std::vector<Attachment> found;
  const std::vector<LoadedStep>& steps = model_->steps();
  for (size_t k = 0; k < steps.size(); ++k) {
    for (size_t i = 0; i < steps[k].input_storage.size(); ++i)
      if (steps[k].input_storage[i] == storage) found.push_back({k, false, i});
    for (size_t i = 0; i < steps[k].output_storage.size(); ++i)
      if (steps[k].output_storage[i] == storage) found.push_back({k, true, i});
  }
  return found;
}

absl::Status ExecutionContext::Attach(const Attachment& a, tsr_buffer buffer) {
  const LoadedStep& step = model_->steps()[a.step];
  const DeviceSession& s = Session(step.session);
  if (invocations_[a.step] == nullptr) return absl::OkStatus();  // a lost device's step: its cpu plan maps the storage
  const tsr_status code = a.output ? s.api()->attach_output(invocations_[a.step], a.index, buffer)
                                   : s.api()->attach_input(invocations_[a.step], a.index, buffer);
  return s.Check(code, a.output ? "attach_output" : "attach_input");
}

absl::StatusOr<BindingMode> ExecutionContext::BindInput(size_t index, const AppBuffer& buffer) {
  return Bind(false, index, buffer);
}
absl::StatusOr<BindingMode> ExecutionContext::BindOutput(size_t index, const AppBuffer& buffer) {
  return Bind(true, index, buffer);
}

namespace {
// The size of the file behind a dma-buf fd: fstat for a regular file (a
// memfd), else lseek(SEEK_END), which is how a dma-buf reports its size
// (its fstat size is not reliable across kernels). The file offset is put
// back: the app may share it.
absl::StatusOr<uint64_t> FdSize(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return absl::InvalidArgumentError(std::strerror(errno));
  if (S_ISREG(st.st_mode)) return static_cast<uint64_t>(st.st_size);
  const off_t here = ::lseek(fd, 0, SEEK_CUR);
  const off_t end = ::lseek(fd, 0, SEEK_END);
  if (end < 0) return absl::InvalidArgumentError(std::strerror(errno));
  if (here >= 0) ::lseek(fd, here, SEEK_SET);
  return static_cast<uint64_t>(end);
}

absl::Status CheckDmabufCovers(const AppBuffer& buffer, uint64_t tensor_bytes, const std::string& what) {
  // Mapping past the end of a file succeeds; touching those pages raises
  // SIGBUS in whichever step first reads or writes the tensor, a signal no
  // error path can catch. So the fd must hold offset + size bytes now.
  absl::StatusOr<uint64_t> have = FdSize(buffer.fd);
  if (!have.ok())
    return absl::InvalidArgumentError(
        absl::StrCat("bind ", what, ": cannot tell the size of dmabuf fd ", buffer.fd, ": ", have.status().message()));
  const std::optional<uint64_t> need = checked::Add(buffer.offset, buffer.size);
  if (!need.has_value() || *need > *have)
    return absl::InvalidArgumentError(absl::StrCat(
        "bind ", what, ": dmabuf fd ", buffer.fd, " is ", *have, " bytes, shorter than the binding needs (offset ",
        buffer.offset, " + ", buffer.size, " bytes; the tensor is ", tensor_bytes, " bytes)"));
  return absl::OkStatus();
}
}  // namespace

absl::StatusOr<BindingMode> ExecutionContext::Bind(bool output, size_t index, const AppBuffer& buffer) {
  const Graph& graph = model_->graph();
  const std::vector<int32_t>& ios = output ? graph.outputs : graph.inputs;
  if (index >= ios.size())
    return absl::InvalidArgumentError(
        absl::StrCat("bind ", IoName(output), " ", index, ": the model has ", ios.size(), " ", IoName(output), "s"));
  const Tensor& tensor = graph.tensors[ios[index]];
  const std::string what = absl::StrCat(IoName(output), " ", index, " ('", tensor.name, "')");
  if (buffer.type != TSR_BUFFER_TYPE_HOST && buffer.type != TSR_BUFFER_TYPE_DMABUF)
    return absl::InvalidArgumentError(
        absl::StrCat("bind ", what, ": an app buffer is host or dmabuf, not ", BufferTypeName(buffer.type)));
  if (buffer.size < tensor.byte_size())
    return absl::InvalidArgumentError(
        absl::StrCat("bind ", what, ": the tensor is ", tensor.byte_size(), " bytes; the buffer has ", buffer.size));
  if (buffer.type == TSR_BUFFER_TYPE_HOST && buffer.host_address == nullptr && buffer.size > 0)
    return absl::InvalidArgumentError(absl::StrCat("bind ", what, ": host buffer at NULL"));
  if (buffer.type == TSR_BUFFER_TYPE_DMABUF && buffer.fd < 0)
    return absl::InvalidArgumentError(absl::StrCat("bind ", what, ": dmabuf without an fd"));
  if (buffer.type == TSR_BUFFER_TYPE_DMABUF) RETURN_IF_ERROR(CheckDmabufCovers(buffer, tensor.byte_size(), what));

  // Whatever was bound here goes first: its buffers are detached (the
  // context's own attached back) before the new ones are made.
  std::vector<Binding>& bindings = output ? output_bindings_ : input_bindings_;
  const int32_t storage = tensor.is_constant ? -1 : model_->primary_storage(ios[index]);
  RETURN_IF_ERROR(Release(bindings[index], storage));

  Binding b;
  b.bound = true;
  b.buffer = buffer;
  if (buffer.type == TSR_BUFFER_TYPE_DMABUF) {
    // The runtime's own view of the bytes, for copies and for libraries
    // that import by address. Mapped from the page holding `offset`.
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    const uint64_t start = buffer.offset / page * page;
    b.mapping_size = static_cast<size_t>(buffer.offset - start + buffer.size);
    void* m = mmap(nullptr, b.mapping_size, PROT_READ | PROT_WRITE, MAP_SHARED, buffer.fd, static_cast<off_t>(start));
    if (m == MAP_FAILED)
      return absl::InvalidArgumentError(absl::StrCat("bind ", what, ": cannot map dmabuf fd ", buffer.fd, " at offset ",
                                                     buffer.offset, ": ", std::strerror(errno)));
    b.mapping = m;
    b.address = static_cast<uint8_t*>(m) + (buffer.offset - start);
  } else {
    b.address = static_cast<uint8_t*>(buffer.host_address);
  }

  // In place only when every step that uses the storage takes this memory:
  // the buffer type among those it lists, its alignment met. The storage
  // must also be this tensor's alone (an input that is also an output is
  // bound once in place).
  std::vector<Attachment> uses = storage >= 0 ? AttachmentsOf(storage) : std::vector<Attachment>{};
  bool in_place = storage >= 0 && storages_[storage].bound_address == nullptr;
  // The app's memory is dense, so the storage must be too, and each step
  // must list (this type, dense) among its layouts.
  if (in_place && storages_[storage].bound_address == nullptr &&
      model_->storages()[storage].layout.layout != TSR_LAYOUT_DENSE)
    in_place = false;
  for (const Attachment& a : uses) {
    const LoadedStep& step = model_->steps()[a.step];
    const std::vector<BufferLayout>& layouts = a.output ? step.output_layouts[a.index] : step.input_layouts[a.index];
    bool accepts = false;
    for (const BufferLayout& l : layouts)
      accepts = accepts || (l.type == buffer.type && l.layout == TSR_LAYOUT_DENSE && buffer.size >= l.size_bytes &&
                            (l.alignment <= 1 || reinterpret_cast<uintptr_t>(b.address) % l.alignment == 0));
    if (!accepts) in_place = false;
  }
  if (in_place) {
    for (const Attachment& a : uses) {
      const int32_t session = model_->steps()[a.step].session;
      tsr_buffer registered = nullptr;
      for (const auto& [s, r] : b.registered)
        if (s == session) registered = r;
      if (registered == nullptr) {
        const DeviceSession& s = Session(session);
        tsr_buffer_desc desc{};
        desc.header = HostFilledHeader(sizeof(desc), s.library().version);
        desc.buffer_type = buffer.type;
        desc.size_bytes = buffer.size;
        desc.host_address = b.address;
        desc.fd = buffer.type == TSR_BUFFER_TYPE_DMABUF ? buffer.fd : -1;
        desc.offset = buffer.type == TSR_BUFFER_TYPE_DMABUF ? buffer.offset : 0;
        absl::Status st;
        {
          std::lock_guard<std::mutex> lock(model_->SessionLock(session));
          st = s.Check(s.api()->register_buffer(s.context(), &desc, &registered),
                       absl::StrCat("register_buffer(", BufferTypeName(buffer.type), ") for ", what));
        }
        if (!st.ok()) {
          in_place = false;  // a copy instead; what was registered goes below
          break;
        }
        b.registered.push_back({session, registered});
      }
    }
  }
  if (in_place) {
    for (const Attachment& a : uses) {
      tsr_buffer registered = nullptr;
      for (const auto& [s, r] : b.registered)
        if (s == model_->steps()[a.step].session) registered = r;
      absl::Status st = Attach(a, registered);
      if (!st.ok()) {
        // Put the context's own buffers back where this one went.
        for (const Attachment& back : uses) {
          absl::StatusOr<tsr_buffer> own = BufferIn(storage, model_->steps()[back.step].session);
          if (own.ok()) Attach(back, *own).IgnoreError();
        }
        DropResources(b);
        return st;
      }
    }
    storages_[storage].bound_address = b.address;
    b.mode = BindingMode::kZeroCopy;
  } else {
    DropRegistrations(b);
  }
  bindings[index] = std::move(b);
  ++bound_count_;
  return bindings[index].mode;
}

absl::Status ExecutionContext::Unbind(int32_t io_kind, size_t index) {
  const bool output = io_kind == TSR_IO_OUTPUT;
  if (io_kind != TSR_IO_INPUT && !output) return absl::InvalidArgumentError(absl::StrCat("unbind: io kind ", io_kind));
  std::vector<Binding>& bindings = output ? output_bindings_ : input_bindings_;
  if (index >= bindings.size())
    return absl::InvalidArgumentError(absl::StrCat("unbind ", IoName(output), " ", index, ": the model has ",
                                                   bindings.size(), " ", IoName(output), "s"));
  const Graph& graph = model_->graph();
  const int32_t tensor = (output ? graph.outputs : graph.inputs)[index];
  return Release(bindings[index], graph.tensors[tensor].is_constant ? -1 : model_->primary_storage(tensor));
}

absl::Status ExecutionContext::Release(Binding& binding, int32_t storage) {
  if (!binding.bound) return absl::OkStatus();
  absl::Status first;
  if (binding.mode == BindingMode::kZeroCopy && storage >= 0) {
    // The context's own buffer back into every slot, then the app's
    // registrations go.
    storages_[storage].bound_address = nullptr;
    for (const Attachment& a : AttachmentsOf(storage)) {
      absl::StatusOr<tsr_buffer> own = BufferIn(storage, model_->steps()[a.step].session);
      absl::Status st = own.ok() ? Attach(a, *own) : own.status();
      if (first.ok() && !st.ok()) first = st;
    }
  }
  DropResources(binding);
  --bound_count_;
  return first;
}

void ExecutionContext::DropRegistrations(Binding& binding) {
  for (const auto& [session, r] : binding.registered) {
    std::lock_guard<std::mutex> lock(model_->SessionLock(session));
    Session(session).api()->release_buffer(r);
  }
  binding.registered.clear();
}

void ExecutionContext::DropResources(Binding& binding) {
  DropRegistrations(binding);
  if (binding.mapping != nullptr) munmap(binding.mapping, binding.mapping_size);
  binding = Binding{};
}

void ExecutionContext::ReleaseBindings() {
  const Graph& graph = model_->graph();
  for (bool output : {false, true}) {
    std::vector<Binding>& bindings = output ? output_bindings_ : input_bindings_;
    const std::vector<int32_t>& ios = output ? graph.outputs : graph.inputs;
    for (size_t i = 0; i < bindings.size(); ++i)
      Release(bindings[i], graph.tensors[ios[i]].is_constant ? -1 : model_->primary_storage(ios[i])).IgnoreError();
  }
}

absl::Status ExecutionContext::RunBound(ExecutionProfile* profile) {
  run_start_ = std::chrono::steady_clock::now();
  const Graph& graph = model_->graph();
  for (bool output : {false, true}) {
    const std::vector<Binding>& bindings = output ? output_bindings_ : input_bindings_;
    for (size_t i = 0; i < bindings.size(); ++i)
      if (!bindings[i].bound)
        return absl::FailedPreconditionError(absl::StrCat(
            "RunBound: ", IoName(output), " ", i, " ('", graph.tensors[(output ? graph.outputs : graph.inputs)[i]].name,
            "') is not bound to a buffer"));
  }
  uint64_t copied = 0;
  for (size_t i = 0; i < input_bindings_.size(); ++i) {
    const Binding& b = input_bindings_[i];
    if (b.mode == BindingMode::kZeroCopy) continue;
    const size_t bytes = graph.tensors[graph.inputs[i]].byte_size();
    RETURN_IF_ERROR(WriteDense(model_->primary_storage(graph.inputs[i]), {b.address, bytes}));
    copied += bytes;
  }
  RETURN_IF_ERROR(RunSteps(profile));
  for (size_t i = 0; i < output_bindings_.size(); ++i) {
    const Binding& b = output_bindings_[i];
    if (b.mode == BindingMode::kZeroCopy) continue;
    // An output whose storage is a zero-copy bound input (a graph input
    // returned as is) is read from there.
    const size_t bytes = graph.tensors[graph.outputs[i]].byte_size();
    RETURN_IF_ERROR(ReadOutput(i, {b.address, bytes}));
    copied += bytes;
  }
  if (profile != nullptr) {
    profile->total_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - run_start_).count();
    profile->io_copy_bytes = copied;
    profile->conversions = conversions_;
  }
  return absl::OkStatus();
}

}  // namespace tessera
