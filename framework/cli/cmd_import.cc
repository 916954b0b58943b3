// `tessera import MODEL.onnx -o OUT.tsr [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]...`:
// ONNX (opsets 11..21) to a .tsr model over the Tessera op set, optimized
// unless --no-optimize (docs/onnx_import.md).
#include <iostream>

#include "absl/strings/str_cat.h"
#include "framework/core/base/json_writer.h"
#include "framework/core/base/status_macros.h"
#include "framework/cli/app_flags.h"
#include "framework/cli/cli_environment.h"
#include "framework/cli/commands.h"
#include "tessera/app/model_summary.hpp"
#include "tessera/app/tessera_app.hpp"

namespace tessera::cli {
namespace {

constexpr char kUsage[] =
    "tessera import MODEL.onnx -o OUT.tsr [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]... [--max-folded-bytes N] [--budget NAME=VALUE]... [--no-optimize] "
    "[--json]";

absl::Status Import(const Args& args) {
  const std::string& path = args.positionals()[0];
  const std::string out = *args.Value("output");
  // Whatever the file is called, it is read as ONNX.
  ASSIGN_OR_RETURN(const app::LoadOptions options, OnnxLoadOptionsFrom(args));
  ASSIGN_OR_RETURN(const app::Model model, ToAbsl(app::Model::Load(path, options)));
  RETURN_IF_ERROR(ToAbsl(model.Save(out)));
  ASSIGN_OR_RETURN(const app::ModelSummary summary, ToAbsl(app::Summarize(model)));
  if (args.Has("json")) {
    JsonWriter j;
    j.BeginObject()
        .Field("model", path)
        .Field("output", out)
        .Field("ops", static_cast<int64_t>(summary.ops.size()))
        .Field("tensors", static_cast<int64_t>(summary.tensor_count))
        .Field("constants", static_cast<int64_t>(summary.constant_count))
        .Field("inputs", static_cast<int64_t>(summary.inputs.size()))
        .Field("outputs", static_cast<int64_t>(summary.outputs.size()))
        .Field("optimized", options.optimize)
        .Key("optimizations")
        .BeginArray();
    for (const app::Model::OptimizationPass& o : model.optimizations())
      j.BeginObject().Field("pass", o.pass).Field("changed", o.changed).Field("ops_removed", o.ops_removed).EndObject();
    j.EndArray().EndObject();
    std::cout << j.str() << "\n";
  } else {
    std::cout << "imported " << path << " -> " << out << ": " << summary.ops.size() << " ops, " << summary.tensor_count
              << " tensors (" << summary.constant_count << " constants), " << summary.inputs.size() << " inputs, "
              << summary.outputs.size() << " outputs\n";
    for (const app::Model::OptimizationPass& o : model.optimizations())
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
