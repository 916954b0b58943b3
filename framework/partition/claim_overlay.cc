#include "partition/claim_overlay.h"

#include "tessera/ops.h"

namespace tessera {

int32_t WithdrawalReasons::Add(int32_t code, std::string detail) {
  reasons_.push_back({code, std::move(detail)});
  return static_cast<int32_t>(reasons_.size() - 1);
}

ClaimOverlay::ClaimOverlay(const std::vector<AcceleratorClaims>& base) : base_(&base), withdrawn_(base.size()) {}

bool ClaimOverlay::withdrew_any() const {
  for (const auto& w : withdrawn_)
    if (w != nullptr) return true;
  return false;
}

void ClaimOverlay::Withdraw(size_t a, int32_t op, int32_t reason) {
  std::shared_ptr<std::vector<int32_t>>& w = withdrawn_[a];
  if (w == nullptr) {
    w = std::make_shared<std::vector<int32_t>>((*base_)[a].claims.size(), 0);
  } else if (w.use_count() > 1) {  // another candidate still reads it: copy on write
    w = std::make_shared<std::vector<int32_t>>(*w);
  }
  (*w)[static_cast<size_t>(op)] = reason + 1;
}

bool ClaimOverlay::Place(const Graph& graph, std::vector<OpPlacement>* placements) const {
  const size_t op_count = graph.ops.size();
  for (const AcceleratorClaims& a : *base_)
    if (a.claims.size() != op_count) return false;
  placements->assign(op_count, OpPlacement{});
  for (size_t o = 0; o < op_count; ++o) {
    if (graph.ops[o].type == TSR_OP_DISPATCH) continue;
    int32_t& acc = (*placements)[o].accelerator;
    for (size_t a = 0; a < base_->size() && acc < 0; ++a)
      if (supported(a, o)) acc = static_cast<int32_t>(a);
    if (acc < 0) return false;
  }
  return true;
}

std::vector<AcceleratorClaims> ClaimOverlay::Materialize(const WithdrawalReasons& reasons) const {
  std::vector<AcceleratorClaims> out = *base_;
  for (size_t a = 0; a < out.size(); ++a) {
    if (withdrawn_[a] == nullptr) continue;
    const std::vector<int32_t>& w = *withdrawn_[a];
    for (size_t o = 0; o < w.size(); ++o) {
      if (w[o] == 0) continue;
      const WithdrawalReason& r = reasons[w[o] - 1];
      out[a].claims[o] = OpClaim{false, r.code, r.detail};
    }
  }
  return out;
}

}  // namespace tessera
