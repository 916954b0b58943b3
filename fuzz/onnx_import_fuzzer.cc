// ONNX bytes -> ImportOnnxBytes with the CLI's default options (constant
// folding, optimisation passes and the default folding budget included).
#include <cstdint>

#include "onnx/onnx_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tessera::onnx_import::ImportOnnxBytes({data, size});
  return 0;
}
