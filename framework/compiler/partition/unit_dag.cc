#include "framework/compiler/partition/unit_dag.h"

#include <algorithm>

namespace tessera {

int32_t UnitDag::Add(int32_t level) {
  units_.push_back(Unit{level});
  return static_cast<int32_t>(units_.size() - 1);
}

void UnitDag::Reserve(size_t units, size_t edges) {
  units_.reserve(units);
  edges_.reserve(edges);
}

std::vector<int32_t> UnitDag::successors(int32_t u) const {
  std::vector<int32_t> out;
  for (int32_t e = units_[u].first_edge; e >= 0; e = edges_[e].next) out.push_back(edges_[e].target);
  return out;
}

void UnitDag::AddEdge(int32_t from, int32_t to) {
  const int32_t e = static_cast<int32_t>(edges_.size());
  edges_.push_back({to, -1});
  Unit& f = units_[from];
  if (f.last_edge >= 0)
    edges_[f.last_edge].next = e;
  else
    f.first_edge = e;
  f.last_edge = e;
}

uint32_t UnitDag::NextStamp() {
  if (++stamp_ == kTargetBit) {  // wrapped: forget old marks
    for (Unit& u : units_) u.seen = 0;
    stamp_ = 1;
  }
  return stamp_;
}

bool UnitDag::CanPointAt(int32_t u, const std::vector<int32_t>& others, int* budget) {
  BeginQuery(others);
  return CanPointAtQueried(u, budget);
}

void UnitDag::BeginQuery(const std::vector<int32_t>& others) {
  if (++query_stamp_ == kTargetBit) {  // wrapped: forget old marks
    for (Unit& u : units_) u.known = 0;
    query_stamp_ = 1;
  }
  query_frontier_ = -1;
  for (int32_t o : others) {
    query_frontier_ = std::max(query_frontier_, units_[o].level);
    units_[o].known = query_stamp_ | kTargetBit;
  }
}

// A search from u for a target above u's level. Targets equal to u, or at
// its level or below, cannot be reached (every edge climbs), so neither
// the frontier nor a target mark on u itself changes the answer.
bool UnitDag::CanPointAtQueried(int32_t u, int* budget) {
  const int32_t frontier = query_frontier_;
  if (frontier <= units_[u].level) return true;       // nothing above u to reach
  if (units_[u].known == query_stamp_) return false;  // an earlier search proved it
  const uint32_t stamp = NextStamp();
  const uint32_t target = query_stamp_ | kTargetBit;
  stack_.assign(1, u);
  while (!stack_.empty()) {
    const int32_t v = stack_.back();
    stack_.pop_back();
    for (int32_t e = units_[v].first_edge; e >= 0; e = edges_[e].next) {
      Unit& s = units_[edges_[e].target];
      if (s.level > frontier) continue;
      if (s.known == target || s.known == query_stamp_) {
        units_[u].known = query_stamp_;  // u reaches a target: remember it
        return false;
      }
      if (s.seen == stamp) continue;
      if (--*budget < 0) return false;
      s.seen = stamp;
      stack_.push_back(edges_[e].target);
    }
  }
  return true;
}

void UnitDag::PointAt(int32_t u, const std::vector<int32_t>& from) {
  int32_t need = units_[u].level;
  for (int32_t d : from) {
    if (d == u) continue;
    // Edges into u are added while u takes ops, so a repeat of d -> u
    // is almost always the last edge d got: that check replaces a hash
    // set. A rarer repeat (d -> u, d -> v, d -> u) only lists u twice,
    // which the searches' marks make harmless.
    if (units_[d].last_target != u) {
      AddEdge(d, u);
      units_[d].last_target = u;
    }
    need = std::max(need, units_[d].level + 1);
  }
  if (need == units_[u].level) return;
  units_[u].level = need;
  stack_.assign(1, u);
  while (!stack_.empty()) {
    const int32_t v = stack_.back();
    stack_.pop_back();
    for (int32_t e = units_[v].first_edge; e >= 0; e = edges_[e].next) {
      const int32_t s = edges_[e].target;
      if (units_[s].level <= units_[v].level) {
        units_[s].level = units_[v].level + 1;
        // A longest path is shorter than the unit count; a longer one
        // means a cycle slipped in. Stop rather than climb forever.
        if (static_cast<size_t>(units_[s].level) >= units_.size()) {
          cyclic_ = true;
          return;
        }
        stack_.push_back(s);
      }
    }
  }
}

bool UnitDag::LevelsConsistent() const {
  for (const Unit& u : units_)
    for (int32_t e = u.first_edge; e >= 0; e = edges_[e].next)
      if (units_[edges_[e].target].level <= u.level) return false;
  return true;
}

std::vector<int32_t> UnitDag::OrderByLevel() const {
  int32_t top = 0;
  for (const Unit& u : units_) top = std::max(top, u.level);
  std::vector<int32_t> start(static_cast<size_t>(top) + 2, 0);
  for (const Unit& u : units_) ++start[u.level + 1];
  for (size_t l = 1; l < start.size(); ++l) start[l] += start[l - 1];
  std::vector<int32_t> order(units_.size());
  for (size_t u = 0; u < units_.size(); ++u) order[start[units_[u].level]++] = static_cast<int32_t>(u);
  return order;
}

}  // namespace tessera
