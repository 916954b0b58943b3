// Dispatch honesty: the host tells a dispatch library
// TSR_SOURCE_FLAG_ENVELOPE_VERIFIED only when a CRC really covered the blob.
// The bundled cpu dispatch library's load_executable is wrapped to record
// the flags it is given; the model is compiled here and loaded from its
// bytes at each verification level.
#include <cstring>
#include <memory>
#include <vector>

#include "dispatch/loaded_model.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_loader.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::vector<uint32_t> g_flags_seen;
tsr_status (*g_real_load)(tsr_device_context, const tsr_executable_source*, tsr_executable*) = nullptr;

tsr_status RecordingLoad(tsr_device_context context, const tsr_executable_source* source, tsr_executable* out) {
  g_flags_seen.push_back(source->flags);
  return g_real_load(context, source, out);
}

class EnvelopeVerifiedFlag : public ::testing::Test {
 protected:
  void SetUp() override {
    DispatchLibrary* cpu = const_cast<DispatchLibrary*>(registry_.FindDispatch("cpu"));
    if (cpu == nullptr || registry_.FindCompilerByName("cpu") == nullptr) GTEST_SKIP() << "cpu plugin not built";
    wrapped_ = *cpu->api;
    g_real_load = cpu->api->load_executable;
    wrapped_.load_executable = RecordingLoad;
    cpu->api = &wrapped_;  // this test's registry only
    ModelBuilder b("flags");
    const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
    const int32_t w = b.Constant<float>("w", {4}, std::vector<float>{0.25f, 0.5f, 0.75f, 1.0f});
    b.Output(b.Op(TSR_OP_ADD, {x, w}));
    CompileOptions options;
    options.accelerators = {"cpu"};
    absl::StatusOr<CompiledGraph> compiled = CompileGraph(*std::move(b).Build(), registry_, options);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    compiled_ = compiled->graph;
    absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(compiled_);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    file_ = std::make_shared<std::vector<uint8_t>>(*std::move(bytes));
  }

  // The flags of every load_executable while loading `graph`.
  std::vector<uint32_t> FlagsLoading(const Graph& graph, absl::Status* status = nullptr) {
    g_flags_seen.clear();
    absl::StatusOr<std::shared_ptr<const LoadedModel>> loaded = LoadedModel::Create(graph, {}, registry_, {});
    if (status != nullptr)
      *status = loaded.status();
    else
      EXPECT_TRUE(loaded.ok()) << loaded.status();
    return g_flags_seen;
  }

  Graph Parsed(VerifyLevel level) {
    absl::StatusOr<Graph> g = ParseModel(*file_, file_, {}, level);
    EXPECT_TRUE(g.ok()) << g.status();
    return g.ok() ? *std::move(g) : Graph{};
  }

  PluginRegistry registry_ = BundledPluginsForTest();
  tsr_dispatch_api wrapped_{};
  Graph compiled_;
  std::shared_ptr<std::vector<uint8_t>> file_;
};

TEST_F(EnvelopeVerifiedFlag, OnlyWhenACrcCoveredTheBlob) {
  // Compiled in memory: the host runs the envelope CRC itself, then says so.
  for (uint32_t f : FlagsLoading(compiled_))
    EXPECT_EQ(f & TSR_SOURCE_FLAG_ENVELOPE_VERIFIED, TSR_SOURCE_FLAG_ENVELOPE_VERIFIED);
  // Loaded at full: the footer's data CRC covered the blob.
  const std::vector<uint32_t> full = FlagsLoading(Parsed(VerifyLevel::kFull));
  ASSERT_FALSE(full.empty());
  for (uint32_t f : full) EXPECT_EQ(f & TSR_SOURCE_FLAG_ENVELOPE_VERIFIED, TSR_SOURCE_FLAG_ENVELOPE_VERIFIED);
  // Loaded at structure: nobody read the blob's bytes; the library checks.
  const std::vector<uint32_t> structure = FlagsLoading(Parsed(VerifyLevel::kStructure));
  ASSERT_FALSE(structure.empty());
  for (uint32_t f : structure) EXPECT_EQ(f & TSR_SOURCE_FLAG_ENVELOPE_VERIFIED, 0u);
}

// The library's own check is what catches a damaged blob at structure: a
// flipped byte in the blob's body loads (the weights moved into the cpu
// bytecode) and is refused when the library loads the executable.
TEST_F(EnvelopeVerifiedFlag, AtStructureTheLibrarysCrcCatchesAFlippedBlobByte) {
  const float marker = 0.75f;
  size_t at = file_->size();
  for (size_t i = 0; i + 4 <= file_->size(); ++i)
    if (std::memcmp(file_->data() + i, &marker, 4) == 0) at = i;
  ASSERT_LT(at, file_->size()) << "the constant is not in the cpu blob";
  (*file_)[at] ^= 0x01;
  absl::StatusOr<Graph> g = ParseModel(*file_, file_, {}, VerifyLevel::kStructure);
  ASSERT_TRUE(g.ok()) << g.status();
  absl::Status status;
  FlagsLoading(*g, &status);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(ParseModel(*file_, file_, {}, VerifyLevel::kFull).status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace tessera
