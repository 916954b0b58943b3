// CompiledModel: compiling a Model for the accelerators, and what the partitioner decided.
// Part of the app API: include "tessera/app/tessera_app.hpp".
#ifndef TESSERA_APP_COMPILED_MODEL_HPP_
#define TESSERA_APP_COMPILED_MODEL_HPP_

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

#include "tessera/app/environment.hpp"
#include "tessera/app/model.hpp"
#include "tessera/common.h"

namespace tessera::app {

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
  // Options this compile was given and did not apply, each with why:
  // accelerators (and the partitioning options) on a precompiled model,
  // whose partitions are fixed. Empty when every option was applied.
  const std::vector<std::string>& ignored_options() const;
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

}  // namespace tessera::app

#endif  // TESSERA_APP_COMPILED_MODEL_HPP_
