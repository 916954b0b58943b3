// The runtime asks each dispatch library about each compiled blob
// (check_compatibility, ABI 1.2) with the compatibility string of the
// model's build stamp: optimal runs, prefer-recompile runs and says why,
// unsupported refuses the model naming vendor, SoC and reason; a library
// without the member runs the blob unchecked ("unknown"). Expected verdicts
// and outputs come from how each case is built: which test library answers
// what, which envelope field is edited, and hand arithmetic.
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "dispatch/model_executor.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/base/install_layout.h"
#include "framework/core/base/sha256.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_loader.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/bytecode.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// out = relu((x + y) * z): ADD and MUL for the frozen plugin (or all on cpu).
Graph SourceModel() {
  ModelBuilder b("stamped");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 3});
  const int32_t y = b.Input("y", TSR_DTYPE_F32, {2, 3});
  const int32_t z = b.Input("z", TSR_DTYPE_F32, {2, 3});
  const int32_t product = b.Op(TSR_OP_MUL, {b.Op(TSR_OP_ADD, {x, y}), z});
  b.Output(b.Op(TSR_OP_RELU, {product}, {}, {.name = "out"}));
  return *std::move(b).Build();
}

HostTensor Input(const char* name, std::vector<float> v) {
  HostTensor t{name, TSR_DTYPE_F32, {2, 3}, std::vector<uint8_t>(v.size() * 4)};
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

std::vector<HostTensor> Inputs() {
  return {Input("x", {1, -2, 3, 0.5f, 4, -1}), Input("y", {2, 1, -5, 0.25f, -4, 3}),
          Input("z", {3, 2, 1, -4, 7, 0.5f})};
}
// (x + y) * z by hand: 9, -2, -2, -3, 0, 1; then relu.
const std::vector<float> kWant = {9, 0, 0, 0, 0, 1};

// Compiled AOT, written to bytes and read back: the stamp as a file holds it.
Graph CompileAndReload(const PluginRegistry& registry, std::vector<std::string> accelerators,
                       const SocSelection& soc = {}) {
  CompileOptions options;
  options.partitioning.policy = PartitionPolicy::kGreedy;
  options.accelerators = std::move(accelerators);
  options.soc = soc;
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(SourceModel(), registry, options);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  if (!compiled.ok()) return {};
  absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(compiled->graph);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  auto owned = std::make_shared<std::vector<uint8_t>>(*std::move(bytes));
  absl::StatusOr<Graph> loaded = ParseModel(*owned, owned);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return loaded.ok() ? *std::move(loaded) : Graph{};
}

std::vector<float> RunOnce(ModelExecutor& executor) {
  absl::StatusOr<std::vector<HostTensor>> out = executor.Run(Inputs());
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  std::vector<float> got(6);
  std::memcpy(got.data(), (*out)[0].data.data(), 24);
  return got;
}

const BlobCompatibility* VerdictOf(const ModelExecutor& executor, const std::string& vendor) {
  for (const BlobCompatibility& c : executor.model()->compatibility())
    if (c.vendor == vendor) return &c;
  return nullptr;
}

// Edits the envelope of `vendor`'s blob (a copy), keeping its checksum right
// so only the dispatch library's verdict can refuse it.
void EditEnvelope(Graph& g, const std::string& vendor, void (*edit)(tsr_bytecode_header&)) {
  for (BytecodeBlob& blob : g.bytecodes) {
    if (blob.vendor != vendor) continue;
    std::vector<uint8_t> bytes(blob.bytes.begin(), blob.bytes.end());
    tsr_bytecode_header h;
    std::memcpy(&h, bytes.data(), sizeof(h));
    edit(h);
    std::memcpy(bytes.data(), &h, sizeof(h));
    h.checksum = tsr_bytecode_compute_checksum(bytes.data(), bytes.size());
    std::memcpy(bytes.data(), &h, sizeof(h));
    blob.bytes = g.AdoptBytes(std::move(bytes));
  }
}

class VerdictLibrary : public ::testing::TestWithParam<const char*> {};

TEST_P(VerdictLibrary, EachVerdictRunsOrRefusesAsItSays) {
  const std::string variant = GetParam();
  const PluginRegistry registry = BundledPluginsForTest({TestBuildDir() + "/test_plugins/verdict_" + variant});
  ASSERT_NE(registry.FindDispatch("frozen"), nullptr) << "verdict_" << variant << " not built";
  const Graph compiled = CompileAndReload(registry, {"frozen", "cpu"});
  ASSERT_TRUE(compiled.build_stamp.has_value());
  absl::StatusOr<std::unique_ptr<ModelExecutor>> executor = ModelExecutor::Create(compiled, {}, registry, {});
  if (variant == "unsupported") {
    ASSERT_FALSE(executor.ok());
    EXPECT_EQ(executor.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(executor.status().message(), AllOf(HasSubstr("frozen bytecode"), HasSubstr("SoC 'any'"),
                                                   HasSubstr("unsupported by"), HasSubstr("was not loaded")));
    return;
  }
  ASSERT_TRUE(executor.ok()) << executor.status();
  const BlobCompatibility* frozen = VerdictOf(**executor, "frozen");
  ASSERT_NE(frozen, nullptr);
  EXPECT_STREQ(CompatibilityVerdictName(frozen->verdict), variant.c_str());
  if (variant == "prefer_recompile")
    EXPECT_THAT(frozen->message, HasSubstr("prefers it recompiled"));
  else
    EXPECT_EQ(frozen->message, "");
  EXPECT_EQ(RunOnce(**executor), kWant);
}

INSTANTIATE_TEST_SUITE_P(Verdicts, VerdictLibrary, ::testing::Values("optimal", "prefer_recompile", "unsupported"));

TEST(BlobCompatibility, ALibraryWithoutTheCheckRunsTheBlobUnchecked) {
  // The frozen 1.1 pair has no check_compatibility; 1.3's leaves it NULL.
  for (const char* frozen : {"1_1", "1_3"}) {
    const PluginRegistry registry = BundledPluginsForTest({TestBuildDir() + "/test_plugins/frozen_" + frozen});
    const Graph compiled = CompileAndReload(registry, {"frozen", "cpu"});
    absl::StatusOr<std::unique_ptr<ModelExecutor>> executor = ModelExecutor::Create(compiled, {}, registry, {});
    ASSERT_TRUE(executor.ok()) << executor.status();
    const BlobCompatibility* c = VerdictOf(**executor, "frozen");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->verdict, CompatibilityVerdict::kUnknown) << frozen;
    EXPECT_THAT(c->message, HasSubstr("has no check_compatibility"));
    EXPECT_EQ(RunOnce(**executor), kWant);
  }
}

TEST(BlobCompatibility, TheCpuLibraryFindsItsOwnBuildOptimal) {
  const PluginRegistry registry = BundledPluginsForTest();
  const Graph compiled = CompileAndReload(registry, {"cpu"});
  ASSERT_TRUE(compiled.build_stamp.has_value());
  absl::StatusOr<std::unique_ptr<ModelExecutor>> executor = ModelExecutor::Create(compiled, {}, registry, {});
  ASSERT_TRUE(executor.ok()) << executor.status();
  const BlobCompatibility* cpu = VerdictOf(**executor, "cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->verdict, CompatibilityVerdict::kOptimal);
  EXPECT_TRUE(cpu->stamped);
  EXPECT_EQ(RunOnce(**executor), kWant);
}

TEST(BlobCompatibility, AStampNamingAnotherBuildPrefersARecompileAndStillRuns) {
  const PluginRegistry registry = BundledPluginsForTest();
  Graph compiled = CompileAndReload(registry, {"cpu"});
  ASSERT_TRUE(compiled.build_stamp.has_value());
  // What another build of the cpu plugin would have stamped.
  for (VendorBuildStamp& v : compiled.build_stamp->vendors) {
    if (v.vendor != "cpu") continue;
    const std::string own = ";build=" + v.build_id + ";";
    const size_t at = v.compatibility.find(own);
    ASSERT_NE(at, std::string::npos) << v.compatibility;
    v.compatibility.replace(at, own.size(), ";build=0.0.1+git.0000000.Debug;");
    v.build_id = "0.0.1+git.0000000.Debug";
  }
  absl::StatusOr<std::unique_ptr<ModelExecutor>> executor = ModelExecutor::Create(compiled, {}, registry, {});
  ASSERT_TRUE(executor.ok()) << executor.status();
  const BlobCompatibility* cpu = VerdictOf(**executor, "cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->verdict, CompatibilityVerdict::kPreferRecompile);
  EXPECT_THAT(cpu->message, AllOf(HasSubstr("the cpu bytecode"), HasSubstr("compiled by build 0.0.1+git.0000000.Debug"),
                                  HasSubstr("compile the model again")));
  EXPECT_EQ(RunOnce(**executor), kWant);
}

TEST(BlobCompatibility, AModelWithoutAStampIsCheckedWithNoString) {
  const PluginRegistry registry = BundledPluginsForTest();
  Graph compiled = CompileAndReload(registry, {"cpu"});
  compiled.build_stamp.reset();  // as an older tessera wrote it
  absl::StatusOr<std::unique_ptr<ModelExecutor>> executor = ModelExecutor::Create(compiled, {}, registry, {});
  ASSERT_TRUE(executor.ok()) << executor.status();
  const BlobCompatibility* cpu = VerdictOf(**executor, "cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->verdict, CompatibilityVerdict::kOptimal);
  EXPECT_FALSE(cpu->stamped);
  EXPECT_EQ(RunOnce(**executor), kWant);
}

TEST(BlobCompatibility, AnUnknownVendorFormatVersionIsRefused) {
  const PluginRegistry registry = BundledPluginsForTest();
  Graph compiled = CompileAndReload(registry, {"cpu"});
  EditEnvelope(compiled, "cpu", [](tsr_bytecode_header& h) { h.vendor_format_version = 99; });
  absl::StatusOr<std::unique_ptr<ModelExecutor>> executor = ModelExecutor::Create(compiled, {}, registry, {});
  ASSERT_FALSE(executor.ok());
  EXPECT_EQ(executor.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(
      executor.status().message(),
      AllOf(HasSubstr("the model's cpu bytecode, compiled for SoC 'any', is unsupported by libtessera_dispatch_cpu.so"),
            HasSubstr("cpu body format 99"), HasSubstr("was not loaded")));
}

TEST(BlobCompatibility, AnUnknownSocIsRefused) {
  const PluginRegistry registry = BundledPluginsForTest();
  absl::StatusOr<SocSelection> soc = FindSoc("ref-edge", TestBuildDir() + "/share/tessera/socs");
  ASSERT_TRUE(soc.ok()) << soc.status();
  Graph compiled = CompileAndReload(registry, {"npu", "cpu"}, *soc);
  bool has_npu = false;
  for (const BytecodeBlob& b : compiled.bytecodes) has_npu = has_npu || b.vendor == "systolic_npu";
  ASSERT_TRUE(has_npu) << "the npu compiled nothing of the model";
  EditEnvelope(compiled, "systolic_npu", [](tsr_bytecode_header& h) {
    std::memset(h.soc_model, 0, sizeof(h.soc_model));
    std::strcpy(h.soc_model, "ref-mars");
  });
  RuntimeOptions runtime;
  runtime.soc = *soc;
  absl::StatusOr<std::unique_ptr<ModelExecutor>> executor = ModelExecutor::Create(compiled, {}, registry, runtime);
  ASSERT_FALSE(executor.ok());
  EXPECT_THAT(
      executor.status().message(),
      AllOf(HasSubstr("systolic_npu bytecode, compiled for SoC 'ref-mars', is unsupported"),
            HasSubstr("SoC 'ref-mars' is not one this library runs (it runs: ref-edge, ref-phone, ref-server)")));
}

// A custom SoC file (any name but the bundled ones) runs where it compiled,
// as docs/soc.md promises: the blob names 'board-a', the run's context is
// 'board-a', and the library loads it (it used to refuse it as a SoC it
// does not run).
TEST(BlobCompatibility, ACustomSocRunsWhereItCompiled) {
  const PluginRegistry registry = BundledPluginsForTest();
  const std::string path = ::testing::TempDir() + "/board-a.soc";
  std::filesystem::copy_file(TestBuildDir() + "/share/tessera/socs/ref-edge.soc", path,
                             std::filesystem::copy_options::overwrite_existing);
  absl::StatusOr<SocSelection> soc = FindSoc(path, TestBuildDir() + "/share/tessera/socs");
  ASSERT_TRUE(soc.ok()) << soc.status();
  ASSERT_EQ(soc->name, "board-a");
  Graph compiled = CompileAndReload(registry, {"npu", "cpu"}, *soc);
  bool has_npu = false;
  for (const BytecodeBlob& b : compiled.bytecodes)
    has_npu = has_npu || (b.vendor == "systolic_npu" && b.soc_model == "board-a");
  ASSERT_TRUE(has_npu) << "the npu compiled nothing of the model for board-a";
  RuntimeOptions runtime;
  runtime.soc = *soc;
  absl::StatusOr<std::unique_ptr<ModelExecutor>> executor = ModelExecutor::Create(compiled, {}, registry, runtime);
  EXPECT_TRUE(executor.ok()) << executor.status();
  std::filesystem::remove(path);
}

// Another description under the same SoC name: the NPU blob was compiled
// for ref-edge as the bundled file describes it, and the run names
// ref-edge with a different file (one comment line added). The library
// sees the same name and says optimal; the host compares the stamp's
// SHA-256 of the description with the run's, so the verdict becomes
// prefer_recompile, naming both digests, and the model still runs. The
// same file gives optimal; a run with no SoC file is not compared.
TEST(BlobCompatibility, AnotherDescriptionOfTheStampedSocPrefersARecompile) {
  const PluginRegistry registry = BundledPluginsForTest();
  absl::StatusOr<SocSelection> soc = FindSoc("ref-edge", TestBuildDir() + "/share/tessera/socs");
  ASSERT_TRUE(soc.ok()) << soc.status();
  const Graph compiled = CompileAndReload(registry, {"npu", "cpu"}, *soc);
  ASSERT_TRUE(compiled.build_stamp.has_value());
  const std::string stamped = compiled.build_stamp->soc_description_sha256;
  EXPECT_EQ(stamped, Sha256Hex(soc->description));
  SocSelection edited = *soc;
  edited.description += "\n# a board revision\n";
  for (const auto& [run_soc, want] : std::vector<std::pair<SocSelection, CompatibilityVerdict>>{
           {*soc, CompatibilityVerdict::kOptimal},
           {edited, CompatibilityVerdict::kPreferRecompile},
           {SocSelection{"ref-edge", ""}, CompatibilityVerdict::kOptimal}}) {
    RuntimeOptions runtime;
    runtime.soc = run_soc;
    absl::StatusOr<std::unique_ptr<ModelExecutor>> executor = ModelExecutor::Create(compiled, {}, registry, runtime);
    ASSERT_TRUE(executor.ok()) << executor.status();
    const BlobCompatibility* npu = VerdictOf(**executor, "systolic_npu");
    ASSERT_NE(npu, nullptr);
    EXPECT_EQ(npu->verdict, want) << npu->message;
    if (want == CompatibilityVerdict::kPreferRecompile) {
      EXPECT_THAT(npu->message, AllOf(HasSubstr("compiled against another description of that SoC (sha256 " + stamped),
                                      HasSubstr("this run's is " + Sha256Hex(edited.description))));
    }
    EXPECT_EQ(RunOnce(**executor), kWant);
  }
}

}  // namespace
}  // namespace tessera
