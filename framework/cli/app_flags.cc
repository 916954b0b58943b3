#include "framework/cli/app_flags.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "framework/app/api_terms.h"
#include "framework/core/base/status_macros.h"
#include "framework/cli/cache_flags.h"
#include "framework/cli/cli_environment.h"
#include "framework/cli/resilience_flags.h"
#include "framework/cli/shorthand_flags.h"
#include "tessera/app/tensor_files.hpp"

namespace tessera::cli {
namespace fs = std::filesystem;

absl::Status ToAbsl(const app::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.code()), status.message());
}

// The CLI's users typed flags: app errors name them, not the app options.
const bool kCliTermsInErrors = (app::KeepCliTermsInErrors(), true);

absl::StatusOr<app::Environment> EnvironmentFrom(const Args& args) {
  app::EnvironmentOptions options;
  for (const std::string& d : args.All("plugin-dir")) {
    std::error_code ec;
    options.plugin_directories.push_back(fs::absolute(d, ec).string());
  }
  options.probe_in_child = args.Has("probe");  // `plugins --probe`
  // `tessera plugins` lists an empty search; commands that need a plugin say so with their own hint.
  options.require_plugins = false;
  RouteCacheLog(args, options);  // --cache-dir: the cache's hit/miss lines on stderr
  return ToAbsl(app::Environment::Create(options));
}

namespace {

bool IsOnnxPath(const std::string& path) { return fs::path(path).extension() == ".onnx"; }

// Shapes by position from DIR's input_K.pb files, for a dynamic model.
// Read whole and unbounded: a dynamic dimension puts no limit on a file's
// size. Only dynamic models pay this extra read.
app::Result<std::vector<std::vector<int64_t>>> ShapesOfInputFiles(const std::string& dir) {
  app::Result<std::vector<std::string>> paths = app::ListTensorFiles(dir, "input");
  if (!paths.ok()) return paths.status();
  std::vector<std::vector<int64_t>> shapes;
  for (const std::string& path : *paths) {
    app::Result<app::Tensor> t = app::ReadTensorFile(path);
    if (!t.ok()) return t.status();
    shapes.push_back(t->info().shape);
  }
  return shapes;
}

}  // namespace

namespace {

// --budget NAME=VALUE, parsed here (K/M/G/T suffixes, clear errors) and
// handed to the app by name.
absl::Status AddBudgets(const Args& args, app::LoadOptions& options) {
  ASSIGN_OR_RETURN(const Budgets budgets, BudgetsFrom(args));
  for (const std::string& flag : args.All("budget")) {
    const std::string name = flag.substr(0, flag.find('='));
    if (const std::optional<uint64_t> value = BudgetByName(budgets, name)) options.budgets[name] = *value;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<app::LoadOptions> OnnxLoadOptionsFrom(const Args& args) {
  app::LoadOptions options;
  options.format = app::ModelFormat::kOnnx;
  RETURN_IF_ERROR(AddBudgets(args, options));
  // The importer's own flag parsers, so names, forms and errors match `tessera import`.
  ASSIGN_OR_RETURN(const onnx_import::ImportOptions import, ImportOptionsFrom(args));
  options.input_shapes = import.input_shapes;
  options.frozen_inputs = import.frozen_inputs;
  options.optimize = import.optimize;
  if (args.Has("max-folded-bytes")) options.max_folded_bytes = import.max_folded_constant_bytes;
  return options;
}

absl::StatusOr<app::LoadOptions> LoadOptionsFrom(const Args& args) {
  const std::string& path = args.positionals()[0];
  if (IsOnnxPath(path)) {
    if (args.Has("verify"))
      return absl::InvalidArgumentError(absl::StrCat("--verify applies to .tsr models (their checksums); '", path,
                                                     "' is an ONNX model, imported in memory"));
    ASSIGN_OR_RETURN(app::LoadOptions options, OnnxLoadOptionsFrom(args));
    if (const std::optional<std::string> dir = args.Value("inputs"))
      options.dynamic_input_shapes = [dir = *dir] { return ShapesOfInputFiles(dir); };
    return options;
  }
  for (const char* flag : {"input-shape", "freeze-input", "no-optimize", "max-folded-bytes"})
    if (args.Has(flag))
      return absl::InvalidArgumentError(absl::StrCat("--", flag, " applies to .onnx models; '", path,
                                                     "' is a Tessera model, imported with fixed shapes"));
  app::LoadOptions options;
  options.format = app::ModelFormat::kTsr;
  RETURN_IF_ERROR(AddBudgets(args, options));
  ASSIGN_OR_RETURN(options.verify, VerifyLevelFrom(args));
  return options;
}

absl::StatusOr<app::Model> LoadAppModel(const Args& args, std::vector<app::ImportDiagnostic>* out_diagnostics) {
  ASSIGN_OR_RETURN(app::LoadOptions options, LoadOptionsFrom(args));
  bool asked_input_files = false;
  if (options.dynamic_input_shapes) {
    options.dynamic_input_shapes = [ask = options.dynamic_input_shapes, &asked_input_files] {
      asked_input_files = true;
      return ask();
    };
  }
  app::DiagnosedLoad load = app::LoadWithDiagnostics(args.positionals()[0], options);
  if (out_diagnostics != nullptr) *out_diagnostics = std::move(load.diagnostics);
  app::Result<app::Model>& model = load.model;
  // InvalidArgument after DIR's shapes were taken: a file's shape against
  // a fixed dim, or shapes the graph cannot take; DIR is where to look.
  if (!model.ok() && asked_input_files && model.status().code() == TSR_INVALID_ARGUMENT)
    return absl::InvalidArgumentError(absl::StrCat("--inputs '", *args.Value("inputs"),
                                                   "' (input_K.pb shapes for the dynamic inputs): ",
                                                   model.status().message()));
  return ToAbsl(std::move(model));
}

absl::StatusOr<app::CompileOptions> AppCompileOptionsFrom(const Args& args) {
  app::CompileOptions o;
  if (auto acc = args.Value("accelerators")) {
    for (absl::string_view part : absl::StrSplit(*acc, ',', absl::SkipEmpty())) o.accelerators.emplace_back(part);
    if (o.accelerators.empty()) return absl::InvalidArgumentError("--accelerators is empty");
  }
  const std::string mode = args.ValueOr("mode", "aot");
  if (mode == "aot") o.mode = app::CompileMode::kAot;
  else if (mode == "jit") o.mode = app::CompileMode::kJit;
  else return absl::InvalidArgumentError(absl::StrCat("--mode must be aot or jit, not '", mode, "'"));
  // --soc NAME or FILE; without it ref-phone when it is installed, else
  // the plugins' own default.
  if (auto soc = args.Value("soc")) {
    // An unknown name is an error listing the bundled ones, before anything loads.
    RETURN_IF_ERROR(ResolveSoc(args).status());
    o.soc = *soc;
  } else {
    const std::vector<std::string> names = BundledSocNames();
    if (std::find(names.begin(), names.end(), "ref-phone") != names.end()) o.soc = "ref-phone";
  }
  for (const std::string& kv : args.All("option")) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      return absl::InvalidArgumentError(absl::StrCat("--option wants KEY=VALUE, got '", kv, "'"));
    o.plugin_options.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  if (auto k = args.Value("kernels")) {
    if (*k != "reference" && *k != "fast")
      return absl::InvalidArgumentError(absl::StrCat("--kernels must be reference or fast, not '", *k, "'"));
    o.plugin_options.emplace_back(std::string(OptionForFlag("kernels")), *k);
  }
  if (auto p = args.Value("policy")) {
    if (*p != "cost" && *p != "greedy" && *p != "cpu")
      return absl::InvalidArgumentError(absl::StrCat("unknown --policy '", *p, "' (want cost, greedy or cpu)"));
    o.policy = *p;
  }
  for (auto [flag, field] : {std::pair{"min-ops", &o.min_ops}, std::pair{"max-partitions", &o.max_partitions}}) {
    auto text = args.Value(flag);
    if (!text) continue;
    if (!absl::SimpleAtoi(*text, field) || *field < 1)
      return absl::InvalidArgumentError(absl::StrCat("--", flag, " must be a positive integer, not '", *text, "'"));
  }
  // --precision fp32|allow-fp16|allow-int8, and --calibration DIR: input
  // sets that prove FP16 ranges (compile also reads it for --quantize).
  o.precision = args.ValueOr("precision", "fp32");
  if (o.precision != "fp32" && o.precision != "allow-fp16" && o.precision != "allow-int8")
    return absl::InvalidArgumentError(
        absl::StrCat("unknown --precision '", o.precision, "' (want fp32, allow-fp16 or allow-int8)"));
  if (auto dir = args.Value("calibration")) {
    if (o.precision == "fp32" && !args.Has("quantize"))
      return absl::InvalidArgumentError(
          "--calibration is only used with --quantize int8, or to prove FP16 ranges under --precision allow-fp16 or "
          "allow-int8");
    o.calibration_dir = *dir;
  }
  // --deadline-ms, --max-retries, --no-fallback (run, bench).
  RETURN_IF_ERROR(ApplyResilienceFlags(args, o));
  // --cache-dir, --cache-max-bytes (compile, run, bench).
  RETURN_IF_ERROR(ApplyCacheFlags(args, o));
  return o;
}

void LeaveSocToCompiledModel(const Args& args, const app::Model& model, app::CompileOptions& options) {
  if (!args.Has("soc") && !model.compiled_soc().empty()) options.soc.clear();
}

absl::Status CheckAppFlags(const Args& args) {
  RETURN_IF_ERROR(AppCompileOptionsFrom(args).status());
  RETURN_IF_ERROR(VerifyLevelFrom(args).status());
  return ImportOptionsFrom(args).status();
}

absl::Status CheckStrict(const Args& args, const app::PartitionReport& report) {
  if (!args.Has("strict")) return absl::OkStatus();
  const size_t count = report.fallback_op_count();
  if (count == 0) return absl::OkStatus();
  std::vector<std::string> what;
  for (const app::PartitionReport::FallbackGroup& g : report.fallback_groups)
    what.push_back(absl::StrCat(g.op_ids.size(), "x ", g.op_type, " -> ", g.vendor, " (", g.reasons, ")"));
  for (const app::PartitionReport::CompileFallback& f : report.compile_fallbacks)
    what.push_back(absl::StrCat(f.op_ids.size(), " ops given up by ", f.vendor, " (", f.reason, ")"));
  return absl::FailedPreconditionError(
      absl::StrCat("--strict: ", count, " ops fell back: ", absl::StrJoin(what, "; ")));
}

absl::StatusOr<std::vector<app::Tensor>> AppInputsFrom(const Args& args, const std::vector<app::TensorInfo>& inputs) {
  if (const std::optional<std::string> dir = args.Value("inputs")) {
    ASSIGN_OR_RETURN(const std::vector<std::string> paths, ToAbsl(app::ListTensorFiles(*dir, "input")));
    if (paths.size() != inputs.size()) {
      std::vector<std::string> names;
      for (const app::TensorInfo& t : inputs) names.push_back(t.name);
      return absl::InvalidArgumentError(absl::StrCat("--inputs '", *dir, "' has ", paths.size(),
                                                     " input_K.pb file(s); the model takes ", inputs.size(), " (",
                                                     absl::StrJoin(names, ", "), "), matched by position"));
    }
    // Each file is checked against the size its tensor can take before it
    // is read: a huge input_K.pb is refused, not loaded whole.
    std::vector<app::Tensor> out;
    for (size_t i = 0; i < paths.size(); ++i) {
      ASSIGN_OR_RETURN(app::Tensor t, ToAbsl(app::ReadTensorFile(paths[i], app::MaxTensorFileBytes(inputs[i].shape))));
      out.push_back(std::move(t));
    }
    return out;
  }
  ASSIGN_OR_RETURN(const uint32_t seed, SeedFrom(args));
  // A model input of gigabytes is legal; memory for it may not be there.
  try {
    return RandomTensors(inputs, seed);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError("--random inputs: out of memory for the model's inputs");
  }
}

std::vector<app::Tensor> RandomTensors(const std::vector<app::TensorInfo>& inputs, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<app::Tensor> out;
  for (const app::TensorInfo& info : inputs) {
    app::Tensor t = app::Tensor::Allocate(info);
    size_t n = 1;
    for (int64_t d : info.shape) n *= d < 0 ? 0 : static_cast<size_t>(d);
    std::uniform_real_distribution<float> real(-1.0f, 1.0f);
    std::uniform_int_distribution<int> small(0, 2);  // safe as indices too
    for (size_t i = 0; i < n; ++i) {
      switch (info.dtype) {
        case TSR_DTYPE_F32: t.as<float>()[i] = real(rng); break;
        case TSR_DTYPE_F16: {
          // A value in (-1, 1): random sign, magnitude spread over the fp16
          // bit patterns below 1.0 (not uniform in value; fine for smoke runs).
          const float v = real(rng);
          const uint16_t sign = v < 0 ? 0x8000 : 0;
          const uint16_t mag = static_cast<uint16_t>(std::min(1.0f, std::abs(v)) * 0x3BFF);
          t.as<uint16_t>()[i] = sign | mag;
          break;
        }
        case TSR_DTYPE_I8: t.as<int8_t>()[i] = static_cast<int8_t>(rng() % 256 - 128); break;
        case TSR_DTYPE_U8: t.as<uint8_t>()[i] = static_cast<uint8_t>(rng() % 256); break;
        case TSR_DTYPE_I32: t.as<int32_t>()[i] = small(rng); break;
        case TSR_DTYPE_I64: t.as<int64_t>()[i] = small(rng); break;
        case TSR_DTYPE_BOOL: t.as<uint8_t>()[i] = static_cast<uint8_t>(rng() % 2); break;
        default: break;
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace tessera::cli
