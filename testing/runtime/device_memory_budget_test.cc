// Budgets::max_device_memory_bytes and the NPU's shared SRAM model, through
// the runtime a host uses (LoadedModel, ExecutionContext) and the bundled plugins.
#include "dispatch/device_memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "dispatch/execution_context.h"
#include "dispatch/loaded_model.h"
#include "framework/cli/fragmenting_models.h"
#include "framework/compiler/compile/compile_driver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/bytecode.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

TEST(DeviceMemoryUse, SumsExecutablesAndBuffersUpToTheBudget) {
  Budgets b;
  b.max_device_memory_bytes = 150;
  DeviceMemoryUse use("npu", b);
  ASSERT_TRUE(use.AddExecutable(100).ok());
  ASSERT_TRUE(use.AddBuffer(50).ok());  // exactly the budget: inclusive
  const absl::Status over = use.AddExecutable(1);
  EXPECT_EQ(over.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(over.message(), HasSubstr("the device memory of 'npu' (2 executables and 1 device buffers) is 151 bytes, "
                                        "above the budget max_device_memory_bytes = 150 (raise it with --budget "
                                        "max_device_memory_bytes=VALUE"));
  EXPECT_EQ(use.total_bytes(), 150u);  // unchanged by the refusal
}

TEST(DeviceMemoryUse, ASumPast64BitsIsRefusedEvenWithoutALimit) {
  Budgets b;
  b.max_device_memory_bytes = std::numeric_limits<uint64_t>::max();
  DeviceMemoryUse use("npu", b);
  ASSERT_TRUE(use.AddBuffer(std::numeric_limits<uint64_t>::max()).ok());
  EXPECT_THAT(use.AddBuffer(1).message(), HasSubstr("overflows 64 bits"));
}

// The frag-chain demo: `steps` x [ADD (npu) -> SIN (cpu)], so greedy
// planning makes `steps` NPU partitions, one executable each.
constexpr int kNpuPartitions = 64;

class ManyNpuPartitions : public ::testing::Test {
 protected:
  void SetUp() override {
    if (registry_.FindCompilerByName("npu") == nullptr) GTEST_SKIP() << "npu not built";
    absl::StatusOr<Graph> graph = cli::BuildFragmentingChain(kNpuPartitions);
    ASSERT_TRUE(graph.ok()) << graph.status();
    CompileOptions options;
    options.accelerators = {"npu", "cpu"};
    options.partitioning.policy = PartitionPolicy::kGreedy;
    absl::StatusOr<CompiledGraph> compiled = CompileGraph(*graph, registry_, options);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    compiled_ = *std::move(compiled);
    // The bytes the NPU device is asked to hold, from the envelopes: each
    // NPU executable's bytecode entry.
    for (const Op& op : compiled_.graph.ops) {
      if (op.dispatch->vendor == "cpu") continue;
      vendor_ = op.dispatch->vendor;
      ++npu_steps_;
      const BytecodeBlob& blob = compiled_.graph.bytecodes[op.dispatch->bytecode];
      tsr_bytecode_header h;
      ASSERT_EQ(tsr_bytecode_verify(blob.bytes.data(), blob.bytes.size(), nullptr, &h, nullptr, 0), TSR_OK);
      tsr_bytecode_entry e;
      ASSERT_EQ(tsr_bytecode_find_entry(blob.bytes.data(), &h, op.dispatch->entry_point.c_str(), &e), TSR_OK);
      npu_bytes_ += e.size;
    }
    ASSERT_EQ(npu_steps_, kNpuPartitions);
  }

  absl::StatusOr<std::shared_ptr<const LoadedModel>> Load(uint64_t device_memory_budget) {
    RuntimeOptions options;
    options.budgets.max_device_memory_bytes = device_memory_budget;
    return LoadedModel::Create(compiled_.graph, compiled_.jit_slots, registry_, options);
  }

  PluginRegistry registry_ = BundledPluginsForTest();
  CompiledGraph compiled_;
  std::string vendor_;
  int npu_steps_ = 0;
  uint64_t npu_bytes_ = 0;
};

TEST_F(ManyNpuPartitions, TheBudgetAdmitsTheModelAtItsSizeAndRefusesOneByteLess) {
  absl::StatusOr<std::shared_ptr<const LoadedModel>> fits = Load(npu_bytes_);
  ASSERT_TRUE(fits.ok()) << fits.status();
  // Every NPU output feeds a cpu SIN, so no buffer is the device's own.
  const int32_t npu_session = (*fits)->steps()[0].session;
  for (const StorageSpec& s : (*fits)->storages()) EXPECT_NE(s.allocating_session, npu_session);

  const absl::StatusOr<std::shared_ptr<const LoadedModel>> over = Load(npu_bytes_ - 1);
  ASSERT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted) << over.status();
  EXPECT_THAT(over.status().message(),
              HasSubstr(absl::StrCat("the device memory of '", vendor_, "' (", kNpuPartitions,
                                     " executables and 0 device buffers) is ", npu_bytes_,
                                     " bytes, above the budget max_device_memory_bytes = ", npu_bytes_ - 1)));
}

uint64_t ResidentBytes() {
  unsigned long size = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  const int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

// Each NPU invocation used to keep its own SRAM model (2 MiB on ref-phone,
// the default SoC) from its first invoke on: 64 partitions held 128 MiB
// after one run. Now the device's one shared SRAM serves them all.
TEST_F(ManyNpuPartitions, OneRunOfEveryPartitionHoldsOneDevicesSramNotOnePerPartition) {
  absl::StatusOr<std::shared_ptr<const LoadedModel>> model = Load(Budgets{}.max_device_memory_bytes);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<std::unique_ptr<ExecutionContext>> context = ExecutionContext::Create(*model);
  ASSERT_TRUE(context.ok()) << context.status();
  HostTensor x{"x", TSR_DTYPE_F32, {16}, std::vector<uint8_t>(16 * 4)};
  const uint64_t before = ResidentBytes();
  absl::StatusOr<std::vector<HostTensor>> out = (*context)->Run({x});
  ASSERT_TRUE(out.ok()) << out.status();
  const uint64_t after = ResidentBytes();
  if (before == 0 || after == 0) GTEST_SKIP() << "no /proc/self/statm";
  constexpr uint64_t kSramBytes = (768 + 768 + 512) * 1024;  // socs/ref-phone.soc
  // One device's SRAM plus slack for the run's own allocations; one SRAM
  // per partition would be 64 x 2 MiB.
  EXPECT_LT(after - std::min(after, before), 8 * kSramBytes)
      << "RSS grew from " << before << " to " << after << " bytes over one run of " << kNpuPartitions << " partitions";
}

}  // namespace
}  // namespace tessera
