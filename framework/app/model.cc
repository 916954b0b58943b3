// Model: a .tsr or an .onnx, from a file or from memory.

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "framework/app/app_internal.h"
#include "framework/compiler/onnx/onnx_importer.h"
#include "framework/core/base/budgets.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/model/compiled_target.h"
#include "framework/core/model/model_loader.h"
#include "framework/core/model/model_writer.h"
#include "tessera/app/model_diagnostics.hpp"
#include "tessera/ops.h"

namespace tessera::app {

std::vector<TensorInfo> TensorInfos(const tessera::Graph& graph, const std::vector<int32_t>& tensors) {
  std::vector<TensorInfo> out;
  for (int32_t t : tensors) {
    const tessera::Tensor& tensor = graph.tensors[t];
    out.push_back({tensor.name, static_cast<tsr_dtype>(tensor.dtype), tensor.shape});
  }
  return out;
}

namespace {

// LoadOptions::budgets through the CLI's parser, so names and errors match
// `--budget NAME=VALUE`.
absl::StatusOr<tessera::Budgets> BudgetsOf(const LoadOptions& options) {
  tessera::Budgets budgets;
  for (const auto& [name, value] : options.budgets) RETURN_IF_ERROR(SetBudget(budgets, absl::StrCat(name, "=", value)));
  return budgets;
}

// By content, whatever the file is called: a Tessera model starts with its
// size prefix and the "TSR1" identifier; anything else is taken for ONNX
// (whose parser then says what is wrong with it). A file that cannot be
// read is left to the Tessera loader, whose error names the path.
ModelFormat DetectFileFormat(const std::string& path) {
  uint8_t head[16] = {};
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return ModelFormat::kTsr;
  const size_t n = std::fread(head, 1, sizeof(head), file);
  std::fclose(file);
  if (n == 0) return ModelFormat::kTsr;  // empty: the loader reports it
  return LooksLikeTsr(std::span<const uint8_t>(head, n)) ? ModelFormat::kTsr : ModelFormat::kOnnx;
}

bool HasTsrExtension(const std::string& path) {
  return path.size() >= 4 && absl::AsciiStrToLower(path.substr(path.size() - 4)) == ".tsr";
}

absl::StatusOr<onnx_import::ImportOptions> ImportOptionsOf(const LoadOptions& options,
                                                           const tessera::Budgets& budgets) {
  onnx_import::ImportOptions import;
  import.input_shapes = options.input_shapes;
  import.frozen_inputs = options.frozen_inputs;
  for (const std::vector<int64_t>& shape : options.positional_input_shapes)
    import.positional_input_shapes.push_back(shape.empty() ? std::nullopt : std::optional(shape));
  for (size_t i = 0; i < options.positional_input_values.size(); ++i) {
    const Tensor& t = options.positional_input_values[i];
    import.positional_input_values.push_back(ToHostTensor(t));
    if (import.positional_input_shapes.size() <= i) import.positional_input_shapes.resize(i + 1);
    if (!import.positional_input_shapes[i]) import.positional_input_shapes[i] = t.info().shape;
  }
  import.optimize = options.optimize;
  if (options.max_folded_bytes < -1) return absl::InvalidArgumentError("max_folded_bytes must be -1 (default) or >= 0");
  if (options.max_folded_bytes >= 0) import.max_folded_constant_bytes = options.max_folded_bytes;
  import.budgets = budgets;
  return import;
}

// Imports with `import_once`; when the model still has dynamic inputs and
// the caller can say their shapes (LoadOptions::dynamic_input_shapes),
// imports once more with those, by position.
template <typename ImportFn>
absl::StatusOr<tessera::Graph> ImportOnnx(const LoadOptions& options, onnx_import::ImportOptions import,
                                          std::vector<onnx_import::OptimizationStats>& passes, ImportFn import_once) {
  absl::StatusOr<tessera::Graph> graph = import_once(import, passes);
  if (graph.ok() || !options.dynamic_input_shapes || !onnx_import::IsDynamicInputsError(graph.status())) return graph;
  Result<std::vector<std::vector<int64_t>>> shapes = options.dynamic_input_shapes();
  if (!shapes.ok())
    return absl::Status(static_cast<absl::StatusCode>(shapes.status().code()), shapes.status().message());
  import.positional_input_shapes.clear();
  for (const std::vector<int64_t>& shape : *shapes) import.positional_input_shapes.push_back(shape);
  passes.clear();
  return import_once(import, passes);
}

// Reads and imports or parses, timed; `view` and `owner` are the bytes of
// a model in memory, `path` a file (then view is empty).
Result<Model> LoadTimed(const std::string& path, std::span<const uint8_t> view,
                        std::shared_ptr<const std::vector<uint8_t>> owner, ModelFormat format,
                        const LoadOptions& options, std::vector<onnx_import::ImportDiagnostic>* diagnostics = nullptr) {
  const auto start = std::chrono::steady_clock::now();
  const absl::StatusOr<tessera::Budgets> budgets = BudgetsOf(options);
  if (!budgets.ok()) return FromAbsl(budgets.status());
  const bool from_file = owner == nullptr;
  const bool detected = format == ModelFormat::kDetect;
  if (format == ModelFormat::kDetect)
    format = from_file ? DetectFileFormat(path) : (LooksLikeTsr(view) ? ModelFormat::kTsr : ModelFormat::kOnnx);
  auto impl = std::make_shared<Model::Impl>();
  absl::StatusOr<tessera::Graph> graph;
  if (format == ModelFormat::kTsr) {
    const bool import_options_given =
        !options.input_shapes.empty() || !options.frozen_inputs.empty() || !options.positional_input_shapes.empty() ||
        !options.positional_input_values.empty() || !options.optimize || options.max_folded_bytes != -1;
    if (import_options_given)
      return Status(TSR_INVALID_ARGUMENT,
                    "input shapes, frozen inputs and import optimizations apply to ONNX models; " +
                        (from_file ? "'" + path + "'" : std::string("this model")) +
                        " is a Tessera model, imported with fixed shapes");
    // A .tsr file is memory-mapped, not read: weights and bytecode stay in the page cache.
    const tessera::VerifyLevel level =
        options.verify == VerifyLevel::kFull ? tessera::VerifyLevel::kFull : tessera::VerifyLevel::kStructure;
    graph = from_file ? LoadModelFile(path, *budgets, level) : ParseModel(view, owner, *budgets, level);
  } else {
    if (!onnx_import::OnnxImportAvailable()) return Status(TSR_UNIMPLEMENTED, "this build has no ONNX importer");
    absl::StatusOr<onnx_import::ImportOptions> import = ImportOptionsOf(options, *budgets);
    if (!import.ok()) return FromAbsl(import.status());
    import->out_diagnostics = diagnostics;
    std::vector<onnx_import::OptimizationStats> passes;
    graph = ImportOnnx(options, *import, passes,
                       [&](const onnx_import::ImportOptions& o, std::vector<onnx_import::OptimizationStats>& out) {
                         // In place: the graph's large constants are views of the mapped file
                         // or of `owner`, not copies (onnx_importer.h).
                         return from_file ? onnx_import::ImportOnnxFile(path, o, &out)
                                          : onnx_import::ImportOnnxShared(view, owner, o, "onnx_model", &out);
                       });
    for (const onnx_import::OptimizationStats& p : passes)
      impl->optimizations.push_back({p.pass, p.changed, p.ops_removed});
    // Neither format by content, under a Tessera name: most likely a damaged
    // Tessera model, so the Tessera loader's diagnosis leads the error.
    if (!graph.ok() && detected && from_file && HasTsrExtension(path)) {
      const absl::StatusOr<tessera::Graph> as_tsr = LoadModelFile(path, *budgets, tessera::VerifyLevel::kStructure);
      if (!as_tsr.ok())
        return Status(TSR_INVALID_ARGUMENT,
                      absl::StrCat(as_tsr.status().message(), "; nor is it ONNX: ", graph.status().message()));
    }
  }
  if (!graph.ok()) return FromAbsl(graph.status());
  impl->graph = *std::move(graph);
  impl->budgets = *budgets;
  impl->load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return Model(std::move(impl));
}

}  // namespace

Result<Model> Model::Load(const std::string& path, const LoadOptions& options) {
  // ModelFormat::kDetect: by the file's first bytes, not its name.
  return LoadTimed(path, {}, nullptr, options.format, options);
}

DiagnosedLoad LoadWithDiagnostics(const std::string& path, const LoadOptions& options) {
  std::vector<onnx_import::ImportDiagnostic> found;
  Result<Model> model = LoadTimed(path, {}, nullptr, options.format, options, &found);
  std::vector<ImportDiagnostic> diagnostics;
  for (onnx_import::ImportDiagnostic& d : found)
    diagnostics.push_back({std::move(d.kind), std::move(d.domain), std::move(d.op_type), d.count, std::move(d.nodes),
                           std::move(d.message), std::move(d.hint)});
  return {std::move(model), std::move(diagnostics)};
}

Result<Model> Model::FromMemory(const void* bytes, size_t size, const LoadOptions& options) {
  if (bytes == nullptr && size > 0) return Status(TSR_INVALID_ARGUMENT, "Model::FromMemory of NULL bytes");
  const auto* p = static_cast<const uint8_t*>(bytes);
  auto owner = std::make_shared<const std::vector<uint8_t>>(p, p + size);
  const std::span<const uint8_t> view(owner->data(), owner->size());
  return LoadTimed("", view, owner, options.format, options);
}

bool Model::is_compiled() const { return IsCompiledGraph(impl_->graph); }
std::string Model::compiled_soc() const {
  // A partly compiled model (ops left for JIT beside bytecode) has one too.
  if (std::none_of(impl_->graph.ops.begin(), impl_->graph.ops.end(),
                   [](const Op& op) { return op.type == TSR_OP_DISPATCH; }))
    return "";
  return CompiledSoc(impl_->graph).value_or("");
}

bool IsCompiledGraph(const tessera::Graph& graph) {
  for (const Op& op : graph.ops)
    if (op.type != TSR_OP_DISPATCH) return false;
  return true;
}

std::vector<TensorInfo> Model::inputs() const { return TensorInfos(impl_->graph, impl_->graph.inputs); }
std::vector<TensorInfo> Model::outputs() const { return TensorInfos(impl_->graph, impl_->graph.outputs); }
double Model::load_ms() const { return impl_->load_ms; }
const std::vector<Model::OptimizationPass>& Model::optimizations() const { return impl_->optimizations; }
Status Model::Save(const std::string& path) const { return FromAbsl(WriteModelFile(impl_->graph, path)); }

}  // namespace tessera::app
