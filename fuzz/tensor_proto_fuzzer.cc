// TensorProto (.pb) bytes -> ParseTensorProto, the hand-written wire decoder.
#include <cstdint>

#include "framework/core/io/tensor_proto.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tessera::ParseTensorProto({data, size});
  return 0;
}
