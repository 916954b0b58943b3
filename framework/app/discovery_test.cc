// Discovery that explains itself, so an app deployed out of tree learns
// what is missing at the first call rather than at Compile: an Environment that
// finds no plugin fails naming the folders searched; TESSERA_SOC_PATH; the
// model format by content, not by file name; options a precompiled model
// ignores, reported; errors in the app's terms, not the CLI's flags.
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "framework/app/api_terms.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/app/tessera_app.hpp"
#include "tessera/ops.h"

namespace tessera::app {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

std::string BuildDir() {
  const char* dir = std::getenv("TESSERA_BUILD_DIR");
  return dir ? dir : ".";
}

// A fresh empty folder under the temp directory, removed at scope exit.
struct TempDir {
  explicit TempDir(const std::string& name)
      : path((fs::temp_directory_path() / (name + "_" + std::to_string(getpid()))).string()) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string path;
};

EnvironmentOptions BundledOptions() {
  EnvironmentOptions o;
  o.read_environment = false;
  o.bundled_plugin_directory = BuildDir() + "/lib";
  o.soc_directory = BuildDir() + "/share/tessera/socs";
  o.log_level = LogLevel::kError;
  return o;
}

// y = relu(x), x [1, 4], as a .tsr at `path`.
void WriteReluModel(const std::string& path) {
  tessera::ModelBuilder b("discovery_test");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {1, 4});
  b.Output(b.Op(TSR_OP_RELU, {x}, {}, {.name = "y"}));
  ASSERT_TRUE(tessera::WriteModelFile(*std::move(b).Build(), path).ok());
}

TEST(AppDiscovery, NoPluginFoundFailsAtCreateNamingTheFoldersSearched) {
  TempDir empty("tsr_no_plugins"), also_empty("tsr_no_plugins_either");
  EnvironmentOptions o;
  o.read_environment = false;
  o.plugin_directories = {also_empty.path};
  o.bundled_plugin_directory = empty.path;
  Result<Environment> env = Environment::Create(o);
  ASSERT_FALSE(env.ok());
  EXPECT_EQ(env.status().code(), TSR_NOT_FOUND);
  EXPECT_THAT(env.status().message(), HasSubstr("no plugin library"));
  EXPECT_THAT(env.status().message(), HasSubstr(empty.path + " (bundled"));
  EXPECT_THAT(env.status().message(), HasSubstr(also_empty.path + " (options"));
  EXPECT_THAT(env.status().message(), HasSubstr("EnvironmentOptions::plugin_directories"));
  // An app that lists what it finds may ask for the empty search.
  o.require_plugins = false;
  Result<Environment> listing = Environment::Create(o);
  ASSERT_TRUE(listing.ok()) << listing.status().message();
  EXPECT_TRUE(listing->plugins().empty());
  // The bundled folder has plugins: Create succeeds.
  EXPECT_TRUE(Environment::Create(BundledOptions()).ok());
}

TEST(AppDiscovery, TesseraSocPathNamesTheSocFolderUnlessTheAppNamesOne) {
  TempDir socs("tsr_soc_path");
  fs::copy_file(BuildDir() + "/share/tessera/socs/" +
                    fs::directory_iterator(BuildDir() + "/share/tessera/socs")->path().filename().string(),
                socs.path + "/only_here.soc");
  ASSERT_EQ(setenv("TESSERA_SOC_PATH", socs.path.c_str(), 1), 0);
  EnvironmentOptions o = BundledOptions();
  o.soc_directory = "";
  o.read_environment = true;
  Result<Environment> from_variable = Environment::Create(o);
  ASSERT_TRUE(from_variable.ok()) << from_variable.status().message();
  EXPECT_EQ(from_variable->soc_names(), std::vector<std::string>{"only_here"});
  // read_environment = false: the variable is not read (the bundled folder is).
  o.read_environment = false;
  Result<Environment> bundled = Environment::Create(o);
  ASSERT_TRUE(bundled.ok());
  EXPECT_THAT(bundled->soc_names(), Not(::testing::Contains("only_here")));
  // The app's own soc_directory wins over the variable.
  o.read_environment = true;
  o.soc_directory = BuildDir() + "/share/tessera/socs";
  EXPECT_THAT(Environment::Create(o)->soc_names(), Not(::testing::Contains("only_here")));
  // A relative path is refused, as TESSERA_PLUGIN_PATH's folders are.
  ASSERT_EQ(setenv("TESSERA_SOC_PATH", "relative/socs", 1), 0);
  o.soc_directory = "";
  Result<Environment> relative = Environment::Create(o);
  ASSERT_FALSE(relative.ok());
  EXPECT_EQ(relative.status().code(), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(relative.status().message(), HasSubstr("TESSERA_SOC_PATH 'relative/socs' is relative"));
  unsetenv("TESSERA_SOC_PATH");
}

TEST(AppDiscovery, TheFormatIsDetectedByContentNotByName) {
  TempDir dir("tsr_format_by_content");
  for (const std::string name : {"model.bin", "model.ONNX", "model.onnx", "model"}) {
    const std::string path = dir.path + "/" + name;
    WriteReluModel(path);
    Result<Model> model = Model::Load(path);
    ASSERT_TRUE(model.ok()) << name << ": " << model.status().message();
    ASSERT_EQ(model->inputs().size(), 1u);
    EXPECT_EQ(model->inputs()[0].name, "x") << name;
  }
#ifdef TSR_TEST_ONNX_NODE_DIR
  // An ONNX file under a Tessera-looking name is imported as ONNX.
  const std::string onnx = dir.path + "/relu.tsr";
  fs::copy_file(std::string(TSR_TEST_ONNX_NODE_DIR) + "/test_relu/model.onnx", onnx);
  Result<Model> imported = Model::Load(onnx);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_FALSE(imported->is_compiled());
  EXPECT_EQ(imported->inputs()[0].shape, (std::vector<int64_t>{3, 4, 5}));
#endif
  // A file that is neither says what it is not, with its path.
  const std::string junk = dir.path + "/junk.tsr";
  std::ofstream(junk) << "neither a Tessera model nor ONNX";
  Result<Model> bad = Model::Load(junk);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), Not(HasSubstr("--")));
}

TEST(AppDiscovery, AcceleratorsOnAPrecompiledModelAreReportedAsIgnored) {
  Result<Environment> env = Environment::Create(BundledOptions());
  ASSERT_TRUE(env.ok()) << env.status().message();
  TempDir dir("tsr_ignored_options");
  WriteReluModel(dir.path + "/relu.tsr");
  Result<CompiledModel> aot =
      CompiledModel::Compile(*env, *Model::Load(dir.path + "/relu.tsr"), {.accelerators = {"cpu"}});
  ASSERT_TRUE(aot.ok()) << aot.status().message();
  EXPECT_TRUE(aot->ignored_options().empty());  // a source model applies them
  ASSERT_TRUE(aot->Save(dir.path + "/relu.aot.tsr").ok());
  Result<Model> saved = Model::Load(dir.path + "/relu.aot.tsr");
  ASSERT_TRUE(saved.ok());
  Result<CompiledModel> plain = CompiledModel::Compile(*env, *saved);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_TRUE(plain->ignored_options().empty());
  Result<CompiledModel> again =
      CompiledModel::Compile(*env, *saved, {.accelerators = {"npu", "cpu"}, .policy = "greedy"});
  ASSERT_TRUE(again.ok()) << again.status().message();
  ASSERT_EQ(again->ignored_options().size(), 2u);
  EXPECT_THAT(again->ignored_options()[0], HasSubstr("CompileOptions::accelerators {npu,cpu} ignored"));
  EXPECT_THAT(again->ignored_options()[0], HasSubstr("already compiled"));
  EXPECT_THAT(again->ignored_options()[1], HasSubstr("CompileOptions::policy 'greedy' ignored"));
}

// docs/app-guide.md's deployment set for a model compiled for the cpu: the
// two files of the cpu dispatch library and nothing else (no compiler, no
// SoC file) run it.
TEST(AppDiscovery, TheCpuDeploymentSetAloneRunsACompiledModel) {
  TempDir dir("tsr_deploy_cpu"), lib("tsr_deploy_cpu_lib");
  {
    Result<Environment> full = Environment::Create(BundledOptions());
    ASSERT_TRUE(full.ok());
    WriteReluModel(dir.path + "/relu.tsr");
    Result<CompiledModel> aot =
        CompiledModel::Compile(*full, *Model::Load(dir.path + "/relu.tsr"), {.accelerators = {"cpu"}});
    ASSERT_TRUE(aot.ok()) << aot.status().message();
    ASSERT_TRUE(aot->Save(dir.path + "/relu.aot.tsr").ok());
  }
  for (const char* file : {"libtessera_dispatch_cpu.so", "libtessera_cpu_dispatch_impl.so"})
    fs::copy_file(BuildDir() + "/lib/" + file, lib.path + "/" + file);
  EnvironmentOptions o;
  o.read_environment = false;
  o.bundled_plugin_directory = lib.path;
  o.soc_directory = dir.path;  // no SoC files
  Result<Environment> env = Environment::Create(o);
  ASSERT_TRUE(env.ok()) << env.status().message();
  Result<Model> model = Model::Load(dir.path + "/relu.aot.tsr");
  ASSERT_TRUE(model.ok()) << model.status().message();
  Result<CompiledModel> compiled = CompiledModel::Compile(*env, *model);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  Result<RunContext> context = RunContext::Create(*compiled);
  ASSERT_TRUE(context.ok()) << context.status().message();
  Tensor x = Tensor::Allocate(compiled->inputs()[0]);
  const float in[4] = {-1.5f, 0.0f, 2.25f, -0.5f};
  for (int i = 0; i < 4; ++i) x.as<float>()[i] = in[i];
  Result<std::vector<Tensor>> y = context->Run({x});
  ASSERT_TRUE(y.ok()) << y.status().message();
  const float want[4] = {0.0f, 0.0f, 2.25f, 0.0f};  // relu by hand
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*y)[0].as<float>()[i], want[i]) << i;
}

TEST(AppDiscovery, ErrorsNameTheAppOptionsNotTheCliFlags) {
  EXPECT_EQ(InApiTerms("--input-shape names 'z', which is not a graph input"),
            "LoadOptions::input_shapes names 'z', which is not a graph input");
  EXPECT_EQ(InApiTerms("try --policy cost; raise it with --budget max_ops=VALUE"),
            "try CompileOptions::policy cost; raise it with LoadOptions::budgets max_ops=VALUE");
  EXPECT_EQ(InApiTerms("(tessera import --max-folded-bytes)"), "(LoadOptions::max_folded_bytes)");
  EXPECT_EQ(InApiTerms("--mode aot, --modest"), "CompileOptions::mode aot, --modest");
  EXPECT_EQ(InApiTerms("no flags here - at all"), "no flags here - at all");
  EXPECT_EQ(ErrorTextForApp("--soc x"), "CompileOptions::soc x");  // this process is no CLI
  // Through the API: a budget the model exceeds names LoadOptions::budgets.
  TempDir dir("tsr_api_terms");
  WriteReluModel(dir.path + "/relu.tsr");
  Result<Model> tight = Model::Load(dir.path + "/relu.tsr", {.budgets = {{"max_model_bytes", 16}}});
  ASSERT_FALSE(tight.ok());
  EXPECT_THAT(tight.status().message(), HasSubstr("LoadOptions::budgets"));
  EXPECT_THAT(tight.status().message(), Not(HasSubstr("--budget")));
}

}  // namespace
}  // namespace tessera::app
