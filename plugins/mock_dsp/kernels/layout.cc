// Layout ops: the DSP's DMA moves elements (bytes), values untouched.
#include <algorithm>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "plugins/mock_dsp/shared/dsp_options.h"
#include "plugins/mock_dsp/kernels/dsp_kernels.h"
#include "tessera/ops.h"

namespace tessera::mock_dsp {
namespace {

// Copies, for each output element in row-major order, the input element
// at offset `start + sum(coord[d] * step[d])`.
void StridedCopy(const DspTensor& in, const DspTensor& out, int64_t start, std::span<const int64_t> step) {
  const size_t w = DtypeWidth(in.dtype);
  const size_t rank = out.shape.size();
  const int64_t total = out.elements();
  std::vector<int64_t> coord(rank, 0);
  int64_t pos = start;
  for (int64_t k = 0; k < total; ++k) {
    std::memcpy(out.data + k * w, in.data + pos * w, w);
    for (size_t d = rank; d-- > 0;) {
      pos += step[d];
      if (++coord[d] < out.shape[d]) break;
      pos -= step[d] * coord[d];
      coord[d] = 0;
    }
  }
}

absl::Status Transpose(const Attrs& attrs, const DspTensor& x, const DspTensor& out) {
  const size_t rank = x.shape.size();
  std::vector<int64_t> reversed(rank);
  for (size_t i = 0; i < rank; ++i) reversed[i] = static_cast<int64_t>(rank - 1 - i);
  const std::vector<int64_t> perm = IntsAttr(attrs, TSR_ATTR_PERM, reversed);
  std::vector<bool> seen(rank, false);
  if (perm.size() != rank) return absl::InvalidArgumentError("TRANSPOSE: perm length differs from the rank");
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p])
      return absl::InvalidArgumentError("TRANSPOSE: perm is not a permutation");
    seen[p] = true;
  }
  std::vector<int64_t> shape(rank), step(rank);
  const std::vector<int64_t> strides = Strides(x.shape);
  for (size_t i = 0; i < rank; ++i) {
    shape[i] = x.shape[perm[i]];
    step[i] = strides[perm[i]];
  }
  if (absl::Status s = CheckShape("TRANSPOSE", out.shape, shape); !s.ok()) return s;
  StridedCopy(x, out, 0, step);
  return absl::OkStatus();
}

absl::Status Slice(const Attrs& attrs, std::span<const DspTensor> in, const DspTensor& out) {
  const DspTensor& x = in[0];
  const size_t rank = x.shape.size();
  // ONNX inputs 1..4 take precedence over the attributes.
  auto list = [&](size_t input, int32_t key) {
    return input < in.size() && in[input].present() ? LoadInts(in[input]) : IntsAttr(attrs, key);
  };
  const std::vector<int64_t> starts = list(1, TSR_ATTR_STARTS), ends = list(2, TSR_ATTR_ENDS);
  std::vector<int64_t> axes = list(3, TSR_ATTR_AXES), steps = list(4, TSR_ATTR_STEPS);
  if (starts.size() != ends.size()) return absl::InvalidArgumentError("SLICE: starts and ends differ in length");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return absl::InvalidArgumentError("SLICE: axes and steps must match starts in length");
  std::vector<int64_t> shape = x.shape, step = Strides(x.shape), begin(rank, 0);
  std::vector<bool> sliced(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    absl::StatusOr<int64_t> axis = NormalizeAxis("SLICE", axes[i], rank);
    if (!axis.ok()) return axis.status();
    if (sliced[*axis]) return absl::InvalidArgumentError("SLICE: an axis is repeated");
    sliced[*axis] = true;
    const int64_t dim = x.shape[*axis], st = steps[i];
    if (st == 0) return absl::InvalidArgumentError("SLICE: step 0");
    // Clamp as ONNX does; INT64 extremes mean "to the end".
    auto wrap = [&](int64_t v) { return v < 0 ? (v < -dim ? -dim - 1 : v) + dim : v; };
    int64_t s = wrap(starts[i]), e = wrap(ends[i]);
    if (dim == 0) {
      s = e = 0;  // nothing to take (and std::clamp below needs lo <= hi)
    } else if (st > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    const int64_t count = st > 0 ? std::max<int64_t>(0, (e - s + st - 1) / st) : std::max<int64_t>(0, (s - e - st - 1) / -st);
    shape[*axis] = count;
    begin[*axis] = s;
    step[*axis] *= st;
  }
  if (absl::Status s = CheckShape("SLICE", out.shape, shape); !s.ok()) return s;
  if (out.elements() == 0) return absl::OkStatus();
  const std::vector<int64_t> strides = Strides(x.shape);
  int64_t start = 0;
  for (size_t d = 0; d < rank; ++d) start += begin[d] * strides[d];
  StridedCopy(x, out, start, step);
  return absl::OkStatus();
}

absl::Status Concat(const Attrs& attrs, std::span<const DspTensor> in, const DspTensor& out) {
  const size_t rank = in[0].shape.size();
  absl::StatusOr<int64_t> axis = NormalizeAxis("CONCAT", IntAttr(attrs, TSR_ATTR_AXIS, 0), rank);
  if (!axis.ok()) return axis.status();
  std::vector<int64_t> shape = in[0].shape;
  shape[*axis] = 0;
  for (const DspTensor& t : in) {
    if (!t.present()) return absl::InvalidArgumentError("CONCAT: an input is missing");
    if (t.shape.size() != rank) return absl::InvalidArgumentError("CONCAT: inputs differ in rank");
    for (size_t d = 0; d < rank; ++d)
      if (static_cast<int64_t>(d) != *axis && t.shape[d] != in[0].shape[d])
        return absl::InvalidArgumentError("CONCAT: inputs differ off the axis");
    shape[*axis] += t.shape[*axis];
  }
  if (absl::Status s = CheckShape("CONCAT", out.shape, shape); !s.ok()) return s;
  int64_t outer = 1;
  for (int64_t d = 0; d < *axis; ++d) outer *= shape[d];
  const size_t w = DtypeWidth(out.dtype);
  const size_t out_row = static_cast<size_t>(out.elements() / std::max<int64_t>(outer, 1)) * w;
  size_t offset = 0;
  for (const DspTensor& t : in) {
    const size_t row = static_cast<size_t>(t.elements() / std::max<int64_t>(outer, 1)) * w;
    for (int64_t o = 0; o < outer; ++o) std::memcpy(out.data + o * out_row + offset, t.data + o * row, row);
    offset += row;
  }
  return absl::OkStatus();
}

absl::Status Gather(const Attrs& attrs, std::span<const DspTensor> in, const DspTensor& out) {
  if (in.size() != 2 || !in[1].present()) return absl::InvalidArgumentError("GATHER: takes data and indices");
  const DspTensor& x = in[0];
  absl::StatusOr<int64_t> axis = NormalizeAxis("GATHER", IntAttr(attrs, TSR_ATTR_AXIS, 0), x.shape.size());
  if (!axis.ok()) return axis.status();
  std::vector<int64_t> shape(x.shape.begin(), x.shape.begin() + *axis);
  shape.insert(shape.end(), in[1].shape.begin(), in[1].shape.end());
  shape.insert(shape.end(), x.shape.begin() + *axis + 1, x.shape.end());
  if (absl::Status s = CheckShape("GATHER", out.shape, shape); !s.ok()) return s;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < *axis; ++d) outer *= x.shape[d];
  for (size_t d = static_cast<size_t>(*axis) + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  const int64_t dim = x.shape[*axis];
  const std::vector<int64_t> indices = LoadInts(in[1]);
  const size_t w = DtypeWidth(x.dtype), run = static_cast<size_t>(inner) * w;
  for (size_t j = 0; j < indices.size(); ++j)
    if (indices[j] < -dim || indices[j] >= dim)
      return absl::InvalidArgumentError(
          absl::StrCat("GATHER: index ", indices[j], " is out of range for an axis of size ", dim));
  uint8_t* dst = out.data;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t idx : indices) {
      const int64_t i = idx < 0 ? idx + dim : idx;
      std::memcpy(dst, x.data + (o * dim + i) * static_cast<int64_t>(run), run);
      dst += run;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunLayout(int32_t op, const Attrs& attrs, std::span<const DspTensor> in, const DspTensor& out) {
  switch (op) {
    case TSR_OP_RESHAPE:
    case TSR_OP_SQUEEZE:
    case TSR_OP_UNSQUEEZE:
      // The output shape is taken as given; only the element count must hold.
      if (out.elements() != in[0].elements())
        return absl::InvalidArgumentError(absl::StrCat(OpName(op), ": output holds ", out.elements(),
                                                       " elements, input ", in[0].elements()));
      if (out.elements() > 0 && out.data != in[0].data)
        std::memmove(out.data, in[0].data, static_cast<size_t>(out.elements()) * DtypeWidth(out.dtype));
      return absl::OkStatus();
    case TSR_OP_TRANSPOSE: return Transpose(attrs, in[0], out);
    case TSR_OP_SLICE: return Slice(attrs, in, out);
    case TSR_OP_CONCAT: return Concat(attrs, in, out);
    case TSR_OP_GATHER: return Gather(attrs, in, out);
  }
  return absl::UnimplementedError(absl::StrCat("mock_dsp: no layout kernel for ", OpName(op)));
}

}  // namespace tessera::mock_dsp
