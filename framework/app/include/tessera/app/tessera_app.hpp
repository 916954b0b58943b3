// Tessera's app API in C++: load a model, pick accelerators, compile, run.
//
//   tessera::app::Environment env = *tessera::app::Environment::Create({});
//   tessera::app::Model model = *tessera::app::Model::Load("mobilenet.onnx");
//   tessera::app::CompileOptions options;
//   options.accelerators = {"npu", "cpu"};
//   tessera::app::CompiledModel compiled = *tessera::app::CompiledModel::Compile(env, model, options);
//   tessera::app::RunContext context = *tessera::app::RunContext::Create(compiled);
//   std::vector<tessera::app::Tensor> outputs = *context.Run(inputs);
//
// What may be shared between threads (docs/app-guide.md):
//   Environment, Model, CompiledModel  immutable once made: share them freely
//                                      (copies are cheap handles to one object).
//   RunContext                         may be shared: its calls run one at a
//                                      time (serialized, each run whole). For
//                                      runs in parallel, one per thread: many
//                                      RunContexts of one CompiledModel run at
//                                      the same time.
//   Tensor                             a value; Wrap()ped memory is the
//                                      caller's and must outlive its use.
//
// Nothing of abseil, flatbuffers or protobuf appears here. The status codes
// and dtypes are the plugin ABI's (tessera/common.h): one set of numbers
// across the whole SDK.
#ifndef TESSERA_APP_TESSERA_HPP_
#define TESSERA_APP_TESSERA_HPP_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tessera/common.h"

namespace tessera::app {

// ---- Status and results ---------------------------------------------------

class Status {
 public:
  Status() = default;  // OK
  Status(tsr_status code, std::string message) : code_(code), message_(std::move(message)) {}
  bool ok() const { return code_ == TSR_OK; }
  tsr_status code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  tsr_status code_ = TSR_OK;
  std::string message_;
};

// Reading the value of a Result that holds an error is a bug in the
// caller. The app API throws nothing (the C API sits on it, and apps may
// build without exceptions), so it ends the process the way absl's
// StatusOr does: the status's code and message on stderr, then abort(),
// rather than an exception whose what() says nothing of the cause.
[[noreturn]] inline void DieOnErrorResult(const Status& status) {
  std::fprintf(stderr, "tessera::app::Result: value read from an error Result (code %d): %s\n",
               static_cast<int>(status.code()), status.message().c_str());
  std::fflush(stderr);
  std::abort();
}

// A value or the Status that explains why there is none. value(), * and ->
// on an error Result abort with its status (DieOnErrorResult): check ok()
// first where an error is expected.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & {
    if (T* v = std::get_if<T>(&v_)) return *v;
    DieOnErrorResult(std::get<Status>(v_));
  }
  const T& value() const& {
    if (const T* v = std::get_if<T>(&v_)) return *v;
    DieOnErrorResult(std::get<Status>(v_));
  }
  T&& value() && {
    if (T* v = std::get_if<T>(&v_)) return std::move(*v);
    DieOnErrorResult(std::get<Status>(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

// ---- Environment ----------------------------------------------------------

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

struct EnvironmentOptions {
  // Searched in order, before the bundled directory. Absolute paths.
  std::vector<std::string> plugin_directories;
  // The SDK's own plugins; "" = <directory of the running executable>/../lib.
  std::string bundled_plugin_directory;
  // Where SoC description files (NAME.soc) are found; "" = <exe>/../share/tessera/socs.
  std::string soc_directory;
  // TESSERA_PLUGIN_PATH and TESSERA_PLUGIN_FILTER are honoured unless false.
  bool read_environment = true;
  // Plugin log lines at or above `log_level` go to `log_sink` (vendor,
  // level, text), or to stderr when it is empty. Process-wide: the newest
  // Environment's sink receives every plugin's lines.
  LogLevel log_level = LogLevel::kWarning;
  std::function<void(const std::string& vendor, LogLevel level, const std::string& text)> log_sink;
  // Load each library in a child process first (`tessera plugins --probe`),
  // so one that crashes as it loads is skipped with a reason instead of
  // taking the process down. Costs a fork per library.
  bool probe_in_child = false;
};

struct PluginInfo {
  std::string vendor;
  std::string role;  // "compiler" or "dispatch"
  std::string path;
  std::string short_name;                  // e.g. "npu"; "" when the plugin declares none
  int priority = 0;                        // tsr_compiler_plugin_info.default_priority (compilers)
  std::string abi_version;                 // negotiated, e.g. "1.2"
  std::string version;                     // the plugin's own (plugin_version / library_version)
  std::vector<std::string> compile_modes;  // compilers: "aot", "jit"
  std::vector<std::string> capabilities;   // dispatch: "bytecode", "jit_handle"
  std::vector<std::string> soc_models;     // declared; empty = any
};

struct SkippedPlugin {
  std::string path;
  std::string role;  // "compiler", "dispatch" or "" when not known
  std::string reason;
};

// A directory the plugin search looked in, and why (origin: "--plugin-dir",
// "TESSERA_PLUGIN_PATH", "bundled", ...; note: what was found or ignored).
struct PluginDirectory {
  std::string path, origin, note;
};

class Environment {
 public:
  static Result<Environment> Create(const EnvironmentOptions& options);

  std::vector<PluginInfo> plugins() const;
  std::vector<SkippedPlugin> skipped_plugins() const;
  std::vector<PluginDirectory> plugin_directories() const;
  // The SoC names found in the SoC directory.
  std::vector<std::string> soc_names() const;

  // The implementation behind the handle (an incomplete type to apps).
  struct Impl;
  const std::shared_ptr<const Impl>& impl() const { return impl_; }
  explicit Environment(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

// ---- Models ---------------------------------------------------------------

struct TensorInfo {
  std::string name;
  tsr_dtype dtype = TSR_DTYPE_F32;
  std::vector<int64_t> shape;
  size_t byte_size() const;
};

// Inputs and outputs by name, beside positions: the index of `name` in
// `tensors` (Model::inputs(), CompiledModel::outputs(), ...), or
// TSR_NOT_FOUND listing the names there are.
Result<size_t> IndexByName(const std::vector<TensorInfo>& tensors, const std::string& name);

// ---- Tensors --------------------------------------------------------------

// What a dispatch library declared for an executable's arithmetic.
struct Numerics {
  std::string vendor;
  std::string precision;  // "fp32", "fp16", "bf16", "int8", ...
  double rtol = 0, atol = 0;
  std::string description;
  bool declared = false;       // false: the library said nothing (exact assumed)
  bool reduced = false;        // below f32: the tolerance is what to compare with
  int32_t precision_code = 0;  // the same as a tsr_precision value
};

class RunContext;
struct TensorAccess;

// Host memory holding one tensor: owned (Allocate) or the caller's (Wrap).
class Tensor {
 public:
  static Tensor Allocate(TensorInfo info);  // zero-filled
  // The caller's memory, at least info.byte_size() bytes; it must outlive
  // every use of the Tensor and its copies.
  static Result<Tensor> Wrap(TensorInfo info, void* data, size_t size);

  const TensorInfo& info() const { return info_; }
  void* data() { return data_; }
  const void* data() const { return data_; }
  size_t size() const { return size_; }
  template <typename T>
  T* as() {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* as() const {
    return static_cast<const T*>(data_);
  }

 private:
  friend struct TensorAccess;  // the library's own: hands run outputs over without a copy
  Tensor(TensorInfo info, std::shared_ptr<std::vector<uint8_t>> owned, void* data, size_t size)
      : info_(std::move(info)), owned_(std::move(owned)), data_(data), size_(size) {}
  TensorInfo info_;
  std::shared_ptr<std::vector<uint8_t>> owned_;  // null when wrapped
  void* data_ = nullptr;
  size_t size_ = 0;
};

enum class ModelFormat { kDetect, kTsr, kOnnx };

// How much of a .tsr file a load checks (docs/model_format.md section 4).
// kStructure: the tables' CRC, every range and each bytecode envelope's
// layout; no weight page is read, so loading does not grow with the
// weights. kFull: also the CRC of every weight and bytecode byte (an edited
// or bit-rotted weight is TSR_DATA_LOSS). ONNX models ignore it.
enum class VerifyLevel { kStructure, kFull };

struct LoadOptions {
  ModelFormat format = ModelFormat::kDetect;  // kDetect: by content
  // ONNX models with symbolic dimensions: the concrete shape per input name.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Resource budgets over the defaults, by name: "max_model_bytes",
  // "max_tensor_count", "max_tensor_bytes", "max_activation_bytes",
  // "max_op_count", "max_partition_count" (read when the model is
  // compiled), "max_bytecode_bytes", "max_device_memory_bytes" (read when
  // the compiled model is loaded on its devices; docs/reliability.md
  // section 2 lists the defaults). An unknown name fails the load.
  std::map<std::string, uint64_t> budgets;
  // ONNX only. Inputs whose value is fixed here (by name: values converted
  // to the input's dtype) become constants before any node is converted,
  // so what depends on them folds (an If on a sample rate) and they leave
  // the model's inputs (`--freeze-input NAME=V,...`).
  std::map<std::string, std::vector<double>> frozen_inputs;
  // ONNX only: shapes by position among the graph inputs, for dynamic
  // dimensions (an empty shape keeps that input as declared); a named
  // input_shapes entry wins.
  std::vector<std::vector<int64_t>> positional_input_shapes;
  // ONNX only: run the import optimizations (docs/onnx_import.md); false
  // keeps the graph as the converters write it (constant folding still runs).
  bool optimize = true;
  // ONNX only: the largest constant the importer may fold (bytes); -1 = the
  // default.
  int64_t max_folded_bytes = -1;
  // ONNX only: asked for shapes by position when the model still has
  // dynamic inputs after input_shapes (e.g. read from the files the inputs
  // will come from: `run --inputs DIR`). Not called otherwise.
  std::function<Result<std::vector<std::vector<int64_t>>>()> dynamic_input_shapes;
  // ONNX only: values by position that the importer may freeze into
  // constants where the graph needs them as constant operands (a Reshape's
  // shape, Slice starts, an If condition): the model is then specialized to
  // them and those inputs leave it (ModelSummary metadata
  // "onnx.frozen_inputs" lists their positions). ONNX's backend tests need
  // this; an app rarely does. Each gives its shape too.
  std::vector<Tensor> positional_input_values;
  // .tsr only: how much of the file to check (`--verify structure|full`).
  VerifyLevel verify = VerifyLevel::kStructure;
};

class Model {
 public:
  static Result<Model> Load(const std::string& path, const LoadOptions& options = {});
  // `bytes` is copied.
  static Result<Model> FromMemory(const void* bytes, size_t size, const LoadOptions& options = {});

  // True for a model whose every op is already compiled (an AOT .tsr): it
  // runs with dispatch libraries only.
  bool is_compiled() const;
  // A compiled model's SoC: the one its SoC-specific bytecode names ("" when
  // none does, they disagree, or the model is not compiled). Compiling it
  // with CompileOptions::soc "" runs it for this SoC.
  std::string compiled_soc() const;
  std::vector<TensorInfo> inputs() const;
  std::vector<TensorInfo> outputs() const;
  // How long Load / FromMemory took (reading, importing, verifying), ms.
  double load_ms() const;
  // The import optimizations that ran (ONNX; empty for a .tsr), in order.
  struct OptimizationPass {
    std::string pass;
    int64_t changed = 0, ops_removed = 0;
  };
  const std::vector<OptimizationPass>& optimizations() const;
  // Writes the model as a .tsr (an imported ONNX model, as `tessera
  // import` does): atomically, never through a symlink.
  Status Save(const std::string& path) const;

  // The implementation behind the handle (an incomplete type to apps).
  struct Impl;
  const std::shared_ptr<const Impl>& impl() const { return impl_; }
  explicit Model(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

// ---- Compiling ------------------------------------------------------------

enum class CompileMode { kAot, kJit };

struct CompileOptions {
  // In priority order, by vendor or short name ("npu", "systolic_npu");
  // empty = every loaded compiler, by declared priority. The fallback (cpu)
  // is always added last.
  std::vector<std::string> accelerators;
  CompileMode mode = CompileMode::kAot;
  // A SoC name from Environment::soc_names(), or a path to a .soc file;
  // "" = the plugins' defaults, or for a compiled model the SoC it was
  // compiled for. A compiled model whose bytecode names another SoC than
  // this one is refused, with what to do.
  std::string soc;
  // Vendor options, "vendor.key" = "value" (docs/cli.md lists them).
  std::vector<std::pair<std::string, std::string>> plugin_options;
  // Partitioning (docs/partitioning.md): "cost" keeps an accelerator
  // partition only when the SoC's cost model says it pays; "greedy" gives
  // every op to the first accelerator that claims it; "cpu" runs all on
  // the fallback.
  std::string policy = "cost";
  int32_t min_ops = 0;         // accelerator partitions need at least this many ops (0 = any)
  int32_t max_partitions = 0;  // at most this many partitions (0 = no limit)
  // Post-training quantization before partitioning (docs/quantization.md):
  // "int8" calibrates on calibration_dir's input sets and rewrites the
  // FP32 model to INT8, then measures the compiled result against it; ""
  // compiles the model as it is.
  std::string quantize;
  std::string calibration_dir;
  // The precision policy (docs/partitioning.md, "Precision policy"): what
  // the app allows accelerators to give up. "fp32" (the default) keeps FP32
  // accuracy: an accelerator that would compute an op's float math in FP16
  // or INT8 is not offered it. "allow-fp16" offers FP16 where the op's
  // range is proven to fit FP16 on calibration data (calibration_dir's
  // input sets and range_samples; none given = nothing proven, nothing
  // offered). "allow-int8" also offers accelerators that quantize float
  // math themselves. A quantized model keeps its own INT8 under any value.
  std::string precision = "fp32";
  // Input sets (each in the model's input order) whose computed ranges
  // prove FP16 safe, beside calibration_dir's; read only when precision
  // is not "fp32".
  std::vector<std::vector<Tensor>> range_samples;
  // false: compile only, for Save or the report (a build machine needs no
  // dispatch library then); RunContext::Create refuses such a model.
  bool prepare_to_run = true;
  // The compile cache (docs/compile_cache.md): a directory of AOT-compiled
  // entries, keyed by the model, the plugins' builds, the SoC and these
  // options. "" = no cache. Ignored (one warning, the directory untouched)
  // for JIT, whose results live in process memory only. A precompiled
  // model never needs it.
  std::string cache_dir;
  // The cache's size cap in bytes; least-recently-used entries are evicted
  // beyond it. 0 = the default, 1 GiB.
  uint64_t cache_max_bytes = 0;
  // Resilience (docs/resilience.md). A transient failure or an overrun is
  // tried again up to `max_retries` times on its device; then, and at once
  // for a lost device or a corrupt result, the partition's cpu plan runs
  // instead when `fallback` is on (the compile prepares one per
  // accelerated partition; a precompiled model has none). A lost device's
  // partitions stay on their cpu plans for every later run.
  int32_t max_retries = 2;
  bool fallback = true;
  // Per accelerator invoke, in milliseconds (0 = none; cpu steps and cpu
  // plans are never abandoned). A synchronous invoke cannot be
  // interrupted: one that returns after its deadline has its outputs
  // discarded and is handled like a failure.
  uint32_t deadline_ms = 0;
  // JIT only, no cold-start trap: Compile returns once a cpu-only plan is
  // ready, and the JIT compile for `accelerators` proceeds on a worker
  // thread. Runs use the cpu plan until the accelerated one is ready, then
  // switch between two runs, never within one. Runs of every RunContext of
  // the model are serialized. Ignored for a precompiled model.
  bool background_warmup = false;
  // An AOT compile compiles each accelerator the way it can: a JIT-only
  // one (mock_dsp) gets JIT handles beside the others' bytecode, so the
  // result runs here but cannot be saved. true leaves that accelerator's
  // partitions in the model as plain ops instead (Save() then writes them,
  // and whoever loads the file JIT-compiles them); `tessera compile` sets it.
  // A compile that left ops is not prepared to run (as prepare_to_run =
  // false): Save() it, load the file and compile that to run it.
  bool leave_jit_only_ops = false;
};

// What the compile cache did for one Compile.
struct CompileCacheInfo {
  bool enabled = false;         // a cache_dir was given and used
  std::string disabled_reason;  // why a given cache_dir was not used (JIT)
  std::string key;              // the entry's key (64 hex digits)
  bool hit = false;             // the compiled model came from the cache
  uint64_t hits = 0, misses = 0, invalidations = 0, evictions = 0;
  std::string directory;  // the cache_dir given ("" = none)
  uint64_t stores = 0;    // entries written by this Compile
};

// How one vendor's dispatch library judged the model's compiled bytecode
// when it loaded (check_compatibility, ABI 1.2; docs/model_format.md,
// BuildStamp). An "unsupported" blob refuses the model, so it never
// appears here.
struct BytecodeCompatibility {
  std::string vendor;
  std::string soc;       // the blob's SoC model
  std::string verdict;   // "optimal", "prefer_recompile", or "unknown" (a library without the check)
  bool stamped = false;  // the model's build stamp supplied the compatibility string
  std::string message;   // prefer_recompile: the warning; unknown: why there is no verdict
};

struct PartitionReport {
  struct Partition {
    std::string vendor;
    std::vector<uint32_t> op_ids;
    std::vector<std::string> op_types;
    uint64_t input_bytes = 0, output_bytes = 0;
    std::string mode;  // "aot" or "jit": how its accelerator compiled it
    // What its float math runs in ("fp32", "fp16", "int8") and why (what
    // allowed less, or which accelerator's reduced precision was kept out).
    std::string precision, precision_why;
  };
  struct Cut {
    std::string tensor;
    uint64_t bytes = 0;
    std::string from_vendor, to_vendor;
  };
  struct Refusal {
    std::string vendor, reason, detail;
  };
  struct Fallback {  // an op a higher-priority accelerator refused
    uint32_t op_id = 0;
    std::string op_type, vendor;
    std::vector<Refusal> refused_by;
  };
  struct FallbackGroup {  // the fallbacks of one op type to one vendor, with their reasons
    std::string op_type, vendor, reasons;
    std::vector<uint32_t> op_ids;
  };
  struct CompileFallback {  // ops a plugin gave up at compile time
    std::string vendor, reason;
    std::vector<uint32_t> op_ids;
  };
  std::vector<std::string> accelerators;  // as used, in priority order
  std::string mode;                       // "aot" or "jit"
  std::string soc;
  size_t op_count = 0;
  std::vector<Partition> partitions;
  std::vector<Cut> cuts;
  std::vector<Fallback> fallbacks;
  std::vector<FallbackGroup> fallback_groups;
  std::vector<CompileFallback> compile_fallbacks;
  uint64_t cut_bytes = 0;
  std::string precision;  // CompileOptions::precision the plan was made under
  // The cost model's view of the plan (machine-independent microseconds).
  std::string policy;
  double modeled_latency_us = 0;
  double modeled_latency_us_cpu_only = -1;  // -1: no baseline
  std::string chosen;                       // which candidate plan the policy kept
  double modeled_latency_us_greedy = -1;
  double transfer_us = 0;
  size_t conversion_count = 0;
  double compute_us = 0, dispatch_us = 0;
  std::vector<std::string> cost_notes;  // defaults the cost model had to assume
  // Where the time went (ms); load_ms is the Model's.
  double load_ms = -1, claims_ms = 0, partition_ms = 0, compile_ms = 0;
  // Ops not where the first-choice accelerator would put them (refusals,
  // cost decisions, compile failures): what `--strict` counts.
  size_t fallback_op_count() const;
};

class CompiledModel {
 public:
  // Compiles `model`, or takes an already compiled one as it is (then no
  // compiler library is opened).
  static Result<CompiledModel> Compile(const Environment& environment, const Model& model,
                                       const CompileOptions& options = {});

  std::vector<TensorInfo> inputs() const;
  std::vector<TensorInfo> outputs() const;
  bool was_precompiled() const;
  // Empty partitions for a precompiled model (nothing was partitioned here).
  // background_warmup: empty while runs use the cpu plan; once they use the
  // accelerated plan (accelerated()), that plan's report, fallbacks included.
  const PartitionReport& partition_report() const;
  // The same report as `tessera partition` prints it: one JSON object
  // (`--json`), or text for people. Empty for a precompiled model (and a
  // warm-up's cpu plan, as above).
  std::string partition_report_json() const;
  std::string partition_report_text() const;
  // The plan as a picture (docs/partitioning.md §7): Graphviz dot, or one
  // self-contained HTML page. FAILED_PRECONDITION for a precompiled model.
  enum class PictureFormat { kDot, kHtml };
  Result<std::string> partition_picture(PictureFormat format) const;
  // With CompileOptions::quantize: the calibration and accuracy report,
  // as JSON (one object) or text; empty otherwise.
  std::string quantization_report_json() const;
  std::string quantization_report_text() const;
  // How closely output `index` can be compared with an exact answer: the
  // caller's own tolerance, widened by what the dispatch libraries declared
  // for every reduced-precision partition the output depends on.
  struct OutputTolerance {
    double rtol = 0, atol = 0;
    std::vector<Numerics> reduced_by;  // empty: the caller's own
    std::string description;           // "" or "systolic_npu ran FP16: declared rtol ..., atol ..."
    int64_t depth = 0;                 // ops on the output's longest path (a partition counts all its ops)
  };
  OutputTolerance output_tolerance(size_t index, double own_rtol, double own_atol) const;
  // Output `index` against a reference answer, by the one judge that
  // onnx-test and run's checks use (docs/conformance.md, "The judge"):
  // the runner's own tolerance, widened by capped declarations and by an
  // allowance that grows with depth; reduced precision must also keep
  // 40 dB SNR. InvalidArgument when dtype or shape differ.
  struct OutputCheck {
    std::string failure;         // "" when it passed
    double max_abs_error = 0;    // infinity when a NaN or an infinity disagrees
    double rtol = 0, atol = 0;   // element-wise, after the caps
    double depth_allowance = 0;  // relative to the output's largest |expected|
    bool capped = false;         // a declaration was cut to its precision's cap
    OutputTolerance tolerance;
    bool passed() const { return failure.empty(); }
  };
  Result<OutputCheck> check_output(size_t index, const Tensor& actual, const Tensor& expected) const;
  // The cpu plans prepared for the accelerated partitions (CompileOptions::
  // fallback; docs/resilience.md), and why a partition has none.
  size_t cpu_plan_count() const;
  const std::vector<std::string>& cpu_plan_notes() const;
  // Partitions of JIT-only accelerators that this AOT compile left in the
  // model as plain ops (CompileOptions::leave_jit_only_ops), as the build
  // stamp records them: vendor and source op ids. Empty otherwise.
  struct OpsLeftForJit {
    std::string vendor;
    std::vector<uint32_t> op_ids;
  };
  std::vector<OpsLeftForJit> ops_left_for_jit() const;
  const CompileCacheInfo& cache_info() const;
  // One per AOT bytecode blob, once the model is prepared to run (empty
  // for JIT, and without prepare_to_run). A "prefer_recompile" verdict is
  // also logged once, as a warning, through EnvironmentOptions::log_sink.
  const std::vector<BytecodeCompatibility>& compatibility() const;
  // The same as the `cache` object of `run --json` / `compile --json`
  // (docs/compile_cache.md); "" when no cache_dir was given.
  std::string cache_info_json() const;
  // background_warmup: true once runs use the accelerated plan (always
  // true without background warm-up).
  bool accelerated() const;
  // background_warmup: blocks until the background compile has finished;
  // OK when runs now use the accelerated plan, else why they stay on the
  // cpu plan. OK at once without background warm-up.
  Status WaitForAccelerated() const;
  // AOT only: the compiled model as a .tsr that runs with dispatch
  // libraries alone. JIT results live only in this process.
  Status Save(const std::string& path) const;

  // The implementation behind the handle (an incomplete type to apps).
  struct Impl;
  const std::shared_ptr<const Impl>& impl() const { return impl_; }
  explicit CompiledModel(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

// ---- Running --------------------------------------------------------------

struct RunProfile {
  struct Metric {
    std::string name;
    double value = 0;
    std::string unit;
  };
  using Numerics = app::Numerics;
  struct Step {
    std::string vendor, entry_point;
    std::vector<uint32_t> source_op_ids;
    double host_time_us = 0;
    std::vector<Metric> metrics;  // the dispatch library's own
    uint32_t op_id = 0;           // the DISPATCH op in the compiled model
    Numerics numerics;
    double start_us = 0;  // when its invoke began, from the start of the run
    std::string mode;     // "aot" (from bytecode) or "jit" (an in-memory handle)
  };
  struct Conversion {
    std::string tensor, to_vendor;
    int32_t from_type = 0, to_type = 0;  // tsr_buffer_type
    uint64_t bytes = 0;
    double host_time_us = 0;
    std::string from_name, to_name;  // "host", "dsp_tcm" (the owning library's name), ...
    double start_us = 0;             // when the copy began, from the start of the run
    // "copy" (other memory), "layout" (same memory, other layout) or
    // "copy+layout"; the layouts ("dense", "strided(row 128 B)", "nhwc");
    // who converted: "host" or "convert_buffer" (the owning library).
    std::string kind, from_layout, to_layout, via;
  };
  // The run as the cost model prices it (docs/partitioning.md §6), beside
  // the partitioner's estimate; only for a model compiled in this process.
  struct ModeledLatency {
    bool available = false;
    double estimated_us = 0;
    double device_us = 0, dispatch_us = 0, transfer_us = 0;
    double measured_us() const { return device_us + dispatch_us + transfer_us; }
    size_t steps = 0, steps_with_device_time = 0;
  };
  // A step that did not succeed at its first attempt (docs/resilience.md).
  struct Fallback {
    size_t partition = 0;  // index of the step
    uint32_t op_id = 0;
    std::string from, to;  // to == from: a retry succeeded; "cpu": the cpu plan ran
    std::string failure;   // "transient", "device_lost", "deadline_exceeded", "corrupt", "permanent"
    std::string reason;
    int32_t attempts = 0;  // invokes tried on `from` (0: lost in an earlier run)
  };
  double total_us = 0;
  std::vector<Step> steps;
  std::vector<Conversion> conversions;
  ModeledLatency modeled;
  std::vector<Fallback> fallbacks;
  // CompileOptions::background_warmup: the plan this run used, "cpu" or
  // "accelerated" (the switch happens between runs); "" otherwise.
  std::string warmup_plan;
  // Bytes copied between the app's buffers and the run context's own: all
  // inputs and outputs for Run/RunInto; for RunBound only the bindings
  // that are copied (0 on a zero-copy path).
  uint64_t io_copy_bytes = 0;
  // NaN and infinity (docs/app-guide.md, "Non-finite outputs"): each output
  // that holds one, with how many, and whether every float input was
  // finite (then the model or an accelerator made them: FP16 overflow, a
  // log of 0). Filled by Run, RunInto and RunAsync; RunBound does not read
  // the app's bound buffers (nonfinite_checked stays false).
  struct NonFinite {
    size_t output = 0;  // index into CompiledModel::outputs()
    std::string name;
    uint64_t nan_count = 0, inf_count = 0;
  };
  std::vector<NonFinite> nonfinite_outputs;
  bool inputs_finite = true;
  bool nonfinite_checked = false;
  // True when an output holds a NaN or infinity although every input was finite.
  bool nonfinite_from_finite_inputs() const { return nonfinite_checked && inputs_finite && !nonfinite_outputs.empty(); }
};

// The app's own memory for one model input or output, by buffer type
// (RunContext::Bind): host memory by address (TSR_BUFFER_TYPE_HOST), or a
// dma-buf by fd and offset (TSR_BUFFER_TYPE_DMABUF). Borrowed until
// unbound, rebound, or the run context is destroyed; the fd stays the
// app's (the runtime maps it, and the libraries dup what they keep).
struct AppBuffer {
  int32_t buffer_type = TSR_BUFFER_TYPE_HOST;
  void* host_address = nullptr;
  int32_t fd = -1;
  uint64_t offset = 0;
  size_t size = 0;  // at least the tensor's byte_size
};
enum class IoKind { kInput = 0, kOutput = 1 };
// kZeroCopy: every partition that reads (writes) the tensor uses the app's
// buffer in place. kCopied: one cannot (a type it does not accept, an
// alignment it needs), so each run copies, as RunInto does.
enum class BindingMode { kZeroCopy = 0, kCopied = 1 };

// A way of running a CompiledModel: its own buffers and invocations.
// Thread-safe as ONNX Runtime's Session::Run is safe: calls from several
// threads on one context are serialized (each run complete, its outputs
// its caller's); for runs in parallel give each thread its own context
// (they share the model's loaded executables).
class RunContext {
 public:
  static Result<RunContext> Create(const CompiledModel& model);
  ~RunContext();  // waits for an asynchronous run in flight (RunAsync), then goes
  RunContext(RunContext&&) noexcept;
  RunContext& operator=(RunContext&&) noexcept;

  // Inputs in the order of CompiledModel::inputs(); dtypes and shapes must
  // match exactly. Returns owned output tensors (allocated per run).
  Result<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs, RunProfile* profile = nullptr);
  // The same run into the caller's output tensors (Allocate()d or Wrap()ped
  // once, in the order of CompiledModel::outputs(), dtypes and shapes
  // exactly the model's), which receive the results. Tensors kept across
  // runs make a steady-state run with profile == nullptr allocate nothing
  // in Tessera (docs/app-guide.md).
  Status RunInto(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, RunProfile* profile = nullptr);
  // The same run, started on this context's worker thread: returns once it
  // is under way (or with the error of a bad tensor). The run shares the
  // ownership of Allocate()d inputs and outputs until it ends, so the app
  // may drop its tensors (or the vector) at once; Wrap()ped memory stays
  // the app's and must outlive the run. `profile` is filled by Wait (the
  // worker writes its own), so it need only live until Wait. Destroying
  // the context waits for a run in flight (it is not cancelled); one run
  // at a time per context (Run, RunInto and RunAsync fail with
  // TSR_FAILED_PRECONDITION until Wait collected it). Works over any
  // dispatch libraries; steps of libraries with the async table overlap
  // inside every run anyway (docs/app-guide.md).
  Status RunAsync(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, RunProfile* profile = nullptr);
  // The status of the run RunAsync started, once it ended; the context is
  // then free for the next run. TSR_DEADLINE_EXCEEDED when it did not end
  // within timeout_ns (it goes on: wait again); UINT64_MAX waits for ever.
  // TSR_FAILED_PRECONDITION when no run was started.
  Status Wait(uint64_t timeout_ns = UINT64_MAX);

  // App buffers by type (docs/app-guide.md, "Your own buffers"): bind each
  // input and output once, then RunBound per frame. Binding again swaps
  // the buffer (the libraries' invocations are re-attached, nothing is
  // re-created). While anything is bound, Run/RunInto refuse: they would
  // write into the bound memory. Not with CompileOptions::background_warmup
  // (two plans, one set of bindings).
  Result<BindingMode> Bind(IoKind kind, size_t index, const AppBuffer& buffer);
  Status Unbind(IoKind kind, size_t index);
  Status RunBound(RunProfile* profile = nullptr);

  struct Impl;  // an incomplete type to apps
  explicit RunContext(std::unique_ptr<Impl> impl);

 private:
  friend struct RunContextAccess;  // the library's own: tsr_app_run runs on raw pointers
  Status SetViews(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::app

#endif  // TESSERA_APP_TESSERA_HPP_
