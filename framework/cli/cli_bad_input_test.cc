// One table of bad inputs (docs/reliability.md §11) fed to the built
// `tessera` binary and to the app API: each gets its documented exit code,
// a message naming what is wrong (a substring), and never a crash or a hang
// (an exit code below 128). Every bad file is made here from a good one:
// ModelBuilder + the writer, then a mutation of its bytes.
#include <sys/stat.h>

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "testing/cli_test_util.h"
#include "gmock/gmock.h"
#include "framework/core/graph/host_tensor.h"
#include "gtest/gtest.h"
#include "framework/core/io/tensor_proto.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_footer.h"
#include "framework/core/model/model_writer.h"
#include "testing/onnx_test_util.h"
#include "tessera/app/tessera_app.hpp"
#include "tessera/app/tessera_app.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using onnx_import::testing::OnnxModelBuilder;
namespace fs = std::filesystem;

// y = relu(x + w), x and w f32 [4]: small, with a constant to corrupt.
std::vector<uint8_t> GoodModel() {
  ModelBuilder b("good");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  const int32_t w = b.Constant<float>("w", {4}, std::vector<float>{1.5f, -2.5f, 3.5f, -4.5f});
  b.Output(b.Op(TSR_OP_RELU, {b.Op(TSR_OP_ADD, {x, w})}));
  return *SerializeModel(*std::move(b).Build());
}

// Where the constant's bytes sit in the file: found by value, not by
// knowing the layout.
size_t ConstantOffset(const std::vector<uint8_t>& file) {
  const float w0 = 1.5f;
  for (size_t i = 0; i + 4 <= file.size(); ++i)
    if (std::memcmp(file.data() + i, &w0, 4) == 0) return i;
  return 0;
}

std::vector<uint8_t> FlippedConstant() {
  std::vector<uint8_t> f = GoodModel();
  f[ConstantOffset(f)] ^= 0x10;
  return f;
}

// A mutation that a writer of crafted files would make: the footer
// recomputed, so only the later checks can catch it.
std::vector<uint8_t> Refooted(std::vector<uint8_t> file) {
  RefreshModelFooter(file);
  return file;
}

// A few hundred bytes declaring a 32 GiB input and activation (such
// a file once made `run` allocate 8.4 GB and exit 0 two minutes later).
std::vector<uint8_t> HugeTensorsModel() {
  ModelBuilder b("huge");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {int64_t{1} << 33});
  b.Output(b.Op(TSR_OP_RELU, {x}));
  return *SerializeModel(*std::move(b).Build());
}

std::vector<uint8_t> OnnxRelu(std::vector<int64_t> dims) {
  OnnxModelBuilder m;
  m.Input("x", onnx::TensorProto::FLOAT, dims);
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y");
  return m.Bytes();
}

// x -> Add(x, b) = a, Relu(a) = b: a cycle through two nodes.
std::vector<uint8_t> OnnxCycle() {
  OnnxModelBuilder m;
  m.Input("x", onnx::TensorProto::FLOAT, {4});
  m.Node("Add", {"x", "b"}, {"a"});
  m.Node("Relu", {"a"}, {"b"});
  m.Output("b");
  return m.Bytes();
}

std::vector<uint8_t> OnnxShapeMismatch() {
  OnnxModelBuilder m;
  m.Input("x", onnx::TensorProto::FLOAT, {2, 3});
  m.FloatInit("w", {4, 5}, std::vector<float>(20, 1.0f));
  m.Node("Add", {"x", "w"}, {"y"});
  m.Output("y");
  return m.Bytes();
}

void WriteBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

struct BadInput {
  std::string name;
  std::string file;                  // written into the case's directory
  std::function<std::vector<uint8_t>()> bytes;
  std::vector<HostTensor> inputs;    // written as in/input_K.pb when given
  std::vector<uint8_t> raw_input;    // or in/input_0.pb as these bytes
  std::string args;                  // after the command and the model
  std::string command = "run";
  int exit_code = 1;
  std::string message;
  bool api = true;                   // also through tessera::app::Model::Load
  uint64_t sparse_size = 0;          // when set, the file is extended (sparse) to this size
};

// Cases print by name, not as bytes.
void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

HostTensor F32(std::vector<int64_t> shape, std::vector<float> values) {
  HostTensor t{"", TSR_DTYPE_F32, std::move(shape), std::vector<uint8_t>(values.size() * sizeof(float))};
  if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

std::vector<BadInput> Table() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  return {
      {"truncated_half", "m.tsr", [] { auto f = GoodModel(); f.resize(f.size() / 2); return f; }, {}, {}, "", "run",
       1, "model is truncated"},
      {"truncated_footer", "m.tsr", [] { auto f = GoodModel(); f.resize(f.size() - 3); return f; }, {}, {}, "", "run",
       1, "declare a checksum footer"},
      {"truncated_header", "m.tsr", [] { auto f = GoodModel(); f.resize(6); return f; }, {}, {}, "", "run", 1,
       "shorter than the header"},
      {"empty_file", "m.tsr", [] { return std::vector<uint8_t>(); }, {}, {}, "", "run", 1, "is empty"},
      // A flipped weight: the default load (structure) does not read the
      // weights; --verify full checks their CRC and refuses the file.
      {"bit_flip_in_constant", "m.tsr", FlippedConstant, {}, {}, "--verify full", "run", 1,
       "model checksum mismatch: the data segment's (weights and bytecode) CRC-32 is", false},
      {"bit_flip_in_constant_inspect_full", "m.tsr", FlippedConstant, {}, {}, "--verify full", "inspect", 1,
       "model checksum mismatch: the data segment's", false},
      {"bit_flip_in_constant_inspect_structure", "m.tsr", FlippedConstant, {}, {}, "", "inspect", 0,
       "verified: structure (tables CRC-32, ranges, bytecode envelopes; weights not read: --verify full checks them)",
       false},
      {"verify_unknown_level", "m.tsr", GoodModel, {}, {}, "--verify fast", "inspect", 2,
       "--verify must be structure or full, not 'fast'", false},
      {"verify_on_onnx", "m.onnx", [] { return OnnxRelu({4}); }, {}, {}, "--verify full", "inspect", 1,
       "--verify applies to .tsr models", false},
      {"bit_flip_in_tables", "m.tsr", [] { auto f = GoodModel(); f[40] ^= 0x01; return f; }, {}, {}, "", "run", 1,
       "checksum mismatch"},
      {"oversized_model", "m.tsr", [] { auto f = GoodModel(); f.resize(f.size() + 4096, 0); return f; }, {}, {}, "",
       "run", 1, "declare a checksum footer"},
      {"wrong_tsr_identifier", "m.tsr", [] { auto f = GoodModel(); f[8] = 'X'; return Refooted(f); }, {}, {}, "",
       "run", 1, "missing the 'TSR1' file identifier"},
      {"not_onnx", "m.onnx", [] { return std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 0x01}; }, {}, {}, "", "run", 1,
       "not a valid ONNX ModelProto"},
      {"cyclic_graph", "m.onnx", OnnxCycle, {}, {}, "", "run", 1,
       "input 'b' is not a graph input, initializer or earlier node output"},
      {"shape_mismatch_in_graph", "m.onnx", OnnxShapeMismatch, {}, {}, "", "run", 1, "broadcast"},
      {"input_of_wrong_shape", "m.tsr", GoodModel, {F32({3}, {1, 2, 3})}, {}, "--accelerators cpu", "run", 1,
       "shape", false},
      {"oversized_input_file", "m.tsr", GoodModel, {}, std::vector<uint8_t>(1 << 20, 0), "--accelerators cpu", "run",
       1, "not read", false},
      {"nan_and_inf_inputs_run", "m.tsr", GoodModel, {F32({4}, {nan, inf, -inf, 0})}, {}, "--accelerators cpu", "run",
       0, "inf", false},
      {"empty_tensor_runs", "m.onnx", [] { return OnnxRelu({0, 4}); }, {F32({0, 4}, {})}, {}, "--accelerators cpu",
       "run", 0, "[0,4]", false},
      {"dims_product_overflows", "m.onnx", [] { return OnnxRelu({int64_t{1} << 32, int64_t{1} << 32}); }, {}, {}, "",
       "inspect", 1, "overflow"},
      {"budget_tensor_bytes", "m.tsr", GoodModel, {}, {}, "--budget max_tensor_bytes=8", "inspect", 1,
       "above the budget max_tensor_bytes = 8 (raise it with --budget max_tensor_bytes=VALUE", false},
      {"budget_model_bytes", "m.tsr", GoodModel, {}, {}, "--budget max_model_bytes=100", "inspect", 1,
       "above the budget max_model_bytes = 100 ", false},
      {"budget_op_count", "m.onnx", [] { return OnnxRelu({4}); }, {}, {}, "--budget max_op_count=0", "inspect", 1,
       "the op count is 1, above the budget max_op_count = 0", false},
      {"budget_partition_count", "m.tsr", GoodModel, {}, {}, "--budget max_partition_count=0 --accelerators cpu",
       "partition", 1, "the partition count after planning is 1, above the budget max_partition_count = 0", false},
      // 17 GiB, sparse: refused from its size, before a byte is read or
      // mapped (reading the .onnx whole would take 17 GB of memory).
      {"budget_default_model_bytes_tsr", "m.tsr", GoodModel, {}, {}, "", "inspect", 1,
       "the model file is 18253611008 bytes, above the budget max_model_bytes = 17179869184", true,
       uint64_t{17} << 30},
      {"budget_default_model_bytes_onnx", "m.onnx", [] { return OnnxRelu({4}); }, {}, {}, "", "inspect", 1,
       "the model file is 18253611008 bytes, above the budget max_model_bytes = 17179869184", true,
       uint64_t{17} << 30},
      {"budget_unknown_name", "m.tsr", GoodModel, {}, {}, "--budget max_cats=1", "inspect", 2,
       "unknown budget 'max_cats'", false},
      {"budget_default_tensor_bytes", "m.tsr", HugeTensorsModel, {}, {}, "", "run", 1,
       "tensor 'x' is 34359738368 bytes, above the budget max_tensor_bytes = 17179869184"},
      // The NPU device is asked to hold the partition's bytecode: more than 1 byte.
      {"budget_device_memory", "m.tsr", GoodModel, {}, {}, "--budget max_device_memory_bytes=1 --accelerators npu,cpu --policy greedy",
       "run", 1, "the device memory of 'systolic_npu' (1 executables and 0 device buffers) is ", false},
  };
}

class BadInputTable : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTable, ClearMessageDocumentedExitCodeNoCrash) {
  const BadInput& c = GetParam();
  char tmpl[] = "/tmp/tessera_bad_input_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const fs::path dir = tmpl;
  const std::string model = (dir / c.file).string();
  WriteBytes(model, c.bytes());
  if (c.sparse_size != 0) fs::resize_file(model, c.sparse_size);
  std::string inputs;
  if (!c.inputs.empty() || !c.raw_input.empty()) {
    fs::create_directory(dir / "in");
    for (size_t i = 0; i < c.inputs.size(); ++i)
      ASSERT_TRUE(WriteTensorProtoFile(c.inputs[i], (dir / "in" / ("input_" + std::to_string(i) + ".pb")).string()).ok());
    if (!c.raw_input.empty()) WriteBytes((dir / "in" / "input_0.pb").string(), c.raw_input);
    inputs = " --inputs " + (dir / "in").string();
  }
  const Result r = Tessera(c.command + " " + model + inputs + " " + c.args);
  EXPECT_LT(r.exit_code, 128) << "crashed: " << r.output;
  EXPECT_EQ(r.exit_code, c.exit_code) << r.output;
  EXPECT_THAT(r.output, HasSubstr(c.message));
  if (c.exit_code == 1) {
    EXPECT_THAT(r.output, HasSubstr("tessera: error:"));
  }

  if (c.api) {
    // The same file through the app API: an error with the same message.
    app::Result<app::Model> loaded = app::Model::Load(model);
    ASSERT_FALSE(loaded.ok());
    EXPECT_THAT(loaded.status().message(), HasSubstr(c.message));
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Cases, BadInputTable, ::testing::ValuesIn(Table()),
                         [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; });

// Budgets through the app API's LoadOptions: the same message as the flag.
TEST(BadInputApi, LoadOptionsBudgetsRefuseAndNameTheBudget) {
  TempFile file;
  file.Write(GoodModel());
  app::LoadOptions options;
  options.format = app::ModelFormat::kTsr;
  options.budgets["max_tensor_count"] = 2;
  app::Result<app::Model> refused = app::Model::Load(file.path(), options);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("the tensor count is 4, above the budget max_tensor_count = 2"));
  options.budgets["max_tensor_count"] = 4;
  EXPECT_TRUE(app::Model::Load(file.path(), options).ok());
  options.budgets["max_everything"] = 1;
  app::Result<app::Model> unknown = app::Model::Load(file.path(), options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown budget 'max_everything'"));
}

// max_device_memory_bytes through LoadOptions: read when the compiled
// model is loaded on its devices.
TEST(BadInputApi, DeviceMemoryBudgetRefusesWhenTheModelIsLoadedOnTheNpu) {
  const char* build = std::getenv("TESSERA_BUILD_DIR");
  app::EnvironmentOptions env_options;
  env_options.read_environment = false;
  env_options.bundled_plugin_directory = std::string(build ? build : ".") + "/lib";
  env_options.soc_directory = std::string(build ? build : ".") + "/share/tessera/socs";
  app::Result<app::Environment> env = app::Environment::Create(env_options);
  ASSERT_TRUE(env.ok()) << env.status().message();
  TempFile file;
  file.Write(GoodModel());
  app::LoadOptions options;
  options.budgets["max_device_memory_bytes"] = 1;
  app::Result<app::Model> model = app::Model::Load(file.path(), options);
  ASSERT_TRUE(model.ok()) << model.status().message();
  app::CompileOptions compile;
  compile.accelerators = {"npu"};
  compile.policy = "greedy";  // the NPU runs it, even where it does not pay
  app::Result<app::CompiledModel> compiled = app::CompiledModel::Compile(*env, *model, compile);
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(compiled.status().message(),
              HasSubstr("the device memory of 'systolic_npu' (1 executables and 0 device buffers) is "));
  EXPECT_THAT(compiled.status().message(), HasSubstr("above the budget max_device_memory_bytes = 1"));
}

// The C API's appended members: read when struct_size covers them, and
// ignored for a caller compiled against the struct before them.
TEST(BadInputApi, CLoadOptionsBudgetsAreReadOnlyWhenStructSizeCoversThem) {
  TempFile file;
  file.Write(GoodModel());
  const tsr_app_budget budget{"max_tensor_count", 2};
  tsr_app_load_options options{};
  options.struct_size = sizeof(options);
  options.format = TSR_APP_FORMAT_TSR;
  options.budgets = &budget;
  options.budget_count = 1;
  tsr_app_model model = nullptr;
  EXPECT_EQ(tsr_app_model_load(file.path().c_str(), &options, &model), TSR_RESOURCE_EXHAUSTED);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("above the budget max_tensor_count = 2"));
  options.struct_size = offsetof(tsr_app_load_options, budgets);
  ASSERT_EQ(tsr_app_model_load(file.path().c_str(), &options, &model), TSR_OK) << tsr_app_last_error();
  tsr_app_model_destroy(model);
}

// LoadOptions::verify: a flipped weight loads at the default (structure)
// and is DATA_LOSS at full, in C++ and through the C API's appended member
// (ignored when struct_size stops before it).
TEST(BadInputApi, VerifyFullRefusesAFlippedWeight) {
  TempFile file;
  file.Write(FlippedConstant());
  EXPECT_TRUE(app::Model::Load(file.path()).ok());
  app::LoadOptions options;
  options.verify = app::VerifyLevel::kFull;
  app::Result<app::Model> refused = app::Model::Load(file.path(), options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), TSR_DATA_LOSS);
  EXPECT_THAT(refused.status().message(), HasSubstr("model checksum mismatch"));
  // The same bytes from memory.
  const std::vector<uint8_t> bytes = FlippedConstant();
  EXPECT_TRUE(app::Model::FromMemory(bytes.data(), bytes.size()).ok());
  EXPECT_EQ(app::Model::FromMemory(bytes.data(), bytes.size(), options).status().code(), TSR_DATA_LOSS);
  // An intact file loads at full.
  TempFile good;
  good.Write(GoodModel());
  EXPECT_TRUE(app::Model::Load(good.path(), options).ok());

  tsr_app_load_options c{};
  c.struct_size = sizeof(c);
  c.verify = TSR_APP_VERIFY_FULL;
  tsr_app_model model = nullptr;
  EXPECT_EQ(tsr_app_model_load(file.path().c_str(), &c, &model), TSR_DATA_LOSS);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("model checksum mismatch"));
  c.verify = TSR_APP_VERIFY_STRUCTURE;
  ASSERT_EQ(tsr_app_model_load(file.path().c_str(), &c, &model), TSR_OK) << tsr_app_last_error();
  tsr_app_model_destroy(model);
  c.verify = TSR_APP_VERIFY_FULL;
  c.struct_size = offsetof(tsr_app_load_options, verify);  // a caller from before the member
  model = nullptr;
  ASSERT_EQ(tsr_app_model_load(file.path().c_str(), &c, &model), TSR_OK) << tsr_app_last_error();
  tsr_app_model_destroy(model);
}

}  // namespace
}  // namespace tessera
