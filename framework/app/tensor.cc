// Tensor and TensorInfo, and the one crossing between the app's tensors and
// the framework's host tensors.
#include <algorithm>
#include <cstring>
#include <limits>

#include "framework/app/app_internal.h"
#include "framework/core/base/dtype.h"

namespace tessera::app {

size_t TensorInfo::byte_size() const {
  // Saturates instead of wrapping: a shape whose bytes overflow size_t can
  // then never pass Wrap's size check or be allocated small.
  size_t bytes = DTypeSize(dtype);
  for (int64_t d : shape) {
    const size_t n = d < 0 ? 0 : static_cast<size_t>(d);
    if (n != 0 && bytes > std::numeric_limits<size_t>::max() / n) return std::numeric_limits<size_t>::max();
    bytes *= n;
  }
  return bytes;
}

Result<size_t> IndexByName(const std::vector<TensorInfo>& tensors, const std::string& name) {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name) return i;
  std::string names;
  for (const TensorInfo& t : tensors) names += (names.empty() ? "'" : ", '") + t.name + "'";
  return Status(TSR_NOT_FOUND,
                "no tensor is named '" + name + "' (the names: " + (names.empty() ? "none" : names) + ")");
}

Tensor Tensor::Allocate(TensorInfo info) {
  auto owned = std::make_shared<std::vector<uint8_t>>(info.byte_size());
  void* data = owned->data();
  const size_t size = owned->size();
  return TensorAccess::Own(std::move(info), std::move(owned), data, size);
}

Result<Tensor> Tensor::Wrap(TensorInfo info, void* data, size_t size) {
  if (data == nullptr && size > 0) return Status(TSR_INVALID_ARGUMENT, "Tensor::Wrap of NULL memory");
  if (size < info.byte_size())
    return Status(TSR_INVALID_ARGUMENT, "Tensor::Wrap: '" + info.name + "' needs " + std::to_string(info.byte_size()) +
                                            " bytes, the memory has " + std::to_string(size));
  return Tensor(std::move(info), nullptr, data, size);
}

HostTensor ToHostTensor(const Tensor& tensor) {
  const auto* p = static_cast<const uint8_t*>(tensor.data());
  const size_t bytes = std::min(tensor.info().byte_size(), tensor.size());
  return {tensor.info().name, tensor.info().dtype, tensor.info().shape, std::vector<uint8_t>(p, p + bytes)};
}

Tensor FromHostTensor(HostTensor&& tensor) {
  auto owned = std::make_shared<std::vector<uint8_t>>(std::move(tensor.data));
  void* data = owned->data();
  const size_t size = owned->size();
  return TensorAccess::Own({std::move(tensor.name), static_cast<tsr_dtype>(tensor.dtype), std::move(tensor.shape)},
                           std::move(owned), data, size);
}

}  // namespace tessera::app
