// A tensor's bytes in host memory, owned: what apps pass in and get back,
// and what the .pb test files hold.
#ifndef TESSERA_FRAMEWORK_CORE_GRAPH_HOST_TENSOR_H_
#define TESSERA_FRAMEWORK_CORE_GRAPH_HOST_TENSOR_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

struct HostTensor {
  std::string name;
  int32_t dtype = 0;  // tsr_dtype
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // dense row-major, little-endian
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_GRAPH_HOST_TENSOR_H_
