#include "dispatch/layout_negotiation.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "dispatch/buffer_negotiation.h"

namespace tessera {
namespace {

const std::vector<BufferLayout>& OrDenseHost(const std::vector<BufferLayout>& l) {
  static const std::vector<BufferLayout>* dense_host = new std::vector<BufferLayout>{DenseHostLayout()};
  return l.empty() ? *dense_host : l;
}

bool Accepts(const LayoutEndpoint& e, const BufferLayout& l, int32_t owner) {
  const std::vector<BufferLayout>& alts = OrDenseHost(e.alternatives);
  return std::any_of(alts.begin(), alts.end(), [&](const BufferLayout& a) { return Meets(a, e.owner, l, owner); });
}

// The first alternative of `c` that a buffer `from` of the producer converts to.
std::optional<BufferLayout> Reachable(const LayoutEndpoint& producer, const BufferLayout& from, const LayoutEndpoint& c) {
  for (const BufferLayout& to : OrDenseHost(c.alternatives))
    if (Convertible(from, producer.owner, to, c.owner, producer.converts_own)) return to;
  return std::nullopt;
}

std::string Describe(const BufferLayout& l) {
  return absl::StrCat(BufferTypeName(l.type), " ", l.layout == TSR_LAYOUT_VENDOR ? "VENDOR" : "host-readable", " layout");
}

}  // namespace

bool Meets(const BufferLayout& a, int32_t owner_a, const BufferLayout& b, int32_t owner_b) {
  if (!SameBufferType(a.type, owner_a, b.type, owner_b) || !SameLayout(a, b)) return false;
  return a.layout != TSR_LAYOUT_VENDOR || owner_a == owner_b;
}

bool Convertible(const BufferLayout& from, int32_t from_owner, const BufferLayout& to, int32_t to_owner,
                 bool converts_own) {
  if (HostReadable(from) && HostReadable(to)) return true;  // map both, relayout on the host
  return from_owner >= 0 && from_owner == to_owner && converts_own;
}

absl::StatusOr<LayoutDecision> NegotiateLayouts(const LayoutEndpoint& producer,
                                                const std::vector<LayoutEndpoint>& consumers) {
  const std::vector<BufferLayout>& offered = OrDenseHost(producer.alternatives);
  for (const BufferLayout& p : offered) {
    const bool everyone = std::all_of(consumers.begin(), consumers.end(),
                                      [&](const LayoutEndpoint& c) { return Accepts(c, p, producer.owner); });
    if (!everyone) continue;
    LayoutDecision d;
    d.primary = p;
    for (const LayoutEndpoint& c : consumers) {
      // The consumer's own spelling of the shared buffer (its alignment, size).
      const std::vector<BufferLayout>& alts = OrDenseHost(c.alternatives);
      d.consumer.push_back(*std::find_if(alts.begin(), alts.end(),
                                         [&](const BufferLayout& a) { return Meets(a, c.owner, p, producer.owner); }));
      d.reads_primary.push_back(true);
    }
    return d;
  }
  // No pair in common: the first producer alternative every other consumer
  // can be converted from.
  size_t blocked = 0;  // the consumer that refused the last candidate, for the message
  for (const BufferLayout& p : offered) {
    LayoutDecision d;
    d.primary = p;
    bool ok = true;
    for (size_t i = 0; i < consumers.size() && ok; ++i) {
      const LayoutEndpoint& c = consumers[i];
      if (Accepts(c, p, producer.owner)) {
        const std::vector<BufferLayout>& alts = OrDenseHost(c.alternatives);
        d.consumer.push_back(*std::find_if(alts.begin(), alts.end(),
                                           [&](const BufferLayout& a) { return Meets(a, c.owner, p, producer.owner); }));
        d.reads_primary.push_back(true);
      } else if (std::optional<BufferLayout> to = Reachable(producer, p, c)) {
        d.consumer.push_back(*to);
        d.reads_primary.push_back(false);
      } else {
        ok = false;
        blocked = i;
      }
    }
    if (ok) return d;
  }
  const LayoutEndpoint& c = consumers[blocked];
  return absl::FailedPreconditionError(absl::StrCat(
      "no conversion from ", producer.name, " (", Describe(offered.front()), ") to ", c.name, " (",
      Describe(OrDenseHost(c.alternatives).front()),
      "): a VENDOR layout is read only by its own library, which converts it with convert_buffer between its own "
      "buffers, and ",
      producer.converts_own ? "these endpoints are in different libraries" : "this library has no convert_buffer"));
}

}  // namespace tessera
