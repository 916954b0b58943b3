// Tensors as ONNX TensorProto files (.pb), the layout ONNX's backend tests
// use: DIR/input_0.pb, input_1.pb, ... and output_K.pb. `tessera run
// --inputs DIR / --outputs DIR` and `tessera onnx-test` read and write
// these; apps use them for test vectors.
#ifndef TESSERA_APP_TENSOR_FILES_HPP_
#define TESSERA_APP_TENSOR_FILES_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/app/tessera_app.hpp"

namespace tessera::app {

// Reads one file. A file larger than `max_file_bytes` is refused before it
// is read (see MaxTensorFileBytes); 0 = no limit.
Result<Tensor> ReadTensorFile(const std::string& path, uint64_t max_file_bytes = 0);
// The largest file a valid TensorProto of a tensor of `shape` can take (any
// dtype, any encoding): the bound to read a model input's file with.
uint64_t MaxTensorFileBytes(const std::vector<int64_t>& shape);
// Checks dtype and size against the shape; written atomically.
Status WriteTensorFile(const Tensor& tensor, const std::string& path);

// DIR/<prefix>_0.pb ... in index order (prefix "input" or "output"); the
// indices must run 0..N-1 without gaps. An empty set is not an error.
Result<std::vector<std::string>> ListTensorFiles(const std::string& dir, const std::string& prefix);
// Writes <prefix>_0.pb ... into `dir` (created if needed) and removes stale
// <prefix>_K.pb files beyond them.
Status WriteTensorFiles(const std::vector<Tensor>& tensors, const std::string& dir, const std::string& prefix);

}  // namespace tessera::app

#endif  // TESSERA_APP_TENSOR_FILES_HPP_
