#include "plugins/systolic_npu/machine/isa.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/systolic_npu/machine/quant.h"
#include "plugins/systolic_npu/machine/soc_config.h"

namespace tessera::systolic {
namespace {

void Put32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v >> 16);
  p[3] = static_cast<uint8_t>(v >> 24);
}
uint32_t Get32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
uint8_t PackDtypes(int32_t lo, int32_t hi) { return static_cast<uint8_t>((lo & 0x0F) | ((hi & 0x0F) << 4)); }

const char* BankName(uint32_t bits) {
  switch (bits) {
    case 0:
      return "in";
    case 1:
      return "wt";
    case 2:
      return "acc";
    default:
      return "bad";
  }
}
std::string Addr(uint32_t a) { return absl::StrFormat("%s:0x%x", BankName(SramBankBits(a)), SramOffset(a)); }

}  // namespace

void EncodeInstruction(const Instruction& in, uint8_t out[kInstructionBytes]) {
  Put32(out, static_cast<uint32_t>(in.op) | (uint32_t{in.a} << 8) | (uint32_t{in.b} << 16) | (uint32_t{in.c} << 24));
  for (int i = 0; i < 7; ++i) Put32(out + 4 + 4 * i, in.f[i]);
}

Instruction DecodeInstruction(const uint8_t in[kInstructionBytes]) {
  Instruction out;
  const uint32_t w0 = Get32(in);
  out.op = static_cast<Opcode>(w0 & 0xFF);
  out.a = static_cast<uint8_t>(w0 >> 8);
  out.b = static_cast<uint8_t>(w0 >> 16);
  out.c = static_cast<uint8_t>(w0 >> 24);
  for (int i = 0; i < 7; ++i) out.f[i] = Get32(in + 4 + 4 * i);
  return out;
}

Instruction MakeDmaLoadStrided(uint32_t sram, uint8_t region, uint32_t dram_offset, uint32_t rows, uint32_t cols,
                               uint32_t row_stride, uint32_t col_stride, int32_t dram_dtype, int32_t sram_dtype) {
  Instruction in;
  in.op = Opcode::kDmaLoad;
  in.a = static_cast<uint8_t>(DmaMode::kStrided);
  in.b = PackDtypes(dram_dtype, sram_dtype);
  in.c = region;
  in.f = {sram, dram_offset, rows, cols, row_stride, col_stride, 0};
  return in;
}

Instruction MakeDmaLoadIm2col(uint32_t sram, uint8_t region, uint32_t dram_offset, uint32_t rows, uint32_t cols,
                              uint32_t desc, uint32_t m0, uint32_t k0, int32_t dram_dtype, int32_t sram_dtype) {
  Instruction in;
  in.op = Opcode::kDmaLoad;
  in.a = static_cast<uint8_t>(DmaMode::kIm2col);
  in.b = PackDtypes(dram_dtype, sram_dtype);
  in.c = region;
  in.f = {sram, dram_offset, rows, cols, desc, m0, k0};
  return in;
}

Instruction MakeDmaStore(uint32_t sram, uint8_t region, uint32_t dram_offset, uint32_t rows, uint32_t cols,
                         uint32_t row_stride, uint32_t col_stride, int32_t sram_dtype, int32_t dram_dtype) {
  Instruction in;
  in.op = Opcode::kDmaStore;
  in.b = PackDtypes(sram_dtype, dram_dtype);
  in.c = region;
  in.f = {sram, dram_offset, rows, cols, row_stride, col_stride, 0};
  return in;
}

Instruction MakeMatmulTile(uint8_t dataflow, int32_t dtype, bool accumulate, uint32_t input, uint32_t weight,
                           uint32_t acc, uint32_t m, uint32_t k, uint32_t n) {
  Instruction in;
  in.op = Opcode::kMatmulTile;
  in.a = dataflow;
  in.b = static_cast<uint8_t>(dtype);
  in.c = accumulate ? 1 : 0;
  in.f = {input, weight, acc, m, k, n, 0};
  return in;
}

Instruction MakeVector(VectorOp op, int32_t dtype, int32_t out_dtype, uint32_t src0, uint32_t src1, uint32_t dst,
                       uint32_t rows, uint32_t cols, uint32_t desc) {
  Instruction in;
  in.op = Opcode::kVector;
  in.a = static_cast<uint8_t>(op);
  in.b = static_cast<uint8_t>(dtype);
  in.c = static_cast<uint8_t>(out_dtype);
  in.f = {src0, src1, dst, rows, cols, desc, 0};
  return in;
}

Instruction MakeSync() {
  Instruction in;
  in.op = Opcode::kSync;
  return in;
}

size_t NpuDtypeSize(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_I8:
      return 1;
    case TSR_DTYPE_F16:
      return 2;
    case TSR_DTYPE_F32:
      return 4;
    case TSR_DTYPE_I32:
      return 4;
    default:
      return 0;
  }
}

const char* NpuDtypeName(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_I8:
      return "i8";
    case TSR_DTYPE_F16:
      return "f16";
    case TSR_DTYPE_F32:
      return "f32";
    case TSR_DTYPE_I32:
      return "i32";
    default:
      return "?";
  }
}

const char* OpcodeName(Opcode op) {
  switch (op) {
    case Opcode::kDmaLoad:
      return "DMA_LOAD";
    case Opcode::kDmaStore:
      return "DMA_STORE";
    case Opcode::kMatmulTile:
      return "MATMUL_TILE";
    case Opcode::kVector:
      return "VECTOR";
    case Opcode::kSync:
      return "SYNC";
    default:
      return "INVALID";
  }
}

uint64_t VectorSrc1Bytes(const Instruction& in) {
  const VectorOp op = static_cast<VectorOp>(in.a);
  const uint64_t es = NpuDtypeSize(in.b);
  if (op == VectorOp::kBiasAdd) return uint64_t{in.f[4]} * es;
  if (op == VectorOp::kRequantize) return uint64_t{in.f[4]} * 8;
  if (IsBinaryVectorOp(op)) return BinarySrc1Elements(in) * es;
  if (op == VectorOp::kTable) return TableCount(in) * kTableBytes;
  if (op == VectorOp::kDepthwise) return uint64_t{in.f[6]} * in.f[3] * es;  // taps x channels
  return 0;
}

const char* VectorOpName(VectorOp op) {
  switch (op) {
    case VectorOp::kBiasAdd:
      return "BIAS_ADD";
    case VectorOp::kRelu:
      return "RELU";
    case VectorOp::kClip:
      return "CLIP";
    case VectorOp::kRequantize:
      return "REQUANTIZE";
    case VectorOp::kAdd:
      return "ADD";
    case VectorOp::kMul:
      return "MUL";
    case VectorOp::kSub:
      return "SUB";
    case VectorOp::kMaxPool:
      return "MAX_POOL";
    case VectorOp::kAvgPool:
      return "AVG_POOL";
    case VectorOp::kQuantize:
      return "QUANTIZE";
    case VectorOp::kDequantize:
      return "DEQUANTIZE";
    case VectorOp::kSigmoid:
      return "SIGMOID";
    case VectorOp::kTanh:
      return "TANH";
    case VectorOp::kExp:
      return "EXP";
    case VectorOp::kTable:
      return "TABLE";
    case VectorOp::kDepthwise:
      return "DEPTHWISE";
    case VectorOp::kRowSum:
      return "ROW_SUM";
    case VectorOp::kSoftmax:
      return "SOFTMAX";
    default:
      return "INVALID";
  }
}

std::string Disassemble(const Instruction& in) {
  const auto& f = in.f;
  switch (in.op) {
    case Opcode::kDmaLoad:
      if (in.a == static_cast<uint8_t>(DmaMode::kIm2col))
        return absl::StrFormat("DMA_LOAD.im2col %s <- r%d+0x%x [%ux%u] desc=c%u m0=%u k0=%u %s->%s", Addr(f[0]), in.c,
                               f[1], f[2], f[3], f[4], f[5], f[6], NpuDtypeName(DmaFirstDtype(in.b)),
                               NpuDtypeName(DmaSecondDtype(in.b)));
      return absl::StrFormat("DMA_LOAD %s <- r%d+0x%x [%ux%u] stride=(%u,%u) %s->%s", Addr(f[0]), in.c, f[1], f[2],
                             f[3], f[4], f[5], NpuDtypeName(DmaFirstDtype(in.b)), NpuDtypeName(DmaSecondDtype(in.b)));
    case Opcode::kDmaStore:
      return absl::StrFormat("DMA_STORE r%d+0x%x <- %s [%ux%u] stride=(%u,%u) %s->%s", in.c, f[1], Addr(f[0]), f[2],
                             f[3], f[4], f[5], NpuDtypeName(DmaFirstDtype(in.b)), NpuDtypeName(DmaSecondDtype(in.b)));
    case Opcode::kMatmulTile:
      return absl::StrFormat("MATMUL_TILE.%s.%s%s %s = %s x %s  M=%u K=%u N=%u",
                             DataflowName(static_cast<Dataflow>(in.a)), NpuDtypeName(in.b), (in.c & 1) ? ".acc" : "",
                             Addr(f[2]), Addr(f[0]), Addr(f[1]), f[3], f[4], f[5]);
    case Opcode::kVector: {
      std::string d = f[5] == kNoConstant ? "" : absl::StrCat(" desc=c", f[5]);
      return absl::StrFormat("VECTOR.%s.%s->%s %s = %s, %s [%ux%u]%s", VectorOpName(static_cast<VectorOp>(in.a)),
                             NpuDtypeName(in.b), NpuDtypeName(in.c), Addr(f[2]), Addr(f[0]), Addr(f[1]), f[3], f[4], d);
    }
    case Opcode::kSync:
      return "SYNC";
    default:
      return absl::StrFormat("INVALID(0x%02x)", static_cast<int>(in.op));
  }
}

size_t DescriptorBytes(ConstantKind kind) {
  switch (kind) {
    case ConstantKind::kIm2colDesc:
      return sizeof(Im2colDesc);
    case ConstantKind::kClipDesc:
      return sizeof(ClipDesc);
    case ConstantKind::kRequantDesc:
      return sizeof(RequantDesc);
    case ConstantKind::kQuantEltwiseDesc:
      return sizeof(QuantEltwiseDesc);
    case ConstantKind::kPoolDesc:
      return sizeof(PoolDesc);
    case ConstantKind::kQuantDesc:
      return sizeof(QuantDesc);
    default:
      return 0;
  }
}

}  // namespace tessera::systolic
