// `tessera run`: load, partition, compile, dispatch, print.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "base/json_writer.h"
#include "base/status_macros.h"
#include "base/terminal_text.h"
#include "cli/cli_environment.h"
#include "cli/commands.h"
#include "cli/measured_latency.h"
#include "cli/run_report.h"
#include "compile/background_warmup.h"
#include "compile/compile_driver.h"
#include "model_executor.h"
#include "partition/partition_report.h"
#include "io/tensor_proto.h"
#include "tessera/ops.h"

namespace tessera::cli {
namespace {

constexpr char kUsage[] =
    "tessera run MODEL [--accelerators LIST] [--inputs DIR | --random [--seed N]] [--outputs DIR] [--json]\n"
    "                  [--mode aot|jit [--warmup background]] [--soc NAME|FILE] [--option KEY=VALUE]... [--kernels reference|fast]\n"
    "                  [--policy cost|greedy|cpu] [--min-ops N] [--max-partitions N] [--strict]\n"
    "                  [--cache-dir DIR [--cache-max-bytes N]] [--plugin-dir DIR]...\n"
    "                  [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]... [--no-optimize] [--max-folded-bytes N] [--budget NAME=VALUE]...";

// --mode jit --warmup background: the run answers on the cpu plan while the
// JIT compile proceeds on a worker (compile/background_warmup.h); the
// process waits for the worker before it exits.
absl::Status RunWarmingUp(const Args& args, const Graph& graph, const CompileOptions& options,
                          const PluginRegistry& registry) {
  ASSIGN_OR_RETURN(const CompileCacheOptions cache, CacheOptionsFrom(args));
  ReportJitCacheBypass(cache, StderrCacheLog(), nullptr);
  ASSIGN_OR_RETURN(std::unique_ptr<BackgroundWarmup> warm,
                   BackgroundWarmup::Start(graph, registry, options, {options.soc, options.plugin_options}));
  ASSIGN_OR_RETURN(const std::vector<HostTensor> inputs, InputsFrom(args, graph));
  RunProfile profile;
  WarmupPlan used = WarmupPlan::kCpu;
  ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, warm->Run(inputs, &profile, &used));
  if (auto dir = args.Value("outputs")) RETURN_IF_ERROR(WriteTensorSet(outputs, *dir, "output"));
  if (args.Has("json")) {
    JsonWriter j;
    j.BeginObject().Field("model", args.positionals()[0]).Field("precompiled", false);
    j.Key("warmup").BeginObject().Field("mode", "background").Field("plan", WarmupPlanName(used)).EndObject();
    WriteProfileJson(profile, j);
    j.Key("outputs");
    WriteOutputsJson(outputs, j, 4096);
    j.EndObject();
    std::cout << j.str() << "\n" << std::flush;
  } else {
    std::cout << "model: " << args.positionals()[0] << "\nwarm-up: background; this run used the "
              << WarmupPlanName(used) << " plan while the JIT compile proceeds on a worker thread\n"
              << TerminalSafe(FormatProfile(profile) + FormatOutputs(outputs, 16), TerminalLayout::kText) << std::flush;
  }
  if (absl::Status compiled = warm->WaitForAccelerated(); !compiled.ok())
    std::cerr << "tessera: warning: " << TerminalSafe(compiled.message(), TerminalLayout::kText) << "\n";
  return absl::OkStatus();
}

absl::Status Run(const Args& args) {
  const std::string& path = args.positionals()[0];
  double load_ms = 0;
  ASSIGN_OR_RETURN(Graph graph, LoadModel(args, &load_ms));
  ASSIGN_OR_RETURN(CompileOptions options, CompileOptionsFrom(args));
  AdoptCompiledSocUnlessGiven(args, graph, options);
  const PluginRegistry registry = LoadPlugins(args, PluginUseFor(graph));
  if (args.Has("warmup") && !IsCompiled(graph)) return RunWarmingUp(args, graph, options, registry);
  const bool precompiled = IsCompiled(graph);
  ASSIGN_OR_RETURN(const CompileCacheOptions cache, CacheOptionsFrom(args));
  CompileCacheReport cache_report;
  ASSIGN_OR_RETURN(CompiledModel compiled, CompileUnlessCompiled(graph, registry, options, cache, &cache_report));
  const PartitionReport report = ReportOf(compiled, load_ms);
  ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                   Executor::Create(compiled.graph, compiled.jit_slots, registry, {options.soc, options.plugin_options}));
  ASSIGN_OR_RETURN(const std::vector<HostTensor> inputs, InputsFrom(args, graph));
  RunProfile profile;
  ASSIGN_OR_RETURN(std::vector<HostTensor> outputs, executor->Run(inputs, &profile));
  if (auto dir = args.Value("outputs")) RETURN_IF_ERROR(WriteTensorSet(outputs, *dir, "output"));
  const std::optional<MeasuredLatency> measured = MeasureModeledLatency(compiled, profile);

  if (args.Has("json")) {
    JsonWriter j;
    j.BeginObject().Field("model", path).Field("precompiled", precompiled);
    if (!precompiled && !cache_report.hit) {
      j.Key("partitioning");
      WritePartitionReportJson(report, j);
    }
    if (!cache.directory.empty()) {
      j.Key("cache");
      WriteCompileCacheReportJson(cache_report, j);
    }
    WriteProfileJson(profile, j);
    if (measured) {
      j.Key("modeled_latency");
      WriteMeasuredLatencyJson(*measured, j);
    }
    j.Key("outputs");
    WriteOutputsJson(outputs, j, 4096);
    j.EndObject();
    std::cout << j.str() << "\n";
  } else {
    std::cout << "model: " << path << (precompiled ? " (precompiled)" : cache_report.hit ? " (from the compile cache)" : "")
              << "\n";
    // The reports quote names from the model and the plugins.
    if (!precompiled && !cache_report.hit) std::cout << TerminalSafe(FormatPartitionReport(report), TerminalLayout::kText);
    std::cout << TerminalSafe(FormatProfile(profile) + (measured ? FormatMeasuredLatency(*measured) : "") +
                                  FormatOutputs(outputs, 16),
                              TerminalLayout::kText);
  }
  return CheckStrict(args, report);
}

}  // namespace

int RunCommand(const Argv& argv) {
  FlagSpec spec;
  AddCompileFlags(spec);
  AddCacheFlags(spec);
  AddStrictFlag(spec);
  AddImportFlags(spec);
  spec.switches.insert({"json", "random"});
  spec.values.insert({"inputs", "outputs", "seed", "warmup"});
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok()) return UsageError(std::string(args.status().message()), kUsage);
  if (auto warmup = args->Value("warmup")) {
    if (*warmup != "background") return UsageError("run --warmup takes only 'background'", kUsage);
    if (args->ValueOr("mode", "aot") != "jit")
      return UsageError("--warmup background needs --mode jit (an AOT model is compiled once, or cached)", kUsage);
  }
  if (args->positionals().size() != 1) return UsageError("run needs exactly one MODEL", kUsage);
  if (args->Has("inputs") && args->Has("random")) return UsageError("--inputs and --random exclude each other", kUsage);
  if (absl::StatusOr<uint32_t> seed = SeedFrom(*args); !seed.ok())
    return UsageError(std::string(seed.status().message()), kUsage);
  // Bad option values are usage errors (exit 2), like unknown flags.
  if (absl::StatusOr<CompileOptions> o = CompileOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), kUsage);
  if (absl::StatusOr<onnx_import::ImportOptions> o = ImportOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), kUsage);
  if (absl::StatusOr<CompileCacheOptions> o = CacheOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), kUsage);
  absl::Status s = Run(*args);
  return s.ok() ? 0 : Fail(s);
}

}  // namespace tessera::cli
