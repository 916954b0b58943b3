// Model: a .tsr or an .onnx, from a file or from memory.

#include "app_internal.h"
#include "absl/strings/str_cat.h"
#include "base/budgets.h"
#include "base/dtype.h"
#include "base/status_macros.h"
#include "model/model_loader.h"
#include "onnx/onnx_importer.h"
#include "tessera/ops.h"

namespace tessera::app {

size_t TensorInfo::byte_size() const {
  size_t elements = 1;
  for (int64_t d : shape) elements *= d < 0 ? 0 : static_cast<size_t>(d);
  return elements * DTypeSize(dtype);
}

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
  for (const auto& [name, value] : options.budgets)
    RETURN_IF_ERROR(SetBudget(budgets, absl::StrCat(name, "=", value)));
  return budgets;
}

bool LooksLikeOnnx(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

Result<Model> FromBytes(std::shared_ptr<const std::vector<uint8_t>> bytes, const LoadOptions& options,
                        ModelFormat format) {
  const std::span<const uint8_t> view(bytes->data(), bytes->size());
  const absl::StatusOr<tessera::Budgets> budgets = BudgetsOf(options);
  if (!budgets.ok()) return FromAbsl(budgets.status());
  if (format == ModelFormat::kDetect) format = LooksLikeTsr(view) ? ModelFormat::kTsr : ModelFormat::kOnnx;
  absl::StatusOr<tessera::Graph> graph;
  if (format == ModelFormat::kTsr) {
    if (!options.input_shapes.empty())
      return Status(TSR_INVALID_ARGUMENT, "input_shapes apply to ONNX models; a .tsr has fixed shapes");
    graph = ParseModel(view, bytes, *budgets);
  } else {
    if (!onnx_import::OnnxImportAvailable())
      return Status(TSR_UNIMPLEMENTED, "this build has no ONNX importer");
    onnx_import::ImportOptions import;
    import.input_shapes = options.input_shapes;
    import.budgets = *budgets;
    graph = onnx_import::ImportOnnxBytes(view, import);
  }
  if (!graph.ok()) return FromAbsl(graph.status());
  auto impl = std::make_shared<Model::Impl>();
  impl->graph = *std::move(graph);
  impl->budgets = *budgets;
  return Model(std::move(impl));
}

}  // namespace

Result<Model> Model::Load(const std::string& path, const LoadOptions& options) {
  // By name, as the CLI does: NAME.onnx is ONNX, anything else a .tsr.
  ModelFormat format = options.format;
  if (format == ModelFormat::kDetect) format = LooksLikeOnnx(path) ? ModelFormat::kOnnx : ModelFormat::kTsr;
  const absl::StatusOr<tessera::Budgets> budgets = BudgetsOf(options);
  if (!budgets.ok()) return FromAbsl(budgets.status());
  absl::StatusOr<tessera::Graph> graph;
  if (format == ModelFormat::kTsr) {
    if (!options.input_shapes.empty())
      return Status(TSR_INVALID_ARGUMENT, "input_shapes apply to ONNX models; a .tsr has fixed shapes");
    // A .tsr is memory-mapped, not read: weights and bytecode stay in the page cache.
    graph = LoadModelFile(path, *budgets);
  } else {
    if (!onnx_import::OnnxImportAvailable()) return Status(TSR_UNIMPLEMENTED, "this build has no ONNX importer");
    onnx_import::ImportOptions import;
    import.input_shapes = options.input_shapes;
    import.budgets = *budgets;
    graph = onnx_import::ImportOnnxFile(path, import);
  }
  if (!graph.ok()) return FromAbsl(graph.status());
  auto impl = std::make_shared<Impl>();
  impl->graph = *std::move(graph);
  impl->budgets = *budgets;
  return Model(std::move(impl));
}

Result<Model> Model::FromMemory(const void* bytes, size_t size, const LoadOptions& options) {
  if (bytes == nullptr && size > 0) return Status(TSR_INVALID_ARGUMENT, "Model::FromMemory of NULL bytes");
  const auto* p = static_cast<const uint8_t*>(bytes);
  return FromBytes(std::make_shared<const std::vector<uint8_t>>(p, p + size), options, options.format);
}

bool Model::is_compiled() const {
  for (const Op& op : impl_->graph.ops)
    if (op.type != TSR_OP_DISPATCH) return false;
  return true;
}

std::vector<TensorInfo> Model::inputs() const { return TensorInfos(impl_->graph, impl_->graph.inputs); }
std::vector<TensorInfo> Model::outputs() const { return TensorInfos(impl_->graph, impl_->graph.outputs); }

}  // namespace tessera::app
