// The claims a policy candidate plans with: the caller's claims, minus the
// claims the policy withdrew, without copying them.
//
// The cost policy tries several candidates, each the claims of its parent
// with some partitions given back to the cpu. A copy of a million-op claim
// list (an OpClaim is 64 bytes, and each withdrawal writes its own detail
// string) cost more than planning it. Here a candidate holds, per
// accelerator, one int32 per op naming the withdrawal's reason, shared
// between candidates until one of them withdraws more (copy on write), and
// the reasons' texts live once in a table the planner keeps. The full claim
// list, with every withdrawn claim's detail, is built once, for the plan
// the policy keeps (Materialize).
#ifndef TESSERA_FRAMEWORK_COMPILER_PARTITION_CLAIM_OVERLAY_H_
#define TESSERA_FRAMEWORK_COMPILER_PARTITION_CLAIM_OVERLAY_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "framework/compiler/partition/partition_plan.h"
#include "framework/core/base/shared_text.h"
#include "framework/core/graph/graph_operands.h"

namespace tessera {

// Why claims were withdrawn: the OpClaim fields a withdrawal writes.
struct WithdrawalReason {
  int32_t code = 0;   // HostRefusalReason
  SharedText detail;  // every claim withdrawn for this reason shares the text
};

class WithdrawalReasons {
 public:
  int32_t Add(int32_t code, std::string detail);
  // Rewrites reason `id`'s text: for a reason whose figures are known only
  // once the search is over (the plan it helped produce was kept).
  void SetDetail(int32_t id, std::string detail);
  const WithdrawalReason& operator[](int32_t id) const { return reasons_[static_cast<size_t>(id)]; }
  size_t size() const { return reasons_.size(); }

 private:
  std::vector<WithdrawalReason> reasons_;
};

class ClaimOverlay {
 public:
  // `base` is not copied: it must outlive the overlay and its copies. What
  // placement reads (which ops are DISPATCH, which claims are supported) is
  // copied once into byte arrays that the copies share: placement then
  // never walks the claims (48 bytes each) or the ops.
  ClaimOverlay(const GraphOperands& operands, const std::vector<AcceleratorClaims>& base);

  const std::vector<AcceleratorClaims>& base() const { return *base_; }
  bool withdrew_any() const;
  bool withdrawn(size_t a, size_t op) const { return withdrawn_[a] != nullptr && (*withdrawn_[a])[op] != 0; }
  bool supported(size_t a, size_t op) const { return (*shape_).supported[a][op] != 0 && !withdrawn(a, op); }

  // Accelerator a's claim of `op` becomes OpClaim{false, code, detail} of
  // reason `reason` (an id of the caller's WithdrawalReasons). A later
  // withdrawal of the same claim replaces the earlier one.
  void Withdraw(size_t a, int32_t op, int32_t reason);

  // Each op's first supporting accelerator in priority order, one int32 per
  // op (DISPATCH ops stay at -1). False when an op has none (the answers
  // are then incomplete): the caller asks PlaceOps over Materialize() for
  // the error. Candidates plan with these alone: a placement with room for
  // refusals is 32 bytes, and a million of them were fresh pages that only
  // the kept plan needs (PlacementsOf).
  bool Place(std::vector<int32_t>* accelerators) const;
  // The same as placements without refusals.
  bool Place(std::vector<OpPlacement>* placements) const;

  // The claims as a copy of `base` with the withdrawals written in.
  std::vector<AcceleratorClaims> Materialize(const WithdrawalReasons& reasons) const;
  // Accelerator a's withdrawals (reason id + 1 per op), null when none;
  // shared, never changed once a copy holds it (Withdraw copies on write).
  std::shared_ptr<const std::vector<int32_t>> withdrawals(size_t a) const { return withdrawn_[a]; }

 private:
  struct Shape {
    size_t op_count = 0;
    bool sizes_match = true;                      // every accelerator claims op_count ops
    std::vector<uint8_t> dispatch;                // per op
    std::vector<std::vector<uint8_t>> supported;  // per accelerator, per op: the base claim
  };
  const std::vector<AcceleratorClaims>* base_;
  std::shared_ptr<const Shape> shape_;
  // Per accelerator: reason id + 1 per op (0 = not withdrawn); null when
  // nothing of that accelerator was withdrawn. Shared between copies.
  std::vector<std::shared_ptr<std::vector<int32_t>>> withdrawn_;
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_PARTITION_CLAIM_OVERLAY_H_
