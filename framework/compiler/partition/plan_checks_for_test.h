// Checks of a partition plan that are independent of the partitioner (brute
// force), and the generated graphs that tempt it, for every test of a
// planner to share.
#ifndef TESSERA_FRAMEWORK_COMPILER_PARTITION_PLAN_CHECKS_FOR_TEST_H_
#define TESSERA_FRAMEWORK_COMPILER_PARTITION_PLAN_CHECKS_FOR_TEST_H_

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "framework/compiler/partition/partition_plan.h"
#include "framework/core/graph/graph.h"
#include "framework/core/model/model_builder.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera {

// x -> relu0 -> relu1 -> ... (a chain of n RELUs).
inline Graph Chain(int n) {
  ModelBuilder b("chain");
  int32_t t = b.Input("x", TSR_DTYPE_F32, {4});
  for (int i = 0; i < n; ++i) t = b.Op(TSR_OP_RELU, {t});
  b.Output(t);
  return *std::move(b).Build();
}

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

// Runs the plan as the runtime would, with a toy semantics independent of
// op types: each output is a hash of (op, output slot, input values). Units
// run in plan.order, a partition's ops in its listed order; every read
// must find its tensor already computed, and every graph output must equal
// the value of the graph run in its own order. Also checks that each op
// sits in exactly one partition, the one op_partition names.
inline void ExpectRunsLikeTheGraph(const Graph& g, const PartitionPlan& plan) {
  // False (after one failure) when op o reads a tensor not yet computed.
  const auto run_op = [&](size_t o, std::vector<uint64_t>& value, std::vector<bool>& ready) {
    uint64_t h = 1469598103934665603ull ^ (o * 0x9E3779B97F4A7C15ull);
    for (int32_t t : g.ops[o].inputs) {
      if (t < 0) continue;
      if (!ready[t]) {
        ADD_FAILURE() << "op " << o << " reads tensor " << t << " before it is computed";
        return false;
      }
      h = (h ^ value[t]) * 1099511628211ull;
    }
    for (size_t k = 0; k < g.ops[o].outputs.size(); ++k) {
      value[g.ops[o].outputs[k]] = h + k * 0x632BE59BD9B4E019ull;
      ready[g.ops[o].outputs[k]] = true;
    }
    return true;
  };
  const auto fresh = [&](std::vector<uint64_t>& value, std::vector<bool>& ready) {
    value.assign(g.tensors.size(), 0);
    ready.assign(g.tensors.size(), false);
    for (int32_t t : g.inputs) {
      value[t] = 0xABCDull + static_cast<uint64_t>(t) * 7919;
      ready[t] = true;
    }
  };
  std::vector<uint64_t> want, got;
  std::vector<bool> want_ready, got_ready;
  fresh(want, want_ready);
  for (size_t o = 0; o < g.ops.size(); ++o)
    if (!run_op(o, want, want_ready)) return;  // the graph itself is out of order
  fresh(got, got_ready);
  std::vector<int> runs(g.ops.size(), 0);
  for (const ExecutionUnit& u : plan.order) {
    if (u.partition < 0) continue;
    for (int32_t o : plan.partitions[u.partition].ops) {
      EXPECT_EQ(plan.op_partition[o], u.partition) << "op " << o;
      ++runs[o];
      if (!run_op(static_cast<size_t>(o), got, got_ready)) return;
    }
  }
  for (size_t o = 0; o < g.ops.size(); ++o) EXPECT_EQ(runs[o], 1) << "op " << o << " ran " << runs[o] << " times";
  for (int32_t t : g.outputs) EXPECT_EQ(got[t], want[t]) << "graph output tensor " << t;
}

// A random graph built directly (the partitioner reads only inputs and
// outputs): `inputs` graph inputs; n ops, each unary (1 -> 1), binary
// (2 -> 1) or multi-output (1 or 2 -> 2 or 3, as LAYER_NORM with its mean
// and inverse-std outputs); operands
// from anywhere earlier or among the `recent` newest tensors; several
// graph outputs (the last tensor and a few others). `vendors` accelerators
// plus "cpu": each claims an op with probability 2/5 (cpu always), and
// (*first)[o] is the first claimant in priority order: the expected vendor.
inline Graph RandomMixedGraph(std::mt19937& rng, int n, int inputs, size_t recent, int vendors,
                              std::vector<AcceleratorClaims>* claims, std::vector<std::string>* first) {
  Graph g;
  std::vector<int32_t> live;
  const auto tensor = [&]() {
    g.tensors.push_back(Tensor{"t" + std::to_string(g.tensors.size()), TSR_DTYPE_F32, {4}});
    return static_cast<int32_t>(g.tensors.size() - 1);
  };
  for (int i = 0; i < inputs; ++i) {
    live.push_back(tensor());
    g.inputs.push_back(live.back());
  }
  const auto pick = [&]() {
    return rng() % 2 ? live[rng() % live.size()] : live[live.size() - 1 - rng() % std::min(live.size(), recent)];
  };
  claims->clear();
  for (int v = 0; v < vendors; ++v) claims->push_back({std::string(1, static_cast<char>('a' + v)), {}});
  claims->push_back({"cpu", {}});
  first->clear();
  for (int i = 0; i < n; ++i) {
    Op op;
    op.id = static_cast<uint32_t>(i);
    const int kind = static_cast<int>(rng() % 3);
    op.type = kind == 0 ? TSR_OP_RELU : kind == 1 ? TSR_OP_ADD : TSR_OP_LAYER_NORM;
    const int ins = kind == 0 ? 1 : kind == 1 ? 2 : 1 + static_cast<int>(rng() % 2);
    const int outs = kind == 2 ? 2 + static_cast<int>(rng() % 2) : 1;
    for (int k = 0; k < ins; ++k) op.inputs.push_back(pick());
    for (int k = 0; k < outs; ++k) op.outputs.push_back(tensor());
    for (int32_t t : op.outputs) live.push_back(t);
    g.ops.push_back(std::move(op));
    std::string who;
    for (int v = 0; v < vendors; ++v) {
      const bool yes = rng() % 5 < 2;
      (*claims)[v].claims.push_back(yes ? OpClaim{true} : OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, ""});
      if (yes && who.empty()) who = (*claims)[v].vendor;
    }
    claims->back().claims.push_back(OpClaim{true});
    first->push_back(who.empty() ? "cpu" : who);
  }
  g.outputs.push_back(live.back());
  for (int k = 0; k < 3; ++k) {
    const int32_t t = live[static_cast<size_t>(inputs) + rng() % (live.size() - inputs)];
    if (std::find(g.outputs.begin(), g.outputs.end(), t) == g.outputs.end()) g.outputs.push_back(t);
  }
  return g;
}

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_PARTITION_PLAN_CHECKS_FOR_TEST_H_
