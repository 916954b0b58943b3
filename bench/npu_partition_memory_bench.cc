// Peak memory of a model cut into many NPU partitions (5,000 NPU
// partitions took over 8 GB). The frag-chain demo graph, N x [ADD (npu) ->
// SIN (cpu)] on 16 floats, compiled for npu,cpu with the greedy policy (N
// NPU partitions), loaded, given one run context and run once. Prints the
// peak RSS (getrusage) after each stage, so the run's share shows apart
// from compiling and loading. Figures go to docs/reliability.md §2.
//
//   build/bin/npu_partition_memory_bench [PARTITIONS]   (default 5000)
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dispatch/execution_context.h"
#include "dispatch/loaded_model.h"
#include "framework/cli/fragmenting_models.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/base/install_layout.h"
#include "framework/loader/plugin_registry.h"

namespace {

double PeakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

int Fail(const char* stage, const absl::Status& s) {
  std::fprintf(stderr, "%s failed: %s\n", stage, std::string(s.message()).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera;
  const int partitions = argc > 1 ? std::atoi(argv[1]) : 5000;
  absl::StatusOr<Graph> graph = cli::BuildFragmentingChain(partitions);
  if (!graph.ok()) return Fail("build", graph.status());
  PluginSearchOptions search;
  search.read_environment = false;
  search.bundled_directory = BundledPluginDirectory();
  const PluginRegistry registry = PluginRegistry::Discover(search);
  CompileOptions options;
  options.accelerators = {"npu", "cpu"};
  options.partitioning.policy = PartitionPolicy::kGreedy;
  options.budgets.max_partition_count = 2 * static_cast<uint64_t>(partitions);
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(*graph, registry, options);
  if (!compiled.ok()) return Fail("compile", compiled.status());
  std::printf("%d NPU partitions, %zu steps\n", partitions, compiled->graph.ops.size());
  std::printf("peak RSS after compile: %8.1f MiB\n", PeakRssMiB());
  absl::StatusOr<std::shared_ptr<const LoadedModel>> model =
      LoadedModel::Create(compiled->graph, compiled->jit_slots, registry, {options.soc, options.plugin_options});
  if (!model.ok()) return Fail("load", model.status());
  std::printf("peak RSS after load:    %8.1f MiB\n", PeakRssMiB());
  absl::StatusOr<std::unique_ptr<ExecutionContext>> context = ExecutionContext::Create(*model);
  if (!context.ok()) return Fail("run context", context.status());
  HostTensor x{"x", TSR_DTYPE_F32, {16}, std::vector<uint8_t>(16 * 4)};
  absl::StatusOr<std::vector<HostTensor>> out = (*context)->Run({x});
  if (!out.ok()) return Fail("run", out.status());
  std::printf("peak RSS after run:     %8.1f MiB\n", PeakRssMiB());
  return 0;
}
