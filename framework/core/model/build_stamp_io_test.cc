// The build stamp survives the model file: written by SerializeModel, read
// back by ParseModel field for field; a model without one reads without one.
#include <memory>

#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_loader.h"
#include "framework/core/model/model_writer.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

Graph Tiny() {
  ModelBuilder b("tiny");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2});
  b.Output(b.Op(TSR_OP_RELU, {x}, {}, {.name = "y"}));
  return *std::move(b).Build();
}

absl::StatusOr<Graph> RoundTrip(const Graph& g) {
  absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(g);
  if (!bytes.ok()) return bytes.status();
  auto owned = std::make_shared<std::vector<uint8_t>>(*std::move(bytes));
  return ParseModel(*owned, owned);
}

TEST(BuildStampIo, EveryFieldRoundTrips) {
  Graph g = Tiny();
  BuildStamp stamp;
  stamp.sdk_version = "9.8.7";
  stamp.soc = "ref-phone";
  stamp.soc_description_sha256 = std::string(64, 'a');
  stamp.mode = "aot";
  stamp.accelerators = {"systolic_npu", "cpu"};
  stamp.options = {{"kernels", "fast"}, {"dataflow", "ws"}};
  stamp.partition_policy = "greedy";
  stamp.min_ops = 3;
  stamp.max_partitions = 7;
  stamp.vendors = {
      {"systolic_npu", "0.4.0", "0.4.0+git.abc.Release", "1.4", "vendor=systolic_npu;build=x;soc=ref-phone"},
      {"cpu", "0.1.0", "", "1.2", ""}};
  stamp.left_for_jit = {{"mock_dsp", {0, 1, 2, 5}}, {"mock_dsp", {33, 34}}};
  g.build_stamp = stamp;
  absl::StatusOr<Graph> back = RoundTrip(g);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->build_stamp.has_value());
  EXPECT_EQ(*back->build_stamp, stamp);
  ASSERT_NE(back->build_stamp->Find("cpu"), nullptr);
  EXPECT_EQ(back->build_stamp->Find("cpu")->abi_version, "1.2");
  EXPECT_EQ(back->build_stamp->Find("mock_dsp"), nullptr);
}

TEST(BuildStampIo, AModelWithoutAStampReadsWithoutOne) {
  absl::StatusOr<Graph> back = RoundTrip(Tiny());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_FALSE(back->build_stamp.has_value());
}

TEST(BuildStampIo, AnEmptyStampIsStillAStamp) {
  Graph g = Tiny();
  g.build_stamp = BuildStamp{};
  absl::StatusOr<Graph> back = RoundTrip(g);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->build_stamp.has_value());
  EXPECT_EQ(*back->build_stamp, BuildStamp{});
}

}  // namespace
}  // namespace tessera
