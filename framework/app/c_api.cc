// The C API (tessera_app.h): each handle holds the C++ object, each call
// catches everything (nothing is thrown across a C boundary), and every
// failure leaves its text in the calling thread's slot.
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "absl/strings/str_cat.h"
#include "framework/app/app_internal.h"
#include "framework/compiler/report/partition_report.h"
#include "framework/core/base/json_writer.h"
#include "tessera/app/tessera_app.h"
#include "tessera/dispatch.h"

static_assert(TSR_APP_COMPATIBILITY_OPTIMAL == TSR_COMPATIBILITY_OPTIMAL &&
                  TSR_APP_COMPATIBILITY_PREFER_RECOMPILE == TSR_COMPATIBILITY_PREFER_RECOMPILE,
              "the app API's verdicts are the dispatch ABI's");

struct tsr_app_environment_s {
  tessera::app::Environment env;
};
struct tsr_app_model_s {
  tessera::app::Model model;
};
struct tsr_app_compiled_model_s {
  tessera::app::CompiledModel compiled;
  std::vector<tessera::app::TensorInfo> inputs, outputs;  // stable storage for tsr_app_tensor_info
  std::string report_json;
};
struct tsr_app_run_context_s {
  tessera::app::RunContext context;
  tsr_app_compiled_model compiled;
};

namespace {

thread_local std::string last_error;

tsr_status Fail(tsr_status code, std::string text) {
  last_error = std::move(text);
  return code;
}
tsr_status Fail(const tessera::app::Status& s) { return Fail(s.code(), s.message()); }

// Runs `body`, turning exceptions into statuses.
template <typename Body>
tsr_status Guarded(const char* call, Body body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(TSR_RESOURCE_EXHAUSTED, std::string(call) + ": out of memory");
  } catch (const std::exception& e) {
    return Fail(TSR_INTERNAL, std::string(call) + ": " + e.what());
  } catch (...) {
    return Fail(TSR_INTERNAL, std::string(call) + ": unknown exception");
  }
}

template <typename T>
bool Has(const T* opts, size_t end_of_member) {
  return opts != nullptr && opts->struct_size >= end_of_member;
}
#define TSR_APP_HAS(opts, type, member) Has(opts, offsetof(type, member) + sizeof(((type*)nullptr)->member))

// The first version of each options struct ends where its first "appended"
// member begins (tessera_app.h): any caller, however old, set at least
// this much. A struct without appended members is all first version.
constexpr size_t kFirstEnvironmentOptionsSize = sizeof(tsr_app_environment_options);
constexpr size_t kFirstLoadOptionsSize = offsetof(tsr_app_load_options, budgets);
constexpr size_t kFirstCompileOptionsSize = offsetof(tsr_app_compile_options, policy);
constexpr size_t kFirstBufferSize = sizeof(tsr_app_buffer);

// The struct_size rule of tessera_app.h, for every struct the caller
// passes in. Below the first version's size (0 above all: a struct left
// zeroed) nothing can be read safely, and reading none of it would
// silently drop every option the caller set; so it is refused. A size
// beyond what this library knows is a newer caller's: its known prefix is
// read (TSR_APP_HAS) and the rest ignored. NULL opts means defaults.
template <typename T>
tsr_status CheckStructSize(const char* call, const char* type, const T* opts, size_t first_size) {
  if (opts == nullptr || opts->struct_size >= first_size) return TSR_OK;
  return Fail(TSR_INVALID_ARGUMENT, absl::StrCat(call, ": ", type, "::struct_size ", opts->struct_size,
                                                 " is below its first version's size (", first_size,
                                                 " bytes); set it to sizeof(", type, ")"));
}

tessera::app::LoadOptions LoadOptionsFrom(const tsr_app_load_options* opts) {
  tessera::app::LoadOptions o;  // struct_size checked by the caller (CheckStructSize)
  if (TSR_APP_HAS(opts, tsr_app_load_options, format))
    o.format = opts->format == TSR_APP_FORMAT_TSR    ? tessera::app::ModelFormat::kTsr
               : opts->format == TSR_APP_FORMAT_ONNX ? tessera::app::ModelFormat::kOnnx
                                                     : tessera::app::ModelFormat::kDetect;
  if (TSR_APP_HAS(opts, tsr_app_load_options, input_shape_count) && opts->input_shapes != nullptr)
    for (size_t i = 0; i < opts->input_shape_count; ++i) {
      const tsr_app_input_shape& s = opts->input_shapes[i];
      if (s.name != nullptr) o.input_shapes[s.name] = std::vector<int64_t>(s.dims, s.dims + s.rank);
    }
  if (TSR_APP_HAS(opts, tsr_app_load_options, budget_count) && opts->budgets != nullptr)
    for (size_t i = 0; i < opts->budget_count; ++i)
      if (opts->budgets[i].name != nullptr) o.budgets[opts->budgets[i].name] = opts->budgets[i].value;
  if (TSR_APP_HAS(opts, tsr_app_load_options, verify) && opts->verify == TSR_APP_VERIFY_FULL)
    o.verify = tessera::app::VerifyLevel::kFull;
  return o;
}

tsr_status Adopt(tessera::app::Result<tessera::app::Model> model, tsr_app_model* out) {
  if (!model.ok()) return Fail(model.status());
  *out = new tsr_app_model_s{*std::move(model)};
  return TSR_OK;
}

}  // namespace

extern "C" {

const char* tsr_app_last_error(void) { return last_error.c_str(); }
uint32_t tsr_app_api_version(void) { return TSR_APP_API_VERSION; }

tsr_status tsr_app_environment_create(const tsr_app_environment_options* opts, tsr_app_environment* out) {
  return Guarded("tsr_app_environment_create", [&]() -> tsr_status {
    if (out == nullptr) return Fail(TSR_INVALID_ARGUMENT, "tsr_app_environment_create: out is NULL");
    tessera::app::EnvironmentOptions o;
    if (tsr_status code = CheckStructSize("tsr_app_environment_create", "tsr_app_environment_options", opts,
                                          kFirstEnvironmentOptionsSize);
        code != TSR_OK)
      return code;
    if (opts != nullptr) {
      o.read_environment = opts->read_environment != 0;
      if (TSR_APP_HAS(opts, tsr_app_environment_options, plugin_directory_count) && opts->plugin_directories != nullptr)
        for (size_t i = 0; i < opts->plugin_directory_count; ++i)
          if (opts->plugin_directories[i] != nullptr) o.plugin_directories.emplace_back(opts->plugin_directories[i]);
      if (TSR_APP_HAS(opts, tsr_app_environment_options, bundled_plugin_directory) && opts->bundled_plugin_directory)
        o.bundled_plugin_directory = opts->bundled_plugin_directory;
      if (TSR_APP_HAS(opts, tsr_app_environment_options, soc_directory) && opts->soc_directory)
        o.soc_directory = opts->soc_directory;
      if (TSR_APP_HAS(opts, tsr_app_environment_options, log_level))
        o.log_level = static_cast<tessera::app::LogLevel>(opts->log_level < 0   ? 0
                                                          : opts->log_level > 3 ? 3
                                                                                : opts->log_level);
    }
    tessera::app::Result<tessera::app::Environment> env = tessera::app::Environment::Create(o);
    if (!env.ok()) return Fail(env.status());
    *out = new tsr_app_environment_s{*std::move(env)};
    return TSR_OK;
  });
}

void tsr_app_environment_destroy(tsr_app_environment env) { delete env; }

tsr_status tsr_app_model_load(const char* path, const tsr_app_load_options* opts, tsr_app_model* out) {
  return Guarded("tsr_app_model_load", [&]() -> tsr_status {
    if (path == nullptr || out == nullptr) return Fail(TSR_INVALID_ARGUMENT, "tsr_app_model_load: NULL argument");
    if (tsr_status code = CheckStructSize("tsr_app_model_load", "tsr_app_load_options", opts, kFirstLoadOptionsSize);
        code != TSR_OK)
      return code;
    return Adopt(tessera::app::Model::Load(path, LoadOptionsFrom(opts)), out);
  });
}

tsr_status tsr_app_model_from_memory(const void* bytes, size_t size, const tsr_app_load_options* opts,
                                     tsr_app_model* out) {
  return Guarded("tsr_app_model_from_memory", [&]() -> tsr_status {
    if (out == nullptr) return Fail(TSR_INVALID_ARGUMENT, "tsr_app_model_from_memory: out is NULL");
    if (tsr_status code =
            CheckStructSize("tsr_app_model_from_memory", "tsr_app_load_options", opts, kFirstLoadOptionsSize);
        code != TSR_OK)
      return code;
    return Adopt(tessera::app::Model::FromMemory(bytes, size, LoadOptionsFrom(opts)), out);
  });
}

void tsr_app_model_destroy(tsr_app_model model) { delete model; }

tsr_status tsr_app_compile(tsr_app_environment env, tsr_app_model model, const tsr_app_compile_options* opts,
                           tsr_app_compiled_model* out) {
  return Guarded("tsr_app_compile", [&]() -> tsr_status {
    if (env == nullptr || model == nullptr || out == nullptr)
      return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compile: NULL argument");
    if (tsr_status code = CheckStructSize("tsr_app_compile", "tsr_app_compile_options", opts, kFirstCompileOptionsSize);
        code != TSR_OK)
      return code;
    tessera::app::CompileOptions o;
    if (TSR_APP_HAS(opts, tsr_app_compile_options, mode)) {
      if (opts->mode != 0 && opts->mode != 1)
        return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compile: mode must be 0 (AOT) or 1 (JIT)");
      o.mode = opts->mode == 1 ? tessera::app::CompileMode::kJit : tessera::app::CompileMode::kAot;
    }
    if (TSR_APP_HAS(opts, tsr_app_compile_options, accelerators) && opts->accelerators != nullptr) {
      std::string list = opts->accelerators;
      size_t start = 0;
      while (start <= list.size()) {
        const size_t comma = list.find(',', start);
        const std::string part = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!part.empty()) o.accelerators.push_back(part);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
    if (TSR_APP_HAS(opts, tsr_app_compile_options, soc) && opts->soc != nullptr) o.soc = opts->soc;
    if (TSR_APP_HAS(opts, tsr_app_compile_options, plugin_option_count) && opts->plugin_options != nullptr)
      for (size_t i = 0; i < opts->plugin_option_count; ++i)
        if (opts->plugin_options[i].key != nullptr && opts->plugin_options[i].value != nullptr)
          o.plugin_options.emplace_back(opts->plugin_options[i].key, opts->plugin_options[i].value);
    if (TSR_APP_HAS(opts, tsr_app_compile_options, policy) && opts->policy != nullptr) o.policy = opts->policy;
    if (TSR_APP_HAS(opts, tsr_app_compile_options, min_ops)) o.min_ops = opts->min_ops;
    if (TSR_APP_HAS(opts, tsr_app_compile_options, max_partitions)) o.max_partitions = opts->max_partitions;
    if (TSR_APP_HAS(opts, tsr_app_compile_options, deadline_ms)) {
      if (opts->max_retries != 0) o.max_retries = opts->max_retries < 0 ? 0 : opts->max_retries;
      o.fallback = opts->no_fallback == 0;
      o.deadline_ms = opts->deadline_ms;
    }
    if (TSR_APP_HAS(opts, tsr_app_compile_options, cache_dir) && opts->cache_dir != nullptr)
      o.cache_dir = opts->cache_dir;
    if (TSR_APP_HAS(opts, tsr_app_compile_options, cache_max_bytes)) o.cache_max_bytes = opts->cache_max_bytes;
    if (TSR_APP_HAS(opts, tsr_app_compile_options, background_warmup))
      o.background_warmup = opts->background_warmup != 0;
    if (TSR_APP_HAS(opts, tsr_app_compile_options, leave_jit_only_ops))
      o.leave_jit_only_ops = opts->leave_jit_only_ops != 0;
    if (TSR_APP_HAS(opts, tsr_app_compile_options, calibration_dir)) {
      if (opts->precision != nullptr) o.precision = opts->precision;
      if (opts->calibration_dir != nullptr) o.calibration_dir = opts->calibration_dir;
    }
    tessera::app::Result<tessera::app::CompiledModel> compiled =
        tessera::app::CompiledModel::Compile(env->env, model->model, o);
    if (!compiled.ok()) return Fail(compiled.status());
    auto handle =
        std::make_unique<tsr_app_compiled_model_s>(tsr_app_compiled_model_s{*std::move(compiled), {}, {}, {}});
    handle->inputs = handle->compiled.inputs();
    handle->outputs = handle->compiled.outputs();
    const tessera::CompiledGraph& internal = handle->compiled.impl()->compiled;
    tessera::JsonWriter j;
    if (handle->compiled.was_precompiled())
      j.BeginObject().Field("precompiled", true).EndObject();
    else
      tessera::WritePartitionReportJson(tessera::BuildPartitionReport(internal), j);
    handle->report_json = j.str();
    *out = handle.release();
    return TSR_OK;
  });
}

void tsr_app_compiled_model_destroy(tsr_app_compiled_model compiled) { delete compiled; }

tsr_status tsr_app_compiled_model_cache_info(tsr_app_compiled_model compiled, tsr_app_cache_info* out) {
  if (compiled == nullptr || out == nullptr || out->struct_size < sizeof(tsr_app_cache_info))
    return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_cache_info: NULL argument or struct_size too small");
  const tessera::app::CompileCacheInfo& c = compiled->compiled.cache_info();
  const uint32_t size = out->struct_size;
  *out = tsr_app_cache_info{};
  out->struct_size = size;
  out->enabled = c.enabled ? 1 : 0;
  out->hit = c.hit ? 1 : 0;
  out->key = c.key.c_str();
  out->disabled_reason = c.disabled_reason.c_str();
  out->hits = c.hits;
  out->misses = c.misses;
  out->invalidations = c.invalidations;
  out->evictions = c.evictions;
  return TSR_OK;
}

tsr_status tsr_app_compiled_model_compatibility_count(tsr_app_compiled_model compiled, size_t* out_count) {
  if (compiled == nullptr || out_count == nullptr)
    return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_compatibility_count: NULL argument");
  *out_count = compiled->compiled.compatibility().size();
  return TSR_OK;
}

tsr_status tsr_app_compiled_model_compatibility(tsr_app_compiled_model compiled, size_t index,
                                                tsr_app_bytecode_compatibility* out) {
  if (compiled == nullptr || out == nullptr || out->struct_size < sizeof(tsr_app_bytecode_compatibility))
    return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_compatibility: NULL argument or struct_size too small");
  const std::vector<tessera::app::BytecodeCompatibility>& all = compiled->compiled.compatibility();
  if (index >= all.size())
    return Fail(TSR_OUT_OF_RANGE,
                absl::StrCat("tsr_app_compiled_model_compatibility: index ", index, " of ", all.size(), " entries"));
  const tessera::app::BytecodeCompatibility& c = all[index];
  const uint32_t size = out->struct_size;
  *out = tsr_app_bytecode_compatibility{};
  out->struct_size = size;
  out->verdict = c.verdict == "optimal"            ? TSR_APP_COMPATIBILITY_OPTIMAL
                 : c.verdict == "prefer_recompile" ? TSR_APP_COMPATIBILITY_PREFER_RECOMPILE
                                                   : TSR_APP_COMPATIBILITY_UNKNOWN;
  out->stamped = c.stamped ? 1 : 0;
  out->vendor = c.vendor.c_str();
  out->soc = c.soc.c_str();
  out->message = c.message.c_str();
  return TSR_OK;
}

tsr_status tsr_app_compiled_model_wait_for_accelerated(tsr_app_compiled_model compiled) {
  if (compiled == nullptr) return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_wait_for_accelerated: NULL model");
  const tessera::app::Status s = compiled->compiled.WaitForAccelerated();
  return s.ok() ? TSR_OK : Fail(s);
}

tsr_status tsr_app_compiled_model_save(tsr_app_compiled_model compiled, const char* path) {
  return Guarded("tsr_app_compiled_model_save", [&]() -> tsr_status {
    if (compiled == nullptr || path == nullptr)
      return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_save: NULL argument");
    const tessera::app::Status s = compiled->compiled.Save(path);
    return s.ok() ? TSR_OK : Fail(s);
  });
}

tsr_status tsr_app_compiled_model_io_count(tsr_app_compiled_model compiled, size_t* out_inputs, size_t* out_outputs) {
  if (compiled == nullptr || out_inputs == nullptr || out_outputs == nullptr)
    return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_io_count: NULL argument");
  *out_inputs = compiled->inputs.size();
  *out_outputs = compiled->outputs.size();
  return TSR_OK;
}

tsr_status tsr_app_compiled_model_tensor_info(tsr_app_compiled_model compiled, int32_t io_kind, size_t index,
                                              tsr_app_tensor_info* out) {
  if (compiled == nullptr || out == nullptr)
    return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_tensor_info: NULL argument");
  if (io_kind != TSR_APP_IO_INPUT && io_kind != TSR_APP_IO_OUTPUT)
    return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_tensor_info: io_kind must be 0 (input) or 1 (output)");
  const std::vector<tessera::app::TensorInfo>& list =
      io_kind == TSR_APP_IO_INPUT ? compiled->inputs : compiled->outputs;
  if (index >= list.size())
    return Fail(TSR_OUT_OF_RANGE, "tsr_app_compiled_model_tensor_info: index " + std::to_string(index) + " of " +
                                      std::to_string(list.size()));
  const tessera::app::TensorInfo& t = list[index];
  *out = tsr_app_tensor_info{t.name.c_str(), t.dtype, 0, t.shape.data(), t.shape.size(), t.byte_size()};
  return TSR_OK;
}

tsr_status tsr_app_compiled_model_partition_report_json(tsr_app_compiled_model compiled, char* out, size_t capacity,
                                                        size_t* out_length) {
  if (compiled == nullptr)
    return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_partition_report_json: NULL model");
  tsr_copy_text(compiled->report_json.c_str(), out, capacity, out_length);
  return TSR_OK;
}

tsr_status tsr_app_run_context_create(tsr_app_compiled_model compiled, tsr_app_run_context* out) {
  return Guarded("tsr_app_run_context_create", [&]() -> tsr_status {
    if (compiled == nullptr || out == nullptr)
      return Fail(TSR_INVALID_ARGUMENT, "tsr_app_run_context_create: NULL argument");
    tessera::app::Result<tessera::app::RunContext> c = tessera::app::RunContext::Create(compiled->compiled);
    if (!c.ok()) return Fail(c.status());
    *out = new tsr_app_run_context_s{*std::move(c), compiled};
    return TSR_OK;
  });
}

void tsr_app_run_context_destroy(tsr_app_run_context context) { delete context; }

namespace {

// tsr_app_run's and tsr_app_run_async's checks: the views of `context` set
// from the caller's pointers, or the error.
tsr_status SetViews(const char* call, tsr_app_run_context context, const void* const* inputs, size_t input_count,
                    void* const* outputs, size_t output_count) {
  // The messages are built on failure only.
  if (context == nullptr) return Fail(TSR_INVALID_ARGUMENT, std::string(call) + ": NULL context");
  const tsr_app_compiled_model m = context->compiled;
  if (input_count != m->inputs.size() || output_count != m->outputs.size())
    return Fail(TSR_INVALID_ARGUMENT, std::string(call) + ": the model takes " + std::to_string(m->inputs.size()) +
                                          " inputs and gives " + std::to_string(m->outputs.size()) + " outputs, got " +
                                          std::to_string(input_count) + " and " + std::to_string(output_count));
  // Straight onto the run context's views: no Tensor is made, so a
  // steady-state call allocates nothing.
  tessera::app::RunContext::Impl* impl = tessera::app::RunContextAccess::Of(context->context);
  if (impl == nullptr) return Fail(TSR_FAILED_PRECONDITION, std::string(call) + ": the run context was moved from");
  // A run in flight reads the views: they stay until it is collected.
  if (const tessera::app::Status idle = impl->CheckIdle(call); !idle.ok()) return Fail(idle);
  for (size_t i = 0; i < input_count; ++i) {
    if (inputs == nullptr || inputs[i] == nullptr)
      return Fail(TSR_INVALID_ARGUMENT, std::string(call) + ": input " + std::to_string(i) + " is NULL");
    impl->input_views[i] = {static_cast<const uint8_t*>(inputs[i]), m->inputs[i].byte_size()};
  }
  for (size_t i = 0; i < output_count; ++i) {
    if (outputs == nullptr || outputs[i] == nullptr)
      return Fail(TSR_INVALID_ARGUMENT, std::string(call) + ": output " + std::to_string(i) + " is NULL");
    impl->output_views[i] = {static_cast<uint8_t*>(outputs[i]), m->outputs[i].byte_size()};
  }
  return TSR_OK;
}

}  // namespace

tsr_status tsr_app_run(tsr_app_run_context context, const void* const* inputs, size_t input_count, void* const* outputs,
                       size_t output_count) {
  return Guarded("tsr_app_run", [&]() -> tsr_status {
    if (tsr_status code = SetViews("tsr_app_run", context, inputs, input_count, outputs, output_count); code != TSR_OK)
      return code;
    const tessera::app::Status s = tessera::app::RunContextAccess::Of(context->context)->RunViews(nullptr);
    if (!s.ok()) return Fail(s);
    return TSR_OK;
  });
}

tsr_status tsr_app_run_context_bind(tsr_app_run_context context, int32_t io_kind, size_t index,
                                    const tsr_app_buffer* buffer, int32_t* out_mode) {
  return Guarded("tsr_app_run_context_bind", [&]() -> tsr_status {
    if (context == nullptr) return Fail(TSR_INVALID_ARGUMENT, "tsr_app_run_context_bind: NULL context");
    if (io_kind != TSR_APP_IO_INPUT && io_kind != TSR_APP_IO_OUTPUT)
      return Fail(TSR_INVALID_ARGUMENT, "tsr_app_run_context_bind: io_kind " + std::to_string(io_kind) +
                                            " is neither TSR_APP_IO_INPUT nor TSR_APP_IO_OUTPUT");
    const tessera::app::IoKind kind =
        io_kind == TSR_APP_IO_OUTPUT ? tessera::app::IoKind::kOutput : tessera::app::IoKind::kInput;
    if (buffer == nullptr) {
      const tessera::app::Status s = context->context.Unbind(kind, index);
      return s.ok() ? TSR_OK : Fail(s);
    }
    if (tsr_status code = CheckStructSize("tsr_app_run_context_bind", "tsr_app_buffer", buffer, kFirstBufferSize);
        code != TSR_OK)
      return code;
    const tessera::app::AppBuffer b{buffer->buffer_type, buffer->host_address, buffer->fd, buffer->offset,
                                    static_cast<size_t>(buffer->size_bytes)};
    tessera::app::Result<tessera::app::BindingMode> mode = context->context.Bind(kind, index, b);
    if (!mode.ok()) return Fail(mode.status());
    if (out_mode != nullptr)
      *out_mode = *mode == tessera::app::BindingMode::kZeroCopy ? TSR_APP_BINDING_ZERO_COPY : TSR_APP_BINDING_COPIED;
    return TSR_OK;
  });
}

tsr_status tsr_app_run_bound(tsr_app_run_context context) {
  return Guarded("tsr_app_run_bound", [&]() -> tsr_status {
    if (context == nullptr) return Fail(TSR_INVALID_ARGUMENT, "tsr_app_run_bound: NULL context");
    const tessera::app::Status s = context->context.RunBound(nullptr);
    return s.ok() ? TSR_OK : Fail(s);
  });
}

tsr_status tsr_app_run_async(tsr_app_run_context context, const void* const* inputs, size_t input_count,
                             void* const* outputs, size_t output_count) {
  return Guarded("tsr_app_run_async", [&]() -> tsr_status {
    if (tsr_status code = SetViews("tsr_app_run_async", context, inputs, input_count, outputs, output_count);
        code != TSR_OK)
      return code;
    tessera::app::RunContextAccess::Of(context->context)->StartAsync(nullptr);
    return TSR_OK;
  });
}

tsr_status tsr_app_run_wait(tsr_app_run_context context, uint64_t timeout_ns) {
  return Guarded("tsr_app_run_wait", [&]() -> tsr_status {
    if (context == nullptr) return Fail(TSR_INVALID_ARGUMENT, "tsr_app_run_wait: NULL context");
    tessera::app::RunContext::Impl* impl = tessera::app::RunContextAccess::Of(context->context);
    if (impl == nullptr) return Fail(TSR_FAILED_PRECONDITION, "tsr_app_run_wait: the run context was moved from");
    const tessera::app::Status s = impl->WaitAsync(timeout_ns);
    if (!s.ok()) return Fail(s.code(), "tsr_app_run_wait: " + s.message());
    return TSR_OK;
  });
}

}  // extern "C"
