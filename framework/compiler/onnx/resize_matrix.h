// ONNX Resize cases the op set's RESIZE cannot express (Resize-18
// `antialias`, Resize-19 `half_pixel_symmetric`), decomposed exactly onto
// MATMUL: a separable resize is, along each resampled axis, a product with
// a constant [out, in] matrix whose row x holds the weights ONNX's
// reference (onnx/reference/ops/op_resize.py) gives the input elements for
// output position x. The weights are computed in f64 at import and stored
// f32; each MATMUL accumulates in f64 and rounds once.
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_RESIZE_MATRIX_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_RESIZE_MATRIX_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/compiler/onnx/import_context.h"

namespace tessera::onnx_import {

// The per-axis filter: tsr_resize_mode, tsr_coord_transform (not
// TF_CROP_AND_RESIZE), tsr_nearest_mode, plus the two ONNX features the op
// set lacks. `half_pixel_symmetric` replaces `coord`.
struct ResizeFilter {
  int64_t mode = 0;
  int64_t coord = 0;
  int64_t nearest = 0;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;             // linear / cubic only
  bool half_pixel_symmetric = false;  // Resize-19
};

// The [out, in] row-major weights of one axis resized from `in` to `out`
// with `scale` (the scale the coordinate transform uses: the given scale,
// or out / in, or the keep_aspect_ratio_policy scale).
absl::StatusOr<std::vector<double>> InterpolationMatrix(const ResizeFilter& f, int64_t in, int64_t out, double scale);

// x resized to `out` (one size per axis) by one MATMUL per axis whose
// matrix is not the identity, innermost axis first as the reference does.
// Each matrix is a constant within the import budget
// (ImportContext::FoldedBytes). An f16 x is computed in f32 and cast back.
absl::StatusOr<int32_t> EmitMatrixResize(ImportContext& ctx, int32_t x, const ResizeFilter& f,
                                         const std::vector<int64_t>& out, const std::vector<double>& scales);

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_RESIZE_MATRIX_H_
