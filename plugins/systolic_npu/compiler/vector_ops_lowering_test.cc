// Lowering of the vector-unit ops added for real CNNs: DIV by a constant
// (MUL by the reciprocal), GLOBAL_AVG_POOL, SIGMOID / TANH / EXP (function
// tables) and the data-free SQUEEZE / UNSQUEEZE / RESHAPE. Expected values
// are computed here in double from the op's definition (docs/ops.md), never
// by the code under test.
#include <cmath>
#include <random>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/compiler/graph_builder_test_util.h"
#include "plugins/systolic_npu/compiler/lowering.h"
#include "plugins/systolic_npu/machine/lookup_tables.h"
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

SystolicNpuConfig Edge() { return BuiltinSocConfig("ref-edge")->npu; }

absl::StatusOr<Program> Lower(const kit::GraphSnapshot& g) {
  return LowerGraph(g, Edge(), LoweringOptions{}, "main");
}

// Both executors: outputs and metrics must agree; returns the fast run.
RunResult RunBoth(const kit::GraphSnapshot& g, const std::vector<std::span<const uint8_t>>& in) {
  auto p = Lower(g);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return {};
  RunResult fast = RunEntry(*p, Edge(), in, ExecOptions{ExecMode::kFast, Overlap::kDefault});
  for (Overlap ov : {Overlap::kDefault, Overlap::kNone}) {
    const RunResult f = RunEntry(*p, Edge(), in, ExecOptions{ExecMode::kFast, ov});
    const RunResult s = RunEntry(*p, Edge(), in, ExecOptions{ExecMode::kCycleStepped, ov});
    EXPECT_EQ(f.outputs, s.outputs);
    EXPECT_EQ(f.metrics, s.metrics);
  }
  return fast;
}

size_t CountOpcode(const Program& p, Opcode op) {
  size_t n = 0;
  for (const Instruction& in : p.entries[0].code) n += in.op == op;
  return n;
}

TEST(VectorOpsLowering, DivByConstantF32) {
  std::mt19937 rng(11);
  // x [2, 3, 2, 2] / c [3, 1, 1] (per channel), then / a scalar.
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 3, 2, 2});
  const std::vector<float> cv = {3.0f, -0.7f, 1e-3f};
  const int32_t c = b.Const("c", TSR_DTYPE_F32, {3, 1, 1}, AsBytes(cv));
  const int32_t s = b.Const("s", TSR_DTYPE_F32, {}, AsBytes(std::vector<float>{6.0f}));
  const int32_t t = b.Tensor("t", TSR_DTYPE_F32, {2, 3, 2, 2});
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {2, 3, 2, 2});
  b.Op(TSR_OP_DIV, {x, c}, {t});
  b.Op(TSR_OP_DIV, {t, s}, {y});
  b.Output(y);
  for (const auto& op : b.g.ops) ASSERT_TRUE(CheckOpSupport(b.g, op).supported) << CheckOpSupport(b.g, op).detail;
  const auto xf = RandomF(rng, 24);
  const auto got = AsFloats(RunBoth(b.g, {FloatBytes(xf)}).outputs[0]);
  for (int i = 0; i < 24; ++i) {
    const double want = static_cast<double>(xf[i]) / cv[(i / 4) % 3] / 6.0;
    // Per DIV: rn(1/c) and the product, two f32 roundings, vs one for x / c.
    EXPECT_LE(std::fabs(got[i] - want), 6 * kU32 * std::fabs(want)) << i;
  }
  // IEEE specials survive the reciprocal: x / 0 = +-inf, 0 / 0 = NaN, x / inf = 0.
  GraphBuilder z;
  const int32_t zx = z.Input("x", TSR_DTYPE_F32, {4});
  const std::vector<float> zc = {0.0f, 0.0f, INFINITY, -0.0f};
  const int32_t zk = z.Const("c", TSR_DTYPE_F32, {4}, AsBytes(zc));
  const int32_t zy = z.Tensor("y", TSR_DTYPE_F32, {4});
  z.Op(TSR_OP_DIV, {zx, zk}, {zy});
  z.Output(zy);
  const auto zr = AsFloats(RunBoth(z.g, {FloatBytes({2.0f, 0.0f, 5.0f, 3.0f})}).outputs[0]);
  EXPECT_EQ(zr[0], INFINITY);
  EXPECT_TRUE(std::isnan(zr[1]));
  EXPECT_EQ(zr[2], 0.0f);
  EXPECT_EQ(zr[3], -INFINITY);
}

TEST(VectorOpsLowering, DivByConstantF16WithinBound) {
  std::mt19937 rng(12);
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F16, {4, 8});
  const std::vector<uint16_t> c = ToHalf({7.0f});
  const int32_t k = b.Const("k", TSR_DTYPE_F16, {1}, AsBytes(c));
  const int32_t y = b.Tensor("y", TSR_DTYPE_F16, {4, 8});
  b.Op(TSR_OP_DIV, {x, k}, {y});
  b.Output(y);
  const auto xh = ToHalf(RandomF(rng, 32));
  const auto out = RunBoth(b.g, {AsBytes(xh)}).outputs[0];
  for (int i = 0; i < 32; ++i) {
    const double want = HalfToFloat(xh[i]) / 7.0;
    // rn16(1/7) and rn16 of the product: 2^-11 each (ISA §9 "DIV by a constant").
    EXPECT_LE(std::fabs(OutputValue(out, TSR_DTYPE_F16, i) - want), 2.1 * kU16 * std::fabs(want) + 0x1p-25) << i;
  }
}

TEST(VectorOpsLowering, DivRefusals) {
  GraphBuilder q;
  const int32_t fx = q.Input("x", TSR_DTYPE_F32, {2, 3});
  const int32_t fd = q.Input("d", TSR_DTYPE_F32, {2, 3});
  const int32_t tiny = q.Const("tiny", TSR_DTYPE_F32, {1}, AsBytes(std::vector<float>{1e-39f}));
  const int32_t fy = q.Tensor("y", TSR_DTYPE_F32, {2, 3});
  const int32_t ia = q.Input("a", TSR_DTYPE_I8, {2, 3}, {{0.05f}, {3}, -1});
  const int32_t ic = q.Const("c", TSR_DTYPE_I8, {2, 3}, {2, 2, 2, 2, 2, 2}, {{0.5f}, {0}, -1});
  const int32_t iy = q.Tensor("iy", TSR_DTYPE_I8, {2, 3}, {{0.1f}, {2}, -1});
  const int32_t h16 = q.Input("h", TSR_DTYPE_F16, {3});
  const int32_t big = q.Const("big", TSR_DTYPE_F16, {1}, AsBytes(ToHalf({30000.0f})));
  const int32_t hy = q.Tensor("hy", TSR_DTYPE_F16, {3});
  const int32_t one = q.Const("one", TSR_DTYPE_F32, {1}, AsBytes(std::vector<float>{1.0f}));
  q.Op(TSR_OP_DIV, {fx, fd}, {fy});     // 0: divisor computed at run time
  q.Op(TSR_OP_DIV, {fx, tiny}, {fy});   // 1: 1/c overflows f32
  q.Op(TSR_OP_DIV, {ia, ic}, {iy});     // 2: int8 by a same-shape constant (a table per element)
  q.Op(TSR_OP_DIV, {h16, big}, {hy});   // 3: 1/30000 is subnormal in f16
  q.Op(TSR_OP_DIV, {one, fx}, {fy});    // 4: constant dividend, tensor divisor
  const int32_t want[] = {TSR_REFUSAL_UNSUPPORTED_OP, TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE,
                          TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE, TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE,
                          TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE};
  for (size_t i = 0; i < 5; ++i) {
    const OpSupport s = CheckOpSupport(q.g, q.g.ops[i]);
    EXPECT_FALSE(s.supported) << i;
    EXPECT_EQ(s.reason, want[i]) << i << ": " << s.detail;
  }
}

TEST(VectorOpsLowering, GlobalAvgPool) {
  std::mt19937 rng(13);
  const std::vector<std::vector<int64_t>> shapes = {{2, 3, 4, 5}, {1, 4, 7}, {1, 2, 2, 3, 2}, {3, 2, 1, 1}};
  for (const auto& shape : shapes) {
    for (int32_t dt : {TSR_DTYPE_F32, TSR_DTYPE_F16}) {
      GraphBuilder b;
      const int32_t x = b.Input("x", dt, shape);
      std::vector<int64_t> oshape = {shape[0], shape[1]};
      oshape.resize(shape.size(), 1);
      const int32_t y = b.Tensor("y", dt, oshape);
      b.Op(TSR_OP_GLOBAL_AVG_POOL, {x}, {y});
      b.Output(y);
      ASSERT_TRUE(CheckOpSupport(b.g, b.g.ops[0]).supported) << CheckOpSupport(b.g, b.g.ops[0]).detail;
      int64_t plane = 1;
      for (size_t i = 2; i < shape.size(); ++i) plane *= shape[i];
      const int64_t nc = shape[0] * shape[1];
      const auto xf = RandomF(rng, nc * plane);
      const auto xin = FloatsAs(xf, dt);
      const auto out = RunBoth(b.g, {xin}).outputs[0];
      for (int64_t i = 0; i < nc; ++i) {
        double sum = 0, abs_sum = 0;
        for (int64_t j = 0; j < plane; ++j) {
          const double v = OutputValue(xin, dt, i * plane + j);
          sum += v;
          abs_sum += std::fabs(v);
        }
        const double want = sum / plane;
        // fp32 sum in window order and one division (γ_plane), then the
        // f16 rounding of the result for F16.
        const double bound = (plane + 1) * kU32 * abs_sum / plane +
                             (dt == TSR_DTYPE_F16 ? kU16 * std::fabs(want) + 0x1p-25 : 0);
        EXPECT_LE(std::fabs(OutputValue(out, dt, i) - want), bound) << "channel " << i;
      }
    }
  }
  // Hand vector: the means of {1, 2, 3, 4} and {-1, 0.5, 0.25, 0.25}, and
  // an F16 plane whose fp32 sum 2049 = 2048 + 1 is exact before the one
  // rounding of the mean 2049 / 4 = 512.25 to f16 (512.25 -> 512, the
  // halfway case between 512 and 512.5 rounds to even).
  {
    GraphBuilder h;
    const int32_t x = h.Input("x", TSR_DTYPE_F32, {1, 2, 2, 2});
    const int32_t y = h.Tensor("y", TSR_DTYPE_F32, {1, 2, 1, 1});
    h.Op(TSR_OP_GLOBAL_AVG_POOL, {x}, {y});
    h.Output(y);
    const auto got = AsFloats(RunBoth(h.g, {FloatBytes({1, 2, 3, 4, -1, 0.5f, 0.25f, 0.25f})}).outputs[0]);
    EXPECT_EQ(got, (std::vector<float>{2.5f, 0.0f}));
    GraphBuilder h16;
    const int32_t x16 = h16.Input("x", TSR_DTYPE_F16, {1, 1, 4});
    const int32_t y16 = h16.Tensor("y", TSR_DTYPE_F16, {1, 1, 1});
    h16.Op(TSR_OP_GLOBAL_AVG_POOL, {x16}, {y16});
    h16.Output(y16);
    const auto out16 = RunBoth(h16.g, {AsBytes(ToHalf({2048, 1, 0, 0}))}).outputs[0];
    EXPECT_EQ(OutputValue(out16, TSR_DTYPE_F16, 0), 512.0);
  }
  // Refused: int8 without quantization parameters (quantized int8 runs:
  // int8_vector_ops_test.cc) and a float plane over 4096 elements.
  GraphBuilder r;
  const int32_t qi = r.Input("q", TSR_DTYPE_I8, {1, 2, 2, 2});
  const int32_t qo = r.Tensor("qo", TSR_DTYPE_I8, {1, 2, 1, 1});
  const int32_t bi = r.Input("b", TSR_DTYPE_F32, {1, 1, 65, 64});
  const int32_t bo = r.Tensor("bo", TSR_DTYPE_F32, {1, 1, 1, 1});
  r.Op(TSR_OP_GLOBAL_AVG_POOL, {qi}, {qo});
  r.Op(TSR_OP_GLOBAL_AVG_POOL, {bi}, {bo});
  EXPECT_EQ(CheckOpSupport(r.g, r.g.ops[0]).reason, TSR_REFUSAL_UNSUPPORTED_DTYPE);
  EXPECT_EQ(CheckOpSupport(r.g, r.g.ops[1]).reason, TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE);
}

TEST(VectorOpsLowering, LookupTableOps) {
  std::mt19937 rng(14);
  const struct {
    int32_t op;
    double (*f)(double);
  } ops[] = {{TSR_OP_SIGMOID, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
             {TSR_OP_TANH, [](double x) { return std::tanh(x); }},
             {TSR_OP_EXP, [](double x) { return std::exp(x); }}};
  for (const auto& o : ops) {
    for (int32_t dt : {TSR_DTYPE_F32, TSR_DTYPE_F16}) {
      GraphBuilder b;
      const int32_t x = b.Input("x", dt, {3, 50});
      const int32_t y = b.Tensor("y", dt, {3, 50});
      b.Op(o.op, {x}, {y});
      b.Output(y);
      ASSERT_TRUE(CheckOpSupport(b.g, b.g.ops[0]).supported) << CheckOpSupport(b.g, b.g.ops[0]).detail;
      const auto xin = FloatsAs(RandomF(rng, 150, -8, 8), dt);
      const auto out = RunBoth(b.g, {xin}).outputs[0];
      for (int i = 0; i < 150; ++i) {
        const double want = o.f(OutputValue(xin, dt, i));
        const double bound = kLutRelativeTolerance * std::fabs(want) + kLutAbsoluteTolerance +
                             (dt == TSR_DTYPE_F16 ? kU16 * std::fabs(want) + 0x1p-25 : 0);
        EXPECT_LE(std::fabs(OutputValue(out, dt, i) - want), bound) << OpName(o.op) << " " << i;
      }
    }
  }
  // int8: quantized runs as one TABLE (int8_vector_ops_test.cc), without
  // quantization parameters it is refused.
  GraphBuilder r;
  const int32_t qi = r.Input("q", TSR_DTYPE_I8, {4}, {{0.1f}, {0}, -1});
  const int32_t qo = r.Tensor("qo", TSR_DTYPE_I8, {4}, {{0.1f}, {0}, -1});
  const int32_t pi = r.Input("p", TSR_DTYPE_I8, {4});
  const int32_t po = r.Tensor("po", TSR_DTYPE_I8, {4});
  r.Op(TSR_OP_SIGMOID, {qi}, {qo});
  r.Op(TSR_OP_SIGMOID, {pi}, {po});
  EXPECT_TRUE(CheckOpSupport(r.g, r.g.ops[0]).supported) << CheckOpSupport(r.g, r.g.ops[0]).detail;
  EXPECT_EQ(CheckOpSupport(r.g, r.g.ops[1]).reason, TSR_REFUSAL_UNSUPPORTED_DTYPE);
}

// UNSQUEEZE -> ADD -> SQUEEZE -> RESHAPE (flatten) -> RELU: the layout ops
// inside the partition emit nothing; the last op's output is a partition
// output. A RESHAPE into a partition output is a DMA copy.
TEST(VectorOpsLowering, LayoutOpsMoveNoData) {
  std::mt19937 rng(15);
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 3, 4});
  const int32_t u = b.Tensor("u", TSR_DTYPE_F32, {1, 2, 3, 4});
  const int32_t c = b.Const("c", TSR_DTYPE_F32, {1, 1, 1, 4}, AsBytes(std::vector<float>{1, 2, 3, 4}));
  const int32_t a = b.Tensor("a", TSR_DTYPE_F32, {1, 2, 3, 4});
  const int32_t s = b.Tensor("s", TSR_DTYPE_F32, {2, 3, 4});
  const int32_t f = b.Tensor("f", TSR_DTYPE_F32, {2, 12});
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {2, 12});
  b.Op(TSR_OP_UNSQUEEZE, {x}, {u}).attrs[TSR_ATTR_AXES].ints = {0};
  b.Op(TSR_OP_ADD, {u, c}, {a});
  b.Op(TSR_OP_SQUEEZE, {a}, {s}).attrs[TSR_ATTR_AXES].ints = {0};
  b.Op(TSR_OP_RESHAPE, {s}, {f});
  b.Op(TSR_OP_RELU, {f}, {y});
  b.Output(y);
  for (const auto& op : b.g.ops) ASSERT_TRUE(CheckOpSupport(b.g, op).supported) << CheckOpSupport(b.g, op).detail;
  auto p = Lower(b.g);
  ASSERT_TRUE(p.ok()) << p.status();
  // ADD: 2 loads + 1 store; RELU: 1 load + 1 store. Nothing else.
  EXPECT_EQ(CountOpcode(*p, Opcode::kDmaLoad), 3u);
  EXPECT_EQ(CountOpcode(*p, Opcode::kDmaStore), 2u);
  const auto xf = RandomF(rng, 24);
  const auto got = AsFloats(RunBoth(b.g, {FloatBytes(xf)}).outputs[0]);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(got[i], std::max(0.0f, xf[i] + static_cast<float>(i % 4 + 1))) << i;

  // SQUEEZE straight into the partition output: a copy.
  GraphBuilder o;
  const int32_t ox = o.Input("x", TSR_DTYPE_I8, {1, 5, 1});
  const int32_t oy = o.Tensor("y", TSR_DTYPE_I8, {5});
  o.Op(TSR_OP_SQUEEZE, {ox}, {oy});
  o.Output(oy);
  auto op = Lower(o.g);
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ(CountOpcode(*op, Opcode::kDmaStore), 1u);
  const std::vector<uint8_t> xb = {1, 2, 3, 250, 5};
  EXPECT_EQ(RunBoth(o.g, {xb}).outputs[0], xb);

  // Refused with reasons: a changed element count, a run-time shape input.
  GraphBuilder r;
  const int32_t rx = r.Input("x", TSR_DTYPE_F32, {2, 3});
  const int32_t ry = r.Tensor("y", TSR_DTYPE_F32, {7});
  const int32_t axes = r.Input("axes", TSR_DTYPE_I64, {1});
  const int32_t rz = r.Tensor("z", TSR_DTYPE_F32, {1, 2, 3});
  r.Op(TSR_OP_SQUEEZE, {rx}, {ry});
  r.Op(TSR_OP_UNSQUEEZE, {rx, axes}, {rz});
  EXPECT_EQ(CheckOpSupport(r.g, r.g.ops[0]).reason, TSR_REFUSAL_OTHER);
  EXPECT_EQ(CheckOpSupport(r.g, r.g.ops[1]).reason, TSR_REFUSAL_DYNAMIC_SHAPE);
  EXPECT_NE(CheckOpSupport(r.g, r.g.ops[1]).detail.find("UNSQUEEZE"), std::string::npos);
}

}  // namespace
}  // namespace tessera::systolic
