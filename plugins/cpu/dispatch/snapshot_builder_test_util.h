// Test helpers for the cpu program's load-time fusions: a builder of
// graph snapshots (f32 tensors, constants, ops), and running a loaded
// program on one input.
#ifndef TESSERA_PLUGINS_CPU_DISPATCH_SNAPSHOT_BUILDER_TEST_UTIL_H_
#define TESSERA_PLUGINS_CPU_DISPATCH_SNAPSHOT_BUILDER_TEST_UTIL_H_

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "plugins/cpu/dispatch/cpu_program.h"
#include "plugins/kit/graph_snapshot.h"
#include "tessera/ops.h"

namespace tessera::cpu::testing {

// A graph builder for snapshots: f32 tensors of one shape by default.
class Builder {
 public:
  int32_t Tensor(std::vector<int64_t> shape) {
    g_.tensors.push_back({.name = "t" + std::to_string(g_.tensors.size()), .dtype = TSR_DTYPE_F32, .shape = shape});
    return static_cast<int32_t>(g_.tensors.size() - 1);
  }
  int32_t Constant(std::vector<int64_t> shape, std::vector<float> values) {
    const int32_t t = Tensor(std::move(shape));
    auto bytes = std::make_shared<std::vector<uint8_t>>(values.size() * 4);
    std::memcpy(bytes->data(), values.data(), bytes->size());
    g_.tensors[t].is_constant = true;
    g_.tensors[t].owned = bytes;
    g_.tensors[t].constant = *bytes;
    return t;
  }
  int32_t Scalar(float v) { return Constant({}, {v}); }
  int32_t Op(int32_t type, std::vector<int32_t> inputs, std::vector<int64_t> out_shape,
             std::map<int32_t, kit::SnapshotAttr> attrs = {}) {
    const int32_t out = Tensor(std::move(out_shape));
    g_.ops.push_back({.type = type, .id = static_cast<uint32_t>(g_.ops.size() + 1), .inputs = std::move(inputs),
                      .outputs = {out}, .attrs = std::move(attrs)});
    return out;
  }
  kit::GraphSnapshot& graph() { return g_; }

 private:
  kit::GraphSnapshot g_;
};

inline std::map<int32_t, kit::SnapshotAttr> Clip(float lo, float hi) {
  std::map<int32_t, kit::SnapshotAttr> a;
  a[TSR_ATTR_CLIP_MIN].floats = {lo};
  a[TSR_ATTR_CLIP_MAX].floats = {hi};
  return a;
}

inline std::vector<float> Random(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// Runs the program on x; every output, of the given element counts.
inline std::vector<std::vector<float>> RunProgramOutputs(const CpuProgram& p, const std::vector<float>& x,
                                                         const std::vector<size_t>& out_elements) {
  CpuRunState state;
  std::vector<std::vector<float>> ys;
  std::vector<void*> out;
  for (size_t n : out_elements) ys.emplace_back(n, NAN);
  for (std::vector<float>& y : ys) out.push_back(y.data());
  void* in[] = {const_cast<float*>(x.data())};
  const absl::Status s = RunCpuProgram(p, state, in, out);
  EXPECT_TRUE(s.ok()) << s;
  return ys;
}

// Runs the program on x, returns output 0.
inline std::vector<float> RunProgram(const CpuProgram& p, const std::vector<float>& x, size_t out_elements) {
  return RunProgramOutputs(p, x, {out_elements})[0];
}

}  // namespace tessera::cpu::testing

#endif  // TESSERA_PLUGINS_CPU_DISPATCH_SNAPSHOT_BUILDER_TEST_UTIL_H_
