// The runtime stands alone: this test links tessera_runtime (and the core and loader below it)
// only, not the compiler side (no partitioner, no compile driver, no graph
// view), and runs a model that the `tessera compile` CLI compiled ahead of
// time, with dispatch libraries only (no compiler library is opened).
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "dispatch/execution_context.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_loader.h"
#include "framework/core/model/model_writer.h"
#include "framework/loader/plugin_registry.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

std::string BuildDir() {
  const char* dir = std::getenv("TESSERA_BUILD_DIR");
  return dir ? dir : ".";
}

TEST(RuntimeOnly, RunsAnAotModelWithDispatchLibrariesAlone) {
  // out = relu(x·Wᵀ) + x, on npu,cpu: the FC and RELU on the NPU.
  ModelBuilder b("runtime_only");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 4});
  const std::vector<float> w = {0.5f, 0, 0, 0, 0, -1, 0, 0, 0, 0, 2, 0, 0.25f, 0.25f, 0.25f, 0.25f};
  const int32_t fc = b.Op(TSR_OP_FULLY_CONNECTED, {x, b.Constant<float>("w", {4, 4}, w)});
  b.Output(b.Op(TSR_OP_ADD, {b.Op(TSR_OP_RELU, {fc}), x}, {}, {.name = "out"}));
  const std::string base =
      (std::filesystem::temp_directory_path() / ("runtime_only_" + std::to_string(getpid()))).string();
  ASSERT_TRUE(WriteModelFile(*std::move(b).Build(), base + ".tsr").ok());
  const std::string cmd = BuildDir() + "/bin/tessera compile " + base + ".tsr -o " + base +
                          ".aot.tsr --accelerators npu,cpu >/dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << cmd;

  absl::StatusOr<Graph> compiled = LoadModelFile(base + ".aot.tsr");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  PluginSearchOptions search;
  search.read_environment = false;
  search.bundled_directory = BuildDir() + "/lib";
  search.load_compilers = false;
  const PluginRegistry registry = PluginRegistry::Discover(search);
  EXPECT_TRUE(registry.compilers().empty());
  ASSERT_FALSE(registry.dispatchers().empty());
  absl::StatusOr<std::shared_ptr<const LoadedModel>> model = LoadedModel::Create(*compiled, {}, registry, {});
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<std::unique_ptr<ExecutionContext>> context = ExecutionContext::Create(*model);
  ASSERT_TRUE(context.ok()) << context.status();

  const std::vector<float> xs = {1, 2, 3, 4, -1, -2, -3, -4};
  HostTensor in{"x", TSR_DTYPE_F32, {2, 4}, std::vector<uint8_t>(32)};
  std::memcpy(in.data.data(), xs.data(), 32);
  absl::StatusOr<std::vector<HostTensor>> out = (*context)->Run({in});
  ASSERT_TRUE(out.ok()) << out.status();
  float y[8];
  std::memcpy(y, out->at(0).data.data(), sizeof(y));
  // By hand: fc row 0 = (0.5, -2, 6, 2.5) -> relu + x = (1.5, 2, 9, 6.5);
  // row 1 = (-0.5, 2, -6, -2.5) -> (-1, 0, -3, -4).
  const float want[8] = {1.5f, 2, 9, 6.5f, -1, 0, -3, -4};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(y[i], want[i], 1e-2) << i;  // the NPU computes in FP16
  std::remove((base + ".tsr").c_str());
  std::remove((base + ".aot.tsr").c_str());
}

}  // namespace
}  // namespace tessera
