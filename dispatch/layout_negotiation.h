// Zero-copy needs the same memory AND the same layout: a tensor stays in
// one buffer only where its producer and every consumer accept one
// (buffer type, layout) pair. Where they don't, each consumer that cannot
// read the producer's buffer gets its own copy, in one of its layouts that
// the producer's can be converted to: by the host through map_buffer when
// neither layout is VENDOR, by the library's convert_buffer when both
// buffers are that library's. A pair nothing can convert fails the load.
//
// This extends buffer_negotiation.h (types only) to layouts; types still
// follow its namespace rule (SameBufferType).
#ifndef TESSERA_DISPATCH_LAYOUT_NEGOTIATION_H_
#define TESSERA_DISPATCH_LAYOUT_NEGOTIATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dispatch/buffer_layout.h"

namespace tessera {

// One endpoint of a tensor edge: a step's input or output, or the app.
struct LayoutEndpoint {
  std::vector<BufferLayout> alternatives;  // canonical, most preferred first; empty = dense host
  int32_t owner = -1;                      // device session; -1 = the app
  bool converts_own = false;               // its library has convert_buffer
  std::string name;                        // for errors: "op id 3 (mock_dsp) input 0", "the app"
};

struct LayoutDecision {
  BufferLayout primary;                 // where the producer writes: one of its alternatives
  std::vector<BufferLayout> consumer;   // per consumer: what it reads
  std::vector<bool> reads_primary;      // per consumer: the producer's buffer itself
  bool zero_copy() const {
    for (bool r : reads_primary) if (!r) return false;
    return true;
  }
};

// `a` of `owner_a` and `b` of `owner_b` are one buffer's view: the same
// memory kind and the same layout (a VENDOR id means something within one
// library only).
bool Meets(const BufferLayout& a, int32_t owner_a, const BufferLayout& b, int32_t owner_b);

// Whether a buffer `from` (of `from_owner`) can be converted into `to` (of
// `to_owner`): by the host, or by the one library owning both when it
// `converts_own`.
bool Convertible(const BufferLayout& from, int32_t from_owner, const BufferLayout& to, int32_t to_owner,
                 bool converts_own);

// The first producer alternative every consumer meets; else the first
// producer alternative from which every other consumer has a convertible
// alternative (its first such one). FailedPrecondition naming both
// endpoints when some consumer can be reached from none.
absl::StatusOr<LayoutDecision> NegotiateLayouts(const LayoutEndpoint& producer,
                                                const std::vector<LayoutEndpoint>& consumers);

}  // namespace tessera

#endif  // TESSERA_DISPATCH_LAYOUT_NEGOTIATION_H_
