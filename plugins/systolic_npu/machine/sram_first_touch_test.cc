// Only SRAM read before it is written needs re-zeroing between runs; a run
// that does read stale SRAM must still see zeros, never the previous
// run's data.
#include "plugins/systolic_npu/machine/sram_first_touch.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/executor.h"
#include "plugins/systolic_npu/machine/test_util.h"
#include "plugins/systolic_npu/machine/tiler.h"

namespace tessera::systolic {
namespace {

// RELU over 64 f32: load, VECTOR, store.
absl::StatusOr<Program> ReluProgram(const SystolicNpuConfig& npu) {
  ElementwiseLayer L;
  L.op = ElementwiseOp::kRelu;
  L.count = 64;
  return CompileElementwiseProgram(L, npu);
}

TEST(SramFirstTouch, CompiledCodeReadsNothingStale) {
  auto p = ReluProgram(snpu_test::SmallNpu(4, 4));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(SramReadsBeforeWrites(*p, p->entries[0]).empty());
}

TEST(SramFirstTouch, StaleReadsAreZeroAfterAnotherRun) {
  const SystolicNpuConfig npu = snpu_test::SmallNpu(4, 4);
  auto a = ReluProgram(npu);
  ASSERT_TRUE(a.ok()) << a.status();
  // b: only a's final store, so it reads accumulator SRAM nobody wrote.
  Program b = *a;
  const Instruction store = b.entries[0].code.back();
  ASSERT_EQ(store.op, Opcode::kDmaStore);
  b.entries[0].code = {store};
  const std::vector<Range> stale = SramReadsBeforeWrites(b, b.entries[0]);
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0].space, SramBankBits(store.f[0]));
  EXPECT_EQ(stale[0].hi - stale[0].lo, 64u * 4);

  std::vector<float> x(64, 3.5f);
  std::vector<uint8_t> xb(64 * 4), out(64 * 4, 0xCD);
  std::memcpy(xb.data(), x.data(), xb.size());
  const std::vector<std::span<const uint8_t>> ins = {xb};
  const std::vector<std::span<uint8_t>> outs = {out};
  ExecMemory mem;
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(Execute(*a, a->entries[0], npu, ins, outs, ExecOptions{}, &mem).ok());
    float first;
    std::memcpy(&first, out.data(), 4);
    EXPECT_EQ(first, 3.5f);  // a's result is in SRAM now
    std::fill(out.begin(), out.end(), 0xCD);
    ASSERT_TRUE(Execute(b, b.entries[0], npu, ins, outs, ExecOptions{}, &mem).ok());
    EXPECT_EQ(out, std::vector<uint8_t>(64 * 4, 0)) << "round " << round;
  }
}

}  // namespace
}  // namespace tessera::systolic
