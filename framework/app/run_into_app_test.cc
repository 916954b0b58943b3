// The app API's run on the caller's buffers: RunContext::RunInto (C++) and
// tsr_app_run_sized (C) both go through the runtime's RunContext::RunInto. On a
// model whose steps are all on the NPU, a steady-state run through either
// allocates nothing; both give what Run gives; and wrong
// tensors, counts and NULL buffers are refused with messages that name
// what is wrong. Bound buffers (Bind/RunBound, tsr_app_run_context_bind/
// tsr_app_run_bound) are used in place on the same model, with no copy and
// no allocation per run.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "framework/core/graph/host_tensor.h"
#include "framework/core/io/tensor_proto.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/app/tessera_app.h"
#include "tessera/app/tessera_app.hpp"
#include "testing/allocation_counter.h"
#include "testing/fc_add_model_for_test.h"

namespace tessera::app {
namespace {

using ::testing::HasSubstr;

std::string BuildDir() {
  const char* dir = std::getenv("TESSERA_BUILD_DIR");
  return dir ? dir : ".";
}

// testing/fc_add_model_for_test.h's model as .tsr bytes: both ops go to
// the NPU under the greedy policy with FP16 allowed.
std::vector<uint8_t> ModelBytes() {
  absl::StatusOr<std::vector<uint8_t>> bytes = tessera::SerializeModel(tessera::FcAddModelForTest("run_into_app"));
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *std::move(bytes) : std::vector<uint8_t>{};
}

// A calibration directory holding FcAddInputForTest as input_0.pb: under
// precision allow-fp16 it proves the ranges of the FP16 FULLY_CONNECTED.
// Made once, removed at exit. The name is never destroyed: the atexit
// handler runs after static destructors registered later (the string's own
// would be), and must still read it.
const std::string& CalibrationDir() {
  static const std::string* const dir = [] {
    char path[] = "/tmp/tessera_run_into_calibration_XXXXXX";
    const std::string* made = new std::string(::mkdtemp(path) != nullptr ? path : "");
    const std::vector<float> x = tessera::FcAddInputForTest();
    tessera::HostTensor t{"x", TSR_DTYPE_F32, {4, 16}, std::vector<uint8_t>(x.size() * sizeof(float))};
    std::memcpy(t.data.data(), x.data(), t.data.size());
    EXPECT_TRUE(tessera::WriteTensorSet({t}, *made, "input").ok());
    std::atexit([] { std::filesystem::remove_all(CalibrationDir()); });
    return made;
  }();
  return *dir;
}

// The model compiled and ready to run through the C API alone.
struct CApiRun {
  tsr_app_environment env = nullptr;
  tsr_app_model model = nullptr;
  tsr_app_compiled_model compiled = nullptr;
  tsr_app_run_context context = nullptr;

  void Open() {
    const std::vector<uint8_t> bytes = ModelBytes();
    const std::string plugins = BuildDir() + "/lib", socs = BuildDir() + "/share/tessera/socs";
    tsr_app_environment_options env_options{};
    env_options.struct_size = sizeof(env_options);
    env_options.bundled_plugin_directory = plugins.c_str();
    env_options.soc_directory = socs.c_str();
    env_options.log_level = TSR_LOG_ERROR;
    tsr_app_compile_options compile_options{};
    compile_options.struct_size = sizeof(compile_options);
    compile_options.accelerators = "npu";
    compile_options.policy = "greedy";
    compile_options.precision = "allow-fp16";  // the NPU computes the FC in FP16
    compile_options.calibration_dir = CalibrationDir().c_str();
    ASSERT_EQ(tsr_app_environment_create(&env_options, &env), TSR_OK) << tsr_app_last_error();
    ASSERT_EQ(tsr_app_model_from_memory(bytes.data(), bytes.size(), nullptr, &model), TSR_OK) << tsr_app_last_error();
    ASSERT_EQ(tsr_app_compile(env, model, &compile_options, &compiled), TSR_OK) << tsr_app_last_error();
    ASSERT_EQ(tsr_app_run_context_create(compiled, &context), TSR_OK) << tsr_app_last_error();
  }
  ~CApiRun() {
    tsr_app_run_context_destroy(context);
    tsr_app_compiled_model_destroy(compiled);
    tsr_app_model_destroy(model);
    tsr_app_environment_destroy(env);
  }
};

class AppRunInto : public ::testing::Test {
 protected:
  void SetUp() override {
    EnvironmentOptions o;
    o.read_environment = false;
    o.bundled_plugin_directory = BuildDir() + "/lib";
    o.soc_directory = BuildDir() + "/share/tessera/socs";
    Result<Environment> env = Environment::Create(o);
    ASSERT_TRUE(env.ok()) << env.status().message();
    const std::vector<uint8_t> bytes = ModelBytes();
    Result<Model> model = Model::FromMemory(bytes.data(), bytes.size());
    ASSERT_TRUE(model.ok()) << model.status().message();
    CompileOptions options;
    options.accelerators = {"npu"};
    options.policy = "greedy";
    options.precision = "allow-fp16";  // the NPU computes the FC in FP16
    options.calibration_dir = CalibrationDir();
    Result<CompiledModel> compiled = CompiledModel::Compile(*env, *model, options);
    ASSERT_TRUE(compiled.ok()) << compiled.status().message();
    for (const PartitionReport::Partition& p : compiled->partition_report().partitions)
      ASSERT_EQ(p.vendor, "systolic_npu") << "every step must be on the NPU for these tests to mean anything";
    Result<RunContext> context = RunContext::Create(*compiled);
    ASSERT_TRUE(context.ok()) << context.status().message();
    compiled_.emplace(*std::move(compiled));
    context_.emplace(*std::move(context));
    input_ = Tensor::Allocate(compiled_->inputs()[0]);
    const std::vector<float> x = tessera::FcAddInputForTest();
    std::memcpy(input_.data(), x.data(), x.size() * sizeof(float));
  }

  std::optional<CompiledModel> compiled_;
  std::optional<RunContext> context_;
  Tensor input_ = Tensor::Allocate({});
};

TEST_F(AppRunInto, GivesWhatRunGives) {
  Result<std::vector<Tensor>> run = context_->Run({input_});
  ASSERT_TRUE(run.ok()) << run.status().message();
  std::vector<Tensor> outputs = {Tensor::Allocate(compiled_->outputs()[0])};
  ASSERT_TRUE(context_->RunInto({input_}, outputs).ok());
  ASSERT_EQ(outputs[0].size(), (*run)[0].size());
  EXPECT_EQ(std::memcmp(outputs[0].data(), (*run)[0].data(), outputs[0].size()), 0);
}

TEST_F(AppRunInto, ASteadyStateRunAllocatesNothingInCppOrC) {
  if (!kCountsAllocations) GTEST_SKIP() << "the sanitizers replace operator new";
  const std::vector<Tensor> inputs = {input_};
  std::vector<Tensor> outputs = {Tensor::Allocate(compiled_->outputs()[0])};
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(context_->RunInto(inputs, outputs).ok());
  EXPECT_EQ(AllocationsInRuns(20, [&] { return context_->RunInto(inputs, outputs).ok(); }), 0)
      << "operator new calls in 20 steady-state RunContext::RunInto calls";

  // The C API over the same model, through the public header only.
  CApiRun c;
  ASSERT_NO_FATAL_FAILURE(c.Open());
  std::vector<float> y(64);
  const void* in[1] = {input_.data()};
  void* out[1] = {y.data()};
  const size_t in_size[1] = {input_.size()}, out_size[1] = {y.size() * sizeof(float)};
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(tsr_app_run_sized(c.context, in, in_size, 1, out, out_size, 1), TSR_OK) << tsr_app_last_error();
  EXPECT_EQ(
      AllocationsInRuns(20, [&] { return tsr_app_run_sized(c.context, in, in_size, 1, out, out_size, 1) == TSR_OK; }),
      0)
      << "operator new calls in 20 steady-state tsr_app_run_sized calls";
  EXPECT_EQ(std::memcmp(y.data(), outputs[0].data(), y.size() * sizeof(float)), 0);
}

TEST_F(AppRunInto, TheCApiRefusesWrongCountsAndNullBuffers) {
  CApiRun c;
  ASSERT_NO_FATAL_FAILURE(c.Open());
  std::vector<float> y(64);
  const void* in[1] = {input_.data()};
  void* out[1] = {y.data()};
  const size_t in_size[1] = {input_.size()}, out_size[1] = {y.size() * sizeof(float)};
  EXPECT_EQ(tsr_app_run_sized(c.context, in, in_size, 2, out, out_size, 1), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(),
              HasSubstr("tsr_app_run_sized: the model takes 1 inputs and gives 1 outputs, got 2 and 1"));
  const void* no_input[1] = {nullptr};
  EXPECT_EQ(tsr_app_run_sized(c.context, no_input, in_size, 1, out, out_size, 1), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("tsr_app_run_sized: input 0 is NULL"));
  void* no_output[1] = {nullptr};
  EXPECT_EQ(tsr_app_run_sized(c.context, in, in_size, 1, no_output, out_size, 1), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("tsr_app_run_sized: output 0 is NULL"));
  EXPECT_EQ(tsr_app_run_sized(c.context, in, in_size, 1, out, out_size, 1), TSR_OK) << tsr_app_last_error();
}

TEST_F(AppRunInto, WrongTensorsAreRefusedByName) {
  std::vector<Tensor> outputs = {Tensor::Allocate(compiled_->outputs()[0])};
  Status s = context_->RunInto({}, outputs);
  EXPECT_EQ(s.code(), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(s.message(), HasSubstr("the model takes 1 inputs and gives 1 outputs, got 0 and 1"));
  s = context_->RunInto({Tensor::Allocate({"x", TSR_DTYPE_F32, {4, 15}})}, outputs);
  EXPECT_THAT(s.message(),
              HasSubstr("input 0 ('x') must be f32 of shape [4,16] (256 bytes); got f32 [4,15] (240 bytes)"));
  std::vector<Tensor> wrong_output = {Tensor::Allocate({"out", TSR_DTYPE_I32, {4, 16}})};
  s = context_->RunInto({input_}, wrong_output);
  EXPECT_THAT(s.message(), HasSubstr("output 0 ('out') must be f32 of shape [4,16] (256 bytes); got i32 [4,16]"));
}

// 64-byte aligned host memory, as the NPU's steps ask for.
struct AlignedFloats {
  explicit AlignedFloats(size_t n)
      : p(static_cast<float*>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64))) {}
  ~AlignedFloats() { std::free(p); }
  float* p;
};

TEST_F(AppRunInto, BoundBuffersRunInPlaceWithNoCopyAndNoAllocation) {
  Result<std::vector<Tensor>> run = context_->Run({input_});
  ASSERT_TRUE(run.ok()) << run.status().message();
  AlignedFloats x(64), y(64);
  std::memcpy(x.p, input_.data(), 64 * sizeof(float));
  Result<BindingMode> in = context_->Bind(IoKind::kInput, 0, {TSR_BUFFER_TYPE_HOST, x.p, -1, 0, 64 * sizeof(float)});
  Result<BindingMode> out = context_->Bind(IoKind::kOutput, 0, {TSR_BUFFER_TYPE_HOST, y.p, -1, 0, 64 * sizeof(float)});
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*in, BindingMode::kZeroCopy);
  EXPECT_EQ(*out, BindingMode::kZeroCopy);
  RunProfile profile;
  ASSERT_TRUE(context_->RunBound(&profile).ok());
  EXPECT_EQ(profile.io_copy_bytes, 0u);
  EXPECT_EQ(std::memcmp(y.p, (*run)[0].data(), 64 * sizeof(float)), 0);
  // Run and RunInto would write into the bound memory: refused.
  EXPECT_THAT(context_->Run({input_}).status().message(), HasSubstr("RunBound"));
  if (kCountsAllocations)
    EXPECT_EQ(AllocationsInRuns(20, [&] { return context_->RunBound().ok(); }), 0)
        << "operator new calls in 20 steady-state RunBound calls";
  ASSERT_TRUE(context_->Unbind(IoKind::kInput, 0).ok());
  ASSERT_TRUE(context_->Unbind(IoKind::kOutput, 0).ok());
  EXPECT_TRUE(context_->Run({input_}).ok());
}

TEST_F(AppRunInto, TheCApiBindsSwapsAndUnbinds) {
  CApiRun c;
  ASSERT_NO_FATAL_FAILURE(c.Open());
  std::vector<float> want(64);
  const void* in[1] = {input_.data()};
  void* out[1] = {want.data()};
  const size_t in_size[1] = {input_.size()}, out_size[1] = {want.size() * sizeof(float)};
  ASSERT_EQ(tsr_app_run_sized(c.context, in, in_size, 1, out, out_size, 1), TSR_OK) << tsr_app_last_error();
  AlignedFloats x(64), y(64);
  std::memcpy(x.p, input_.data(), 64 * sizeof(float));
  tsr_app_buffer b{};
  b.struct_size = sizeof(b);
  b.buffer_type = TSR_BUFFER_TYPE_HOST;
  b.fd = -1;
  b.size_bytes = 64 * sizeof(float);
  b.host_address = x.p;
  int32_t mode = -1;
  ASSERT_EQ(tsr_app_run_context_bind(c.context, TSR_APP_IO_INPUT, 0, &b, &mode), TSR_OK) << tsr_app_last_error();
  EXPECT_EQ(mode, TSR_APP_BINDING_ZERO_COPY);
  EXPECT_EQ(tsr_app_run_bound(c.context), TSR_FAILED_PRECONDITION);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("output 0 ('out') is not bound"));
  b.host_address = y.p;
  ASSERT_EQ(tsr_app_run_context_bind(c.context, TSR_APP_IO_OUTPUT, 0, &b, &mode), TSR_OK) << tsr_app_last_error();
  ASSERT_EQ(tsr_app_run_bound(c.context), TSR_OK) << tsr_app_last_error();
  EXPECT_EQ(std::memcmp(y.p, want.data(), want.size() * sizeof(float)), 0);
  EXPECT_EQ(tsr_app_run_sized(c.context, in, in_size, 1, out, out_size, 1), TSR_FAILED_PRECONDITION);
  // The same buffer 4 bytes in: misaligned for the NPU, so copied.
  std::vector<float> unaligned(65);
  float* shifted = reinterpret_cast<uintptr_t>(unaligned.data()) % 64 == 0 ? unaligned.data() + 1 : unaligned.data();
  std::memcpy(shifted, input_.data(), 64 * sizeof(float));
  b.host_address = shifted;
  ASSERT_EQ(tsr_app_run_context_bind(c.context, TSR_APP_IO_INPUT, 0, &b, &mode), TSR_OK) << tsr_app_last_error();
  if (reinterpret_cast<uintptr_t>(shifted) % 64 != 0) EXPECT_EQ(mode, TSR_APP_BINDING_COPIED);
  std::memset(y.p, 0, 64 * sizeof(float));
  ASSERT_EQ(tsr_app_run_bound(c.context), TSR_OK) << tsr_app_last_error();
  EXPECT_EQ(std::memcmp(y.p, want.data(), want.size() * sizeof(float)), 0);
  // Refusals, then unbinding with NULL.
  EXPECT_EQ(tsr_app_run_context_bind(c.context, 5, 0, &b, &mode), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("io_kind 5"));
  tsr_app_buffer small = b;
  small.struct_size = 8;
  EXPECT_EQ(tsr_app_run_context_bind(c.context, TSR_APP_IO_INPUT, 0, &small, &mode), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("struct_size 8"));
  ASSERT_EQ(tsr_app_run_context_bind(c.context, TSR_APP_IO_INPUT, 0, nullptr, nullptr), TSR_OK) << tsr_app_last_error();
  ASSERT_EQ(tsr_app_run_context_bind(c.context, TSR_APP_IO_OUTPUT, 0, nullptr, nullptr), TSR_OK)
      << tsr_app_last_error();
  EXPECT_EQ(tsr_app_run_sized(c.context, in, in_size, 1, out, out_size, 1), TSR_OK) << tsr_app_last_error();
}

}  // namespace
}  // namespace tessera::app
