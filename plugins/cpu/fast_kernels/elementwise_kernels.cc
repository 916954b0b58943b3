// Elementwise binary ops and SOFTMAX on oneDNN.
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

// ---- Elementwise binary, SOFTMAX, TRANSPOSE ------------------------------------

// ADD SUB MUL DIV on f32 with numpy broadcasting, as oneDNN's binary
// primitive: the first source must have the output's shape and the second
// may broadcast (ADD and MUL swap their operands when only the first one
// broadcasts). IEEE f32 arithmetic, so bit-identical to the reference.
std::unique_ptr<FastOp> PrepareBinary(int32_t op, const dnnl::engine& engine, std::span<const TensorRef> ins,
                                      std::span<const TensorRef> outs) {
  if (ins.size() != 2 || outs.size() != 1) Refuse(absl::StrCat(OpTypeName(op), ": arity"));
  RequireF32(op, ins);
  RequireF32(op, outs);
  const size_t r = std::max(ins[0].shape.size(), ins[1].shape.size());
  if (r == 0) Refuse(absl::StrCat(OpTypeName(op), ": scalars"));
  auto padded = [&](const std::vector<int64_t>& s) {
    Dims d(r - s.size(), 1);
    d.insert(d.end(), s.begin(), s.end());
    return d;
  };
  Dims a = padded(ins[0].shape), b = padded(ins[1].shape), y(r);
  for (size_t i = 0; i < r; ++i) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1) Refuse(absl::StrCat(OpTypeName(op), ": shapes do not broadcast"));
    y[i] = std::max(a[i], b[i]);
  }
  RequireOutputShape(op, outs[0], std::vector<int64_t>(y.begin(), y.end()));
  int first = 0, second = 1;
  if (a != y) {
    if (b != y || (op != TSR_OP_ADD && op != TSR_OP_MUL))
      Refuse(absl::StrCat(OpTypeName(op), ": first input broadcasts"));
    std::swap(first, second);
    std::swap(a, b);
  }
  const dnnl::algorithm alg = BinaryAlgorithm(op);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::binary::primitive_desc pd(dnnl::binary::desc(alg, Plain(a), Plain(b), Plain(y)), attr, engine);
  // Some broadcast patterns (e.g. [M, N] with [M, 1]) only have oneDNN's
  // plain reference implementation, several times slower than the loop.
  if (std::string(pd.impl_info_str()).rfind("jit", 0) != 0)
    Refuse(absl::StrCat(OpTypeName(op), ": no oneDNN JIT kernel (", pd.impl_info_str(), ")"));
  auto plan = std::make_unique<PlanOp>(OpTypeName(op), engine);
  std::vector<std::pair<int, int>> args = {
      {DNNL_ARG_SRC_0, BindInput(*plan, engine, ins[first], first, Plain(a), Plain(a))},
      {DNNL_ARG_SRC_1, BindInput(*plan, engine, ins[second], second, Plain(b), Plain(b))},
      {DNNL_ARG_DST, plan->AddSlot(SlotKind::kOutput, 0, Plain(y))}};
  plan->AddScratchpad(pd.scratchpad_desc(), args);
  plan->AddStep(dnnl::binary(pd), std::move(args));
  return plan;
}

std::unique_ptr<FastOp> PrepareSoftmax(const dnnl::engine& engine, const Attributes& attrs,
                                       std::span<const TensorRef> ins, std::span<const TensorRef> outs) {
  const int32_t op = TSR_OP_SOFTMAX;
  if (ins.size() != 1 || outs.size() != 1) Refuse("SOFTMAX: arity");
  RequireF32(op, ins);
  RequireF32(op, outs);
  const TensorRef& x = ins[0];
  if (x.shape.empty() || x.data != nullptr) Refuse("SOFTMAX: rank 0 or constant input");
  RequireOutputShape(op, outs[0], x.shape);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = attrs.GetInt(TSR_ATTR_AXIS, -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) Refuse("SOFTMAX: axis");
  const memory::desc md = Plain({x.shape.begin(), x.shape.end()});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::softmax_forward::primitive_desc pd(
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, md, static_cast<int>(axis)), attr, engine);
  auto plan = std::make_unique<PlanOp>("SOFTMAX", engine);
  std::vector<std::pair<int, int>> args = {{DNNL_ARG_SRC, plan->AddSlot(SlotKind::kInput, 0, md)},
                                           {DNNL_ARG_DST, plan->AddSlot(SlotKind::kOutput, 0, md)}};
  plan->AddScratchpad(pd.scratchpad_desc(), args);
  plan->AddStep(dnnl::softmax_forward(pd), std::move(args));
  return plan;
}

}  // namespace tessera::cpu::fast::detail
