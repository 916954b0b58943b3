// `tessera demo [--model mlp-wide|attention|mlp|cnn|frag-chain|frag-gated]`: builds a demo model in code
// (cli/demo_model.h), compiles it for the selected accelerators ahead of
// time, writes and memory-maps the model file, runs it through the dispatch
// libraries, runs it again compiled just in time, and checks both against
// the cpu reference kernels, and prints the plan's modelled speed-up over
// cpu-only and greedy. `--save-model FILE` also writes the
// uncompiled FP32 model, for `tessera run`, `compile`, `partition`.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/json_writer.h"
#include "framework/core/base/status_macros.h"
#include "framework/cli/app_flags.h"
#include "framework/cli/cli_environment.h"
#include "framework/cli/commands.h"
#include "framework/cli/demo_model.h"
#include "framework/cli/run_report.h"
#include "framework/cli/shorthand_flags.h"
#include "tessera/app/model_summary.hpp"
#include "tessera/app/tessera_app.hpp"

namespace tessera::cli {
namespace {

using Clock = std::chrono::steady_clock;
double Ms(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

struct Pass {
  std::string name;
  std::vector<app::Tensor> outputs;
  app::RunProfile profile;
  double compile_ms = 0;
  double max_abs_error = 0;
  uint64_t model_file_bytes = 0;
};

double MaxAbsDiff(const std::vector<app::Tensor>& a, const std::vector<app::Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const int64_t n = Summarize(a[i]).elements;
    for (int64_t e = 0; e < n; ++e) worst = std::max(worst, std::abs(ElementAsDouble(a[i], e) - ElementAsDouble(b[i], e)));
  }
  return worst;
}

// Compiles `model` and runs it once; `through_file`: the AOT path end to
// end, the compiled model written as a .tsr, then loaded (memory-mapped and
// verified) and run from the file with dispatch libraries only.
absl::StatusOr<Pass> RunPass(const std::string& name, const app::Environment& env, const app::Model& model,
                             const app::CompileOptions& options, const std::vector<app::Tensor>& inputs,
                             bool through_file, std::optional<app::CompiledModel>* compiled_out) {
  Pass pass;
  pass.name = name;
  const Clock::time_point start = Clock::now();
  ASSIGN_OR_RETURN(const app::CompiledModel compiled, ToAbsl(app::CompiledModel::Compile(env, model, options)));
  pass.compile_ms = Ms(start);
  app::CompiledModel to_run = compiled;
  if (through_file) {
    char path[] = "/tmp/tessera_demo_XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd < 0) return absl::InternalError("cannot create a temporary file for the demo model");
    ::close(fd);
    app::Status written = compiled.Save(path);
    app::Result<app::Model> loaded = written.ok() ? app::Model::Load(path, {.format = app::ModelFormat::kTsr})
                                                  : app::Result<app::Model>(written);
    std::error_code ec;
    pass.model_file_bytes = std::filesystem::file_size(path, ec);
    std::remove(path);  // the mapping keeps the data alive
    if (!loaded.ok()) return ToAbsl(loaded.status());
    // Ops a JIT-only accelerator left in the file are JIT-compiled here.
    app::CompileOptions at_load = options;
    at_load.leave_jit_only_ops = false;
    ASSIGN_OR_RETURN(to_run, ToAbsl(app::CompiledModel::Compile(env, *loaded, at_load)));
  }
  ASSIGN_OR_RETURN(app::RunContext context, ToAbsl(app::RunContext::Create(to_run)));
  ASSIGN_OR_RETURN(pass.outputs, ToAbsl(context.Run(inputs, &pass.profile)));
  if (compiled_out != nullptr) *compiled_out = compiled;
  return pass;
}

// The modelled speed-up of the plan over a baseline; -1 when the cost model
// has no baseline (or no latency) to divide.
double Speedup(double baseline_us, double plan_us) {
  return baseline_us > 0 && plan_us > 0 ? baseline_us / plan_us : -1;
}

// "modelled speed-up on SoC ref-phone (policy cost, 178.85 us): 2.53x vs
// cpu only (451.78 us), 1.01x vs greedy (179.88 us)": what the demo is for.
std::string SpeedupLine(const app::PartitionReport& r) {
  auto versus = [&](const char* name, double baseline_us) {
    const double x = Speedup(baseline_us, r.modeled_latency_us);
    return x < 0 ? absl::StrCat(name, " n/a") : absl::StrFormat("%.2fx vs %s (%.2f us)", x, name, baseline_us);
  };
  return absl::StrFormat("modelled speed-up on SoC %s (policy %s, %.2f us): %s, %s\n", r.soc, r.policy,
                         r.modeled_latency_us, versus("cpu only", r.modeled_latency_us_cpu_only),
                         versus("greedy", r.modeled_latency_us_greedy));
}

absl::Status Demo(const Args& args) {
  const std::string name = args.ValueOr("model", std::string(kDefaultDemoModel));
  ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes, DemoModelBytes(name));
  ASSIGN_OR_RETURN(const app::Model model,
                   ToAbsl(app::Model::FromMemory(bytes.data(), bytes.size(), {.format = app::ModelFormat::kTsr})));
  if (auto path = args.Value("save-model")) RETURN_IF_ERROR(ToAbsl(model.Save(*path)));
  ASSIGN_OR_RETURN(const app::ModelSummary summary, ToAbsl(app::Summarize(model)));
  ASSIGN_OR_RETURN(const app::Environment env, EnvironmentFrom(args));
  ASSIGN_OR_RETURN(app::CompileOptions options, AppCompileOptionsFrom(args));
  const std::vector<app::Tensor> inputs = RandomTensors(model.inputs(), 7);
  // The demo shows the NPU at work: it allows FP16 unless --precision says
  // otherwise, with its own inputs proving the FP16 ranges, and says so.
  if (!args.Has("precision")) options.precision = "allow-fp16";
  if (options.precision != "fp32") options.range_samples.push_back(inputs);

  app::CompileOptions reference_options = options;
  reference_options.accelerators = {"cpu"};
  reference_options.mode = app::CompileMode::kAot;
  reference_options.plugin_options.emplace_back(std::string(OptionForFlag("kernels")), "reference");
  ASSIGN_OR_RETURN(Pass reference, RunPass("cpu reference", env, model, reference_options, inputs, false, nullptr));

  std::optional<app::CompiledModel> aot_model;
  app::CompileOptions aot_options = options;
  aot_options.mode = app::CompileMode::kAot;
  // Through the file: a JIT-only accelerator's ops stay in it as ops and
  // are JIT-compiled when the file is loaded.
  aot_options.leave_jit_only_ops = true;
  ASSIGN_OR_RETURN(Pass aot, RunPass("aot (via .tsr file)", env, model, aot_options, inputs, true, &aot_model));
  app::CompileOptions jit_options = options;
  jit_options.mode = app::CompileMode::kJit;
  std::optional<app::CompiledModel> jit_model;
  ASSIGN_OR_RETURN(Pass jit, RunPass("jit (in memory)", env, model, jit_options, inputs, false, &jit_model));
  aot.max_abs_error = MaxAbsDiff(aot.outputs, reference.outputs);
  jit.max_abs_error = MaxAbsDiff(jit.outputs, reference.outputs);

  bool all_cpu = true;
  for (const app::PartitionReport::Partition& p : aot_model->partition_report().partitions)
    all_cpu = all_cpu && p.vendor == "cpu";
  // The cpu plugin's kernels for the AOT/JIT passes: fast (oneDNN, the
  // default) unless cpu.kernels=reference was asked for.
  const bool cpu_reference_kernels = OptionValue(options.plugin_options, OptionForFlag("kernels")) == "reference";
  // Bit-exact when everything ran on the cpu reference kernels; the fast
  // kernels accumulate in f32 (plugins/cpu/fast_kernels/fast_kernels.h), and
  // reduced-precision accelerators are held to a documented relative bound.
  const double scale = std::max(1.0, std::max(std::abs(Summarize(reference.outputs[0]).min), std::abs(Summarize(reference.outputs[0]).max)));
  const double tolerance = !all_cpu ? 2e-2 * scale : cpu_reference_kernels ? 0.0 : 1e-4 * scale;
  // A NaN or infinity from the demo's finite inputs fails it, whatever the error says.
  const bool finite = !aot.profile.nonfinite_from_finite_inputs() && !jit.profile.nonfinite_from_finite_inputs();
  const bool ok = finite && aot.max_abs_error <= tolerance && jit.max_abs_error <= tolerance;
  // A JIT plan that differs from the AOT one (the plugins' JIT and AOT
  // claims may differ) is shown too, with its cuts, conversions and
  // modelled latency. A JIT-only vendor (the mock DSP) takes part in both.
  const std::vector<app::PartitionReport::Partition>& aot_parts = aot_model->partition_report().partitions;
  const std::vector<app::PartitionReport::Partition>& jit_parts = jit_model->partition_report().partitions;
  bool jit_differs = jit_parts.size() != aot_parts.size();
  for (size_t i = 0; !jit_differs && i < aot_parts.size(); ++i) jit_differs = jit_parts[i].vendor != aot_parts[i].vendor;

  std::map<std::string, int> op_counts;
  for (const app::ModelSummary::Op& op : summary.ops) ++op_counts[op.type];
  std::string description = summary.name;
  for (const auto& [key, value] : summary.metadata)
    if (key == "description") description = value;
  if (args.Has("json")) {
    JsonWriter j;
    j.BeginObject().Field("model", summary.name).Field("op_count", static_cast<uint64_t>(summary.ops.size()));
    j.Field("precision", options.precision);
    j.Key("op_types").BeginObject();
    for (const auto& [t, n] : op_counts) j.Field(t, n);
    j.EndObject().Key("partitioning").Raw(aot_model->partition_report_json());
    const app::PartitionReport& plan = aot_model->partition_report();
    j.Field("modeled_speedup_vs_cpu_only", Speedup(plan.modeled_latency_us_cpu_only, plan.modeled_latency_us));
    j.Field("modeled_speedup_vs_greedy", Speedup(plan.modeled_latency_us_greedy, plan.modeled_latency_us));
    if (jit_differs) j.Key("partitioning_jit").Raw(jit_model->partition_report_json());
    j.Key("passes").BeginArray();
    for (const Pass* p : {&reference, &aot, &jit}) {
      j.BeginObject().Field("name", p->name).Field("compile_ms", p->compile_ms).Field("max_abs_error", p->max_abs_error)
          .Field("model_file_bytes", p->model_file_bytes);
      WriteProfileJson(p->profile, j);
      WriteNonFiniteJson(p->profile, j);
      j.EndObject();
    }
    j.EndArray().Field("tolerance", tolerance).Field("ok", ok).Key("outputs");
    WriteOutputsJson(aot.outputs, j, 64);
    j.EndObject();
    std::cout << j.str() << "\n";
  } else {
    std::vector<std::string> counts;
    for (const auto& [t, n] : op_counts) counts.push_back(absl::StrCat(t, " x", n));
    std::cout << "Tessera demo: " << description << "\n"
              << "model: " << summary.ops.size() << " ops: " << absl::StrJoin(counts, ", ") << "\n"
              << "precision: " << options.precision
              << (args.Has("precision") ? "" : " (the demo's default: the NPU computes in FP16; --precision fp32 keeps it out)")
              << "\n\n"
              << aot_model->partition_report_text() << SpeedupLine(aot_model->partition_report()) << "\n";
    for (const Pass* p : {&reference, &aot, &jit}) {
      std::cout << absl::StrFormat("%-22s compile %8.2f ms   run %9.1f us   max |err| vs reference %.3g%s\n", p->name,
                                   p->compile_ms, p->profile.total_us, p->max_abs_error,
                                   p->model_file_bytes ? absl::StrFormat("   (.tsr %d bytes)", p->model_file_bytes) : "");
    }
    std::cout << "\nAOT run through the dispatch libraries:\n" << FormatProfile(aot.profile) << "\n";
    if (jit_differs)
      std::cout << "JIT plan (differs from the AOT one):\n"
                << jit_model->partition_report_text() << "\nJIT run through the dispatch libraries:\n"
                << FormatProfile(jit.profile) << "\n";
    std::cout << FormatOutputs(aot.outputs, 8) << FormatNonFinite(aot.profile)
              << (ok ? "result: outputs agree with the cpu reference\n"
                     : absl::StrFormat("result: MISMATCH (tolerance %.3g)\n", tolerance));
  }
  if (!ok) return absl::InternalError("demo outputs disagree with the cpu reference kernels");
  return absl::OkStatus();
}

}  // namespace

constexpr char kUsage[] =
    "tessera demo [--model mlp-wide|attention|mlp|cnn|frag-chain|frag-gated] [--save-model FILE] [--json]\n"
    "             [--accelerators LIST] [--mode aot|jit]\n"
    "             [--soc NAME|FILE] [--option KEY=VALUE]... [--kernels reference|fast] [--plugin-dir DIR]...\n"
    "             [--policy cost|greedy|cpu] [--min-ops N] [--max-partitions N] [--precision fp32|allow-fp16|allow-int8]";

int DemoCommand(const Argv& argv) {
  FlagSpec spec;
  AddCompileFlags(spec);
  spec.switches.insert("json");
  spec.values.insert({"model", "save-model"});
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok() || !args->positionals().empty())
    return UsageError(args.ok() ? "demo takes no positional arguments" : std::string(args.status().message()), kUsage);
  if (absl::StatusOr<app::CompileOptions> o = AppCompileOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), kUsage);
  if (absl::StatusOr<std::vector<uint8_t>> m = DemoModelBytes(args->ValueOr("model", "attention")); !m.ok())
    return UsageError(std::string(m.status().message()), kUsage);
  absl::Status s = Demo(*args);
  return s.ok() ? 0 : Fail(s);
}

}  // namespace tessera::cli
