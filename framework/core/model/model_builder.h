// A small C++ API for making models in code:
//
//   ModelBuilder b("mlp");
//   int32_t x = b.Input("x", TSR_DTYPE_F32, {1, 64});
//   int32_t w = b.Constant<float>("w", {128, 64}, weights);
//   int32_t y = b.Op(TSR_OP_FULLY_CONNECTED, {x, w}, {{TSR_ATTR_ACTIVATION, Ints({TSR_ACTIVATION_RELU})}});
//   b.Output(y);
//   absl::StatusOr<Graph> graph = std::move(b).Build();
//
// Output types come from shape inference. Errors are deferred: a failed
// call records the first error, returns -1, and Build() reports it, so
// model-building code reads straight through.
#ifndef TESSERA_FRAMEWORK_CORE_MODEL_MODEL_BUILDER_H_
#define TESSERA_FRAMEWORK_CORE_MODEL_MODEL_BUILDER_H_

#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/core/graph/graph.h"

namespace tessera {

inline Attribute Ints(std::vector<int64_t> v) { return Attribute{std::move(v), {}}; }
inline Attribute Floats(std::vector<float> v) { return Attribute{{}, std::move(v)}; }

struct OpOptions {
  std::string name;                     // output tensor name ("" = generated)
  std::optional<int32_t> output_dtype;  // CAST / QUANTIZE / DEQUANTIZE target
  Quantization output_quant;            // quantized outputs
};

class ModelBuilder {
 public:
  explicit ModelBuilder(std::string name);

  int32_t Input(std::string name, int32_t dtype, std::vector<int64_t> shape, Quantization quant = {});
  int32_t ConstantBytes(std::string name, int32_t dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes,
                        Quantization quant = {});
  template <typename T>
  int32_t Constant(std::string name, std::vector<int64_t> shape, std::span<const T> values, Quantization quant = {}) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return ConstantBytes(std::move(name), DTypeOf<T>(), std::move(shape), std::move(bytes), std::move(quant));
  }
  template <typename T>
  int32_t Constant(std::string name, std::vector<int64_t> shape, const std::vector<T>& values,
                   Quantization quant = {}) {
    return Constant<T>(std::move(name), std::move(shape), std::span<const T>(values), std::move(quant));
  }

  // Adds an op with one output; -1 as an input means "omitted optional".
  int32_t Op(int32_t op_type, std::vector<int32_t> inputs, std::map<int32_t, Attribute> attrs = {},
             OpOptions options = {});
  void Output(int32_t tensor);
  void Metadata(std::string key, std::string value);

  const Tensor* tensor(int32_t t) const;
  absl::Status status() const { return first_error_; }
  absl::StatusOr<Graph> Build() &&;

 private:
  template <typename T>
  static constexpr int32_t DTypeOf() {
    if constexpr (std::is_same_v<T, float>)
      return 1;  // TSR_DTYPE_F32
    else if constexpr (std::is_same_v<T, uint16_t>)
      return 2;  // F16 bits
    else if constexpr (std::is_same_v<T, int8_t>)
      return 3;
    else if constexpr (std::is_same_v<T, uint8_t>)
      return 4;
    else if constexpr (std::is_same_v<T, int32_t>)
      return 5;
    else if constexpr (std::is_same_v<T, int64_t>)
      return 6;
    else if constexpr (std::is_same_v<T, bool>)
      return 7;
    else
      static_assert(sizeof(T) == 0, "unsupported constant element type");
  }
  int32_t AddTensor(Tensor t);
  void Fail(absl::Status s);

  Graph graph_;
  absl::Status first_error_;
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_MODEL_MODEL_BUILDER_H_
