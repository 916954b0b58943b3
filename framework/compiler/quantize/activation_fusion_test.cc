#include "framework/compiler/quantize/activation_fusion.h"

#include "framework/core/graph/graph_verifier.h"
#include "framework/core/model/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::quantize {
namespace {

// x -> FC -> act (RELU, CLIP or another op); optionally the FC output is
// also a graph output.
Graph FcThen(int32_t act_type, bool fc_is_output) {
  ModelBuilder b("fuse");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {1, 2});
  const int32_t fc = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w", {2, 2}, std::vector<float>{1, 2, 3, 4})},
                          {}, {.name = "fc"});
  std::vector<int32_t> inputs = {fc};
  std::map<int32_t, Attribute> attrs;
  if (act_type == TSR_OP_CLIP) {
    attrs[TSR_ATTR_CLIP_MIN] = Floats({-1.0f});
    attrs[TSR_ATTR_CLIP_MAX] = Floats({6.0f});
  }
  b.Output(b.Op(act_type, inputs, attrs, {.name = "act"}));
  if (fc_is_output) b.Output(fc);
  return *std::move(b).Build();
}

TEST(ActivationFusion, ReluFoldsIntoTheProducer) {
  const FusionResult r = FuseActivations(FcThen(TSR_OP_RELU, false));
  EXPECT_EQ(r.fused, 1);
  ASSERT_EQ(r.graph.ops.size(), 1u);
  EXPECT_EQ(r.graph.ops[0].FindAttr(TSR_ATTR_ACTIVATION)->ints[0], TSR_ACTIVATION_RELU);
  EXPECT_EQ(r.graph.tensors[r.graph.ops[0].outputs[0]].name, "act");
  EXPECT_TRUE(VerifyGraph(r.graph).ok());
}

TEST(ActivationFusion, ClipBoundsBecomeFusedClipAttributes) {
  const FusionResult r = FuseActivations(FcThen(TSR_OP_CLIP, false));
  ASSERT_EQ(r.fused, 1);
  const Op& op = r.graph.ops[0];
  EXPECT_EQ(op.FindAttr(TSR_ATTR_ACTIVATION)->ints[0], TSR_ACTIVATION_CLIP);
  EXPECT_EQ(op.FindAttr(TSR_ATTR_CLIP_MIN)->floats[0], -1.0f);
  EXPECT_EQ(op.FindAttr(TSR_ATTR_CLIP_MAX)->floats[0], 6.0f);
  EXPECT_TRUE(VerifyGraph(r.graph).ok());
}

TEST(ActivationFusion, LeavesSharedOutputsAndOtherOpsAlone) {
  EXPECT_EQ(FuseActivations(FcThen(TSR_OP_RELU, true)).fused, 0);
  EXPECT_EQ(FuseActivations(FcThen(TSR_OP_SIGMOID, false)).fused, 0);
}

}  // namespace
}  // namespace tessera::quantize
