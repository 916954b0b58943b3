// Test helpers: build ONNX models in code, and run an imported Graph op by
// op with the cpu reference kernels (through the constant folder).
#ifndef TESSERA_TESTING_ONNX_TEST_UTIL_H_
#define TESSERA_TESTING_ONNX_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include <onnx.pb.h>
#include "absl/status/statusor.h"
#include "framework/core/graph/graph.h"
#include "framework/core/graph/host_tensor.h"

namespace tessera::onnx_import::testing {

class OnnxModelBuilder {
 public:
  explicit OnnxModelBuilder(int64_t opset = 13);
  // dims: -1 = a symbolic dimension named "N".
  void Input(const std::string& name, int32_t elem_type, const std::vector<int64_t>& dims);
  void Output(const std::string& name);
  void FloatInit(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& values);
  void Int64Init(const std::string& name, const std::vector<int64_t>& dims, const std::vector<int64_t>& values);
  onnx::NodeProto& Node(const std::string& op_type, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "");
  std::vector<uint8_t> Bytes() const;
  onnx::ModelProto& model() { return model_; }
  const onnx::ModelProto& model() const { return model_; }

 private:
  onnx::ModelProto model_;
};

void AttrInt(onnx::NodeProto& n, const std::string& name, int64_t v);
void AttrInts(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v);
void AttrFloat(onnx::NodeProto& n, const std::string& name, float v);
void AttrString(onnx::NodeProto& n, const std::string& name, const std::string& v);
// A subgraph attribute (an If branch, a Loop body) holding body's graph.
void AttrGraph(onnx::NodeProto& n, const std::string& name, const OnnxModelBuilder& body);

// The diagnostics' model: two ops of unsupported domains (the
// custom com.example::Frobnicate, nodes frob1 and frob2; ai.onnx.ml::Normalizer,
// node norm), a dynamic input x [N,4], a BatchNormalization "bn" with
// training_mode=1 (refused by its converter), and an Add "uses_frob" fed by
// the custom ops. Opset 15.
std::vector<uint8_t> FourProblemModel();

HostTensor FloatTensor(const std::vector<int64_t>& shape, const std::vector<float>& values);
std::vector<float> Floats(const HostTensor& t);

// Runs every op of `graph` (no DISPATCH ops) with the reference kernels.
absl::StatusOr<std::vector<HostTensor>> RunReference(const Graph& graph, const std::vector<HostTensor>& inputs);

// RunReference's first output as floats; a failed run records a test
// failure and returns nothing.
std::vector<float> FirstOutputFloats(const Graph& graph, const std::vector<HostTensor>& inputs);

// f32 values in [-2, 2) from a fixed linear congruential sequence.
HostTensor SeededFloats(const std::vector<int64_t>& shape, uint32_t seed);

// Runs `a` and `b` on `inputs` with the reference kernels and returns the
// largest |a - b| / (1 + |b|) over all f32 outputs (outputs must match in
// count, dtype and shape).
absl::StatusOr<double> MaxRelativeDifference(const Graph& a, const Graph& b, const std::vector<HostTensor>& inputs);

// The op types of `g`, in order.
std::vector<int32_t> OpTypes(const Graph& g);

}  // namespace tessera::onnx_import::testing

#endif  // TESSERA_TESTING_ONNX_TEST_UTIL_H_
