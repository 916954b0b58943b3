// Models and tensors: TensorInfo, Tensor, LoadOptions and Model.
// Part of the app API: include "tessera/app/tessera_app.hpp".
#ifndef TESSERA_APP_MODEL_HPP_
#define TESSERA_APP_MODEL_HPP_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tessera/app/status.hpp"
#include "tessera/common.h"

namespace tessera::app {

// ---- Models ---------------------------------------------------------------

struct TensorInfo {
  std::string name;
  tsr_dtype dtype = TSR_DTYPE_F32;
  std::vector<int64_t> shape;
  size_t byte_size() const;
};

// Inputs and outputs by name, beside positions: the index of `name` in
// `tensors` (Model::inputs(), CompiledModel::outputs(), ...), or
// TSR_NOT_FOUND listing the names there are.
Result<size_t> IndexByName(const std::vector<TensorInfo>& tensors, const std::string& name);

// ---- Tensors --------------------------------------------------------------

// What a dispatch library declared for an executable's arithmetic.
struct Numerics {
  std::string vendor;
  std::string precision;  // "fp32", "fp16", "bf16", "int8", ...
  double rtol = 0, atol = 0;
  std::string description;
  bool declared = false;       // false: the library said nothing (exact assumed)
  bool reduced = false;        // below f32: the tolerance is what to compare with
  int32_t precision_code = 0;  // the same as a tsr_precision value
};

class RunContext;
struct TensorAccess;

// Host memory holding one tensor: owned (Allocate) or the caller's (Wrap).
class Tensor {
 public:
  static Tensor Allocate(TensorInfo info);  // zero-filled
  // The caller's memory, at least info.byte_size() bytes; it must outlive
  // every use of the Tensor and its copies.
  static Result<Tensor> Wrap(TensorInfo info, void* data, size_t size);

  const TensorInfo& info() const { return info_; }
  void* data() { return data_; }
  const void* data() const { return data_; }
  size_t size() const { return size_; }
  template <typename T>
  T* as() {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* as() const {
    return static_cast<const T*>(data_);
  }

 private:
  friend struct TensorAccess;  // the library's own: hands run outputs over without a copy
  Tensor(TensorInfo info, std::shared_ptr<std::vector<uint8_t>> owned, void* data, size_t size)
      : info_(std::move(info)), owned_(std::move(owned)), data_(data), size_(size) {}
  TensorInfo info_;
  std::shared_ptr<std::vector<uint8_t>> owned_;  // null when wrapped
  void* data_ = nullptr;
  size_t size_ = 0;
};

enum class ModelFormat { kDetect, kTsr, kOnnx };

// How much of a .tsr file a load checks (docs/model_format.md section 4).
// kStructure: the tables' CRC, every range and each bytecode envelope's
// layout; no weight page is read, so loading does not grow with the
// weights. kFull: also the CRC of every weight and bytecode byte (an edited
// or bit-rotted weight is TSR_DATA_LOSS). ONNX models ignore it.
enum class VerifyLevel { kStructure, kFull };

struct LoadOptions {
  ModelFormat format = ModelFormat::kDetect;  // kDetect: by content
  // ONNX models with symbolic dimensions: the concrete shape per input name.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Resource budgets over the defaults, by name: "max_model_bytes",
  // "max_tensor_count", "max_tensor_bytes", "max_activation_bytes",
  // "max_op_count", "max_partition_count" (read when the model is
  // compiled), "max_bytecode_bytes", "max_device_memory_bytes" (read when
  // the compiled model is loaded on its devices; docs/reliability.md
  // section 2 lists the defaults). An unknown name fails the load.
  std::map<std::string, uint64_t> budgets;
  // ONNX only. Inputs whose value is fixed here (by name: values converted
  // to the input's dtype) become constants before any node is converted,
  // so what depends on them folds (an If on a sample rate) and they leave
  // the model's inputs (`--freeze-input NAME=V,...`).
  std::map<std::string, std::vector<double>> frozen_inputs;
  // ONNX only: shapes by position among the graph inputs, for dynamic
  // dimensions (an empty shape keeps that input as declared); a named
  // input_shapes entry wins.
  std::vector<std::vector<int64_t>> positional_input_shapes;
  // ONNX only: run the import optimizations (docs/onnx_import.md); false
  // keeps the graph as the converters write it (constant folding still runs).
  bool optimize = true;
  // ONNX only: the largest constant the importer may fold (bytes); -1 = the
  // default.
  int64_t max_folded_bytes = -1;
  // ONNX only: asked for shapes by position when the model still has
  // dynamic inputs after input_shapes (e.g. read from the files the inputs
  // will come from: `run --inputs DIR`). Not called otherwise.
  std::function<Result<std::vector<std::vector<int64_t>>>()> dynamic_input_shapes;
  // ONNX only: values by position that the importer may freeze into
  // constants where the graph needs them as constant operands (a Reshape's
  // shape, Slice starts, an If condition): the model is then specialized to
  // them and those inputs leave it (ModelSummary metadata
  // "onnx.frozen_inputs" lists their positions). ONNX's backend tests need
  // this; an app rarely does. Each gives its shape too.
  std::vector<Tensor> positional_input_values;
  // .tsr only: how much of the file to check (`--verify structure|full`).
  VerifyLevel verify = VerifyLevel::kStructure;
};

class Model {
 public:
  static Result<Model> Load(const std::string& path, const LoadOptions& options = {});
  // `bytes` is copied.
  static Result<Model> FromMemory(const void* bytes, size_t size, const LoadOptions& options = {});

  // True for a model whose every op is already compiled (an AOT .tsr): it
  // runs with dispatch libraries only.
  bool is_compiled() const;
  // A compiled model's SoC: the one its SoC-specific bytecode names ("" when
  // none does, they disagree, or the model is not compiled). Compiling it
  // with CompileOptions::soc "" runs it for this SoC.
  std::string compiled_soc() const;
  std::vector<TensorInfo> inputs() const;
  std::vector<TensorInfo> outputs() const;
  // How long Load / FromMemory took (reading, importing, verifying), ms.
  double load_ms() const;
  // The import optimizations that ran (ONNX; empty for a .tsr), in order.
  struct OptimizationPass {
    std::string pass;
    int64_t changed = 0, ops_removed = 0;
  };
  const std::vector<OptimizationPass>& optimizations() const;
  // Writes the model as a .tsr (an imported ONNX model, as `tessera
  // import` does): atomically, never through a symlink.
  Status Save(const std::string& path) const;

  // The implementation behind the handle (an incomplete type to apps).
  struct Impl;
  const std::shared_ptr<const Impl>& impl() const { return impl_; }
  explicit Model(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

}  // namespace tessera::app

#endif  // TESSERA_APP_MODEL_HPP_
