// tensor_files.hpp over the framework's TensorProto reader and writer.
#include "tessera/app/tensor_files.hpp"

#include <cstring>
#include <limits>

#include "framework/app/app_internal.h"
#include "framework/core/io/tensor_proto.h"

namespace tessera::app {
Result<Tensor> ReadTensorFile(const std::string& path, uint64_t max_file_bytes) {
  absl::StatusOr<HostTensor> h =
      ReadTensorProtoFile(path, max_file_bytes == 0 ? std::numeric_limits<uint64_t>::max() : max_file_bytes);
  if (!h.ok()) return FromAbsl(h.status());
  return FromHostTensor(*std::move(h));
}

uint64_t MaxTensorFileBytes(const std::vector<int64_t>& shape) { return MaxTensorProtoFileBytes(shape); }

Status WriteTensorFile(const Tensor& tensor, const std::string& path) {
  return FromAbsl(WriteTensorProtoFile(ToHostTensor(tensor), path));
}

Result<std::vector<std::string>> ListTensorFiles(const std::string& dir, const std::string& prefix) {
  absl::StatusOr<std::vector<std::string>> paths = ListTensorSet(dir, prefix);
  if (!paths.ok()) return FromAbsl(paths.status());
  return *std::move(paths);
}

Status WriteTensorFiles(const std::vector<Tensor>& tensors, const std::string& dir, const std::string& prefix) {
  std::vector<HostTensor> host;
  for (const Tensor& t : tensors) host.push_back(ToHostTensor(t));
  return FromAbsl(WriteTensorSet(host, dir, prefix));
}

}  // namespace tessera::app
