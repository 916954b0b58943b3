// ONNX bytes -> ImportOnnxBytes with the CLI's default options (constant
// folding, optimisation passes and the default folding budget included),
// then again in place (ImportOnnxShared, as `tessera import` maps a file)
// with every raw_data left out of the protobuf parse: the model scanner
// (onnx/model_scanner.h) and the payload views on every input, however
// small its tensors.
#include <cstdint>
#include <memory>
#include <vector>

#include "framework/compiler/onnx/onnx_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tessera::onnx_import::ImportOnnxBytes({data, size});
  auto owned = std::make_shared<const std::vector<uint8_t>>(data, data + size);
  tessera::onnx_import::ImportOptions every_payload;
  every_payload.large_payload_bytes = 0;
  (void)tessera::onnx_import::ImportOnnxShared(*owned, owned, every_payload);
  return 0;
}
