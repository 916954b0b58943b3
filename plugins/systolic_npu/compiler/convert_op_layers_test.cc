// RESHAPE, QUANTIZE and DEQUANTIZE through the graph lowering: what is
// claimed and what is refused (with which reason), a multi-op partition
// that runs them bit exact, and estimates that match the run.
#include "plugins/systolic_npu/compiler/convert_op_layers.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/compiler/graph_builder_test_util.h"
#include "plugins/systolic_npu/compiler/lowering.h"
#include "plugins/systolic_npu/machine/numerics.h"
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

SystolicNpuConfig Edge() { return BuiltinSocConfig("ref-edge")->npu; }

const kit::SnapshotQuant kQ{{0.02f}, {-4}, -1};

TEST(ConvertOpLayers, ClaimsAndRefusalReasons) {
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 8});
  const int32_t xh = b.Input("xh", TSR_DTYPE_F16, {2, 8});
  const int32_t qi = b.Input("qi", TSR_DTYPE_I8, {2, 8}, kQ);
  const int32_t i64 = b.Input("i64", TSR_DTYPE_I64, {2, 8});
  const int32_t runtime_shape = b.Input("rs", TSR_DTYPE_I64, {2});
  const int32_t shape = b.Const("shape", TSR_DTYPE_I64, {2}, AsBytes(std::vector<int64_t>{4, 4}));
  auto t = [&](const char* n, int32_t dt, std::vector<int64_t> s, kit::SnapshotQuant q = {}) {
    return b.Tensor(n, dt, std::move(s), std::move(q));
  };
  struct Case {
    int32_t op;
    std::vector<int32_t> in;
    int32_t out;
    int32_t want;  // TSR_REFUSAL_NONE = claimed
    const char* detail;
  };
  const kit::SnapshotQuant per_channel{{0.1f, 0.2f}, {0, 0}, 0};
  const std::vector<Case> cases = {
      {TSR_OP_RESHAPE, {x, shape}, t("r0", TSR_DTYPE_F32, {4, 4}), TSR_REFUSAL_NONE, ""},
      {TSR_OP_RESHAPE, {qi}, t("r1", TSR_DTYPE_I8, {16}, kQ), TSR_REFUSAL_NONE, ""},
      {TSR_OP_RESHAPE, {xh}, t("r2", TSR_DTYPE_F16, {1, 16}), TSR_REFUSAL_NONE, ""},
      {TSR_OP_RESHAPE, {i64}, t("r3", TSR_DTYPE_I64, {16}), TSR_REFUSAL_UNSUPPORTED_DTYPE, "i64"},
      {TSR_OP_RESHAPE, {x}, t("r4", TSR_DTYPE_F32, {15}), TSR_REFUSAL_OTHER, "element count"},
      {TSR_OP_RESHAPE, {x, runtime_shape}, t("r5", TSR_DTYPE_F32, {4, 4}), TSR_REFUSAL_DYNAMIC_SHAPE,
       "run time"},
      {TSR_OP_QUANTIZE, {x}, t("q0", TSR_DTYPE_I8, {2, 8}, kQ), TSR_REFUSAL_NONE, ""},
      {TSR_OP_QUANTIZE, {xh}, t("q1", TSR_DTYPE_I8, {2, 8}, kQ), TSR_REFUSAL_NONE, ""},
      {TSR_OP_QUANTIZE, {x}, t("q2", TSR_DTYPE_I8, {2, 8}, per_channel),
       TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, "per-channel"},
      {TSR_OP_QUANTIZE, {x}, t("q3", TSR_DTYPE_I8, {2, 8}), TSR_REFUSAL_UNSUPPORTED_QUANTIZATION,
       "no quantization parameters"},
      {TSR_OP_QUANTIZE, {x}, t("q4", TSR_DTYPE_U8, {2, 8}, kQ), TSR_REFUSAL_UNSUPPORTED_DTYPE, "u8"},
      {TSR_OP_QUANTIZE, {x}, t("q5", TSR_DTYPE_I8, {2, 8}, {{0.1f}, {200}, -1}),
       TSR_REFUSAL_UNSUPPORTED_QUANTIZATION, "zero point"},
      {TSR_OP_QUANTIZE, {x}, t("q6", TSR_DTYPE_I8, {16}, kQ), TSR_REFUSAL_OTHER, "input's"},
      {TSR_OP_DEQUANTIZE, {qi}, t("d0", TSR_DTYPE_F32, {2, 8}), TSR_REFUSAL_NONE, ""},
      {TSR_OP_DEQUANTIZE, {qi}, t("d1", TSR_DTYPE_F16, {2, 8}), TSR_REFUSAL_NONE, ""},
      {TSR_OP_DEQUANTIZE, {x}, t("d2", TSR_DTYPE_F32, {2, 8}), TSR_REFUSAL_UNSUPPORTED_DTYPE, "i8 ->"},
  };
  for (const Case& c : cases) b.Op(c.op, c.in, {c.out});
  for (size_t i = 0; i < cases.size(); ++i) {
    const OpSupport s = CheckOpSupport(b.g, b.g.ops[i]);
    EXPECT_EQ(s.supported, cases[i].want == TSR_REFUSAL_NONE) << i << ": " << s.detail;
    EXPECT_EQ(s.reason, cases[i].want) << i << ": " << s.detail;
    EXPECT_NE(s.detail.find(cases[i].detail), std::string::npos) << i << ": " << s.detail;
  }
  // Per-channel dequantize: refused the same way.
  GraphBuilder pc;
  const int32_t pq = pc.Input("pq", TSR_DTYPE_I8, {2, 8}, per_channel);
  pc.Op(TSR_OP_DEQUANTIZE, {pq}, {pc.Tensor("y", TSR_DTYPE_F32, {2, 8})});
  EXPECT_EQ(CheckOpSupport(pc.g, pc.g.ops[0]).reason, TSR_REFUSAL_UNSUPPORTED_QUANTIZATION);
}

// The boundary of a quantized CNN in one partition: QUANTIZE, a flatten
// between two intermediates (an alias, no copy), DEQUANTIZE.
TEST(ConvertOpLayers, PartitionIsBitExactAndEstimatesMatch) {
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 4, 5, 5});
  const int32_t q = b.Tensor("q", TSR_DTYPE_I8, {2, 4, 5, 5}, kQ);
  const int32_t flat = b.Tensor("flat", TSR_DTYPE_I8, {2, 100}, kQ);
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {2, 100});
  b.Op(TSR_OP_QUANTIZE, {x}, {q});
  b.Op(TSR_OP_RESHAPE, {q}, {flat});
  b.Op(TSR_OP_DEQUANTIZE, {flat}, {y});
  b.Output(y);
  auto p = LowerGraph(b.g, Edge(), {}, "main");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(ComputesInFp16(p->entries[0]));
  std::mt19937 rng(4);
  std::vector<float> xf = RandomF(rng, 200, -3, 3);
  xf[0] = std::nanf("");
  xf[1] = -std::numeric_limits<float>::infinity();
  xf[2] = 0.05f;  // 2.5 -> 2 (tie to even)
  const auto fast = RunEntry(*p, Edge(), {Bytes(xf)}, {ExecMode::kFast, Overlap::kDefault});
  const auto stepped = RunEntry(*p, Edge(), {Bytes(xf)}, {ExecMode::kCycleStepped, Overlap::kDefault});
  EXPECT_EQ(fast.outputs, stepped.outputs);
  EXPECT_EQ(fast.metrics, stepped.metrics);
  const std::vector<float> got = AsFloats(fast.outputs[0]);
  ASSERT_EQ(got.size(), 200u);
  for (size_t i = 0; i < 200; ++i)
    ASSERT_EQ(got[i], DequantizeInt8(QuantizeToInt8(xf[i], 0.02f, -4), 0.02f, -4)) << i;
  EXPECT_EQ(got[0], 4 * 0.02f);     // NaN -> 0 -> (0 + 4) * 0.02
  EXPECT_EQ(got[1], -124 * 0.02f);  // -inf -> -128
  EXPECT_EQ(got[2], 2 * 0.02f);     // 0.05 / 0.02 = 2.5 -> 2, - 4 = -2 -> (-2 + 4) * 0.02
  // The whole partition moves 800 bytes in and out of DRAM; q's 200 bytes
  // stay in the on-chip arena (docs/systolic_npu_isa.md §5 "Memory
  // planning"), and the flatten moves nothing (its output aliases q's
  // bytes): DRAM sees only the compulsory bytes.
  EXPECT_EQ(fast.metrics.dram_read_bytes, 800u);
  EXPECT_EQ(fast.metrics.dram_write_bytes, 800u);
  EXPECT_EQ(fast.metrics.dram_bytes_compulsory, 800u + 800);
  // The RESHAPE alone writes a partition output: a DMA copy, and the
  // estimate is what that costs.
  auto est = EstimateOp(b.g, 1, Edge(), {}, Overlap::kDefault);
  ASSERT_TRUE(est.ok()) << est.status();
  EXPECT_GT(est->cycles_total, 0u);
  EXPECT_EQ(est->cycles_compute, 0u);
  EXPECT_EQ(est->dram_read_bytes, 200u);
  EXPECT_EQ(est->dram_write_bytes, 200u);
}

}  // namespace
}  // namespace tessera::systolic
