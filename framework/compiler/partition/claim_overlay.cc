#include "framework/compiler/partition/claim_overlay.h"

#include "framework/compiler/partition/partitioner.h"
#include "tessera/ops.h"

namespace tessera {

int32_t WithdrawalReasons::Add(int32_t code, std::string detail) {
  reasons_.push_back({code, std::move(detail)});
  return static_cast<int32_t>(reasons_.size() - 1);
}

void WithdrawalReasons::SetDetail(int32_t id, std::string detail) {
  reasons_[static_cast<size_t>(id)].detail = SharedText(std::move(detail));
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

bool ClaimOverlay::Place(std::vector<int32_t>* accelerators) const {
  if (!shape_->sizes_match) return false;
  const size_t op_count = shape_->op_count;
  // Each accelerator's two arrays, looked up once rather than through the
  // shape's and the overlay's pointers for every op and accelerator; and
  // the answers appended in one pass (not first filled with defaults and
  // then set).
  struct Source {
    const uint8_t* supported;
    const int32_t* withdrawn;  // null: nothing of this accelerator withdrawn
  };
  std::vector<Source> sources;
  sources.reserve(base_->size());
  for (size_t a = 0; a < base_->size(); ++a)
    sources.push_back({shape_->supported[a].data(), withdrawn_[a] != nullptr ? withdrawn_[a]->data() : nullptr});
  const uint8_t* dispatch = shape_->dispatch.data();
  accelerators->clear();
  accelerators->reserve(op_count);
  for (size_t o = 0; o < op_count; ++o) {
    int32_t acc = -1;
    if (!dispatch[o]) {
      for (size_t a = 0; a < sources.size(); ++a) {
        if (sources[a].supported[o] != 0 && (sources[a].withdrawn == nullptr || sources[a].withdrawn[o] == 0)) {
          acc = static_cast<int32_t>(a);
          break;
        }
      }
      if (acc < 0) return false;
    }
    accelerators->push_back(acc);
  }
  return true;
}

bool ClaimOverlay::Place(std::vector<OpPlacement>* placements) const {
  std::vector<int32_t> accelerators;
  const bool placed = Place(&accelerators);
  *placements = PlacementsOf(accelerators);
  return placed;
}

std::vector<AcceleratorClaims> ClaimOverlay::Materialize(const WithdrawalReasons& reasons) const {
  // Each claim written once, as the base's or as its withdrawal: not the
  // base copied whole and then half of it written again (a million-op
  // list is 48 MB, which a million-op graph's cache does not hold twice).
  std::vector<AcceleratorClaims> out;
  out.reserve(base_->size());
  for (size_t a = 0; a < base_->size(); ++a) {
    const AcceleratorClaims& in = (*base_)[a];
    if (withdrawn_[a] == nullptr) {
      out.push_back(in);
      continue;
    }
    AcceleratorClaims& claims = out.emplace_back();
    claims.vendor = in.vendor;
    claims.claims.reserve(in.claims.size());
    const int32_t* w = withdrawn_[a]->data();  // sized as in.claims (Withdraw)
    for (size_t o = 0; o < in.claims.size(); ++o) {
      if (w[o] == 0) {
        claims.claims.push_back(in.claims[o]);
      } else {
        const WithdrawalReason& r = reasons[w[o] - 1];
        claims.claims.push_back(OpClaim{false, r.code, r.detail});
      }
    }
  }
  return out;
}

}  // namespace tessera
