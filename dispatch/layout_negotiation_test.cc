// Layout negotiation on hand-built endpoint lists: who writes where, who
// reads the producer's buffer, and who gets a converted copy in which of
// its layouts.
#include "dispatch/layout_negotiation.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

constexpr int32_t kTcm = TSR_BUFFER_TYPE_VENDOR_BASE + 1;

BufferLayout Dense(int32_t type) { return {.type = type}; }
BufferLayout Rows(int32_t type, uint64_t stride) {
  return {.type = type, .layout = TSR_LAYOUT_STRIDED, .row_stride_bytes = stride};
}
BufferLayout Vendor(int32_t type, uint64_t id) { return {.type = type, .layout = TSR_LAYOUT_VENDOR, .vendor_layout_id = id}; }
LayoutEndpoint Dsp(std::vector<BufferLayout> l, bool converts = true) { return {std::move(l), 1, converts, "dsp op"}; }
LayoutEndpoint Cpu() { return {{Dense(TSR_BUFFER_TYPE_HOST)}, 0, false, "cpu op"}; }
LayoutEndpoint App() { return {{}, -1, false, "the app"}; }

TEST(LayoutNegotiation, TheSameMemoryInTheSameLayoutIsZeroCopy) {
  // DSP -> DSP: both prefer padded TCM rows.
  absl::StatusOr<LayoutDecision> d = NegotiateLayouts(Dsp({Rows(kTcm, 128)}), {Dsp({Rows(kTcm, 128)})});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->zero_copy());
  EXPECT_EQ(d->primary.row_stride_bytes, 128u);
}

TEST(LayoutNegotiation, TheSameMemoryInAnotherLayoutIsNotAMatch) {
  // One library, one type, two row strides: a conversion of layout only.
  absl::StatusOr<LayoutDecision> d = NegotiateLayouts(Dsp({Rows(kTcm, 128)}), {Dsp({Rows(kTcm, 256)})});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_FALSE(d->zero_copy());
  EXPECT_EQ(d->primary.row_stride_bytes, 128u);
  EXPECT_EQ(d->consumer[0].row_stride_bytes, 256u);
}

TEST(LayoutNegotiation, ALaterAlternativeInCommonWinsOverAConversion) {
  // The producer prefers padded rows, but dense DMABUF is in everyone's list.
  const LayoutEndpoint producer = Dsp({Rows(kTcm, 128), Dense(TSR_BUFFER_TYPE_DMABUF)});
  const LayoutEndpoint npu{{Dense(TSR_BUFFER_TYPE_DEVICE_DRAM), Dense(TSR_BUFFER_TYPE_DMABUF)}, 2, false, "npu op"};
  absl::StatusOr<LayoutDecision> d = NegotiateLayouts(producer, {npu, Dsp({Rows(kTcm, 128), Dense(TSR_BUFFER_TYPE_DMABUF)})});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->zero_copy());
  EXPECT_EQ(d->primary.type, TSR_BUFFER_TYPE_DMABUF);
  EXPECT_EQ(d->primary.layout, TSR_LAYOUT_DENSE);
}

TEST(LayoutNegotiation, NoPairInCommonConvertsEachConsumerToItsFirstReachableLayout) {
  // DSP -> {cpu, DSP, app}: the DSP reads the producer's buffer, the cpu
  // and the app get dense host copies.
  absl::StatusOr<LayoutDecision> d =
      NegotiateLayouts(Dsp({Rows(kTcm, 128)}), {Cpu(), Dsp({Rows(kTcm, 128)}), App()});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->reads_primary, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(d->consumer[0].type, TSR_BUFFER_TYPE_HOST);
  EXPECT_EQ(d->consumer[0].layout, TSR_LAYOUT_DENSE);
  EXPECT_EQ(d->consumer[2].layout, TSR_LAYOUT_DENSE);
}

TEST(LayoutNegotiation, TheAppFeedsTheDspThroughAHostRelayout) {
  absl::StatusOr<LayoutDecision> d = NegotiateLayouts(App(), {Dsp({Rows(kTcm, 128)})});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->primary.type, TSR_BUFFER_TYPE_HOST);
  EXPECT_FALSE(d->reads_primary[0]);
  EXPECT_EQ(d->consumer[0].row_stride_bytes, 128u);
}

TEST(LayoutNegotiation, VendorIdsMatchWithinOneLibraryOnly) {
  const BufferLayout tile = Vendor(TSR_BUFFER_TYPE_DMABUF, 7);
  // Same library, same id: one buffer.
  EXPECT_TRUE(NegotiateLayouts(Dsp({tile}), {Dsp({tile})})->zero_copy());
  // Same id from another library means another layout; and no hook there.
  const LayoutEndpoint other{{tile, Dense(TSR_BUFFER_TYPE_HOST)}, 2, false, "other op"};
  absl::StatusOr<LayoutDecision> d = NegotiateLayouts(Dsp({tile, Dense(TSR_BUFFER_TYPE_DMABUF)}), {other});
  ASSERT_TRUE(d.ok()) << d.status();
  // The producer's second alternative is host-readable: the host converts from it.
  EXPECT_EQ(d->primary.layout, TSR_LAYOUT_DENSE);
  EXPECT_FALSE(d->reads_primary[0]);
}

TEST(LayoutNegotiation, AVendorLayoutConvertsInsideItsLibraryThroughTheHook) {
  absl::StatusOr<LayoutDecision> d = NegotiateLayouts(Dsp({Vendor(kTcm, 3)}), {Dsp({Vendor(kTcm, 4)})});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_FALSE(d->reads_primary[0]);
  EXPECT_EQ(d->consumer[0].vendor_layout_id, 4u);
  // Without the hook nobody can read the tile to convert it.
  d = NegotiateLayouts(Dsp({Vendor(kTcm, 3)}, false), {Dsp({Vendor(kTcm, 4)}, false)});
  EXPECT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(d.status().message(), HasSubstr("this library has no convert_buffer"));
}

TEST(LayoutNegotiation, AVendorLayoutLeavingItsLibraryFailsNamingBothEnds) {
  absl::StatusOr<LayoutDecision> d = NegotiateLayouts(Dsp({Vendor(kTcm, 3)}), {Cpu()});
  EXPECT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(d.status().message(), HasSubstr("no conversion from dsp op (vendor+1 VENDOR layout) to cpu op "
                                              "(host host-readable layout)"));
  EXPECT_THAT(d.status().message(), HasSubstr("in different libraries"));
}

TEST(LayoutNegotiation, EmptyListsMeanDenseHost) {
  absl::StatusOr<LayoutDecision> d = NegotiateLayouts(LayoutEndpoint{}, {LayoutEndpoint{}, Cpu()});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->zero_copy());
  EXPECT_EQ(d->primary.type, TSR_BUFFER_TYPE_HOST);
}

}  // namespace
}  // namespace tessera
