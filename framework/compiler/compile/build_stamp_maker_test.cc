// A compile stamps what built it: the SoC and its description's SHA-256,
// every compiling vendor's identity as its plugin declares it, the options.
// Expected values are read from the inputs (the SoC file, the registry's
// plugin info, the options given), never from the stamp maker.
#include <fstream>
#include <sstream>

#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/base/install_layout.h"
#include "framework/core/base/sha256.h"
#include "framework/core/model/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

Graph Tiny() {
  ModelBuilder b("tiny");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 3});
  b.Output(b.Op(TSR_OP_RELU, {b.Op(TSR_OP_ADD, {x, x})}, {}, {.name = "y"}));
  return *std::move(b).Build();
}

TEST(BuildStampMaker, AnAotCompileStampsItsSocVendorsAndOptions) {
  const PluginRegistry registry = BundledPluginsForTest();
  const std::string soc_file = TestBuildDir() + "/share/tessera/socs/ref-phone.soc";
  absl::StatusOr<SocSelection> soc = FindSoc(soc_file, "");
  ASSERT_TRUE(soc.ok()) << soc.status();
  std::ifstream in(soc_file, std::ios::binary);
  std::stringstream file_bytes;
  file_bytes << in.rdbuf();
  CompileOptions options;
  options.accelerators = {"cpu"};
  options.soc = *soc;
  options.plugin_options = {{"kernels", "reference"}};
  options.partitioning.policy = PartitionPolicy::kGreedy;
  options.partitioning.min_ops = 1;
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(Tiny(), registry, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_TRUE(compiled->graph.build_stamp.has_value());
  const BuildStamp& s = *compiled->graph.build_stamp;
  EXPECT_EQ(s.soc, "ref-phone");
  EXPECT_EQ(s.soc_description_sha256, Sha256Hex(file_bytes.str()));
  EXPECT_EQ(s.mode, "aot");
  EXPECT_EQ(s.accelerators, std::vector<std::string>{"cpu"});
  EXPECT_EQ(s.options, options.plugin_options);
  EXPECT_EQ(s.partition_policy, "greedy");
  EXPECT_EQ(s.min_ops, 1);
  ASSERT_EQ(s.vendors.size(), 1u);
  const CompilerPluginLibrary* cpu = registry.FindCompiler("cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(s.vendors[0].vendor, "cpu");
  EXPECT_EQ(s.vendors[0].plugin_version, cpu->info->plugin_version);
  EXPECT_EQ(s.vendors[0].build_id, cpu->info->build_id);
  EXPECT_EQ(s.vendors[0].abi_version, std::to_string(cpu->version.major) + "." + std::to_string(cpu->version.minor));
  EXPECT_THAT(s.vendors[0].compatibility, HasSubstr(std::string("vendor=cpu;build=") + cpu->info->build_id + ";"));
}

TEST(BuildStampMaker, AJitCompileHasNoStamp) {
  const PluginRegistry registry = BundledPluginsForTest();
  CompileOptions options;
  options.accelerators = {"cpu"};
  options.mode = CompileMode::kJit;
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(Tiny(), registry, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_FALSE(compiled->graph.build_stamp.has_value());
}

}  // namespace
}  // namespace tessera
