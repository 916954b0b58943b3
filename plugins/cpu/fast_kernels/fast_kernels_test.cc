// The fast kernels against the reference kernels (the oracle) on many random
// shapes, within the tolerance documented in fast_kernels.h, plus the cases
// the fast path must refuse (so the reference kernel runs instead).
#include "plugins/cpu/fast_kernels/fast_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "plugins/cpu/fast_kernels/fast_test_util.h"
#include "support/reference_kernels/test_util.h"

namespace tessera::cpu::fast {
namespace {

using kt::Tensor;

TensorRef Typed(int32_t dtype, std::vector<int64_t> shape);

void SetActivation(std::mt19937& rng, Case& c) {
  const int kind = static_cast<int>(rng() % 3);
  c.attrs.SetInts(TSR_ATTR_ACTIVATION, {kind});
  if (kind == TSR_ACTIVATION_CLIP) {
    c.attrs.SetFloats(TSR_ATTR_CLIP_MIN, {-0.5f});
    if (rng() % 2) c.attrs.SetFloats(TSR_ATTR_CLIP_MAX, {0.75f});
  }
  c.label += " act=" + std::to_string(kind);
}

std::string Dims(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

TEST(FastKernels, FullyConnectedRandomShapes) {
  auto engine = Engine();
  std::mt19937 rng(11);
  for (int iter = 0; iter < 40; ++iter) {
    Case c;
    c.op = TSR_OP_FULLY_CONNECTED;
    const int64_t k = 1 + rng() % 300, n = 1 + rng() % 200;
    std::vector<int64_t> xs;
    const int lead = static_cast<int>(rng() % 3);
    for (int i = 0; i < lead; ++i) xs.push_back(1 + rng() % 9);
    xs.push_back(k);
    std::vector<int64_t> ys(xs.begin(), xs.end() - 1);
    ys.push_back(n);
    c.inputs = {RandomF32(rng, xs), RandomF32(rng, {n, k})};
    const bool const_w = iter % 5 != 4;  // a few runtime weight tensors too
    c.constant = {false, const_w};
    if (rng() % 3) {
      c.inputs.push_back(RandomF32(rng, {n}));
      c.constant.push_back(true);
    }
    c.out_shape = ys;
    c.label = "FC x" + Dims(xs) + " n=" + std::to_string(n) + " bias=" + std::to_string(c.inputs.size() == 3) +
              " const_w=" + std::to_string(const_w);
    SetActivation(rng, c);
    ExpectMatchesReference(*engine, c);
  }
}

TEST(FastKernels, MlpSizedFullyConnected) {
  auto engine = Engine();
  std::mt19937 rng(5);
  Case c;
  c.op = TSR_OP_FULLY_CONNECTED;
  c.inputs = {RandomF32(rng, {64, 1024}), RandomF32(rng, {1024, 1024}), RandomF32(rng, {1024})};
  c.constant = {false, true, true};
  c.attrs.SetInts(TSR_ATTR_ACTIVATION, {TSR_ACTIVATION_RELU});
  c.out_shape = {64, 1024};
  c.label = "FC 64x1024x1024 relu";
  ExpectMatchesReference(*engine, c);
}

TEST(FastKernels, BatchedMatmulRandomShapes) {
  auto engine = Engine();
  std::mt19937 rng(23);
  for (int iter = 0; iter < 40; ++iter) {
    Case c;
    c.op = TSR_OP_MATMUL;
    const int64_t m = 1 + rng() % 40, k = 1 + rng() % 70, n = 1 + rng() % 50;
    std::vector<int64_t> as, bs, out;
    const int batch_rank = static_cast<int>(rng() % 3);
    for (int i = 0; i < batch_rank; ++i) {
      const int64_t d = 1 + rng() % 4;
      const int pattern = static_cast<int>(rng() % 3);  // both, A broadcasts, B broadcasts
      as.push_back(pattern == 1 ? 1 : d);
      bs.push_back(pattern == 2 ? 1 : d);
      out.push_back(d);
    }
    // Sometimes B has fewer batch dims (numpy right alignment).
    if (!bs.empty() && rng() % 3 == 0 && as.front() == out.front()) bs.erase(bs.begin());
    as.insert(as.end(), {m, k});
    bs.insert(bs.end(), {k, n});
    out.insert(out.end(), {m, n});
    if (iter % 10 == 3) {  // 1-D A: [K] x [.., K, N] -> [.., N]
      as = {k};
      out = bs;
      out.erase(out.end() - 2);   // [.., K, N] -> [.., N]
    } else if (iter % 10 == 7) {  // 1-D B: [.., M, K] x [K] -> [.., M]
      bs = {k};
      out = as;
      out.pop_back();  // [.., M, K] -> [.., M]
    }
    c.inputs = {RandomF32(rng, as), RandomF32(rng, bs)};
    const bool const_b = rng() % 2;
    c.constant = {false, const_b};
    if (iter % 10 != 7 && rng() % 2) {
      c.inputs.push_back(RandomF32(rng, {n}));
      c.constant.push_back(rng() % 2 == 0);
    }
    c.out_shape = out;
    c.label = "MATMUL " + Dims(as) + " x " + Dims(bs) + " const_b=" + std::to_string(const_b) +
              " bias=" + std::to_string(c.inputs.size() == 3);
    SetActivation(rng, c);
    ExpectMatchesReference(*engine, c);
  }
}

TEST(FastKernels, ConvRandomGeometry) {
  auto engine = Engine();
  std::mt19937 rng(37);
  for (int iter = 0; iter < 48; ++iter) {
    Case c;
    c.op = TSR_OP_CONV_2D;
    const int64_t n = 1 + rng() % 2;
    int64_t groups = 1, cin, m;
    const int kind = iter % 3;  // dense, grouped, depthwise
    if (kind == 0) {
      cin = 1 + rng() % 8;
      m = 1 + rng() % 16;
    } else if (kind == 1) {
      groups = 2 + rng() % 3;
      cin = groups * (1 + rng() % 4);
      m = groups * (1 + rng() % 4);
    } else {
      cin = 1 + rng() % 24;
      groups = cin;
      m = cin * (1 + rng() % 2);
    }
    const int64_t kh = 1 + rng() % 5, kw = 1 + rng() % 5;
    const int64_t sh = 1 + rng() % 3, sw = 1 + rng() % 3, dh = 1 + rng() % 2, dw = 1 + rng() % 2;
    const int64_t pt = rng() % 3, pl = rng() % 3, pb = rng() % 3, pr = rng() % 3;
    const int64_t h = dh * (kh - 1) + 1 + rng() % 14, w = dw * (kw - 1) + 1 + rng() % 14;
    const int64_t oh = (h + pt + pb - dh * (kh - 1) - 1) / sh + 1;
    const int64_t ow = (w + pl + pr - dw * (kw - 1) - 1) / sw + 1;
    c.inputs = {RandomF32(rng, {n, cin, h, w}), RandomF32(rng, {m, cin / groups, kh, kw})};
    c.constant = {false, true};
    if (rng() % 3) {
      c.inputs.push_back(RandomF32(rng, {m}));
      c.constant.push_back(true);
    }
    c.attrs.SetInts(TSR_ATTR_GROUPS, {groups});
    c.attrs.SetInts(TSR_ATTR_STRIDES, {sh, sw});
    c.attrs.SetInts(TSR_ATTR_DILATIONS, {dh, dw});
    c.attrs.SetInts(TSR_ATTR_PADS, {pt, pl, pb, pr});
    c.out_shape = {n, m, oh, ow};
    c.label = "CONV x" + Dims({n, cin, h, w}) + " w" + Dims({m, cin / groups, kh, kw}) +
              " g=" + std::to_string(groups) + " s=" + std::to_string(sh) + "," + std::to_string(sw) +
              " d=" + std::to_string(dh) + "," + std::to_string(dw) + " pads=" + Dims({pt, pl, pb, pr});
    SetActivation(rng, c);
    ExpectMatchesReference(*engine, c);
  }
}

TEST(FastKernels, CnnSizedConvolutions) {
  auto engine = Engine();
  std::mt19937 rng(41);
  struct Geo {
    int64_t c, m, groups, k, stride, pad, hw;
  };
  for (const Geo& g : {Geo{3, 32, 1, 3, 1, 1, 32}, Geo{32, 32, 32, 3, 1, 1, 16}, Geo{32, 64, 1, 1, 1, 0, 16},
                       Geo{16, 16, 16, 3, 2, 1, 17}}) {
    Case c;
    c.op = TSR_OP_CONV_2D;
    const int64_t o = (g.hw + 2 * g.pad - g.k) / g.stride + 1;
    c.inputs = {RandomF32(rng, {1, g.c, g.hw, g.hw}), RandomF32(rng, {g.m, g.c / g.groups, g.k, g.k}),
                RandomF32(rng, {g.m})};
    c.constant = {false, true, true};
    c.attrs.SetInts(TSR_ATTR_GROUPS, {g.groups});
    c.attrs.SetInts(TSR_ATTR_STRIDES, {g.stride, g.stride});
    c.attrs.SetInts(TSR_ATTR_PADS, {g.pad, g.pad, g.pad, g.pad});
    c.attrs.SetInts(TSR_ATTR_ACTIVATION, {TSR_ACTIVATION_RELU});
    c.out_shape = {1, g.m, o, o};
    c.label = "CONV c=" + std::to_string(g.c) + " m=" + std::to_string(g.m) + " g=" + std::to_string(g.groups);
    ExpectMatchesReference(*engine, c);
  }
}

TEST(FastKernels, PoolRandomGeometry) {
  auto engine = Engine();
  std::mt19937 rng(53);
  int prepared = 0;
  for (int iter = 0; iter < 60; ++iter) {
    Case c;
    c.op = iter % 2 ? TSR_OP_MAX_POOL_2D : TSR_OP_AVG_POOL_2D;
    const int64_t kh = 1 + rng() % 4, kw = 1 + rng() % 4, sh = 1 + rng() % 3, sw = 1 + rng() % 3;
    const int64_t dh = c.op == TSR_OP_MAX_POOL_2D ? 1 + rng() % 2 : 1,
                  dw = c.op == TSR_OP_MAX_POOL_2D ? 1 + rng() % 2 : 1;
    const int64_t pt = rng() % kh, pl = rng() % kw, pb = rng() % kh, pr = rng() % kw;
    const bool ceil_mode = rng() % 2;
    const bool include_pad = c.op == TSR_OP_AVG_POOL_2D && rng() % 2;
    const int64_t h = dh * (kh - 1) + 1 + rng() % 12, w = dw * (kw - 1) + 1 + rng() % 12;
    auto out_dim = [&](int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0, int64_t p1) {
      const int64_t span = in + p0 + p1 - (d * (k - 1) + 1);
      int64_t o = ceil_mode ? (span + s - 1) / s + 1 : span / s + 1;
      if (ceil_mode && (o - 1) * s >= in + p0) --o;
      return o;
    };
    const int64_t n = 1 + rng() % 2, ch = 1 + rng() % 5;
    c.inputs = {RandomF32(rng, {n, ch, h, w})};
    c.constant = {false};
    c.attrs.SetInts(TSR_ATTR_KERNEL_SHAPE, {kh, kw});
    c.attrs.SetInts(TSR_ATTR_STRIDES, {sh, sw});
    c.attrs.SetInts(TSR_ATTR_DILATIONS, {dh, dw});
    c.attrs.SetInts(TSR_ATTR_PADS, {pt, pl, pb, pr});
    c.attrs.SetInts(TSR_ATTR_CEIL_MODE, {ceil_mode});
    c.attrs.SetInts(TSR_ATTR_COUNT_INCLUDE_PAD, {include_pad});
    c.out_shape = {n, ch, out_dim(h, kh, sh, dh, pt, pb), out_dim(w, kw, sw, dw, pl, pr)};
    c.label = std::string(OpTypeName(c.op)) + " x" + Dims({n, ch, h, w}) + " k=" + Dims({kh, kw}) +
              " s=" + Dims({sh, sw}) + " d=" + Dims({dh, dw}) + " pads=" + Dims({pt, pl, pb, pr}) +
              " ceil=" + std::to_string(ceil_mode) + " incl=" + std::to_string(include_pad);
    // Some geometries are refused on purpose (documented); the rest must match.
    std::vector<TensorRef> typed = {c.inputs[0].ref};
    typed[0].data = nullptr;
    TensorRef out;
    out.dtype = TSR_DTYPE_F32;
    out.shape = c.out_shape;
    std::string why;
    if (engine->Prepare(c.op, c.attrs, typed, {&out, 1}, &why) == nullptr) {
      EXPECT_TRUE(why.find("pool") != std::string::npos || why.find("POOL") != std::string::npos) << why;
      continue;
    }
    ++prepared;
    ExpectMatchesReference(*engine, c);
  }
  EXPECT_GT(prepared, 30);
}

TEST(FastKernels, BinaryBroadcastRandomShapes) {
  auto engine = Engine();
  std::mt19937 rng(61);
  const int32_t ops[] = {TSR_OP_ADD, TSR_OP_SUB, TSR_OP_MUL, TSR_OP_DIV};
  for (int iter = 0; iter < 40; ++iter) {
    Case c;
    c.op = ops[iter % 4];
    const int rank = 1 + static_cast<int>(rng() % 4);
    std::vector<int64_t> y, a, b;
    for (int i = 0; i < rank; ++i) y.push_back(1 + rng() % 6);
    a = y;
    b = y;
    for (int i = 0; i < rank; ++i)
      if (rng() % 3 == 0) b[i] = 1;
    if (rng() % 3 == 0) b.erase(b.begin(), b.begin() + rng() % rank);  // fewer dims: right-aligned
    // ADD/MUL also take a broadcasting first operand (operands swapped).
    if ((c.op == TSR_OP_ADD || c.op == TSR_OP_MUL) && rng() % 2) std::swap(a, b);
    c.inputs = {RandomF32(rng, a), RandomF32(rng, b)};
    c.constant = {false, rng() % 2 == 0};
    c.out_shape = y;
    c.label = std::string(OpTypeName(c.op)) + " " + Dims(a) + " " + Dims(b);
    ExpectMatchesReference(*engine, c);
  }
  // SUB/DIV with a broadcasting first operand: oneDNN's binary primitive
  // refuses them, the loop kernel (binary_loop_kernels.cc) takes them.
  std::vector<TensorRef> ins(2), outs(1);
  ins[0].dtype = ins[1].dtype = outs[0].dtype = TSR_DTYPE_F32;
  ins[0].shape = {1, 4};
  ins[1].shape = {3, 4};
  outs[0].shape = {3, 4};
  std::string why;
  EXPECT_NE(engine->Prepare(TSR_OP_SUB, {}, ins, outs, &why), nullptr) << why;
}

TEST(FastKernels, SoftmaxAndTransposeRandomShapes) {
  auto engine = Engine();
  std::mt19937 rng(67);
  for (int iter = 0; iter < 30; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    std::vector<int64_t> shape;
    for (int i = 0; i < rank; ++i) shape.push_back(1 + rng() % 7);
    Case sm;
    sm.op = TSR_OP_SOFTMAX;
    const int64_t axis = static_cast<int64_t>(rng() % rank) - (rng() % 2 ? rank : 0);
    sm.attrs.SetInts(TSR_ATTR_AXIS, {axis});
    sm.inputs = {RandomF32(rng, shape)};
    sm.constant = {false};
    sm.out_shape = shape;
    sm.label = "SOFTMAX " + Dims(shape) + " axis " + std::to_string(axis);
    ExpectMatchesReference(*engine, sm);

    Case tr;
    tr.op = TSR_OP_TRANSPOSE;
    std::vector<int64_t> perm(rank);
    for (int i = 0; i < rank; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<int64_t> out(rank);
    for (int i = 0; i < rank; ++i) out[i] = shape[perm[i]];
    tr.attrs.SetInts(TSR_ATTR_PERM, perm);
    tr.inputs = {RandomF32(rng, shape)};
    tr.constant = {false};
    tr.out_shape = out;
    tr.label = "TRANSPOSE " + Dims(shape) + " perm " + Dims(perm);
    ExpectMatchesReference(*engine, tr);
  }
}

TEST(FastKernels, GlobalAvgPool) {
  auto engine = Engine();
  std::mt19937 rng(71);
  for (int iter = 0; iter < 10; ++iter) {
    Case c;
    c.op = TSR_OP_GLOBAL_AVG_POOL;
    const std::vector<int64_t> shape = {1 + static_cast<int64_t>(rng() % 2), 1 + static_cast<int64_t>(rng() % 40),
                                        1 + static_cast<int64_t>(rng() % 17), 1 + static_cast<int64_t>(rng() % 17)};
    c.inputs = {RandomF32(rng, shape)};
    c.constant = {false};
    c.out_shape = {shape[0], shape[1], 1, 1};
    c.label = "GLOBAL_AVG_POOL " + Dims(shape);
    ExpectMatchesReference(*engine, c);
  }
}

TEST(FastKernels, SliceAndSelectRandomShapes) {
  auto engine = Engine();
  std::mt19937 rng(73);
  for (int iter = 0; iter < 30; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    std::vector<int64_t> shape;
    for (int i = 0; i < rank; ++i) shape.push_back(1 + rng() % 9);
    // SLICE: one to `rank` axes, negative and out-of-range bounds, steps 1..3.
    Case sl;
    sl.op = TSR_OP_SLICE;
    std::vector<int64_t> starts, ends, axes, steps, out = shape;
    for (int ax = 0; ax < rank; ++ax) {
      if (rng() % 2 && ax != rank - 1) continue;
      const int64_t dim = shape[ax];
      const int64_t b = static_cast<int64_t>(rng() % dim);
      const int64_t e = b + 1 + static_cast<int64_t>(rng() % (dim - b));
      const int64_t st = 1 + static_cast<int64_t>(rng() % 3);
      starts.push_back(rng() % 2 ? b - dim : b);              // negative start
      ends.push_back(e == dim && rng() % 2 ? INT64_MAX : e);  // clamped end
      axes.push_back(rng() % 2 ? ax - rank : ax);
      steps.push_back(st);
      out[ax] = (e - b + st - 1) / st;
    }
    sl.attrs.SetInts(TSR_ATTR_STARTS, starts);
    sl.attrs.SetInts(TSR_ATTR_ENDS, ends);
    sl.attrs.SetInts(TSR_ATTR_AXES, axes);
    sl.attrs.SetInts(TSR_ATTR_STEPS, steps);
    sl.inputs = {RandomF32(rng, shape)};
    sl.constant = {false};
    sl.out_shape = out;
    sl.label = "SLICE " + Dims(shape) + " starts " + Dims(starts) + " axes " + Dims(axes) + " steps " + Dims(steps);
    ExpectMatchesReference(*engine, sl);

    // SELECT: condition, x and y each broadcast along random dims.
    Case se;
    se.op = TSR_OP_SELECT;
    auto some_ones = [&](std::vector<int64_t> s) {
      for (auto& d : s)
        if (rng() % 3 == 0) d = 1;
      if (rng() % 3 == 0) s.erase(s.begin(), s.begin() + rng() % s.size());
      return s;
    };
    Tensor cond = kt::Empty(TSR_DTYPE_BOOL, some_ones(shape));
    for (int64_t i = 0; i < cond.ref.element_count(); ++i) static_cast<uint8_t*>(cond.ref.data)[i] = rng() % 2;
    se.inputs = {cond, RandomF32(rng, some_ones(shape)), RandomF32(rng, some_ones(shape))};
    se.constant = {rng() % 2 == 0, false, rng() % 2 == 0};
    se.out_shape = shape;
    // The broadcast shape may be smaller than `shape` if every input dropped a dim.
    size_t r = 0;
    for (const Tensor& t : se.inputs) r = std::max(r, t.ref.shape.size());
    std::vector<int64_t> bshape(r, 1);
    for (const Tensor& t : se.inputs)
      for (size_t i = 0; i < t.ref.shape.size(); ++i) {
        int64_t& d = bshape[r - t.ref.shape.size() + i];
        d = std::max(d, t.ref.shape[i]);
      }
    se.out_shape = bshape;
    se.label = "SELECT " + Dims(se.inputs[0].ref.shape) + " " + Dims(se.inputs[1].ref.shape) + " " +
               Dims(se.inputs[2].ref.shape);
    ExpectMatchesReference(*engine, se);
  }
}

// A chain conv(+relu) -> max pool -> depthwise conv -> 1x1 conv -> avg pool
// -> global avg pool as one region, each link reading the one before,
// against the reference kernels op by op.
TEST(FastKernels, ConvPoolChainMatchesReference) {
  auto engine = Engine();
  std::mt19937 rng(79);
  for (int iter = 0; iter < 8; ++iter) {
    const int64_t n = 1 + rng() % 2, c = 1 + rng() % 6, h = 12 + rng() % 10, w = 12 + rng() % 10;
    const int64_t m = 8 * (1 + rng() % 3), m2 = 1 + rng() % 20;
    Tensor x = RandomF32(rng, {n, c, h, w});
    Tensor w1 = RandomF32(rng, {m, c, 3, 3}), b1 = RandomF32(rng, {m});
    Tensor w2 = RandomF32(rng, {m, 1, 3, 3});
    Tensor w3 = RandomF32(rng, {m2, m, 1, 1}), b3 = RandomF32(rng, {m2});
    std::vector<RegionLink> links(6);
    std::vector<Tensor> refs = {x};
    auto add = [&](size_t k, int32_t op, Attributes attrs, std::vector<TensorRef> extra, std::vector<int64_t> out) {
      Tensor y = kt::Empty(TSR_DTYPE_F32, out);
      std::vector<TensorRef> ins = {refs.back().ref};
      ins.insert(ins.end(), extra.begin(), extra.end());
      ASSERT_TRUE(kt::RunOp(op, attrs, ins, y).ok()) << OpTypeName(op);
      ins[0].data = nullptr;
      TensorRef o = y.ref;
      o.data = nullptr;
      const GroupOperand from = k == 0 ? GroupOperand{-1, 0} : GroupOperand{static_cast<int>(k) - 1, -1};
      links[k] = {op, attrs, ins, {from}, o, k + 1 == links.size() ? 0 : -1};
      refs.push_back(y);
    };
    Attributes conv1;
    conv1.SetInts(TSR_ATTR_PADS, {1, 1, 1, 1});
    conv1.SetInts(TSR_ATTR_ACTIVATION, {TSR_ACTIVATION_RELU});
    add(0, TSR_OP_CONV_2D, conv1, {w1.ref, b1.ref}, {n, m, h, w});
    Attributes pool;
    pool.SetInts(TSR_ATTR_KERNEL_SHAPE, {2, 2});
    pool.SetInts(TSR_ATTR_STRIDES, {2, 2});
    add(1, TSR_OP_MAX_POOL_2D, pool, {}, {n, m, h / 2, w / 2});
    Attributes dw;
    dw.SetInts(TSR_ATTR_PADS, {1, 1, 1, 1});
    dw.SetInts(TSR_ATTR_GROUPS, {m});
    add(2, TSR_OP_CONV_2D, dw, {w2.ref}, {n, m, h / 2, w / 2});
    Attributes pw;
    pw.SetInts(TSR_ATTR_ACTIVATION, {TSR_ACTIVATION_CLIP});
    pw.SetFloats(TSR_ATTR_CLIP_MIN, {-2.0f});
    pw.SetFloats(TSR_ATTR_CLIP_MAX, {2.0f});
    add(3, TSR_OP_CONV_2D, pw, {w3.ref, b3.ref}, {n, m2, h / 2, w / 2});
    Attributes avg;
    avg.SetInts(TSR_ATTR_KERNEL_SHAPE, {3, 3});
    avg.SetInts(TSR_ATTR_PADS, {1, 1, 1, 1});
    add(4, TSR_OP_AVG_POOL_2D, avg, {}, {n, m2, h / 2, w / 2});
    add(5, TSR_OP_GLOBAL_AVG_POOL, {}, {}, {n, m2, 1, 1});
    ASSERT_FALSE(HasFailure());

    std::string why;
    TensorRef input = x.ref;
    input.data = nullptr;
    std::unique_ptr<FastOp> chain = engine->PrepareRegion(links, {&input, 1}, &why);
    ASSERT_NE(chain, nullptr) << why;
    EXPECT_NE(std::string(chain->name()).find("CONV_2D+MAX_POOL_2D"), std::string::npos) << chain->name();
    auto state = chain->NewState();
    ASSERT_TRUE(state.ok());
    Tensor got = kt::Empty(TSR_DTYPE_F32, {n, m2, 1, 1});
    std::vector<void*> ins = {x.ref.data}, outs = {got.ref.data};
    ScopedThreads threads(1);
    ASSERT_TRUE(chain->Run(**state, ins, outs).ok());
    const auto* r = static_cast<const float*>(refs.back().ref.data);
    const auto* g = static_cast<const float*>(got.ref.data);
    for (int64_t i = 0; i < got.ref.element_count(); ++i) EXPECT_NEAR(g[i], r[i], 1e-4 * (1 + std::fabs(r[i]))) << i;
  }
}

// What a region refuses, with the reason: a link reading a later link, a
// broadcast that is not per channel, outputs not numbered 0, 1, ...
TEST(FastKernels, RegionRefusesLinksItCannotRun) {
  auto engine = Engine();
  const TensorRef x = Typed(TSR_DTYPE_F32, {1, 8, 4, 4}), pooled = Typed(TSR_DTYPE_F32, {1, 8, 1, 1});
  const GroupOperand input0{-1, 0};
  auto gap = [&](GroupOperand from, int output) {
    return RegionLink{TSR_OP_GLOBAL_AVG_POOL, {}, {x}, {from}, pooled, output};
  };
  auto mul = [&](TensorRef second, GroupOperand from, int output) {
    return RegionLink{TSR_OP_MUL, {}, {x, second}, {input0, from}, x, output};
  };
  std::string why;
  // Link 0 reads link 1.
  std::vector<RegionLink> forward = {mul(pooled, {1, -1}, 0), gap(input0, 1)};
  EXPECT_EQ(engine->PrepareRegion(forward, {&x, 1}, &why), nullptr);
  EXPECT_NE(why.find("reads nothing before it"), std::string::npos) << why;
  // x * [1, 1, 4, 1]: a broadcast along H.
  const TensorRef rows = Typed(TSR_DTYPE_F32, {1, 1, 4, 1});
  const std::vector<TensorRef> two = {x, rows};
  std::vector<RegionLink> along_h = {gap(input0, 0), mul(rows, {-1, 1}, 1)};
  EXPECT_EQ(engine->PrepareRegion(along_h, two, &why), nullptr);
  EXPECT_NE(why.find("not per channel"), std::string::npos) << why;
  // Outputs 0 and 2: no output 1.
  std::vector<RegionLink> gap_in_numbers = {gap(input0, 0), mul(pooled, {0, -1}, 2)};
  EXPECT_EQ(engine->PrepareRegion(gap_in_numbers, {&x, 1}, &why), nullptr);
  EXPECT_NE(why.find("numbered"), std::string::npos) << why;
  // The same region numbered right is accepted.
  std::vector<RegionLink> good = {gap(input0, 1), mul(pooled, {0, -1}, 0)};
  EXPECT_NE(engine->PrepareRegion(good, {&x, 1}, &why), nullptr) << why;
}

// ---- What the fast path refuses (the reference kernel runs instead) ---------

std::unique_ptr<FastOp> PrepareTyped(const FastEngine& engine, int32_t op, const Attributes& attrs,
                                     std::vector<TensorRef> ins, std::vector<TensorRef> outs, std::string* why) {
  for (TensorRef& t : ins) t.data = nullptr;
  return engine.Prepare(op, attrs, ins, outs, why);
}

TensorRef Typed(int32_t dtype, std::vector<int64_t> shape) {
  TensorRef t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

TEST(FastKernels, RefusesWhatItDoesNotHandle) {
  auto engine = Engine();
  std::string why;
  // f16.
  EXPECT_EQ(
      PrepareTyped(*engine, TSR_OP_FULLY_CONNECTED, {}, {Typed(TSR_DTYPE_F16, {2, 4}), Typed(TSR_DTYPE_F16, {3, 4})},
                   {Typed(TSR_DTYPE_F16, {2, 3})}, &why),
      nullptr);
  EXPECT_NE(why.find("f16"), std::string::npos) << why;
  // Quantized.
  TensorRef qx = Typed(TSR_DTYPE_I8, {2, 4});
  qx.quant.scales = {0.5f};
  qx.quant.zero_points = {0};
  EXPECT_EQ(PrepareTyped(*engine, TSR_OP_FULLY_CONNECTED, {}, {qx, Typed(TSR_DTYPE_I8, {3, 4})},
                         {Typed(TSR_DTYPE_I32, {2, 3})}, &why),
            nullptr);
  // Ops without a fast kernel.
  EXPECT_EQ(
      PrepareTyped(*engine, TSR_OP_CAST, {}, {Typed(TSR_DTYPE_F32, {2, 4})}, {Typed(TSR_DTYPE_I32, {2, 4})}, &why),
      nullptr);
  EXPECT_NE(why.find("no fast kernel"), std::string::npos) << why;
  // A wrong output shape is left to the reference kernel, which reports it.
  EXPECT_EQ(PrepareTyped(*engine, TSR_OP_MATMUL, {}, {Typed(TSR_DTYPE_F32, {2, 4}), Typed(TSR_DTYPE_F32, {4, 3})},
                         {Typed(TSR_DTYPE_F32, {2, 4})}, &why),
            nullptr);
  EXPECT_NE(why.find("output shape"), std::string::npos) << why;
  // CLIP with lo > hi (the reference yields hi; oneDNN's clip differs).
  Attributes clip;
  clip.SetInts(TSR_ATTR_ACTIVATION, {TSR_ACTIVATION_CLIP});
  clip.SetFloats(TSR_ATTR_CLIP_MIN, {1.0f});
  clip.SetFloats(TSR_ATTR_CLIP_MAX, {-1.0f});
  EXPECT_EQ(PrepareTyped(*engine, TSR_OP_MATMUL, clip, {Typed(TSR_DTYPE_F32, {2, 4}), Typed(TSR_DTYPE_F32, {4, 3})},
                         {Typed(TSR_DTYPE_F32, {2, 3})}, &why),
            nullptr);
  // Unknown activation.
  Attributes bad;
  bad.SetInts(TSR_ATTR_ACTIVATION, {7});
  EXPECT_EQ(PrepareTyped(*engine, TSR_OP_MATMUL, bad, {Typed(TSR_DTYPE_F32, {2, 4}), Typed(TSR_DTYPE_F32, {4, 3})},
                         {Typed(TSR_DTYPE_F32, {2, 3})}, &why),
            nullptr);
  // Empty tensors.
  EXPECT_EQ(PrepareTyped(*engine, TSR_OP_MATMUL, {}, {Typed(TSR_DTYPE_F32, {0, 4}), Typed(TSR_DTYPE_F32, {4, 3})},
                         {Typed(TSR_DTYPE_F32, {0, 3})}, &why),
            nullptr);
}

TEST(FastKernels, EngineAndThreads) {
  EXPECT_FALSE(FastEngine::Create(0).ok());
  auto e = FastEngine::Create(2);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->threads(), 2);
  EXPECT_NE(FastLibraryVersion().find("oneDNN"), std::string::npos);
}

}  // namespace
}  // namespace tessera::cpu::fast
