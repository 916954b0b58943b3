// A sample app in C++: load an ONNX model, pick accelerators, compile, print
// the partition report, run (Run, then RunInto on kept output tensors), and
// check the result by hand.
//
//   matmul_cpp MODEL.onnx [ACCELERATORS [POLICY [PRECISION]]]
//   e.g. ... test_matmul_2d/model.onnx npu,cpu greedy allow-fp16
//
// The model is ONNX's test_matmul_2d (Y = A·B, A 3x4, B 4x3); the sample
// computes A·B itself and compares. Uses only the public header.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tessera/app/tessera_app.hpp"

namespace app = tessera::app;

int Fail(const app::Status& s) {
  std::fprintf(stderr, "error %d: %s\n", static_cast<int>(s.code()), s.message().c_str());
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.onnx [ACCELERATORS [POLICY [PRECISION]]]\n", argv[0]);
    return 2;
  }
  app::Result<app::Environment> env = app::Environment::Create({});
  if (!env.ok()) return Fail(env.status());
  app::Result<app::Model> model = app::Model::Load(argv[1]);
  if (!model.ok()) return Fail(model.status());

  // Inputs: A and B, filled with small values.
  std::vector<app::Tensor> inputs;
  for (const app::TensorInfo& info : model->inputs()) {
    if (info.dtype != TSR_DTYPE_F32 || info.shape.size() != 2) {
      std::fprintf(stderr, "this sample wants two 2-D f32 inputs; '%s' is not one\n", info.name.c_str());
      return 1;
    }
    app::Tensor t = app::Tensor::Allocate(info);
    float* v = t.as<float>();
    for (size_t i = 0; i < info.byte_size() / sizeof(float); ++i) v[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.25f;
    inputs.push_back(std::move(t));
  }
  if (inputs.size() != 2) return Fail(app::Status(TSR_INVALID_ARGUMENT, "the model must take A and B"));

  app::CompileOptions options;
  if (argc > 2) {
    std::string list = argv[2];
    for (size_t start = 0, comma; start <= list.size(); start = comma + 1) {
      comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      if (comma > start) options.accelerators.push_back(list.substr(start, comma - start));
    }
  }
  // "cost" (the default) keeps the NPU only where the SoC's cost model says
  // it pays; "greedy" gives it every op it claims.
  if (argc > 3) options.policy = argv[3];
  // "fp32" (the default) keeps FP32 accuracy: the NPU, which multiplies in
  // FP16, gets no float matmul. "allow-fp16" lets it, where the ranges the
  // app's own inputs reach are proven to fit FP16 (docs/partitioning.md).
  if (argc > 4) {
    options.precision = argv[4];
    options.range_samples = {inputs};
  }
  app::Result<app::CompiledModel> compiled = app::CompiledModel::Compile(*env, *model, options);
  if (!compiled.ok()) return Fail(compiled.status());

  const app::PartitionReport& report = compiled->partition_report();
  std::printf("%zu ops in %zu partition(s), %zu cut(s):\n", report.op_count, report.partitions.size(),
              report.cuts.size());
  for (const app::PartitionReport::Partition& p : report.partitions) {
    std::printf("  %s:", p.vendor.c_str());
    for (const std::string& type : p.op_types) std::printf(" %s", type.c_str());
    std::printf("\n");
  }


  app::Result<app::RunContext> context = app::RunContext::Create(*compiled);
  if (!context.ok()) return Fail(context.status());
  app::Result<std::vector<app::Tensor>> outputs = context->Run(inputs);
  if (!outputs.ok()) return Fail(outputs.status());

  std::vector<app::Tensor> kept;  // made once: every later RunInto reuses it, with the same inputs
  for (const app::TensorInfo& info : compiled->outputs()) kept.push_back(app::Tensor::Allocate(info));
  app::Status into = context->RunInto(inputs, kept);
  if (!into.ok()) return Fail(into);

  std::vector<app::Tensor> later;  // the run shares their ownership until it ends
  for (const app::TensorInfo& info : compiled->outputs()) later.push_back(app::Tensor::Allocate(info));
  app::Status started = context->RunAsync(inputs, later);
  if (!started.ok()) return Fail(started);
  // ... the app does other work here ...
  app::Status finished = context->Wait();
  if (!finished.ok()) return Fail(finished);

  // Bound buffers (docs/app-guide.md): A is the "frame", B stays bound too.
  void* frame_memory = inputs[0].data();
  const size_t frame_bytes = inputs[0].size();
  std::vector<float> result(compiled->outputs()[0].byte_size() / sizeof(float));
  void* result_memory = result.data();
  const size_t result_bytes = compiled->outputs()[0].byte_size();
  app::Result<app::BindingMode> b_bound =
      context->Bind(app::IoKind::kInput, 1, {TSR_BUFFER_TYPE_HOST, inputs[1].data(), -1, 0, inputs[1].size()});
  if (!b_bound.ok()) return Fail(b_bound.status());
  app::AppBuffer frame{TSR_BUFFER_TYPE_HOST, frame_memory, -1, 0, frame_bytes};
  app::Result<app::BindingMode> in = context->Bind(app::IoKind::kInput, 0, frame);
  app::Result<app::BindingMode> out = context->Bind(app::IoKind::kOutput, 0, {TSR_BUFFER_TYPE_HOST, result_memory, -1, 0, result_bytes});
  if (!in.ok() || !out.ok()) return Fail(!in.ok() ? in.status() : out.status());
  app::Status ran = context->RunBound();  // per frame; Bind again to swap buffers
  if (!ran.ok()) return Fail(ran);

  // Check Y = A·B by hand. An FP16 accelerator (the reference NPU) is within
  // 1e-2 relative here; the cpu is exact to float rounding.
  const int64_t m = inputs[0].info().shape[0], k = inputs[0].info().shape[1], n = inputs[1].info().shape[1];
  const float* a = inputs[0].as<float>();
  const float* b = inputs[1].as<float>();
  const float* y = (*outputs)[0].as<float>();
  int wrong = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t p = 0; p < k; ++p) want += static_cast<double>(a[i * k + p]) * b[p * n + j];
      if (std::fabs(y[i * n + j] - want) > 1e-2 * std::fabs(want) + 1e-3) ++wrong;
    }
  // RunInto's outputs are Run's, byte for byte.
  if (std::memcmp(y, kept[0].data(), kept[0].size()) != 0) ++wrong;
  // And so are RunAsync's.
  if (std::memcmp(y, later[0].data(), later[0].size()) != 0) ++wrong;
  // And RunBound's.
  if (std::memcmp(y, result.data(), result_bytes) != 0) ++wrong;
  std::printf("Y[0][0] = %g; %s\n", y[0], wrong == 0 ? "all outputs match A·B" : "MISMATCH");
  return wrong == 0 ? 0 : 1;
}
