#include "buffer_negotiation.h"

#include "gtest/gtest.h"
#include "tessera/common.h"

namespace tessera {
namespace {

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

TEST(BufferNegotiation, EmptyListsMeanHost) {
  BufferDecision d = NegotiateBufferTypes({}, {{}, {kHost}});
  EXPECT_EQ(d.primary_type, kHost);
  EXPECT_TRUE(d.zero_copy());
}

}  // namespace
}  // namespace tessera
