// Checks of a partition plan that are independent of the partitioner (brute
// force), and the generated graphs that tempt it, for every test of a
// planner to share.
#ifndef TESSERA_FRAMEWORK_PARTITION_PLAN_CHECKS_FOR_TEST_H_
#define TESSERA_FRAMEWORK_PARTITION_PLAN_CHECKS_FOR_TEST_H_

#include <algorithm>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "graph/graph.h"
#include "model/model_builder.h"
#include "partition/partition_plan.h"
#include "tessera/ops.h"

namespace tessera {

// Every op's producers run in an earlier unit or in the same partition
// earlier: the plan is executable in order.
inline void ExpectExecutable(const Graph& g, const PartitionPlan& plan) {
  std::vector<int> unit_of_partition(plan.partitions.size(), -1);
  for (size_t u = 0; u < plan.order.size(); ++u)
    if (plan.order[u].partition >= 0) unit_of_partition[plan.order[u].partition] = static_cast<int>(u);
  const std::vector<int32_t> producer = g.ProducerIndex();
  for (size_t o = 0; o < g.ops.size(); ++o)
    for (int32_t t : g.ops[o].inputs) {
      if (t < 0 || producer[t] < 0) continue;
      const int from = unit_of_partition[plan.op_partition[producer[t]]];
      const int to = unit_of_partition[plan.op_partition[o]];
      EXPECT_LE(from, to) << "op " << o << " runs before its producer";
    }
}

// Brute force, independent of the partitioner: op-level reachability by
// closure, then no path may leave a partition and come back into it.
inline void ExpectConvex(const Graph& g, const PartitionPlan& plan) {
  const size_t n = g.ops.size();
  const std::vector<int32_t> producer = g.ProducerIndex();
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));  // reach[a][b]: a path a -> b
  for (size_t b = 0; b < n; ++b)
    for (int32_t t : g.ops[b].inputs) {
      if (t < 0 || producer[t] < 0) continue;
      const size_t a = static_cast<size_t>(producer[t]);
      reach[a][b] = true;
      for (size_t x = 0; x < n; ++x)
        if (reach[x][a]) reach[x][b] = true;  // ops are topological: reach[x][a] is final
    }
  for (size_t x = 0; x < n; ++x)
    for (size_t z = 0; z < n; ++z) {
      if (!reach[x][z] || plan.op_partition[z] == plan.op_partition[x]) continue;
      for (size_t y = 0; y < n; ++y)
        EXPECT_FALSE(reach[z][y] && plan.op_partition[y] == plan.op_partition[x])
            << "path op " << x << " -> op " << z << " (partition " << plan.op_partition[z] << ") -> op " << y
            << " leaves partition " << plan.op_partition[x] << " and re-enters it";
    }
}

// Three vendors in priority order: "a" takes ops with a_or_b[o] == 1, "b"
// those with 2, "cpu" everything.
inline std::vector<AcceleratorClaims> ThreeVendorClaims(const std::vector<int>& a_or_b) {
  AcceleratorClaims a{"a", {}}, b{"b", {}}, cpu{"cpu", {}};
  for (int who : a_or_b) {
    a.claims.push_back(who == 1 ? OpClaim{true} : OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, ""});
    b.claims.push_back(who == 2 ? OpClaim{true} : OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, ""});
    cpu.claims.push_back(OpClaim{true});
  }
  return {a, b, cpu};
}

// n ADDs, each reading one tensor from anywhere earlier and one of the
// `recent` newest; (*who)[i] picks op i's vendor for ThreeVendorClaims.
inline Graph RandomDag(std::mt19937& rng, int n, size_t recent, std::vector<int>* who) {
  ModelBuilder b("random");
  std::vector<int32_t> live = {b.Input("x", TSR_DTYPE_F32, {4}), b.Input("y", TSR_DTYPE_F32, {4})};
  who->assign(n, 0);
  for (int i = 0; i < n; ++i) {
    const int32_t l = live[rng() % live.size()], r = live[live.size() - 1 - rng() % std::min(live.size(), recent)];
    live.push_back(b.Op(TSR_OP_ADD, {l, r}));
    (*who)[i] = static_cast<int>(rng() % 3);
  }
  b.Output(live.back());
  return *std::move(b).Build();
}

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_PARTITION_PLAN_CHECKS_FOR_TEST_H_
