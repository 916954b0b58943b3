// A group of elementwise f32 ops fused into one pass over memory: the
// output is walked in tiles (one row of the last dim, or 1024 elements),
// and each link runs its row loop (elementwise_rows.h, the same loops as
// the one-op kernels, so the results are the same bits) on the tile, its
// intermediates in per-link scratch of one tile that stays in L1. Per op,
// a transformer's GELU or LayerNorm tail reads and writes the whole
// activation once instead of once per op.
//
// Operand forms, relative to the output shape [..., N]: the whole shape
// (stride 1), one value (stride 0), a vector along the last dim ([N] or
// [1, ..., N]: offset within the row), one value per row ([..., 1]: offset
// = row). The last two need tiles that stay inside one row, so the tile is
// then one row (N <= kMaxRowTile).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/elementwise_rows.h"
#include "plugins/cpu/fast_kernels/kernel_preparers.h"
#include "plugins/cpu/fast_kernels/loop_op.h"
#include "tessera/ops.h"

namespace tessera::cpu::fast::detail {
namespace {

constexpr int64_t kTile = 1024;
constexpr int64_t kMaxRowTile = 4096;

enum class Form { kFull, kScalar, kRowVector, kPerRow };

struct Operand {
  int link = -1;   // >= 0: an earlier link's tile
  int input = -1;  // else this group input
  Form form = Form::kFull;
};

struct GroupStep {
  int32_t op = 0;
  std::vector<Operand> operands;
  int output = -1;
  double exponent = 0;  // POW with a constant exponent (operand 1 unused)
  bool pow_constant = false;
};

class GroupState : public FastOpState {
 public:
  std::vector<float> scratch;  // one tile per link
  std::vector<float*> tiles;   // where each link's current tile is
};

class ElementwiseGroupOp : public FastOp {
 public:
  ElementwiseGroupOp(std::vector<GroupStep> steps, size_t inputs, size_t outputs, int64_t total, int64_t row,
                     int64_t tile)
      : steps_(std::move(steps)), inputs_(inputs), outputs_(outputs), total_(total), row_(row), tile_(tile) {}
  const char* name() const override { return "ELEMENTWISE_GROUP"; }
  absl::StatusOr<std::unique_ptr<FastOpState>> NewState() const override {
    auto st = std::make_unique<GroupState>();
    st->scratch.assign(steps_.size() * static_cast<size_t>(tile_), 0.0f);
    st->tiles.assign(steps_.size(), nullptr);
    return std::unique_ptr<FastOpState>(std::move(st));
  }

  absl::Status Run(FastOpState& state, std::span<void* const> ins, std::span<void* const> outs) const override {
    if (ins.size() < inputs_ || outs.size() < outputs_) return absl::InvalidArgumentError("ELEMENTWISE_GROUP: arity");
    for (size_t i = 0; i < inputs_; ++i)
      if (ins[i] == nullptr) return absl::InvalidArgumentError("ELEMENTWISE_GROUP: tensor not bound");
    for (size_t i = 0; i < outputs_; ++i)
      if (outs[i] == nullptr) return absl::InvalidArgumentError("ELEMENTWISE_GROUP: tensor not bound");
    float* scratch = static_cast<GroupState&>(state).scratch.data();
    // Where each link's tile is: its group output at t, or its scratch.
    std::vector<float*>& tiles = static_cast<GroupState&>(state).tiles;
    for (int64_t t = 0; t < total_; t += tile_) {
      const int64_t n = std::min(tile_, total_ - t);
      for (size_t s = 0; s < steps_.size(); ++s) {
        const GroupStep& step = steps_[s];
        const float* src[2] = {nullptr, nullptr};
        int64_t stride[2] = {1, 1};
        for (size_t k = 0; k < step.operands.size() && k < 2; ++k) {
          const Operand& o = step.operands[k];
          if (o.link >= 0) {
            src[k] = tiles[o.link];
            continue;
          }
          const auto* base = static_cast<const float*>(ins[o.input]);
          switch (o.form) {
            case Form::kFull:
              src[k] = base + t;
              break;
            case Form::kScalar:
              src[k] = base, stride[k] = 0;
              break;
            case Form::kRowVector:
              src[k] = base + t % row_;
              break;
            case Form::kPerRow:
              src[k] = base + t / row_, stride[k] = 0;
              break;
          }
        }
        float* y = step.output >= 0 ? static_cast<float*>(outs[step.output]) + t : scratch + s * tile_;
        tiles[s] = y;
        if (step.pow_constant)
          PowRow(step.exponent, src[0], y, n);
        else if (step.operands.size() == 1)
          UnaryRow(step.op, src[0], y, n, 0.0f, 0.0f);
        else
          ArithmeticRow(step.op, src[0], stride[0], src[1], stride[1], y, n);
      }
    }
    return absl::OkStatus();
  }

 private:
  std::vector<GroupStep> steps_;
  size_t inputs_, outputs_;
  int64_t total_, row_, tile_;
};

bool IsGroupBinary(int32_t op) {
  return op == TSR_OP_ADD || op == TSR_OP_SUB || op == TSR_OP_MUL || op == TSR_OP_DIV || op == TSR_OP_MAXIMUM ||
         op == TSR_OP_MINIMUM || op == TSR_OP_POW;
}

}  // namespace

std::unique_ptr<FastOp> PrepareElementwiseGroup(std::span<const GroupLink> links, Ins ins, Outs outs) {
  if (links.size() < 2 || outs.empty()) Refuse("group: fewer than two ops");
  const std::vector<int64_t>& shape = outs[0].shape;
  RequireF32(TSR_OP_ADD, outs);
  for (const TensorRef& o : outs)
    if (o.shape != shape) Refuse("group: outputs differ in shape");
  RequireF32(TSR_OP_ADD, ins);
  int64_t total = 1;
  for (int64_t d : shape) total *= d;
  const int64_t row = shape.empty() ? 1 : shape.back();
  // The form of each group input, compared numpy-style (leading 1s aside).
  auto strip = [](std::vector<int64_t> v) {
    while (!v.empty() && v.front() == 1) v.erase(v.begin());
    return v;
  };
  std::vector<int64_t> rows_shape = shape;
  if (!rows_shape.empty()) rows_shape.back() = 1;
  const std::vector<int64_t> full = strip(shape), per_row = strip(rows_shape), row_vector = strip({row});
  std::vector<Form> forms;
  bool row_bound = false;
  for (const TensorRef& in : ins) {
    const std::vector<int64_t> s = strip(in.shape);
    if (s == full) {
      forms.push_back(Form::kFull);
    } else if (in.element_count() == 1) {
      forms.push_back(Form::kScalar);
    } else if (s == row_vector) {
      forms.push_back(Form::kRowVector);
      row_bound = true;
    } else if (s == per_row) {
      forms.push_back(Form::kPerRow);
      row_bound = true;
    } else {
      Refuse(absl::StrCat("group: input shape ", ShapeText(in.shape), " against ", ShapeText(shape)));
    }
  }
  const int64_t tile = row_bound ? row : std::min(kTile, total);
  if (row_bound && row > kMaxRowTile) Refuse("group: rows too long for a row tile");
  std::vector<GroupStep> steps;
  for (size_t l = 0; l < links.size(); ++l) {
    const GroupLink& link = links[l];
    GroupStep step{link.op_type, {}, link.output};
    if (link.output >= static_cast<int>(outs.size())) Refuse("group: output index");
    for (const GroupOperand& g : link.operands) {
      Operand o{g.link, g.input, Form::kFull};
      if (g.link >= static_cast<int>(l)) Refuse("group: operand from a later link");
      if (g.link < 0) {
        if (g.input < 0 || g.input >= static_cast<int>(ins.size())) Refuse("group: input index");
        o.form = forms[g.input];
      }
      step.operands.push_back(o);
    }
    if (IsLoopUnary(link.op_type) && link.op_type != TSR_OP_CLIP) {
      if (step.operands.size() != 1) Refuse("group: unary arity");
      if (step.operands[0].link < 0 && step.operands[0].form != Form::kFull) Refuse("group: unary of a broadcast");
    } else if (IsGroupBinary(link.op_type)) {
      if (step.operands.size() != 2) Refuse("group: binary arity");
      if (link.op_type == TSR_OP_POW) {
        // Only a uniform constant exponent: the general POW row is scalar.
        const Operand& e = step.operands[1];
        const std::vector<double> v = e.link < 0 ? ConstantValues(ins[e.input]) : std::vector<double>{};
        if (v.empty() || !std::all_of(v.begin(), v.end(), [&](double x) { return x == v[0]; }))
          Refuse("group: POW exponent is not one constant");
        if (step.operands[0].link < 0 && step.operands[0].form != Form::kFull) Refuse("group: POW of a broadcast");
        step.pow_constant = true;
        step.exponent = v[0];
        step.operands.resize(1);
      }
    } else {
      Refuse(absl::StrCat("group: ", OpTypeName(link.op_type), " is not a group op"));
    }
    steps.push_back(std::move(step));
  }
  return std::make_unique<ElementwiseGroupOp>(std::move(steps), ins.size(), outs.size(), total, row, tile);
}

}  // namespace tessera::cpu::fast::detail
