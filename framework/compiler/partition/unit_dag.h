// The DAG of execution units the partitioner grows while it groups ops
// (see the comment at the top of partitioner.cc): each unit keeps its
// successors and a level, the length of the longest path reaching it, so
// that every edge climbs and a cycle check never searches above the
// highest level it asks about.
//
// Layout: units are one flat array of small records and edges one pool,
// each unit's edges a list threaded through the pool in the order they were
// added. A million-unit plan (every op a partition of its own) would
// otherwise be a million successor vectors, a malloc each, with every step
// of a search chasing one of them. Successors are visited in insertion
// order, so where the search budget runs out, and hence the plan, depends
// only on the graph; and a chain's edges lie next to each other.
#ifndef TESSERA_FRAMEWORK_COMPILER_PARTITION_UNIT_DAG_H_
#define TESSERA_FRAMEWORK_COMPILER_PARTITION_UNIT_DAG_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera {

class UnitDag {
 public:
  int32_t Add(int32_t level);
  // Room for `units` units and `edges` edges: a plan of one op per
  // partition then fills its arrays without moving them.
  void Reserve(size_t units, size_t edges);
  size_t size() const { return units_.size(); }
  bool cyclic() const { return cyclic_; }
  int32_t level(int32_t u) const { return units_[u].level; }
  // Successors of u, in the order their edges were added (repeats possible).
  std::vector<int32_t> successors(int32_t u) const;

  // True when adding edges others -> u keeps the DAG acyclic, i.e. u
  // reaches none of `others`. False too when the search would exceed the
  // remaining *budget (a refused merge is always safe).
  bool CanPointAt(int32_t u, const std::vector<int32_t>& others, int* budget);

  // The same question for several candidates u and one set `others` (the
  // partitioner tries up to nine units for each op): BeginQuery marks
  // `others` once, then each CanPointAtQueried(u) search also stops at any
  // earlier candidate it proved to reach them. On a chain of alternating
  // vendors the candidates are each other's ancestors, so the k-th search
  // ends after two steps instead of walking 2k units back to the input.
  // The DAG must not change between BeginQuery and the last question.
  void BeginQuery(const std::vector<int32_t>& others);
  bool CanPointAtQueried(int32_t u, int* budget);

  // Adds d -> u for every d in `from` (other than u) and restores the level
  // order. The caller has checked with CanPointAt that this is acyclic.
  void PointAt(int32_t u, const std::vector<int32_t>& from);

  // Every edge climbs: the invariant a topological order by level needs.
  bool LevelsConsistent() const;

  // Units by level, ties in creation order (a stable counting sort: levels
  // are below the unit count).
  std::vector<int32_t> OrderByLevel() const;

 private:
  static constexpr uint32_t kTargetBit = 1u << 31;
  struct Unit {
    int32_t level = 0;
    uint32_t seen = 0;         // search marks, by stamp
    uint32_t known = 0;        // query marks: a target, or proved to reach one
    int32_t last_target = -1;  // the target of its newest edge
    int32_t first_edge = -1;   // into edges_, -1 for none
    int32_t last_edge = -1;
  };
  struct Edge {
    int32_t target;
    int32_t next;  // the unit's next edge, -1 at the end
  };
  uint32_t NextStamp();
  void AddEdge(int32_t from, int32_t to);

  std::vector<Unit> units_;
  std::vector<Edge> edges_;
  uint32_t stamp_ = 0;
  uint32_t query_stamp_ = 0;
  int32_t query_frontier_ = -1;  // the highest target level of the query
  std::vector<int32_t> stack_;
  bool cyclic_ = false;
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_PARTITION_UNIT_DAG_H_
