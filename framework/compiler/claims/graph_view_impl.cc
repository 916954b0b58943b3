#include "framework/compiler/claims/graph_view_impl.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <unordered_set>

#include "tessera/ops.h"

namespace tessera {

template <typename InputsOf>
void GraphUses::Build(const Graph& graph, size_t op_count, InputsOf inputs_of) {
  first_.assign(graph.tensors.size() + 1, 0);
  is_graph_output_.assign(graph.tensors.size(), false);
  const int32_t tensor_count = static_cast<int32_t>(graph.tensors.size());
  auto valid = [&](int32_t t) { return t >= 0 && t < tensor_count; };
  for (size_t o = 0; o < op_count; ++o)
    for (int32_t t : inputs_of(o))
      if (valid(t)) ++first_[t + 1];
  for (size_t t = 0; t < graph.tensors.size(); ++t) first_[t + 1] += first_[t];
  consumers_.resize(first_.back());
  std::vector<int32_t> next(first_.begin(), first_.end() - 1);
  for (size_t o = 0; o < op_count; ++o)
    for (int32_t t : inputs_of(o))
      if (valid(t)) consumers_[next[t]++] = static_cast<int32_t>(o);
  for (int32_t t : graph.outputs)
    if (valid(t)) is_graph_output_[t] = true;
}

GraphUses::GraphUses(const Graph& graph) {
  Build(graph, graph.ops.size(), [&](size_t o) -> const std::vector<int32_t>& { return graph.ops[o].inputs; });
}

GraphUses::GraphUses(const Graph& graph, const GraphOperands& operands) {
  Build(graph, operands.op_count(), [&](size_t o) { return operands.inputs(o); });
}

GraphView::GraphView(const Graph& graph, std::vector<int32_t> op_indices, const GraphUses& uses)
    : graph_(&graph), ops_(std::move(op_indices)) {
  std::unordered_set<int32_t> produced_inside;
  for (int32_t o : ops_)
    for (int32_t t : graph.ops[o].outputs) produced_inside.insert(t);
  std::vector<int32_t> in_set(ops_);  // sorted, for membership
  std::sort(in_set.begin(), in_set.end());
  local_.reserve(2 * ops_.size());
  // Inputs: read here, produced elsewhere (or graph inputs), not constants.
  for (int32_t o : ops_) {
    for (int32_t t : graph.ops[o].inputs) {
      if (t < 0) continue;
      const bool boundary = !produced_inside.count(t) && !graph.tensors[t].is_constant;
      const bool fresh = local_.find(t) == local_.end();
      int32_t local = Intern(t);
      if (boundary && fresh) inputs_.push_back(local);
    }
    for (int32_t t : graph.ops[o].outputs) Intern(t);
  }
  // Outputs: produced here and needed outside (another op or the graph).
  auto needed_outside = [&](int32_t t) {
    if (uses.is_graph_output(t)) return true;
    for (int32_t c : uses.consumers(t))
      if (!std::binary_search(in_set.begin(), in_set.end(), c)) return true;
    return false;
  };
  for (int32_t o : ops_)
    for (int32_t t : graph.ops[o].outputs)
      if (needed_outside(t)) outputs_.push_back(local_.at(t));
}

GraphView GraphView::Whole(const Graph& graph) {
  std::vector<int32_t> ops;
  for (size_t i = 0; i < graph.ops.size(); ++i)
    if (graph.ops[i].type != TSR_OP_DISPATCH) ops.push_back(static_cast<int32_t>(i));
  return GraphView(graph, std::move(ops), GraphUses(graph));
}

GraphView GraphView::Partition(const Graph& graph, std::vector<int32_t> op_indices, const GraphUses& uses) {
  return GraphView(graph, std::move(op_indices), uses);
}

GraphView GraphView::Partition(const Graph& graph, std::vector<int32_t> op_indices) {
  return GraphView(graph, std::move(op_indices), GraphUses(graph));
}

int32_t GraphView::Intern(int32_t global) {
  auto [it, inserted] = local_.emplace(global, static_cast<int32_t>(tensors_.size()));
  if (inserted) tensors_.push_back(global);
  return it->second;
}

int32_t GraphView::Local(int32_t global) const {
  auto it = local_.find(global);
  return it == local_.end() ? -1 : it->second;
}

const Tensor* GraphView::LocalTensor(int32_t local) const {
  if (local < 0 || static_cast<size_t>(local) >= tensors_.size()) return nullptr;
  return &graph_->tensors[tensors_[local]];
}

namespace {

const GraphView* V(tsr_graph g) { return GraphView::FromHandle(g); }

const Op* OpAt(tsr_graph g, size_t op) {
  const GraphView* v = V(g);
  if (v == nullptr || op >= v->ops().size()) return nullptr;
  return &v->graph().ops[v->ops()[op]];
}

size_t OpCount(tsr_graph g) { return V(g) ? V(g)->ops().size() : 0; }
int32_t OpType(tsr_graph g, size_t op) {
  const Op* o = OpAt(g, op);
  return o ? o->type : TSR_OP_UNKNOWN;
}
size_t OpInputCount(tsr_graph g, size_t op) {
  const Op* o = OpAt(g, op);
  return o ? o->inputs.size() : 0;
}
size_t OpOutputCount(tsr_graph g, size_t op) {
  const Op* o = OpAt(g, op);
  return o ? o->outputs.size() : 0;
}
int32_t OpInput(tsr_graph g, size_t op, size_t i) {
  const Op* o = OpAt(g, op);
  if (o == nullptr || i >= o->inputs.size() || o->inputs[i] < 0) return TSR_NO_TENSOR;
  return V(g)->Local(o->inputs[i]);
}
int32_t OpOutput(tsr_graph g, size_t op, size_t i) {
  const Op* o = OpAt(g, op);
  if (o == nullptr || i >= o->outputs.size()) return TSR_NO_TENSOR;
  return V(g)->Local(o->outputs[i]);
}
uint32_t OpId(tsr_graph g, size_t op) {
  const Op* o = OpAt(g, op);
  return o ? o->id : 0;
}

tsr_status AttrInts(tsr_graph g, size_t op, int32_t key, const int64_t** out, size_t* count) {
  const Op* o = OpAt(g, op);
  if (o == nullptr || out == nullptr || count == nullptr) return TSR_INVALID_ARGUMENT;
  const Attribute* a = o->FindAttr(key);
  if (a == nullptr || (a->ints.empty() && !a->floats.empty())) return TSR_NOT_FOUND;
  *out = a->ints.data();
  *count = a->ints.size();
  return TSR_OK;
}
tsr_status AttrFloats(tsr_graph g, size_t op, int32_t key, const float** out, size_t* count) {
  const Op* o = OpAt(g, op);
  if (o == nullptr || out == nullptr || count == nullptr) return TSR_INVALID_ARGUMENT;
  const Attribute* a = o->FindAttr(key);
  if (a == nullptr || a->floats.empty()) return TSR_NOT_FOUND;
  *out = a->floats.data();
  *count = a->floats.size();
  return TSR_OK;
}

size_t TensorCount(tsr_graph g) { return V(g) ? V(g)->tensors().size() : 0; }
const char* TensorName(tsr_graph g, int32_t t) {
  const Tensor* x = V(g) ? V(g)->LocalTensor(t) : nullptr;
  return x ? x->name.c_str() : "";
}
int32_t TensorDType(tsr_graph g, int32_t t) {
  const Tensor* x = V(g) ? V(g)->LocalTensor(t) : nullptr;
  return x ? x->dtype : TSR_DTYPE_UNKNOWN;
}
tsr_status TensorShape(tsr_graph g, int32_t t, const int64_t** dims, size_t* rank) {
  const Tensor* x = V(g) ? V(g)->LocalTensor(t) : nullptr;
  if (x == nullptr || dims == nullptr || rank == nullptr) return TSR_INVALID_ARGUMENT;
  *dims = x->shape.data();
  *rank = x->shape.size();
  return TSR_OK;
}
tsr_status TensorQuant(tsr_graph g, int32_t t, tsr_quantization* out) {
  const Tensor* x = V(g) ? V(g)->LocalTensor(t) : nullptr;
  if (x == nullptr || out == nullptr) return TSR_INVALID_ARGUMENT;
  out->count = static_cast<uint32_t>(x->quant.scales.size());
  out->axis = x->quant.axis;
  out->scales = x->quant.scales.data();
  out->zero_points = x->quant.zero_points.data();
  return TSR_OK;
}
tsr_status TensorConstant(tsr_graph g, int32_t t, const void** data, size_t* size) {
  const Tensor* x = V(g) ? V(g)->LocalTensor(t) : nullptr;
  if (x == nullptr || data == nullptr || size == nullptr) return TSR_INVALID_ARGUMENT;
  if (!x->is_constant) return TSR_NOT_FOUND;
  *data = x->data.data();
  *size = x->data.size();
  return TSR_OK;
}
size_t InputCount(tsr_graph g) { return V(g) ? V(g)->inputs().size() : 0; }
int32_t Input(tsr_graph g, size_t i) { return V(g) && i < V(g)->inputs().size() ? V(g)->inputs()[i] : TSR_NO_TENSOR; }
size_t OutputCount(tsr_graph g) { return V(g) ? V(g)->outputs().size() : 0; }
int32_t Output(tsr_graph g, size_t i) {
  return V(g) && i < V(g)->outputs().size() ? V(g)->outputs()[i] : TSR_NO_TENSOR;
}

size_t AttrCount(tsr_graph g, size_t op) {
  const Op* o = OpAt(g, op);
  return o ? o->attrs.size() : 0;
}
int32_t AttrKey(tsr_graph g, size_t op, size_t i) {
  const Op* o = OpAt(g, op);
  if (o == nullptr || i >= o->attrs.size()) return TSR_ATTR_UNKNOWN;
  return std::next(o->attrs.begin(), static_cast<std::ptrdiff_t>(i))->first;  // std::map: ascending keys
}
uint32_t TensorId(tsr_graph g, int32_t t) {
  const GraphView* v = V(g);
  if (v == nullptr || t < 0 || static_cast<size_t>(t) >= v->tensors().size()) return UINT32_MAX;
  return static_cast<uint32_t>(v->tensors()[t]);
}

// One table per negotiated version: its header carries that version, and
// its struct_size ends where that version's members end.
constexpr tsr_graph_view_api MakeTable(uint32_t struct_size, uint16_t minor) {
  return tsr_graph_view_api{
      .header = {struct_size, 1, minor},
      .op_count = OpCount,
      .op_type = OpType,
      .op_input_count = OpInputCount,
      .op_input = OpInput,
      .op_output_count = OpOutputCount,
      .op_output = OpOutput,
      .op_id = OpId,
      .op_attr_ints = AttrInts,
      .op_attr_floats = AttrFloats,
      .tensor_count = TensorCount,
      .tensor_name = TensorName,
      .tensor_dtype = TensorDType,
      .tensor_shape = TensorShape,
      .tensor_quantization = TensorQuant,
      .tensor_constant_data = TensorConstant,
      .input_count = InputCount,
      .input = Input,
      .output_count = OutputCount,
      .output = Output,
      .op_attr_count = minor >= 2 ? AttrCount : nullptr,
      .op_attr_key = minor >= 2 ? AttrKey : nullptr,
      .tensor_id = minor >= 2 ? TensorId : nullptr,
  };
}
constexpr uint32_t kV1Size = offsetof(tsr_graph_view_api, op_attr_count);
const tsr_graph_view_api kGraphViewApi10 = MakeTable(kV1Size, 0);
const tsr_graph_view_api kGraphViewApi11 = MakeTable(kV1Size, 1);
const tsr_graph_view_api kGraphViewApi12 = MakeTable(sizeof(tsr_graph_view_api), 2);
// 1.3 and 1.4 appended ops and attribute keys only: the same members, their
// headers.
const tsr_graph_view_api kGraphViewApi13 = MakeTable(sizeof(tsr_graph_view_api), 3);
const tsr_graph_view_api kGraphViewApi14 = MakeTable(sizeof(tsr_graph_view_api), 4);
static_assert(TSR_ABI_VERSION_MINOR == 4, "add the graph view table of the new minor");

}  // namespace

const tsr_graph_view_api* GraphViewApi() { return &kGraphViewApi14; }

const tsr_graph_view_api* GraphViewApiFor(tsr_version negotiated) {
  if (negotiated.major == 1 && negotiated.minor == 0) return &kGraphViewApi10;
  if (negotiated.major == 1 && negotiated.minor == 1) return &kGraphViewApi11;
  if (negotiated.major == 1 && negotiated.minor == 2) return &kGraphViewApi12;
  if (negotiated.major == 1 && negotiated.minor == 3) return &kGraphViewApi13;
  return &kGraphViewApi14;
}

}  // namespace tessera
