// The INT8 vector-unit ops of docs/ops.md on the NPU, bit exact: SUB, ADD
// and MUL with per-channel and trailing broadcasts, DIV by a constant,
// SIGMOID / TANH / EXP (256-entry tables) and GLOBAL_AVG_POOL. Each one-op
// graph runs on both executors under both overlap conventions (outputs and
// metrics must agree) and its output is compared byte for byte with the cpu
// reference kernel's; hand vectors (worked out in the comments from the
// docs/ops.md formulas) check the reference itself.
#include <map>
#include <random>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/compiler/graph_builder_test_util.h"
#include "plugins/systolic_npu/compiler/lowering.h"
#include "plugins/systolic_npu/machine/cycle_model.h"
#include "support/reference_kernels/kernel_api.h"
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

SystolicNpuConfig Edge() { return BuiltinSocConfig("ref-edge")->npu; }

kit::SnapshotQuant Q(float scale, int64_t zp) { return {{scale}, {zp}, -1}; }

std::vector<uint8_t> I8Bytes(const std::vector<int>& v) {
  std::vector<uint8_t> b(v.size());
  for (size_t i = 0; i < v.size(); ++i) b[i] = static_cast<uint8_t>(static_cast<int8_t>(v[i]));
  return b;
}
std::vector<int> AsInts(const std::vector<uint8_t>& b) {
  std::vector<int> v(b.size());
  for (size_t i = 0; i < b.size(); ++i) v[i] = static_cast<int8_t>(b[i]);
  return v;
}

// The NPU output of a graph's first output (fast = stepped, both
// conventions) and the cpu reference kernels' for the same graph, op by op
// in order on the same bytes. Inputs follow g.inputs.
struct Outputs {
  std::vector<uint8_t> npu, reference;
};
Outputs RunOnBoth(const kit::GraphSnapshot& g, const std::vector<std::vector<uint8_t>>& in) {
  Outputs o;
  for (const kit::SnapshotOp& op : g.ops) {
    const OpSupport support = CheckOpSupport(g, op);
    EXPECT_TRUE(support.supported) << support.detail;
  }
  auto p = LowerGraph(g, Edge(), LoweringOptions{}, "main");
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return o;
  std::vector<std::span<const uint8_t>> spans(in.begin(), in.end());
  for (Overlap ov : {Overlap::kDefault, Overlap::kNone}) {
    const RunResult f = RunEntry(*p, Edge(), spans, ExecOptions{ExecMode::kFast, ov});
    const RunResult s = RunEntry(*p, Edge(), spans, ExecOptions{ExecMode::kCycleStepped, ov});
    EXPECT_EQ(f.outputs, s.outputs);
    EXPECT_EQ(f.metrics, s.metrics);
    if (!f.outputs.empty()) o.npu = f.outputs[0];
  }
  // The same ops on the reference kernels; every tensor's bytes by index.
  std::map<int32_t, std::vector<uint8_t>> bytes;
  for (size_t k = 0; k < g.inputs.size(); ++k) bytes[g.inputs[k]] = in.at(k);
  auto ref = [&](int32_t t) {
    const kit::SnapshotTensor& st = g.tensors.at(t);
    cpu::TensorRef r;
    r.dtype = st.dtype;
    r.shape = st.shape;
    r.quant.scales = st.quant.scales;
    r.quant.zero_points = st.quant.zero_points;
    r.quant.axis = st.quant.axis;
    std::vector<uint8_t>& b = bytes[t];
    if (st.is_constant) b.assign(st.constant.begin(), st.constant.end());
    b.resize(r.byte_size());
    r.data = b.data();
    return r;
  };
  for (const kit::SnapshotOp& op : g.ops) {
    cpu::Attributes attrs;
    for (const auto& [key, a] : op.attrs) {
      if (!a.ints.empty()) attrs.SetInts(key, a.ints);
      if (!a.floats.empty()) attrs.SetFloats(key, a.floats);
    }
    std::vector<cpu::TensorRef> ins;
    for (int32_t t : op.inputs) ins.push_back(ref(t));
    std::vector<cpu::TensorRef> outs = {ref(op.outputs[0])};
    const absl::Status st = cpu::RunReferenceOp(op.type, attrs, ins, outs);
    EXPECT_TRUE(st.ok()) << st;
  }
  o.reference = bytes[g.outputs.at(0)];
  return o;
}

// One binary op: a [shape_a] (input) with b [shape_b] (input or constant).
Outputs Binary(int32_t type, std::vector<int64_t> sa, std::vector<int64_t> sb, bool b_const,
               const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
               kit::SnapshotQuant qa, kit::SnapshotQuant qb, kit::SnapshotQuant qy,
               std::vector<int64_t> sy = {}) {
  GraphBuilder gb;
  const int32_t ta = gb.Input("a", TSR_DTYPE_I8, sa, qa);
  const int32_t tb = b_const ? gb.Const("b", TSR_DTYPE_I8, sb, b, qb) : gb.Input("b", TSR_DTYPE_I8, sb, qb);
  const int32_t ty = gb.Tensor("y", TSR_DTYPE_I8, sy.empty() ? sa : sy, qy);
  gb.Op(type, {ta, tb}, {ty});
  gb.Output(ty);
  return RunOnBoth(gb.g, b_const ? std::vector<std::vector<uint8_t>>{a}
                                 : std::vector<std::vector<uint8_t>>{a, b});
}

TEST(Int8VectorOps, SubAddMulHandVectors) {
  // SUB, same shapes: a s 0.5 zp 0, b s 0.25 zp 4, y s 0.5 zp -10.
  // 5-1=4 -> 8-10; 0.5-0.25 -> 0.5 ties to 0; 2-0.75 -> 2.5 ties to 2;
  // -64-30.75 -> -189.5 saturates.
  Outputs o = Binary(TSR_OP_SUB, {4}, {4}, false, I8Bytes({10, 1, 4, -128}),
                     I8Bytes({8, 5, 7, 127}), Q(0.5f, 0), Q(0.25f, 4), Q(0.5f, -10));
  EXPECT_EQ(AsInts(o.npu), (std::vector<int>{-2, -10, -8, -128}));
  EXPECT_EQ(o.npu, o.reference);
  // Per channel [1, 2, 1, 2] with a constant [2, 1, 1] = (1, -1): a s 0.5
  // = (1, 2 | 3, 4), y s 0.5. ADD: 2, 3 | 2, 3 -> 4, 6, 4, 6; MUL: 1, 2 |
  // -3, -4 -> 2, 4, -6, -8; SUB: 0, 1 | 4, 5 -> 0, 2, 8, 10.
  const auto a = I8Bytes({2, 4, 6, 8}), c = I8Bytes({1, -1});
  o = Binary(TSR_OP_ADD, {1, 2, 1, 2}, {2, 1, 1}, true, a, c, Q(0.5f, 0), Q(1, 0), Q(0.5f, 0));
  EXPECT_EQ(AsInts(o.npu), (std::vector<int>{4, 6, 4, 6}));
  EXPECT_EQ(o.npu, o.reference);
  o = Binary(TSR_OP_MUL, {1, 2, 1, 2}, {2, 1, 1}, true, a, c, Q(0.5f, 0), Q(1, 0), Q(0.5f, 0));
  EXPECT_EQ(AsInts(o.npu), (std::vector<int>{2, 4, -6, -8}));
  EXPECT_EQ(o.npu, o.reference);
  o = Binary(TSR_OP_SUB, {1, 2, 1, 2}, {2, 1, 1}, true, a, c, Q(0.5f, 0), Q(1, 0), Q(0.5f, 0));
  EXPECT_EQ(AsInts(o.npu), (std::vector<int>{0, 2, 8, 10}));
  EXPECT_EQ(o.npu, o.reference);
}

// Every broadcast form of ADD / SUB / MUL on random bytes, against the
// reference: [C], [C, 1, 1] and [1, C, 1, 1], constant or computed.
TEST(Int8VectorOps, BroadcastsMatchTheReference) {
  std::mt19937 rng(16);
  struct Case {
    std::vector<int64_t> a, b;
  };
  const Case cases[] = {{{2, 5, 3, 4}, {5, 1, 1}},
                        {{2, 5, 3, 4}, {1, 5, 1, 1}},
                        {{6, 5}, {5}},
                        {{2, 5, 3, 4}, {2, 5, 3, 4}},
                        {{3, 7}, {1}}};
  for (int32_t type : {TSR_OP_ADD, TSR_OP_SUB, TSR_OP_MUL})
    for (const Case& k : cases)
      for (bool b_const : {false, true}) {
        const auto a = RandomI8(rng, kit::ElementCount(k.a)), b = RandomI8(rng, kit::ElementCount(k.b));
        const Outputs o = Binary(type, k.a, k.b, b_const, a, b, Q(0.05f, 3), Q(0.08f, -7),
                                 Q(type == TSR_OP_MUL ? 0.2f : 0.1f, 2));
        EXPECT_EQ(o.npu, o.reference) << type << " b " << kit::ElementCount(k.b) << " const " << b_const;
        EXPECT_EQ(o.npu.size(), a.size());
      }
}

TEST(Int8VectorOps, DivByConstant) {
  // A scalar: b = 8 at s 0.25 = 2.0; a s 0.5 = 2.5, 1.5, 0.5, 3, 5, -3.5;
  // y s 1: 1.25, 0.75, 0.25, 1.5 (ties to 2), 2.5 (ties to 2), -1.75.
  Outputs o = Binary(TSR_OP_DIV, {6}, {}, true, I8Bytes({5, 3, 1, 6, 10, -7}), I8Bytes({8}),
                     Q(0.5f, 0), Q(0.25f, 0), Q(1.0f, 0));
  EXPECT_EQ(AsInts(o.npu), (std::vector<int>{1, 1, 0, 2, 2, -2}));
  EXPECT_EQ(o.npu, o.reference);
  // Per channel [3, 1, 1] = (4, -8, 1) at s 0.25 = (1, -2, 0.25); a [1, 3, 1, 2]
  // s 0.5 = (1, 1.5) per channel; y s 0.5: 1, 1.5 | -0.5, -0.75 | 4, 6.
  o = Binary(TSR_OP_DIV, {1, 3, 1, 2}, {3, 1, 1}, true, I8Bytes({2, 3, 2, 3, 2, 3}),
             I8Bytes({4, -8, 1}), Q(0.5f, 0), Q(0.25f, 0), Q(0.5f, 0));
  EXPECT_EQ(AsInts(o.npu), (std::vector<int>{2, 3, -1, -2, 8, 12}));
  EXPECT_EQ(o.npu, o.reference);
  // Random, a zero divisor among the channels (x / 0 = +-inf saturates,
  // 0 / 0 = NaN stores 0), and one that is not a power of two.
  std::mt19937 rng(17);
  const auto a = RandomI8(rng, 2 * 4 * 9);
  o = Binary(TSR_OP_DIV, {2, 4, 3, 3}, {1, 4, 1, 1}, true, a, I8Bytes({3, 0, -100, 77}),
             Q(0.05f, 3), Q(0.03f, 0), Q(0.02f, -5));
  EXPECT_EQ(o.npu, o.reference);
}

kit::GraphSnapshot Unary(int32_t type, std::vector<int64_t> shape, kit::SnapshotQuant qx,
                         kit::SnapshotQuant qy) {
  GraphBuilder gb;
  const int32_t x = gb.Input("x", TSR_DTYPE_I8, shape, qx);
  const int32_t y = gb.Tensor("y", TSR_DTYPE_I8, shape, qy);
  gb.Op(type, {x}, {y});
  gb.Output(y);
  return gb.g;
}

TEST(Int8VectorOps, SigmoidTanhExpTables) {
  // Hand vector: x s 1/16, y s 1/256 zp -128 (TFLite's int8 LOGISTIC output):
  // 256 sigma(0, 1, -1, -8, 7.9375) = 128, 187.15, 68.85, 0.086, 255.91.
  Outputs o = RunOnBoth(Unary(TSR_OP_SIGMOID, {5}, Q(0.0625f, 0), Q(1.0f / 256, -128)),
                        {I8Bytes({0, 16, -16, -128, 127})});
  EXPECT_EQ(AsInts(o.npu), (std::vector<int>{0, 59, -59, -128, 127}));
  EXPECT_EQ(o.npu, o.reference);
  // Every int8 input, several parameter sets, against the reference.
  std::vector<uint8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<uint8_t>(i);
  for (int32_t type : {TSR_OP_SIGMOID, TSR_OP_TANH, TSR_OP_EXP})
    for (auto [qx, qy] : {std::pair{Q(0.0625f, 0), Q(1.0f / 256, -128)},
                          std::pair{Q(0.1f, -20), Q(1.0f / 128, 0)},
                          std::pair{Q(0.02f, 7), Q(0.05f, -100)}}) {
      o = RunOnBoth(Unary(type, {4, 64}, qx, qy), {all});
      EXPECT_EQ(o.npu, o.reference) << type;
    }
}

TEST(Int8VectorOps, GlobalAvgPool) {
  // Hand vector: x s 0.5 zp 1, y s 0.25 zp -3, M = 0.5: sums of q - 1 are
  // 13, -7, -515 -> 6.5 (up: 7), -3.5 (toward zero: -3), -257.5 -> 4, -6, -128.
  GraphBuilder gb;
  const int32_t x = gb.Input("x", TSR_DTYPE_I8, {1, 3, 2, 2}, Q(0.5f, 1));
  const int32_t y = gb.Tensor("y", TSR_DTYPE_I8, {1, 3, 1, 1}, Q(0.25f, -3));
  gb.Op(TSR_OP_GLOBAL_AVG_POOL, {x}, {y});
  gb.Output(y);
  Outputs o = RunOnBoth(gb.g, {I8Bytes({1, 3, 5, 8, -2, -3, 1, 1, -128, -128, -128, -127})});
  EXPECT_EQ(AsInts(o.npu), (std::vector<int>{4, -6, -128}));
  EXPECT_EQ(o.npu, o.reference);
  // Random, rank 4 and 3, a plane larger than 4096 (no pool window limit).
  std::mt19937 rng(18);
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{2, 16, 7, 7}, std::vector<int64_t>{1, 3, 5000}}) {
    GraphBuilder r;
    const int32_t rx = r.Input("x", TSR_DTYPE_I8, shape, Q(0.07f, -9));
    std::vector<int64_t> out_shape(shape.size(), 1);
    out_shape[0] = shape[0];
    out_shape[1] = shape[1];
    const int32_t ry = r.Tensor("y", TSR_DTYPE_I8, out_shape, Q(0.011f, 4));
    r.Op(TSR_OP_GLOBAL_AVG_POOL, {rx}, {ry});
    r.Output(ry);
    o = RunOnBoth(r.g, {RandomI8(rng, kit::ElementCount(shape))});
    EXPECT_EQ(o.npu, o.reference) << shape.size();
  }
}

TEST(Int8VectorOps, Refusals) {
  GraphBuilder q;
  const int32_t a = q.Input("a", TSR_DTYPE_I8, {2, 3}, Q(0.05f, 3));
  const int32_t d = q.Input("d", TSR_DTYPE_I8, {2, 3}, Q(0.05f, 3));
  const int32_t row = q.Const("row", TSR_DTYPE_I8, {3}, {1, 2, 3}, Q(0.5f, 0));
  const int32_t y = q.Tensor("y", TSR_DTYPE_I8, {2, 3}, Q(0.1f, 0));
  const int32_t plain = q.Input("p", TSR_DTYPE_I8, {2, 3});
  const int32_t py = q.Tensor("py", TSR_DTYPE_I8, {2, 3});
  q.Op(TSR_OP_DIV, {a, d}, {y});           // 0: divisor computed at run time
  q.Op(TSR_OP_DIV, {a, row}, {y});         // 1: a table per column is not offered
  q.Op(TSR_OP_SIGMOID, {plain}, {py});     // 2: i8 without quantization
  q.Op(TSR_OP_GLOBAL_AVG_POOL, {plain}, {py});  // 3: the same
  const int32_t want[] = {TSR_REFUSAL_UNSUPPORTED_OP, TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE,
                          TSR_REFUSAL_UNSUPPORTED_DTYPE, TSR_REFUSAL_UNSUPPORTED_DTYPE};
  for (size_t i = 0; i < 4; ++i) {
    const OpSupport s = CheckOpSupport(q.g, q.g.ops[i]);
    EXPECT_FALSE(s.supported) << i;
    EXPECT_EQ(s.reason, want[i]) << i << ": " << s.detail;
  }
}

// ONNX HardSwish as the importer writes it, x * CLIP(x / 6 + 0.5, 0, 1),
// in a quantized graph: MUL, ADD, CLIP (bounds in the stored domain, as a
// quantizer writes them) and MUL, one NPU partition, bit exact op by op
// against the reference. The HardSigmoid is its first three ops.
TEST(Int8VectorOps, HardSwishChain) {
  std::mt19937 rng(19);
  GraphBuilder gb;
  const auto qx = Q(0.05f, 0), qs = Q(1.0f / 128, -128);  // s: HardSigmoid in [0, 1]
  const int32_t x = gb.Input("x", TSR_DTYPE_I8, {2, 3, 4, 4}, qx);
  const int32_t sixth = gb.Const("sixth", TSR_DTYPE_I8, {}, I8Bytes({127}), Q(1.0f / 762, 0));
  const int32_t half = gb.Const("half", TSR_DTYPE_I8, {}, I8Bytes({64}), Q(1.0f / 128, 0));
  const int32_t t0 = gb.Tensor("t0", TSR_DTYPE_I8, {2, 3, 4, 4}, Q(0.01f, 0));
  const int32_t t1 = gb.Tensor("t1", TSR_DTYPE_I8, {2, 3, 4, 4}, qs);
  const int32_t t2 = gb.Tensor("t2", TSR_DTYPE_I8, {2, 3, 4, 4}, qs);
  const int32_t y = gb.Tensor("y", TSR_DTYPE_I8, {2, 3, 4, 4}, Q(0.05f, -40));
  gb.Op(TSR_OP_MUL, {x, sixth}, {t0});
  gb.Op(TSR_OP_ADD, {t0, half}, {t1});
  kit::SnapshotOp& clip = gb.Op(TSR_OP_CLIP, {t1}, {t2});
  clip.attrs[TSR_ATTR_CLIP_MIN].floats = {-128};  // real 0
  clip.attrs[TSR_ATTR_CLIP_MAX].floats = {0};     // real 1
  gb.Op(TSR_OP_MUL, {x, t2}, {y});
  gb.Output(y);
  const Outputs o = RunOnBoth(gb.g, {RandomI8(rng, 96)});
  ASSERT_EQ(o.npu.size(), 96u);
  EXPECT_EQ(o.npu, o.reference);
}

// The INT8 GLOBAL_AVG_POOL's VECTOR cost is the ISA document's formula:
// ROW_SUM 4 + n * ceil(rows / lanes), BIAS_ADD and REQUANTIZE 4 + ceil(rows /
// lanes) each; 64 channels of 7 x 7 on ref-edge's 8 lanes: 4 + 49 * 8 + 2 *
// (4 + 8) = 420.
TEST(Int8VectorOps, GlobalAvgPoolCycles) {
  GraphBuilder gb;
  const int32_t x = gb.Input("x", TSR_DTYPE_I8, {1, 64, 7, 7}, Q(0.5f, 1));
  const int32_t y = gb.Tensor("y", TSR_DTYPE_I8, {1, 64, 1, 1}, Q(0.25f, -3));
  gb.Op(TSR_OP_GLOBAL_AVG_POOL, {x}, {y});
  gb.Output(y);
  auto p = LowerGraph(gb.g, Edge(), LoweringOptions{}, "main");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(Edge().vector_width, 8);
  uint64_t vector_cycles = 0;
  int vectors = 0;
  for (const Instruction& in : p->entries[0].code)
    if (in.op == Opcode::kVector) {
      vector_cycles += VectorCycles(*p, in, Edge());
      ++vectors;
    }
  EXPECT_EQ(vectors, 3);
  EXPECT_EQ(vector_cycles, 420u);
}

// The verifier's view of the two new vector ops: bad flags, dtypes and
// fields are refused with a reason, never executed.
TEST(Int8VectorOps, VerifierRejectsBadTableAndRowSum) {
  auto table = LowerGraph(Unary(TSR_OP_SIGMOID, {8}, Q(0.1f, 0), Q(1.0f / 256, -128)), Edge(),
                          LoweringOptions{}, "main");
  ASSERT_TRUE(table.ok()) << table.status();
  GraphBuilder gb;
  const int32_t x = gb.Input("x", TSR_DTYPE_I8, {1, 4, 3, 3}, Q(0.5f, 1));
  const int32_t y = gb.Tensor("y", TSR_DTYPE_I8, {1, 4, 1, 1}, Q(0.25f, -3));
  gb.Op(TSR_OP_GLOBAL_AVG_POOL, {x}, {y});
  gb.Output(y);
  auto gap = LowerGraph(gb.g, Edge(), LoweringOptions{}, "main");
  ASSERT_TRUE(gap.ok()) << gap.status();
  auto reject = [&](const Program& base, VectorOp op, auto mutate, const char* want) {
    Program p = base;
    bool found = false;
    for (Instruction& in : p.entries[0].code)
      if (in.op == Opcode::kVector && static_cast<VectorOp>(in.a) == op) {
        mutate(in);
        found = true;
        break;
      }
    ASSERT_TRUE(found);
    const absl::Status st = VerifyProgram(p, Edge());
    EXPECT_FALSE(st.ok()) << want;
    EXPECT_NE(st.message().find(want), std::string::npos) << st.message();
  };
  reject(*table, VectorOp::kTable, [](Instruction& in) { in.f[6] = kVectorBroadcastSrc1; },
         "reserved field");
  reject(*table, VectorOp::kTable, [](Instruction& in) { in.b = in.c = TSR_DTYPE_F32; },
         "does not support");
  reject(*table, VectorOp::kTable, [](Instruction& in) { in.f[5] = 0; }, "unexpected descriptor");
  reject(*gap, VectorOp::kRowSum, [](Instruction& in) { in.c = TSR_DTYPE_I8; }, "ROW_SUM is i8 -> i32");
  reject(*gap, VectorOp::kRowSum, [](Instruction& in) { in.f[1] = 4; }, "src1 must be zero");
  reject(*gap, VectorOp::kRowSum, [](Instruction& in) { in.f[3] = 1; in.f[4] = (1u << 23) + 1; },
         "ROW_SUM of more than 2^23 columns");
}

}  // namespace
}  // namespace tessera::systolic
