#include "plugins/kit/graph_snapshot.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "plugins/kit/byte_io.h"
#include "support/math/checked_math.h"
#include "tessera/ops.h"

namespace tessera::kit {
namespace {

constexpr uint32_t kMagic = 0x31475354;  // "TSG1"
constexpr uint32_t kVersion = 1;
// Adds external constants (is_constant == 2: key and size, no payload).
// Written only when a constant is external: everything else stays version 1,
// readable by every decoder already shipped.
constexpr uint32_t kVersionExternal = 2;
constexpr uint32_t kConstantInline = 1;
constexpr uint32_t kConstantExternal = 2;
constexpr uint32_t kMaxRank = 8;

absl::Status ReadTensor(const tsr_graph_view_api* v, tsr_graph g, int32_t t,
                        bool reference_constants, SnapshotTensor& out) {
  out.name = v->tensor_name(g, t);
  out.dtype = v->tensor_dtype(g, t);
  const int64_t* dims = nullptr;
  size_t rank = 0;
  if (v->tensor_shape(g, t, &dims, &rank) != TSR_OK)
    return absl::InvalidArgumentError(absl::StrCat("tensor ", t, ": no shape"));
  out.shape.assign(dims, dims + rank);
  tsr_quantization q{};
  if (v->tensor_quantization(g, t, &q) == TSR_OK && q.count > 0) {
    out.quant.scales.assign(q.scales, q.scales + q.count);
    out.quant.zero_points.assign(q.zero_points, q.zero_points + q.count);
    out.quant.axis = q.axis;
  }
  const void* data = nullptr;
  size_t size = 0;
  if (v->tensor_constant_data(g, t, &data, &size) == TSR_OK) {
    out.is_constant = true;
    const auto* bytes = static_cast<const uint8_t*>(data);
    if (reference_constants) {
      out.constant = {bytes, size};
    } else {
      auto owned = std::make_shared<std::vector<uint8_t>>(bytes, bytes + size);
      out.constant = {owned->data(), owned->size()};
      out.owned = std::move(owned);
    }
  }
  return absl::OkStatus();
}

}  // namespace

size_t DTypeByteSize(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32: case TSR_DTYPE_I32: return 4;
    case TSR_DTYPE_F16: return 2;
    case TSR_DTYPE_I8: case TSR_DTYPE_U8: case TSR_DTYPE_BOOL: return 1;
    case TSR_DTYPE_I64: return 8;
    default: return 0;
  }
}

int64_t ElementCount(std::span<const int64_t> shape) { return checked::ElementCount(shape).value_or(-1); }

int64_t TensorByteSize(const SnapshotTensor& t) {
  return checked::TensorBytes(t.shape, DTypeByteSize(t.dtype)).value_or(-1);
}

absl::StatusOr<GraphSnapshot> SnapshotGraph(const tsr_graph_view_api* v,
                                            tsr_graph g,
                                            bool reference_constants) {
  if (v == nullptr || g == nullptr)
    return absl::InvalidArgumentError("graph view or graph is NULL");
  GraphSnapshot s;
  const size_t tensor_count = v->tensor_count(g);
  s.tensors.resize(tensor_count);
  for (size_t t = 0; t < tensor_count; ++t) {
    absl::Status st = ReadTensor(v, g, static_cast<int32_t>(t),
                                 reference_constants, s.tensors[t]);
    if (!st.ok()) return st;
  }
  const size_t op_count = v->op_count(g);
  s.ops.resize(op_count);
  for (size_t o = 0; o < op_count; ++o) {
    SnapshotOp& op = s.ops[o];
    op.type = v->op_type(g, o);
    op.id = v->op_id(g, o);
    for (size_t i = 0; i < v->op_input_count(g, o); ++i) op.inputs.push_back(v->op_input(g, o, i));
    for (size_t i = 0; i < v->op_output_count(g, o); ++i) op.outputs.push_back(v->op_output(g, o, i));
    // Every key this header knows; the host refuses, on a plugin's behalf,
    // ops carrying keys newer than the plugin negotiated.
    for (int32_t key = 1; key < TSR_ATTR_KEY_COUNT_V1_4; ++key) {
      const int64_t* ints = nullptr;
      const float* floats = nullptr;
      size_t n = 0;
      if (v->op_attr_ints(g, o, key, &ints, &n) == TSR_OK) op.attrs[key].ints.assign(ints, ints + n);
      if (v->op_attr_floats(g, o, key, &floats, &n) == TSR_OK) op.attrs[key].floats.assign(floats, floats + n);
    }
  }
  for (size_t i = 0; i < v->input_count(g); ++i) s.inputs.push_back(v->input(g, i));
  for (size_t i = 0; i < v->output_count(g); ++i) s.outputs.push_back(v->output(g, i));
  return s;
}

namespace {

// The one field order of "TSG1", for the counting and the writing pass.
template <typename Writer>
void WriteSnapshot(const GraphSnapshot& g, Writer& w) {
  bool any_external = false;
  for (const SnapshotTensor& t : g.tensors) any_external |= t.is_constant && t.external_key.has_value();
  w.U32(kMagic);
  w.U32(any_external ? kVersionExternal : kVersion);
  w.U32(static_cast<uint32_t>(g.tensors.size()));
  w.U32(static_cast<uint32_t>(g.ops.size()));
  w.I32Array(g.inputs);
  w.I32Array(g.outputs);
  for (const SnapshotTensor& t : g.tensors) {
    w.String(t.name);
    w.I32(t.dtype);
    w.I64Array(t.shape);
    w.F32Array(t.quant.scales);
    w.I64Array(t.quant.zero_points);
    w.I32(t.quant.axis);
    if (t.is_constant && t.external_key) {
      w.U32(kConstantExternal);
      w.U32(*t.external_key);
      w.U64(static_cast<uint64_t>(TensorByteSize(t)));
      continue;
    }
    w.U32(t.is_constant ? kConstantInline : 0);
    if (t.is_constant) {
      w.U64(t.constant.size());
      w.AlignTo(16);
      w.Bytes(t.constant);
    }
  }
  for (const SnapshotOp& op : g.ops) {
    w.I32(op.type);
    w.U32(op.id);
    w.I32Array(op.inputs);
    w.I32Array(op.outputs);
    w.U32(static_cast<uint32_t>(op.attrs.size()));
    for (const auto& [key, value] : op.attrs) {
      w.I32(key);
      w.I64Array(value.ints);
      w.F32Array(value.floats);
    }
  }
}

}  // namespace

size_t EncodedSnapshotSize(const GraphSnapshot& g) {
  ByteCounter counter;
  WriteSnapshot(g, counter);
  return counter.size();
}

bool EncodeSnapshotInto(const GraphSnapshot& g, std::span<uint8_t> out) {
  SpanByteWriter w(out);
  WriteSnapshot(g, w);
  return !w.overflowed() && w.size() == out.size();
}

std::vector<uint8_t> EncodeSnapshot(const GraphSnapshot& g) {
  std::vector<uint8_t> bytes(EncodedSnapshotSize(g));
  EncodeSnapshotInto(g, bytes);  // sized by the same field order: cannot fail
  return bytes;
}

BodyWriter SnapshotBodyWriter(GraphSnapshot g) {
  auto kept = std::make_shared<const GraphSnapshot>(std::move(g));
  const size_t size = EncodedSnapshotSize(*kept);
  return {size, [kept](std::span<uint8_t> out) { return EncodeSnapshotInto(*kept, out); }};
}

absl::StatusOr<GraphSnapshot> DecodeSnapshot(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  GraphSnapshot g;
  uint32_t magic = 0, version = 0, tensor_count = 0, op_count = 0;
  if (!r.U32(magic) || magic != kMagic) return r.Fail("graph encoding: bad magic");
  if (!r.U32(version) || (version != kVersion && version != kVersionExternal))
    return r.Fail("graph encoding: unknown version");
  if (!r.U32(tensor_count) || !r.U32(op_count)) return r.Fail("graph encoding: truncated header");
  // Every tensor and op takes at least 8 bytes: reject absurd counts early.
  if (tensor_count > r.remaining() / 8 || op_count > r.remaining() / 8)
    return r.Fail("graph encoding: counts exceed the data");
  if (!r.I32Array(g.inputs) || !r.I32Array(g.outputs)) return r.Fail("graph encoding: truncated boundary");
  auto valid_tensor = [&](int32_t t, bool allow_none) {
    return (allow_none && t == TSR_NO_TENSOR) || (t >= 0 && static_cast<uint32_t>(t) < tensor_count);
  };
  g.tensors.resize(tensor_count);
  std::set<uint32_t> external_keys;
  for (uint32_t i = 0; i < tensor_count; ++i) {
    SnapshotTensor& t = g.tensors[i];
    uint32_t is_constant = 0;
    if (!r.String(t.name) || !r.I32(t.dtype) || !r.I64Array(t.shape) ||
        !r.F32Array(t.quant.scales) || !r.I64Array(t.quant.zero_points) ||
        !r.I32(t.quant.axis) || !r.U32(is_constant))
      return r.Fail(absl::StrCat("graph encoding: tensor ", i, " truncated"));
    if (DTypeByteSize(t.dtype) == 0) return r.Fail(absl::StrCat("graph encoding: tensor ", i, " has unknown dtype"));
    if (t.shape.size() > kMaxRank) return r.Fail(absl::StrCat("graph encoding: tensor ", i, " rank too large"));
    // The byte size is what the runtime allocates and what kernels index:
    // it must not wrap, whether or not the tensor is a constant.
    const int64_t byte_size = TensorByteSize(t);
    if (byte_size < 0)
      return r.Fail(absl::StrCat("graph encoding: tensor ", i, " has a negative dimension or exceeds ",
                                 checked::kMaxTensorBytes, " bytes"));
    if (t.quant.scales.size() != t.quant.zero_points.size())
      return r.Fail(absl::StrCat("graph encoding: tensor ", i, " quantization arrays differ in length"));
    if (is_constant > (version == kVersionExternal ? kConstantExternal : kConstantInline))
      return r.Fail(absl::StrCat("graph encoding: tensor ", i, " has an unknown constant kind ", is_constant));
    t.is_constant = is_constant != 0;
    if (is_constant == kConstantExternal) {
      uint32_t key = 0;
      uint64_t size = 0;
      if (!r.U32(key) || !r.U64(size))
        return r.Fail(absl::StrCat("graph encoding: tensor ", i, " external constant truncated"));
      if (size != static_cast<uint64_t>(byte_size))
        return r.Fail(absl::StrCat("graph encoding: tensor ", i, " external constant size does not match its shape"));
      if (!external_keys.insert(key).second)
        return r.Fail(absl::StrCat("graph encoding: tensor ", i, " repeats external constant key ", key));
      t.external_key = key;
    } else if (t.is_constant) {
      uint64_t size = 0;
      if (!r.U64(size) || !r.AlignTo(16) || !r.Span(size, t.constant))
        return r.Fail(absl::StrCat("graph encoding: tensor ", i, " constant out of bounds"));
      if (size != static_cast<uint64_t>(byte_size))
        return r.Fail(absl::StrCat("graph encoding: tensor ", i, " constant size does not match its shape"));
    }
  }
  for (int32_t t : g.inputs) if (!valid_tensor(t, false)) return r.Fail("graph encoding: input index out of range");
  for (int32_t t : g.outputs) if (!valid_tensor(t, false)) return r.Fail("graph encoding: output index out of range");
  g.ops.resize(op_count);
  for (uint32_t i = 0; i < op_count; ++i) {
    SnapshotOp& op = g.ops[i];
    uint32_t attr_count = 0;
    if (!r.I32(op.type) || !r.U32(op.id) || !r.I32Array(op.inputs) ||
        !r.I32Array(op.outputs) || !r.U32(attr_count) || attr_count > r.remaining() / 12)
      return r.Fail(absl::StrCat("graph encoding: op ", i, " truncated"));
    if (tsr_op_type_since_minor(op.type) < 0)
      return r.Fail(absl::StrCat("graph encoding: op ", i, " has unknown type ", op.type));
    for (int32_t t : op.inputs) if (!valid_tensor(t, true)) return r.Fail(absl::StrCat("graph encoding: op ", i, " input out of range"));
    for (int32_t t : op.outputs) if (!valid_tensor(t, false)) return r.Fail(absl::StrCat("graph encoding: op ", i, " output out of range"));
    for (uint32_t a = 0; a < attr_count; ++a) {
      int32_t key = 0;
      SnapshotAttr value;
      if (!r.I32(key) || !r.I64Array(value.ints) || !r.F32Array(value.floats))
        return r.Fail(absl::StrCat("graph encoding: op ", i, " attribute truncated"));
      op.attrs[key] = std::move(value);
    }
  }
  if (r.remaining() != 0) return r.Fail("graph encoding: trailing bytes");
  return g;
}

}  // namespace tessera::kit
