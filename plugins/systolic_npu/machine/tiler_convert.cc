// Element-stream lowerings: RESHAPE (a copy), QUANTIZE and DEQUANTIZE (one
// VECTOR op per chunk), and their one-layer program helper (see tiler.h).
//
// Choice for RESHAPE: a DMA copy through SRAM, not an alias. The bytes of
// a reshape are unchanged, so the cheapest *correct* lowering in this ISA
// is DMA_LOAD + DMA_STORE of the flat tensor in chunks (no vector op).
// Aliasing the output onto the input would cost nothing, but only when
// both live in the partition's scratch region: a reshape that reads a
// graph input or a constant, or writes a graph output, still needs the
// copy (every region is its own host buffer), and the aliases would have
// to be threaded through the scratch allocator. In the models this
// targets (a CNN's flatten right before the classifier) the reshape's
// input is an intermediate and its output feeds one FC, so the copy is a
// few DMA bursts, and the cycles/bytes it reports are exactly what runs.
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "plugins/systolic_npu/machine/tiler.h"
#include "plugins/systolic_npu/machine/tiler_internal.h"

namespace tessera::systolic {
namespace {

using internal::CheckOffset;

using internal::Invalid;

bool IsNpuFloat(int32_t dt) { return dt == TSR_DTYPE_F32 || dt == TSR_DTYPE_F16; }

absl::Status CheckLayer(const ConvertLayer& L) {
  if (L.count < 1 || L.count > (int64_t{1} << 32)) return Invalid("bad element count");
  switch (L.op) {
    case ConvertOp::kCopy:
      if (L.in_dtype != L.out_dtype || NpuDtypeSize(L.in_dtype) == 0)
        return Invalid("a copy keeps one NPU dtype (f32, f16, i8, i32)");
      return absl::OkStatus();
    case ConvertOp::kQuantize:
    case ConvertOp::kDequantize: {
      const bool quantize = L.op == ConvertOp::kQuantize;
      const int32_t f = quantize ? L.in_dtype : L.out_dtype;
      const int32_t i = quantize ? L.out_dtype : L.in_dtype;
      if (!IsNpuFloat(f) || i != TSR_DTYPE_I8)
        return Invalid(quantize ? "quantize is f32/f16 -> i8" : "dequantize is i8 -> f32/f16");
      if (!(L.q.scale > 0) || !(L.q.scale < std::numeric_limits<float>::infinity()))
        return Invalid("quantization scale must be finite and positive");
      if (L.q.zero_point < -128 || L.q.zero_point > 127) return Invalid("quantization zero point must be int8");
      return absl::OkStatus();
    }
  }
  return Invalid("unknown convert op");
}

}  // namespace

absl::Status EmitConvert(const ConvertLayer& L, TensorRef input, TensorRef output, const SystolicNpuConfig& npu,
                         Program& p, EntryPoint& e) {
  if (auto s = CheckLayer(L); !s.ok()) return s;
  const internal::SramMap sm = internal::MakeSramMap(npu);
  const uint64_t ies = NpuDtypeSize(L.in_dtype), oes = NpuDtypeSize(L.out_dtype);
  const bool copy = L.op == ConvertOp::kCopy;
  // A copy stores straight from the input bank; a conversion writes its
  // result to the accumulator bank. Chunks alternate ping/pong halves so
  // the load of chunk i+1 overlaps the store (and conversion) of chunk i.
  const uint64_t chunk = copy ? sm.in_half / ies : std::min(sm.in_half / ies, sm.acc_half / oes);
  if (chunk == 0) return absl::ResourceExhaustedError("systolic_npu tiler: SRAM banks too small");
  uint32_t desc = kNoConstant;
  if (!copy) desc = p.AddDescriptor(ConstantKind::kQuantDesc, MakeQuantDesc(L.q.scale, L.q.zero_point));
  const VectorOp vop = L.op == ConvertOp::kQuantize ? VectorOp::kQuantize : VectorOp::kDequantize;
  const uint64_t count = static_cast<uint64_t>(L.count);
  int t = 0;
  for (uint64_t s = 0; s < count; s += chunk) {
    const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(chunk, count - s));
    const uint32_t src = sm.in(t), dst = copy ? src : sm.acc(t);
    t ^= 1;
    const uint64_t ioff = input.offset + s * ies, ooff = output.offset + s * oes;
    if (auto st = CheckOffset(ioff, "input"); !st.ok()) return st;
    if (auto st = CheckOffset(ooff, "output"); !st.ok()) return st;
    e.code.push_back(
        MakeDmaLoadStrided(src, input.region, static_cast<uint32_t>(ioff), 1, len, 0, 1, L.in_dtype, L.in_dtype));
    if (!copy) e.code.push_back(MakeVector(vop, L.in_dtype, L.out_dtype, src, 0, dst, 1, len, desc));
    e.code.push_back(
        MakeDmaStore(dst, output.region, static_cast<uint32_t>(ooff), 1, len, 0, 1, L.out_dtype, L.out_dtype));
  }
  return absl::OkStatus();
}

absl::StatusOr<Program> CompileConvertProgram(const ConvertLayer& L, const SystolicNpuConfig& npu) {
  if (auto s = CheckLayer(L); !s.ok()) return s;
  Program p;
  p.target = TargetInfo::FromSoc(npu);
  EntryPoint e;
  e.name = "main";
  e.regions.push_back(internal::MakeRegion(RegionKind::kInput, 0, L.in_dtype, {L.count}));
  e.regions.push_back(internal::MakeRegion(RegionKind::kOutput, 0, L.out_dtype, {L.count}));
  if (auto s = EmitConvert(L, {1, 0}, {2, 0}, npu, p, e); !s.ok()) return s;
  p.entries.push_back(std::move(e));
  return p;
}

}  // namespace tessera::systolic
