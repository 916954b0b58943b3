// `tessera inspect`, `tessera partition`, `tessera compile`: the model file
// and what the framework would do with it.
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/dtype.h"
#include "base/json_writer.h"
#include "base/status_macros.h"
#include "base/terminal_text.h"
#include "cli/cli_environment.h"
#include "cli/commands.h"
#include "cli/plan_picture_files.h"
#include "compile/compile_driver.h"
#include "model/model_writer.h"
#include "partition/partition_report.h"
#include "quantize/post_training_quantization.h"
#include "tessera/bytecode.h"
#include "tessera/ops.h"

namespace tessera::cli {
namespace {

std::string ShapeText(const std::vector<int64_t>& s) { return absl::StrCat("[", absl::StrJoin(s, ","), "]"); }

absl::Status Inspect(const Args& args) {
  ASSIGN_OR_RETURN(Graph g, LoadModel(args));
  size_t constant_bytes = 0, constants = 0;
  for (const Tensor& t : g.tensors)
    if (t.is_constant) { constant_bytes += t.data.size(); ++constants; }
  std::vector<tsr_bytecode_header> headers;
  for (const BytecodeBlob& b : g.bytecodes) {
    tsr_bytecode_header h{};
    char err[160];
    if (tsr_bytecode_verify(b.bytes.data(), b.bytes.size(), nullptr, &h, err, sizeof(err)) != TSR_OK)
      return absl::DataLossError(absl::StrCat("bytecode for vendor '", b.vendor, "' fails verification: ", err));
    headers.push_back(h);
  }
  if (args.Has("json")) {
    JsonWriter j;
    j.BeginObject().Field("name", g.name).Field("tensor_count", static_cast<uint64_t>(g.tensors.size()))
        .Field("op_count", static_cast<uint64_t>(g.ops.size())).Field("constant_count", static_cast<uint64_t>(constants))
        .Field("constant_bytes", static_cast<uint64_t>(constant_bytes));
    auto io = [&](const char* key, const std::vector<int32_t>& list) {
      j.Key(key).BeginArray();
      for (int32_t t : list) {
        j.BeginObject().Field("name", g.tensors[t].name).Field("dtype", DTypeName(g.tensors[t].dtype)).Key("shape").BeginArray();
        for (int64_t d : g.tensors[t].shape) j.Int(d);
        j.EndArray().EndObject();
      }
      j.EndArray();
    };
    io("inputs", g.inputs);
    io("outputs", g.outputs);
    j.Key("ops").BeginArray();
    for (const Op& op : g.ops) {
      j.BeginObject().Field("id", op.id).Field("type", OpTypeName(op.type));
      if (op.dispatch) j.Field("vendor", op.dispatch->vendor).Field("entry_point", op.dispatch->entry_point);
      j.EndObject();
    }
    j.EndArray().Key("bytecodes").BeginArray();
    for (size_t i = 0; i < g.bytecodes.size(); ++i)
      j.BeginObject().Field("vendor", g.bytecodes[i].vendor).Field("soc_model", std::string(headers[i].soc_model))
          .Field("bytes", static_cast<uint64_t>(g.bytecodes[i].bytes.size())).Field("entry_count", headers[i].entry_count)
          .Field("abi", absl::StrCat(headers[i].abi_major, ".", headers[i].abi_minor))
          .Field("checksum", absl::StrFormat("%08x", headers[i].checksum)).EndObject();
    j.EndArray().Key("metadata").BeginObject();
    for (const auto& [k, v] : g.metadata) j.Field(k, v);
    j.EndObject().EndObject();
    std::cout << j.str() << "\n";
    return absl::OkStatus();
  }
  // Names come from the model file: printed only through TerminalSafe.
  std::cout << absl::StrFormat("model '%s': %d tensors, %d ops, %d constants (%d bytes)\n", TerminalSafe(g.name), g.tensors.size(),
                               g.ops.size(), constants, constant_bytes);
  for (int32_t t : g.inputs)
    std::cout << "  input  '" << TerminalSafe(g.tensors[t].name) << "' " << DTypeName(g.tensors[t].dtype) << " " << ShapeText(g.tensors[t].shape) << "\n";
  for (int32_t t : g.outputs)
    std::cout << "  output '" << TerminalSafe(g.tensors[t].name) << "' " << DTypeName(g.tensors[t].dtype) << " " << ShapeText(g.tensors[t].shape) << "\n";
  std::map<std::string, int> counts;
  for (const Op& op : g.ops) ++counts[op.dispatch ? absl::StrCat("DISPATCH(", op.dispatch->vendor, ")") : OpTypeName(op.type)];
  for (const auto& [name, n] : counts) std::cout << absl::StrFormat("  %-24s x%d\n", TerminalSafe(name), n);
  for (size_t i = 0; i < g.bytecodes.size(); ++i)
    std::cout << absl::StrFormat("  bytecode: vendor %s, SoC %s, %d bytes, %d entry points, ABI %d.%d, crc32 %08x\n",
                                 TerminalSafe(g.bytecodes[i].vendor), TerminalSafe(headers[i].soc_model),
                                 g.bytecodes[i].bytes.size(),
                                 headers[i].entry_count, headers[i].abi_major, headers[i].abi_minor, headers[i].checksum);
  return absl::OkStatus();
}

absl::Status Partition(const Args& args) {
  double load_ms = 0;
  ASSIGN_OR_RETURN(Graph g, LoadModel(args, &load_ms));
  ASSIGN_OR_RETURN(CompileOptions options, CompileOptionsFrom(args));
  const PluginRegistry registry = LoadPlugins(args);
  // Partitioning is judged by compiling, so compile failures and their
  // fallbacks show up in the report too; nothing is written.
  ASSIGN_OR_RETURN(CompiledModel compiled, CompileGraph(g, registry, options));
  const PartitionReport report = ReportOf(compiled, load_ms);
  if (args.Has("json")) {
    JsonWriter j;
    WritePartitionReportJson(report, j);
    std::cout << j.str() << "\n";
  } else {
    std::cout << TerminalSafe(FormatPartitionReport(report), TerminalLayout::kText);
  }
  // The picture is written in addition to the report, which stays as it is.
  RETURN_IF_ERROR(WritePlanPicture(args, compiled, report));
  return CheckStrict(args, report);
}

absl::Status Compile(const Args& args) {
  double load_ms = 0;
  ASSIGN_OR_RETURN(Graph g, LoadModel(args, &load_ms));
  ASSIGN_OR_RETURN(CompileOptions options, CompileOptionsFrom(args));
  if (options.mode == CompileMode::kJit)
    return absl::InvalidArgumentError("compile writes a model file, which only AOT bytecode can go into: "
                                      "JIT results live in process memory and are never serialized (use `run --mode jit`)");
  // --quantize int8 (checked by CompileCommand): the FP32 model is
  // calibrated and rewritten to INT8 before partitioning, then the compiled
  // result is measured against the FP32 model on the calibration samples.
  std::optional<quantize::PtqModel> ptq;
  if (args.Has("quantize")) {
    ASSIGN_OR_RETURN(ptq, quantize::QuantizeInt8(g, *args.Value("calibration")));
    g = ptq->graph;
  }
  const PluginRegistry registry = LoadPlugins(args);
  ASSIGN_OR_RETURN(const CompileCacheOptions cache, CacheOptionsFrom(args));
  CompileCacheReport cache_report;
  ASSIGN_OR_RETURN(CompiledModel compiled, CompileUnlessCompiled(g, registry, options, cache, &cache_report));
  if (ptq) RETURN_IF_ERROR(quantize::MeasureAccuracy(compiled, registry, {options.soc, options.plugin_options}, *ptq));
  const std::string out = *args.Value("output");
  // --strict refuses before anything is written.
  const PartitionReport report = ReportOf(compiled, load_ms);
  if (absl::Status strict = CheckStrict(args, report); !strict.ok()) {
    std::cerr << TerminalSafe(FormatPartitionReport(report), TerminalLayout::kText);
    return strict;
  }
  RETURN_IF_ERROR(WriteModelFile(compiled.graph, out));
  if (args.Has("json")) {
    JsonWriter j;
    j.BeginObject().Field("output", out).Key("partitioning");
    WritePartitionReportJson(report, j);
    if (!cache.directory.empty()) {
      j.Key("cache");
      WriteCompileCacheReportJson(cache_report, j);
    }
    if (ptq) {
      j.Key("quantization");
      quantize::WriteQuantizationReportJson(ptq->report, j);
    }
    j.EndObject();
    std::cout << j.str() << "\n";
  } else {
    std::cout << TerminalSafe(FormatPartitionReport(report), TerminalLayout::kText);
    if (ptq) std::cout << TerminalSafe(quantize::FormatQuantizationReport(ptq->report), TerminalLayout::kText);
    std::cout << "wrote " << out << "\n";
  }
  return absl::OkStatus();
}

}  // namespace

int InspectCommand(const Argv& argv) {
  FlagSpec spec;
  AddImportFlags(spec);
  spec.switches.insert("json");
  const char* usage =
      "tessera inspect MODEL [--json] [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]... [--no-optimize] [--max-folded-bytes N] [--budget NAME=VALUE]...";
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok() || args->positionals().size() != 1)
    return UsageError(args.ok() ? "inspect needs exactly one MODEL" : std::string(args.status().message()), usage);
  if (absl::StatusOr<onnx_import::ImportOptions> o = ImportOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), usage);
  absl::Status s = Inspect(*args);
  return s.ok() ? 0 : Fail(s);
}

int PartitionCommand(const Argv& argv) {
  FlagSpec spec;
  AddCompileFlags(spec);
  AddStrictFlag(spec);
  AddImportFlags(spec);
  AddPictureFlags(spec);
  spec.switches.insert("json");
  const char* usage =
      "tessera partition MODEL [--json] [--svg FILE | --html FILE] [--accelerators LIST] [--mode aot|jit] [--soc NAME|FILE]\n"
      "                        [--policy cost|greedy|cpu] [--min-ops N] [--max-partitions N] [--strict]\n"
      "                        [--option KEY=VALUE]... [--kernels reference|fast] [--plugin-dir DIR]...\n"
      "                        [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]... [--no-optimize] [--max-folded-bytes N] [--budget NAME=VALUE]...";
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok() || args->positionals().size() != 1)
    return UsageError(args.ok() ? "partition needs exactly one MODEL" : std::string(args.status().message()), usage);
  if (const std::string e = PictureFlagsError(*args); !e.empty()) return UsageError(e, usage);
  if (absl::StatusOr<CompileOptions> o = CompileOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), usage);
  if (absl::StatusOr<onnx_import::ImportOptions> o = ImportOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), usage);
  absl::Status s = Partition(*args);
  return s.ok() ? 0 : Fail(s);
}

int CompileCommand(const Argv& argv) {
  FlagSpec spec;
  AddCompileFlags(spec);
  AddCacheFlags(spec);
  AddStrictFlag(spec);
  AddImportFlags(spec);
  spec.switches.insert("json");
  spec.values.insert({"output", "quantize", "calibration"});
  const char* usage =
      "tessera compile MODEL -o OUT.tsr [--quantize int8 --calibration DIR] [--json] [--accelerators LIST]\n"
      "                      [--mode aot] [--soc NAME|FILE] [--option KEY=VALUE]... [--kernels reference|fast]\n"
      "                      [--policy cost|greedy|cpu] [--min-ops N] [--max-partitions N] [--strict]\n"
      "                      [--cache-dir DIR [--cache-max-bytes N]] [--plugin-dir DIR]...\n"
      "                      [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]... [--no-optimize] [--max-folded-bytes N] [--budget NAME=VALUE]...";
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok() || args->positionals().size() != 1 || !args->Has("output"))
    return UsageError(args.ok() ? "compile needs one MODEL and -o OUT.tsr" : std::string(args.status().message()), usage);
  if (absl::StatusOr<CompileOptions> o = CompileOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), usage);
  if (absl::StatusOr<onnx_import::ImportOptions> o = ImportOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), usage);
  if (absl::StatusOr<CompileCacheOptions> o = CacheOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), usage);
  if (auto scheme = args->Value("quantize"); scheme && *scheme != "int8")
    return UsageError(absl::StrCat("--quantize supports only int8 (post-training, calibrated), not '", *scheme, "'"),
                      usage);
  if (args->Has("quantize") != args->Has("calibration"))
    return UsageError(args->Has("quantize") ? "--quantize int8 needs --calibration DIR (representative inputs)"
                                            : "--calibration is only used with --quantize int8",
                      usage);
  absl::Status s = Compile(*args);
  return s.ok() ? 0 : Fail(s);
}

}  // namespace tessera::cli
