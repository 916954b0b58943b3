// What the first run of a freshly compiled model pays beyond a steady run,
// per partition: one process, one RunContext, run 1 against the minimum of
// the next RUNS runs, with the minor page faults of each (getrusage).
// The first run should not pay page faults per partition.
//
//   build/bin/first_run_bench MODEL.tsr [ACCELERATORS] [SOC] [POLICY] [RUNS]
//     (default npu,cpu ref-phone greedy 50)
//
// Run it in a fresh process per configuration: a second model in the same
// process would find the plugins' one-time work done.
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "tessera/app/tessera_app.hpp"

namespace {

long MinorFaults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

std::vector<tessera::app::Tensor> Inputs(const tessera::app::CompiledModel& compiled) {
  std::vector<tessera::app::Tensor> out;
  for (const tessera::app::TensorInfo& info : compiled.inputs()) {
    tessera::app::Tensor t = tessera::app::Tensor::Allocate(info);
    if (info.dtype == TSR_DTYPE_F32)
      for (size_t i = 0; i < t.size() / sizeof(float); ++i) t.as<float>()[i] = 0.001f * static_cast<float>(i % 997);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera::app;
  if (argc < 2) {
    std::fprintf(stderr, "usage: first_run_bench MODEL.tsr [ACCELERATORS] [SOC] [POLICY] [RUNS]\n");
    return 2;
  }
  const std::string accelerators = argc > 2 ? argv[2] : "npu,cpu";
  CompileOptions options;
  options.accelerators = absl::StrSplit(accelerators, ',');
  options.soc = argc > 3 ? argv[3] : "ref-phone";
  options.policy = argc > 4 ? argv[4] : "greedy";
  const int runs = argc > 5 ? std::atoi(argv[5]) : 50;

  Result<Environment> env = Environment::Create({});
  Result<Model> model = Model::Load(argv[1]);
  if (!env.ok() || !model.ok()) return std::fprintf(stderr, "load failed\n"), 1;
  Result<CompiledModel> compiled = CompiledModel::Compile(*env, *model, options);
  if (!compiled.ok()) return std::fprintf(stderr, "compile: %s\n", compiled.status().message().c_str()), 1;
  Result<RunContext> context = RunContext::Create(*compiled);
  if (!context.ok()) return std::fprintf(stderr, "context: %s\n", context.status().message().c_str()), 1;
  const std::vector<Tensor> inputs = Inputs(*compiled);

  RunProfile first;
  const long faults_before = MinorFaults();
  if (!context->Run(inputs, &first).ok()) return std::fprintf(stderr, "run 1 failed\n"), 1;
  const long first_faults = MinorFaults() - faults_before;
  std::vector<double> steady(first.steps.size(), 1e300);
  double steady_total = 1e300;
  long steady_faults = 0;
  for (int r = 0; r < runs; ++r) {
    RunProfile p;
    const long before = MinorFaults();
    if (!context->Run(inputs, &p).ok() || p.steps.size() != steady.size()) return std::fprintf(stderr, "run failed\n"), 1;
    if (r == runs - 1) steady_faults = MinorFaults() - before;
    steady_total = std::min(steady_total, p.total_us);
    for (size_t k = 0; k < steady.size(); ++k) steady[k] = std::min(steady[k], p.steps[k].host_time_us);
  }
  std::printf("%s on %s, %s, policy %s: %zu partitions\n", argv[1], accelerators.c_str(), options.soc.c_str(),
              options.policy.c_str(), steady.size());
  std::printf("%-4s %-14s %12s %12s %8s\n", "#", "vendor", "first us", "steady us", "ratio");
  size_t slow = 0;
  double extra = 0;
  for (size_t k = 0; k < steady.size(); ++k) {
    const double ratio = first.steps[k].host_time_us / steady[k];
    slow += ratio > 3;
    extra += first.steps[k].host_time_us - steady[k];
    std::printf("%-4zu %-14s %12.1f %12.1f %8.1f\n", k, first.steps[k].vendor.c_str(), first.steps[k].host_time_us,
                steady[k], ratio);
  }
  std::printf("run total: first %.1f us, steady (min of %d) %.1f us, ratio %.1f\n", first.total_us, runs, steady_total,
              first.total_us / steady_total);
  std::printf("first-run extra in partitions: %.1f us; partitions over 3x steady: %zu of %zu\n", extra, slow,
              steady.size());
  std::printf("minor page faults: first run %ld, a steady run %ld\n", first_faults, steady_faults);
  return 0;
}
