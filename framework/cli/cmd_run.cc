// `tessera run`: load, partition, compile, dispatch, print.
#include <iostream>

#include "framework/core/base/atomic_file.h"
#include "framework/core/base/json_writer.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/base/terminal_text.h"
#include "framework/cli/app_flags.h"
#include "framework/cli/cache_flags.h"
#include "framework/cli/cli_environment.h"
#include "framework/cli/commands.h"
#include "framework/cli/resilience_flags.h"
#include "framework/cli/run_report.h"
#include "tessera/app/profile_report.hpp"
#include "tessera/app/tensor_files.hpp"
#include "tessera/app/tessera_app.hpp"

namespace tessera::cli {
namespace {

constexpr char kUsage[] =
    "tessera run MODEL [--accelerators LIST] [--inputs DIR | --random [--seed N]] [--outputs DIR] [--json]\n"
    "                  [--mode aot|jit [--warmup background]] [--soc NAME|FILE] [--option KEY=VALUE]... [--kernels reference|fast]\n"
    "                  [--policy cost|greedy|cpu] [--min-ops N] [--max-partitions N] [--strict] [--check]\n"
    "                  [--precision fp32|allow-fp16|allow-int8 [--calibration DIR]]\n"
    "                  [--plugin-dir DIR]... [--deadline-ms N] [--max-retries N] [--no-fallback]\n"
    "                  [--cache-dir DIR [--cache-max-bytes N]]\n"
    "                  [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]... [--no-optimize] [--max-folded-bytes N] [--budget NAME=VALUE]...\n"
    "                  [--verify structure|full] [--profile] [--trace FILE.json]";

absl::Status Run(const Args& args) {
  const std::string& path = args.positionals()[0];
  ASSIGN_OR_RETURN(const app::Environment env, EnvironmentFrom(args));
  ASSIGN_OR_RETURN(const app::Model model, LoadAppModel(args));
  ASSIGN_OR_RETURN(app::CompileOptions options, AppCompileOptionsFrom(args));
  LeaveSocToCompiledModel(args, model, options);
  // --mode jit --warmup background: the run answers on the cpu plan while
  // the JIT compile proceeds on a worker; the process waits for it below.
  RETURN_IF_ERROR(ApplyWarmupFlag(args, options));
  // Under allow-fp16/allow-int8 the inputs this run computes on prove the
  // FP16 ranges (beside --calibration DIR): the proof holds for this run.
  if (options.precision != "fp32" && !model.is_compiled()) {
    ASSIGN_OR_RETURN(std::vector<app::Tensor> own, AppInputsFrom(args, model.inputs()));
    options.range_samples.push_back(std::move(own));
  }
  // A compiled model is taken as it is: only dispatch libraries are opened.
  ASSIGN_OR_RETURN(const app::CompiledModel compiled, ToAbsl(app::CompiledModel::Compile(env, model, options)));
  const bool precompiled = compiled.was_precompiled();
  const bool cache_hit = compiled.cache_info().hit;
  const std::string partitioning = compiled.partition_report_json();  // "": nothing partitioned here
  const std::string cache = compiled.cache_info_json();               // "": no --cache-dir
  ASSIGN_OR_RETURN(const std::vector<app::Tensor> inputs, AppInputsFrom(args, compiled.inputs()));
  ASSIGN_OR_RETURN(app::RunContext context, ToAbsl(app::RunContext::Create(compiled)));
  app::RunProfile profile;
  ASSIGN_OR_RETURN(const std::vector<app::Tensor> outputs, ToAbsl(context.Run(inputs, &profile)));
  if (auto dir = args.Value("outputs")) RETURN_IF_ERROR(ToAbsl(app::WriteTensorFiles(outputs, *dir, "output")));
  if (auto trace = args.Value("trace")) {
    const std::string json = app::ChromeTraceJson(profile, compiled) + "\n";
    RETURN_IF_ERROR(WriteFileAtomically(
        *trace, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(json.data()), json.size())));
  }
  const app::ProfileSummary summary = app::SummarizeProfile(profile, compiled);
  // The process waits for a background warm-up's compile anyway. The JSON
  // report waits first, so that `switched_to` and `compatibility` describe
  // the plan the model switched to, as a foreground compile reports its
  // own; the text report is the first result, printed as soon as the first
  // run returns, and the wait follows it.
  const bool json = args.Has("json");
  const bool warming = !profile.warmup_plan.empty();
  app::Status warmed;
  if (json) warmed = compiled.WaitForAccelerated();

  if (json) {
    JsonWriter j;
    j.BeginObject().Field("model", path).Field("precompiled", precompiled).Field("precision", options.precision);
    if (!profile.warmup_plan.empty())
      j.Key("warmup").BeginObject().Field("mode", "background").Field("plan", profile.warmup_plan)
          .Field("switched_to", compiled.accelerated() ? "accelerated" : "cpu").EndObject();
    if (!partitioning.empty()) j.Key("partitioning").Raw(partitioning);
    if (!cache.empty()) j.Key("cache").Raw(cache);
    WriteProfileJson(profile, j);
    WriteNonFiniteJson(profile, j);
    j.Field("cpu_plans", static_cast<uint64_t>(compiled.cpu_plan_count())).Key("cpu_plan_notes").BeginArray();
    for (const std::string& n : compiled.cpu_plan_notes()) j.String(n);
    j.EndArray().Key("compatibility").BeginArray();
    for (const app::BytecodeCompatibility& c : compiled.compatibility())
      j.BeginObject().Field("vendor", c.vendor).Field("soc", c.soc).Field("verdict", c.verdict)
          .Field("stamped", c.stamped).Field("message", c.message).EndObject();
    j.EndArray();
    if (profile.modeled.available) {
      j.Key("modeled_latency");
      WriteModeledLatencyJson(profile.modeled, j);
    }
    if (args.Has("profile")) {
      j.Key("profile_summary");
      WriteProfileSummaryJson(summary, j);
    }
    j.Key("outputs");
    WriteOutputsJson(outputs, j, 4096);
    j.EndObject();
    std::cout << j.str() << "\n";
  } else {
    std::cout << "model: " << path << (precompiled ? " (precompiled)" : cache_hit ? " (from the compile cache)" : "")
              << "\n";
    if (!profile.warmup_plan.empty())
      std::cout << "warm-up: background; this run used the " << profile.warmup_plan
                << " plan while the JIT compile proceeds on a worker thread\n";
    // The reports quote names from the model and the plugins.
    if (!precompiled) std::cout << TerminalSafe(compiled.partition_report_text(), TerminalLayout::kText);
    for (const std::string& n : compiled.cpu_plan_notes()) std::cout << TerminalSafe("cpu plan: " + n + "\n", TerminalLayout::kText);
    std::cout << TerminalSafe(FormatProfile(profile) +
                                  (profile.modeled.available ? FormatModeledLatency(profile.modeled) : "") +
                                  (args.Has("profile") ? FormatProfileSummary(summary) : "") +
                                  FormatOutputs(outputs, 16) + FormatNonFinite(profile),
                              TerminalLayout::kText);
  }
  std::cout << std::flush;
  if (!json && warming) {
    warmed = compiled.WaitForAccelerated();
    if (warmed.ok())
      std::cout << "warm-up: the accelerated plan is ready; later runs of this model use it:\n"
                << TerminalSafe(compiled.partition_report_text(), TerminalLayout::kText);
  }
  if (!warmed.ok())
    std::cerr << "tessera: warning: " << TerminalSafe(warmed.message(), TerminalLayout::kText) << "\n";
  // A NaN or infinity made from finite inputs is always reported above;
  // --check and --strict make it a failure (exit 1).
  if (args.Has("check")) RETURN_IF_ERROR(CheckNonFinite(profile, "--check"));
  if (args.Has("strict")) RETURN_IF_ERROR(CheckNonFinite(profile, "--strict"));
  return CheckStrict(args, compiled.partition_report());
}

}  // namespace

int RunCommand(const Argv& argv) {
  FlagSpec spec;
  AddCompileFlags(spec);
  AddStrictFlag(spec);
  AddImportFlags(spec);
  AddResilienceFlags(spec);
  AddCacheFlags(spec);
  AddWarmupFlag(spec);
  AddVerifyFlag(spec);
  spec.switches.insert({"json", "random", "profile", "check"});
  spec.values.insert({"inputs", "outputs", "seed", "trace"});
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok()) return UsageError(std::string(args.status().message()), kUsage);
  if (args->positionals().size() != 1) return UsageError("run needs exactly one MODEL", kUsage);
  if (args->Has("inputs") && args->Has("random")) return UsageError("--inputs and --random exclude each other", kUsage);
  if (absl::StatusOr<uint32_t> seed = SeedFrom(*args); !seed.ok())
    return UsageError(std::string(seed.status().message()), kUsage);
  // Bad option values are usage errors (exit 2), like unknown flags.
  if (absl::Status s = CheckAppFlags(*args); !s.ok()) return UsageError(std::string(s.message()), kUsage);
  if (absl::StatusOr<app::CompileOptions> o = AppCompileOptionsFrom(*args); o.ok())  // checked just above
    if (absl::Status s = ApplyWarmupFlag(*args, *o); !s.ok()) return UsageError(std::string(s.message()), kUsage);
  absl::Status s = Run(*args);
  return s.ok() ? 0 : Fail(s);
}

}  // namespace tessera::cli
