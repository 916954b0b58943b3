// The cost policy is monotone in its choices: for any accelerator list L
// and any L' that contains it (in the same order), the plan for L' models
// no slower than the plan for L. A property over seeded random graphs and
// claims; the bundled models on the reference SoCs are checked through the
// CLI (framework/cli/cli_partition_monotonicity_test.cc).
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "framework/compiler/partition/policy_planner.h"
#include "framework/core/model/model_builder.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

// Two accelerators in their own memories (a DRAM one with a large dispatch
// overhead, a TCM one with a small one) and the fallback.
constexpr char kSoc[] =
    "[cpu]\ngflops_f32 = 1\ngops_int8 = 4\nthreads = 1\n"
    "[dispatch.npu]\noverhead_us = 12\nmemory = device_dram\n"
    "[dispatch.dsp]\noverhead_us = 3\nmemory = dsp_tcm\n"
    "[transfer.host.device_dram]\nbandwidth_gbps = 16\nlatency_us = 1\n"
    "[transfer.device_dram.host]\nbandwidth_gbps = 16\nlatency_us = 1\n"
    "[transfer.host.dsp_tcm]\nbandwidth_gbps = 8\nlatency_us = 0.5\n"
    "[transfer.dsp_tcm.host]\nbandwidth_gbps = 8\nlatency_us = 0.5\n";

// A random DAG of elementwise ops: each op reads one or two earlier
// tensors, so the graph has branches and joins; a few tensors are outputs.
Graph RandomGraph(std::mt19937& rng, int ops, int64_t elements) {
  ModelBuilder b("random");
  std::vector<int32_t> tensors = {b.Input("x", TSR_DTYPE_F32, {elements})};
  const int32_t kinds[] = {TSR_OP_ADD, TSR_OP_MUL, TSR_OP_RELU, TSR_OP_SUB, TSR_OP_TANH};
  for (int i = 0; i < ops; ++i) {
    const int32_t kind = kinds[rng() % 5];
    // Mostly the latest tensor (chains), sometimes an older one (branches).
    auto pick = [&]() {
      const size_t n = tensors.size();
      return rng() % 3 == 0 ? tensors[rng() % n] : tensors[n - 1];
    };
    const int32_t a = pick();
    const bool unary = kind == TSR_OP_RELU || kind == TSR_OP_TANH;
    tensors.push_back(unary ? b.Op(kind, {a}) : b.Op(kind, {a, pick()}));
  }
  b.Output(tensors.back());
  if (tensors.size() > 3) b.Output(tensors[tensors.size() / 2]);
  return *std::move(b).Build();
}

// Per accelerator, per op: claimed with a probability drawn per graph, at
// an estimate that is a random fraction of the op's cpu time (from 2% to
// 150%): the npu fast on what it claims, the dsp anywhere in between.
std::vector<AcceleratorClaims> RandomClaims(std::mt19937& rng, const Graph& g, int64_t elements) {
  std::vector<AcceleratorClaims> out = {{"npu", {}}, {"dsp", {}}, {"cpu", {}}};
  std::uniform_real_distribution<double> p(0, 1), npu(0.01, 0.3), dsp(0.05, 1.5);
  const double cpu_us = static_cast<double>(elements) / 1000;  // one f32 op per element at 1 GFLOP/s
  const double claim_npu = p(rng), claim_dsp = p(rng);
  for (size_t o = 0; o < g.ops.size(); ++o) {
    out[0].claims.push_back(p(rng) < claim_npu ? OpClaim{true, 0, "", cpu_us * npu(rng)}
                                               : OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, "no"});
    out[1].claims.push_back(p(rng) < claim_dsp ? OpClaim{true, 0, "", cpu_us * dsp(rng)}
                                               : OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, "no"});
    out[2].claims.push_back(OpClaim{true});
  }
  return out;
}

// The modelled latency of the cost policy's plan for the accelerators of
// `all` that `keep` names (a sub-list, in the same order).
double PlanUs(const Graph& g, const SocCostModel& soc, const std::vector<AcceleratorClaims>& all,
              const std::vector<std::string>& keep) {
  std::vector<AcceleratorClaims> claims;
  std::vector<AcceleratorTraits> traits;
  for (const AcceleratorClaims& a : all) {
    if (std::find(keep.begin(), keep.end(), a.vendor) == keep.end()) continue;
    claims.push_back(a);
    const kit::DispatchModel d = soc.Dispatch(a.vendor);
    traits.push_back({a.vendor, d.memory, d.overhead_us, a.vendor == "cpu"});
  }
  PlanCostModel model(g, soc, traits);
  absl::StatusOr<PolicyResult> r = PlanWithPolicy(model, claims, PolicyOptions{PartitionPolicy::kCost});
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->cost.total_us() : 0;
}

// A SoC of random dispatch overheads and bandwidths (the memories and
// their kinds as kSoc's).
SocCostModel RandomSoc(std::mt19937& rng) {
  std::uniform_real_distribution<double> overhead(0.5, 40), bandwidth(0.5, 32), latency(0.1, 4);
  std::string text = "[cpu]\ngflops_f32 = 1\ngops_int8 = 4\nthreads = 1\n";
  auto add = [&](const std::string& section, const std::string& body) { text += "[" + section + "]\n" + body; };
  add("dispatch.npu", "overhead_us = " + std::to_string(overhead(rng)) + "\nmemory = device_dram\n");
  add("dispatch.dsp", "overhead_us = " + std::to_string(overhead(rng)) + "\nmemory = dsp_tcm\n");
  for (const char* link : {"host.device_dram", "device_dram.host", "host.dsp_tcm", "dsp_tcm.host",
                           "device_dram.dsp_tcm", "dsp_tcm.device_dram"})
    add(std::string("transfer.") + link,
        "bandwidth_gbps = " + std::to_string(bandwidth(rng)) + "\nlatency_us = " + std::to_string(latency(rng)) + "\n");
  return *SocCostModel::Parse(text);
}

TEST(PolicyMonotonicity, AWiderListNeverModelsSlowerOnRandomGraphs) {
  // Every list paired with every list it contains (the cpu always there).
  const std::vector<std::vector<std::string>> lists = {{"cpu"}, {"npu", "cpu"}, {"dsp", "cpu"}, {"npu", "dsp", "cpu"}};
  const std::vector<std::pair<int, int>> contains = {{1, 0}, {2, 0}, {3, 0}, {3, 1}, {3, 2}};
  int violations = 0;
  for (uint32_t seed = 1; seed <= 400; ++seed) {
    std::mt19937 rng(seed);
    // 16 to 256k elements, log-uniform: from dispatch-bound to compute-bound.
    const int64_t elements = int64_t{16} << (rng() % 15);
    const Graph g = RandomGraph(rng, 8 + static_cast<int>(rng() % 120), elements);
    const std::vector<AcceleratorClaims> claims = RandomClaims(rng, g, elements);
    const SocCostModel soc = seed % 2 == 0 ? *SocCostModel::Parse(kSoc) : RandomSoc(rng);
    std::vector<double> us;
    for (const auto& l : lists) us.push_back(PlanUs(g, soc, claims, l));
    for (const auto& [wide, narrow] : contains) {
      EXPECT_LE(us[wide], us[narrow] * 1.01)
          << "seed " << seed << ": " << lists[wide].size() << " accelerators model " << us[wide] << " us, "
          << lists[narrow].size() << " of them " << us[narrow] << " us";
      violations += us[wide] > us[narrow] * 1.01;
    }
  }
  EXPECT_EQ(violations, 0);
}

// By hand: a chain of 20 ADDs on 64k elements. The npu claims every other
// ADD and runs it in 1 us; the dsp claims every ADD at 5 us. Alone, the
// dsp runs the chain as one partition (20 x 5 us + 3 us dispatch + the
// ends' transfers); the npu's islands, each worth more than the cpu's
// ~65 us ADD, cost 12 us dispatch and two crossings each. With both, the
// plan must be no slower than the dsp's alone.
TEST(PolicyMonotonicity, AnAcceleratorThatWinsEachIslandDoesNotMakeTheChainSlower) {
  const SocCostModel soc = *SocCostModel::Parse(kSoc);
  ModelBuilder b("chain");
  int32_t t = b.Input("x", TSR_DTYPE_F32, {65536});
  for (int i = 0; i < 20; ++i) t = b.Op(TSR_OP_ADD, {t, t});
  b.Output(t);
  const Graph g = *std::move(b).Build();
  std::vector<AcceleratorClaims> claims = {{"npu", {}}, {"dsp", {}}, {"cpu", {}}};
  for (size_t o = 0; o < g.ops.size(); ++o) {
    claims[0].claims.push_back(o % 2 == 0 ? OpClaim{true, 0, "", 1.0}
                                          : OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, "no"});
    claims[1].claims.push_back(OpClaim{true, 0, "", 5.0});
    claims[2].claims.push_back(OpClaim{true});
  }
  const double dsp = PlanUs(g, soc, claims, {"dsp", "cpu"});
  const double npu = PlanUs(g, soc, claims, {"npu", "cpu"});
  const double both = PlanUs(g, soc, claims, {"npu", "dsp", "cpu"});
  EXPECT_LE(both, dsp * 1.01);
  EXPECT_LE(both, npu * 1.01);
}

}  // namespace
}  // namespace tessera
