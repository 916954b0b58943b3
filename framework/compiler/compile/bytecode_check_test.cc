// Blobs are checked before anything is written: a compiler whose bytecode
// fails the envelope check, names another vendor or lacks an entry point
// loses its partitions with that reason (they fall back to the cpu), and
// the model that results runs. Before this check such a model was written
// with exit 0 and failed only on the device.
#include "framework/compiler/compile/bytecode_check.h"

#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/model/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {
using ::testing::HasSubstr;

// Two ADDs (the test vendor claims ADD), a SIN for the cpu.
Graph AddModel() {
  ModelBuilder b("adds");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  const int32_t y = b.Op(TSR_OP_ADD, {b.Op(TSR_OP_ADD, {x, x}), x});
  b.Output(b.Op(TSR_OP_SIN, {y}));
  return *std::move(b).Build();
}

absl::StatusOr<CompiledGraph> CompileWith(const std::string& variant) {
  static std::map<std::string, PluginRegistry>* registries = new std::map<std::string, PluginRegistry>();
  auto it = registries->find(variant);
  if (it == registries->end())
    it = registries->emplace(variant, BundledPluginsForTest({TestBuildDir() + "/test_plugins/" + variant})).first;
  CompileOptions options;
  options.accelerators = {"testvendor", "cpu"};
  options.partitioning.policy = PartitionPolicy::kGreedy;  // the test vendor gets its ADDs whatever they cost
  return CompileGraph(AddModel(), it->second, options);
}

void ExpectFellBackToCpu(const std::string& variant, const std::string& reason) {
  absl::StatusOr<CompiledGraph> compiled = CompileWith(variant);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_FALSE(compiled->fallbacks.empty()) << variant;
  EXPECT_EQ(compiled->fallbacks[0].vendor, "testvendor");
  EXPECT_THAT(compiled->fallbacks[0].reason, HasSubstr(reason)) << variant;
  for (const BytecodeBlob& blob : compiled->graph.bytecodes) EXPECT_EQ(blob.vendor, "cpu");
}

TEST(BytecodeCheck, AGoodBlobIsWritten) {
  absl::StatusOr<CompiledGraph> compiled = CompileWith("good");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_TRUE(compiled->fallbacks.empty());
  bool has_test_blob = false;
  for (const BytecodeBlob& blob : compiled->graph.bytecodes) has_test_blob |= blob.vendor == "testvendor";
  EXPECT_TRUE(has_test_blob);
}

TEST(BytecodeCheck, AWrongChecksumIsTheVendorsCompileFailure) {
  ExpectFellBackToCpu("bad_checksum", "testvendor returned bytecode that fails the envelope check");
}

TEST(BytecodeCheck, AnEnvelopeNamingAnotherVendorIsRefused) {
  ExpectFellBackToCpu("blob_vendor", "envelope names vendor 'other'");
}

TEST(BytecodeCheck, AnEntryPointMissingFromTheBlobIsRefused) {
  ExpectFellBackToCpu("missing_entry", "which its bytecode does not contain");
}

}  // namespace
}  // namespace tessera
