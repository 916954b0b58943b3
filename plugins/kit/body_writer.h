// An entry body that is written in place rather than handed over as a
// vector: its exact size is known before any byte exists, so whoever holds
// the final buffer (the bytecode envelope, a JIT payload) allocates it once
// and the body never exists twice. For a body that carries the weights
// (the cpu plugin's encoded subgraph) that is the difference between one
// and two copies of them at compile's peak (docs/benchmarks.md).
#ifndef TESSERA_PLUGINS_KIT_BODY_WRITER_H_
#define TESSERA_PLUGINS_KIT_BODY_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace tessera::kit {

struct BodyWriter {
  size_t size = 0;
  // Writes exactly `size` bytes into `out` (out.size() == size), which the
  // caller zeroed; false when it could not (the result is then unusable).
  std::function<bool(std::span<uint8_t> out)> write;
};

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_BODY_WRITER_H_
