// How the partitioner and the per-partition graph views scale with the op
// count. Each (graph, size) runs in a forked child so that its peak RSS
// (getrusage) is its own, and so that a run past the time cap can be killed
// without ending the bench; once a size times out, larger sizes of that
// graph are skipped. Figures go to docs/benchmarks.md.
//
//   partition_scale_bench [--max-ops N] [--cap-s S] [--only chain-single|chain-alternating|dag]
//                         [--policy plan|greedy|cost] [--allocator tessera|glibc]
//
// --allocator tessera (the default) sets the allocator policy the `tessera`
// binary sets at start (base/process_allocator.h: freed memory is reused),
// so plan_ms is what `tessera partition --json` reports as
// timings_ms.partition; glibc leaves glibc's defaults, as in an app that
// embeds the library and keeps its own allocator policy.
//
// --policy plan (the default) times the grouping alone (PlanPartitions);
// greedy and cost time the whole policy step the compile driver runs
// (PlanWithPolicy: both baselines, the cost policy's rounds, the plan
// costs), with the npu's ops at 0.5 us each and ref-phone-like costs.
// plan_ms is the step's wall time; plan_cpu_ms its CPU time (what it costs
// when other work shares the cores) and plan_faults the page faults it took
// (fresh pages: at 1M ops most of what separates it from 100k).
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/core/base/process_allocator.h"
#include "framework/core/model/model_builder.h"
#include "framework/compiler/partition/partitioner.h"
#include "framework/compiler/partition/policy_planner.h"
#include "framework/compiler/claims/graph_view_impl.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

// Claims of "npu" (ops where npu_takes[o]) before "cpu" (every op): the
// partitioner API directly, with no plugin in the way.
std::vector<AcceleratorClaims> TwoVendorClaims(const std::vector<bool>& npu_takes) {
  AcceleratorClaims npu{"npu", {}}, cpu{"cpu", {}};
  npu.claims.reserve(npu_takes.size());
  cpu.claims.assign(npu_takes.size(), OpClaim{true});
  for (bool takes : npu_takes)
    npu.claims.push_back(takes ? OpClaim{true, 0, "", 0.5} : OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, ""});
  return {npu, cpu};
}

struct Workload {
  Graph graph;
  std::vector<AcceleratorClaims> claims;
};

// x -> op0 -> op1 -> ...; `alternate` gives npu the even ops only, so every
// op is a cut (the worst case for the partition count).
Workload Chain(int n, bool alternate) {
  ModelBuilder b("chain");
  int32_t t = b.Input("x", TSR_DTYPE_F32, {4});
  std::vector<bool> npu(n);
  for (int i = 0; i < n; ++i) {
    t = b.Op(TSR_OP_RELU, {t});
    npu[i] = !alternate || i % 2 == 0;
  }
  b.Output(t);
  return {*std::move(b).Build(), TwoVendorClaims(npu)};
}

// A wide branching DAG: each ADD reads two of the last 64 tensors, and npu
// takes a random half, so there are many independent branches that the
// partitioner may group and many tempting merges that would be cycles.
Workload Dag(int n) {
  std::mt19937 rng(7);
  ModelBuilder b("dag");
  std::vector<int32_t> live;
  for (int i = 0; i < 8; ++i) live.push_back(b.Input(absl::StrCat("x", i), TSR_DTYPE_F32, {4}));
  std::vector<bool> npu(n);
  for (int i = 0; i < n; ++i) {
    const size_t window = std::min<size_t>(live.size(), 64);
    int32_t a = live[live.size() - 1 - rng() % window];
    int32_t c = live[live.size() - 1 - rng() % window];
    live.push_back(b.Op(TSR_OP_ADD, {a, c}));
    npu[i] = rng() % 2;
  }
  for (size_t i = live.size() - 8; i < live.size(); ++i) b.Output(live[i]);
  return {*std::move(b).Build(), TwoVendorClaims(npu)};
}

Workload Make(const std::string& kind, int n) {
  if (kind == "chain-single") return Chain(n, false);
  if (kind == "chain-alternating") return Chain(n, true);
  return Dag(n);
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// The child's CPU time: on a loaded machine the wall time of a step is
// mostly the time it waited for a core, which says nothing of its work.
double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

long PeakRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// Page faults so far: a step's first touch of a page costs a fault (the
// kernel zeroes and charges it), which heap memory freed earlier does not.
long MinorFaults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

struct Result {
  double plan_s = 0, plan_cpu_s = 0, views_s = 0;
  long graph_rss_kb = 0, peak_rss_kb = 0;
  long partitions = 0;
  long plan_faults = 0;
};

constexpr char kSoc[] =
    "[cpu]\ngflops_f32 = 150\ngops_int8 = 600\nthreads = 8\n"
    "[dispatch.npu]\noverhead_us = 25\nmemory = device_dram\n"
    "[transfer.host.device_dram]\nbandwidth_gbps = 20\nlatency_us = 2\n"
    "[transfer.device_dram.host]\nbandwidth_gbps = 20\nlatency_us = 2\n";

absl::StatusOr<PartitionPlan> PlanUnder(const std::string& policy, const Workload& w) {
  if (policy == "plan") return PlanPartitions(w.graph, w.claims);
  const SocCostModel soc = *SocCostModel::Parse(kSoc);
  const PlanCostModel model(w.graph, soc, {{"npu", "device_dram", 25, false}, {"cpu", "host", 0, true}});
  PolicyOptions options;
  options.policy = policy == "greedy" ? PartitionPolicy::kGreedy : PartitionPolicy::kCost;
  absl::StatusOr<PolicyResult> r = PlanWithPolicy(model, w.claims, options);
  if (!r.ok()) return r.status();
  return std::move(r->plan);
}

// In the child: build, plan, make every partition's view.
Result Measure(const std::string& kind, int n, const std::string& policy) {
  Result r;
  Workload w = Make(kind, n);
  r.graph_rss_kb = PeakRssKb();
  const double cpu_start = CpuSeconds();
  const long faults_start = MinorFaults();
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<PartitionPlan> plan = PlanUnder(policy, w);
  r.plan_s = Seconds(start);
  r.plan_cpu_s = CpuSeconds() - cpu_start;
  r.plan_faults = MinorFaults() - faults_start;
  if (!plan.ok()) {
    std::fprintf(stderr, "%s\n", std::string(plan.status().message()).c_str());
    std::exit(2);
  }
  r.partitions = static_cast<long>(plan->partitions.size());
  start = std::chrono::steady_clock::now();
  {
    const GraphUses uses(w.graph);
    std::vector<GraphView> views;
    views.reserve(plan->partitions.size());
    for (const PlannedPartition& p : plan->partitions) views.push_back(GraphView::Partition(w.graph, p.ops, uses));
  }
  r.views_s = Seconds(start);
  r.peak_rss_kb = PeakRssKb();
  return r;
}

// Runs Measure in a child killed after cap_s; false if it did not finish.
bool RunCapped(const std::string& kind, int n, int cap_s, const std::string& policy, bool tessera_allocator,
               Result* out) {
  int fd[2];
  if (pipe(fd) != 0) return false;
  const pid_t child = fork();
  if (child == 0) {
    close(fd[0]);
    if (tessera_allocator) KeepFreedMemoryForReuse();
    alarm(static_cast<unsigned>(cap_s));  // SIGALRM ends a run past the cap
    Result r = Measure(kind, n, policy);
    if (write(fd[1], &r, sizeof r) != static_cast<ssize_t>(sizeof r)) _exit(3);
    _exit(0);
  }
  close(fd[1]);
  Result r;
  const bool got = read(fd[0], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
  close(fd[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return false;
  *out = r;
  return true;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  int max_ops = 1000000, cap_s = 60;
  const char* only = nullptr;  // one graph kind, for profiling
  std::string policy = "plan", allocator = "tessera";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--max-ops") == 0) max_ops = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--cap-s") == 0) cap_s = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
    else if (std::strcmp(argv[i], "--policy") == 0) policy = argv[i + 1];
    else if (std::strcmp(argv[i], "--allocator") == 0) allocator = argv[i + 1];
  }
  if (allocator != "tessera" && allocator != "glibc") {
    std::fprintf(stderr, "--allocator is tessera or glibc, not '%s'\n", allocator.c_str());
    return 2;
  }
  std::printf("policy step: %s; allocator: %s\n", policy.c_str(),
              allocator == "tessera" ? "the tessera binary's (freed memory reused)" : "glibc's defaults");
  std::printf("%-18s %9s %11s %10s %12s %12s %10s %13s %13s\n", "graph", "ops", "partitions", "plan_ms",
              "plan_cpu_ms", "plan_faults", "views_ms", "graph_rss_MB", "peak_rss_MB");
  for (const char* kind : {"chain-single", "chain-alternating", "dag"}) {
    if (only != nullptr && std::strcmp(only, kind) != 0) continue;
    for (int n = 1000; n <= max_ops; n *= 10) {
      tessera::Result r;
      if (!tessera::RunCapped(kind, n, cap_s, policy, allocator == "tessera", &r)) {
        std::printf("%-18s %9d  did not finish within %d s (or failed); larger sizes skipped\n", kind, n, cap_s);
        std::fflush(stdout);
        break;
      }
      std::printf("%-18s %9d %11ld %10.1f %12.1f %12ld %10.1f %13.1f %13.1f\n", kind, n, r.partitions,
                  r.plan_s * 1e3, r.plan_cpu_s * 1e3, r.plan_faults, r.views_s * 1e3, r.graph_rss_kb / 1024.0,
                  r.peak_rss_kb / 1024.0);
      std::fflush(stdout);
    }
  }
  return 0;
}
