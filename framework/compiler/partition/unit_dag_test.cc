#include "framework/compiler/partition/unit_dag.h"

#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace {

TEST(UnitDag, EdgesClimbAndLevelsPropagate) {
  UnitDag dag;
  const int32_t a = dag.Add(0), b = dag.Add(0), c = dag.Add(0);
  dag.PointAt(b, {a});  // a -> b
  EXPECT_EQ(dag.level(b), 1);
  dag.PointAt(a, {c});  // c -> a: a rises, and b with it
  EXPECT_EQ(dag.level(a), 1);
  EXPECT_EQ(dag.level(b), 2);
  EXPECT_TRUE(dag.LevelsConsistent());
  EXPECT_FALSE(dag.cyclic());
}

TEST(UnitDag, SuccessorsKeepInsertionOrderAndSkipRepeatsOfTheLastEdge) {
  UnitDag dag;
  const int32_t a = dag.Add(0), b = dag.Add(0), c = dag.Add(0), d = dag.Add(0);
  dag.PointAt(c, {a});
  dag.PointAt(c, {a});  // repeat of a's newest edge: not listed again
  dag.PointAt(b, {a});
  dag.PointAt(d, {a});
  EXPECT_EQ(dag.successors(a), (std::vector<int32_t>{c, b, d}));
  EXPECT_TRUE(dag.successors(b).empty());
}

TEST(UnitDag, CanPointAtRefusesWhatWouldCloseACycle) {
  UnitDag dag;
  const int32_t a = dag.Add(0), b = dag.Add(0), c = dag.Add(0), x = dag.Add(0);
  dag.PointAt(b, {a});
  dag.PointAt(c, {b});  // a -> b -> c
  int budget = 100;
  EXPECT_FALSE(dag.CanPointAt(a, {c}, &budget));  // c -> a closes a -> b -> c -> a
  EXPECT_TRUE(dag.CanPointAt(c, {a}, &budget));   // a -> c: already implied
  EXPECT_TRUE(dag.CanPointAt(a, {x}, &budget));   // x is unrelated (and no higher)
  EXPECT_TRUE(dag.CanPointAt(x, {c}, &budget));   // x reaches nothing
}

TEST(UnitDag, ASearchPastTheBudgetRefuses) {
  UnitDag dag;
  std::vector<int32_t> chain = {dag.Add(0)};
  for (int i = 0; i < 20; ++i) {
    chain.push_back(dag.Add(0));
    dag.PointAt(chain.back(), {chain[chain.size() - 2]});
  }
  int small = 5, large = 100;
  EXPECT_FALSE(dag.CanPointAt(chain[0], {chain.back()}, &small));  // would need 20 steps
  EXPECT_LT(small, 0);
  EXPECT_FALSE(dag.CanPointAt(chain[0], {chain.back()}, &large));  // a real cycle
  const int32_t loose = dag.Add(0);
  int enough = 100;
  EXPECT_TRUE(dag.CanPointAt(loose, {chain.back()}, &enough));
}

// Whether u reaches any of `targets` (other than u), by a plain search
// over successors(): the oracle for the level-bounded searches.
bool Reaches(const UnitDag& dag, int32_t u, const std::vector<int32_t>& targets) {
  std::vector<bool> seen(dag.size(), false);
  std::vector<int32_t> stack = {u};
  while (!stack.empty()) {
    const int32_t v = stack.back();
    stack.pop_back();
    for (int32_t s : dag.successors(v)) {
      for (int32_t t : targets)
        if (t == s && t != u) return true;
      if (!seen[s]) {
        seen[s] = true;
        stack.push_back(s);
      }
    }
  }
  return false;
}

TEST(UnitDag, QueriedCandidatesAgreeWithAPlainSearch) {
  // Random DAGs (edges only from older to newer units, so acyclic), then
  // for random target sets, several candidates asked in turn within one
  // query, as the partitioner asks them. Later candidates may stop at an
  // earlier one proved to reach the targets; the answers must not change.
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    UnitDag dag;
    const int n = 2 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const int32_t u = dag.Add(0);
      std::vector<int32_t> from;
      for (int32_t d = 0; d < u; ++d)
        if (rng() % 6 == 0) from.push_back(d);
      dag.PointAt(u, from);
    }
    ASSERT_TRUE(dag.LevelsConsistent());
    for (int q = 0; q < 10; ++q) {
      std::vector<int32_t> targets;
      for (int k = 1 + static_cast<int>(rng() % 3); k > 0; --k) targets.push_back(static_cast<int32_t>(rng() % n));
      dag.BeginQuery(targets);
      for (int c = 0; c < 8; ++c) {
        const int32_t u = static_cast<int32_t>(rng() % n);
        int budget = 1 << 20;
        EXPECT_EQ(dag.CanPointAtQueried(u, &budget), !Reaches(dag, u, targets))
            << "trial " << trial << " candidate " << u;
      }
    }
  }
}

TEST(UnitDag, ALaterCandidateStopsAtAnEarlierOneThatReachesTheTargets) {
  // A chain c0 -> c1 -> ... -> c20 and the target c20: c19 and c18 are
  // asked first and proved to reach it; c0 then stops where its search
  // meets c18 instead of walking on to c20.
  UnitDag dag;
  std::vector<int32_t> chain = {dag.Add(0)};
  for (int i = 0; i < 20; ++i) {
    chain.push_back(dag.Add(0));
    dag.PointAt(chain.back(), {chain[chain.size() - 2]});
  }
  dag.BeginQuery({chain[20]});
  int budget = 1000;
  EXPECT_FALSE(dag.CanPointAtQueried(chain[19], &budget));
  EXPECT_EQ(budget, 1000);  // the target is a direct successor: no unit entered
  EXPECT_FALSE(dag.CanPointAtQueried(chain[18], &budget));
  EXPECT_EQ(budget, 1000);  // c19, its successor, is known to reach it
  int fresh = 1000;
  EXPECT_FALSE(dag.CanPointAtQueried(chain[0], &fresh));
  EXPECT_EQ(fresh, 1000 - 17);  // c1 .. c17 entered; c17's successor c18 is known
}

TEST(UnitDag, OrderByLevelIsStableByCreation) {
  UnitDag dag;
  const int32_t a = dag.Add(0), b = dag.Add(0), c = dag.Add(0), d = dag.Add(0);
  dag.PointAt(a, {d});  // d -> a: a at level 1
  dag.PointAt(b, {c});  // c -> b: b at level 1
  EXPECT_EQ(dag.OrderByLevel(), (std::vector<int32_t>{c, d, a, b}));
}

}  // namespace
}  // namespace tessera
