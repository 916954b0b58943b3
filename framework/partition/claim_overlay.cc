#include "partition/claim_overlay.h"

#include "tessera/ops.h"

namespace tessera {

int32_t WithdrawalReasons::Add(int32_t code, std::string detail) {
  reasons_.push_back({code, std::move(detail)});
  return static_cast<int32_t>(reasons_.size() - 1);
}

ClaimOverlay::ClaimOverlay(const GraphOperands& operands, const std::vector<AcceleratorClaims>& base)
    : base_(&base), withdrawn_(base.size()) {
  auto shape = std::make_shared<Shape>();
  shape->op_count = operands.op_count();
  shape->dispatch.resize(shape->op_count);
  for (size_t o = 0; o < shape->op_count; ++o) shape->dispatch[o] = operands.is_dispatch(o) ? 1 : 0;
  shape->supported.resize(base.size());
  for (size_t a = 0; a < base.size(); ++a) {
    const std::vector<OpClaim>& claims = base[a].claims;
    shape->sizes_match = shape->sizes_match && claims.size() == shape->op_count;
    shape->supported[a].resize(claims.size());
    for (size_t o = 0; o < claims.size(); ++o) shape->supported[a][o] = claims[o].supported ? 1 : 0;
  }
  shape_ = std::move(shape);
}

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

bool ClaimOverlay::Place(std::vector<OpPlacement>* placements) const {
  if (!shape_->sizes_match) return false;
  const size_t op_count = shape_->op_count;
  placements->assign(op_count, OpPlacement{});
  for (size_t o = 0; o < op_count; ++o) {
    if (shape_->dispatch[o]) continue;
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
