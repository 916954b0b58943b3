// `tessera onnx-test DIR...`: runs ONNX backend-test cases (DIR/model.onnx,
// DIR/test_data_set_N/{input,output}_K.pb) and compares with the expected
// outputs. A DIR without model.onnx stands for its sub-directories that have
// one. `--list FILE` adds the case directories named in FILE (one per line,
// '#' comments), relative to `--root DIR` when given.
//
// Each case passes, fails (with the maximum absolute error or the error) or
// is skipped (the model uses something the importer or the kernels do not
// support: the reason says what). Exit code 1 iff a case failed (or, with
// --expect-pass, was skipped); 77 when --root does not exist (ctest reads it
// as "skipped").
//
// The judge is CompiledModel::check_output (io/output_comparison.h): f32
// |actual - expected| <= 1e-5 + 1e-4 * |expected| + an allowance of 8
// units of roundoff per op of depth times the output's magnitude (capped);
// integers and bool exact; NaN matches NaN, infinities must match exactly.
// When a partition an output depends on ran in reduced precision, its
// dispatch library's declared tolerance (tsr_numerics) widens the float
// comparison, up to a cap per precision (FP16 2^-8, BF16 2^-5), the depth
// allowance uses that precision's roundoff, the output must keep 40 dB
// SNR, and the case says so.
//
// Inputs are frozen into constants where the model needs them constant (a
// Reshape's shape, an If condition, a Loop trip count), also when the
// condition is computed from them (Equal(Cast(sr), 16000)): the importer
// folds it from the case's values. `--freeze-input NAME=V,...` freezes an
// input by name as `run` does; the case's own file for NAME is then not fed.
//
// Each case records how many of its ops ran on each vendor, failing cases
// too (what ran, or what was planned when nothing ran). With
// `--require-vendor NAME` a case passes only if NAME ran at least one of its
// ops (the conformance of an accelerator: a case the NPU refused entirely
// would otherwise "pass" on the cpu); the failure quotes NAME's refusal.
#include <algorithm>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/json_writer.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/base/terminal_text.h"
#include "framework/cli/app_flags.h"
#include "framework/cli/cli_environment.h"
#include "framework/cli/commands.h"
#include "framework/cli/run_report.h"
#include "tessera/app/model_summary.hpp"
#include "tessera/app/tensor_files.hpp"
#include "tessera/app/tessera_app.hpp"

namespace tessera::cli {
namespace {
namespace fs = std::filesystem;

constexpr char kUsage[] =
    "tessera onnx-test DIR... [--list FILE [--root DIR]] [--expect-pass] [--accelerators LIST] [--kernels reference|fast] [--json]\n"
    "                         [--mode aot|jit] [--soc NAME|FILE] [--option KEY=VALUE]... [--require-vendor NAME]\n"
    "                         [--policy cost|greedy|cpu] [--min-ops N] [--max-partitions N]\n"
    "                         [--precision fp32|allow-fp16|allow-int8 [--calibration DIR]]\n"
    "                         [--plugin-dir DIR]... [--freeze-input NAME=V,...]... [--no-optimize] [--max-folded-bytes N]\n"
    "                         [--budget NAME=VALUE]...";

struct Case {
  std::string name;
  fs::path dir;
};

struct CaseResult {
  std::string name;
  std::string status;  // pass | fail | skip
  double max_abs_error = 0;
  std::string reason;
  // Reduced-precision partitions whose declared tolerance was used.
  std::vector<app::Numerics> reduced_by;
  double rtol = 0, atol = 0;  // the widest float tolerance applied
  double depth_allowance = 0;  // the widest depth allowance, relative to an output's magnitude
  bool capped = false;        // a declaration was cut to its precision's cap
  std::map<std::string, int64_t> ops_by_vendor;  // source ops per vendor that ran them
};


absl::StatusOr<std::vector<uint8_t>> ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path.string(), "'"));
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool IsSkipCode(absl::StatusCode c) { return c == absl::StatusCode::kUnimplemented; }

// An app error with the stage it happened in, keeping its code (skip or fail).
absl::Status Prefixed(const char* stage, const app::Status& s) {
  return absl::Status(static_cast<absl::StatusCode>(s.code()), absl::StrCat(stage, s.message()));
}

std::string CaseName(const fs::path& dir) {
  const fs::path parent = dir.parent_path().filename();
  return parent.empty() ? dir.filename().string() : (parent / dir.filename()).string();
}

void AddDir(const fs::path& dir, std::vector<Case>& cases) {
  std::error_code ec;
  if (fs::exists(dir / "model.onnx", ec)) {
    cases.push_back({CaseName(dir), dir});
    return;
  }
  std::vector<fs::path> subs;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec) && fs::exists(e.path() / "model.onnx", ec)) subs.push_back(e.path());
  std::sort(subs.begin(), subs.end());
  if (subs.empty()) cases.push_back({CaseName(dir), dir});  // reported as a failure: no model
  for (const fs::path& p : subs) cases.push_back({CaseName(p), p});
}

// test_data_set_N directories in numeric order.
std::vector<fs::path> DataSets(const fs::path& dir) {
  std::vector<std::pair<int64_t, fs::path>> sets;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    absl::string_view rest = name;
    int64_t n = 0;
    if (e.is_directory(ec) && absl::ConsumePrefix(&rest, "test_data_set_") && absl::SimpleAtoi(rest, &n))
      sets.emplace_back(n, e.path());
  }
  std::sort(sets.begin(), sets.end());
  std::vector<fs::path> out;
  for (auto& s : sets) out.push_back(s.second);
  return out;
}

// One imported, compiled model ready to run. Inputs frozen into constants
// (onnx.frozen_inputs) are specialized to the values it was prepared with.
struct Prepared {
  std::optional<app::CompiledModel> compiled;
  std::optional<app::RunContext> context;
  std::vector<size_t> frozen;
  std::vector<app::Tensor> frozen_values;
};

bool SameTensor(const app::Tensor& a, const app::Tensor& b) {
  return a.info().dtype == b.info().dtype && a.info().shape == b.info().shape &&
         std::memcmp(a.data(), b.data(), a.info().byte_size()) == 0;
}

// Status code Unimplemented = skip; anything else = fail.
absl::StatusOr<Prepared> Prepare(const std::vector<uint8_t>& bytes, const std::vector<app::Tensor>& inputs,
                                 const app::Environment& env, const app::CompileOptions& options,
                                 app::LoadOptions load_options) {
  load_options.format = app::ModelFormat::kOnnx;
  load_options.positional_input_values = inputs;  // their shapes too
  app::Result<app::Model> model = app::Model::FromMemory(bytes.data(), bytes.size(), load_options);
  if (!model.ok()) return Prefixed("import: ", model.status());
  Prepared p;
  app::Result<app::ModelSummary> summary = app::Summarize(*model);
  if (!summary.ok()) return Prefixed("import: ", summary.status());
  for (const auto& [key, value] : summary->metadata) {
    if (key != "onnx.frozen_inputs") continue;
    for (absl::string_view part : absl::StrSplit(value, ',')) {
      size_t i = 0;
      if (absl::SimpleAtoi(part, &i) && i < inputs.size()) {
        p.frozen.push_back(i);
        p.frozen_values.push_back(inputs[i]);
      }
    }
  }
  // Under allow-fp16/allow-int8 the case's own inputs prove the FP16 ranges.
  app::CompileOptions with_ranges = options;
  if (options.precision != "fp32") {
    std::vector<app::Tensor> live;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (std::find(p.frozen.begin(), p.frozen.end(), i) == p.frozen.end()) live.push_back(inputs[i]);
    with_ranges.range_samples.push_back(std::move(live));
  }
  app::Result<app::CompiledModel> compiled = app::CompiledModel::Compile(env, *model, with_ranges);
  if (!compiled.ok()) return Prefixed("compile: ", compiled.status());
  p.compiled = *std::move(compiled);
  app::Result<app::RunContext> context = app::RunContext::Create(*p.compiled);
  if (!context.ok()) return Prefixed("runtime: ", context.status());
  p.context = *std::move(context);
  return p;
}

bool FrozenMatch(const Prepared& p, const std::vector<app::Tensor>& inputs) {
  for (size_t k = 0; k < p.frozen.size(); ++k) {
    const size_t i = p.frozen[k];
    if (i >= inputs.size() || !SameTensor(inputs[i], p.frozen_values[k])) return false;
  }
  return true;
}

// True when every element of a float tensor is finite (integers always are).
bool AllFinite(const app::Tensor& t) {
  const int64_t n = Summarize(t).elements;
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(ElementAsDouble(t, i))) return false;
  return true;
}

// Source ops per vendor, from the steps that ran (after any compile
// fallback, so it is what actually ran).
std::map<std::string, int64_t> OpsByVendor(const app::RunProfile& profile) {
  std::map<std::string, int64_t> counts;
  for (const app::RunProfile::Step& s : profile.steps) counts[s.vendor] += static_cast<int64_t>(s.source_op_ids.size());
  return counts;
}

// Source ops per vendor as planned, for a case that failed before a run.
std::map<std::string, int64_t> PlannedOpsByVendor(const app::PartitionReport& report) {
  std::map<std::string, int64_t> counts;
  for (const app::PartitionReport::Partition& p : report.partitions)
    counts[p.vendor] += static_cast<int64_t>(p.op_ids.size());
  return counts;
}

// The case's inputs but those frozen by name (--freeze-input), which are
// no inputs of the imported model: a file whose tensor is named like one
// is not fed. (A case that has no file for it feeds everything.)
std::vector<app::Tensor> WithoutFrozenByName(std::vector<app::Tensor> inputs, const app::LoadOptions& options) {
  if (options.frozen_inputs.empty()) return inputs;
  std::erase_if(inputs, [&](const app::Tensor& t) { return options.frozen_inputs.contains(t.info().name); });
  return inputs;
}

// Why `vendor` ran none of the ops: its first refusal, if it refused any.
std::string FirstRefusal(const app::PartitionReport& report, const std::string& vendor) {
  for (const app::PartitionReport::Fallback& f : report.fallbacks)
    for (const app::PartitionReport::Refusal& r : f.refused_by)
      if (r.vendor == vendor) return absl::StrCat(r.reason, ": ", r.detail);
  for (const app::PartitionReport::CompileFallback& f : report.compile_fallbacks)
    if (f.vendor == vendor) return absl::StrCat("compile failed: ", f.reason);
  return "it was not selected (see --accelerators)";
}

// DIR/<prefix>_K.pb, read whole (the test data's own files).
absl::StatusOr<std::vector<app::Tensor>> ReadSet(const fs::path& dir, const std::string& prefix) {
  ASSIGN_OR_RETURN(const std::vector<std::string> paths, ToAbsl(app::ListTensorFiles(dir.string(), prefix)));
  std::vector<app::Tensor> out;
  for (const std::string& path : paths) {
    ASSIGN_OR_RETURN(app::Tensor t, ToAbsl(app::ReadTensorFile(path)));
    out.push_back(std::move(t));
  }
  return out;
}

CaseResult RunCase(const Case& c, const app::Environment& env, const app::CompileOptions& options,
                   const app::LoadOptions& load_options, const std::string& required_vendor) {
  CaseResult r{c.name, "fail", 0, ""};
  auto skip = [&](const std::string& why) { r.status = "skip"; r.reason = why; return r; };
  std::optional<Prepared> prepared;
  app::RunProfile profile;
  // Who ran what, on a failure too: the last run's steps, else the plan.
  auto fail = [&](const std::string& why) {
    r.status = "fail";
    r.reason = why;
    if (!profile.steps.empty())
      r.ops_by_vendor = OpsByVendor(profile);
    else if (prepared)
      r.ops_by_vendor = PlannedOpsByVendor(prepared->compiled->partition_report());
    return r;
  };
  auto fail_or_skip = [&](const absl::Status& s) { return IsSkipCode(s.code()) ? skip(std::string(s.message())) : fail(std::string(s.message())); };
  std::error_code ec;
  if (!fs::exists(c.dir / "model.onnx", ec)) return fail("no model.onnx");
  const std::vector<fs::path> sets = DataSets(c.dir);
  if (sets.empty()) return skip("no test_data_set_N directories");
  absl::StatusOr<std::vector<uint8_t>> bytes = ReadBytes(c.dir / "model.onnx");
  if (!bytes.ok()) return fail(std::string(bytes.status().message()));
  double max_err = 0;
  for (const fs::path& set : sets) {
    absl::StatusOr<std::vector<app::Tensor>> inputs = ReadSet(set, "input");
    if (inputs.ok()) *inputs = WithoutFrozenByName(*std::move(inputs), load_options);
    absl::StatusOr<std::vector<app::Tensor>> expected = ReadSet(set, "output");
    if (!inputs.ok()) return skip(absl::StrCat("test data: ", inputs.status().message()));
    if (!expected.ok()) return skip(absl::StrCat("test data: ", expected.status().message()));
    if (!prepared || !FrozenMatch(*prepared, *inputs)) {
      prepared.reset();
      absl::StatusOr<Prepared> p = Prepare(*bytes, *inputs, env, options, load_options);
      if (!p.ok()) return fail_or_skip(p.status());
      prepared = std::move(*p);
    }
    std::vector<app::Tensor> live;
    for (size_t i = 0; i < inputs->size(); ++i)
      if (std::find(prepared->frozen.begin(), prepared->frozen.end(), i) == prepared->frozen.end())
        live.push_back((*inputs)[i]);
    const size_t model_inputs = prepared->compiled->inputs().size();
    if (live.size() != model_inputs)
      return fail(absl::StrCat(set.filename().string(), ": ", live.size(), " inputs, the model has ", model_inputs));
    app::Result<std::vector<app::Tensor>> outputs = prepared->context->Run(live, &profile);
    if (!outputs.ok()) return fail_or_skip(Prefixed("run: ", outputs.status()));
    if (outputs->size() != expected->size())
      return fail(absl::StrCat(outputs->size(), " outputs, expected ", expected->size()));
    // A NaN or infinity where the reference is finite fails the case
    // before any tolerance is applied (docs/partitioning.md, precision).
    for (const app::RunProfile::NonFinite& n : profile.nonfinite_outputs)
      if (n.output < expected->size() && AllFinite((*expected)[n.output]))
        return fail(absl::StrCat("output '", n.name, "' holds ", n.nan_count, " NaN and ", n.inf_count,
                                 " Inf where the reference is finite"));
    for (size_t i = 0; i < outputs->size(); ++i) {
      // The judge run's checks use too (CompiledModel::check_output).
      app::Result<app::CompiledModel::OutputCheck> check =
          prepared->compiled->check_output(i, (*outputs)[i], (*expected)[i]);
      if (!check.ok())
        return fail(absl::StrCat(set.filename().string(), ": ", check.status().message()));
      r.rtol = std::max(r.rtol, check->rtol);
      r.atol = std::max(r.atol, check->atol);
      r.depth_allowance = std::max(r.depth_allowance, check->depth_allowance);
      r.capped = r.capped || check->capped;
      for (const app::Numerics& n : check->tolerance.reduced_by)
        if (std::none_of(r.reduced_by.begin(), r.reduced_by.end(), [&](const app::Numerics& m) {
              return m.vendor == n.vendor && m.precision == n.precision;
            }))
          r.reduced_by.push_back(n);
      max_err = std::max(max_err, check->max_abs_error);
      if (!check->passed()) {
        r.max_abs_error = max_err;
        return fail(absl::StrCat(set.filename().string(), ": ", check->failure));
      }
    }
  }
  if (prepared) r.ops_by_vendor = OpsByVendor(profile);
  if (!required_vendor.empty() && prepared && !r.ops_by_vendor.contains(required_vendor))
    return fail(absl::StrCat("no op ran on ", required_vendor, " (",
                             FirstRefusal(prepared->compiled->partition_report(), required_vendor), ")"));
  r.status = "pass";
  r.max_abs_error = max_err;
  if (prepared && !prepared->frozen.empty())
    r.reason = absl::StrCat("specialized: input(s) ", absl::StrJoin(prepared->frozen, ","),
                            " frozen to the test values (constant operands, If conditions, Loop trip counts)");
  return r;
}

// "" or "; compared at the declared tolerance: systolic_npu ran FP16: ..."
std::string ToleranceNote(const CaseResult& r) {
  if (r.reduced_by.empty()) return "";
  std::vector<std::string> parts;
  for (const app::Numerics& n : r.reduced_by)
    parts.push_back(absl::StrFormat("%s ran %s: declared rtol %.3g, atol %.3g", n.vendor, absl::AsciiStrToUpper(n.precision),
                                    n.rtol, n.atol));
  return absl::StrCat("; compared at the declared tolerance: ", absl::StrJoin(parts, "; "),
                      r.capped ? absl::StrCat(" (capped: applied rtol ", r.rtol, ", atol ", r.atol, ")") : "");
}

absl::StatusOr<std::vector<Case>> CollectCases(const Args& args) {
  std::vector<Case> cases;
  for (const std::string& d : args.positionals()) AddDir(d, cases);
  if (auto list = args.Value("list")) {
    std::ifstream in(*list);
    if (!in) return absl::NotFoundError(absl::StrCat("cannot open list '", *list, "'"));
    const fs::path root = args.ValueOr("root", "");
    std::string line;
    while (std::getline(in, line)) {
      const std::string uncommented = line.substr(0, line.find('#'));
      const absl::string_view entry = absl::StripAsciiWhitespace(uncommented);
      if (entry.empty()) continue;
      const fs::path p = root.empty() ? fs::path(std::string(entry)) : root / std::string(entry);
      cases.push_back({std::string(entry), p});
    }
  }
  return cases;
}

}  // namespace

int OnnxTestCommand(const Argv& argv) {
  FlagSpec spec;
  AddCompileFlags(spec);
  spec.switches.insert({"json", "expect-pass"});
  spec.values.insert({"list", "root", "require-vendor"});
  // The import flags but --input-shape: each case's data gives its shapes.
  // An input frozen by name (--freeze-input) takes its value from the flag,
  // not from the case's data (see WithoutFrozenByName).
  spec.repeated.insert("freeze-input");
  spec.switches.insert("no-optimize");
  spec.values.insert("max-folded-bytes");
  spec.repeated.insert("budget");
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok()) return UsageError(std::string(args.status().message()), kUsage);
  if (args->positionals().empty() && !args->Has("list")) return UsageError("onnx-test needs DIR... or --list FILE", kUsage);
  absl::StatusOr<app::CompileOptions> options = AppCompileOptionsFrom(*args);
  if (!options.ok()) return UsageError(std::string(options.status().message()), kUsage);
  // Conformance judges the accelerator itself: a failed invoke is a failure,
  // never hidden by the partition's cpu plan (docs/resilience.md).
  options->fallback = false;
  absl::StatusOr<app::LoadOptions> load_options = OnnxLoadOptionsFrom(*args);
  if (!load_options.ok()) return UsageError(std::string(load_options.status().message()), kUsage);
  if (auto root = args->Value("root")) {
    std::error_code ec;
    if (!fs::is_directory(*root, ec)) {
      std::cerr << "tessera: onnx-test: --root '" << *root << "' does not exist; nothing to run\n";
      return 77;
    }
  }
  absl::StatusOr<std::vector<Case>> cases = CollectCases(*args);
  if (!cases.ok()) return Fail(cases.status());
  absl::StatusOr<app::Environment> env = EnvironmentFrom(*args);
  if (!env.ok()) return Fail(env.status());
  std::vector<CaseResult> results;
  int64_t passed = 0, failed = 0, skipped = 0;
  const bool json = args->Has("json");
  // --require-vendor takes a vendor or a plugin's declared short name.
  std::string required = args->ValueOr("require-vendor", "");
  for (const app::PluginInfo& p : env->plugins())
    if (p.role == "compiler" && !required.empty() && p.short_name == required) required = p.vendor;
  for (const Case& c : *cases) {
    CaseResult r = RunCase(c, *env, *options, *load_options, required);
    if (r.status == "pass") ++passed;
    else if (r.status == "skip") ++skipped;
    else ++failed;
    if (!json) {
      if (r.status == "pass") std::cout << "PASS " << TerminalSafe(r.name) << " (max abs error " << r.max_abs_error << ToleranceNote(r) << ")\n";
      else if (r.status == "skip") std::cout << "SKIP " << TerminalSafe(r.name) << ": " << TerminalSafe(r.reason, TerminalLayout::kText) << "\n";
      else std::cout << "FAIL " << TerminalSafe(r.name) << ": " << TerminalSafe(r.reason, TerminalLayout::kText) << ToleranceNote(r) << "\n";
    }
    results.push_back(std::move(r));
  }
  if (json) {
    JsonWriter j;
    j.BeginObject().Field("precision", options->precision).Key("cases").BeginArray();
    for (const CaseResult& r : results) {
      j.BeginObject().Field("name", r.name).Field("status", r.status);
      // JSON has no infinity: an infinite error (NaN against a number, or
      // infinities that differ) is the string "inf".
      if (std::isinf(r.max_abs_error))
        j.Field("max_abs_error", "inf");
      else
        j.Key("max_abs_error").Number(r.max_abs_error);
      j.Field("reason", r.reason);
      j.Key("depth_allowance").Number(r.depth_allowance);
      j.Key("ops_by_vendor").BeginObject();
      for (const auto& [vendor, n] : r.ops_by_vendor) j.Field(vendor, n);
      j.EndObject();
      // Present when a reduced-precision partition's declared tolerance
      // replaced the runner's own.
      if (!r.reduced_by.empty()) {
        j.Key("tolerance").BeginObject().Key("rtol").Number(r.rtol).Key("atol").Number(r.atol).Field("capped", r.capped);
        j.Key("declared_by").BeginArray();
        for (const app::Numerics& n : r.reduced_by)
          j.BeginObject().Field("vendor", n.vendor).Field("precision", n.precision)
              .Field("description", n.description).EndObject();
        j.EndArray().EndObject();
      }
      j.EndObject();
    }
    j.EndArray();
    j.Key("totals").BeginObject().Field("passed", passed).Field("failed", failed).Field("skipped", skipped).EndObject();
    j.EndObject();
    std::cout << j.str() << "\n";
  } else {
    std::cout << "passed " << passed << ", failed " << failed << ", skipped " << skipped << "\n";
  }
  // --expect-pass (the conformance list): a skipped case is a regression too.
  if (args->Has("expect-pass") && skipped > 0) {
    if (!json) std::cout << "--expect-pass: " << skipped << " listed case(s) no longer run\n";
    return 1;
  }
  return failed > 0 ? 1 : 0;
}

}  // namespace tessera::cli
