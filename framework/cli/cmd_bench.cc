// `tessera bench`: load, partition, compile and prepare a model once, then
// time repeated runs after a warm-up. Each timed run is one app::RunContext::Run
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
#include "framework/core/base/json_writer.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/base/terminal_text.h"
#include "framework/cli/app_flags.h"
#include "framework/cli/cache_flags.h"
#include "framework/cli/cli_environment.h"
#include "framework/cli/commands.h"
#include "framework/cli/concurrent_runs.h"
#include "framework/cli/resilience_flags.h"
#include "framework/cli/shorthand_flags.h"
#include "tessera/app/tessera_app.hpp"

namespace tessera::cli {
namespace {

constexpr char kUsage[] =
    "tessera bench MODEL [--accelerators LIST] [--reps N] [--warmup N] [--threads N] [--concurrency N]\n"
    "                    [--inputs DIR | --seed N] [--json]\n"
    "                    [--mode aot|jit] [--soc NAME|FILE] [--option KEY=VALUE]... [--kernels reference|fast]\n"
    "                    [--policy cost|greedy|cpu] [--min-ops N] [--max-partitions N] [--strict]\n"
    "                    [--precision fp32|allow-fp16|allow-int8 [--calibration DIR]]\n"
    "                    [--plugin-dir DIR]... [--deadline-ms N] [--max-retries N] [--no-fallback]\n"
    "                    [--cache-dir DIR [--cache-max-bytes N]]\n"
    "                    [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]... [--no-optimize] [--max-folded-bytes N] [--budget NAME=VALUE]...\n"
    "                    [--verify structure|full]";

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
  ASSIGN_OR_RETURN(const app::Environment env, EnvironmentFrom(args));
  ASSIGN_OR_RETURN(const app::Model model, LoadAppModel(args));
  ASSIGN_OR_RETURN(app::CompileOptions options, AppCompileOptionsFrom(args));
  LeaveSocToCompiledModel(args, model, options);
  // Thread count of the cpu fast kernels (single-threaded by default);
  // an explicit --option cpu.threads=N wins.
  SetOptionUnlessGiven(options.plugin_options, OptionForFlag("threads"), std::to_string(settings.threads));
  // Under allow-fp16/allow-int8 the inputs it measures with prove the FP16 ranges.
  if (options.precision != "fp32" && !model.is_compiled()) {
    ASSIGN_OR_RETURN(std::vector<app::Tensor> own, AppInputsFrom(args, model.inputs()));
    options.range_samples.push_back(std::move(own));
  }
  ASSIGN_OR_RETURN(const app::CompiledModel compiled, ToAbsl(app::CompiledModel::Compile(env, model, options)));
  const bool precompiled = compiled.was_precompiled();
  // --strict: a benchmark of a plan that fell back measures the wrong thing.
  RETURN_IF_ERROR(CheckStrict(args, compiled.partition_report()));
  ASSIGN_OR_RETURN(const std::vector<app::Tensor> inputs, AppInputsFrom(args, compiled.inputs()));
  ASSIGN_OR_RETURN(app::RunContext context, ToAbsl(app::RunContext::Create(compiled)));
  const double prepare_ms = std::chrono::duration<double, std::milli>(Clock::now() - load_start).count();

  // One profiled run (not timed) to say where the steps went; its outputs
  // are the single-threaded answer every later run must equal.
  app::RunProfile profile;
  ASSIGN_OR_RETURN(const std::vector<app::Tensor> want, ToAbsl(context.Run(inputs, &profile)));
  ASSIGN_OR_RETURN(ConcurrentRuns runs, RunConcurrently(compiled, inputs, want, settings.concurrency, settings.warmup,
                                                        settings.reps));
  const std::vector<double>& us = runs.latency_us;
  const double runs_per_second = runs.wall_us > 0 ? static_cast<double>(us.size()) * 1e6 / runs.wall_us : 0;
  const int mismatches = runs.mismatches;

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
        .Field("precision", options.precision)
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
        .Field("prepare_ms", prepare_ms)
        .Field("fallbacks_in_profiled_run", static_cast<uint64_t>(profile.fallbacks.size()));
    if (const std::string cache = compiled.cache_info_json(); !cache.empty()) j.Key("cache").Raw(cache);
    j.Key("steps").BeginArray();
    for (const app::RunProfile::Step& s : profile.steps) {
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
    if (!profile.fallbacks.empty())
      std::cout << profile.fallbacks.size() << " step(s) of the profiled run retried or ran a cpu plan (`tessera run` says why)\n";
    std::cout << "steps (one profiled run):\n";
    for (const app::RunProfile::Step& s : profile.steps) {
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
  AddStrictFlag(spec);
  AddImportFlags(spec);
  AddResilienceFlags(spec);
  AddCacheFlags(spec);
  AddVerifyFlag(spec);
  spec.switches.insert("json");
  spec.values.insert({"reps", "warmup", "threads", "concurrency", "inputs", "seed"});
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok()) return UsageError(std::string(args.status().message()), kUsage);
  if (args->positionals().size() != 1) return UsageError("bench needs exactly one MODEL", kUsage);
  if (args->Has("inputs") && args->Has("seed")) return UsageError("--inputs and --seed exclude each other", kUsage);
  absl::StatusOr<BenchSettings> settings = SettingsFrom(*args);
  if (!settings.ok()) return UsageError(std::string(settings.status().message()), kUsage);
  if (absl::Status s = CheckAppFlags(*args); !s.ok()) return UsageError(std::string(s.message()), kUsage);
  absl::Status s = Bench(*args, *settings);
  return s.ok() ? 0 : Fail(s);
}

}  // namespace tessera::cli
