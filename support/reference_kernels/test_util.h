// Test helpers: tensors that own their storage, and a one-line op runner.
#ifndef TESSERA_SUPPORT_REFERENCE_KERNELS_TEST_UTIL_H_
#define TESSERA_SUPPORT_REFERENCE_KERNELS_TEST_UTIL_H_

#include <cstring>
#include <initializer_list>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "support/reference_kernels/half.h"
#include "support/reference_kernels/kernel_api.h"
#include "support/reference_kernels/kernel_util.h"

namespace tessera::cpu::kt {

struct Tensor {
  TensorRef ref;
  std::shared_ptr<std::vector<char>> buf;
  operator const TensorRef&() const { return ref; }
};

inline Tensor Empty(int32_t dtype, std::vector<int64_t> shape) {
  Tensor t;
  t.ref.dtype = dtype;
  t.ref.shape = std::move(shape);
  t.buf = std::make_shared<std::vector<char>>(t.ref.byte_size() + 8, 0);
  t.ref.data = t.buf->data();
  return t;
}

// Values given as doubles are stored with the tensor's dtype (f16 rounds,
// ints via static_cast).
inline Tensor Make(int32_t dtype, std::vector<int64_t> shape, std::vector<double> values) {
  Tensor t = Empty(dtype, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) {
    if (IsFloatDType(dtype))
      StoreFloat(t.ref, i, static_cast<float>(values[i]));
    else
      StoreInt(t.ref, i, static_cast<int64_t>(values[i]));
  }
  return t;
}
inline Tensor F32(std::vector<int64_t> s, std::vector<double> v) { return Make(TSR_DTYPE_F32, s, v); }
inline Tensor F16(std::vector<int64_t> s, std::vector<double> v) { return Make(TSR_DTYPE_F16, s, v); }
inline Tensor I8(std::vector<int64_t> s, std::vector<double> v) { return Make(TSR_DTYPE_I8, s, v); }
inline Tensor U8(std::vector<int64_t> s, std::vector<double> v) { return Make(TSR_DTYPE_U8, s, v); }
inline Tensor I32(std::vector<int64_t> s, std::vector<double> v) { return Make(TSR_DTYPE_I32, s, v); }
inline Tensor Bool(std::vector<int64_t> s, std::vector<double> v) { return Make(TSR_DTYPE_BOOL, s, v); }
inline Tensor I64(std::vector<int64_t> s, std::vector<int64_t> v) {
  Tensor t = Empty(TSR_DTYPE_I64, std::move(s));
  if (!v.empty()) std::memcpy(t.ref.data, v.data(), v.size() * 8);
  return t;
}

inline Tensor WithQuant(Tensor t, std::vector<float> scales, std::vector<int64_t> zps, int32_t axis = -1) {
  t.ref.quant.scales = std::move(scales);
  t.ref.quant.zero_points = std::move(zps);
  t.ref.quant.axis = axis;
  return t;
}

inline std::vector<double> Values(const Tensor& t) {
  std::vector<double> v(t.ref.element_count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = LoadDouble(t.ref, i);
  return v;
}
inline std::vector<int64_t> Ints(const Tensor& t) { return LoadInts(t.ref); }

inline TensorRef Absent() { return TensorRef{}; }

inline absl::Status RunOp(int32_t op, const Attributes& attrs, std::vector<TensorRef> inputs, Tensor& out) {
  std::vector<TensorRef> outs = {out.ref};
  return RunReferenceOp(op, attrs, inputs, outs);
}
inline absl::Status RunMulti(int32_t op, const Attributes& attrs, std::vector<TensorRef> inputs,
                             std::vector<Tensor*> outs) {
  std::vector<TensorRef> o;
  for (Tensor* t : outs) o.push_back(t->ref);
  return RunReferenceOp(op, attrs, inputs, o);
}

inline Attributes Attrs() { return Attributes(); }

}  // namespace tessera::cpu::kt

#endif  // TESSERA_SUPPORT_REFERENCE_KERNELS_TEST_UTIL_H_
