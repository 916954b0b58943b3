// `tessera import MODEL.onnx -o OUT.tsr [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]...`:
// ONNX (opsets 11..21) to a .tsr model over the Tessera op set, optimized
// unless --no-optimize (docs/onnx_import.md).
#include <iostream>

#include "absl/strings/str_cat.h"
#include "base/json_writer.h"
#include "base/status_macros.h"
#include "cli/cli_environment.h"
#include "cli/commands.h"
#include "model/model_writer.h"
#include "onnx/onnx_importer.h"

namespace tessera::cli {
namespace {

constexpr char kUsage[] =
    "tessera import MODEL.onnx -o OUT.tsr [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]... [--max-folded-bytes N] [--budget NAME=VALUE]... [--no-optimize] "
    "[--json]";

absl::Status Import(const Args& args) {
  ASSIGN_OR_RETURN(const onnx_import::ImportOptions options, ImportOptionsFrom(args));
  const std::string& path = args.positionals()[0];
  const std::string out = *args.Value("output");
  std::vector<onnx_import::OptimizationStats> optimizations;
  ASSIGN_OR_RETURN(Graph graph, onnx_import::ImportOnnxFile(path, options, &optimizations));
  RETURN_IF_ERROR(WriteModelFile(graph, out));
  int64_t constants = 0;
  for (const Tensor& t : graph.tensors) constants += t.is_constant ? 1 : 0;
  if (args.Has("json")) {
    JsonWriter j;
    j.BeginObject()
        .Field("model", path)
        .Field("output", out)
        .Field("ops", static_cast<int64_t>(graph.ops.size()))
        .Field("tensors", static_cast<int64_t>(graph.tensors.size()))
        .Field("constants", constants)
        .Field("inputs", static_cast<int64_t>(graph.inputs.size()))
        .Field("outputs", static_cast<int64_t>(graph.outputs.size()))
        .Field("optimized", options.optimize)
        .Key("optimizations")
        .BeginArray();
    for (const onnx_import::OptimizationStats& o : optimizations)
      j.BeginObject().Field("pass", o.pass).Field("changed", o.changed).Field("ops_removed", o.ops_removed).EndObject();
    j.EndArray().EndObject();
    std::cout << j.str() << "\n";
  } else {
    std::cout << "imported " << path << " -> " << out << ": " << graph.ops.size() << " ops, " << graph.tensors.size()
              << " tensors (" << constants << " constants), " << graph.inputs.size() << " inputs, "
              << graph.outputs.size() << " outputs\n";
    for (const onnx_import::OptimizationStats& o : optimizations)
      if (o.changed > 0) std::cout << "  " << o.pass << ": " << o.changed << " changed, " << o.ops_removed << " ops removed\n";
  }
  return absl::OkStatus();
}

}  // namespace

int ImportCommand(const Argv& argv) {
  FlagSpec spec;
  AddImportFlags(spec);
  spec.switches.insert("json");
  spec.values.insert("output");
  absl::StatusOr<Args> args = Args::Parse(argv, spec);
  if (!args.ok()) return UsageError(std::string(args.status().message()), kUsage);
  if (args->positionals().size() != 1 || !args->Has("output"))
    return UsageError("import needs one MODEL.onnx and -o OUT.tsr", kUsage);
  if (absl::StatusOr<onnx_import::ImportOptions> o = ImportOptionsFrom(*args); !o.ok())
    return UsageError(std::string(o.status().message()), kUsage);
  absl::Status s = Import(*args);
  return s.ok() ? 0 : Fail(s);
}

}  // namespace tessera::cli
