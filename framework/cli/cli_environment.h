// What every `tessera` subcommand shares: where the bundled plugins and SoC
// files are (relative to the executable, so no environment variable is
// needed), the plugin registry, model loading, and the common flags.
#ifndef TESSERA_FRAMEWORK_CLI_CLI_ENVIRONMENT_H_
#define TESSERA_FRAMEWORK_CLI_CLI_ENVIRONMENT_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "base/install_layout.h"
#include "cli/cli_args.h"
#include "compile/cached_compile.h"
#include "compile/compile_driver.h"
#include "graph/host_tensor.h"
#include "onnx/onnx_importer.h"
#include "partition/partition_report.h"
#include "plugin_host/plugin_registry.h"

namespace tessera::cli {

// Flags understood by every command that loads plugins.
void AddPluginFlags(FlagSpec& spec);
// ... and by commands that compile: --accelerators, --mode, --soc,
// --kernels, --option, and the partitioning policy (--policy, --min-ops,
// --max-partitions).
void AddCompileFlags(FlagSpec& spec);
// --strict (partition, compile, run, bench): any fallback is exit 1.
void AddStrictFlag(FlagSpec& spec);


// kRunOnly opens dispatch libraries only: what running an already compiled
// model needs, so no compiler library is even loaded.
enum class PluginUse { kCompileAndRun, kRunOnly };
PluginRegistry LoadPlugins(const Args& args, PluginUse use = PluginUse::kCompileAndRun);
// kRunOnly for a compiled model, else kCompileAndRun.
PluginUse PluginUseFor(const Graph& graph);

// --soc NAME (default ref-phone) resolved to the bundled file, or a path to
// a .soc file. An unknown name is an error listing the bundled ones.
absl::StatusOr<SocSelection> ResolveSoc(const Args& args);
std::vector<std::string> BundledSocNames();

// --accelerators, --mode, --soc, --option, --kernels, --policy, --min-ops,
// --max-partitions.
absl::StatusOr<CompileOptions> CompileOptionsFrom(const Args& args);

// The partition report of a compile, with the model's load time (ms) that
// the command measured.
PartitionReport ReportOf(const CompiledModel& model, double load_ms);
// With --strict, an error naming every fallback of `report` (by op type
// and reason), for vendors and CI that must know; OK otherwise. Commands
// print their report first, then return this.
absl::Status CheckStrict(const Args& args, const PartitionReport& report);

// Flags of every command that takes a model: --budget NAME=VALUE
// (repeatable, any model), and for an .onnx --input-shape NAME=D0,D1,...
// (repeatable), --no-optimize, --max-folded-bytes N.
void AddImportFlags(FlagSpec& spec);
// The --budget flags over the defaults (base/budgets.h); an unknown name
// or a bad value is a usage error.
absl::StatusOr<Budgets> BudgetsFrom(const Args& args);
// The import options of those flags (`import` and LoadModel use these
// alone); an error is a bad flag value, a usage error.
absl::StatusOr<onnx_import::ImportOptions> ImportOptionsFrom(const Args& args);

// MODEL (the first positional): a .tsr as written (the import flags are
// refused: its shapes are fixed), or an .onnx imported in memory with
// ImportOptionsFrom(args). When inputs are left dynamic and the command has
// --inputs DIR (run, bench), DIR's input_K.pb shapes fill them, by
// position, as onnx-test does.
// `load_ms`, when given, receives the time it took.
absl::StatusOr<Graph> LoadModel(const Args& args, double* load_ms = nullptr);

// True when every op is a DISPATCH op: an AOT-compiled model, which runs
// where only the dispatch libraries are installed.
bool IsCompiled(const Graph& graph);

// A compiled model run without --soc runs for the SoC it was compiled for
// (model/compiled_target.h), not the default one.
void AdoptCompiledSocUnlessGiven(const Args& args, const Graph& graph, CompileOptions& options);
// Compiles `graph`, or wraps an already compiled one unchanged (refused
// when it was compiled for another SoC than options.soc). With a
// cache directory, through the compile cache (`cache_report` tells what
// it did); its lines go to stderr.
absl::StatusOr<CompiledModel> CompileUnlessCompiled(const Graph& graph, const PluginRegistry& registry,
                                                   const CompileOptions& options,
                                                   const CompileCacheOptions& cache = {},
                                                   CompileCacheReport* cache_report = nullptr);
// --cache-dir D and --cache-max-bytes N (compile, run, bench).
void AddCacheFlags(FlagSpec& spec);
absl::StatusOr<CompileCacheOptions> CacheOptionsFrom(const Args& args);
// The cache's log lines on stderr, "tessera: compile cache: ...".
CompileCacheLog StderrCacheLog();

// --inputs DIR: DIR/input_0.pb, input_1.pb, ... (ONNX TensorProto), one per
// graph input, matched by position. A count mismatch names DIR and the
// inputs the model takes; dtype and shape are checked by Executor::Run.
absl::StatusOr<std::vector<HostTensor>> ReadInputSet(const std::string& dir, const Graph& graph);

// Deterministic pseudo-random inputs matching the graph's inputs.
std::vector<HostTensor> RandomInputs(const Graph& graph, uint32_t seed);

// --seed N of the random inputs (default 1); InvalidArgument when N is not
// an integer in [0, 2^32).
absl::StatusOr<uint32_t> SeedFrom(const Args& args);

// The model's inputs as `run` and `bench` take them: --inputs DIR, else
// seeded random ones (--seed).
absl::StatusOr<std::vector<HostTensor>> InputsFrom(const Args& args, const Graph& graph);

// Prints the error and returns exit code 1.
int Fail(const absl::Status& status);
int UsageError(const std::string& message, const std::string& usage);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_CLI_ENVIRONMENT_H_
