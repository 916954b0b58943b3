// TensorRef, Attributes and the dtype / op-type name tables.
#include "support/ops/op_names.h"
#include "support/reference_kernels/kernel_api.h"

namespace tessera::cpu {

int64_t TensorRef::element_count() const {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d <= 0) return 0;
    n *= d;
  }
  return n;
}

size_t TensorRef::byte_size() const { return static_cast<size_t>(element_count()) * DTypeSize(dtype); }

void Attributes::SetInts(int32_t key, std::vector<int64_t> v) {
  AttrValue& a = values_[key];
  a.ints = std::move(v);
  a.floats.clear();
}

void Attributes::SetFloats(int32_t key, std::vector<float> v) {
  AttrValue& a = values_[key];
  a.floats = std::move(v);
  a.ints.clear();
}

bool Attributes::Has(int32_t key) const { return values_.count(key) != 0; }

int64_t Attributes::GetInt(int32_t key, int64_t default_value) const {
  auto it = values_.find(key);
  if (it == values_.end() || it->second.ints.empty()) return default_value;
  return it->second.ints[0];
}

float Attributes::GetFloat(int32_t key, float default_value) const {
  auto it = values_.find(key);
  if (it == values_.end()) return default_value;
  if (!it->second.floats.empty()) return it->second.floats[0];
  // An integer-valued attribute is accepted where a float is read.
  if (!it->second.ints.empty()) return static_cast<float>(it->second.ints[0]);
  return default_value;
}

std::span<const int64_t> Attributes::GetInts(int32_t key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return {};
  return it->second.ints;
}

std::span<const float> Attributes::GetFloats(int32_t key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return {};
  return it->second.floats;
}

size_t DTypeSize(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32:
      return 4;
    case TSR_DTYPE_F16:
      return 2;
    case TSR_DTYPE_I8:
      return 1;
    case TSR_DTYPE_U8:
      return 1;
    case TSR_DTYPE_I32:
      return 4;
    case TSR_DTYPE_I64:
      return 8;
    case TSR_DTYPE_BOOL:
      return 1;
    default:
      return 0;
  }
}

const char* DTypeName(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32:
      return "f32";
    case TSR_DTYPE_F16:
      return "f16";
    case TSR_DTYPE_I8:
      return "i8";
    case TSR_DTYPE_U8:
      return "u8";
    case TSR_DTYPE_I32:
      return "i32";
    case TSR_DTYPE_I64:
      return "i64";
    case TSR_DTYPE_BOOL:
      return "bool";
    case TSR_DTYPE_UNKNOWN:
      return "unknown";
    default:
      return "invalid";
  }
}

const char* OpTypeName(int32_t op_type) {
  const char* name = OpTypeNameOrNull(op_type);
  return name != nullptr ? name : "INVALID_OP";
}

}  // namespace tessera::cpu
