// The broken test plugins (testing/plugins/test_plugin.cc) driven through
// their compiler tables with the framework's graph view: partition answers,
// compiled entry points and bytecode, and a failing compile's text. The
// loader's own tests (framework/loader/plugin_registry_test.cc) stop at
// loading; this is the first layer that hands a plugin a graph.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "framework/compiler/claims/graph_view_impl.h"
#include "framework/core/model/model_builder.h"
#include "framework/loader/plugin_registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/kit/bytecode_builder.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::string VariantCompiler(const std::string& variant) {
  const char* env = std::getenv("TESSERA_BUILD_DIR");
  const std::string build = env != nullptr && *env != '\0' ? env : TSR_TEST_BUILD_DIR;
  return build + "/test_plugins/" + variant + "/libtessera_compiler_testvendor.so";
}

class TestPluginThroughTheTable : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(VariantCompiler("good")))
      GTEST_FAIL() << "test plugins not built: " << VariantCompiler("good") << " is missing";
  }
};

Graph AddReluAddGraph() {
  ModelBuilder b("test");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 2});
  const int32_t c = b.Constant<float>("c", {2, 2}, std::vector<float>{1, 2, 3, 4});
  const int32_t a = b.Op(TSR_OP_ADD, {x, c});
  const int32_t r = b.Op(TSR_OP_RELU, {a});
  const int32_t y = b.Op(TSR_OP_ADD, {r, c});
  b.Output(y);
  absl::StatusOr<Graph> g = std::move(b).Build();
  EXPECT_TRUE(g.ok()) << g.status();
  return *std::move(g);
}

tsr_compiler_plugin CreatePlugin(const CompilerPluginLibrary& lib) {
  tsr_compiler_plugin_options opts{};
  opts.header = {sizeof(opts), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  tsr_compiler_plugin plugin = nullptr;
  EXPECT_EQ(lib.api->create(&opts, &plugin), TSR_OK);
  return plugin;
}

void PartitionAndCompile(const CompilerPluginLibrary& lib) {
  Graph g = AddReluAddGraph();
  tsr_compiler_plugin plugin = CreatePlugin(lib);
  ASSERT_NE(plugin, nullptr);
  GraphView whole = GraphView::Whole(g);
  std::vector<tsr_op_support> support(3);
  for (tsr_op_support& s : support) s.header.struct_size = sizeof(tsr_op_support);
  tsr_partition_options popts{};
  popts.header = {sizeof(popts), 1, 0};
  ASSERT_EQ(lib.api->partition(plugin, GraphViewApi(), whole.handle(), &popts, support.data()), TSR_OK);
  EXPECT_EQ(support[0].supported, 1u);
  EXPECT_EQ(support[1].supported, 0u);
  EXPECT_EQ(support[1].reason, TSR_REFUSAL_UNSUPPORTED_OP);
  EXPECT_STREQ(support[1].reason_detail, "testvendor claims ADD only");
  EXPECT_EQ(support[2].supported, 1u);

  GraphView p0 = GraphView::Partition(g, {0});
  GraphView p2 = GraphView::Partition(g, {2});
  const tsr_graph parts[] = {p0.handle(), p2.handle()};
  tsr_compile_options copts{};
  copts.header = {sizeof(copts), 1, 0};
  copts.mode = TSR_COMPILE_MODE_AOT;
  tsr_compiled compiled = nullptr;
  ASSERT_EQ(lib.api->compile(plugin, GraphViewApi(), parts, 2, &copts, &compiled), TSR_OK) << lib.api->get_last_error();
  const void* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(lib.api->compiled_bytecode(compiled, &data, &size), TSR_OK);
  const char* entry = nullptr;
  ASSERT_EQ(lib.api->compiled_entry_point(compiled, 1, &entry), TSR_OK);
  EXPECT_STREQ(entry, "test_partition_1");
  EXPECT_NE(lib.api->compiled_entry_point(compiled, 2, &entry), TSR_OK);
  tsr_status code = TSR_OK;
  absl::StatusOr<kit::VerifiedEntry> e = kit::VerifyAndFindEntry(
      std::span<const uint8_t>(static_cast<const uint8_t*>(data), size), "testvendor", "test_partition_1", &code);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->body.size(), 1u);
  EXPECT_EQ(e->entry.input_count, 1u);  // r crosses the boundary; the constant c does not
  EXPECT_EQ(e->entry.output_count, 1u);
  lib.api->release_compiled(compiled);
  lib.api->destroy(plugin);
}

TEST_F(TestPluginThroughTheTable, GoodPluginPartitionsAndCompiles) {
  absl::StatusOr<CompilerPluginLibrary> lib = PluginRegistry::LoadCompiler(VariantCompiler("good"), "testvendor");
  ASSERT_TRUE(lib.ok()) << lib.status();
  PartitionAndCompile(*lib);
}

TEST_F(TestPluginThroughTheTable, FrozenV1PluginPartitionsAndCompiles) {
  absl::StatusOr<CompilerPluginLibrary> lib = PluginRegistry::LoadCompiler(VariantCompiler("frozen_v1"), "testvendor");
  ASSERT_TRUE(lib.ok()) << lib.status();
  PartitionAndCompile(*lib);
}

TEST_F(TestPluginThroughTheTable, FailingCompileLoadsButCompileReportsItsText) {
  absl::StatusOr<CompilerPluginLibrary> lib =
      PluginRegistry::LoadCompiler(VariantCompiler("failing_compile"), "testvendor");
  ASSERT_TRUE(lib.ok()) << lib.status();
  Graph g = AddReluAddGraph();
  tsr_compiler_plugin plugin = CreatePlugin(*lib);
  ASSERT_NE(plugin, nullptr);
  GraphView p0 = GraphView::Partition(g, {0});
  const tsr_graph parts[] = {p0.handle()};
  tsr_compile_options copts{};
  copts.header = {sizeof(copts), 1, 0};
  copts.mode = TSR_COMPILE_MODE_AOT;
  tsr_compiled compiled = nullptr;
  const tsr_status code = lib->api->compile(plugin, GraphViewApi(), parts, 1, &copts, &compiled);
  EXPECT_EQ(code, TSR_INTERNAL);
  EXPECT_EQ(compiled, nullptr);
  absl::Status s = PluginStatus(code, lib->api->get_last_error, "compile failed");
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(s.message()), HasSubstr("compile failed: testvendor: code generation exploded"));
  lib->api->destroy(plugin);
}

}  // namespace
}  // namespace tessera
