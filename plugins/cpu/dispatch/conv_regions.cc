#include "plugins/cpu/dispatch/conv_regions.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tessera/ops.h"

namespace tessera::cpu {
namespace {

bool IsConvOrPool(int32_t type) {
  return type == TSR_OP_CONV_2D || type == TSR_OP_MAX_POOL_2D || type == TSR_OP_AVG_POOL_2D ||
         type == TSR_OP_GLOBAL_AVG_POOL;
}

bool IsBinary(int32_t type) {
  return type == TSR_OP_ADD || type == TSR_OP_SUB || type == TSR_OP_MUL || type == TSR_OP_DIV;
}

std::vector<int64_t> Rank4(const std::vector<int64_t>& s) {
  std::vector<int64_t> d(s.size() < 4 ? 4 - s.size() : 0, 1);
  d.insert(d.end(), s.begin(), s.end());
  return d;
}

// One region being grown from its first op.
// Per-tensor and per-op marks of the region being built, sized to the graph
// once per program: a builder sets only its own region's entries and clears
// them when it is done, so a graph with thousands of seeds costs the sum of
// its regions, not seeds x graph.
struct RegionMarks {
  RegionMarks(size_t tensors, size_t ops) : link_of(tensors, -1), member(ops, false) {}
  std::vector<int> link_of;  // tensor -> the link writing it, or -1
  std::vector<bool> member;  // op -> in the region
};

class RegionBuilder {
 public:
  RegionBuilder(const CpuProgram& p, const std::vector<std::vector<size_t>>& readers,
                const std::vector<std::optional<ActivationTail>>& tails, const std::vector<int64_t>& producer,
                const std::vector<bool>& in_tail, const std::function<bool(const std::vector<size_t>&)>& parallel,
                RegionMarks& marks, size_t first, bool with_binary)
      : p_(p), readers_(readers), tails_(tails), producer_(producer), in_tail_(in_tail), parallel_(parallel),
        first_(first), with_binary_(with_binary), link_of_(marks.link_of), member_(marks.member) {}
  ~RegionBuilder() {
    for (int32_t t : link_tensor_) link_of_[t] = -1;
    for (size_t m : members_) member_[m] = false;
  }
  RegionBuilder(const RegionBuilder&) = delete;
  RegionBuilder& operator=(const RegionBuilder&) = delete;

  // Grows the region in graph order: every reader of a region tensor is a
  // candidate, taken when its kind fits and everything it reads is made
  // inside the region, a constant, or ready before the region's first op
  // (which is when the region runs). That keeps the region convex: no path
  // leaves it and comes back.
  void Grow() {
    std::set<size_t> candidates = {first_};
    while (!candidates.empty()) {
      const size_t c = *candidates.begin();
      candidates.erase(candidates.begin());
      if (!Fits(c)) continue;
      const int32_t out = Take(c);
      for (size_t r : readers_[out])
        if (r > c) candidates.insert(r);
    }
  }

  size_t link_count() const { return links_.size(); }
  bool has_binary() const {
    for (const fast::RegionLink& l : links_)
      if (IsBinary(l.op_type)) return true;
    return false;
  }
  const std::vector<size_t>& members() const { return members_; }
  const std::vector<int32_t>& inputs() const { return inputs_; }

  // The links, with the region outputs numbered: tensors made in the
  // region that the graph returns or an op outside it reads.
  std::vector<fast::RegionLink> Links(std::vector<int32_t>* outputs) const {
    std::vector<fast::RegionLink> links = links_;
    for (size_t k = 0; k < links.size(); ++k) {
      const int32_t t = link_tensor_[k];
      bool leaves = p_.output_slot[t] >= 0;
      for (size_t r : readers_[t]) leaves = leaves || !member_[r];
      if (!leaves) continue;
      links[k].region_output = static_cast<int>(outputs->size());
      outputs->push_back(t);
    }
    return links;
  }

  std::vector<TensorRef> InputRefs() const {
    std::vector<TensorRef> refs;
    for (int32_t t : inputs_) refs.push_back(SnapshotRef(p_.graph.tensors[t], nullptr));
    return refs;
  }

 private:
  const kit::SnapshotTensor& T(int32_t t) const { return p_.graph.tensors[static_cast<size_t>(t)]; }

  // Tensor t can be read by a region op: made inside, or ready when the
  // region starts (a graph input, or written by an earlier op).
  bool Readable(int32_t t) const {
    return link_of_[t] >= 0 || p_.input_slot[t] >= 0 || (producer_[t] >= 0 && static_cast<size_t>(producer_[t]) < first_);
  }

  bool Fits(size_t c) const {
    const kit::SnapshotOp& op = p_.graph.ops[c];
    if (member_[c] || p_.fused_into[c] >= 0 || p_.fast_ops[c] || in_tail_[c] || op.outputs.size() != 1) return false;
    if (IsConvOrPool(op.type)) {
      if (op.inputs.empty() || op.inputs[0] < 0 || T(op.inputs[0]).is_constant || !Readable(op.inputs[0])) return false;
      for (size_t i = 1; i < op.inputs.size(); ++i)
        if (op.inputs[i] >= 0 && !T(op.inputs[i]).is_constant) return false;  // runtime weights
      return true;
    }
    return with_binary_ && IsBinary(op.type) && BinaryFits(op);
  }

  // The shapes fast::PrepareRegion takes for a binary op: a 4-D f32 output,
  // an activation of its shape (first, or either for ADD and MUL), and a
  // second operand of the same shape or one value per channel or one value.
  bool BinaryFits(const kit::SnapshotOp& op) const {
    const kit::SnapshotTensor& y = T(op.outputs[0]);
    if (y.dtype != TSR_DTYPE_F32 || !y.quant.scales.empty() || y.shape.size() != 4 || op.inputs.size() != 2)
      return false;
    for (int32_t t : op.inputs) {
      if (t < 0 || T(t).dtype != TSR_DTYPE_F32 || !T(t).quant.scales.empty() || T(t).shape.size() > 4) return false;
      if (!T(t).is_constant && (!Readable(t) || T(t).shape.size() != 4)) return false;
    }
    int32_t base = op.inputs[0], other = op.inputs[1];
    if (Rank4(T(base).shape) != y.shape) {
      if (op.type != TSR_OP_ADD && op.type != TSR_OP_MUL) return false;
      std::swap(base, other);
    }
    if (T(base).is_constant || T(base).shape != y.shape) return false;
    const std::vector<int64_t> d = Rank4(T(other).shape);
    return d == y.shape ||
           (d[2] == 1 && d[3] == 1 && (d[1] == 1 || d[1] == y.shape[1]) && (d[0] == 1 || d[0] == y.shape[0]));
  }

  // Adds op c (and its convolution's activation tail) as a link; returns
  // the tensor the link writes.
  int32_t Take(size_t c) {
    const kit::SnapshotOp& op = p_.graph.ops[c];
    fast::RegionLink link;
    link.op_type = op.type;
    link.attrs = p_.op_attrs[c];
    std::vector<size_t> ops = {c};
    int32_t out = op.outputs[0];
    const std::optional<ActivationTail>& tail = tails_[c];
    if (op.type == TSR_OP_CONV_2D && tail && link.attrs.GetInt(TSR_ATTR_ACTIVATION, TSR_ACTIVATION_NONE) == TSR_ACTIVATION_NONE) {
      link.attrs = tail->Apply(link.attrs);
      ops.insert(ops.end(), tail->ops.begin(), tail->ops.end());
      out = tail->output;
    }
    for (int32_t t : op.inputs) {
      if (t < 0) {
        link.inputs.emplace_back();
        link.sources.push_back({});
        continue;
      }
      const kit::SnapshotTensor& tensor = T(t);
      link.inputs.push_back(SnapshotRef(tensor, tensor.is_constant ? ConstantData(tensor) : nullptr));
      if (tensor.is_constant) {
        link.sources.push_back({});
      } else if (link_of_[t] >= 0) {
        link.sources.push_back({link_of_[t], -1});
      } else {
        link.sources.push_back({-1, InputIndex(t)});
      }
    }
    link.output = SnapshotRef(T(out), nullptr);
    link.parallel = parallel_(ops);
    for (size_t m : ops) {
      member_[m] = true;
      members_.push_back(m);
    }
    link_of_[out] = static_cast<int>(links_.size());
    link_tensor_.push_back(out);
    links_.push_back(std::move(link));
    return out;
  }

  int InputIndex(int32_t t) {
    for (size_t i = 0; i < inputs_.size(); ++i)
      if (inputs_[i] == t) return static_cast<int>(i);
    inputs_.push_back(t);
    return static_cast<int>(inputs_.size()) - 1;
  }

  const CpuProgram& p_;
  const std::vector<std::vector<size_t>>& readers_;
  const std::vector<std::optional<ActivationTail>>& tails_;
  const std::vector<int64_t>& producer_;
  const std::vector<bool>& in_tail_;
  const std::function<bool(const std::vector<size_t>&)>& parallel_;
  const size_t first_;
  const bool with_binary_;
  std::vector<int>& link_of_;  // RegionMarks::link_of
  std::vector<bool>& member_;  // RegionMarks::member
  std::vector<size_t> members_;
  std::vector<fast::RegionLink> links_;
  std::vector<int32_t> link_tensor_;  // per link: the tensor it writes
  std::vector<int32_t> inputs_;       // the region's inputs, by first use
};

}  // namespace

void FuseConvRegions(CpuProgram& p, const fast::FastEngine& engine, const std::vector<std::vector<size_t>>& readers,
                     const std::vector<std::optional<ActivationTail>>& tails,
                     const std::function<bool(const std::vector<size_t>&)>& parallel) {
  const size_t op_count = p.graph.ops.size();
  std::vector<int64_t> producer(p.graph.tensors.size(), -1);
  for (size_t o = 0; o < op_count; ++o)
    for (int32_t t : p.graph.ops[o].outputs) producer[t] = static_cast<int64_t>(o);
  // A tail op joins only with its compute op, never as a region op of its own.
  std::vector<bool> in_tail(op_count, false);
  for (const std::optional<ActivationTail>& t : tails)
    if (t)
      for (size_t a : t->ops) in_tail[a] = true;
  RegionMarks marks(p.graph.tensors.size(), op_count);
  for (size_t o = 0; o < op_count; ++o) {
    if (!IsConvOrPool(p.graph.ops[o].type) || p.fused_into[o] >= 0 || p.fast_ops[o] || in_tail[o]) continue;
    // A region the fast kernels refuse (a binary op in a layout oneDNN has
    // no JIT kernel for) is tried again as convolutions and pools alone,
    // the chain it would have been; failing that, its ops are prepared one
    // by one.
    for (bool with_binary : {true, false}) {
      RegionBuilder region(p, readers, tails, producer, in_tail, parallel, marks, o, with_binary);
      region.Grow();
      if (region.link_count() < 2) break;  // a single op is prepared on its own
      std::vector<int32_t> outputs;
      const std::vector<fast::RegionLink> links = region.Links(&outputs);
      std::string why;
      std::unique_ptr<fast::FastOp> op = engine.PrepareRegion(links, region.InputRefs(), &why);
      if (!op) {
        if (!region.has_binary()) break;
        continue;
      }
      p.fast_ops[o] = std::move(op);
      p.fast_inputs[o] = region.inputs();
      p.fast_outputs[o] = std::move(outputs);
      for (size_t m : region.members())
        if (m != o) p.fused_into[m] = static_cast<int32_t>(o);
      p.fast_op_count += region.members().size();
      break;
    }
  }
}

}  // namespace tessera::cpu
