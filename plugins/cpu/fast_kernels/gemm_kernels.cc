// FULLY_CONNECTED and MATMUL on oneDNN (see fast_kernels.h for what is handled).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {

namespace {

// ---- FULLY_CONNECTED and MATMUL ---------------------------------------------

std::unique_ptr<FastOp> MatmulPlan(int32_t op, const dnnl::engine& engine, const Attributes& attrs, const TensorRef& a,
                                   const memory::desc& a_md, const TensorRef& b, const memory::desc& b_user_md,
                                   const TensorRef* bias, const memory::desc& bias_md, const memory::desc& dst_md) {
  const memory::desc b_want = b.data != nullptr ? Any(b_user_md.dims()) : b_user_md;
  const dnnl::primitive_attr attr = ComputeAttr(op, attrs);
  const dnnl::matmul::desc d =
      bias ? dnnl::matmul::desc(a_md, b_want, bias_md, dst_md) : dnnl::matmul::desc(a_md, b_want, dst_md);
  const dnnl::matmul::primitive_desc pd(d, attr, engine);
  auto plan = std::make_unique<PlanOp>(OpTypeName(op), engine);
  std::vector<std::pair<int, int>> args;
  args.push_back({DNNL_ARG_SRC, BindInput(*plan, engine, a, 0, a_md, a_md)});
  args.push_back({DNNL_ARG_WEIGHTS, BindInput(*plan, engine, b, 1, b_user_md, pd.weights_desc())});
  if (bias) args.push_back({DNNL_ARG_BIAS, BindInput(*plan, engine, *bias, 2, bias_md, bias_md)});
  args.push_back({DNNL_ARG_DST, plan->AddSlot(SlotKind::kOutput, 0, dst_md)});
  plan->AddScratchpad(pd.scratchpad_desc(), args);
  plan->AddStep(dnnl::matmul(pd), std::move(args));
  return plan;
}

// rows [M, K] (row-major) x constant weights -> [M, N] as a 1x1 convolution
// over a 1 x M "image" in channels-last layout (NHWC with C = K): the
// activations need no reorder, the weights are packed once into the
// blocked layout the convolution prefers, and the JIT 1x1 kernels run
// (on AVX2, oneDNN 2.6's matmul/inner product fall back to a plain sgemm
// that repacks the weights on every call, ~2.5x slower here). `w_user`
// describes the weights as {N, K, 1, 1}. nullptr when oneDNN only offers a
// reference or gemm-based implementation.
std::unique_ptr<FastOp> RowsTimesWeightsAsConv(int32_t op, const dnnl::engine& engine, const Attributes& attrs,
                                               int64_t m, int64_t k, int64_t n, const TensorRef& w,
                                               const memory::desc& w_user, const TensorRef* bias) {
  if (w.data == nullptr) return nullptr;  // runtime weights: matmul reads them in place
  const memory::desc src({1, k, 1, m}, memory::data_type::f32, memory::format_tag::nhwc);
  const memory::desc dst({1, n, 1, m}, memory::data_type::f32, memory::format_tag::nhwc);
  const memory::desc bias_md = Plain({n});
  const dnnl::primitive_attr attr = ComputeAttr(op, attrs);
  const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
                                          Any({n, k, 1, 1}), bias ? bias_md : memory::desc(), dst, {1, 1}, {0, 0},
                                          {0, 0});
  dnnl::convolution_forward::primitive_desc cpd;
  try {
    cpd = dnnl::convolution_forward::primitive_desc(d, attr, engine);
  } catch (const dnnl::error&) {
    return nullptr;
  }
  const std::string impl = cpd.impl_info_str();
  if (impl.find("1x1") == std::string::npos && impl.find("brg") == std::string::npos) return nullptr;
  auto plan = std::make_unique<PlanOp>(OpTypeName(op), engine);
  std::vector<std::pair<int, int>> args;
  args.push_back({DNNL_ARG_SRC, plan->AddSlot(SlotKind::kInput, 0, src)});
  args.push_back({DNNL_ARG_WEIGHTS, plan->AddConstant(Pack(engine, w_user, w.data, cpd.weights_desc()))});
  if (bias) args.push_back({DNNL_ARG_BIAS, BindInput(*plan, engine, *bias, 2, bias_md, cpd.bias_desc())});
  args.push_back({DNNL_ARG_DST, plan->AddSlot(SlotKind::kOutput, 0, dst)});
  plan->AddScratchpad(cpd.scratchpad_desc(), args);
  plan->AddStep(dnnl::convolution_forward(cpd), std::move(args));
  return plan;
}

}  // namespace

std::unique_ptr<FastOp> PrepareFullyConnected(const dnnl::engine& engine, const Attributes& attrs,
                                              std::span<const TensorRef> ins, std::span<const TensorRef> outs) {
  const int32_t op = TSR_OP_FULLY_CONNECTED;
  if (ins.size() < 2 || ins.size() > 3 || outs.size() != 1) Refuse("FULLY_CONNECTED: arity");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  const TensorRef& w = ins[1];
  const TensorRef* bias = Present(ins, 2) ? &ins[2] : nullptr;
  if (x.shape.empty() || w.shape.size() != 2 || x.shape.back() != w.shape[1])
    Refuse(absl::StrCat("FULLY_CONNECTED: shapes ", ShapeText(x.shape), " and ", ShapeText(w.shape)));
  const int64_t k = w.shape[1], n = w.shape[0];
  if (bias && bias->shape != std::vector<int64_t>{n}) Refuse("FULLY_CONNECTED: bias shape");
  int64_t m = 1;
  for (size_t i = 0; i + 1 < x.shape.size(); ++i) m *= x.shape[i];
  std::vector<int64_t> expected(x.shape.begin(), x.shape.end() - 1);
  expected.push_back(n);
  RequireOutputShape(op, outs[0], expected);
  if (auto conv = RowsTimesWeightsAsConv(op, engine, attrs, m, k, n, w, Plain({n, k, 1, 1}), bias)) return conv;
  // W [N, K] row-major is the {K, N} matrix in "ba" layout.
  const memory::desc w_user({k, n}, memory::data_type::f32, memory::format_tag::ba);
  return MatmulPlan(op, engine, attrs, x, Plain({m, k}), w, w_user, bias, Plain({1, n}), Plain({m, n}));
}

std::unique_ptr<FastOp> PrepareMatmul(const dnnl::engine& engine, const Attributes& attrs,
                                      std::span<const TensorRef> ins, std::span<const TensorRef> outs) {
  const int32_t op = TSR_OP_MATMUL;
  if (ins.size() < 2 || ins.size() > 3 || outs.size() != 1) Refuse("MATMUL: arity");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& a = ins[0];
  const TensorRef& b = ins[1];
  const TensorRef* bias = Present(ins, 2) ? &ins[2] : nullptr;
  if (a.shape.empty() || b.shape.empty()) Refuse("MATMUL: rank 0");
  Dims as(a.shape.begin(), a.shape.end()), bs(b.shape.begin(), b.shape.end());
  const bool drop_m = as.size() == 1, drop_n = bs.size() == 1;
  if (drop_m) as.insert(as.begin(), 1);
  if (drop_n) bs.push_back(1);
  const size_t r = std::max(as.size(), bs.size());
  as.insert(as.begin(), r - as.size(), 1);
  bs.insert(bs.begin(), r - bs.size(), 1);
  if (as[r - 1] != bs[r - 2]) Refuse(absl::StrCat("MATMUL: shapes ", ShapeText(a.shape), " and ", ShapeText(b.shape)));
  Dims ds(r);
  std::vector<int64_t> expected;
  for (size_t i = 0; i + 2 < r; ++i) {
    if (as[i] != bs[i] && as[i] != 1 && bs[i] != 1) Refuse("MATMUL: batch dims do not broadcast");
    ds[i] = std::max(as[i], bs[i]);
    expected.push_back(ds[i]);
  }
  ds[r - 2] = as[r - 2];
  ds[r - 1] = bs[r - 1];
  if (!drop_m) expected.push_back(ds[r - 2]);
  if (!drop_n) expected.push_back(ds[r - 1]);
  RequireOutputShape(op, outs[0], expected);
  if (bias && bias->shape != std::vector<int64_t>{ds[r - 1]}) Refuse("MATMUL: bias shape");
  // A constant 2-D B: every row of A times the same weights.
  if (b.data != nullptr && b.shape.size() == 2 && !drop_n) {
    const int64_t k = bs[r - 2], n = bs[r - 1];
    const int64_t rows = a.element_count() / k;
    // B [K, N] row-major described as {N, K, 1, 1}.
    const memory::desc w_user({n, k, 1, 1}, memory::data_type::f32, Dims{1, n, 1, 1});
    if (auto conv = RowsTimesWeightsAsConv(op, engine, attrs, rows, k, n, b, w_user, bias)) return conv;
  }
  Dims bias_dims(r, 1);
  bias_dims[r - 1] = ds[r - 1];
  return MatmulPlan(op, engine, attrs, a, Plain(as), b, Plain(bs), bias, Plain(bias_dims), Plain(ds));
}

}  // namespace tessera::cpu::fast::detail
