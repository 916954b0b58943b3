// Helpers of the fast-kernel tests: random tensors, and the check of a
// fast kernel against the reference kernel within the documented bound
// (fast_kernels.h: kFastRelTolerance · (the op on |inputs|) +
// kFastAbsTolerance).
#ifndef TESSERA_PLUGINS_CPU_FAST_KERNELS_FAST_TEST_UTIL_H_
#define TESSERA_PLUGINS_CPU_FAST_KERNELS_FAST_TEST_UTIL_H_

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "plugins/cpu/fast_kernels/fast_kernels.h"
#include "support/reference_kernels/test_util.h"

namespace tessera::cpu::fast {

inline std::unique_ptr<FastEngine> Engine() {
  auto e = FastEngine::Create(1);
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? *std::move(e) : nullptr;
}

inline kt::Tensor RandomF32(std::mt19937& rng, std::vector<int64_t> shape) {
  kt::Tensor t = kt::Empty(TSR_DTYPE_F32, std::move(shape));
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  auto* p = static_cast<float*>(t.ref.data);
  for (int64_t i = 0; i < t.ref.element_count(); ++i) p[i] = u(rng);
  return t;
}

inline kt::Tensor Abs(const kt::Tensor& t) {
  kt::Tensor a = kt::Empty(t.ref.dtype, t.ref.shape);
  if (t.ref.dtype != TSR_DTYPE_F32) {  // e.g. a bool condition: unchanged
    std::memcpy(a.ref.data, t.ref.data, t.ref.byte_size());
    return a;
  }
  const auto* s = static_cast<const float*>(t.ref.data);
  auto* d = static_cast<float*>(a.ref.data);
  for (int64_t i = 0; i < t.ref.element_count(); ++i) d[i] = std::fabs(s[i]);
  return a;
}

struct Case {
  int32_t op = 0;
  Attributes attrs;
  std::vector<kt::Tensor> inputs;
  std::vector<bool> constant;  // per input
  std::vector<int64_t> out_shape;
  std::string label;
};

// Runs the case through the reference kernel and the fast kernel and checks
// every element against the documented bound, or a tighter one a kernel
// derives (rel_tolerance · the op on |inputs| + abs_tolerance).
inline void ExpectMatchesReference(const FastEngine& engine, const Case& c, double rel_tolerance = kFastRelTolerance,
                                   double abs_tolerance = kFastAbsTolerance) {
  SCOPED_TRACE(c.label);
  std::vector<TensorRef> ins;
  for (const kt::Tensor& t : c.inputs) ins.push_back(t.ref);
  kt::Tensor ref = kt::Empty(TSR_DTYPE_F32, c.out_shape);
  ASSERT_TRUE(kt::RunOp(c.op, c.attrs, ins, ref).ok()) << kt::RunOp(c.op, c.attrs, ins, ref);

  // Magnitude of the accumulated terms: the same op on |inputs|, no activation.
  Attributes plain;
  for (const auto& [key, value] : c.attrs.all()) {
    if (key == TSR_ATTR_ACTIVATION || key == TSR_ATTR_CLIP_MIN || key == TSR_ATTR_CLIP_MAX) continue;
    if (!value.ints.empty()) plain.SetInts(key, value.ints);
    if (!value.floats.empty()) plain.SetFloats(key, value.floats);
  }
  std::vector<kt::Tensor> abs_inputs;
  std::vector<TensorRef> abs_refs;
  for (const kt::Tensor& t : c.inputs) abs_inputs.push_back(Abs(t));
  for (const kt::Tensor& t : abs_inputs) abs_refs.push_back(t.ref);
  kt::Tensor bound = kt::Empty(TSR_DTYPE_F32, c.out_shape);
  ASSERT_TRUE(kt::RunOp(c.op, plain, abs_refs, bound).ok());

  // What Prepare sees: constants with data, the rest type-only.
  std::vector<TensorRef> typed = ins;
  for (size_t i = 0; i < typed.size(); ++i)
    if (!c.constant[i]) typed[i].data = nullptr;
  std::vector<TensorRef> outs = {ref.ref};
  outs[0].data = nullptr;
  std::string why;
  std::unique_ptr<FastOp> op = engine.Prepare(c.op, c.attrs, typed, outs, &why);
  ASSERT_NE(op, nullptr) << why;
  auto state = op->NewState();
  ASSERT_TRUE(state.ok()) << state.status();

  kt::Tensor got = kt::Empty(TSR_DTYPE_F32, c.out_shape);
  std::vector<void*> in_ptrs;
  for (const kt::Tensor& t : c.inputs) in_ptrs.push_back(t.ref.data);
  std::vector<void*> out_ptrs = {got.ref.data};
  // Twice: the second run reuses the state (scratch, memories).
  ScopedThreads threads(1);
  for (int run = 0; run < 2; ++run) {
    std::memset(got.ref.data, 0xff, got.ref.byte_size());
    absl::Status s = op->Run(**state, in_ptrs, out_ptrs);
    ASSERT_TRUE(s.ok()) << s;
    const auto* r = static_cast<const float*>(ref.ref.data);
    const auto* g = static_cast<const float*>(got.ref.data);
    const auto* b = static_cast<const float*>(bound.ref.data);
    int reported = 0;
    for (int64_t i = 0; i < ref.ref.element_count(); ++i) {
      const double tol = rel_tolerance * std::fabs(b[i]) + abs_tolerance;
      if (!(std::fabs(static_cast<double>(g[i]) - r[i]) <= tol) && reported++ < 5)
        ADD_FAILURE() << "element " << i << ": fast " << g[i] << " reference " << r[i] << " tolerance " << tol;
    }
    ASSERT_EQ(reported, 0);
  }
}

// The fast kernel alone (no reference): input 0 arrives at run time, the
// others are constants given to Prepare; the output, or empty after a
// failure (reported).
inline std::vector<float> RunFastOnly(const FastEngine& engine, int32_t op_type, const Attributes& attrs,
                                      std::vector<TensorRef> ins, std::vector<int64_t> out_shape) {
  kt::Tensor y = kt::Empty(TSR_DTYPE_F32, std::move(out_shape));
  std::vector<TensorRef> typed = ins;
  typed[0].data = nullptr;
  TensorRef typed_y = y.ref;
  typed_y.data = nullptr;
  std::string why;
  std::unique_ptr<FastOp> op = engine.Prepare(op_type, attrs, typed, {&typed_y, 1}, &why);
  EXPECT_NE(op, nullptr) << why;
  if (op == nullptr) return {};
  auto state = op->NewState();
  EXPECT_TRUE(state.ok());
  if (!state.ok()) return {};
  std::vector<void*> in_ptrs(ins.size(), nullptr);
  in_ptrs[0] = ins[0].data;
  void* out[] = {y.ref.data};
  const absl::Status s = op->Run(**state, in_ptrs, out);
  EXPECT_TRUE(s.ok()) << s;
  const auto* p = static_cast<const float*>(y.ref.data);
  return {p, p + y.ref.element_count()};
}

}  // namespace tessera::cpu::fast

#endif  // TESSERA_PLUGINS_CPU_FAST_KERNELS_FAST_TEST_UTIL_H_
