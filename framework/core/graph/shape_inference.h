// Output dtype and static shape of every op in the op set, from its input
// types and attributes (docs/ops.md). The model builder and the ONNX
// importer use it; the verifier does not (a file states its shapes).
#ifndef TESSERA_FRAMEWORK_CORE_GRAPH_SHAPE_INFERENCE_H_
#define TESSERA_FRAMEWORK_CORE_GRAPH_SHAPE_INFERENCE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/core/graph/graph.h"

namespace tessera {

struct TensorType {
  int32_t dtype = 0;
  std::vector<int64_t> shape;
};

// `inputs` has one entry per op input; nullopt for an omitted optional.
// `output_dtype` is required for CAST and QUANTIZE (and DEQUANTIZE to f16).
absl::StatusOr<std::vector<TensorType>> InferOutputTypes(int32_t op_type,
                                                         const std::vector<std::optional<TensorType>>& inputs,
                                                         const std::map<int32_t, Attribute>& attrs,
                                                         std::optional<int32_t> output_dtype = std::nullopt);

// numpy multidirectional broadcast of two shapes.
absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_GRAPH_SHAPE_INFERENCE_H_
