// The loop fast kernels (unary, POW, broadcasting binary and compare ops,
// reductions, LAYER_NORM, copies) against the reference kernels (the
// oracle): random shapes and broadcasts, and edge values (NaN, +-inf, +-0,
// denormals, overflow and underflow of exp). Elementwise results are held
// per element to a few ulp of the reference, NaN to NaN and inf to the same
// inf; the exact ops bit for bit.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "plugins/cpu/fast_kernels/fast_kernels.h"
#include "support/reference_kernels/test_util.h"
#include "testing/allocation_counter.h"

namespace tessera::cpu::fast {
namespace {

using kt::Tensor;
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<float> EdgeValues() {
  return {kNaN,   kInf,  -kInf, 0.0f,   -0.0f,   1e-40f,  -1e-40f, 1.4e-45f, -3e-39f, 1e-30f, -1e-30f,
          1e-7f,  0.3f,  -0.3f, 0.62f,  -0.63f,  1.0f,    -1.0f,   2.5f,     -7.0f,   9.5f,   20.0f,
          -20.0f, 88.5f, 88.8f, -87.5f, -100.0f, -103.5f, -104.5f, 1e30f,    -1e30f,  3.4e38f};
}

Tensor F32Values(std::vector<int64_t> shape, const std::vector<float>& v) {
  Tensor t = kt::Empty(TSR_DTYPE_F32, std::move(shape));
  std::memcpy(t.ref.data, v.data(), t.ref.byte_size());
  return t;
}

Tensor RandomF32(std::mt19937& rng, std::vector<int64_t> shape, float scale = 1.0f, bool edges = false) {
  Tensor t = kt::Empty(TSR_DTYPE_F32, std::move(shape));
  std::uniform_real_distribution<float> u(-scale, scale);
  const std::vector<float> e = EdgeValues();
  auto* p = static_cast<float*>(t.ref.data);
  for (int64_t i = 0; i < t.ref.element_count(); ++i) p[i] = edges && rng() % 5 == 0 ? e[rng() % e.size()] : u(rng);
  return t;
}

std::unique_ptr<FastEngine> Engine() {
  auto e = FastEngine::Create(1);
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? *std::move(e) : nullptr;
}

struct Outcome {
  bool prepared = false;
  std::string why;
  absl::Status run;
  std::vector<Tensor> outputs;
};

// Prepares op (inputs marked constant keep their data, the rest are
// type-only, as LoadCpuProgram does), runs it twice on the same state and
// returns the outputs of the second run.
Outcome RunFast(const FastEngine& engine, int32_t op, const Attributes& attrs, const std::vector<Tensor>& inputs,
                const std::vector<bool>& constant, const std::vector<TensorRef>& output_types) {
  Outcome r;
  std::vector<TensorRef> typed;
  for (size_t i = 0; i < inputs.size(); ++i) {
    typed.push_back(inputs[i].ref);
    if (!constant[i]) typed.back().data = nullptr;
  }
  std::unique_ptr<FastOp> fast = engine.Prepare(op, attrs, typed, output_types, &r.why);
  if (!fast) return r;
  r.prepared = true;
  auto state = fast->NewState();
  if (!state.ok()) {
    r.run = state.status();
    return r;
  }
  std::vector<void*> in_ptrs, out_ptrs;
  for (const Tensor& t : inputs) in_ptrs.push_back(t.ref.data);
  for (const TensorRef& t : output_types) {
    r.outputs.push_back(kt::Empty(t.dtype, t.shape));
    out_ptrs.push_back(r.outputs.back().ref.data);
  }
  ScopedThreads threads(1);
  for (int run = 0; run < 2; ++run) {
    for (Tensor& t : r.outputs) std::memset(t.ref.data, 0xa5, t.ref.byte_size());
    r.run = fast->Run(**state, in_ptrs, out_ptrs);
    if (!r.run.ok()) return r;
  }
  return r;
}

TensorRef TypeOf(int32_t dtype, std::vector<int64_t> shape) {
  TensorRef t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

// got within rel_tol * |want| (+ two denormal ulps) of want; NaN for NaN;
// the same infinity; rel_tol 0 means the same bits (NaN payloads aside).
void ExpectClose(const Tensor& got, const Tensor& want, double rel_tol, const std::string& label) {
  ASSERT_EQ(got.ref.element_count(), want.ref.element_count()) << label;
  const auto* g = static_cast<const float*>(got.ref.data);
  const auto* w = static_cast<const float*>(want.ref.data);
  int bad = 0;
  for (int64_t i = 0; i < want.ref.element_count() && bad < 5; ++i) {
    bool ok;
    if (std::isnan(w[i]))
      ok = std::isnan(g[i]);
    else if (std::isinf(w[i]) || rel_tol == 0)
      ok = std::memcmp(&g[i], &w[i], 4) == 0;
    else
      ok = std::fabs(static_cast<double>(g[i]) - w[i]) <= rel_tol * std::fabs(w[i]) + 3e-45;
    if (!ok) {
      ++bad;
      ADD_FAILURE() << label << " element " << i << ": fast " << g[i] << " reference " << w[i];
    }
  }
}

Tensor Reference(int32_t op, const Attributes& attrs, const std::vector<Tensor>& inputs, const TensorRef& out) {
  std::vector<TensorRef> ins;
  for (const Tensor& t : inputs) ins.push_back(t.ref);
  Tensor y = kt::Empty(out.dtype, out.shape);
  const absl::Status s = kt::RunOp(op, attrs, ins, y);
  EXPECT_TRUE(s.ok()) << s;
  return y;
}

std::string Dims(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

TEST(LoopKernels, UnaryOpsOnEdgeValuesAndRandomShapes) {
  auto engine = Engine();
  std::mt19937 rng(5);
  struct U {
    int32_t op;
    double rel;  // 0: bit-identical to the reference
  };
  // exp/tanh/sigmoid/erf: the vector_math.h polynomials, measured at <= 1.4
  // (exp), 2.3 (tanh) and 2.9 (erf) ulp, held to 3, 4 and 4 ulp; libm's
  // f32 log/sin/cos: within an ulp or two of the f64 value.
  const U ops[] = {{TSR_OP_NEG, 0},      {TSR_OP_ABS, 0},      {TSR_OP_SQRT, 0},      {TSR_OP_RSQRT, 0},
                   {TSR_OP_RELU, 0},     {TSR_OP_EXP, 1.8e-7}, {TSR_OP_TANH, 2.4e-7}, {TSR_OP_SIGMOID, 2.4e-7},
                   {TSR_OP_LOG, 2.5e-7}, {TSR_OP_SIN, 2.5e-7}, {TSR_OP_COS, 2.5e-7},  {TSR_OP_ERF, 2.4e-7}};
  const std::vector<float> edges = EdgeValues();
  for (const U& u : ops) {
    std::vector<Tensor> cases = {F32Values({static_cast<int64_t>(edges.size())}, edges),
                                 RandomF32(rng, {3, 7, 5}, 4.0f), RandomF32(rng, {1000}, 30.0f, true),
                                 RandomF32(rng, {}, 2.0f)};
    for (const Tensor& x : cases) {
      const std::string label = std::string(OpTypeName(u.op)) + " " + Dims(x.ref.shape);
      const TensorRef out = TypeOf(TSR_DTYPE_F32, x.ref.shape);
      Outcome r = RunFast(*engine, u.op, {}, {x}, {false}, {out});
      ASSERT_TRUE(r.prepared) << label << ": " << r.why;
      ASSERT_TRUE(r.run.ok()) << r.run;
      ExpectClose(r.outputs[0], Reference(u.op, {}, {x}, out), u.rel, label);
    }
  }
}

TEST(LoopKernels, ClipBoundsFromAttributesAndConstantInputs) {
  auto engine = Engine();
  const std::vector<float> edges = EdgeValues();
  const Tensor x = F32Values({static_cast<int64_t>(edges.size())}, edges);
  const TensorRef out = TypeOf(TSR_DTYPE_F32, x.ref.shape);
  struct B {
    float lo, hi;
  };
  for (const B b : {B{-1.0f, 1.0f}, B{0.0f, kInf}, B{2.0f, -2.0f}, B{kNaN, 0.5f}}) {
    Attributes attrs;
    attrs.SetFloats(TSR_ATTR_CLIP_MIN, {b.lo});
    attrs.SetFloats(TSR_ATTR_CLIP_MAX, {b.hi});
    Outcome r = RunFast(*engine, TSR_OP_CLIP, attrs, {x}, {false}, {out});
    ASSERT_TRUE(r.prepared) << r.why;
    ExpectClose(r.outputs[0], Reference(TSR_OP_CLIP, attrs, {x}, out), 0, "CLIP attrs");
    // The same bounds as constant scalar inputs.
    const std::vector<Tensor> ins = {x, F32Values({}, {b.lo}), F32Values({}, {b.hi})};
    r = RunFast(*engine, TSR_OP_CLIP, {}, ins, {false, true, true}, {out});
    ASSERT_TRUE(r.prepared) << r.why;
    ExpectClose(r.outputs[0], Reference(TSR_OP_CLIP, {}, ins, out), 0, "CLIP inputs");
  }
  // A bound computed at run time: the reference kernel's job.
  Outcome r = RunFast(*engine, TSR_OP_CLIP, {}, {x, F32Values({}, {0.0f})}, {false, false}, {out});
  EXPECT_FALSE(r.prepared);
}

TEST(LoopKernels, PowWithConstantAndRuntimeExponents) {
  auto engine = Engine();
  std::mt19937 rng(7);
  const std::vector<float> edges = EdgeValues();
  const Tensor base = F32Values({static_cast<int64_t>(edges.size())}, edges);
  const TensorRef out = TypeOf(TSR_DTYPE_F32, base.ref.shape);
  for (double e : {2.0, 3.0, 0.5, 1.0, 0.0, -1.0, 1.7, -2.5, 4.0}) {
    for (const Tensor& exponent : {kt::F32({}, {e}), kt::F32({1}, {e}), kt::I64({1}, {static_cast<int64_t>(e)})}) {
      if (exponent.ref.dtype == TSR_DTYPE_I64 && e != std::floor(e)) continue;
      const std::string label = "POW e=" + std::to_string(e) + " " + DTypeName(exponent.ref.dtype);
      Outcome r = RunFast(*engine, TSR_OP_POW, {}, {base, exponent}, {false, true}, {out});
      ASSERT_TRUE(r.prepared) << label << ": " << r.why;
      // x^3 and 1/x are one f64 rounding away from the reference's f64 pow.
      ExpectClose(r.outputs[0], Reference(TSR_OP_POW, {}, {base, exponent}, out), (e == 3 || e == -1) ? 1.2e-7 : 0,
                  label);
    }
  }
  // Exponent computed at run time, broadcasting: the binary loop, exact.
  const Tensor x = RandomF32(rng, {4, 1, 6}, 3.0f, true), y = RandomF32(rng, {5, 1}, 3.0f, true);
  const TensorRef out2 = TypeOf(TSR_DTYPE_F32, {4, 5, 6});
  Outcome r = RunFast(*engine, TSR_OP_POW, {}, {x, y}, {false, false}, {out2});
  ASSERT_TRUE(r.prepared) << r.why;
  ExpectClose(r.outputs[0], Reference(TSR_OP_POW, {}, {x, y}, out2), 0, "POW runtime");
}

TEST(LoopKernels, BinaryAndCompareOpsBroadcastExactly) {
  auto engine = Engine();
  std::mt19937 rng(9);
  const int32_t ops[] = {TSR_OP_ADD,     TSR_OP_SUB,   TSR_OP_MUL,  TSR_OP_DIV,    TSR_OP_MAXIMUM,
                         TSR_OP_MINIMUM, TSR_OP_EQUAL, TSR_OP_LESS, TSR_OP_GREATER};
  for (int iter = 0; iter < 90; ++iter) {
    const int32_t op = ops[iter % 9];
    const int rank = static_cast<int>(rng() % 5);  // 0: scalars
    std::vector<int64_t> a, b;
    for (int i = 0; i < rank; ++i) a.push_back(1 + rng() % 7);
    b = a;
    for (int i = 0; i < rank; ++i) {
      if (rng() % 3 == 0)
        b[i] = 1;
      else if (rng() % 4 == 0)
        a[i] = 1;
    }
    if (rank > 0 && rng() % 3 == 0) b.erase(b.begin(), b.begin() + rng() % rank);
    if (rng() % 2) std::swap(a, b);  // either side broadcasts
    std::vector<int64_t> y(std::max(a.size(), b.size()), 1);
    for (size_t i = 0; i < y.size(); ++i) {
      const int64_t da = i + a.size() >= y.size() ? a[i + a.size() - y.size()] : 1;
      const int64_t db = i + b.size() >= y.size() ? b[i + b.size() - y.size()] : 1;
      y[i] = std::max(da, db);
    }
    const bool compare = op == TSR_OP_EQUAL || op == TSR_OP_LESS || op == TSR_OP_GREATER;
    std::vector<Tensor> ins = {RandomF32(rng, a, 2.0f, true), RandomF32(rng, b, 2.0f, true)};
    if (rng() % 4 == 0) std::memcpy(ins[1].ref.data, ins[0].ref.data, 4);  // some equal pairs
    const TensorRef out = TypeOf(compare ? TSR_DTYPE_BOOL : TSR_DTYPE_F32, y);
    const std::string label = std::string(OpTypeName(op)) + " " + Dims(a) + " " + Dims(b);
    Outcome r = RunFast(*engine, op, {}, ins, {false, rng() % 2 == 0}, {out});
    ASSERT_TRUE(r.prepared) << label << ": " << r.why;
    ASSERT_TRUE(r.run.ok()) << r.run;
    const Tensor want = Reference(op, {}, ins, out);
    if (compare) {
      EXPECT_EQ(std::memcmp(r.outputs[0].ref.data, want.ref.data, want.ref.byte_size()), 0) << label;
    } else {
      ExpectClose(r.outputs[0], want, 0, label);
    }
  }
}

TEST(LoopKernels, ReductionsOverContiguousAxes) {
  auto engine = Engine();
  std::mt19937 rng(11);
  const int32_t ops[] = {TSR_OP_REDUCE_MEAN, TSR_OP_REDUCE_SUM, TSR_OP_REDUCE_MAX};
  int prepared = 0;
  for (int iter = 0; iter < 120; ++iter) {
    const int32_t op = ops[iter % 3];
    const int rank = 1 + static_cast<int>(rng() % 4);
    std::vector<int64_t> shape;
    for (int i = 0; i < rank; ++i) shape.push_back(1 + rng() % 9);
    if (iter % 10 == 0) shape.back() = 300 + rng() % 300;  // long rows: the 8-lane loop
    // A contiguous block of axes [first, last] (sometimes all, as no axes).
    const int first = static_cast<int>(rng() % rank);
    const int last = first + static_cast<int>(rng() % (rank - first));
    std::vector<int64_t> axes;
    for (int a = first; a <= last; ++a) axes.push_back(rng() % 2 ? a - rank : a);
    if (iter % 7 == 0) axes.clear();
    const bool keep = rng() % 2;
    std::vector<int64_t> out_shape;
    for (int d = 0; d < rank; ++d) {
      const bool reduced = axes.empty() || (d >= first && d <= last);
      if (!reduced)
        out_shape.push_back(shape[d]);
      else if (keep)
        out_shape.push_back(1);
    }
    Attributes attrs;
    attrs.SetInts(TSR_ATTR_KEEP_DIMS, {keep ? 1 : 0});
    std::vector<Tensor> ins = {RandomF32(rng, shape, 4.0f, op == TSR_OP_REDUCE_MAX && iter % 2)};
    std::vector<bool> constant = {false};
    if (iter % 4 == 1 && !axes.empty()) {  // axes as a constant input (opset 18)
      ins.push_back(kt::I64({static_cast<int64_t>(axes.size())}, axes));
      constant.push_back(true);
    } else if (!axes.empty()) {
      attrs.SetInts(TSR_ATTR_AXES, axes);
    }
    const std::string label = std::string(OpTypeName(op)) + " " + Dims(shape) + " axes " + Dims(axes);
    const TensorRef out = TypeOf(TSR_DTYPE_F32, out_shape);
    Outcome r = RunFast(*engine, op, attrs, ins, constant, {out});
    ASSERT_TRUE(r.prepared) << label << ": " << r.why;
    ++prepared;
    // f64 sums in another order: far below one f32 ulp of the result for
    // inputs of one sign, relative to sum |x| in general (the rows here
    // mix signs, so compare against the mean/sum of |x| as the scale).
    const Tensor want = Reference(op, attrs, ins, out);
    std::vector<Tensor> abs_ins = ins;
    abs_ins[0] = kt::Empty(TSR_DTYPE_F32, shape);
    for (int64_t i = 0; i < ins[0].ref.element_count(); ++i)
      static_cast<float*>(abs_ins[0].ref.data)[i] = std::fabs(static_cast<const float*>(ins[0].ref.data)[i]);
    const Tensor scale = Reference(op, attrs, abs_ins, out);
    const auto* g = static_cast<const float*>(r.outputs[0].ref.data);
    const auto* w = static_cast<const float*>(want.ref.data);
    const auto* s = static_cast<const float*>(scale.ref.data);
    for (int64_t i = 0; i < want.ref.element_count(); ++i) {
      if (std::isnan(w[i])) {
        EXPECT_TRUE(std::isnan(g[i])) << label << " element " << i;
      } else if (std::isinf(w[i])) {
        EXPECT_EQ(g[i], w[i]) << label << " element " << i;
      } else {
        EXPECT_LE(std::fabs(static_cast<double>(g[i]) - w[i]), 1.2e-7 * std::fabs(s[i]) + 1e-30)
            << label << " element " << i << ": fast " << g[i] << " reference " << w[i];
      }
    }
  }
  EXPECT_EQ(prepared, 120);
  // Reduced axes with a kept axis of size > 1 between them: reference.
  Attributes attrs;
  attrs.SetInts(TSR_ATTR_AXES, {0, 2});
  Outcome r = RunFast(*engine, TSR_OP_REDUCE_SUM, attrs, {RandomF32(rng, {3, 4, 5})}, {false},
                      {TypeOf(TSR_DTYPE_F32, {1, 4, 1})});
  EXPECT_FALSE(r.prepared);
  EXPECT_NE(r.why.find("contiguous"), std::string::npos) << r.why;
}

TEST(LoopKernels, LayerNormShapesParamsAndStatistics) {
  auto engine = Engine();
  std::mt19937 rng(13);
  for (int iter = 0; iter < 40; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 3);
    std::vector<int64_t> shape;
    for (int i = 0; i < rank; ++i) shape.push_back(1 + rng() % 9);
    if (iter % 5 == 0) shape.back() = 512;
    const int64_t axis = static_cast<int64_t>(rng() % rank);
    std::vector<int64_t> norm(shape.begin() + axis, shape.end());
    const std::vector<int64_t> param_shape = iter % 4 == 3 ? std::vector<int64_t>{1} : norm;
    std::vector<Tensor> ins = {RandomF32(rng, shape, 3.0f), RandomF32(rng, param_shape, 2.0f)};
    std::vector<bool> constant = {false, rng() % 2 == 0};
    if (iter % 3 != 0) {
      ins.push_back(RandomF32(rng, param_shape, 1.0f));
      constant.push_back(rng() % 2 == 0);
    }
    Attributes attrs;
    attrs.SetInts(TSR_ATTR_AXIS, {rng() % 2 ? axis - rank : axis});
    attrs.SetFloats(TSR_ATTR_EPSILON, {iter % 2 ? 1e-5f : 1e-12f});
    std::vector<int64_t> stat(shape.begin(), shape.begin() + axis);
    stat.resize(rank, 1);
    std::vector<TensorRef> outs = {TypeOf(TSR_DTYPE_F32, shape), TypeOf(TSR_DTYPE_F32, stat),
                                   TypeOf(TSR_DTYPE_F32, stat)};
    if (iter % 2) outs[1].dtype = TSR_DTYPE_UNKNOWN;  // an omitted optional output
    const std::string label = "LAYER_NORM " + Dims(shape) + " axis " + std::to_string(axis);
    Outcome r = RunFast(*engine, TSR_OP_LAYER_NORM, attrs, ins, constant, outs);
    ASSERT_TRUE(r.prepared) << label << ": " << r.why;
    ASSERT_TRUE(r.run.ok()) << r.run;
    std::vector<TensorRef> ref_ins;
    for (const Tensor& t : ins) ref_ins.push_back(t.ref);
    std::vector<Tensor> want = {kt::Empty(TSR_DTYPE_F32, shape), kt::Empty(TSR_DTYPE_F32, stat),
                                kt::Empty(TSR_DTYPE_F32, stat)};
    std::vector<TensorRef> want_refs = {want[0].ref, want[1].ref, want[2].ref};
    if (iter % 2) want_refs[1].dtype = TSR_DTYPE_UNKNOWN;
    ASSERT_TRUE(RunReferenceOp(TSR_OP_LAYER_NORM, attrs, ref_ins, want_refs).ok());
    // The same f64 formula, sums in another order.
    ExpectClose(r.outputs[0], want[0], 1e-6, label);
    if (!(iter % 2)) ExpectClose(r.outputs[1], want[1], 1e-6, label + " mean");
    ExpectClose(r.outputs[2], want[2], 1e-6, label + " inv_std");
  }
}

TEST(LoopKernels, ReshapeConcatGatherCopyEveryDType) {
  auto engine = Engine();
  std::mt19937 rng(17);
  // RESHAPE of i64 data.
  const Tensor xi = kt::I64({2, 3}, {1, -2, 3, -4, 5, -6});
  Outcome r = RunFast(*engine, TSR_OP_RESHAPE, {}, {xi}, {false}, {TypeOf(TSR_DTYPE_I64, {3, 2})});
  ASSERT_TRUE(r.prepared) << r.why;
  EXPECT_EQ(std::memcmp(r.outputs[0].ref.data, xi.ref.data, 48), 0);
  // CONCAT along each axis, f32 and bool.
  for (int iter = 0; iter < 20; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 3);
    std::vector<int64_t> shape;
    for (int i = 0; i < rank; ++i) shape.push_back(1 + rng() % 5);
    const int64_t axis = static_cast<int64_t>(rng() % rank);
    std::vector<Tensor> ins;
    std::vector<int64_t> out = shape;
    out[axis] = 0;
    for (int k = 0; k < 3; ++k) {
      std::vector<int64_t> s = shape;
      s[axis] = 1 + rng() % 4;
      out[axis] += s[axis];
      ins.push_back(RandomF32(rng, s));
    }
    Attributes attrs;
    attrs.SetInts(TSR_ATTR_AXIS, {axis});
    const TensorRef type = TypeOf(TSR_DTYPE_F32, out);
    r = RunFast(*engine, TSR_OP_CONCAT, attrs, ins, {false, true, false}, {type});
    ASSERT_TRUE(r.prepared) << r.why;
    ExpectClose(r.outputs[0], Reference(TSR_OP_CONCAT, attrs, ins, type), 0, "CONCAT " + Dims(out));
  }
  // GATHER with i32 and i64 indices, negative ones, constant or not.
  const Tensor data = RandomF32(rng, {4, 6, 3});
  for (int64_t axis : {0, 1, -1}) {
    const int64_t dim = data.ref.shape[axis < 0 ? axis + 3 : axis];
    for (const Tensor& ind : {kt::I64({2, 2}, {0, -1, dim - 1, 1}), kt::I32({3}, {-static_cast<double>(dim), 0, 1})}) {
      std::vector<int64_t> out(data.ref.shape.begin(), data.ref.shape.begin() + (axis < 0 ? axis + 3 : axis));
      out.insert(out.end(), ind.ref.shape.begin(), ind.ref.shape.end());
      out.insert(out.end(), data.ref.shape.begin() + (axis < 0 ? axis + 3 : axis) + 1, data.ref.shape.end());
      Attributes attrs;
      attrs.SetInts(TSR_ATTR_AXIS, {axis});
      const TensorRef type = TypeOf(TSR_DTYPE_F32, out);
      for (bool constant : {false, true}) {
        r = RunFast(*engine, TSR_OP_GATHER, attrs, {data, ind}, {false, constant}, {type});
        ASSERT_TRUE(r.prepared) << r.why;
        ASSERT_TRUE(r.run.ok()) << r.run;
        ExpectClose(r.outputs[0], Reference(TSR_OP_GATHER, attrs, {data, ind}, type), 0, "GATHER");
      }
    }
  }
  // An index out of range is an error of the run, as in the reference.
  Attributes attrs;
  attrs.SetInts(TSR_ATTR_AXIS, {0});
  r = RunFast(*engine, TSR_OP_GATHER, attrs, {data, kt::I64({1}, {4})}, {false, false},
              {TypeOf(TSR_DTYPE_F32, {1, 6, 3})});
  ASSERT_TRUE(r.prepared);
  EXPECT_FALSE(r.run.ok());
}

// The loop kernels that run every invoke allocate nothing there: GATHER
// with run-time indices (checked, then read again while copying) and a
// broadcasting ADD (the walk's counters on the stack). The outputs are the
// reference's, so the counted run did its work.
TEST(LoopKernels, GatherAndBroadcastRunsAllocateNothing) {
  if (!kCountsAllocations) GTEST_SKIP() << "the sanitizers replace operator new";
  auto engine = Engine();
  std::mt19937 rng(23);
  struct Case {
    int32_t op;
    Attributes attrs;
    std::vector<Tensor> ins;
    TensorRef type;
  };
  std::vector<Case> cases;
  Attributes axis1;
  axis1.SetInts(TSR_ATTR_AXIS, {1});
  cases.push_back({TSR_OP_GATHER,
                   axis1,
                   {RandomF32(rng, {3, 5, 4}), kt::I64({2, 3}, {4, -1, 0, 2, -5, 1})},
                   TypeOf(TSR_DTYPE_F32, {3, 2, 3, 4})});
  cases.push_back(
      {TSR_OP_ADD, {}, {RandomF32(rng, {2, 3, 4, 5}), RandomF32(rng, {3, 1, 5})}, TypeOf(TSR_DTYPE_F32, {2, 3, 4, 5})});
  for (Case& c : cases) {
    std::vector<TensorRef> typed;
    for (const Tensor& t : c.ins) {
      typed.push_back(t.ref);
      typed.back().data = nullptr;  // every input arrives at run time
    }
    std::string why;
    std::unique_ptr<FastOp> op = engine->Prepare(c.op, c.attrs, typed, {&c.type, 1}, &why);
    ASSERT_NE(op, nullptr) << why;
    auto state = op->NewState();
    ASSERT_TRUE(state.ok()) << state.status();
    Tensor y = kt::Empty(TSR_DTYPE_F32, c.type.shape);
    std::vector<void*> in;
    for (const Tensor& t : c.ins) in.push_back(t.ref.data);
    void* out[] = {y.ref.data};
    absl::Status run;
    int count = 0;
    {
      AllocationCounter allocations;
      run = op->Run(**state, in, out);
      count = allocations.count();
    }
    ASSERT_TRUE(run.ok()) << run;
    EXPECT_EQ(count, 0) << op->name();
    ExpectClose(y, Reference(c.op, c.attrs, c.ins, c.type), 0, op->name());
  }
}

// A GELU + bias + per-row scale DAG as one fused group against the same ops
// run one by one by the reference kernels: every operand form (whole
// shape, one value, a vector along the last dim, one value per row), an
// intermediate that leaves the group, edge values in the input.
TEST(LoopKernels, ElementwiseGroupMatchesTheOpsOneByOne) {
  auto engine = Engine();
  std::mt19937 rng(19);
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{1, 6, 40}, std::vector<int64_t>{3, 2000}, std::vector<int64_t>{5000}}) {
    const int64_t n = shape.back();
    std::vector<int64_t> per_row = shape;
    per_row.back() = 1;
    // Group inputs: 0 x, 1 bias [n], 2 three, 3 c, 4 k, 5 one, 6 half, 7 row scale.
    std::vector<Tensor> ins = {
        RandomF32(rng, shape, 3.0f, true), RandomF32(rng, {n}), kt::F32({}, {3.0}), kt::F32({1}, {0.044715}),
        kt::F32({}, {0.7978846}),          kt::F32({}, {1.0}),  kt::F32({}, {0.5}), RandomF32(rng, per_row)};
    using L = GroupLink;
    auto in = [](int i) { return GroupOperand{-1, i}; };
    auto ln = [](int l) { return GroupOperand{l, -1}; };
    std::vector<L> links = {
        {TSR_OP_ADD, {}, {in(0), in(1)}, 0},   // 0 h = x + bias (leaves the group)
        {TSR_OP_POW, {}, {ln(0), in(2)}, -1},  // 1 h^3
        {TSR_OP_MUL, {}, {in(3), ln(1)}, -1},  // 2
        {TSR_OP_ADD, {}, {ln(0), ln(2)}, -1},  // 3
        {TSR_OP_MUL, {}, {in(4), ln(3)}, -1},  // 4
        {TSR_OP_TANH, {}, {ln(4)}, -1},        // 5
        {TSR_OP_ADD, {}, {in(5), ln(5)}, -1},  // 6
        {TSR_OP_MUL, {}, {in(6), ln(0)}, -1},  // 7
        {TSR_OP_MUL, {}, {ln(7), ln(6)}, -1},  // 8 gelu
        {TSR_OP_DIV, {}, {ln(8), in(7)}, 1},   // 9 / row scale
    };
    // The reference, op by op.
    std::vector<Tensor> ref;
    for (const L& l : links) {
      std::vector<Tensor> operands;
      for (const GroupOperand& g : l.operands) operands.push_back(g.link >= 0 ? ref[g.link] : ins[g.input]);
      ref.push_back(Reference(l.op_type, {}, operands, TypeOf(TSR_DTYPE_F32, shape)));
    }
    std::vector<TensorRef> typed;
    for (size_t i = 0; i < ins.size(); ++i) {
      typed.push_back(ins[i].ref);
      if (i == 0 || i == 1 || i == 7) typed.back().data = nullptr;  // computed at run time
    }
    const std::vector<TensorRef> outs = {TypeOf(TSR_DTYPE_F32, shape), TypeOf(TSR_DTYPE_F32, shape)};
    std::string why;
    std::unique_ptr<FastOp> group = engine->PrepareElementwiseGroup(links, typed, outs, &why);
    ASSERT_NE(group, nullptr) << why;
    auto state = group->NewState();
    ASSERT_TRUE(state.ok());
    Tensor h = kt::Empty(TSR_DTYPE_F32, shape), y = kt::Empty(TSR_DTYPE_F32, shape);
    std::vector<void*> in_ptrs, out_ptrs = {h.ref.data, y.ref.data};
    for (const Tensor& t : ins) in_ptrs.push_back(t.ref.data);
    ASSERT_TRUE(group->Run(**state, in_ptrs, out_ptrs).ok());
    ExpectClose(h, ref[0], 0, "group h " + Dims(shape));
    // The mul/add links are the reference's f32 operations; TANH and POW
    // differ by an ulp or two. 1 + tanh cancels where tanh is near -1, so
    // the error is bounded by the scale of 0.5 h / row_scale, not of y.
    const auto* g = static_cast<const float*>(y.ref.data);
    const auto* w = static_cast<const float*>(ref[9].ref.data);
    const auto* hv = static_cast<const float*>(ref[0].ref.data);
    const auto* rs = static_cast<const float*>(ins[7].ref.data);
    for (int64_t i = 0, bad = 0; i < y.ref.element_count() && bad < 5; ++i) {
      const double scale = std::fabs(hv[i] / rs[i / n]);
      const bool ok = std::isnan(w[i])   ? std::isnan(g[i])
                      : std::isinf(w[i]) ? g[i] == w[i]
                                         : std::fabs(static_cast<double>(g[i]) - w[i]) <= 4e-7 * scale + 3e-45;
      if (!ok && ++bad)
        ADD_FAILURE() << "group y " << Dims(shape) << " element " << i << ": " << g[i] << " vs " << w[i];
    }
  }
  // A partial broadcast does not fit a tile: refused.
  std::vector<TensorRef> typed = {TypeOf(TSR_DTYPE_F32, {4, 6}), TypeOf(TSR_DTYPE_F32, {4, 1, 6})};
  std::vector<GroupLink> links = {{TSR_OP_ADD, {}, {{-1, 0}, {-1, 1}}, -1}, {TSR_OP_NEG, {}, {{0, -1}}, 0}};
  std::string why;
  const std::vector<TensorRef> outs = {TypeOf(TSR_DTYPE_F32, {4, 4, 6})};
  EXPECT_EQ(engine->PrepareElementwiseGroup(links, typed, outs, &why), nullptr);
}

TEST(LoopKernels, PadEveryModeAgainstTheReference) {
  auto engine = Engine();
  std::mt19937 rng(23);
  for (int iter = 0; iter < 60; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    std::vector<int64_t> shape, out;
    for (int i = 0; i < rank; ++i) shape.push_back(1 + rng() % 6);
    const int64_t mode = iter % 3;  // CONSTANT, REFLECT, EDGE
    std::vector<int64_t> pads(2 * rank);
    for (int i = 0; i < rank; ++i) {
      // REFLECT needs pads below the axis size; negative pads crop.
      const int64_t limit = mode == TSR_PAD_REFLECT ? std::max<int64_t>(shape[i] - 1, 0) : 3;
      for (int side = 0; side < 2; ++side) {
        int64_t p = limit > 0 ? static_cast<int64_t>(rng() % (limit + 1)) : 0;
        if (rng() % 5 == 0 && shape[i] > 2) p = -1;
        pads[side * rank + i] = p;
      }
      out.push_back(shape[i] + pads[i] + pads[rank + i]);
    }
    Attributes attrs;
    attrs.SetInts(TSR_ATTR_PAD_MODE, {mode});
    std::vector<Tensor> ins = {RandomF32(rng, shape, 2.0f, true)};
    std::vector<bool> constant = {false};
    if (iter % 2) {  // pads and the value as constant inputs (opset 11+)
      ins.push_back(kt::I64({2 * rank}, pads));
      ins.push_back(kt::F32({}, {-7.5}));
      constant.insert(constant.end(), {true, true});
    } else {
      attrs.SetInts(TSR_ATTR_PADS, pads);
      attrs.SetFloats(TSR_ATTR_PAD_VALUE, {iter % 4 ? 0.0f : kNaN});
    }
    const TensorRef type = TypeOf(TSR_DTYPE_F32, out);
    const std::string label = "PAD mode " + std::to_string(mode) + " " + Dims(shape) + " pads " + Dims(pads);
    Outcome r = RunFast(*engine, TSR_OP_PAD, attrs, ins, constant, {type});
    ASSERT_TRUE(r.prepared) << label << ": " << r.why;
    ASSERT_TRUE(r.run.ok()) << r.run;
    ExpectClose(r.outputs[0], Reference(TSR_OP_PAD, attrs, ins, type), 0, label);
  }
  // Pads computed at run time: the reference kernel's.
  Outcome r = RunFast(*engine, TSR_OP_PAD, {}, {RandomF32(rng, {2, 3}), kt::I64({4}, {0, 1, 0, 1})}, {false, false},
                      {TypeOf(TSR_DTYPE_F32, {2, 5})});
  EXPECT_FALSE(r.prepared);
}

}  // namespace
}  // namespace tessera::cpu::fast
