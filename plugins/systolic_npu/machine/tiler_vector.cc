// Vector-unit lowerings (ADD, SUB, MUL, RELU, CLIP, SIGMOID, TANH, EXP,
// INT8 TABLE, MAX/AVG POOL) and the
// one-layer program helpers (see tiler.h).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "plugins/systolic_npu/machine/int8_tables.h"
#include "plugins/systolic_npu/machine/tiler.h"
#include "plugins/systolic_npu/machine/tiler_internal.h"

namespace tessera::systolic {
namespace {

using internal::CheckOffset;
using internal::MakeRegion;

using internal::Invalid;

int32_t FloatBits(float f) {
  int32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

int64_t PoolOut(int64_t in, int64_t pad0, int64_t pad1, int64_t k, int64_t d, int64_t s, bool ceil_mode) {
  const int64_t span = in + pad0 + pad1 - d * (k - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  // ONNX: the last window must start inside the input or the left padding.
  if (ceil_mode && (out - 1) * s >= in + pad0) --out;
  return out;
}

// a viewed as [outer, C, plane], b as [C] (or [C, 256] tables for
// TABLE: per_row = 256): per image, tiles of channel rows by plane columns,
// each with its slice of b broadcast along the row (VECTOR f6 bit 1). A
// plane larger than half a bank is cut into columns.
absl::Status EmitPerChannel(const ElementwiseLayer& L, VectorOp vop, uint32_t desc, TensorRef a, TensorRef b,
                            TensorRef output, const internal::SramMap& sm, uint64_t half, uint64_t per_row,
                            EntryPoint& e) {
  const uint64_t es = NpuDtypeSize(L.dtype);
  const uint64_t C = static_cast<uint64_t>(L.b_channels), plane = static_cast<uint64_t>(L.plane);
  if (L.b_count != 0 || plane < 1 || plane > 0xFFFFFFFFull || static_cast<uint64_t>(L.count) % (C * plane) != 0)
    return Invalid("per-channel operand does not match the tensor");
  const uint64_t outer = static_cast<uint64_t>(L.count) / (C * plane);
  const uint64_t np = std::min<uint64_t>(plane, half / es);
  const uint64_t nr = std::min<uint64_t>({C, half / (np * es), half / (per_row * es)});
  int t = 0;
  for (uint64_t o = 0; o < outer; ++o)
    for (uint64_t c0 = 0; c0 < C; c0 += nr)
      for (uint64_t p0 = 0; p0 < plane; p0 += np) {
        const uint32_t rows = static_cast<uint32_t>(std::min(nr, C - c0));
        const uint32_t cols = static_cast<uint32_t>(std::min(np, plane - p0));
        const uint32_t ia = sm.in(t), ib = sm.w(t), out = sm.acc(t);
        t ^= 1;
        const uint64_t off = ((o * C + c0) * plane + p0) * es;
        if (auto st = CheckOffset(a.offset + off, "input"); !st.ok()) return st;
        if (auto st = CheckOffset(output.offset + off, "output"); !st.ok()) return st;
        if (auto st = CheckOffset(b.offset + c0 * per_row * es, "input"); !st.ok()) return st;
        const uint32_t stride = static_cast<uint32_t>(plane);
        e.code.push_back(MakeDmaLoadStrided(ia, a.region, static_cast<uint32_t>(a.offset + off), rows, cols, stride, 1,
                                            L.dtype, L.dtype));
        e.code.push_back(MakeDmaLoadStrided(ib, b.region, static_cast<uint32_t>(b.offset + c0 * per_row * es), 1,
                                            static_cast<uint32_t>(rows * per_row), 0, 1, L.dtype, L.dtype));
        Instruction v = MakeVector(vop, L.dtype, L.dtype, ia, ib, out, rows, cols, desc);
        v.f[6] = kVectorBroadcastSrc1PerRow;
        e.code.push_back(v);
        e.code.push_back(MakeDmaStore(out, output.region, static_cast<uint32_t>(output.offset + off), rows, cols,
                                      stride, 1, L.dtype, L.dtype));
      }
  return absl::OkStatus();
}

}  // namespace

int64_t Pool2dLayer::out_h() const {
  return PoolOut(in_h, pad_top, pad_bottom, kernel_h, dilation_h, stride_h, ceil_mode);
}
int64_t Pool2dLayer::out_w() const {
  return PoolOut(in_w, pad_left, pad_right, kernel_w, dilation_w, stride_w, ceil_mode);
}

absl::Status EmitElementwise(const ElementwiseLayer& L, TensorRef a, TensorRef b, TensorRef output,
                             const SystolicNpuConfig& npu, Program& p, EntryPoint& e) {
  if (L.dtype != TSR_DTYPE_F32 && L.dtype != TSR_DTYPE_F16 && L.dtype != TSR_DTYPE_I8)
    return Invalid("elementwise dtype must be f32, f16 or i8");
  if (L.count < 1 || L.count > (int64_t{1} << 32)) return Invalid("bad element count");
  const bool q = L.dtype == TSR_DTYPE_I8;
  const bool binary = IsBinary(L.op);
  // INT8 SIGMOID / TANH / EXP and kTable: one VECTOR TABLE, tables at b.
  const bool table = q && (IsLookupTable(L.op) || L.op == ElementwiseOp::kTable);
  const uint64_t es = NpuDtypeSize(L.dtype);
  uint32_t desc = kNoConstant;
  VectorOp vop = VectorOp::kAdd;
  switch (L.op) {
    case ElementwiseOp::kAdd:
    case ElementwiseOp::kMul:
      vop = L.op == ElementwiseOp::kAdd ? VectorOp::kAdd : VectorOp::kMul;
      if (q)
        desc = p.AddDescriptor(ConstantKind::kQuantEltwiseDesc,
                               MakeQuantEltwiseDesc(L.a_q.scale, L.a_q.zero_point, L.b_q.scale, L.b_q.zero_point,
                                                    L.out_q.scale, L.out_q.zero_point));
      break;
    case ElementwiseOp::kSub:
      vop = VectorOp::kSub;
      if (q)
        desc = p.AddDescriptor(ConstantKind::kQuantEltwiseDesc,
                               MakeQuantEltwiseDesc(L.a_q.scale, L.a_q.zero_point, L.b_q.scale, L.b_q.zero_point,
                                                    L.out_q.scale, L.out_q.zero_point));
      break;
    case ElementwiseOp::kRelu:
      if (q) {  // on the stored integers (docs/ops.md): clamp to [0, 127]
        vop = VectorOp::kClip;
        desc = p.AddDescriptor(ConstantKind::kClipDesc, ClipDesc{0, 127});
      } else {
        vop = VectorOp::kRelu;
      }
      break;
    case ElementwiseOp::kSigmoid:
    case ElementwiseOp::kTanh:
    case ElementwiseOp::kExp:
      if (q) {  // the function on all 256 inputs, placed in the pool
        if (!(L.a_q.scale > 0) || !(L.out_q.scale > 0)) return Invalid("quantized scales must be positive");
        const Int8Function f = L.op == ElementwiseOp::kSigmoid ? Int8Function::kSigmoid
                               : L.op == ElementwiseOp::kTanh  ? Int8Function::kTanh
                                                               : Int8Function::kExp;
        const Int8Table t = Int8FunctionTable(f, L.a_q.scale, L.a_q.zero_point, L.out_q.scale, L.out_q.zero_point);
        b = TensorRef{0, p.constants[p.AddData(t.data(), t.size(), TSR_DTYPE_I8)].offset};
        vop = VectorOp::kTable;
        break;
      }
      vop = L.op == ElementwiseOp::kSigmoid ? VectorOp::kSigmoid
            : L.op == ElementwiseOp::kTanh  ? VectorOp::kTanh
                                            : VectorOp::kExp;
      break;
    case ElementwiseOp::kTable:
      if (!q) return Invalid("TABLE takes i8");
      vop = VectorOp::kTable;
      break;
    case ElementwiseOp::kClip:
      vop = VectorOp::kClip;
      if (q) {  // integer bounds: ceil(min), floor(max), saturated; inf/NaN = none
        auto bound = [](float v, bool lower) -> int32_t {
          if (!std::isfinite(v)) return lower ? -128 : 127;
          const double b = lower ? std::ceil(v) : std::floor(v);
          return static_cast<int32_t>(std::clamp(b, -128.0, 127.0));
        };
        desc = p.AddDescriptor(ConstantKind::kClipDesc, ClipDesc{bound(L.clip_min, true), bound(L.clip_max, false)});
      } else {
        desc = p.AddDescriptor(ConstantKind::kClipDesc, ClipDesc{FloatBits(L.clip_min), FloatBits(L.clip_max)});
      }
      break;
  }
  if (q && binary && (!(L.a_q.scale > 0) || !(L.b_q.scale > 0) || !(L.out_q.scale > 0)))
    return Invalid("quantized scales must be positive");
  const internal::SramMap sm = internal::MakeSramMap(npu);
  const uint64_t half = std::min(sm.in_half, std::min(sm.w_half, sm.acc_half));
  const uint64_t count = static_cast<uint64_t>(L.count);
  if ((binary || table) && L.b_channels > 0)
    return EmitPerChannel(L, vop, desc, a, b, output, sm, half, table ? kTableBytes : 1, e);
  if (binary && L.b_count > 0 && L.b_count != L.count) {
    // Broadcast b: rows of b_count elements of a, b loaded once per chunk.
    const uint64_t cols = static_cast<uint64_t>(L.b_count);
    if (count % cols != 0) return Invalid("broadcast operand does not divide the tensor");
    if (cols * es > half)
      return absl::ResourceExhaustedError("systolic_npu tiler: a broadcast operand larger than half an SRAM bank");
    const uint64_t rows = count / cols;
    const uint64_t chunk_rows = std::min<uint64_t>(rows, half / (cols * es));
    int t = 0;
    for (uint64_t r0 = 0; r0 < rows; r0 += chunk_rows) {
      const uint32_t nr = static_cast<uint32_t>(std::min<uint64_t>(chunk_rows, rows - r0));
      const uint32_t ia = sm.in(t), ib = sm.w(t), out = sm.acc(t);
      t ^= 1;
      const uint64_t off = r0 * cols * es;
      if (auto st = CheckOffset(a.offset + off, "input"); !st.ok()) return st;
      if (auto st = CheckOffset(output.offset + off, "output"); !st.ok()) return st;
      if (auto st = CheckOffset(b.offset, "input"); !st.ok()) return st;
      e.code.push_back(MakeDmaLoadStrided(ia, a.region, static_cast<uint32_t>(a.offset + off), nr,
                                          static_cast<uint32_t>(cols), static_cast<uint32_t>(cols), 1, L.dtype,
                                          L.dtype));
      e.code.push_back(MakeDmaLoadStrided(ib, b.region, static_cast<uint32_t>(b.offset), 1, static_cast<uint32_t>(cols),
                                          0, 1, L.dtype, L.dtype));
      Instruction v = MakeVector(vop, L.dtype, L.dtype, ia, ib, out, nr, static_cast<uint32_t>(cols), desc);
      v.f[6] = kVectorBroadcastSrc1;
      e.code.push_back(v);
      e.code.push_back(MakeDmaStore(out, output.region, static_cast<uint32_t>(output.offset + off), nr,
                                    static_cast<uint32_t>(cols), static_cast<uint32_t>(cols), 1, L.dtype, L.dtype));
    }
    return absl::OkStatus();
  }
  // Chunks of up to half a bank, one row each.
  const uint64_t chunk = std::min<uint64_t>(count, half / es);
  int t = 0;
  for (uint64_t s = 0; s < count; s += chunk) {
    const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(chunk, count - s));
    const uint32_t ia = sm.in(t), ib = sm.w(t), out = sm.acc(t);
    t ^= 1;
    if (auto st = CheckOffset(a.offset + s * es, "input"); !st.ok()) return st;
    if (auto st = CheckOffset(output.offset + s * es, "output"); !st.ok()) return st;
    e.code.push_back(
        MakeDmaLoadStrided(ia, a.region, static_cast<uint32_t>(a.offset + s * es), 1, len, 0, 1, L.dtype, L.dtype));
    if (binary) {
      if (auto st = CheckOffset(b.offset + s * es, "input"); !st.ok()) return st;
      e.code.push_back(
          MakeDmaLoadStrided(ib, b.region, static_cast<uint32_t>(b.offset + s * es), 1, len, 0, 1, L.dtype, L.dtype));
    } else if (table) {  // the one table, beside each chunk (as a broadcast b)
      if (auto st = CheckOffset(b.offset, "input"); !st.ok()) return st;
      e.code.push_back(MakeDmaLoadStrided(ib, b.region, static_cast<uint32_t>(b.offset), 1, kTableBytes, 0, 1,
                                          TSR_DTYPE_I8, TSR_DTYPE_I8));
    }
    e.code.push_back(MakeVector(vop, L.dtype, L.dtype, ia, binary || table ? ib : 0, out, 1, len, desc));
    e.code.push_back(MakeDmaStore(out, output.region, static_cast<uint32_t>(output.offset + s * es), 1, len, 0, 1,
                                  L.dtype, L.dtype));
  }
  return absl::OkStatus();
}

absl::Status EmitPool2d(const Pool2dLayer& L, TensorRef input, TensorRef output, const SystolicNpuConfig& npu,
                        Program& p, EntryPoint& e) {
  const int64_t lim = int64_t{1} << 16;
  auto ok = [&](int64_t v, int64_t lo) { return v >= lo && v <= lim; };
  if (!ok(L.batch, 1) || !ok(L.channels, 1) || !ok(L.in_h, 1) || !ok(L.in_w, 1) || !ok(L.kernel_h, 1) ||
      !ok(L.kernel_w, 1) || !ok(L.stride_h, 1) || !ok(L.stride_w, 1) || !ok(L.dilation_h, 1) || !ok(L.dilation_w, 1) ||
      !ok(L.pad_top, 0) || !ok(L.pad_left, 0) || !ok(L.pad_bottom, 0) || !ok(L.pad_right, 0))
    return Invalid("pool attributes out of range");
  if (L.dtype != TSR_DTYPE_F32 && L.dtype != TSR_DTYPE_F16 && L.dtype != TSR_DTYPE_I8)
    return Invalid("pool dtype must be f32, f16 or i8");
  if (L.kernel_h * L.kernel_w > 4096) return Invalid("pool window larger than 4096");
  if (L.pad_top >= L.kernel_h || L.pad_left >= L.kernel_w || L.pad_bottom >= L.kernel_h || L.pad_right >= L.kernel_w)
    return Invalid("pool padding must be smaller than the window");
  const int64_t OH = L.out_h(), OW = L.out_w();
  if (OH < 1 || OW < 1) return Invalid("pool output would be empty");
  PoolDesc d;
  d.in_h = static_cast<int32_t>(L.in_h);
  d.in_w = static_cast<int32_t>(L.in_w);
  d.kernel_h = static_cast<int32_t>(L.kernel_h);
  d.kernel_w = static_cast<int32_t>(L.kernel_w);
  d.stride_h = static_cast<int32_t>(L.stride_h);
  d.stride_w = static_cast<int32_t>(L.stride_w);
  d.dilation_h = static_cast<int32_t>(L.dilation_h);
  d.dilation_w = static_cast<int32_t>(L.dilation_w);
  d.pad_top = static_cast<int32_t>(L.pad_top);
  d.pad_left = static_cast<int32_t>(L.pad_left);
  d.out_h = static_cast<int32_t>(OH);
  d.out_w = static_cast<int32_t>(OW);
  d.count_include_pad = L.count_include_pad ? 1 : 0;
  d.pad_bottom = static_cast<int32_t>(L.pad_bottom);
  d.pad_right = static_cast<int32_t>(L.pad_right);
  const uint32_t desc = p.AddDescriptor(ConstantKind::kPoolDesc, d);
  const internal::SramMap sm = internal::MakeSramMap(npu);
  const uint64_t es = NpuDtypeSize(L.dtype);
  const uint64_t plane = static_cast<uint64_t>(L.in_h * L.in_w), oplane = static_cast<uint64_t>(OH * OW);
  const uint64_t cc =
      std::min<uint64_t>({static_cast<uint64_t>(L.channels), sm.in_half / (plane * es), sm.acc_half / (oplane * es)});
  if (cc == 0)
    return absl::ResourceExhaustedError(absl::StrCat("systolic_npu tiler: one ", L.in_h, "x", L.in_w,
                                                     " pooling plane does not fit half the "
                                                     "input bank (",
                                                     sm.in_half, " bytes)"));
  const uint64_t total = static_cast<uint64_t>(L.batch * L.channels);
  int t = 0;
  for (uint64_t c0 = 0; c0 < total; c0 += cc) {
    // Channel chunks may span images: NCHW planes are contiguous.
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(cc, total - c0));
    const uint32_t src = sm.in(t), dst = sm.acc(t);
    t ^= 1;
    const uint64_t ioff = input.offset + c0 * plane * es, ooff = output.offset + c0 * oplane * es;
    if (auto s = CheckOffset(ioff, "input"); !s.ok()) return s;
    if (auto s = CheckOffset(ooff, "output"); !s.ok()) return s;
    e.code.push_back(MakeDmaLoadStrided(src, input.region, static_cast<uint32_t>(ioff), n, static_cast<uint32_t>(plane),
                                        static_cast<uint32_t>(plane), 1, L.dtype, L.dtype));
    e.code.push_back(MakeVector(L.kind == PoolKind::kMax ? VectorOp::kMaxPool : VectorOp::kAvgPool, L.dtype, L.dtype,
                                src, 0, dst, n, static_cast<uint32_t>(plane), desc));
    e.code.push_back(MakeDmaStore(dst, output.region, static_cast<uint32_t>(ooff), n, static_cast<uint32_t>(oplane),
                                  static_cast<uint32_t>(oplane), 1, L.dtype, L.dtype));
  }
  return absl::OkStatus();
}

// Regions 1.. are the graph-style inputs (input, then kDram weights and
// bias in this order), the output comes last.
absl::StatusOr<Program> CompileGemmProgram(const GemmLayer& L, const SystolicNpuConfig& npu, const TilerOptions& opt) {
  Program p;
  p.target = TargetInfo::FromSoc(npu);
  EntryPoint e;
  e.name = "main";
  auto out_batch = BroadcastBatchDims(L.a_batch, L.b_batch);
  if (!out_batch.ok()) return out_batch.status();
  auto with_batch = [](std::vector<int64_t> batch, std::initializer_list<int64_t> matrix) {
    batch.insert(batch.end(), matrix);
    return batch;
  };
  LayerRefs refs;
  uint32_t io = 0;
  e.regions.push_back(MakeRegion(RegionKind::kInput, io++, L.dtype, with_batch(L.a_batch, {L.M, L.K})));
  refs.input = {static_cast<uint8_t>(e.regions.size()), 0};
  if (L.weights_placement == OperandPlacement::kDram) {
    const bool nk = L.weight_layout == WeightLayout::kNK;
    e.regions.push_back(
        MakeRegion(RegionKind::kInput, io++, L.dtype, with_batch(L.b_batch, {nk ? L.N : L.K, nk ? L.K : L.N})));
    refs.weights = {static_cast<uint8_t>(e.regions.size()), 0};
  }
  if (L.bias_placement == OperandPlacement::kDram) {
    e.regions.push_back(MakeRegion(RegionKind::kInput, io++, L.dtype, {L.N}));
    refs.bias = {static_cast<uint8_t>(e.regions.size()), 0};
  }
  e.regions.push_back(MakeRegion(RegionKind::kOutput, 0, L.dtype, with_batch(*out_batch, {L.M, L.N})));
  refs.output = {static_cast<uint8_t>(e.regions.size()), 0};
  if (auto s = EmitGemm(L, refs, npu, opt, p, e); !s.ok()) return s;
  p.entries.push_back(std::move(e));
  return p;
}

absl::StatusOr<Program> CompileConv2dProgram(const Conv2dLayer& L, const SystolicNpuConfig& npu,
                                             const TilerOptions& opt) {
  Program p;
  p.target = TargetInfo::FromSoc(npu);
  EntryPoint e;
  e.name = "main";
  LayerRefs refs;
  uint32_t io = 0;
  e.regions.push_back(MakeRegion(RegionKind::kInput, io++, L.dtype, {L.batch, L.in_channels, L.in_h, L.in_w}));
  refs.input = {static_cast<uint8_t>(e.regions.size()), 0};
  if (L.weights_placement == OperandPlacement::kDram) {
    const int64_t cg = L.groups > 0 ? L.in_channels / L.groups : 0;
    e.regions.push_back(MakeRegion(RegionKind::kInput, io++, L.dtype, {L.out_channels, cg, L.kernel_h, L.kernel_w}));
    refs.weights = {static_cast<uint8_t>(e.regions.size()), 0};
  }
  if (L.bias_placement == OperandPlacement::kDram) {
    e.regions.push_back(MakeRegion(RegionKind::kInput, io++, L.dtype, {L.out_channels}));
    refs.bias = {static_cast<uint8_t>(e.regions.size()), 0};
  }
  e.regions.push_back(
      MakeRegion(RegionKind::kOutput, 0, L.dtype,
                 {L.batch, L.out_channels, std::max<int64_t>(L.out_h(), 0), std::max<int64_t>(L.out_w(), 0)}));
  refs.output = {static_cast<uint8_t>(e.regions.size()), 0};
  if (auto s = EmitConv2d(L, refs, npu, opt, p, e); !s.ok()) return s;
  p.entries.push_back(std::move(e));
  return p;
}

absl::StatusOr<Program> CompileElementwiseProgram(const ElementwiseLayer& L, const SystolicNpuConfig& npu) {
  Program p;
  p.target = TargetInfo::FromSoc(npu);
  EntryPoint e;
  e.name = "main";
  const bool binary = IsBinary(L.op);
  const int64_t b_elems = L.b_channels > 0 ? L.b_channels : (L.b_count > 0 ? L.b_count : L.count);
  e.regions.push_back(MakeRegion(RegionKind::kInput, 0, L.dtype, {L.count}));
  if (binary) e.regions.push_back(MakeRegion(RegionKind::kInput, 1, L.dtype, {b_elems}));
  e.regions.push_back(MakeRegion(RegionKind::kOutput, 0, L.dtype, {L.count}));
  const uint8_t out = binary ? 3 : 2;
  if (auto s = EmitElementwise(L, {1, 0}, {static_cast<uint8_t>(binary ? 2 : 1), 0}, {out, 0}, npu, p, e); !s.ok())
    return s;
  p.entries.push_back(std::move(e));
  return p;
}

absl::StatusOr<Program> CompilePool2dProgram(const Pool2dLayer& L, const SystolicNpuConfig& npu) {
  Program p;
  p.target = TargetInfo::FromSoc(npu);
  EntryPoint e;
  e.name = "main";
  e.regions.push_back(MakeRegion(RegionKind::kInput, 0, L.dtype, {L.batch, L.channels, L.in_h, L.in_w}));
  e.regions.push_back(
      MakeRegion(RegionKind::kOutput, 0, L.dtype,
                 {L.batch, L.channels, std::max<int64_t>(L.out_h(), 1), std::max<int64_t>(L.out_w(), 1)}));
  if (auto s = EmitPool2d(L, {1, 0}, {2, 0}, npu, p, e); !s.ok()) return s;
  p.entries.push_back(std::move(e));
  return p;
}

}  // namespace tessera::systolic
