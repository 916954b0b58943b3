// The buffer-type rules of negotiation (layout_negotiation.h) with every
// endpoint dense: which type the producer writes, who reads that buffer,
// who reads a converted copy of which type.
#include "dispatch/buffer_negotiation.h"

#include "gtest/gtest.h"
#include "dispatch/layout_negotiation.h"
#include "tessera/common.h"

namespace tessera {
namespace {

using BufferTypeList = std::vector<int32_t>;
struct BufferEndpoint {
  BufferTypeList types;
  int32_t owner = -1;
};
struct BufferDecision {
  int32_t primary_type = 0;
  std::vector<int32_t> consumer_types;
  std::vector<bool> reads_primary;
  bool zero_copy() const {
    for (bool r : reads_primary) if (!r) return false;
    return true;
  }
};

LayoutEndpoint Dense(const BufferEndpoint& e) {
  LayoutEndpoint l{{}, e.owner, false, "endpoint"};
  for (int32_t t : e.types) l.alternatives.push_back(BufferLayout{.type = t});
  return l;
}

BufferDecision NegotiateBufferTypes(const BufferEndpoint& producer, const std::vector<BufferEndpoint>& consumers) {
  std::vector<LayoutEndpoint> c;
  for (const BufferEndpoint& e : consumers) c.push_back(Dense(e));
  absl::StatusOr<LayoutDecision> d = NegotiateLayouts(Dense(producer), c);
  EXPECT_TRUE(d.ok()) << d.status();  // dense layouts always convert on the host
  BufferDecision out;
  if (!d.ok()) return out;
  out.primary_type = d->primary.type;
  for (const BufferLayout& l : d->consumer) out.consumer_types.push_back(l.type);
  out.reads_primary = d->reads_primary;
  return out;
}

// Every endpoint in one library.
BufferDecision NegotiateBufferTypes(const BufferTypeList& producer, const std::vector<BufferTypeList>& consumers) {
  std::vector<BufferEndpoint> c;
  for (const BufferTypeList& l : consumers) c.push_back({l, 0});
  return NegotiateBufferTypes(BufferEndpoint{producer, 0}, c);
}

constexpr int32_t kHost = TSR_BUFFER_TYPE_HOST;
constexpr int32_t kDram = TSR_BUFFER_TYPE_DEVICE_DRAM;
constexpr int32_t kTcm = TSR_BUFFER_TYPE_VENDOR_BASE + 1;

TEST(BufferNegotiation, PicksProducersFirstChoiceEveryoneAccepts) {
  BufferDecision d = NegotiateBufferTypes({kDram, kHost}, {{kHost, kDram}, {kDram}});
  EXPECT_EQ(d.primary_type, kDram);
  EXPECT_TRUE(d.zero_copy());
}

TEST(BufferNegotiation, FallsBackToALaterCommonType) {
  BufferDecision d = NegotiateBufferTypes({kDram, kHost}, {{kHost}, {kTcm, kHost}});
  EXPECT_EQ(d.primary_type, kHost);
  EXPECT_TRUE(d.zero_copy());
}

TEST(BufferNegotiation, NoIntersectionMeansAConversionPerMismatchedConsumer) {
  BufferDecision d = NegotiateBufferTypes({kDram}, {{kTcm}, {kDram, kHost}});
  EXPECT_EQ(d.primary_type, kDram);
  EXPECT_FALSE(d.zero_copy());
  EXPECT_EQ(d.consumer_types, (std::vector<int32_t>{kTcm, kDram}));
}

// Several types in common: the producer's order decides, whatever the
// consumers' order; swapping the producer's list swaps the pick.
TEST(BufferNegotiation, TheProducersOrderDecidesAmongCommonTypes) {
  BufferDecision d = NegotiateBufferTypes({kDram, kHost}, {{kHost, kDram}, {kHost, kTcm, kDram}});
  EXPECT_EQ(d.primary_type, kDram);
  EXPECT_EQ(d.consumer_types, (std::vector<int32_t>{kDram, kDram}));
  d = NegotiateBufferTypes({kHost, kDram}, {{kDram, kHost}, {kDram, kTcm, kHost}});
  EXPECT_EQ(d.primary_type, kHost);
  EXPECT_EQ(d.consumer_types, (std::vector<int32_t>{kHost, kHost}));
  EXPECT_TRUE(d.zero_copy());
  // Three candidates, the first accepted by one consumer only: the second.
  d = NegotiateBufferTypes({kTcm, TSR_BUFFER_TYPE_DMABUF, kHost}, {{kHost, kTcm, TSR_BUFFER_TYPE_DMABUF},
                                                                   {TSR_BUFFER_TYPE_DMABUF, kHost}});
  EXPECT_EQ(d.primary_type, TSR_BUFFER_TYPE_DMABUF);
  EXPECT_TRUE(d.zero_copy());
}

// A consumer that cannot read the primary type is converted into its own
// first choice, not any other type it lists.
TEST(BufferNegotiation, AMismatchedConsumerGetsItsFirstChoice) {
  BufferDecision d = NegotiateBufferTypes({kDram}, {{kTcm, TSR_BUFFER_TYPE_DMABUF}, {kDram}, {kHost, kTcm}});
  EXPECT_EQ(d.primary_type, kDram);
  EXPECT_EQ(d.consumer_types, (std::vector<int32_t>{kTcm, kDram, kHost}));
  EXPECT_EQ(d.reads_primary, (std::vector<bool>{false, true, false}));
}

TEST(BufferNegotiation, EmptyListsMeanHost) {
  BufferDecision d = NegotiateBufferTypes({}, {{}, {kHost}});
  EXPECT_EQ(d.primary_type, kHost);
  EXPECT_TRUE(d.zero_copy());
}

// The namespace rule (ABI 1.2): DEVICE_DRAM and vendor types are one
// library's own memory. 1.1 compared bare integers, so two libraries that
// both listed DEVICE_DRAM, or picked the same vendor number, looked
// zero-copy compatible.
TEST(BufferNegotiation, LibraryScopedTypesNeverMatchAcrossLibraries) {
  const int32_t kVendorOne = TSR_BUFFER_TYPE_VENDOR_BASE + 1;
  BufferDecision d = NegotiateBufferTypes(BufferEndpoint{{TSR_BUFFER_TYPE_DEVICE_DRAM, TSR_BUFFER_TYPE_HOST}, 0},
                                          {BufferEndpoint{{TSR_BUFFER_TYPE_DEVICE_DRAM, TSR_BUFFER_TYPE_HOST}, 1}});
  EXPECT_EQ(d.primary_type, TSR_BUFFER_TYPE_HOST);  // the one type both mean the same by
  EXPECT_TRUE(d.zero_copy());
  d = NegotiateBufferTypes(BufferEndpoint{{kVendorOne}, 0}, {BufferEndpoint{{kVendorOne}, 1}});
  EXPECT_EQ(d.primary_type, kVendorOne);
  ASSERT_EQ(d.reads_primary.size(), 1u);
  EXPECT_FALSE(d.reads_primary[0]);  // same number, other memory: a conversion
  EXPECT_FALSE(d.zero_copy());
  d = NegotiateBufferTypes(BufferEndpoint{{kVendorOne}, 3}, {BufferEndpoint{{kVendorOne}, 3}});
  EXPECT_TRUE(d.zero_copy());  // within one library it is the same memory
  d = NegotiateBufferTypes(BufferEndpoint{{TSR_BUFFER_TYPE_DMABUF}, 0}, {BufferEndpoint{{TSR_BUFFER_TYPE_DMABUF}, 1}});
  EXPECT_TRUE(d.zero_copy());  // DMABUF crosses libraries
  EXPECT_TRUE(SameBufferType(TSR_BUFFER_TYPE_HOST, 0, TSR_BUFFER_TYPE_HOST, -1));
  EXPECT_FALSE(SameBufferType(TSR_BUFFER_TYPE_DEVICE_DRAM, 0, TSR_BUFFER_TYPE_DEVICE_DRAM, 1));
}

}  // namespace
}  // namespace tessera
