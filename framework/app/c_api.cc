// The C API (tessera_app.h): environments, models and compiled models (run
// contexts: c_api_run.cc). Each handle is a checked entry of its kind's
// table holding the C++ object (c_api_internal.h), each call catches
// everything (nothing is thrown across a C boundary), and every failure
// leaves its text in the calling thread's slot.
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "framework/app/c_api_internal.h"
#include "framework/compiler/report/partition_report.h"
#include "framework/core/base/json_writer.h"
#include "tessera/app/tessera_app.h"
#include "tessera/dispatch.h"

static_assert(TSR_APP_COMPATIBILITY_OPTIMAL == TSR_COMPATIBILITY_OPTIMAL &&
                  TSR_APP_COMPATIBILITY_PREFER_RECOMPILE == TSR_COMPATIBILITY_PREFER_RECOMPILE,
              "the app API's verdicts are the dispatch ABI's");

namespace {

using tessera::app::c_api::Adopt;
using tessera::app::c_api::CheckStructSize;
using tessera::app::c_api::Destroy;
using tessera::app::c_api::Fail;
using tessera::app::c_api::Guarded;
using tessera::app::c_api::Resolve;
using tessera::app::c_api::TensorInfoOf;

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

tsr_status AdoptModel(const char* call, tessera::app::Result<tessera::app::Model> model, tsr_app_model* out) {
  if (!model.ok()) return Fail(model.status());
  auto handle = std::make_shared<tsr_app_model_s>(tsr_app_model_s{*std::move(model), {}, {}});
  handle->inputs = handle->model.inputs();
  handle->outputs = handle->model.outputs();
  return Adopt(call, std::move(handle), out);
}

thread_local std::string last_error;

}  // namespace

namespace tessera::app::c_api {

tsr_status Fail(tsr_status code, std::string text) {
  last_error = std::move(text);
  return code;
}

std::string HandleError(const char* call, const char* kind, HandleProblem problem) {
  switch (problem) {
    case HandleProblem::kDestroyed:
      return std::string(call) + ": this " + kind + " was destroyed (a handle is invalid once its _destroy call " +
             "returned)";
    case HandleProblem::kOtherKind:
      return std::string(call) + ": the handle is another kind of tsr_app_ handle, not a " + kind;
    case HandleProblem::kNone:
    case HandleProblem::kUnknown:
      break;
  }
  return std::string(call) + ": the value is not a " + kind + " handle made by this library";
}

tsr_status TensorInfoOf(const char* call, const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs,
                        int32_t io_kind, size_t index, tsr_app_tensor_info* out) {
  if (out == nullptr) return Fail(TSR_INVALID_ARGUMENT, std::string(call) + ": NULL argument");
  if (io_kind != TSR_APP_IO_INPUT && io_kind != TSR_APP_IO_OUTPUT)
    return Fail(TSR_INVALID_ARGUMENT, std::string(call) + ": io_kind must be 0 (input) or 1 (output)");
  const std::vector<TensorInfo>& list = io_kind == TSR_APP_IO_INPUT ? inputs : outputs;
  if (index >= list.size())
    return Fail(TSR_OUT_OF_RANGE,
                std::string(call) + ": index " + std::to_string(index) + " of " + std::to_string(list.size()));
  const TensorInfo& t = list[index];
  *out = tsr_app_tensor_info{t.name.c_str(), t.dtype, 0, t.shape.data(), t.shape.size(), t.byte_size()};
  return TSR_OK;
}

}  // namespace tessera::app::c_api

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
    return Adopt("tsr_app_environment_create",
                 std::make_shared<tsr_app_environment_s>(tsr_app_environment_s{*std::move(env)}), out);
  });
}

tsr_status tsr_app_environment_destroy(tsr_app_environment env) { return Destroy("tsr_app_environment_destroy", env); }

tsr_status tsr_app_model_load(const char* path, const tsr_app_load_options* opts, tsr_app_model* out) {
  return Guarded("tsr_app_model_load", [&]() -> tsr_status {
    if (path == nullptr || out == nullptr) return Fail(TSR_INVALID_ARGUMENT, "tsr_app_model_load: NULL argument");
    if (tsr_status code = CheckStructSize("tsr_app_model_load", "tsr_app_load_options", opts, kFirstLoadOptionsSize);
        code != TSR_OK)
      return code;
    return AdoptModel("tsr_app_model_load", tessera::app::Model::Load(path, LoadOptionsFrom(opts)), out);
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
    return AdoptModel("tsr_app_model_from_memory", tessera::app::Model::FromMemory(bytes, size, LoadOptionsFrom(opts)),
                      out);
  });
}

tsr_status tsr_app_model_destroy(tsr_app_model model) { return Destroy("tsr_app_model_destroy", model); }

tsr_status tsr_app_model_io_count(tsr_app_model model, size_t* out_inputs, size_t* out_outputs) {
  std::shared_ptr<tsr_app_model_s> m;
  if (tsr_status code = Resolve("tsr_app_model_io_count", model, &m); code != TSR_OK) return code;
  if (out_inputs == nullptr || out_outputs == nullptr)
    return Fail(TSR_INVALID_ARGUMENT, "tsr_app_model_io_count: NULL argument");
  *out_inputs = m->inputs.size();
  *out_outputs = m->outputs.size();
  return TSR_OK;
}

tsr_status tsr_app_model_tensor_info(tsr_app_model model, int32_t io_kind, size_t index, tsr_app_tensor_info* out) {
  std::shared_ptr<tsr_app_model_s> m;
  if (tsr_status code = Resolve("tsr_app_model_tensor_info", model, &m); code != TSR_OK) return code;
  return TensorInfoOf("tsr_app_model_tensor_info", m->inputs, m->outputs, io_kind, index, out);
}

tsr_status tsr_app_compile(tsr_app_environment env, tsr_app_model model, const tsr_app_compile_options* opts,
                           tsr_app_compiled_model* out) {
  return Guarded("tsr_app_compile", [&]() -> tsr_status {
    std::shared_ptr<tsr_app_environment_s> env_object;
    std::shared_ptr<tsr_app_model_s> model_object;
    if (tsr_status code = Resolve("tsr_app_compile", env, &env_object); code != TSR_OK) return code;
    if (tsr_status code = Resolve("tsr_app_compile", model, &model_object); code != TSR_OK) return code;
    if (out == nullptr) return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compile: out is NULL");
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
        tessera::app::CompiledModel::Compile(env_object->env, model_object->model, o);
    if (!compiled.ok()) return Fail(compiled.status());
    auto handle =
        std::make_shared<tsr_app_compiled_model_s>(tsr_app_compiled_model_s{*std::move(compiled), {}, {}, {}});
    handle->inputs = handle->compiled.inputs();
    handle->outputs = handle->compiled.outputs();
    const tessera::CompiledGraph& internal = handle->compiled.impl()->compiled;
    tessera::JsonWriter j;
    if (handle->compiled.was_precompiled())
      j.BeginObject().Field("precompiled", true).EndObject();
    else
      tessera::WritePartitionReportJson(tessera::BuildPartitionReport(internal), j);
    handle->report_json = j.str();
    return Adopt("tsr_app_compile", std::move(handle), out);
  });
}

tsr_status tsr_app_compiled_model_destroy(tsr_app_compiled_model compiled) {
  return Destroy("tsr_app_compiled_model_destroy", compiled);
}

tsr_status tsr_app_compiled_model_cache_info(tsr_app_compiled_model compiled, tsr_app_cache_info* out) {
  std::shared_ptr<tsr_app_compiled_model_s> m;
  if (tsr_status code = Resolve("tsr_app_compiled_model_cache_info", compiled, &m); code != TSR_OK) return code;
  if (out == nullptr || out->struct_size < sizeof(tsr_app_cache_info))
    return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_cache_info: NULL out or struct_size too small");
  const tessera::app::CompileCacheInfo& c = m->compiled.cache_info();
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
  std::shared_ptr<tsr_app_compiled_model_s> m;
  if (tsr_status code = Resolve("tsr_app_compiled_model_compatibility_count", compiled, &m); code != TSR_OK)
    return code;
  if (out_count == nullptr)
    return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_compatibility_count: NULL argument");
  *out_count = m->compiled.compatibility().size();
  return TSR_OK;
}

tsr_status tsr_app_compiled_model_compatibility(tsr_app_compiled_model compiled, size_t index,
                                                tsr_app_bytecode_compatibility* out) {
  std::shared_ptr<tsr_app_compiled_model_s> m;
  if (tsr_status code = Resolve("tsr_app_compiled_model_compatibility", compiled, &m); code != TSR_OK) return code;
  if (out == nullptr || out->struct_size < sizeof(tsr_app_bytecode_compatibility))
    return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_compatibility: NULL out or struct_size too small");
  const std::vector<tessera::app::BytecodeCompatibility>& all = m->compiled.compatibility();
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
  std::shared_ptr<tsr_app_compiled_model_s> m;
  if (tsr_status code = Resolve("tsr_app_compiled_model_wait_for_accelerated", compiled, &m); code != TSR_OK)
    return code;
  const tessera::app::Status s = m->compiled.WaitForAccelerated();
  return s.ok() ? TSR_OK : Fail(s);
}

tsr_status tsr_app_compiled_model_save(tsr_app_compiled_model compiled, const char* path) {
  return Guarded("tsr_app_compiled_model_save", [&]() -> tsr_status {
    std::shared_ptr<tsr_app_compiled_model_s> m;
    if (tsr_status code = Resolve("tsr_app_compiled_model_save", compiled, &m); code != TSR_OK) return code;
    if (path == nullptr) return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_save: NULL argument");
    const tessera::app::Status s = m->compiled.Save(path);
    return s.ok() ? TSR_OK : Fail(s);
  });
}

tsr_status tsr_app_compiled_model_io_count(tsr_app_compiled_model compiled, size_t* out_inputs, size_t* out_outputs) {
  std::shared_ptr<tsr_app_compiled_model_s> m;
  if (tsr_status code = Resolve("tsr_app_compiled_model_io_count", compiled, &m); code != TSR_OK) return code;
  if (out_inputs == nullptr || out_outputs == nullptr)
    return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_io_count: NULL argument");
  *out_inputs = m->inputs.size();
  *out_outputs = m->outputs.size();
  return TSR_OK;
}

tsr_status tsr_app_compiled_model_tensor_info(tsr_app_compiled_model compiled, int32_t io_kind, size_t index,
                                              tsr_app_tensor_info* out) {
  std::shared_ptr<tsr_app_compiled_model_s> m;
  if (tsr_status code = Resolve("tsr_app_compiled_model_tensor_info", compiled, &m); code != TSR_OK) return code;
  return TensorInfoOf("tsr_app_compiled_model_tensor_info", m->inputs, m->outputs, io_kind, index, out);
}

tsr_status tsr_app_compiled_model_io_index(tsr_app_compiled_model compiled, int32_t io_kind, const char* name,
                                           size_t* out_index) {
  return Guarded("tsr_app_compiled_model_io_index", [&]() -> tsr_status {
    std::shared_ptr<tsr_app_compiled_model_s> m;
    if (tsr_status code = Resolve("tsr_app_compiled_model_io_index", compiled, &m); code != TSR_OK) return code;
    if (name == nullptr || out_index == nullptr)
      return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_io_index: NULL argument");
    if (io_kind != TSR_APP_IO_INPUT && io_kind != TSR_APP_IO_OUTPUT)
      return Fail(TSR_INVALID_ARGUMENT, "tsr_app_compiled_model_io_index: io_kind must be 0 (input) or 1 (output)");
    tessera::app::Result<size_t> index =
        tessera::app::IndexByName(io_kind == TSR_APP_IO_INPUT ? m->inputs : m->outputs, name);
    if (!index.ok()) return Fail(index.status().code(), "tsr_app_compiled_model_io_index: " + index.status().message());
    *out_index = *index;
    return TSR_OK;
  });
}

tsr_status tsr_app_compiled_model_partition_report_json(tsr_app_compiled_model compiled, char* out, size_t capacity,
                                                        size_t* out_length) {
  std::shared_ptr<tsr_app_compiled_model_s> m;
  if (tsr_status code = Resolve("tsr_app_compiled_model_partition_report_json", compiled, &m); code != TSR_OK)
    return code;
  tsr_copy_text(m->report_json.c_str(), out, capacity, out_length);
  return TSR_OK;
}

}  // extern "C"
