// What one accelerator partition gains against running its ops on the
// CPU (the cost policy gives back every partition that does not pay for
// itself), and the reasons a partition given back is recorded with.
#ifndef TESSERA_FRAMEWORK_COMPILER_PARTITION_PARTITION_GAIN_H_
#define TESSERA_FRAMEWORK_COMPILER_PARTITION_PARTITION_GAIN_H_

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "framework/compiler/partition/claim_overlay.h"
#include "framework/compiler/partition/partition_plan.h"
#include "framework/compiler/partition/plan_cost.h"

namespace tessera {

// One partition against the CPU: what it costs where it is (device time,
// dispatch, the transfers across its boundary) and what the same ops would
// cost on the fallback, with the boundary transfers they would need there.
struct Gain {
  double here_us = 0;
  double cpu_us = 0;
  double compute_us = 0, dispatch_us = 0, transfer_us = 0;
  double gain() const { return cpu_us - here_us; }
};

class GainModel {
 public:
  explicit GainModel(const PlanCostModel& model) : model_(model), seen_(model.graph().tensors.size(), -1) {}

  // Gains of the accelerator partitions; a fallback partition's stays zero
  // (nothing asks for it: only accelerator partitions are given back).
  // `memory` is the plan's OpMemories, `claims` those it was costed with:
  // compute and dispatch are summed here as PlanCostModel::Cost sums them
  // (same ops, same order, so the same figures to the bit), because a
  // candidate's cost keeps only its totals (see Evaluate).
  std::vector<Gain> Of(const PartitionPlan& plan, std::span<const int32_t> memory,
                       const std::vector<AcceleratorClaims>& claims);

 private:
  const PlanCostModel& model_;
  std::vector<int32_t> seen_;  // tensor -> partition that counted it as an input
  std::vector<int32_t> outside_;
};

// The detail of a partition given back. Written for every partition the
// search gives back (half a million on a million-op chain that alternates
// vendors), hence AppendFixed rather than a format string: the same text.
std::string GainDetail(const PlannedPartition& part, const Gain& g);

// The reason a partition is given back with. Its detail is a function of
// the partition's op count, vendor and five gain figures alone, so a
// partition whose figures equal the previous one's shares that reason:
// a model of repeated blocks gives back runs of alike partitions (a
// million-op chain that alternates vendors gives back 500,000 of them),
// and formatting, storing and sharing each one's 100-byte text was half
// the withdrawal step. Only the previous partition is remembered: equal
// figures come in runs, and a table of every key seen would cost memory
// per partition on the graphs where no two are alike.
class GiveBackReasons {
 public:
  explicit GiveBackReasons(WithdrawalReasons& reasons) : reasons_(reasons) {}

  int32_t For(const PlannedPartition& part, const Gain& g) {
    // Bitwise: -0.0 prints "-0.00", 0.0 prints "0.00".
    const Key key{part.ops.size(),
                  {std::bit_cast<uint64_t>(g.here_us), std::bit_cast<uint64_t>(g.compute_us),
                   std::bit_cast<uint64_t>(g.dispatch_us), std::bit_cast<uint64_t>(g.transfer_us),
                   std::bit_cast<uint64_t>(g.cpu_us)}};
    if (last_ < 0 || !(key == key_) || part.vendor != vendor_) {
      last_ = reasons_.Add(kRefusalNotProfitable, GainDetail(part, g));
      key_ = key;
      vendor_ = part.vendor;
    }
    return last_;
  }

 private:
  struct Key {
    size_t ops = 0;
    std::array<uint64_t, 5> figures{};
    bool operator==(const Key&) const = default;
  };
  WithdrawalReasons& reasons_;
  Key key_;
  std::string vendor_;
  int32_t last_ = -1;
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_PARTITION_PARTITION_GAIN_H_
