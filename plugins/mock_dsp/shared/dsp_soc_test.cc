#include "plugins/mock_dsp/shared/dsp_soc.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/mock_dsp/shared/cost_model.h"
#include "tessera/ops.h"

namespace tessera::mock_dsp {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<DspSoc> Read(const std::string& text) { return ReadDspSoc(text.data(), text.size()); }

const char kPhone[] =
    "# a comment\n[soc]\nname = x\n\n[systolic_npu]\nclock_mhz = 1000\n"
    "[mock_dsp]\nclock_mhz = 1200\r\nvector_lanes = 64\ntranscendental_cycles = "
    "16\n[transfer.host.dsp_tcm]\nlatency_us = 3\n";

TEST(DspSoc, ReadsItsOwnSectionOnly) {
  absl::StatusOr<DspSoc> soc = Read(kPhone);
  ASSERT_TRUE(soc.ok()) << soc.status();
  EXPECT_EQ(soc->clock_mhz, 1200);
  EXPECT_EQ(soc->vector_lanes, 64);
  EXPECT_EQ(soc->transcendental_cycles, 16);
  EXPECT_FALSE(soc->accepts_dmabuf);
  std::string with = kPhone;
  with.insert(with.find("vector_lanes"), "accepts_dmabuf = 1\n");
  ASSERT_TRUE(Read(with).ok()) << Read(with).status();
  EXPECT_TRUE(Read(with)->accepts_dmabuf);
}

TEST(DspSoc, NoSectionMeansNoDsp) {
  EXPECT_EQ(Read("").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Read("[soc]\nname = x\n").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ReadDspSoc(nullptr, 0).status().code(), absl::StatusCode::kNotFound);
}

TEST(DspSoc, BadKeysNameTheLine) {
  EXPECT_THAT(Read("[mock_dsp]\nclock_mhz = 1\nvector_lanes = 2\n").status().message(),
              HasSubstr("missing key 'transcendental_cycles'"));
  EXPECT_THAT(Read("[mock_dsp]\nclock_mz = 1\n").status().message(), HasSubstr("line 2: unknown key 'clock_mz'"));
  EXPECT_THAT(Read("[mock_dsp]\nvector_lanes = 8.5\n").status().message(), HasSubstr("must be an integer"));
  EXPECT_THAT(Read("[mock_dsp]\nclock_mhz = 800  # MHz\n").status().message(), HasSubstr("is not a number"));
  EXPECT_THAT(Read("[mock_dsp]\njunk\n").status().message(), HasSubstr("line 2: expected 'key = value'"));
  EXPECT_THAT(Read("[mock_dsp]\nclock_mhz = 1\nclock_mhz = 2\n").status().message(), HasSubstr("duplicate key"));
  EXPECT_THAT(Read("[mock_dsp]\naccepts_dmabuf = 2\n").status().message(), HasSubstr("in [0, 1]"));
}

// The throughput model by hand: ceil(elements / lanes) vectors, one cycle
// each for simple ops, transcendental_cycles each for transcendentals.
TEST(DspCostModel, CyclesFollowTheVectorUnit) {
  const DspSoc soc{.clock_mhz = 1200, .vector_lanes = 64, .transcendental_cycles = 16};
  kit::GraphSnapshot g;
  g.tensors.resize(2);
  g.tensors[0].dtype = g.tensors[1].dtype = TSR_DTYPE_F32;
  g.tensors[0].shape = g.tensors[1].shape = {10, 10};  // 100 elements: 2 vectors
  kit::SnapshotOp op;
  op.inputs = {0};
  op.outputs = {1};
  op.type = TSR_OP_SIN;
  EXPECT_EQ(OpCycles(soc, g, op), 2u * 16u);
  op.type = TSR_OP_RELU;
  EXPECT_EQ(OpCycles(soc, g, op), 2u);
  op.type = TSR_OP_SOFTMAX;
  EXPECT_EQ(OpCycles(soc, g, op), 2u * (16u + 3u));
  op.type = TSR_OP_CONV_2D;
  EXPECT_EQ(OpCycles(soc, g, op), 0u);
  EXPECT_DOUBLE_EQ(CyclesToMicroseconds(soc, 2400), 2.0);
}

}  // namespace
}  // namespace tessera::mock_dsp
