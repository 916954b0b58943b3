// The instruction set of the reference systolic NPU.
//
// Every instruction is 32 bytes: eight little-endian 32-bit words.
//   word 0: bits 0-7 opcode, 8-15 field a, 16-23 field b, 24-31 field c
//   words 1-7: operands f[0..6]
// Per-opcode meaning of a/b/c/f is documented beside each opcode below and
// in docs/systolic_npu_isa.md. Unused fields must be zero.
//
// SRAM addresses are 32 bits: bits 30-31 select the bank (0 input,
// 1 weight, 2 accumulator), bits 0-29 the byte offset inside it.
// DRAM is addressed as (region, byte offset): region 0 is the read-only
// constant pool, regions 1..n are the entry point's inputs, outputs and
// scratch tensors (see program.h).
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_ISA_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_ISA_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "tessera/common.h"

namespace tessera::systolic {

inline constexpr size_t kInstructionBytes = 32;

enum class Opcode : uint8_t {
  kInvalid = 0,
  // a = DmaMode, b = dram dtype | sram dtype << 4, c = region.
  // f0 = sram address (input or weight bank), f1 = DRAM byte offset,
  // f2 = rows, f3 = cols.
  //   STRIDED: f4 = DRAM row stride, f5 = DRAM col stride (elements).
  //   IM2COL:  f4 = im2col descriptor constant, f5 = first patch row m0,
  //            f6 = first patch column k0.
  // Writes a dense rows x cols row-major tile of the SRAM dtype. dtype pairs:
  // equal, F32 -> F16 (round to nearest even), or F16 -> F32 (exact).
  kDmaLoad = 1,
  // a = 0, b = sram dtype | dram dtype << 4, c = region (not 0).
  // f0 = sram address (any bank), f1 = DRAM byte offset, f2 = rows,
  // f3 = cols, f4 = DRAM row stride, f5 = DRAM col stride (elements).
  // dtype pairs: equal, F32 -> F16, F16 -> F32.
  kDmaStore = 2,
  // a = Dataflow (0 ws, 1 os, 2 is), b = operand dtype (I8 or F16), c =
  // flags (bit 0: accumulate into the existing accumulator tile).
  // f0 = input tile (input bank, M x K), f1 = weight tile (weight bank,
  // K x N), f2 = accumulator tile (accum bank, M x N of I32 / F32),
  // f3 = M, f4 = K, f5 = N.  WS: K <= rows, N <= cols. OS: M <= rows,
  // N <= cols. IS: K <= rows, M <= cols.
  kMatmulTile = 3,
  // a = VectorOp, b = operand dtype, c = result dtype.
  // f0 = src0, f1 = src1 (second operand / bias / per-channel params),
  // f2 = dst (SRAM addresses), f3 = rows, f4 = cols, f5 = descriptor
  // constant (kNoConstant when unused), f6 = flags (ADD/SUB/MUL: bit 0 =
  // src1 is one row of `cols` elements broadcast to every row, bit 1 =
  // src1 is one element per row broadcast across it; at most one; TABLE:
  // bit 1 = one table per row; else 0).
  kVector = 4,
  // All fields zero. Waits until every earlier instruction has completed.
  kSync = 5,
};
inline constexpr uint8_t kOpcodeCount = 6;

enum class DmaMode : uint8_t { kStrided = 0, kIm2col = 1 };

enum class VectorOp : uint8_t {
  kInvalid = 0,
  kBiasAdd = 1,     // I32/F32: dst[r][c] = src0[r][c] + src1[c]
  kRelu = 2,        // F32/F16/I32: dst = src0 < 0 ? 0 : src0
  kClip = 3,        // clamp to [lo, hi] of a CLIP descriptor
  kRequantize = 4,  // I32 -> I8, src1 = multiplier[cols] then shift[cols]
  kAdd = 5,         // F32/F16: fp32 add (rounded to f16); I8: QELTWISE desc
  kMul = 6,         // F32/F16: fp32 mul (rounded to f16); I8: QELTWISE desc
  kMaxPool = 7,     // src0 rows=channels x cols=H*W, dst channels x OH*OW
  kAvgPool = 8,
  // Per-tensor (de)quantization at a model's int8 boundary, QUANT
  // descriptor (scale, zero point), docs/ops.md formulas bit for bit:
  kQuantize = 9,     // F32/F16 -> I8: saturate(rne(x / scale) + zp), NaN -> 0
  kDequantize = 10,  // I8 -> F32/F16: (f32(q) - f32(zp)) * scale
  kSub = 11,         // F32/F16: fp32 subtract (rounded to f16); I8: QELTWISE desc
  // F32/F16, function tables with linear interpolation in fp32
  // (lookup_tables.h; rounded to f16 for F16). No src1, no descriptor.
  kSigmoid = 12,
  kTanh = 13,
  kExp = 14,
  // I8 -> I8 table lookup: dst = T[src0 + 128] with 256-byte tables at src1,
  // one for the whole tile (f6 = 0) or one per row (f6 bit 1). The INT8
  // SIGMOID / TANH / EXP and DIV by a constant (int8_tables.h). No descriptor.
  kTable = 15,
  // I8 -> I32: dst[r] = sum over c of src0[r][c] (exact; INT8 GLOBAL_AVG_POOL
  // before BIAS_ADD and REQUANTIZE). No src1, no descriptor.
  kRowSum = 16,
  // Depthwise convolution (vector_depthwise.h), I8 -> I32 or F16 -> F32:
  // src0 = rows=channels x cols=in_h*in_w planes, src1 = weights
  // taps x channels (tap-major, taps = f6 = kernel_h * kernel_w), POOL
  // descriptor geometry (pad_value: what padding reads, I8 only),
  // dst = (out_h*out_w) x channels, position-major.
  kDepthwise = 17,
  // (17..31: the CNN-side ops; the transformer-side ops number from 32.)
  // F32/F16: a softmax over each row (vector_softmax.h): row max, EXP
  // table, row sum, reciprocal, scale, in fp32. No src1, no descriptor.
  kSoftmax = 32,
};
inline constexpr uint8_t kVectorOpCount = 18;
inline constexpr uint32_t kTableBytes = 256;  // one VECTOR TABLE table

inline bool IsLookupTableVectorOp(VectorOp op) {
  return op == VectorOp::kSigmoid || op == VectorOp::kTanh || op == VectorOp::kExp;
}

enum class Bank : uint8_t { kInput = 0, kWeight = 1, kAccum = 2 };
inline constexpr uint32_t kNoConstant = 0xFFFFFFFFu;
inline constexpr uint32_t kVectorBroadcastSrc1 = 1u;        // VECTOR ADD/SUB/MUL f6
inline constexpr uint32_t kVectorBroadcastSrc1PerRow = 2u;  // VECTOR ADD/SUB/MUL f6

// ADD, SUB and MUL: the two-operand elementwise ops.
inline bool IsBinaryVectorOp(VectorOp op) {
  return op == VectorOp::kAdd || op == VectorOp::kSub || op == VectorOp::kMul;
}

inline constexpr uint32_t SramAddress(Bank bank, uint32_t offset) {
  return (static_cast<uint32_t>(bank) << 30) | (offset & 0x3FFFFFFFu);
}
inline constexpr uint32_t SramBankBits(uint32_t addr) { return addr >> 30; }
inline constexpr uint32_t SramOffset(uint32_t addr) { return addr & 0x3FFFFFFFu; }

// Decoded instruction: the raw fields, no interpretation.
struct Instruction {
  Opcode op = Opcode::kInvalid;
  uint8_t a = 0, b = 0, c = 0;
  std::array<uint32_t, 7> f{};
  bool operator==(const Instruction&) const = default;
};

// Elements of src1 a binary VECTOR reads: one row (f6 bit 0), one per row
// (bit 1) or the whole rows x cols tile.
inline uint64_t BinarySrc1Elements(const Instruction& in) {
  if (in.f[6] & kVectorBroadcastSrc1) return in.f[4];
  if (in.f[6] & kVectorBroadcastSrc1PerRow) return in.f[3];
  return uint64_t{in.f[3]} * in.f[4];
}

// Tables a VECTOR TABLE reads at src1: one per row (f6 bit 1) or one.
inline uint64_t TableCount(const Instruction& in) { return (in.f[6] & kVectorBroadcastSrc1PerRow) ? in.f[3] : 1; }

// Bytes of src1 a VECTOR instruction reads (BIAS_ADD, REQUANTIZE, the
// binary ops, TABLE; 0 for the others).
uint64_t VectorSrc1Bytes(const Instruction& in);

void EncodeInstruction(const Instruction& in, uint8_t out[kInstructionBytes]);
Instruction DecodeInstruction(const uint8_t in[kInstructionBytes]);

// ---- Builders ------------------------------------------------------------

Instruction MakeDmaLoadStrided(uint32_t sram, uint8_t region, uint32_t dram_offset, uint32_t rows, uint32_t cols,
                               uint32_t row_stride, uint32_t col_stride, int32_t dram_dtype, int32_t sram_dtype);
Instruction MakeDmaLoadIm2col(uint32_t sram, uint8_t region, uint32_t dram_offset, uint32_t rows, uint32_t cols,
                              uint32_t desc, uint32_t m0, uint32_t k0, int32_t dram_dtype, int32_t sram_dtype);
Instruction MakeDmaStore(uint32_t sram, uint8_t region, uint32_t dram_offset, uint32_t rows, uint32_t cols,
                         uint32_t row_stride, uint32_t col_stride, int32_t sram_dtype, int32_t dram_dtype);
Instruction MakeMatmulTile(uint8_t dataflow, int32_t dtype, bool accumulate, uint32_t input, uint32_t weight,
                           uint32_t acc, uint32_t m, uint32_t k, uint32_t n);
Instruction MakeVector(VectorOp op, int32_t dtype, int32_t out_dtype, uint32_t src0, uint32_t src1, uint32_t dst,
                       uint32_t rows, uint32_t cols, uint32_t desc = kNoConstant);
Instruction MakeSync();

// Helpers for the b field of DMA instructions.
inline int32_t DmaFirstDtype(uint8_t b) { return b & 0x0F; }
inline int32_t DmaSecondDtype(uint8_t b) { return b >> 4; }

// Bytes per element of the dtypes the NPU handles (I8, F16, F32, I32);
// 0 for any other value.
size_t NpuDtypeSize(int32_t dtype);
const char* NpuDtypeName(int32_t dtype);
const char* OpcodeName(Opcode op);
const char* VectorOpName(VectorOp op);
std::string Disassemble(const Instruction& in);

// ---- Descriptors (constant-pool records, arrays of little-endian int32) --

enum class ConstantKind : uint32_t {
  kData = 1,  // raw tensor bytes (weights, biases, params)
  kIm2colDesc = 2,
  kClipDesc = 3,
  kRequantDesc = 4,
  kQuantEltwiseDesc = 5,
  kPoolDesc = 6,
  kQuantDesc = 7,  // QuantDesc (quant.h): scale f32 bits, zero point
};
inline constexpr uint32_t kConstantKindCount = 8;
// Exact size in bytes of each descriptor kind (0 for kData: any size).
size_t DescriptorBytes(ConstantKind kind);

struct Im2colDesc {
  int32_t channels = 0;  // channels of one group (C / groups)
  int32_t in_h = 0, in_w = 0;
  int32_t kernel_h = 0, kernel_w = 0;
  int32_t stride_h = 1, stride_w = 1;
  int32_t dilation_h = 1, dilation_w = 1;
  int32_t pad_top = 0, pad_left = 0;
  int32_t out_h = 0, out_w = 0;
  int32_t pad_value = 0;       // raw element bits (i8 sign-extended, f16, f32)
  int32_t channel_stride = 0;  // elements between channels (in_h * in_w)
  int32_t reserved = 0;
};
static_assert(sizeof(Im2colDesc) == 64);

struct ClipDesc {  // lo/hi: f32 bits for float dtypes, int32 for I8/I32
  int32_t lo = 0, hi = 0;
};

struct RequantDesc {
  int32_t out_zero_point = 0;
  int32_t act_min = -128, act_max = 127;
};

struct PoolDesc {
  int32_t in_h = 0, in_w = 0;
  int32_t kernel_h = 0, kernel_w = 0;
  int32_t stride_h = 1, stride_w = 1;
  int32_t dilation_h = 1, dilation_w = 1;
  int32_t pad_top = 0, pad_left = 0;
  int32_t out_h = 0, out_w = 0;
  int32_t count_include_pad = 0;
  int32_t pad_bottom = 0, pad_right = 0;  // extent counted by count_include_pad
  int32_t pad_value = 0;                  // DEPTHWISE I8: the value padded taps read; else 0
};
static_assert(sizeof(PoolDesc) == 64);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_ISA_H_
