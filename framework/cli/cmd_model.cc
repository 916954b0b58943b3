// `tessera inspect`, `tessera partition`, `tessera compile`: the model file
// and what the framework would do with it.
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/json_writer.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/base/terminal_text.h"
#include "framework/cli/app_flags.h"
#include "framework/cli/build_stamp_report.h"
#include "framework/cli/cache_flags.h"
#include "framework/cli/cli_environment.h"
#include "framework/cli/commands.h"
#include "framework/cli/plan_picture_files.h"
#include "tessera/app/model_summary.hpp"
#include "tessera/app/tessera_app.hpp"

namespace tessera::cli {
namespace {

std::string ShapeText(const std::vector<int64_t>& s) { return absl::StrCat("[", absl::StrJoin(s, ","), "]"); }

// The import's problems (docs/onnx_import.md#diagnostics): empty for a
// model that loads.
void DiagnosticsJson(JsonWriter& j, const std::vector<app::ImportDiagnostic>& diagnostics) {
  j.Key("diagnostics").BeginArray();
  for (const app::ImportDiagnostic& d : diagnostics) {
    j.BeginObject().Field("kind", d.kind).Field("domain", d.domain).Field("op_type", d.op_type).Field("count", d.count);
    j.Key("nodes").BeginArray();
    for (const std::string& n : d.nodes) j.String(n);
    j.EndArray().Field("message", d.message).Field("hint", d.hint).EndObject();
  }
  j.EndArray();
}

absl::Status Inspect(const Args& args) {
  std::vector<app::ImportDiagnostic> diagnostics;
  absl::StatusOr<app::Model> loaded = LoadAppModel(args, &diagnostics);
  if (!loaded.ok() && args.Has("json")) {
    // The reasons as data; the error itself still fails the command.
    JsonWriter j;
    j.BeginObject().Field("error", std::string(loaded.status().message()));
    DiagnosticsJson(j, diagnostics);
    std::cout << j.EndObject().str() << "\n";
  }
  ASSIGN_OR_RETURN(const app::Model model, std::move(loaded));
  ASSIGN_OR_RETURN(const app::ModelSummary s, ToAbsl(app::Summarize(model)));
  if (args.Has("json")) {
    JsonWriter j;
    j.BeginObject().Field("name", s.name).Field("tensor_count", static_cast<uint64_t>(s.tensor_count))
        .Field("op_count", static_cast<uint64_t>(s.ops.size())).Field("constant_count", static_cast<uint64_t>(s.constant_count))
        .Field("constant_bytes", s.constant_bytes);
    auto io = [&](const char* key, const std::vector<app::TensorInfo>& list) {
      j.Key(key).BeginArray();
      for (const app::TensorInfo& t : list) {
        j.BeginObject().Field("name", t.name).Field("dtype", DTypeName(t.dtype)).Key("shape").BeginArray();
        for (int64_t d : t.shape) j.Int(d);
        j.EndArray().EndObject();
      }
      j.EndArray();
    };
    io("inputs", s.inputs);
    io("outputs", s.outputs);
    j.Key("ops").BeginArray();
    for (const app::ModelSummary::Op& op : s.ops) {
      j.BeginObject().Field("id", op.id).Field("type", op.type);
      if (!op.vendor.empty()) j.Field("vendor", op.vendor).Field("entry_point", op.entry_point);
      j.EndObject();
    }
    j.EndArray().Key("bytecodes").BeginArray();
    for (const app::ModelSummary::Bytecode& b : s.bytecodes)
      j.BeginObject().Field("vendor", b.vendor).Field("soc_model", b.soc_model).Field("bytes", b.bytes)
          .Field("entry_count", b.entry_count).Field("abi", b.abi).Field("checksum", absl::StrFormat("%08x", b.checksum))
          .EndObject();
    j.EndArray().Key("metadata").BeginObject();
    for (const auto& [k, v] : s.metadata) j.Field(k, v);
    j.EndObject().Key("build_stamp");
    WriteBuildStampJson(s.build_stamp, j);
    if (!s.verified.empty()) j.Field("verified", s.verified).Field("checksum_footer", s.checksum_footer);
    DiagnosticsJson(j, diagnostics);
    j.EndObject();
    std::cout << j.str() << "\n";
    return absl::OkStatus();
  }
  // Names come from the model file: printed only through TerminalSafe.
  std::cout << absl::StrFormat("model '%s': %d tensors, %d ops, %d constants (%d bytes)\n", TerminalSafe(s.name),
                               s.tensor_count, s.ops.size(), s.constant_count, s.constant_bytes);
  for (const app::TensorInfo& t : s.inputs)
    std::cout << "  input  '" << TerminalSafe(t.name) << "' " << DTypeName(t.dtype) << " " << ShapeText(t.shape) << "\n";
  for (const app::TensorInfo& t : s.outputs)
    std::cout << "  output '" << TerminalSafe(t.name) << "' " << DTypeName(t.dtype) << " " << ShapeText(t.shape) << "\n";
  std::map<std::string, int> counts;
  for (const app::ModelSummary::Op& op : s.ops)
    ++counts[op.vendor.empty() ? op.type : absl::StrCat("DISPATCH(", op.vendor, ")")];
  for (const auto& [name, n] : counts) std::cout << absl::StrFormat("  %-24s x%d\n", TerminalSafe(name), n);
  for (const app::ModelSummary::Bytecode& b : s.bytecodes)
    std::cout << absl::StrFormat("  bytecode: vendor %s, SoC %s, %d bytes, %d entry points, ABI %s, crc32 %08x\n",
                                 TerminalSafe(b.vendor), TerminalSafe(b.soc_model), b.bytes, b.entry_count, b.abi,
                                 b.checksum);
  std::cout << FormatBuildStamp(s.build_stamp);
  if (s.verified == "full")
    std::cout << "  verified: full (the CRC-32 of every byte, weights and bytecode included)\n";
  else if (s.verified == "structure" && s.checksum_footer)
    std::cout << "  verified: structure (tables CRC-32, ranges, bytecode envelopes; weights not read: "
                 "--verify full checks them)\n";
  else if (s.verified == "structure")
    std::cout << "  verified: structure (ranges, bytecode envelopes; the file has no checksum footer: "
                 "neither its tables nor its weights have a CRC)\n";
  return absl::OkStatus();
}

absl::Status Partition(const Args& args) {
  ASSIGN_OR_RETURN(const app::Environment env, EnvironmentFrom(args));
  ASSIGN_OR_RETURN(const app::Model model, LoadAppModel(args));
  ASSIGN_OR_RETURN(app::CompileOptions options, AppCompileOptionsFrom(args));
  // Partitioning is judged by compiling, so compile failures and their
  // fallbacks show up in the report too; nothing is written or loaded.
  options.prepare_to_run = false;
  ASSIGN_OR_RETURN(const app::CompiledModel compiled, ToAbsl(app::CompiledModel::Compile(env, model, options)));
  if (compiled.was_precompiled())
    return absl::InvalidArgumentError("this model is already compiled: there is nothing to partition");
  if (args.Has("json")) std::cout << compiled.partition_report_json() << "\n";
  else std::cout << TerminalSafe(compiled.partition_report_text(), TerminalLayout::kText);
  // The picture is written in addition to the report, which stays as it is.
  RETURN_IF_ERROR(WritePlanPicture(args, compiled));
  return CheckStrict(args, compiled.partition_report());
}

absl::Status Compile(const Args& args) {
  ASSIGN_OR_RETURN(const app::Environment env, EnvironmentFrom(args));
  ASSIGN_OR_RETURN(const app::Model model, LoadAppModel(args));
  ASSIGN_OR_RETURN(app::CompileOptions options, AppCompileOptionsFrom(args));
  if (options.mode == app::CompileMode::kJit)
    return absl::InvalidArgumentError("compile writes a model file, which only AOT bytecode can go into: "
                                      "JIT results live in process memory and are never serialized (use `run --mode jit`)");
  if (model.is_compiled())
    return absl::InvalidArgumentError("this model is already compiled: compile its uncompiled source instead");
  // --quantize int8 (checked by CompileCommand): the FP32 model is
  // calibrated and rewritten to INT8 before partitioning, then the compiled
  // result is measured against the FP32 model on the calibration samples.
  options.quantize = args.ValueOr("quantize", "");
  options.calibration_dir = args.ValueOr("calibration", "");
  options.prepare_to_run = false;  // a build machine needs no dispatch library
  // A JIT-only accelerator's partitions cannot go into the file as
  // bytecode: they stay as ops, and `tessera run` JIT-compiles them.
  options.leave_jit_only_ops = true;
  ASSIGN_OR_RETURN(const app::CompiledModel compiled, ToAbsl(app::CompiledModel::Compile(env, model, options)));
  const std::vector<app::CompiledModel::OpsLeftForJit> left = compiled.ops_left_for_jit();
  const std::string out = *args.Value("output");
  // --strict refuses before anything is written.
  if (absl::Status strict = CheckStrict(args, compiled.partition_report()); !strict.ok()) {
    std::cerr << TerminalSafe(compiled.partition_report_text(), TerminalLayout::kText);
    return strict;
  }
  RETURN_IF_ERROR(ToAbsl(compiled.Save(out)));
  const std::string quantization_json = compiled.quantization_report_json();
  if (args.Has("json")) {
    JsonWriter j;
    j.BeginObject().Field("output", out).Field("precision", options.precision);
    // A compile-cache hit partitioned nothing here: no partitioning object.
    if (const std::string partitioning = compiled.partition_report_json(); !partitioning.empty())
      j.Key("partitioning").Raw(partitioning);
    if (const std::string cache = compiled.cache_info_json(); !cache.empty()) j.Key("cache").Raw(cache);
    if (!quantization_json.empty()) j.Key("quantization").Raw(quantization_json);
    j.Key("left_for_jit").BeginArray();
    for (const app::CompiledModel::OpsLeftForJit& l : left) {
      j.BeginObject().Field("vendor", l.vendor).Key("op_ids").BeginArray();
      for (uint32_t id : l.op_ids) j.Int(id);
      j.EndArray().EndObject();
    }
    j.EndArray();
    j.EndObject();
    std::cout << j.str() << "\n";
  } else {
    std::cout << TerminalSafe(compiled.partition_report_text() + compiled.quantization_report_text(),
                              TerminalLayout::kText);
    for (const app::CompiledModel::OpsLeftForJit& l : left)
      std::cout << TerminalSafe(absl::StrCat("left for JIT: ", l.vendor, " ops ", absl::StrJoin(l.op_ids, ","), " (",
                                             l.vendor, " compiles only JIT, and a JIT handle cannot be written: the ops "
                                             "stay in the file and `tessera run` JIT-compiles them at load)\n"),
                                TerminalLayout::kText);
    std::cout << "wrote " << out << (compiled.cache_info().hit ? " (from the compile cache)" : "") << "\n";
  }
  return absl::OkStatus();
}

}  // namespace

int InspectCommand(const Argv& argv) {
  FlagSpec spec;
  AddImportFlags(spec);
  AddVerifyFlag(spec);
  spec.switches.insert("json");
  const char* usage =
      "tessera inspect MODEL [--json] [--verify structure|full] [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]...\n"
      "                      [--no-optimize] [--max-folded-bytes N] [--budget NAME=VALUE]...";
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok() || args->positionals().size() != 1)
    return UsageError(args.ok() ? "inspect needs exactly one MODEL" : std::string(args.status().message()), usage);
  if (absl::StatusOr<onnx_import::ImportOptions> o = ImportOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), usage);
  if (absl::StatusOr<app::VerifyLevel> v = VerifyLevelFrom(*args); !v.ok())
    return UsageError(std::string(v.status().message()), usage);
  absl::Status s = Inspect(*args);
  return s.ok() ? 0 : Fail(s);
}

int PartitionCommand(const Argv& argv) {
  FlagSpec spec;
  AddCompileFlags(spec);
  AddStrictFlag(spec);
  AddImportFlags(spec);
  AddPictureFlags(spec);
  AddVerifyFlag(spec);
  spec.switches.insert("json");
  const char* usage =
      "tessera partition MODEL [--json] [--svg FILE | --html FILE] [--accelerators LIST] [--mode aot|jit] [--soc NAME|FILE]\n"
      "                        [--policy cost|greedy|cpu] [--min-ops N] [--max-partitions N] [--strict]\n"
      "                        [--precision fp32|allow-fp16|allow-int8 [--calibration DIR]]\n"
      "                        [--option KEY=VALUE]... [--kernels reference|fast] [--plugin-dir DIR]...\n"
      "                        [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]... [--no-optimize] [--max-folded-bytes N] [--budget NAME=VALUE]...\n"
      "                        [--verify structure|full]";
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok() || args->positionals().size() != 1)
    return UsageError(args.ok() ? "partition needs exactly one MODEL" : std::string(args.status().message()), usage);
  if (const std::string e = PictureFlagsError(*args); !e.empty()) return UsageError(e, usage);
  if (absl::Status s = CheckAppFlags(*args); !s.ok()) return UsageError(std::string(s.message()), usage);
  absl::Status s = Partition(*args);
  return s.ok() ? 0 : Fail(s);
}

int CompileCommand(const Argv& argv) {
  FlagSpec spec;
  AddCompileFlags(spec);
  AddCacheFlags(spec);
  AddStrictFlag(spec);
  AddImportFlags(spec);
  AddVerifyFlag(spec);
  spec.switches.insert("json");
  spec.values.insert({"output", "quantize", "calibration"});
  const char* usage =
      "tessera compile MODEL -o OUT.tsr [--quantize int8 --calibration DIR] [--json] [--accelerators LIST]\n"
      "                      [--precision fp32|allow-fp16|allow-int8 [--calibration DIR]]\n"
      "                      [--mode aot] [--soc NAME|FILE] [--option KEY=VALUE]... [--kernels reference|fast]\n"
      "                      [--policy cost|greedy|cpu] [--min-ops N] [--max-partitions N] [--strict]\n"
      "                      [--cache-dir DIR [--cache-max-bytes N]] [--plugin-dir DIR]...\n"
      "                      [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]... [--no-optimize] [--max-folded-bytes N] [--budget NAME=VALUE]...\n"
      "                      [--verify structure|full]";
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok() || args->positionals().size() != 1 || !args->Has("output"))
    return UsageError(args.ok() ? "compile needs one MODEL and -o OUT.tsr" : std::string(args.status().message()), usage);
  if (absl::Status s = CheckAppFlags(*args); !s.ok()) return UsageError(std::string(s.message()), usage);
  if (auto scheme = args->Value("quantize"); scheme && *scheme != "int8")
    return UsageError(absl::StrCat("--quantize supports only int8 (post-training, calibrated), not '", *scheme, "'"),
                      usage);
  if (args->Has("quantize") && !args->Has("calibration"))
    return UsageError("--quantize int8 needs --calibration DIR (representative inputs)", usage);
  absl::Status s = Compile(*args);
  return s.ok() ? 0 : Fail(s);
}

}  // namespace tessera::cli
