// Test helper: builds kit::GraphSnapshot partitions by hand.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_GRAPH_BUILDER_TEST_UTIL_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_GRAPH_BUILDER_TEST_UTIL_H_

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "plugins/kit/graph_snapshot.h"
#include "tessera/ops.h"

namespace tessera::systolic::snpu_test {

struct GraphBuilder {
  kit::GraphSnapshot g;

  int32_t Tensor(const std::string& name, int32_t dtype, std::vector<int64_t> shape,
                 kit::SnapshotQuant q = {}) {
    kit::SnapshotTensor t;
    t.name = name;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.quant = std::move(q);
    g.tensors.push_back(std::move(t));
    return static_cast<int32_t>(g.tensors.size() - 1);
  }
  int32_t Const(const std::string& name, int32_t dtype, std::vector<int64_t> shape,
                std::vector<uint8_t> bytes, kit::SnapshotQuant q = {}) {
    const int32_t t = Tensor(name, dtype, std::move(shape), std::move(q));
    auto owned = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
    g.tensors[t].is_constant = true;
    g.tensors[t].constant = std::span<const uint8_t>(owned->data(), owned->size());
    g.tensors[t].owned = owned;
    return t;
  }
  int32_t Input(const std::string& name, int32_t dtype, std::vector<int64_t> shape,
                kit::SnapshotQuant q = {}) {
    const int32_t t = Tensor(name, dtype, std::move(shape), std::move(q));
    g.inputs.push_back(t);
    return t;
  }
  void Output(int32_t t) { g.outputs.push_back(t); }
  kit::SnapshotOp& Op(int32_t type, std::vector<int32_t> ins, std::vector<int32_t> outs) {
    kit::SnapshotOp op;
    op.type = type;
    op.id = static_cast<uint32_t>(g.ops.size() + 100);
    op.inputs = std::move(ins);
    op.outputs = std::move(outs);
    g.ops.push_back(std::move(op));
    return g.ops.back();
  }
};

template <typename T>
std::vector<uint8_t> AsBytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

}  // namespace tessera::systolic::snpu_test

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_GRAPH_BUILDER_TEST_UTIL_H_
