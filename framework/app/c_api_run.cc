// The C API's run contexts (tessera_app.h): made from a compiled model's
// handle, which they keep alive; runs on the caller's sized buffers (the
// unsized calls of app API 7 and before are kept, deprecated), synchronous
// or on the context's worker, and on bound buffers. Every run holds the
// context's run lock, so a context shared between threads serializes its
// runs (RunContext::Impl::run_lock).
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/app/c_api_internal.h"
#include "framework/core/base/dtype.h"
#include "tessera/app/tessera_app.h"

namespace {

using tessera::app::RunContextAccess;
using tessera::app::c_api::Adopt;
using tessera::app::c_api::CheckStructSize;
using tessera::app::c_api::Destroy;
using tessera::app::c_api::Fail;
using tessera::app::c_api::Guarded;
using tessera::app::c_api::Resolve;

constexpr size_t kFirstBufferSize = sizeof(tsr_app_buffer);

// One side (inputs or outputs) of a run's buffers: sizes == nullptr for
// the unsized calls, which trust every buffer to hold its tensor.
template <typename Pointer>
struct Buffers {
  const char* kind;  // "input" or "output"
  Pointer const* pointers;
  const size_t* sizes;
  size_t count;
};

// Each buffer against its tensor, onto the views. The messages are built
// on failure only: a steady-state run allocates nothing.
template <typename Pointer, typename View>
tsr_status SetSide(const char* call, const Buffers<Pointer>& b, bool sized,
                   const std::vector<tessera::app::TensorInfo>& tensors, std::vector<View>& views) {
  if (sized && b.sizes == nullptr && b.count > 0)
    return Fail(TSR_INVALID_ARGUMENT, absl::StrCat(call, ": ", b.kind, "_sizes is NULL"));
  for (size_t i = 0; i < b.count; ++i) {
    if (b.pointers == nullptr || b.pointers[i] == nullptr)
      return Fail(TSR_INVALID_ARGUMENT, absl::StrCat(call, ": ", b.kind, " ", i, " is NULL"));
    const tessera::app::TensorInfo& t = tensors[i];
    const size_t need = t.byte_size();
    if (sized && b.sizes[i] < need)
      return Fail(TSR_INVALID_ARGUMENT, absl::StrCat(call, ": ", b.kind, " ", i, " ('", t.name, "', ",
                                                     tessera::DTypeName(t.dtype), " [", absl::StrJoin(t.shape, ","),
                                                     "]) needs ", need, " bytes; its buffer holds ", b.sizes[i]));
    views[i] = View(static_cast<typename View::pointer>(b.pointers[i]), need);
  }
  return TSR_OK;
}

// The one body of tsr_app_run[_async][_sized]: the context resolved, its
// run lock held, no asynchronous run in flight, every buffer checked and
// set as the views; then `go` runs (or starts) the run on them.
template <typename Go>
tsr_status RunOnBuffers(const char* call, tsr_app_run_context context, bool sized, const Buffers<const void*>& in,
                        const Buffers<void*>& out, Go go) {
  return Guarded(call, [&]() -> tsr_status {
    std::shared_ptr<tsr_app_run_context_s> c;
    if (tsr_status code = Resolve(call, context, &c); code != TSR_OK) return code;
    const tsr_app_compiled_model_s& m = *c->compiled;
    if (in.count != m.inputs.size() || out.count != m.outputs.size())
      return Fail(TSR_INVALID_ARGUMENT, absl::StrCat(call, ": the model takes ", m.inputs.size(), " inputs and gives ",
                                                     m.outputs.size(), " outputs, got ", in.count, " and ", out.count));
    tessera::app::RunContext::Impl* impl = RunContextAccess::Of(c->context);
    std::lock_guard<std::mutex> lock(impl->run_lock);
    // A run in flight reads the views: they stay until it is collected.
    if (const tessera::app::Status idle = impl->CheckIdle(call); !idle.ok()) return Fail(idle);
    if (tsr_status code = SetSide(call, in, sized, m.inputs, impl->input_views); code != TSR_OK) return code;
    if (tsr_status code = SetSide(call, out, sized, m.outputs, impl->output_views); code != TSR_OK) return code;
    return go(*impl);
  });
}

tsr_status RunNow(tessera::app::RunContext::Impl& impl) {
  const tessera::app::Status s = impl.RunViews(nullptr);
  return s.ok() ? TSR_OK : Fail(s);
}

tsr_status StartNow(tessera::app::RunContext::Impl& impl) {
  impl.StartAsync(nullptr);
  return TSR_OK;
}

}  // namespace

extern "C" {

tsr_status tsr_app_run_context_create(tsr_app_compiled_model compiled, tsr_app_run_context* out) {
  return Guarded("tsr_app_run_context_create", [&]() -> tsr_status {
    std::shared_ptr<tsr_app_compiled_model_s> m;
    if (tsr_status code = Resolve("tsr_app_run_context_create", compiled, &m); code != TSR_OK) return code;
    if (out == nullptr) return Fail(TSR_INVALID_ARGUMENT, "tsr_app_run_context_create: out is NULL");
    tessera::app::Result<tessera::app::RunContext> c = tessera::app::RunContext::Create(m->compiled);
    if (!c.ok()) return Fail(c.status());
    return Adopt("tsr_app_run_context_create",
                 std::make_shared<tsr_app_run_context_s>(tsr_app_run_context_s{*std::move(c), std::move(m)}), out);
  });
}

tsr_status tsr_app_run_context_destroy(tsr_app_run_context context) {
  return Destroy("tsr_app_run_context_destroy", context);
}

tsr_status tsr_app_run_sized(tsr_app_run_context context, const void* const* inputs, const size_t* input_sizes,
                             size_t input_count, void* const* outputs, const size_t* output_sizes,
                             size_t output_count) {
  return RunOnBuffers("tsr_app_run_sized", context, true, {"input", inputs, input_sizes, input_count},
                      {"output", outputs, output_sizes, output_count}, RunNow);
}

tsr_status tsr_app_run_async_sized(tsr_app_run_context context, const void* const* inputs, const size_t* input_sizes,
                                   size_t input_count, void* const* outputs, const size_t* output_sizes,
                                   size_t output_count) {
  return RunOnBuffers("tsr_app_run_async_sized", context, true, {"input", inputs, input_sizes, input_count},
                      {"output", outputs, output_sizes, output_count}, StartNow);
}

tsr_status tsr_app_run(tsr_app_run_context context, const void* const* inputs, size_t input_count, void* const* outputs,
                       size_t output_count) {
  return RunOnBuffers("tsr_app_run", context, false, {"input", inputs, nullptr, input_count},
                      {"output", outputs, nullptr, output_count}, RunNow);
}

tsr_status tsr_app_run_async(tsr_app_run_context context, const void* const* inputs, size_t input_count,
                             void* const* outputs, size_t output_count) {
  return RunOnBuffers("tsr_app_run_async", context, false, {"input", inputs, nullptr, input_count},
                      {"output", outputs, nullptr, output_count}, StartNow);
}

tsr_status tsr_app_run_wait(tsr_app_run_context context, uint64_t timeout_ns) {
  return Guarded("tsr_app_run_wait", [&]() -> tsr_status {
    std::shared_ptr<tsr_app_run_context_s> c;
    if (tsr_status code = Resolve("tsr_app_run_wait", context, &c); code != TSR_OK) return code;
    const tessera::app::Status s = RunContextAccess::Of(c->context)->WaitAsync(timeout_ns);
    if (!s.ok()) return Fail(s.code(), "tsr_app_run_wait: " + s.message());
    return TSR_OK;
  });
}

tsr_status tsr_app_run_context_bind(tsr_app_run_context context, int32_t io_kind, size_t index,
                                    const tsr_app_buffer* buffer, int32_t* out_mode) {
  return Guarded("tsr_app_run_context_bind", [&]() -> tsr_status {
    std::shared_ptr<tsr_app_run_context_s> c;
    if (tsr_status code = Resolve("tsr_app_run_context_bind", context, &c); code != TSR_OK) return code;
    if (io_kind != TSR_APP_IO_INPUT && io_kind != TSR_APP_IO_OUTPUT)
      return Fail(TSR_INVALID_ARGUMENT, "tsr_app_run_context_bind: io_kind " + std::to_string(io_kind) +
                                            " is neither TSR_APP_IO_INPUT nor TSR_APP_IO_OUTPUT");
    const tessera::app::IoKind kind =
        io_kind == TSR_APP_IO_OUTPUT ? tessera::app::IoKind::kOutput : tessera::app::IoKind::kInput;
    if (buffer == nullptr) {
      const tessera::app::Status s = c->context.Unbind(kind, index);
      return s.ok() ? TSR_OK : Fail(s);
    }
    if (tsr_status code = CheckStructSize("tsr_app_run_context_bind", "tsr_app_buffer", buffer, kFirstBufferSize);
        code != TSR_OK)
      return code;
    const tessera::app::AppBuffer b{buffer->buffer_type, buffer->host_address, buffer->fd, buffer->offset,
                                    static_cast<size_t>(buffer->size_bytes)};
    tessera::app::Result<tessera::app::BindingMode> mode = c->context.Bind(kind, index, b);
    if (!mode.ok()) return Fail(mode.status());
    if (out_mode != nullptr)
      *out_mode = *mode == tessera::app::BindingMode::kZeroCopy ? TSR_APP_BINDING_ZERO_COPY : TSR_APP_BINDING_COPIED;
    return TSR_OK;
  });
}

tsr_status tsr_app_run_bound(tsr_app_run_context context) {
  return Guarded("tsr_app_run_bound", [&]() -> tsr_status {
    std::shared_ptr<tsr_app_run_context_s> c;
    if (tsr_status code = Resolve("tsr_app_run_bound", context, &c); code != TSR_OK) return code;
    const tessera::app::Status s = c->context.RunBound(nullptr);
    return s.ok() ? TSR_OK : Fail(s);
  });
}

}  // extern "C"
