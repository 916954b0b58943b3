// The C++ app API end to end, through tessera_app.hpp only (plus the test's own
// model builder for graphs ONNX's test data does not have): environment,
// loading, compiling, the partition report, saving, running a precompiled
// model, many threads over one model, and clear errors; misuse (an error
// Result read, unknown names, a bad struct_size) in C++ and through the C API.
#include "tessera/app/tessera_app.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/app/tessera_app.h"
#include "tessera/ops.h"

namespace tessera::app {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string BuildDir() {
  const char* dir = std::getenv("TESSERA_BUILD_DIR");
  return dir ? dir : ".";
}

Environment Env() {
  EnvironmentOptions o;
  o.read_environment = false;
  o.bundled_plugin_directory = BuildDir() + "/lib";
  o.soc_directory = BuildDir() + "/share/tessera/socs";
  Result<Environment> env = Environment::Create(o);
  EXPECT_TRUE(env.ok()) << env.status().message();
  return *std::move(env);
}

// out = relu(x·Wᵀ) + sin(x·Wᵀ), x [2, 8], written as a .tsr: FULLY_CONNECTED
// and RELU go to the NPU, SIN to the cpu.
std::string WriteModel(const std::string& name) {
  tessera::ModelBuilder b("app_test");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 8});
  std::vector<float> w(64);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 5) - 2) * 0.125f;
  const int32_t fc = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w", {8, 8}, w)});
  b.Output(b.Op(TSR_OP_ADD, {b.Op(TSR_OP_RELU, {fc}), b.Op(TSR_OP_SIN, {fc})}, {}, {.name = "out"}));
  const std::string path = (fs::temp_directory_path() / (name + "_" + std::to_string(getpid()) + ".tsr")).string();
  EXPECT_TRUE(tessera::WriteModelFile(*std::move(b).Build(), path).ok());
  return path;
}
const std::vector<float> kW = [] {
  std::vector<float> w(64);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 5) - 2) * 0.125f;
  return w;
}();

Tensor Input(int seed) {
  Tensor t = Tensor::Allocate({"x", TSR_DTYPE_F32, {2, 8}});
  for (int i = 0; i < 16; ++i) t.as<float>()[i] = static_cast<float>((i * 3 + seed) % 9 - 4) * 0.25f;
  return t;
}

// The model's arithmetic by hand: FULLY_CONNECTED is x·Wᵀ.
std::vector<double> Want(const Tensor& x) {
  std::vector<double> y(16);
  for (int r = 0; r < 2; ++r)
    for (int o = 0; o < 8; ++o) {
      double fc = 0;
      for (int i = 0; i < 8; ++i) fc += static_cast<double>(x.as<float>()[r * 8 + i]) * kW[o * 8 + i];
      y[r * 8 + o] = std::max(fc, 0.0) + std::sin(fc);
    }
  return y;
}

void ExpectNear(const Tensor& y, const std::vector<double>& want, double tolerance) {
  ASSERT_EQ(y.info().byte_size(), want.size() * sizeof(float));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(y.as<float>()[i], want[i], tolerance) << "element " << i;
}

TEST(AppApi, EnvironmentListsTheBundledPluginsWithTheirIdentity) {
  Environment env = Env();
  bool cpu = false, npu = false;
  for (const PluginInfo& p : env.plugins()) {
    if (p.vendor == "cpu" && p.role == "compiler") cpu = true;
    if (p.vendor == "systolic_npu" && p.role == "compiler") {
      npu = true;
      EXPECT_EQ(p.short_name, "npu");
      EXPECT_EQ(p.abi_version, "1.4");
    }
  }
  EXPECT_TRUE(cpu);
  EXPECT_TRUE(npu);
  EXPECT_THAT(env.soc_names(), ::testing::Contains("ref-phone"));
  Result<Environment> relative = Environment::Create({.plugin_directories = {"plugins"}});
  EXPECT_EQ(relative.status().code(), TSR_INVALID_ARGUMENT);
}

TEST(AppApi, CompilesReportsAndRunsOnNpuAndCpu) {
  Environment env = Env();
  const std::string path = WriteModel("compile");
  Result<Model> model = Model::Load(path);
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_FALSE(model->is_compiled());
  ASSERT_EQ(model->inputs().size(), 1u);
  EXPECT_EQ(model->inputs()[0].name, "x");
  EXPECT_EQ(model->inputs()[0].shape, (std::vector<int64_t>{2, 8}));
  CompileOptions options;
  options.accelerators = {"npu", "cpu"};
  options.soc = "ref-phone";
  options.policy = "greedy";  // every op the NPU claims goes there, paying or not
  // The NPU computes in FP16: allowed, with the input it runs on proving the ranges.
  const Tensor x = Input(1);
  options.precision = "allow-fp16";
  options.range_samples = {{x}};
  Result<CompiledModel> compiled = CompiledModel::Compile(env, *model, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  const PartitionReport& report = compiled->partition_report();
  EXPECT_EQ(report.precision, "allow-fp16");
  EXPECT_EQ(report.op_count, 4u);
  EXPECT_EQ(report.policy, "greedy");
  EXPECT_GT(report.modeled_latency_us, 0);
  EXPECT_GT(report.modeled_latency_us_cpu_only, 0);
  std::vector<std::string> vendors;
  for (const auto& p : report.partitions) vendors.push_back(p.vendor);
  EXPECT_THAT(vendors, ::testing::Contains("systolic_npu"));
  EXPECT_THAT(vendors, ::testing::Contains("cpu"));
  ASSERT_EQ(report.fallbacks.size(), 1u);  // SIN, refused by the NPU
  EXPECT_EQ(report.fallbacks[0].op_type, "SIN");
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok()) << context.status().message();
  RunProfile profile;
  Result<std::vector<Tensor>> y = context->Run({x}, &profile);
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], Want(x), 2e-2);  // the NPU computes in FP16
  EXPECT_GE(profile.steps.size(), 2u);
  EXPECT_TRUE(profile.nonfinite_checked);
  EXPECT_TRUE(profile.inputs_finite);
  EXPECT_TRUE(profile.nonfinite_outputs.empty());
  std::remove(path.c_str());
}

TEST(AppApi, Fp32IsTheDefaultAndKeepsTheFp16NpuOffTheMatrixOps) {
  Environment env = Env();
  const std::string path = WriteModel("precision");
  Result<Model> model = Model::Load(path);
  ASSERT_TRUE(model.ok()) << model.status().message();
  CompileOptions options;
  options.accelerators = {"npu", "cpu"};
  options.soc = "ref-phone";
  options.policy = "greedy";
  EXPECT_EQ(options.precision, "fp32");
  Result<CompiledModel> compiled = CompiledModel::Compile(env, *model, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  const PartitionReport& report = compiled->partition_report();
  EXPECT_EQ(report.precision, "fp32");
  bool refused_for_precision = false;
  for (const PartitionReport::Fallback& f : report.fallbacks)
    for (const PartitionReport::Refusal& r : f.refused_by)
      if (r.reason == "precision") {
        refused_for_precision = true;
        EXPECT_EQ(r.detail, "systolic_npu computes in fp16, not allowed by --precision fp32");
      }
  EXPECT_TRUE(refused_for_precision);
  for (const PartitionReport::Partition& p : report.partitions) EXPECT_NE(p.precision, "fp16") << p.vendor;
  options.precision = "fp16";
  Result<CompiledModel> bad = CompiledModel::Compile(env, *model, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "precision: unknown 'fp16' (fp32, allow-fp16 or allow-int8)");
  std::remove(path.c_str());
}

TEST(AppApi, ASavedAotModelRunsPrecompiledAndJitCannotBeSaved) {
  Environment env = Env();
  const std::string path = WriteModel("save");
  Result<Model> model = Model::Load(path);
  ASSERT_TRUE(model.ok());
  Result<CompiledModel> aot = CompiledModel::Compile(env, *model, {.accelerators = {"cpu"}});
  ASSERT_TRUE(aot.ok()) << aot.status().message();
  const std::string saved = path + ".aot.tsr";
  ASSERT_TRUE(aot->Save(saved).ok());
  Result<Model> reloaded = Model::Load(saved);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().message();
  EXPECT_TRUE(reloaded->is_compiled());
  Result<CompiledModel> again = CompiledModel::Compile(env, *reloaded);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(again->was_precompiled());
  EXPECT_TRUE(again->partition_report().partitions.empty());
  Result<RunContext> context = RunContext::Create(*again);
  ASSERT_TRUE(context.ok());
  const Tensor x = Input(2);
  Result<std::vector<Tensor>> y = context->Run({x});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectNear((*y)[0], Want(x), 1e-5);

  Result<CompiledModel> jit = CompiledModel::Compile(env, *model, {.accelerators = {"cpu"}, .mode = CompileMode::kJit});
  ASSERT_TRUE(jit.ok());
  const Status s = jit->Save(saved);
  EXPECT_EQ(s.code(), TSR_FAILED_PRECONDITION);
  EXPECT_THAT(s.message(), HasSubstr("JIT"));
  std::remove(path.c_str());
  std::remove(saved.c_str());
}

TEST(AppApi, FromMemoryLoadsTheSameModel) {
  const std::string path = WriteModel("memory");
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Result<Model> model = Model::FromMemory(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ(model->outputs()[0].name, "out");
  Result<Model> garbage = Model::FromMemory("not a model", 11, {.format = ModelFormat::kTsr});
  EXPECT_FALSE(garbage.ok());
  EXPECT_FALSE(garbage.status().message().empty());
  std::remove(path.c_str());
}

TEST(AppApi, ManyThreadsEachWithItsOwnContextMatchOneThread) {
  Environment env = Env();
  const std::string path = WriteModel("threads");
  Result<Model> model = Model::Load(path);
  ASSERT_TRUE(model.ok());
  Result<CompiledModel> compiled = CompiledModel::Compile(env, *model, {.accelerators = {"npu", "cpu"}});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  // The single-threaded answers first.
  std::vector<std::vector<uint8_t>> want;
  {
    Result<RunContext> c = RunContext::Create(*compiled);
    ASSERT_TRUE(c.ok());
    for (int t = 0; t < 4; ++t) {
      Result<std::vector<Tensor>> y = c->Run({Input(t)});
      ASSERT_TRUE(y.ok());
      const auto* p = static_cast<const uint8_t*>((*y)[0].data());
      want.emplace_back(p, p + (*y)[0].size());
    }
  }
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      Result<RunContext> c = RunContext::Create(*compiled);
      if (!c.ok()) {
        wrong[t] = -1;
        return;
      }
      const Tensor x = Input(t);
      for (int r = 0; r < 20; ++r) {
        Result<std::vector<Tensor>> y = c->Run({x});
        if (!y.ok() || std::memcmp((*y)[0].data(), want[t].data(), want[t].size()) != 0) ++wrong[t];
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong, (std::vector<int>{0, 0, 0, 0}));
  std::remove(path.c_str());
}

TEST(AppApi, InputsAndOutputsByName) {
  Environment env = Env();
  const std::string path = WriteModel("by_name");
  Result<Model> model = Model::Load(path);
  ASSERT_TRUE(model.ok());
  Result<CompiledModel> compiled = CompiledModel::Compile(env, *model, {.accelerators = {"cpu"}});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  EXPECT_EQ(IndexByName(model->inputs(), "x").value(), 0u);
  EXPECT_EQ(IndexByName(compiled->outputs(), "out").value(), 0u);
  Result<size_t> missing = IndexByName(compiled->inputs(), "image");
  EXPECT_EQ(missing.status().code(), TSR_NOT_FOUND);
  EXPECT_THAT(missing.status().message(), HasSubstr("no tensor is named 'image' (the names: 'x')"));
  std::remove(path.c_str());
}

TEST(AppApi, BadInputGivesClearErrors) {
  Environment env = Env();
  Result<Model> missing = Model::Load("/nonexistent/model.tsr");
  EXPECT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("/nonexistent/model.tsr"));
  const std::string path = WriteModel("errors");
  Result<Model> model = Model::Load(path);
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(CompiledModel::Compile(env, *model, {.soc = "no-such-soc"}).status().code(), TSR_NOT_FOUND);
  // A cache directory that is a file (the model itself) is refused, with its name.
  Result<CompiledModel> bad_cache = CompiledModel::Compile(env, *model, {.cache_dir = path});
  EXPECT_EQ(bad_cache.status().code(), TSR_FAILED_PRECONDITION);
  EXPECT_THAT(bad_cache.status().message(), HasSubstr("is not a directory"));
  Result<CompiledModel> compiled = CompiledModel::Compile(env, *model, {.accelerators = {"cpu"}});
  ASSERT_TRUE(compiled.ok());
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  Result<std::vector<Tensor>> wrong_shape = context->Run({Tensor::Allocate({"x", TSR_DTYPE_F32, {8, 2}})});
  EXPECT_EQ(wrong_shape.status().code(), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(wrong_shape.status().message(), HasSubstr("[2,8]"));
  float small[4];
  EXPECT_EQ(Tensor::Wrap({"x", TSR_DTYPE_F32, {2, 8}}, small, sizeof(small)).status().code(), TSR_INVALID_ARGUMENT);
  // 2^40 * 2^40 * 4 bytes wraps to 0 in 64 bits: the size saturates instead,
  // so 16 bytes of memory can never pass for it.
  const TensorInfo huge{"x", TSR_DTYPE_F32, {int64_t{1} << 40, int64_t{1} << 40}};
  EXPECT_EQ(huge.byte_size(), SIZE_MAX);
  EXPECT_EQ(Tensor::Wrap(huge, small, sizeof(small)).status().code(), TSR_INVALID_ARGUMENT);
  EXPECT_EQ((TensorInfo{"h", TSR_DTYPE_F16, {3, 5}}.byte_size()), 30u);
  std::remove(path.c_str());
}

// ONNX bytes written by hand (onnx.proto field numbers): y = x * S
// (elementwise), x [1, 2048], S [2048] f32 as raw_data, 8 KiB: a large
// initializer, imported as a view of the file's bytes, and above the cpu
// plugin's 4 KiB for an external constant, so the kernels read it where the
// compiled graph has it (without AlignConstants, UBSan reports a misaligned
// load in the reference Mul). The graph's name
// pads S's payload to an odd offset, so that view is misaligned (a file
// this small is read into page-aligned memory, a larger one mapped: either
// way the address keeps the offset's parity).
std::vector<uint8_t> Bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }
std::vector<uint8_t> Cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
std::vector<uint8_t> Varint(uint64_t v) {
  std::vector<uint8_t> out;
  for (; v >= 0x80; v >>= 7) out.push_back(static_cast<uint8_t>(v | 0x80));
  out.push_back(static_cast<uint8_t>(v));
  return out;
}
std::vector<uint8_t> VInt(uint32_t field, uint64_t v) { return Cat({Varint(uint64_t{field} << 3), Varint(v)}); }
std::vector<uint8_t> Ld(uint32_t field, const std::vector<uint8_t>& b) {
  return Cat({Varint((uint64_t{field} << 3) | 2), Varint(b.size()), b});
}
std::vector<uint8_t> ValueInfo(const std::string& name, std::vector<int64_t> dims) {
  std::vector<uint8_t> shape;
  for (int64_t d : dims) shape = Cat({shape, Ld(1, VInt(1, static_cast<uint64_t>(d)))});
  return Cat({Ld(1, Bytes(name)), Ld(2, Ld(1, Cat({VInt(1, 1), Ld(2, shape)})))});
}
constexpr int kOddN = 2048;
float OddS(int i) { return static_cast<float>((i * 7) % 9 - 4) * 0.125f; }
float OddX(int i) { return static_cast<float>(i % 5 - 2); }
std::vector<uint8_t> OddOffsetOnnxMul() {
  std::vector<uint8_t> raw(kOddN * 4);
  for (int i = 0; i < kOddN; ++i) {
    const float v = OddS(i);
    std::memcpy(raw.data() + 4 * i, &v, 4);
  }
  for (std::string name = "g";; name += "g") {
    const std::vector<uint8_t> node =
        Cat({Ld(1, Bytes("x")), Ld(1, Bytes("S")), Ld(2, Bytes("y")), Ld(4, Bytes("Mul"))});
    const std::vector<uint8_t> init = Cat({VInt(1, kOddN), VInt(2, 1), Ld(8, Bytes("S")), Ld(9, raw)});
    const std::vector<uint8_t> graph = Cat({Ld(1, node), Ld(2, Bytes(name)), Ld(5, init),
                                            Ld(11, ValueInfo("x", {1, kOddN})), Ld(12, ValueInfo("y", {1, kOddN}))});
    const std::vector<uint8_t> model = Cat({VInt(1, 8), Ld(8, VInt(2, 13)), Ld(7, graph)});
    const size_t offset =
        static_cast<size_t>(std::search(model.begin(), model.end(), raw.begin(), raw.end()) - model.begin());
    if (offset % 2 == 1) return model;
  }
}

// Compiles and runs `model` on the cpu with `kernels` (the elementwise
// kernels read constants through typed pointers: under UBSan a misaligned
// one is a report), checks y = x * S exactly.
void ExpectOddMulRuns(const Environment& env, const Model& model, const std::string& kernels) {
  Result<CompiledModel> compiled =
      CompiledModel::Compile(env, model, {.accelerators = {"cpu"}, .plugin_options = {{"cpu.kernels", kernels}}});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Tensor x = Tensor::Allocate(compiled->inputs()[0]);
  for (int i = 0; i < kOddN; ++i) x.as<float>()[i] = OddX(i);
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  Result<std::vector<Tensor>> y = context->Run({x});
  ASSERT_TRUE(y.ok()) << y.status().message();
  for (int i = 0; i < kOddN; ++i) EXPECT_EQ((*y)[0].as<float>()[i], OddX(i) * OddS(i)) << i;
}

// An .onnx's large initializers stay in the file (views at any alignment);
// compiling copies the misaligned ones for the kernels, and the compiled
// model outlives the Model it came from.
TEST(AppApi, RunsAnOnnxModelWhoseWeightsSitAtAnOddOffset) {
  Environment env = Env();
  const std::vector<uint8_t> onnx = OddOffsetOnnxMul();
  const std::string path = (fs::temp_directory_path() / ("odd_" + std::to_string(getpid()) + ".onnx")).string();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(onnx.data()), onnx.size());
  const std::string saved = path + ".tsr";
  {
    Result<Model> from_file = Model::Load(path);
    ASSERT_TRUE(from_file.ok()) << from_file.status().message();
    for (const char* k : {"reference", "fast"}) ExpectOddMulRuns(env, *from_file, k);
    ASSERT_TRUE(from_file->Save(saved).ok());
  }
  Result<Model> from_memory = Model::FromMemory(onnx.data(), onnx.size(), {.format = ModelFormat::kOnnx});
  ASSERT_TRUE(from_memory.ok()) << from_memory.status().message();
  for (const char* k : {"reference", "fast"}) ExpectOddMulRuns(env, *from_memory, k);
  Result<Model> tsr = Model::Load(saved);
  ASSERT_TRUE(tsr.ok()) << tsr.status().message();
  for (const char* k : {"reference", "fast"}) ExpectOddMulRuns(env, *tsr, k);
  std::remove(path.c_str());
  std::remove(saved.c_str());
}

#ifdef TSR_TEST_ONNX_NODE_DIR
// An ONNX model with a symbolic-free shape, loaded by file name.
TEST(AppApi, LoadsAnOnnxModelAndRunsIt) {
  Environment env = Env();
  Result<Model> model = Model::Load(std::string(TSR_TEST_ONNX_NODE_DIR) + "/test_relu/model.onnx");
  ASSERT_TRUE(model.ok()) << model.status().message();
  Result<CompiledModel> compiled = CompiledModel::Compile(env, *model, {.accelerators = {"cpu"}});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Tensor x = Tensor::Allocate(compiled->inputs()[0]);
  const size_t n = x.info().byte_size() / 4;
  for (size_t i = 0; i < n; ++i) x.as<float>()[i] = static_cast<float>(static_cast<int>(i % 11) - 5) * 0.5f;
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok());
  Result<std::vector<Tensor>> y = context->Run({x});
  ASSERT_TRUE(y.ok()) << y.status().message();
  for (size_t i = 0; i < n; ++i) EXPECT_EQ((*y)[0].as<float>()[i], std::max(x.as<float>()[i], 0.0f));
}
#endif

// ---- Misuse is refused with its cause ------------------------------------

TEST(AppApiDeathTest, ReadingAnErrorResultAbortsWithItsStatus) {
  // The status text reaches stderr, whichever way the value is read.
  EXPECT_DEATH(*Model::Load("/nonexistent.onnx"), "code [0-9]+\\): .*/nonexistent\\.onnx");
  EXPECT_DEATH(Model::Load("/nonexistent.onnx").value(), "/nonexistent\\.onnx");
  const Result<Model> missing = Model::Load("/nonexistent.onnx");
  EXPECT_DEATH(missing->inputs(), "/nonexistent\\.onnx");
  EXPECT_DEATH(missing.value(), "/nonexistent\\.onnx");
  Result<int> error = Status(TSR_NOT_FOUND, "no such thing");
  EXPECT_DEATH(*error, "code 5\\): no such thing");
  EXPECT_DEATH(std::move(error).value(), "code 5\\): no such thing");
}

// Compiles `model` with `options` and returns the failure's status.
Status CompileError(const Model& model, const CompileOptions& options) {
  Result<CompiledModel> compiled = CompiledModel::Compile(Env(), model, options);
  EXPECT_FALSE(compiled.ok());
  return compiled.status();
}

TEST(AppApi, UnknownAcceleratorsAndPoliciesAreRefusedWithTheKnownNames) {
  const std::string path = WriteModel("app_unknown_names");
  const Model model = *Model::Load(path);
  for (const std::vector<std::string>& accelerators : {std::vector<std::string>{"gpu"}, {"npu", "gpu", "cpu"}}) {
    CompileOptions options;
    options.accelerators = accelerators;
    const Status s = CompileError(model, options);
    EXPECT_EQ(s.code(), TSR_INVALID_ARGUMENT);
    EXPECT_THAT(s.message(), ::testing::StartsWith("accelerators: unknown accelerator 'gpu'"));
    // The loaded compilers, by short name and vendor, as the compile resolves them.
    EXPECT_THAT(s.message(), HasSubstr("npu (systolic_npu)"));
    EXPECT_THAT(s.message(), HasSubstr("cpu"));
    EXPECT_THAT(s.message(), ::testing::Not(HasSubstr("--")));
  }
  CompileOptions options;
  options.policy = "fastest";
  const Status s = CompileError(model, options);
  EXPECT_EQ(s.code(), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(s.message(), ::testing::StartsWith("policy: unknown partition policy 'fastest'"));
  EXPECT_THAT(s.message(), HasSubstr("cost, greedy or cpu"));
  EXPECT_THAT(s.message(), ::testing::Not(HasSubstr("--")));
  options = {};
  options.accelerators = {"auto"};
  EXPECT_TRUE(CompiledModel::Compile(Env(), model, options).ok());
  fs::remove(path);
}

// The C API: each options struct's struct_size, then the same name checks.
class AppCApi : public ::testing::Test {
 protected:
  void SetUp() override {
    env_options_.struct_size = sizeof(env_options_);
    env_options_.bundled_plugin_directory = plugins_.c_str();
    env_options_.soc_directory = socs_.c_str();
    env_options_.log_level = TSR_LOG_ERROR;
    ASSERT_EQ(tsr_app_environment_create(&env_options_, &env_), TSR_OK) << tsr_app_last_error();
    ASSERT_EQ(tsr_app_model_load(path_.c_str(), nullptr, &model_), TSR_OK) << tsr_app_last_error();
  }
  void TearDown() override {
    tsr_app_model_destroy(model_);
    tsr_app_environment_destroy(env_);
    fs::remove(path_);
  }
  // tsr_app_compile's status; the compiled model is destroyed at once.
  tsr_status Compile(const tsr_app_compile_options* options) {
    tsr_app_compiled_model compiled = nullptr;
    const tsr_status code = tsr_app_compile(env_, model_, options, &compiled);
    tsr_app_compiled_model_destroy(compiled);
    return code;
  }
  const std::string plugins_ = BuildDir() + "/lib", socs_ = BuildDir() + "/share/tessera/socs";
  const std::string path_ = WriteModel("app_c_api");
  tsr_app_environment_options env_options_{};
  tsr_app_environment env_ = nullptr;
  tsr_app_model model_ = nullptr;
};

TEST_F(AppCApi, StructSizeZeroOrBelowTheFirstVersionIsRefused) {
  tsr_app_environment env = nullptr;
  tsr_app_environment_options env_options = env_options_;
  env_options.struct_size = 0;
  EXPECT_EQ(tsr_app_environment_create(&env_options, &env), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("tsr_app_environment_options::struct_size 0"));
  EXPECT_EQ(env, nullptr);

  tsr_app_model model = nullptr;
  tsr_app_load_options load{};
  EXPECT_EQ(tsr_app_model_load(path_.c_str(), &load, &model), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("tsr_app_load_options::struct_size 0"));
  EXPECT_EQ(model, nullptr);

  // Zeroed, the struct's options would all be dropped: an accelerator that
  // does not exist would compile.
  tsr_app_compile_options compile{};
  compile.accelerators = "gpu";
  compile.policy = "fastest";
  EXPECT_EQ(Compile(&compile), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("tsr_app_compile_options::struct_size 0"));
  compile.accelerators = "npu";
  compile.policy = "greedy";
  compile.struct_size = offsetof(tsr_app_compile_options, policy) - 1;
  EXPECT_EQ(Compile(&compile), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(),
              HasSubstr("struct_size " + std::to_string(offsetof(tsr_app_compile_options, policy) - 1)));
}

TEST_F(AppCApi, StructSizeOfAnyKnownVersionOrANewerOneIsAccepted) {
  tsr_app_compile_options compile{};
  compile.accelerators = "npu,cpu";
  for (const size_t size : {offsetof(tsr_app_compile_options, policy), sizeof(tsr_app_compile_options)}) {
    compile.struct_size = static_cast<uint32_t>(size);
    EXPECT_EQ(Compile(&compile), TSR_OK) << size << ": " << tsr_app_last_error();
  }
  // A newer caller's larger struct: the known prefix is read.
  struct {
    tsr_app_compile_options known;
    uint64_t appended_later[4];
  } newer{};
  newer.known = compile;
  newer.known.struct_size = sizeof(newer);
  EXPECT_EQ(Compile(&newer.known), TSR_OK) << tsr_app_last_error();
  tsr_app_load_options load{};
  load.struct_size = sizeof(load) + 16;
  tsr_app_model model = nullptr;
  EXPECT_EQ(tsr_app_model_load(path_.c_str(), &load, &model), TSR_OK) << tsr_app_last_error();
  tsr_app_model_destroy(model);
}

TEST_F(AppCApi, UnknownAcceleratorsAndPoliciesAreRefused) {
  tsr_app_compile_options compile{};
  compile.struct_size = sizeof(compile);
  compile.accelerators = "npu,gpu";
  EXPECT_EQ(Compile(&compile), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("accelerators: unknown accelerator 'gpu'"));
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("npu (systolic_npu)"));
  compile.accelerators = "npu";
  compile.policy = "fastest";
  EXPECT_EQ(Compile(&compile), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("policy: unknown partition policy 'fastest' (want cost, greedy or cpu)"));
}

}  // namespace
}  // namespace tessera::app
