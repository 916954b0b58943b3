// `tessera demo [--model attention|mlp|cnn|frag-chain|frag-gated]`: builds a demo model in code
// (cli/demo_model.h), compiles it for the selected accelerators ahead of
// time, writes and memory-maps the model file, runs it through the dispatch
// libraries, runs it again compiled just in time, and checks both against
// the cpu reference kernels. `--save-model FILE` also writes the
// uncompiled FP32 model, for `tessera run`, `compile`, `partition`.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/dtype.h"
#include "base/json_writer.h"
#include "base/status_macros.h"
#include "cli/cli_environment.h"
#include "cli/commands.h"
#include "cli/shorthand_flags.h"
#include "cli/demo_model.h"
#include "cli/run_report.h"
#include "compile/compile_driver.h"
#include "model_executor.h"
#include "model/model_loader.h"
#include "model/model_writer.h"
#include "partition/partition_report.h"

namespace tessera::cli {
namespace {

using Clock = std::chrono::steady_clock;
double Ms(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

struct Pass {
  std::string name;
  std::vector<HostTensor> outputs;
  RunProfile profile;
  double compile_ms = 0;
  double max_abs_error = 0;
  uint64_t model_file_bytes = 0;
};

double MaxAbsDiff(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const int64_t n = Summarize(a[i]).elements;
    for (int64_t e = 0; e < n; ++e) worst = std::max(worst, std::abs(ElementAsDouble(a[i], e) - ElementAsDouble(b[i], e)));
  }
  return worst;
}

absl::StatusOr<Pass> RunPass(const std::string& name, const Graph& model, const PluginRegistry& registry,
                             CompileOptions options, const std::vector<HostTensor>& inputs, bool through_file,
                             CompiledModel* compiled_out) {
  Pass pass;
  pass.name = name;
  const Clock::time_point start = Clock::now();
  ASSIGN_OR_RETURN(CompiledModel compiled, CompileGraph(model, registry, options));
  pass.compile_ms = Ms(start);
  Graph to_run = compiled.graph;
  if (through_file) {
    // The AOT path end to end: write the .tsr, then memory-map and verify it.
    char path[] = "/tmp/tessera_demo_XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd < 0) return absl::InternalError("cannot create a temporary file for the demo model");
    ::close(fd);
    absl::Status written = WriteModelFile(compiled.graph, path);
    absl::StatusOr<Graph> loaded = written.ok() ? LoadModelFile(path) : absl::StatusOr<Graph>(written);
    std::error_code ec;
    pass.model_file_bytes = std::filesystem::file_size(path, ec);
    std::remove(path);  // the mapping keeps the data alive
    if (!loaded.ok()) return loaded.status();
    to_run = *std::move(loaded);
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                   Executor::Create(to_run, compiled.jit_slots, registry, {options.soc, options.plugin_options, options.budgets}));
  ASSIGN_OR_RETURN(pass.outputs, executor->Run(inputs, &pass.profile));
  if (compiled_out != nullptr) *compiled_out = std::move(compiled);
  return pass;
}

absl::Status Demo(const Args& args) {
  ASSIGN_OR_RETURN(Graph model, BuildDemoModel(args.ValueOr("model", "attention")));
  if (auto path = args.Value("save-model")) RETURN_IF_ERROR(WriteModelFile(model, *path));
  ASSIGN_OR_RETURN(CompileOptions options, CompileOptionsFrom(args));
  const PluginRegistry registry = LoadPlugins(args);
  const std::vector<HostTensor> inputs = RandomInputs(model, 7);

  CompileOptions reference_options = options;
  reference_options.accelerators = {"cpu"};
  reference_options.mode = CompileMode::kAot;
  reference_options.plugin_options.emplace_back(std::string(OptionForFlag("kernels")), "reference");
  ASSIGN_OR_RETURN(Pass reference, RunPass("cpu reference", model, registry, reference_options, inputs, false, nullptr));

  CompiledModel aot_model;
  CompileOptions aot_options = options;
  aot_options.mode = CompileMode::kAot;
  ASSIGN_OR_RETURN(Pass aot, RunPass("aot (via .tsr file)", model, registry, aot_options, inputs, true, &aot_model));
  CompileOptions jit_options = options;
  jit_options.mode = CompileMode::kJit;
  ASSIGN_OR_RETURN(Pass jit, RunPass("jit (in memory)", model, registry, jit_options, inputs, false, nullptr));
  aot.max_abs_error = MaxAbsDiff(aot.outputs, reference.outputs);
  jit.max_abs_error = MaxAbsDiff(jit.outputs, reference.outputs);

  bool all_cpu = true;
  for (const PlannedPartition& p : aot_model.plan.partitions) all_cpu = all_cpu && p.vendor == "cpu";
  // The cpu plugin's kernels for the AOT/JIT passes: fast (oneDNN, the
  // default) unless cpu.kernels=reference was asked for.
  const bool cpu_reference_kernels = OptionValue(options.plugin_options, OptionForFlag("kernels")) == "reference";
  // Bit-exact when everything ran on the cpu reference kernels; the fast
  // kernels accumulate in f32 (plugins/cpu/fast/fast_kernels.h), and
  // reduced-precision accelerators are held to a documented relative bound.
  const double scale = std::max(1.0, std::max(std::abs(Summarize(reference.outputs[0]).min), std::abs(Summarize(reference.outputs[0]).max)));
  const double tolerance = !all_cpu ? 2e-2 * scale : cpu_reference_kernels ? 0.0 : 1e-4 * scale;
  const bool ok = aot.max_abs_error <= tolerance && jit.max_abs_error <= tolerance;
  const PartitionReport report = BuildPartitionReport(aot_model);

  std::map<std::string, int> op_counts;
  for (const Op& op : model.ops) ++op_counts[OpTypeName(op.type)];
  if (args.Has("json")) {
    JsonWriter j;
    j.BeginObject().Field("model", model.name).Field("op_count", static_cast<uint64_t>(model.ops.size()));
    j.Key("op_types").BeginObject();
    for (const auto& [t, n] : op_counts) j.Field(t, n);
    j.EndObject().Key("partitioning");
    WritePartitionReportJson(report, j);
    j.Key("passes").BeginArray();
    for (const Pass* p : {&reference, &aot, &jit}) {
      j.BeginObject().Field("name", p->name).Field("compile_ms", p->compile_ms).Field("max_abs_error", p->max_abs_error)
          .Field("model_file_bytes", p->model_file_bytes);
      WriteProfileJson(p->profile, j);
      j.EndObject();
    }
    j.EndArray().Field("tolerance", tolerance).Field("ok", ok).Key("outputs");
    WriteOutputsJson(aot.outputs, j, 64);
    j.EndObject();
    std::cout << j.str() << "\n";
  } else {
    std::vector<std::string> counts;
    for (const auto& [t, n] : op_counts) counts.push_back(absl::StrCat(t, " x", n));
    std::cout << "Tessera demo: " << model.FindMetadata("description").value_or(model.name) << "\n"
              << "model: " << model.ops.size() << " ops: " << absl::StrJoin(counts, ", ") << "\n\n"
              << FormatPartitionReport(report) << "\n";
    for (const Pass* p : {&reference, &aot, &jit}) {
      std::cout << absl::StrFormat("%-22s compile %8.2f ms   run %9.1f us   max |err| vs reference %.3g%s\n", p->name,
                                   p->compile_ms, p->profile.total_us, p->max_abs_error,
                                   p->model_file_bytes ? absl::StrFormat("   (.tsr %d bytes)", p->model_file_bytes) : "");
    }
    std::cout << "\nAOT run through the dispatch libraries:\n" << FormatProfile(aot.profile) << "\n"
              << FormatOutputs(aot.outputs, 8)
              << (ok ? "result: outputs agree with the cpu reference\n"
                     : absl::StrFormat("result: MISMATCH (tolerance %.3g)\n", tolerance));
  }
  if (!ok) return absl::InternalError("demo outputs disagree with the cpu reference kernels");
  return absl::OkStatus();
}

}  // namespace

constexpr char kUsage[] =
    "tessera demo [--model attention|mlp|cnn|frag-chain|frag-gated] [--save-model FILE] [--json] [--accelerators LIST] [--mode aot|jit]\n"
    "             [--soc NAME|FILE] [--option KEY=VALUE]... [--kernels reference|fast] [--plugin-dir DIR]...\n"
    "             [--policy cost|greedy|cpu] [--min-ops N] [--max-partitions N]";

int DemoCommand(const Argv& argv) {
  FlagSpec spec;
  AddCompileFlags(spec);
  spec.switches.insert("json");
  spec.values.insert({"model", "save-model"});
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok() || !args->positionals().empty())
    return UsageError(args.ok() ? "demo takes no positional arguments" : std::string(args.status().message()), kUsage);
  if (absl::StatusOr<CompileOptions> o = CompileOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), kUsage);
  if (absl::StatusOr<Graph> m = BuildDemoModel(args->ValueOr("model", "attention")); !m.ok())
    return UsageError(std::string(m.status().message()), kUsage);
  absl::Status s = Demo(*args);
  return s.ok() ? 0 : Fail(s);
}

}  // namespace tessera::cli
