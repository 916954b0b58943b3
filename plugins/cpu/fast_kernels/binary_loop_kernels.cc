// Broadcasting binary ops as vectorized loops, for what oneDNN's binary
// primitive does not cover or only covers with its slow reference
// implementation: POW, MAXIMUM and MINIMUM (the reference propagates NaN,
// oneDNN's max/min do not), EQUAL/LESS/GREATER (bool outputs), and
// ADD/SUB/MUL/DIV when the first operand broadcasts or oneDNN has no JIT
// kernel for the broadcast pattern. Each row of the broadcast walk is one
// loop whose operands advance with stride 1 or 0, the forms the compiler
// vectorizes (checked with -fopt-info-vec: every `a op b` row loop below).
//
// Numerics: the same f32 operations as the reference kernels, so
// bit-identical, except POW, which is computed in f64 and rounded once,
// exactly as the reference does (a uniform constant exponent is a unary
// op: unary_kernels.cc).
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/elementwise_rows.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "plugins/cpu/fast_kernels/loop_op.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {
namespace {

// One row: y[i] = f(a[i * sa], b[i * sb]) with sa, sb in {0, 1}; the three
// stride patterns are spelled out so that each is a plain vectorizable loop.
template <typename T, typename F>
[[gnu::always_inline]] inline void Row(F f, const float* a, int64_t sa, const float* b, int64_t sb, T* y, int64_t n) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], b[i]);
  } else if (sa == 1) {
    const float bv = b[0];
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], bv);
  } else if (sb == 1) {
    const float av = a[0];
    for (int64_t i = 0; i < n; ++i) y[i] = f(av, b[i]);
  } else {
    const T v = f(a[0], b[0]);
    for (int64_t i = 0; i < n; ++i) y[i] = v;
  }
}

}  // namespace

TSR_VECTOR_CLONES void ArithmeticRow(int32_t op, const float* a, int64_t sa, const float* b, int64_t sb, float* y,
                                     int64_t n) {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  switch (op) {
    case TSR_OP_ADD:
      Row(
          +[](float x, float z) { return x + z; }, a, sa, b, sb, y, n);
      break;
    case TSR_OP_SUB:
      Row(
          +[](float x, float z) { return x - z; }, a, sa, b, sb, y, n);
      break;
    case TSR_OP_MUL:
      Row(
          +[](float x, float z) { return x * z; }, a, sa, b, sb, y, n);
      break;
    case TSR_OP_DIV:
      Row(
          +[](float x, float z) { return x / z; }, a, sa, b, sb, y, n);
      break;
    case TSR_OP_MAXIMUM:
      Row([qnan](float x, float z) { return (x != x || z != z) ? qnan : (x > z ? x : z); }, a, sa, b, sb, y, n);
      break;
    case TSR_OP_MINIMUM:
      Row([qnan](float x, float z) { return (x != x || z != z) ? qnan : (x < z ? x : z); }, a, sa, b, sb, y, n);
      break;
    case TSR_OP_POW:  // libm's pow does not vectorize; exact as the reference
      for (int64_t i = 0; i < n; ++i)
        y[i] = static_cast<float>(std::pow(static_cast<double>(a[i * sa]), static_cast<double>(b[i * sb])));
      break;
  }
}

namespace {

TSR_VECTOR_CLONES void CompareRow(int32_t op, const float* a, int64_t sa, const float* b, int64_t sb, uint8_t* y,
                                  int64_t n) {
  switch (op) {
    case TSR_OP_EQUAL:
      Row<uint8_t>([](float x, float z) -> uint8_t { return x == z; }, a, sa, b, sb, y, n);
      break;
    case TSR_OP_LESS:
      Row<uint8_t>([](float x, float z) -> uint8_t { return x < z; }, a, sa, b, sb, y, n);
      break;
    case TSR_OP_GREATER:
      Row<uint8_t>([](float x, float z) -> uint8_t { return x > z; }, a, sa, b, sb, y, n);
      break;
  }
}

bool IsCompare(int32_t op) { return op == TSR_OP_EQUAL || op == TSR_OP_LESS || op == TSR_OP_GREATER; }

}  // namespace

std::unique_ptr<FastOp> PrepareBinaryLoop(int32_t op, Ins ins, Outs outs) {
  if (ins.size() != 2 || outs.size() != 1) Refuse(absl::StrCat(OpTypeName(op), ": arity"));
  RequireF32(op, ins);
  if (IsCompare(op)) {
    if (outs[0].dtype != TSR_DTYPE_BOOL) Refuse(absl::StrCat(OpTypeName(op), ": output dtype"));
  } else {
    RequireF32(op, outs);
  }
  const std::vector<int64_t> shapes[2] = {ins[0].shape, ins[1].shape};
  auto walk = std::make_shared<const BroadcastWalk>(shapes);
  if (!walk->ok()) Refuse(absl::StrCat(OpTypeName(op), ": shapes do not broadcast"));
  RequireOutputShape(op, outs[0], walk->out_shape());
  const int64_t sa = walk->row_stride(0), sb = walk->row_stride(1), len = walk->row_length();
  if (IsCompare(op)) {
    return std::make_unique<LoopOp>(OpTypeName(op), 2, 1, [=](auto in, auto out) {
      const auto* a = static_cast<const float*>(in[0]);
      const auto* b = static_cast<const float*>(in[1]);
      auto* y = static_cast<uint8_t*>(out[0]);
      walk->ForEachRow(
          [&](int64_t o, const int64_t* off) { CompareRow(op, a + off[0], sa, b + off[1], sb, y + o, len); });
      return absl::OkStatus();
    });
  }
  return std::make_unique<LoopOp>(OpTypeName(op), 2, 1, [=](auto in, auto out) {
    const auto* a = static_cast<const float*>(in[0]);
    const auto* b = static_cast<const float*>(in[1]);
    auto* y = static_cast<float*>(out[0]);
    walk->ForEachRow(
        [&](int64_t o, const int64_t* off) { ArithmeticRow(op, a + off[0], sa, b + off[1], sb, y + o, len); });
    return absl::OkStatus();
  });
}

}  // namespace tessera::cpu::fast::detail
