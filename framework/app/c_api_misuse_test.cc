// The C API against the mistakes app teams make, through
// tessera_app.h only: a buffer smaller than its tensor (PaddleOCR's
// classifier input, [1,3,48,192] f32 = 110,592 bytes, given 400) is refused
// before anything is read or written; a destroyed handle, one destroyed
// twice, a handle of another kind and a value never made are errors, not
// crashes (before: a heap-buffer-overflow read and SIGSEGV under ASan);
// and a run context keeps its compiled model alive when the model's handle
// is destroyed first.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/app/tessera_app.h"
#include "tessera/ops.h"

namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr int64_t kC = 3, kH = 48, kW = 192;
constexpr size_t kElements = kC * kH * kW;
constexpr size_t kBytes = kElements * sizeof(float);  // 110,592

std::string BuildDir() {
  const char* dir = std::getenv("TESSERA_BUILD_DIR");
  return dir ? dir : ".";
}

float X(size_t i) { return static_cast<float>(static_cast<int>(i % 11) - 5) * 0.5f; }

// out = relu(x), x [1,3,48,192] f32.
std::string WriteModel() {
  tessera::ModelBuilder b("c_api_misuse");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {1, kC, kH, kW});
  b.Output(b.Op(TSR_OP_RELU, {x}, {}, {.name = "out"}));
  const std::string path = (fs::temp_directory_path() / ("c_api_misuse_" + std::to_string(getpid()) + ".tsr")).string();
  EXPECT_TRUE(tessera::WriteModelFile(*std::move(b).Build(), path).ok());
  return path;
}

class CApiMisuse : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = WriteModel();
    lib_ = BuildDir() + "/lib";
    socs_ = BuildDir() + "/share/tessera/socs";
    tsr_app_environment_options eo{};
    eo.struct_size = sizeof(eo);
    eo.bundled_plugin_directory = lib_.c_str();
    eo.soc_directory = socs_.c_str();
    eo.log_level = TSR_LOG_ERROR;
    ASSERT_EQ(tsr_app_environment_create(&eo, &env_), TSR_OK) << tsr_app_last_error();
    ASSERT_EQ(tsr_app_model_load(path_.c_str(), nullptr, &model_), TSR_OK) << tsr_app_last_error();
    tsr_app_compile_options co{};
    co.struct_size = sizeof(co);
    co.accelerators = "cpu";
    ASSERT_EQ(tsr_app_compile(env_, model_, &co, &compiled_), TSR_OK) << tsr_app_last_error();
    ASSERT_EQ(tsr_app_run_context_create(compiled_, &context_), TSR_OK) << tsr_app_last_error();
    for (size_t i = 0; i < kElements; ++i) x_[i] = X(i);
  }
  void TearDown() override {
    EXPECT_EQ(tsr_app_run_context_destroy(context_), TSR_OK) << tsr_app_last_error();
    EXPECT_EQ(tsr_app_compiled_model_destroy(compiled_), TSR_OK) << tsr_app_last_error();
    EXPECT_EQ(tsr_app_model_destroy(model_), TSR_OK) << tsr_app_last_error();
    EXPECT_EQ(tsr_app_environment_destroy(env_), TSR_OK) << tsr_app_last_error();
    std::remove(path_.c_str());
  }

  // A sized run of x_ into y_ on `context`.
  tsr_status Run(tsr_app_run_context context) {
    const void* in[] = {x_.data()};
    void* out[] = {y_.data()};
    const size_t in_size[] = {kBytes}, out_size[] = {kBytes};
    return tsr_app_run_sized(context, in, in_size, 1, out, out_size, 1);
  }
  // y_ is relu(x_), by hand.
  void ExpectRelu() const {
    for (size_t i = 0; i < kElements; ++i) ASSERT_EQ(y_[i], std::max(X(i), 0.0f)) << "element " << i;
  }

  std::string path_, lib_, socs_;
  tsr_app_environment env_ = nullptr;
  tsr_app_model model_ = nullptr;
  tsr_app_compiled_model compiled_ = nullptr;
  tsr_app_run_context context_ = nullptr;
  std::vector<float> x_ = std::vector<float>(kElements), y_ = std::vector<float>(kElements, -7.0f);
};

TEST_F(CApiMisuse, AnUndersizedBufferIsRefusedBeforeAnythingIsReadOrWritten) {
  tsr_app_tensor_info info;
  ASSERT_EQ(tsr_app_compiled_model_tensor_info(compiled_, TSR_APP_IO_INPUT, 0, &info), TSR_OK);
  ASSERT_EQ(info.byte_size, kBytes);
  // 400 bytes where 110,592 are needed: a heap buffer of exactly 400, so an
  // overread would be reported under ASan.
  std::vector<uint8_t> small(400, 0);
  const void* in[] = {small.data()};
  void* out[] = {y_.data()};
  const size_t small_size[] = {small.size()}, full_size[] = {kBytes};
  EXPECT_EQ(tsr_app_run_sized(context_, in, small_size, 1, out, full_size, 1), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(),
              HasSubstr("tsr_app_run_sized: input 0 ('x', f32 [1,3,48,192]) needs 110592 bytes; its buffer holds 400"));
  EXPECT_EQ(y_[0], -7.0f) << "nothing may be written after a refusal";
  // An undersized output, too, and on the asynchronous call.
  const void* full_in[] = {x_.data()};
  std::vector<float> little(100);
  void* small_out[] = {little.data()};
  const size_t little_size[] = {little.size() * sizeof(float)};
  EXPECT_EQ(tsr_app_run_sized(context_, full_in, full_size, 1, small_out, little_size, 1), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(),
              HasSubstr("output 0 ('out', f32 [1,3,48,192]) needs 110592 bytes; its buffer holds 400"));
  EXPECT_EQ(tsr_app_run_async_sized(context_, in, small_size, 1, out, full_size, 1), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("tsr_app_run_async_sized: input 0 ('x'"));
  EXPECT_EQ(tsr_app_run_wait(context_, 0), TSR_FAILED_PRECONDITION) << "a refused start leaves nothing in flight";
  // Sizes must be given.
  EXPECT_EQ(tsr_app_run_sized(context_, full_in, nullptr, 1, out, full_size, 1), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("input_sizes is NULL"));
  // A larger buffer is fine; the right sizes run.
  std::vector<float> roomy(kElements + 5, 1.0f);
  void* roomy_out[] = {roomy.data()};
  const size_t roomy_size[] = {roomy.size() * sizeof(float)};
  ASSERT_EQ(tsr_app_run_sized(context_, full_in, full_size, 1, roomy_out, roomy_size, 1), TSR_OK)
      << tsr_app_last_error();
  EXPECT_EQ(roomy[0], std::max(X(0), 0.0f));
  EXPECT_EQ(roomy[kElements], 1.0f) << "past byte_size is left alone";
  ASSERT_EQ(Run(context_), TSR_OK) << tsr_app_last_error();
  ExpectRelu();
}

TEST_F(CApiMisuse, DestroyedHandlesAreErrorsNotCrashes) {
  tsr_app_run_context other = nullptr;
  ASSERT_EQ(tsr_app_run_context_create(compiled_, &other), TSR_OK) << tsr_app_last_error();
  ASSERT_EQ(Run(other), TSR_OK) << tsr_app_last_error();
  ASSERT_EQ(tsr_app_run_context_destroy(other), TSR_OK) << tsr_app_last_error();
  // Used after destroy, destroyed again: errors naming what happened.
  EXPECT_EQ(Run(other), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("tsr_app_run_sized: this tsr_app_run_context was destroyed"));
  EXPECT_EQ(tsr_app_run_wait(other, 0), TSR_INVALID_ARGUMENT);
  EXPECT_EQ(tsr_app_run_context_destroy(other), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("tsr_app_run_context_destroy: this tsr_app_run_context was destroyed"));
  // A new context may reuse the slot: the stale handle still does not match.
  tsr_app_run_context again = nullptr;
  ASSERT_EQ(tsr_app_run_context_create(compiled_, &again), TSR_OK) << tsr_app_last_error();
  EXPECT_NE(again, other);
  EXPECT_EQ(Run(other), TSR_INVALID_ARGUMENT);
  ASSERT_EQ(Run(again), TSR_OK) << tsr_app_last_error();
  ExpectRelu();
  EXPECT_EQ(tsr_app_run_context_destroy(again), TSR_OK);
  // The same for models and environments.
  tsr_app_model model = nullptr;
  ASSERT_EQ(tsr_app_model_load(path_.c_str(), nullptr, &model), TSR_OK) << tsr_app_last_error();
  ASSERT_EQ(tsr_app_model_destroy(model), TSR_OK);
  tsr_app_compiled_model compiled = nullptr;
  EXPECT_EQ(tsr_app_compile(env_, model, nullptr, &compiled), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("tsr_app_compile: this tsr_app_model was destroyed"));
  EXPECT_EQ(compiled, nullptr);
  EXPECT_EQ(tsr_app_model_destroy(model), TSR_INVALID_ARGUMENT);
  // NULL is still accepted by every destroy.
  EXPECT_EQ(tsr_app_run_context_destroy(nullptr), TSR_OK);
  EXPECT_EQ(tsr_app_environment_destroy(nullptr), TSR_OK);
}

TEST_F(CApiMisuse, AHandleOfAnotherKindOrNeverMadeIsAnError) {
  size_t inputs = 0, outputs = 0;
  // A model's handle where a compiled model's is wanted.
  EXPECT_EQ(tsr_app_compiled_model_io_count(reinterpret_cast<tsr_app_compiled_model>(model_), &inputs, &outputs),
            TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("another kind of tsr_app_ handle, not a tsr_app_compiled_model"));
  EXPECT_EQ(tsr_app_compiled_model_destroy(reinterpret_cast<tsr_app_compiled_model>(context_)), TSR_INVALID_ARGUMENT);
  // An address (an app's own struct) is not a handle.
  int not_a_handle = 0;
  EXPECT_EQ(Run(reinterpret_cast<tsr_app_run_context>(&not_a_handle)), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("not a tsr_app_run_context handle made by this library"));
  // Nothing was destroyed by those: the real handles still work.
  ASSERT_EQ(tsr_app_compiled_model_io_count(compiled_, &inputs, &outputs), TSR_OK);
  EXPECT_EQ(inputs, 1u);
  ASSERT_EQ(Run(context_), TSR_OK) << tsr_app_last_error();
  ExpectRelu();
}

TEST_F(CApiMisuse, AContextKeepsItsCompiledModelAlive) {
  tsr_app_compile_options co{};
  co.struct_size = sizeof(co);
  co.accelerators = "cpu";
  tsr_app_compiled_model compiled = nullptr;
  ASSERT_EQ(tsr_app_compile(env_, model_, &co, &compiled), TSR_OK) << tsr_app_last_error();
  tsr_app_run_context context = nullptr;
  ASSERT_EQ(tsr_app_run_context_create(compiled, &context), TSR_OK) << tsr_app_last_error();
  // The compiled model's handle first: allowed, and its handle is gone.
  ASSERT_EQ(tsr_app_compiled_model_destroy(compiled), TSR_OK) << tsr_app_last_error();
  size_t inputs = 0, outputs = 0;
  EXPECT_EQ(tsr_app_compiled_model_io_count(compiled, &inputs, &outputs), TSR_INVALID_ARGUMENT);
  // The context still runs it, right; its model goes with it.
  ASSERT_EQ(Run(context), TSR_OK) << tsr_app_last_error();
  ExpectRelu();
  // Wrong counts still name the model's, read from the kept model.
  const void* in[] = {x_.data()};
  void* out[] = {y_.data()};
  const size_t size[] = {kBytes};
  EXPECT_EQ(tsr_app_run_sized(context, in, size, 1, out, size, 0), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("the model takes 1 inputs and gives 1 outputs, got 1 and 0"));
  EXPECT_EQ(tsr_app_run_context_destroy(context), TSR_OK);
}

// Not misuse, but what app teams reach for first: inputs and
// outputs by name, and their metadata before compiling.
TEST_F(CApiMisuse, InputsAndOutputsByNameAndBeforeCompiling) {
  size_t inputs = 0, outputs = 0;
  ASSERT_EQ(tsr_app_model_io_count(model_, &inputs, &outputs), TSR_OK) << tsr_app_last_error();
  EXPECT_EQ(inputs, 1u);
  EXPECT_EQ(outputs, 1u);
  tsr_app_tensor_info info;
  ASSERT_EQ(tsr_app_model_tensor_info(model_, TSR_APP_IO_INPUT, 0, &info), TSR_OK) << tsr_app_last_error();
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.dtype, TSR_DTYPE_F32);
  ASSERT_EQ(info.rank, 4u);
  EXPECT_EQ(std::vector<int64_t>(info.shape, info.shape + 4), (std::vector<int64_t>{1, kC, kH, kW}));
  EXPECT_EQ(info.byte_size, kBytes);
  ASSERT_EQ(tsr_app_model_tensor_info(model_, TSR_APP_IO_OUTPUT, 0, &info), TSR_OK);
  EXPECT_STREQ(info.name, "out");
  EXPECT_EQ(tsr_app_model_tensor_info(model_, TSR_APP_IO_OUTPUT, 1, &info), TSR_OUT_OF_RANGE);
  size_t index = 99;
  ASSERT_EQ(tsr_app_compiled_model_io_index(compiled_, TSR_APP_IO_OUTPUT, "out", &index), TSR_OK);
  EXPECT_EQ(index, 0u);
  EXPECT_EQ(tsr_app_compiled_model_io_index(compiled_, TSR_APP_IO_INPUT, "out", &index), TSR_NOT_FOUND);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("no tensor is named 'out' (the names: 'x')"));
  EXPECT_EQ(tsr_app_compiled_model_io_index(compiled_, 7, "x", &index), TSR_INVALID_ARGUMENT);
}

}  // namespace
