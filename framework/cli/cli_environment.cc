#include "cli/cli_environment.h"
#include "cli/shorthand_flags.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/dtype.h"
#include "base/exception_boundary.h"
#include "base/install_layout.h"
#include "base/status_macros.h"
#include "base/terminal_text.h"
#include "io/tensor_proto.h"
#include "model/compiled_target.h"
#include "model/model_loader.h"
#include "onnx/onnx_importer.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::cli {
namespace fs = std::filesystem;

void AddPluginFlags(FlagSpec& spec) {
  spec.repeated.insert("plugin-dir");
}

void AddCompileFlags(FlagSpec& spec) {
  AddPluginFlags(spec);
  spec.values.insert({"accelerators", "mode", "soc", "kernels", "policy", "min-ops", "max-partitions"});
  spec.repeated.insert("option");
}

void AddStrictFlag(FlagSpec& spec) { spec.switches.insert("strict"); }

PartitionReport ReportOf(const CompiledModel& model, double load_ms) {
  PartitionReport report = BuildPartitionReport(model);
  report.timings.load_ms = load_ms;
  return report;
}

absl::Status CheckStrict(const Args& args, const PartitionReport& report) {
  if (!args.Has("strict")) return absl::OkStatus();
  const size_t count = report.fallback_op_count();
  if (count == 0) return absl::OkStatus();
  std::vector<std::string> what;
  for (const ReportedFallbackGroup& g : report.fallback_groups)
    what.push_back(absl::StrCat(g.op_ids.size(), "x ", g.op_type, " -> ", g.vendor, " (", g.reasons, ")"));
  for (const FallbackNote& f : report.compile_fallbacks)
    what.push_back(absl::StrCat(f.op_ids.size(), " ops given up by ", f.vendor, " (", f.reason, ")"));
  return absl::FailedPreconditionError(
      absl::StrCat("--strict: ", count, " ops fell back: ", absl::StrJoin(what, "; ")));
}

PluginRegistry LoadPlugins(const Args& args, PluginUse use) {
  PluginSearchOptions options;
  options.load_compilers = use == PluginUse::kCompileAndRun;
  options.probe_in_child = args.Has("probe");  // `plugins --probe`
  for (const std::string& d : args.All("plugin-dir")) {
    std::error_code ec;
    // A directory named on the command line is named: resolve it.
    options.directories.push_back(fs::absolute(d, ec).string());
  }
  options.bundled_directory = BundledPluginDirectory();
  return PluginRegistry::Discover(options);
}

PluginUse PluginUseFor(const Graph& graph) {
  return IsCompiled(graph) ? PluginUse::kRunOnly : PluginUse::kCompileAndRun;
}

std::vector<std::string> BundledSocNames() { return SocNamesIn(BundledSocDirectory()); }

absl::StatusOr<SocSelection> ResolveSoc(const Args& args) {
  const std::string requested = args.ValueOr("soc", "ref-phone");
  absl::StatusOr<SocSelection> soc = FindSoc(requested, BundledSocDirectory());
  // The default SoC not installed: the plugins use their own default.
  if (!soc.ok() && !args.Has("soc")) return SocSelection{requested, ""};
  return soc;
}

void AdoptCompiledSocUnlessGiven(const Args& args, const Graph& graph, CompileOptions& options) {
  if (args.Has("soc") || !IsCompiled(graph)) return;
  const std::optional<std::string> soc = CompiledSoc(graph);
  if (!soc) return;
  absl::StatusOr<SocSelection> found = FindSoc(*soc, BundledSocDirectory());
  options.soc = found.ok() ? *std::move(found) : SocSelection{*soc, ""};
}

absl::StatusOr<CompileOptions> CompileOptionsFrom(const Args& args) {
  CompileOptions o;
  if (auto acc = args.Value("accelerators")) {
    o.accelerators.clear();
    for (absl::string_view part : absl::StrSplit(*acc, ',', absl::SkipEmpty())) o.accelerators.emplace_back(part);
    if (o.accelerators.empty()) return absl::InvalidArgumentError("--accelerators is empty");
  }
  const std::string mode = args.ValueOr("mode", "aot");
  if (mode == "aot") o.mode = CompileMode::kAot;
  else if (mode == "jit") o.mode = CompileMode::kJit;
  else return absl::InvalidArgumentError(absl::StrCat("--mode must be aot or jit, not '", mode, "'"));
  absl::StatusOr<SocSelection> soc = ResolveSoc(args);
  if (!soc.ok()) return soc.status();
  o.soc = *soc;
  ASSIGN_OR_RETURN(o.budgets, BudgetsFrom(args));
  for (const std::string& kv : args.All("option")) {
    size_t eq = kv.find('=');
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
    absl::StatusOr<PartitionPolicy> policy = ParsePartitionPolicy(*p);
    if (!policy.ok()) return policy.status();
    o.partitioning.policy = *policy;
  }
  for (auto [flag, field] : {std::pair{"min-ops", &o.partitioning.min_ops},
                             std::pair{"max-partitions", &o.partitioning.max_partitions}}) {
    auto text = args.Value(flag);
    if (!text) continue;
    if (!absl::SimpleAtoi(*text, field) || *field < 1)
      return absl::InvalidArgumentError(absl::StrCat("--", flag, " must be a positive integer, not '", *text, "'"));
  }
  return o;
}

void AddImportFlags(FlagSpec& spec) {
  spec.switches.insert("no-optimize");
  spec.repeated.insert("budget");
  spec.values.insert("max-folded-bytes");
  spec.repeated.insert("input-shape");
  spec.repeated.insert("freeze-input");
}

absl::StatusOr<Budgets> BudgetsFrom(const Args& args) {
  Budgets budgets;
  for (const std::string& flag : args.All("budget")) RETURN_IF_ERROR(SetBudget(budgets, flag));
  return budgets;
}

absl::StatusOr<onnx_import::ImportOptions> ImportOptionsFrom(const Args& args) {
  onnx_import::ImportOptions options;
  ASSIGN_OR_RETURN(options.budgets, BudgetsFrom(args));
  for (const std::string& flag : args.All("input-shape"))
    RETURN_IF_ERROR(onnx_import::ParseInputShapeFlag(flag, options));
  for (const std::string& flag : args.All("freeze-input"))
    RETURN_IF_ERROR(onnx_import::ParseFreezeInputFlag(flag, options));
  options.optimize = !args.Has("no-optimize");
  if (auto text = args.Value("max-folded-bytes")) {
    if (!absl::SimpleAtoi(*text, &options.max_folded_constant_bytes) || options.max_folded_constant_bytes < 0)
      return absl::InvalidArgumentError(
          absl::StrCat("--max-folded-bytes must be a non-negative integer (bytes), not '", *text, "'"));
  }
  return options;
}

static absl::StatusOr<Graph> LoadModelUntimed(const Args& args);

absl::StatusOr<Graph> LoadModel(const Args& args, double* load_ms) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Graph> graph = LoadModelUntimed(args);
  if (load_ms != nullptr)
    *load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return graph;
}

static absl::StatusOr<Graph> LoadModelUntimed(const Args& args) {
  const std::string& path = args.positionals()[0];
  if (fs::path(path).extension() != ".onnx") {
    for (const char* flag : {"input-shape", "freeze-input", "no-optimize", "max-folded-bytes"})
      if (args.Has(flag))
        return absl::InvalidArgumentError(absl::StrCat("--", flag, " applies to .onnx models; '", path,
                                                       "' is a Tessera model, imported with fixed shapes"));
    ASSIGN_OR_RETURN(const Budgets budgets, BudgetsFrom(args));
    return LoadModelFile(path, budgets);
  }
  ASSIGN_OR_RETURN(onnx_import::ImportOptions options, ImportOptionsFrom(args));
  absl::StatusOr<Graph> graph = onnx_import::ImportOnnxFile(path, options);
  const std::optional<std::string> dir = args.Value("inputs");
  if (graph.ok() || !dir || !onnx_import::IsDynamicInputsError(graph.status())) return graph;
  // Read whole and unbounded, unlike ReadInputSet: a dynamic dimension puts
  // no limit on a file's size. Only dynamic models pay this second read.
  ASSIGN_OR_RETURN(const std::vector<HostTensor> values, ReadTensorSet(*dir, "input"));
  for (const HostTensor& t : values) options.positional_input_shapes.push_back(t.shape);
  graph = onnx_import::ImportOnnxFile(path, options);
  // InvalidArgument now: a file's shape against a fixed dim, or shapes the
  // graph cannot take; either way DIR is where to look.
  if (graph.status().code() == absl::StatusCode::kInvalidArgument)
    return absl::InvalidArgumentError(absl::StrCat("--inputs '", *dir, "' (input_K.pb shapes for the dynamic inputs): ",
                                                   graph.status().message()));
  return graph;
}

bool IsCompiled(const Graph& g) {
  for (const Op& op : g.ops)
    if (op.type != TSR_OP_DISPATCH) return false;
  return true;
}

CompileCacheLog StderrCacheLog() {
  return [](CompileCacheLogLevel, const std::string& line) {
    std::cerr << "tessera: " << TerminalSafe(line, TerminalLayout::kText) << "\n";
  };
}

void AddCacheFlags(FlagSpec& spec) { spec.values.insert({"cache-dir", "cache-max-bytes"}); }

absl::StatusOr<CompileCacheOptions> CacheOptionsFrom(const Args& args) {
  CompileCacheOptions o;
  o.directory = args.ValueOr("cache-dir", "");
  if (auto text = args.Value("cache-max-bytes")) {
    if (!args.Has("cache-dir")) return absl::InvalidArgumentError("--cache-max-bytes needs --cache-dir");
    if (!absl::SimpleAtoi(*text, &o.max_bytes) || o.max_bytes == 0)
      return absl::InvalidArgumentError(absl::StrCat("--cache-max-bytes must be a positive integer, not '", *text, "'"));
  }
  if (args.Has("cache-dir") && o.directory.empty()) return absl::InvalidArgumentError("--cache-dir is empty");
  return o;
}

absl::StatusOr<CompiledModel> CompileUnlessCompiled(const Graph& graph, const PluginRegistry& registry,
                                                   const CompileOptions& options, const CompileCacheOptions& cache,
                                                   CompileCacheReport* cache_report) {
  if (!IsCompiled(graph)) {
    return CompileWithCache(graph, registry, options, cache, StderrCacheLog(), cache_report);
  }
  RETURN_IF_ERROR(CheckCompiledTarget(graph, options.soc.name));
  if (cache_report != nullptr) {
    *cache_report = {};
    cache_report->directory = cache.directory;
    if (!cache.directory.empty()) cache_report->disabled_reason = "the model is already compiled: nothing to cache";
  }
  CompiledModel compiled;
  compiled.graph = graph;
  compiled.source = graph;
  compiled.soc = options.soc;
  return compiled;
}

absl::StatusOr<std::vector<HostTensor>> ReadInputSet(const std::string& dir, const Graph& graph) {
  ASSIGN_OR_RETURN(const std::vector<std::string> paths, ListTensorSet(dir, "input"));
  if (paths.size() != graph.inputs.size()) {
    std::vector<std::string> names;
    for (int32_t t : graph.inputs) names.push_back(graph.tensors[t].name);
    return absl::InvalidArgumentError(absl::StrCat("--inputs '", dir, "' has ", paths.size(),
                                                   " input_K.pb file(s); the model takes ", graph.inputs.size(), " (",
                                                   absl::StrJoin(names, ", "), "), matched by position"));
  }
  // Each file is checked against the size its tensor can take before it
  // is read: a huge input_K.pb is refused, not loaded whole.
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < paths.size(); ++i) {
    const uint64_t limit = MaxTensorProtoFileBytes(graph.tensors[graph.inputs[i]].shape);
    ASSIGN_OR_RETURN(HostTensor t, ReadTensorProtoFile(paths[i], limit));
    inputs.push_back(std::move(t));
  }
  return inputs;
}

absl::StatusOr<uint32_t> SeedFrom(const Args& args) {
  uint32_t seed = 1;
  if (auto text = args.Value("seed"); text && !absl::SimpleAtoi(*text, &seed))
    return absl::InvalidArgumentError(absl::StrCat("--seed must be an integer in [0, 4294967295], not '", *text, "'"));
  return seed;
}

absl::StatusOr<std::vector<HostTensor>> InputsFrom(const Args& args, const Graph& graph) {
  if (auto dir = args.Value("inputs")) return ReadInputSet(*dir, graph);
  ASSIGN_OR_RETURN(const uint32_t seed, SeedFrom(args));
  // A model input of gigabytes is legal; memory for it may not be there.
  return CatchAsStatus("--random inputs", [&]() -> absl::StatusOr<std::vector<HostTensor>> {
    return RandomInputs(graph, seed);
  });
}

std::vector<HostTensor> RandomInputs(const Graph& graph, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<HostTensor> out;
  for (int32_t t : graph.inputs) {
    const Tensor& tensor = graph.tensors[t];
    HostTensor h{tensor.name, tensor.dtype, tensor.shape, std::vector<uint8_t>(tensor.byte_size())};
    const int64_t n = tensor.element_count();
    std::uniform_real_distribution<float> real(-1.0f, 1.0f);
    std::uniform_int_distribution<int> small(0, 2);  // safe as indices too
    for (int64_t i = 0; i < n; ++i) {
      switch (tensor.dtype) {
        case TSR_DTYPE_F32: reinterpret_cast<float*>(h.data.data())[i] = real(rng); break;
        case TSR_DTYPE_F16: {
          // A value in (-1, 1): random sign, magnitude spread over the fp16
          // bit patterns below 1.0 (not uniform in value; fine for smoke runs).
          const float v = real(rng);
          const uint16_t sign = v < 0 ? 0x8000 : 0;
          const uint16_t mag = static_cast<uint16_t>(std::min(1.0f, std::abs(v)) * 0x3BFF);
          reinterpret_cast<uint16_t*>(h.data.data())[i] = sign | mag;
          break;
        }
        case TSR_DTYPE_I8: reinterpret_cast<int8_t*>(h.data.data())[i] = static_cast<int8_t>(rng() % 256 - 128); break;
        case TSR_DTYPE_U8: h.data[i] = static_cast<uint8_t>(rng() % 256); break;
        case TSR_DTYPE_I32: reinterpret_cast<int32_t*>(h.data.data())[i] = small(rng); break;
        case TSR_DTYPE_I64: reinterpret_cast<int64_t*>(h.data.data())[i] = small(rng); break;
        case TSR_DTYPE_BOOL: h.data[i] = static_cast<uint8_t>(rng() % 2); break;
      }
    }
    out.push_back(std::move(h));
  }
  return out;
}

int Fail(const absl::Status& status) {
  // Error texts quote names from models and plugins.
  std::cerr << "tessera: error: " << TerminalSafe(status.message(), TerminalLayout::kText) << "\n";
  return 1;
}

int UsageError(const std::string& message, const std::string& usage) {
  std::cerr << "tessera: " << TerminalSafe(message, TerminalLayout::kText) << "\nusage: " << usage << "\n";
  return 2;
}

}  // namespace tessera::cli
