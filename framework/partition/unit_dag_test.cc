#include "partition/unit_dag.h"

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

TEST(UnitDag, OrderByLevelIsStableByCreation) {
  UnitDag dag;
  const int32_t a = dag.Add(0), b = dag.Add(0), c = dag.Add(0), d = dag.Add(0);
  dag.PointAt(a, {d});  // d -> a: a at level 1
  dag.PointAt(b, {c});  // c -> b: b at level 1
  EXPECT_EQ(dag.OrderByLevel(), (std::vector<int32_t>{c, d, a, b}));
}

}  // namespace
}  // namespace tessera
