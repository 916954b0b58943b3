// The compile cache through the app API (C++ and C): a second Compile of
// the same model is a hit that runs with the first one's outputs, JIT
// leaves the directory untouched with one warning, the C options reach it.
#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_footer.h"
#include "framework/core/model/model_loader.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/app/tessera_app.h"
#include "tessera/app/tessera_app.hpp"
#include "tessera/bytecode.h"
#include "tessera/ops.h"

namespace tessera::app {
namespace {
using ::testing::HasSubstr;
namespace fs = std::filesystem;

struct Fixture : ::testing::Test {
  void SetUp() override {
    const char* build = std::getenv("TESSERA_BUILD_DIR");
    EnvironmentOptions o;
    o.read_environment = false;
    o.bundled_plugin_directory = std::string(build ? build : ".") + "/lib";
    o.log_level = LogLevel::kInfo;
    o.log_sink = [this](const std::string& vendor, LogLevel level, const std::string& text) {
      if (vendor == "tessera") lines.push_back({level, text});
    };
    env.emplace(*Environment::Create(o));
    const std::string tag =
        std::to_string(getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir = fs::temp_directory_path() / ("app_cache_" + tag);
    model_path = (fs::temp_directory_path() / ("app_cache_model_" + tag + ".tsr")).string();
    fs::remove_all(dir);
    // out = sin(x) * 2, x [4]
    tessera::ModelBuilder b("app_cache");
    const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
    b.Output(
        b.Op(TSR_OP_MUL, {b.Op(TSR_OP_SIN, {x}), b.Constant<float>("two", {4}, {2, 2, 2, 2})}, {}, {.name = "out"}));
    ASSERT_TRUE(tessera::WriteModelFile(*std::move(b).Build(), model_path).ok());
  }
  void TearDown() override {
    fs::remove_all(dir);
    fs::remove(model_path);
  }
  std::vector<float> Run(const CompiledModel& compiled) {
    Result<RunContext> context = RunContext::Create(compiled);
    EXPECT_TRUE(context.ok());
    Tensor x = Tensor::Allocate({"x", TSR_DTYPE_F32, {4}});
    float* in = static_cast<float*>(x.data());
    for (int i = 0; i < 4; ++i) in[i] = 0.5f * static_cast<float>(i) - 1.0f;
    Result<std::vector<Tensor>> out = context->Run({x});
    EXPECT_TRUE(out.ok()) << out.status().message();
    const float* o = static_cast<const float*>((*out)[0].data());
    return std::vector<float>(o, o + 4);
  }
  std::optional<Environment> env;
  std::vector<std::pair<LogLevel, std::string>> lines;
  fs::path dir;
  std::string model_path;
};

TEST_F(Fixture, TheSecondCompileIsAHitWithTheSameOutputs) {
  Result<Model> model = Model::Load(model_path);
  ASSERT_TRUE(model.ok());
  const CompileOptions options{.accelerators = {"cpu"}, .cache_dir = dir.string()};
  Result<CompiledModel> first = CompiledModel::Compile(*env, *model, options);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(first->cache_info().enabled);
  EXPECT_FALSE(first->cache_info().hit);
  EXPECT_EQ(first->cache_info().misses, 1u);
  Result<CompiledModel> second = CompiledModel::Compile(*env, *model, options);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->cache_info().hit);
  EXPECT_EQ(second->cache_info().key, first->cache_info().key);
  const std::vector<float> a = Run(*first), b = Run(*second);
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(b[i], a[i]);
    EXPECT_NEAR(b[i], 2.0f * std::sin(0.5f * static_cast<float>(i) - 1.0f), 1e-6f);
  }
  ASSERT_FALSE(lines.empty());
  EXPECT_THAT(lines.back().second, HasSubstr("compile cache: hit " + first->cache_info().key));
}

TEST_F(Fixture, JitWarnsOnceAndLeavesTheCacheDirectoryAlone) {
  Result<Model> model = Model::Load(model_path);
  ASSERT_TRUE(model.ok());
  Result<CompiledModel> compiled = CompiledModel::Compile(
      *env, *model, {.accelerators = {"cpu"}, .mode = CompileMode::kJit, .cache_dir = dir.string()});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  EXPECT_FALSE(compiled->cache_info().enabled);
  EXPECT_THAT(compiled->cache_info().disabled_reason, HasSubstr("process memory"));
  EXPECT_FALSE(fs::exists(dir));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].first, LogLevel::kWarning);
  EXPECT_THAT(lines[0].second, HasSubstr("disabled for this model"));
}

// The bundled plugins' environment and the model at `path`, through the C API.
void OpenThroughTheCApi(const std::string& path, tsr_app_environment* env, tsr_app_model* model) {
  tsr_app_environment_options eo{};
  eo.struct_size = sizeof(eo);
  const std::string bundled =
      std::string(std::getenv("TESSERA_BUILD_DIR") ? std::getenv("TESSERA_BUILD_DIR") : ".") + "/lib";
  eo.bundled_plugin_directory = bundled.c_str();
  eo.read_environment = 0;
  ASSERT_EQ(tsr_app_environment_create(&eo, env), TSR_OK);
  ASSERT_EQ(tsr_app_model_load(path.c_str(), nullptr, model), TSR_OK);
}

TEST_F(Fixture, TheCApiPassesTheCacheOptionsAndReportsTheOutcome) {
  tsr_app_environment c_env = nullptr;
  tsr_app_model c_model = nullptr;
  ASSERT_NO_FATAL_FAILURE(OpenThroughTheCApi(model_path, &c_env, &c_model));
  const std::string cache = dir.string();
  tsr_app_compile_options co{};
  co.struct_size = sizeof(co);
  co.accelerators = "cpu";
  co.cache_dir = cache.c_str();
  co.cache_max_bytes = 1 << 20;
  for (int round = 0; round < 2; ++round) {
    tsr_app_compiled_model compiled = nullptr;
    ASSERT_EQ(tsr_app_compile(c_env, c_model, &co, &compiled), TSR_OK);
    tsr_app_cache_info info{};
    info.struct_size = sizeof(info);
    ASSERT_EQ(tsr_app_compiled_model_cache_info(compiled, &info), TSR_OK);
    EXPECT_EQ(info.enabled, 1);
    EXPECT_EQ(info.hit, round == 1 ? 1 : 0);
    EXPECT_EQ(std::string(info.key).size(), 64u);
    tsr_app_cache_info too_small{};
    too_small.struct_size = 4;
    EXPECT_EQ(tsr_app_compiled_model_cache_info(compiled, &too_small), TSR_INVALID_ARGUMENT);
    tsr_app_compiled_model_destroy(compiled);
  }
  tsr_app_model_destroy(c_model);
  tsr_app_environment_destroy(c_env);
}

// The C API's view of the load-time compatibility verdicts (app API 4):
// an AOT compile for the cpu holds one cpu blob, stamped at compile by
// this very build, which the cpu library judges optimal.
TEST_F(Fixture, TheCApiReportsEachBlobsCompatibilityVerdict) {
  tsr_app_environment c_env = nullptr;
  tsr_app_model c_model = nullptr;
  ASSERT_NO_FATAL_FAILURE(OpenThroughTheCApi(model_path, &c_env, &c_model));
  tsr_app_compile_options co{};
  co.struct_size = sizeof(co);
  co.accelerators = "cpu";
  tsr_app_compiled_model compiled = nullptr;
  ASSERT_EQ(tsr_app_compile(c_env, c_model, &co, &compiled), TSR_OK) << tsr_app_last_error();
  EXPECT_EQ(tsr_app_api_version(), 8u);
  size_t count = 0;
  ASSERT_EQ(tsr_app_compiled_model_compatibility_count(compiled, &count), TSR_OK);
  ASSERT_EQ(count, 1u);
  tsr_app_bytecode_compatibility c{};
  c.struct_size = sizeof(c);
  ASSERT_EQ(tsr_app_compiled_model_compatibility(compiled, 0, &c), TSR_OK) << tsr_app_last_error();
  EXPECT_EQ(std::string(c.vendor), "cpu");
  EXPECT_EQ(c.verdict, TSR_APP_COMPATIBILITY_OPTIMAL);
  EXPECT_EQ(c.stamped, 1);
  EXPECT_EQ(std::string(c.message), "");
  EXPECT_EQ(tsr_app_compiled_model_compatibility(compiled, 1, &c), TSR_OUT_OF_RANGE);
  tsr_app_bytecode_compatibility too_small{};
  too_small.struct_size = 4;
  EXPECT_EQ(tsr_app_compiled_model_compatibility(compiled, 0, &too_small), TSR_INVALID_ARGUMENT);
  tsr_app_compiled_model_destroy(compiled);
  tsr_app_model_destroy(c_model);
  tsr_app_environment_destroy(c_env);
}

// The AOT/JIT mix through the C API: an AOT compile on dsp,cpu (mock_dsp compiles
// JIT only) holds the DSP's JIT handles and cannot be saved, with a message
// naming the way out; with leave_jit_only_ops its partitions stay in the
// file as ops, and compiling the loaded file JIT-compiles them. Outputs:
// 2 sin(x), computed here.
TEST_F(Fixture, TheCApiLeavesJitOnlyOpsInASavedModelForTheLoadToCompile) {
  tsr_app_environment c_env = nullptr;
  tsr_app_model c_model = nullptr;
  ASSERT_NO_FATAL_FAILURE(OpenThroughTheCApi(model_path, &c_env, &c_model));
  tsr_app_compile_options co{};
  co.struct_size = sizeof(co);
  co.accelerators = "dsp,cpu";
  co.policy = "greedy";
  co.soc = "ref-phone";
  const std::string saved = model_path + ".mix.tsr";
  tsr_app_compiled_model in_memory = nullptr;
  ASSERT_EQ(tsr_app_compile(c_env, c_model, &co, &in_memory), TSR_OK) << tsr_app_last_error();
  EXPECT_EQ(tsr_app_compiled_model_save(in_memory, saved.c_str()), TSR_FAILED_PRECONDITION);
  EXPECT_THAT(tsr_app_last_error(), HasSubstr("leave_jit_only_ops"));
  tsr_app_compiled_model_destroy(in_memory);
  co.leave_jit_only_ops = 1;
  tsr_app_compiled_model for_file = nullptr;
  ASSERT_EQ(tsr_app_compile(c_env, c_model, &co, &for_file), TSR_OK) << tsr_app_last_error();
  ASSERT_EQ(tsr_app_compiled_model_save(for_file, saved.c_str()), TSR_OK) << tsr_app_last_error();
  tsr_app_compiled_model_destroy(for_file);
  tsr_app_model_destroy(c_model);
  tsr_app_environment_destroy(c_env);

  Result<Model> loaded = Model::Load(saved);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_FALSE(loaded->is_compiled());  // the DSP's ops are still ops
  Result<CompiledModel> compiled =
      CompiledModel::Compile(*env, *loaded, {.accelerators = {"dsp", "cpu"}, .soc = "ref-phone", .policy = "greedy"});
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  bool dsp_jit = false;
  for (const PartitionReport::Partition& p : compiled->partition_report().partitions)
    dsp_jit = dsp_jit || (p.vendor == "mock_dsp" && p.mode == "jit");
  EXPECT_TRUE(dsp_jit);
  const std::vector<float> out = Run(*compiled);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[i], 2.0f * std::sin(0.5f * static_cast<float>(i) - 1.0f), 1e-5f) << i;
  fs::remove(saved);
}

// An entry that passes every check of the cache (its checksums, its key)
// but that the dispatch library refuses at load (here: a vendor body
// format it does not know, under a recomputed blob CRC and footer) used to
// fail every later run. It is evicted and the model compiled once more; the
// next compile is a hit on the new entry.
TEST_F(Fixture, AHitThatFailsToLoadIsEvictedAndCompiledOnceMore) {
  Result<Model> model = Model::Load(model_path);
  ASSERT_TRUE(model.ok());
  const CompileOptions options{.accelerators = {"cpu"}, .cache_dir = dir.string()};
  Result<CompiledModel> first = CompiledModel::Compile(*env, *model, options);
  ASSERT_TRUE(first.ok()) << first.status().message();
  const std::string entry = (dir / (first->cache_info().key + ".tsr")).string();
  std::ifstream in(entry, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  in.close();
  size_t at = 0;
  {
    absl::StatusOr<tessera::Graph> g = tessera::ParseModel(bytes, nullptr, {}, tessera::VerifyLevel::kStructure);
    ASSERT_TRUE(g.ok()) << g.status();
    ASSERT_EQ(g->bytecodes.size(), 1u);
    at = static_cast<size_t>(g->bytecodes[0].bytes.data() - bytes.data());
  }
  tsr_bytecode_header h;
  std::memcpy(&h, bytes.data() + at, sizeof(h));
  h.vendor_format_version = 999;
  std::memcpy(bytes.data() + at, &h, sizeof(h));
  h.checksum = tsr_bytecode_compute_checksum(bytes.data() + at, h.total_size);
  std::memcpy(bytes.data() + at, &h, sizeof(h));
  tessera::RefreshModelFooter(bytes);
  std::ofstream(entry, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));

  lines.clear();
  Result<CompiledModel> second = CompiledModel::Compile(*env, *model, options);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_FALSE(second->cache_info().hit);
  EXPECT_EQ(second->cache_info().invalidations, 1u);
  EXPECT_EQ(second->cache_info().stores, 1u);
  bool logged = false;
  for (const auto& [level, text] : lines) logged = logged || text.find("failed to load") != std::string::npos;
  EXPECT_TRUE(logged);
  const std::vector<float> out = Run(*second);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[i], 2.0f * std::sin(0.5f * static_cast<float>(i) - 1.0f), 1e-5f) << i;
  Result<CompiledModel> third = CompiledModel::Compile(*env, *model, options);
  ASSERT_TRUE(third.ok()) << third.status().message();
  EXPECT_TRUE(third->cache_info().hit);
}

}  // namespace
}  // namespace tessera::app
