// `tessera bench`: load, partition, compile and prepare a model once, then
// time repeated runs after a warm-up. Each timed run is one Executor::Run
// (inputs copied in, every dispatch step invoked, outputs copied out): what
// an application pays per inference. The peer for comparisons is
// bench/ort_bench.js (ONNX Runtime), which prints the same JSON fields.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <numeric>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/json_writer.h"
#include "base/status_macros.h"
#include "base/terminal_text.h"
#include "cli/cli_environment.h"
#include "cli/commands.h"
#include "cli/shorthand_flags.h"
#include "cli/concurrent_runs.h"
#include "compile/compile_driver.h"
#include "model_executor.h"
#include "io/tensor_proto.h"
#include "tessera/ops.h"

namespace tessera::cli {
namespace {

constexpr char kUsage[] =
    "tessera bench MODEL [--accelerators LIST] [--reps N] [--warmup N] [--threads N] [--concurrency N]\n"
    "                    [--inputs DIR | --seed N] [--json]\n"
    "                    [--mode aot|jit] [--soc NAME|FILE] [--option KEY=VALUE]... [--kernels reference|fast]\n"
    "                    [--policy cost|greedy|cpu] [--min-ops N] [--max-partitions N] [--strict]\n"
    "                    [--cache-dir DIR [--cache-max-bytes N]] [--plugin-dir DIR]...\n"
    "                    [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]... [--no-optimize] [--max-folded-bytes N] [--budget NAME=VALUE]...";

struct BenchSettings {
  int reps = 100;
  int warmup = 10;
  int threads = 1;
  int concurrency = 1;  // threads running the model at once, each with its own context
};

absl::StatusOr<BenchSettings> SettingsFrom(const Args& args) {
  BenchSettings s;
  auto read = [&](const char* flag, int min_value, int max_value, int& out) -> absl::Status {
    if (auto text = args.Value(flag)) {
      if (!absl::SimpleAtoi(*text, &out) || out < min_value || out > max_value)
        return absl::InvalidArgumentError(
            absl::StrCat("--", flag, " must be an integer in [", min_value, ", ", max_value, "], not '", *text, "'"));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(read("reps", 1, 10000000, s.reps));
  RETURN_IF_ERROR(read("warmup", 0, 10000000, s.warmup));
  RETURN_IF_ERROR(read("threads", 1, 1024, s.threads));
  RETURN_IF_ERROR(read("concurrency", 1, 256, s.concurrency));
  RETURN_IF_ERROR(SeedFrom(args).status());  // read again by InputsFrom
  return s;
}

double Percentile(std::vector<double> sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

absl::Status Bench(const Args& args, const BenchSettings& settings) {
  using Clock = std::chrono::steady_clock;
  const std::string& path = args.positionals()[0];
  const Clock::time_point load_start = Clock::now();
  ASSIGN_OR_RETURN(Graph graph, LoadModel(args));
  ASSIGN_OR_RETURN(CompileOptions options, CompileOptionsFrom(args));
  AdoptCompiledSocUnlessGiven(args, graph, options);
  // Thread count of the cpu fast kernels (single-threaded by default);
  // an explicit --option cpu.threads=N wins.
  SetOptionUnlessGiven(options.plugin_options, OptionForFlag("threads"), std::to_string(settings.threads));
  const PluginRegistry registry = LoadPlugins(args, PluginUseFor(graph));
  const bool precompiled = IsCompiled(graph);
  ASSIGN_OR_RETURN(const CompileCacheOptions cache, CacheOptionsFrom(args));
  CompileCacheReport cache_report;
  ASSIGN_OR_RETURN(CompiledModel compiled, CompileUnlessCompiled(graph, registry, options, cache, &cache_report));
  // --strict: a benchmark of a plan that fell back measures the wrong thing.
  RETURN_IF_ERROR(CheckStrict(args, ReportOf(compiled, 0)));
  ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                   Executor::Create(compiled.graph, compiled.jit_slots, registry, {options.soc, options.plugin_options}));
  ASSIGN_OR_RETURN(const std::vector<HostTensor> inputs, InputsFrom(args, graph));
  const double prepare_ms = std::chrono::duration<double, std::milli>(Clock::now() - load_start).count();

  // One profiled run (not timed) to say where the steps went; its outputs
  // are the single-threaded answer every later run must equal.
  RunProfile profile;
  ASSIGN_OR_RETURN(const std::vector<HostTensor> want, executor->Run(inputs, &profile));
  std::vector<double> us;
  int mismatches = 0;
  double wall_us = 0;
  if (settings.concurrency == 1) {
    for (int i = 0; i < settings.warmup; ++i) RETURN_IF_ERROR(executor->Run(inputs).status());
    us.reserve(settings.reps);
    const Clock::time_point wall_start = Clock::now();
    for (int i = 0; i < settings.reps; ++i) {
      const Clock::time_point start = Clock::now();
      absl::StatusOr<std::vector<HostTensor>> out = executor->Run(inputs);
      const double elapsed = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
      if (!out.ok()) return out.status();
      us.push_back(elapsed);
      bool same = out->size() == want.size();
      for (size_t k = 0; same && k < out->size(); ++k) same = (*out)[k].data == want[k].data;
      mismatches += same ? 0 : 1;
    }
    wall_us = std::chrono::duration<double, std::micro>(Clock::now() - wall_start).count();
  } else {
    ASSIGN_OR_RETURN(ConcurrentRuns runs, RunConcurrently(executor->model(), inputs, want, settings.concurrency,
                                                          settings.warmup, settings.reps));
    us = std::move(runs.latency_us);
    mismatches = runs.mismatches;
    wall_us = runs.wall_us;
  }
  const double runs_per_second = wall_us > 0 ? static_cast<double>(us.size()) * 1e6 / wall_us : 0;

  std::vector<double> sorted = us;
  std::sort(sorted.begin(), sorted.end());
  const double min = sorted.front();
  const double median = Percentile(sorted, 0.5);
  const double mean = std::accumulate(us.begin(), us.end(), 0.0) / static_cast<double>(us.size());
  const double p90 = Percentile(sorted, 0.9);
  const std::string kernels = OptionValue(options.plugin_options, OptionForFlag("kernels")).value_or("fast");

  if (args.Has("json")) {
    JsonWriter j;
    j.BeginObject()
        .Field("model", path)
        .Field("precompiled", precompiled)
        .Field("cpu_kernels", kernels)
        .Field("threads", settings.threads)
        .Field("concurrency", settings.concurrency)
        .Field("runs_per_second", runs_per_second)
        .Field("outputs_match", mismatches == 0)
        .Field("reps", settings.reps)
        .Field("warmup", settings.warmup)
        .Field("latency_us_min", min)
        .Field("latency_us_median", median)
        .Field("latency_us_mean", mean)
        .Field("latency_us_p90", p90)
        .Field("prepare_ms", prepare_ms);
    if (!cache.directory.empty()) {
      j.Key("cache");
      WriteCompileCacheReportJson(cache_report, j);
    }
    j.Key("steps").BeginArray();
    for (const StepProfile& s : profile.steps) {
      j.BeginObject().Field("vendor", s.vendor).Field("entry_point", s.entry_point).Field("host_time_us", s.host_time_us);
      for (const auto& m : s.metrics) j.Field(m.name, m.value);
      j.EndObject();
    }
    j.EndArray();
    j.EndObject();
    std::cout << j.str() << "\n";
  } else {
    std::cout << "model: " << path << (precompiled ? " (precompiled)" : "") << "\n"
              << absl::StrFormat("prepared in %.1f ms (load, partition, compile, load_executable)\n", prepare_ms)
              << absl::StrFormat("%d runs after %d warm-up, %d thread(s), cpu kernels: %s\n", settings.reps,
                                 settings.warmup, settings.threads, kernels)
              << absl::StrFormat("concurrency %d: %.1f runs/s, outputs %s the single-threaded run's\n",
                                 settings.concurrency, runs_per_second,
                                 mismatches == 0 ? "all equal" : absl::StrCat(mismatches, " runs differ from"))
              << absl::StrFormat("latency_us_min     %12.1f\nlatency_us_median  %12.1f\nlatency_us_mean    %12.1f\n"
                                 "latency_us_p90     %12.1f\n",
                                 min, median, mean, p90);
    std::cout << "steps (one profiled run):\n";
    for (const StepProfile& s : profile.steps) {
      std::cout << absl::StrFormat("  %-14s %-22s %10.1f us", TerminalSafe(s.vendor), TerminalSafe(s.entry_point), s.host_time_us);
      for (const auto& m : s.metrics)  // as `tessera run` prints them: name=value unit
        std::cout << absl::StrFormat("  %s=%g%s%s", TerminalSafe(m.name), m.value, m.unit.empty() ? "" : " ", TerminalSafe(m.unit));
      std::cout << "\n";
    }
  }
  return absl::OkStatus();
}

}  // namespace

int BenchCommand(const Argv& argv) {
  FlagSpec spec;
  AddCompileFlags(spec);
  AddCacheFlags(spec);
  AddStrictFlag(spec);
  AddImportFlags(spec);
  spec.switches.insert("json");
  spec.values.insert({"reps", "warmup", "threads", "concurrency", "inputs", "seed"});
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok()) return UsageError(std::string(args.status().message()), kUsage);
  if (args->positionals().size() != 1) return UsageError("bench needs exactly one MODEL", kUsage);
  if (args->Has("inputs") && args->Has("seed")) return UsageError("--inputs and --seed exclude each other", kUsage);
  absl::StatusOr<BenchSettings> settings = SettingsFrom(*args);
  if (!settings.ok()) return UsageError(std::string(settings.status().message()), kUsage);
  if (absl::StatusOr<CompileOptions> o = CompileOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), kUsage);
  if (absl::StatusOr<onnx_import::ImportOptions> o = ImportOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), kUsage);
  if (absl::StatusOr<CompileCacheOptions> o = CacheOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), kUsage);
  absl::Status s = Bench(*args, *settings);
  return s.ok() ? 0 : Fail(s);
}

}  // namespace tessera::cli
