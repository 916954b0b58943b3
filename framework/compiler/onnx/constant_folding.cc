#include "framework/compiler/onnx/constant_folding.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/dtype.h"
#include "support/math/checked_math.h"
#include "support/reference_kernels/half.h"
#include "support/reference_kernels/kernel_api.h"
#include "tessera/common.h"

namespace tessera::onnx_import {
namespace {

cpu::QuantParams ToQuant(const Quantization& q) { return cpu::QuantParams{q.scales, q.zero_points, q.axis}; }

template <typename T>
T SaturatingCast(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

}  // namespace

void StoreElement(int32_t dtype, double value, uint8_t* data, int64_t i) {
  switch (dtype) {
    case TSR_DTYPE_F32: {
      float f = static_cast<float>(value);
      std::memcpy(data + 4 * i, &f, 4);
      break;
    }
    case TSR_DTYPE_F16: {
      uint16_t h = cpu::FloatToHalf(static_cast<float>(value));
      std::memcpy(data + 2 * i, &h, 2);
      break;
    }
    case TSR_DTYPE_I8: {
      int8_t v = SaturatingCast<int8_t>(value);
      std::memcpy(data + i, &v, 1);
      break;
    }
    case TSR_DTYPE_U8: {
      uint8_t v = SaturatingCast<uint8_t>(value);
      data[i] = v;
      break;
    }
    case TSR_DTYPE_I32: {
      int32_t v = SaturatingCast<int32_t>(value);
      std::memcpy(data + 4 * i, &v, 4);
      break;
    }
    case TSR_DTYPE_I64: {
      int64_t v = SaturatingCast<int64_t>(value);
      std::memcpy(data + 8 * i, &v, 8);
      break;
    }
    case TSR_DTYPE_BOOL:
      data[i] = value != 0 ? 1 : 0;
      break;
    default:
      break;
  }
}

double LoadElement(int32_t dtype, const uint8_t* data, int64_t i) {
  switch (dtype) {
    case TSR_DTYPE_F32: {
      float f;
      std::memcpy(&f, data + 4 * i, 4);
      return f;
    }
    case TSR_DTYPE_F16: {
      uint16_t h;
      std::memcpy(&h, data + 2 * i, 2);
      return cpu::HalfToFloat(h);
    }
    case TSR_DTYPE_I8: {
      int8_t v;
      std::memcpy(&v, data + i, 1);
      return v;
    }
    case TSR_DTYPE_U8:
      return data[i];
    case TSR_DTYPE_I32: {
      int32_t v;
      std::memcpy(&v, data + 4 * i, 4);
      return v;
    }
    case TSR_DTYPE_I64: {
      int64_t v;
      std::memcpy(&v, data + 8 * i, 8);
      return static_cast<double>(v);
    }
    case TSR_DTYPE_BOOL:
      return data[i] != 0 ? 1 : 0;
    default:
      return 0;
  }
}

absl::StatusOr<std::vector<HostTensor>> FoldConstantOp(int32_t op_type, const std::map<int32_t, Attribute>& attrs,
                                                       const std::vector<const Tensor*>& inputs,
                                                       const std::vector<TensorType>& outputs,
                                                       const std::vector<Quantization>& output_quants,
                                                       int64_t max_output_bytes) {
  cpu::Attributes a;
  for (const auto& [key, value] : attrs) {
    if (!value.floats.empty())
      a.SetFloats(key, value.floats);
    else
      a.SetInts(key, value.ints);
  }
  std::vector<cpu::TensorRef> in;
  for (const Tensor* t : inputs) {
    cpu::TensorRef r;
    if (t != nullptr) {
      r.dtype = t->dtype;
      r.shape = t->shape;
      r.data = const_cast<uint8_t*>(t->data.data());
      r.quant = ToQuant(t->quant);
    }
    in.push_back(std::move(r));
  }
  std::vector<HostTensor> results(outputs.size());
  std::vector<cpu::TensorRef> out(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const size_t elem = DTypeSize(outputs[i].dtype);
    if (elem == 0 || !checked::ElementCount(outputs[i].shape))
      return absl::InvalidArgumentError(absl::StrCat(OpTypeName(op_type), ": bad folded output shape"));
    const std::optional<int64_t> bytes = checked::TensorBytes(outputs[i].shape, elem, max_output_bytes);
    if (!bytes)
      return absl::ResourceExhaustedError(
          absl::StrCat(OpTypeName(op_type), ": folded constant of shape [", absl::StrJoin(outputs[i].shape, ","),
                       "] exceeds the import budget of ", max_output_bytes,
                       " bytes (ImportOptions::max_folded_constant_bytes, tessera import --max-folded-bytes)"));
    results[i].dtype = outputs[i].dtype;
    results[i].shape = outputs[i].shape;
    results[i].data.assign(static_cast<size_t>(*bytes), 0);
    out[i].dtype = outputs[i].dtype;
    out[i].shape = outputs[i].shape;
    out[i].data = results[i].data.data();
    if (i < output_quants.size()) out[i].quant = ToQuant(output_quants[i]);
  }
  absl::Status s = cpu::RunReferenceOp(op_type, a, in, out);
  if (!s.ok()) return absl::Status(s.code(), absl::StrCat("folding constants: ", s.message()));
  return results;
}

}  // namespace tessera::onnx_import
