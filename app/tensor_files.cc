// tensor_files.hpp over the framework's TensorProto reader and writer.
#include "tessera/app/tensor_files.hpp"

#include <cstring>
#include <limits>

#include "app_internal.h"
#include "io/tensor_proto.h"

namespace tessera::app {
namespace {

Tensor FromHost(const HostTensor& h) {
  Tensor t = Tensor::Allocate({h.name, static_cast<tsr_dtype>(h.dtype), h.shape});
  if (!h.data.empty()) std::memcpy(t.data(), h.data.data(), std::min(h.data.size(), t.size()));
  return t;
}

HostTensor ToHost(const Tensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.data());
  return {t.info().name, t.info().dtype, t.info().shape, std::vector<uint8_t>(p, p + t.size())};
}

}  // namespace

Result<Tensor> ReadTensorFile(const std::string& path, uint64_t max_file_bytes) {
  absl::StatusOr<HostTensor> h =
      ReadTensorProtoFile(path, max_file_bytes == 0 ? std::numeric_limits<uint64_t>::max() : max_file_bytes);
  if (!h.ok()) return FromAbsl(h.status());
  return FromHost(*h);
}

uint64_t MaxTensorFileBytes(const std::vector<int64_t>& shape) { return MaxTensorProtoFileBytes(shape); }

Status WriteTensorFile(const Tensor& tensor, const std::string& path) {
  return FromAbsl(WriteTensorProtoFile(ToHost(tensor), path));
}

Result<std::vector<std::string>> ListTensorFiles(const std::string& dir, const std::string& prefix) {
  absl::StatusOr<std::vector<std::string>> paths = ListTensorSet(dir, prefix);
  if (!paths.ok()) return FromAbsl(paths.status());
  return *std::move(paths);
}

Status WriteTensorFiles(const std::vector<Tensor>& tensors, const std::string& dir, const std::string& prefix) {
  std::vector<HostTensor> host;
  for (const Tensor& t : tensors) host.push_back(ToHost(t));
  return FromAbsl(WriteTensorSet(host, dir, prefix));
}

}  // namespace tessera::app
