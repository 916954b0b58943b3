// The reference-kernel interface of the cpu plugin. Kernels read and write
// plain tensors whose shapes are already known (static shapes), so a kernel
// never allocates its outputs: the caller does, then the kernel fills them.
//
// Built only against api/ (plus abseil): the plugin never sees the framework.
#ifndef TESSERA_SUPPORT_REFERENCE_KERNELS_KERNEL_API_H_
#define TESSERA_SUPPORT_REFERENCE_KERNELS_KERNEL_API_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::cpu {

// Quantization parameters of one tensor: real = scale * (q - zero_point).
// Empty scales mean "not quantized"; one entry is per-tensor; more are
// per-channel along `axis`.
struct QuantParams {
  std::vector<float> scales;
  std::vector<int64_t> zero_points;
  int32_t axis = -1;
  bool quantized() const { return !scales.empty(); }
};

// A view of one tensor: the kernel neither owns nor frees `data`.
struct TensorRef {
  int32_t dtype = TSR_DTYPE_UNKNOWN;  // tsr_dtype
  std::vector<int64_t> shape;         // rank 0 = scalar
  void* data = nullptr;
  QuantParams quant;

  int64_t element_count() const;
  size_t byte_size() const;
};

// One attribute value: an integer list or a float list (scalars are lists
// of one), keyed by tsr_attr_key.
struct AttrValue {
  std::vector<int64_t> ints;
  std::vector<float> floats;
};

class Attributes {
 public:
  void SetInts(int32_t key, std::vector<int64_t> v);
  void SetFloats(int32_t key, std::vector<float> v);
  bool Has(int32_t key) const;
  int64_t GetInt(int32_t key, int64_t default_value) const;
  float GetFloat(int32_t key, float default_value) const;
  // Empty when absent.
  std::span<const int64_t> GetInts(int32_t key) const;
  std::span<const float> GetFloats(int32_t key) const;
  const std::map<int32_t, AttrValue>& all() const { return values_; }

 private:
  std::map<int32_t, AttrValue> values_;
};

size_t DTypeSize(int32_t dtype);
const char* OpTypeName(int32_t op_type);  // "ADD", "CONV_2D", ...
const char* DTypeName(int32_t dtype);     // "f32", "i8", ...

// Runs one op with the reference kernels. `outputs` are preallocated with
// their final dtype and shape. Returns InvalidArgument (never aborts) when
// the dtypes, shapes or attributes don't fit the op's documented semantics,
// and Unimplemented for a dtype the op does not support.
absl::Status RunReferenceOp(int32_t op_type, const Attributes& attrs, std::span<const TensorRef> inputs,
                            std::span<TensorRef> outputs);

// True when RunReferenceOp supports this op with these input/output dtypes
// and quantization; `reason` (optional) says why not.
bool ReferenceSupports(int32_t op_type, std::span<const TensorRef> inputs, std::span<const TensorRef> outputs,
                       std::string* reason);

}  // namespace tessera::cpu

#endif  // TESSERA_SUPPORT_REFERENCE_KERNELS_KERNEL_API_H_
