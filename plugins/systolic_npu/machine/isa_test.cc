#include "plugins/systolic_npu/machine/isa.h"

#include <random>

#include <gtest/gtest.h>

namespace tessera::systolic {
namespace {

TEST(Isa, EncodeDecodeRoundTrip) {
  std::mt19937 rng(5);
  for (int i = 0; i < 1000; ++i) {
    Instruction in;
    in.op = static_cast<Opcode>(rng() % 256);
    in.a = static_cast<uint8_t>(rng());
    in.b = static_cast<uint8_t>(rng());
    in.c = static_cast<uint8_t>(rng());
    for (auto& f : in.f) f = rng();
    uint8_t buf[kInstructionBytes];
    EncodeInstruction(in, buf);
    EXPECT_EQ(DecodeInstruction(buf), in);
    (void)Disassemble(in);  // never crashes on garbage
  }
}

TEST(Isa, LittleEndianLayout) {
  const Instruction in = MakeMatmulTile(1, TSR_DTYPE_F16, true, SramAddress(Bank::kInput, 0x40),
                                        SramAddress(Bank::kWeight, 0), SramAddress(Bank::kAccum, 8), 3, 4, 5);
  uint8_t buf[kInstructionBytes];
  EncodeInstruction(in, buf);
  EXPECT_EQ(buf[0], 3);  // opcode
  EXPECT_EQ(buf[1], 1);  // os
  EXPECT_EQ(buf[2], TSR_DTYPE_F16);
  EXPECT_EQ(buf[3], 1);  // accumulate
  EXPECT_EQ(buf[4], 0x40);
  EXPECT_EQ(buf[11], 0x40);  // weight bank bits (1 << 30) in the top byte
  EXPECT_EQ(buf[15], 0x80);  // accum bank bits (2 << 30)
  EXPECT_EQ(buf[16], 3);
  EXPECT_EQ(Disassemble(in), "MATMUL_TILE.os.f16.acc acc:0x8 = in:0x40 x wt:0x0  M=3 K=4 N=5");
  Instruction is = in;
  is.a = 2;
  EXPECT_EQ(Disassemble(is), "MATMUL_TILE.is.f16.acc acc:0x8 = in:0x40 x wt:0x0  M=3 K=4 N=5");
}

TEST(Isa, SramAddressing) {
  const uint32_t a = SramAddress(Bank::kAccum, 0x1234);
  EXPECT_EQ(SramBankBits(a), 2u);
  EXPECT_EQ(SramOffset(a), 0x1234u);
  EXPECT_EQ(NpuDtypeSize(TSR_DTYPE_I8), 1u);
  EXPECT_EQ(NpuDtypeSize(TSR_DTYPE_F16), 2u);
  EXPECT_EQ(NpuDtypeSize(TSR_DTYPE_BOOL), 0u);
  EXPECT_EQ(DescriptorBytes(ConstantKind::kIm2colDesc), 64u);
  EXPECT_EQ(DescriptorBytes(ConstantKind::kData), 0u);
}

}  // namespace
}  // namespace tessera::systolic
