// What the C API's handles (tessera_app.h) hold, their checked tables
// (c_handle_table.h), and the error slot every call reports through.
// Shared by c_api.cc (environments, models, compiled models) and
// c_api_run.cc (run contexts). Internal: never installed.
#ifndef TESSERA_FRAMEWORK_APP_C_API_INTERNAL_H_
#define TESSERA_FRAMEWORK_APP_C_API_INTERNAL_H_

#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/app/app_internal.h"
#include "framework/app/c_handle_table.h"
#include "tessera/app/tessera_app.h"

struct tsr_app_environment_s {
  tessera::app::Environment env;
};
struct tsr_app_model_s {
  tessera::app::Model model;
  std::vector<tessera::app::TensorInfo> inputs, outputs;  // stable storage for tsr_app_tensor_info
};
struct tsr_app_compiled_model_s {
  tessera::app::CompiledModel compiled;
  std::vector<tessera::app::TensorInfo> inputs, outputs;  // stable storage for tsr_app_tensor_info
  std::string report_json;
};
struct tsr_app_run_context_s {
  tessera::app::RunContext context;
  // Shared: destroying the compiled model's handle first leaves it alive
  // (and its tensor lists valid) until this context goes.
  std::shared_ptr<tsr_app_compiled_model_s> compiled;
};

namespace tessera::app::c_api {

// The calling thread's last error (tsr_app_last_error).
tsr_status Fail(tsr_status code, std::string text);
inline tsr_status Fail(const Status& s) { return Fail(s.code(), s.message()); }

// Runs `body`, turning exceptions into statuses (nothing is thrown across
// the C boundary).
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

// tsr_app_tensor_info of entry `index` of `inputs` or `outputs` (io_kind).
tsr_status TensorInfoOf(const char* call, const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs,
                        int32_t io_kind, size_t index, tsr_app_tensor_info* out);

// Each handle kind's tag and name (c_handle_table.h).
template <typename S>
struct HandleKind;
template <>
struct HandleKind<tsr_app_environment_s> {
  static constexpr uintptr_t kKind = 1;
  static constexpr const char* kName = "tsr_app_environment";
};
template <>
struct HandleKind<tsr_app_model_s> {
  static constexpr uintptr_t kKind = 2;
  static constexpr const char* kName = "tsr_app_model";
};
template <>
struct HandleKind<tsr_app_compiled_model_s> {
  static constexpr uintptr_t kKind = 3;
  static constexpr const char* kName = "tsr_app_compiled_model";
};
template <>
struct HandleKind<tsr_app_run_context_s> {
  static constexpr uintptr_t kKind = 4;
  static constexpr const char* kName = "tsr_app_run_context";
};

// One table per kind, never destroyed: a handle may still be destroyed
// from another static's destructor at exit.
template <typename S>
HandleTable<S>& Handles() {
  static HandleTable<S>* table = new HandleTable<S>(HandleKind<S>::kKind);
  return *table;
}

// The text of a handle that did not resolve.
std::string HandleError(const char* call, const char* kind, HandleProblem problem);

// `handle`'s object, shared for the length of the call; or the error
// (NULL, destroyed, another kind, not a handle).
template <typename S>
tsr_status Resolve(const char* call, S* handle, std::shared_ptr<S>* out) {
  if (handle == nullptr) return Fail(TSR_INVALID_ARGUMENT, std::string(call) + ": NULL " + HandleKind<S>::kName);
  HandleProblem problem;
  *out = Handles<S>().Get(handle, &problem);
  if (*out != nullptr) return TSR_OK;
  return Fail(TSR_INVALID_ARGUMENT, HandleError(call, HandleKind<S>::kName, problem));
}

// A new handle for `object` in *out.
template <typename S>
tsr_status Adopt(const char* call, std::shared_ptr<S> object, S** out) {
  void* handle = Handles<S>().Add(std::move(object));
  if (handle == nullptr)
    return Fail(TSR_RESOURCE_EXHAUSTED, std::string(call) + ": too many live " + HandleKind<S>::kName + " handles");
  *out = static_cast<S*>(handle);
  return TSR_OK;
}

// The one body of every tsr_app_*_destroy: NULL is accepted; a destroyed
// or foreign handle is an error and nothing is freed. The object goes once
// its last holder lets go (a run context keeps its compiled model).
template <typename S>
tsr_status Destroy(const char* call, S* handle) {
  if (handle == nullptr) return TSR_OK;
  HandleProblem problem;
  std::shared_ptr<S> object = Handles<S>().Remove(handle, &problem);
  if (object == nullptr) return Fail(TSR_INVALID_ARGUMENT, HandleError(call, HandleKind<S>::kName, problem));
  object.reset();  // outside the table's lock: a run context waits for its run in flight
  return TSR_OK;
}

}  // namespace tessera::app::c_api

#endif  // TESSERA_FRAMEWORK_APP_C_API_INTERNAL_H_
