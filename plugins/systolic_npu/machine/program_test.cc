// Bytecode body: round trip, verifier rejections, and a fuzz test that
// corrupts serialized programs thousands of times and must never crash.
#include "plugins/systolic_npu/machine/program.h"

#include <random>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/test_util.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

Program SampleProgram(const SystolicNpuConfig& npu, uint32_t seed = 1) {
  std::mt19937 rng(seed);
  GemmLayer L;
  L.M = 13;
  L.K = 11;
  L.N = 9;
  L.dtype = L.weights_dtype = TSR_DTYPE_I8;
  L.weights = RandomI8(rng, L.K * L.N);
  L.bias_q.assign(L.N, 5);
  L.weight_scales = {0.01f};
  L.input_q = {0.1f, 3};
  L.output_q = {0.5f, -2};
  L.activation.kind = Activation::kRelu;
  auto p = CompileGemmProgram(L, npu, TilerOptions{});
  EXPECT_TRUE(p.ok()) << p.status();
  // Add a conv entry (im2col descriptors) and a pool entry.
  Conv2dLayer C;
  C.in_channels = 2;
  C.out_channels = 3;
  C.in_h = C.in_w = 5;
  C.kernel_h = C.kernel_w = 3;
  C.pad_top = C.pad_left = C.pad_bottom = C.pad_right = 1;
  C.dtype = C.weights_dtype = TSR_DTYPE_F32;
  C.weights = FloatBytes(RandomF(rng, 3 * 2 * 9));
  auto pc = CompileConv2dProgram(C, npu, TilerOptions{});
  EXPECT_TRUE(pc.ok());
  // Merge: the second program's constants shift by the first pool's size.
  Program out = *p;
  const uint64_t base = (out.constant_data.size() + 15) / 16 * 16;
  out.constant_data.resize(base);
  const uint32_t cbase = static_cast<uint32_t>(out.constants.size());
  for (Constant c : pc->constants) {
    c.offset += base;
    out.constants.push_back(c);
  }
  out.constant_data.insert(out.constant_data.end(), pc->constant_data.begin(), pc->constant_data.end());
  EntryPoint e = pc->entries[0];
  e.name = "conv";
  for (Instruction& in : e.code) {
    if (in.op == Opcode::kDmaLoad && in.c == 0) in.f[1] += static_cast<uint32_t>(base);
    if (in.op == Opcode::kDmaLoad && in.a == 1) in.f[4] += cbase;
    if (in.op == Opcode::kVector && in.f[5] != kNoConstant) in.f[5] += cbase;
  }
  out.entries.push_back(e);
  return out;
}

TEST(Program, SerializeParseRoundTrip) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  const Program p = SampleProgram(npu);
  ASSERT_TRUE(VerifyProgram(p, npu).ok()) << VerifyProgram(p, npu);
  std::vector<EntryRange> ranges;
  const auto body = SerializeProgram(p, &ranges);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(body.data() + ranges[1].offset)), "conv");
  auto q = ParseProgram(body);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(SerializeProgram(*q), body);
  EXPECT_EQ(q->entries[1].code, p.entries[1].code);
  EXPECT_EQ(q->entries[0].regions[0].dims, (std::vector<int64_t>{13, 11}));
  EXPECT_TRUE(VerifyProgram(*q, npu).ok());
}

void ExpectRejected(const Program& p, const std::string& fragment, const SystolicNpuConfig& npu = SmallNpu(4, 4)) {
  const absl::Status s = VerifyProgram(p, npu);
  ASSERT_FALSE(s.ok()) << "expected: " << fragment;
  EXPECT_NE(std::string(s.message()).find(fragment), std::string::npos) << s.message();
}

TEST(Program, VerifierRejects) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  const Program good = SampleProgram(npu);
  auto mutate = [&](auto fn) {
    Program p = good;
    fn(p);
    return p;
  };
  auto find = [](Program& p, Opcode op) -> Instruction& {
    for (auto& in : p.entries[0].code)
      if (in.op == op) return in;
    return p.entries[0].code[0];
  };
  ExpectRejected(mutate([](Program& p) { p.entries[0].code[0].op = static_cast<Opcode>(0x77); }), "unknown opcode");
  ExpectRejected(mutate([](Program& p) { p.entries[0].code[0].op = Opcode::kInvalid; }), "unknown opcode");
  // Constant references.
  ExpectRejected(mutate([&](Program& p) {
                   for (auto& in : p.entries[0].code)
                     if (in.op == Opcode::kVector && in.f[5] != kNoConstant) in.f[5] = 999;
                 }),
                 "constant 999 does not exist");
  ExpectRejected(mutate([&](Program& p) { p.entries[1].code[0].f[1] = static_cast<uint32_t>(p.constant_data.size()); }),
                 "beyond region 0");
  // DMA_LOAD converts only F32 <-> F16 (F16 -> F32 carries runtime f16
  // biases; tiler_runtime_weights_test runs it).
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kDmaLoad).b = TSR_DTYPE_I8 | (TSR_DTYPE_I32 << 4); }),
                 "unsupported dtype conversion");
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kDmaLoad).b = TSR_DTYPE_I32 | (TSR_DTYPE_F32 << 4); }),
                 "unsupported dtype conversion");
  // DRAM regions.
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kDmaStore).c = 9; }), "DRAM region 9 does not exist");
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kDmaStore).f[1] = 1u << 20; }), "beyond region 2");
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kDmaStore).c = 1; }), "is an input (read-only)");
  // SRAM banks.
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kMatmulTile).f[2] = SramAddress(Bank::kAccum, 4096 - 16); }),
                 "exceeds the 4096-byte bank");
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kVector).f[0] = 3u << 30; }), "bad SRAM bank");
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kDmaLoad).f[0] = 3u << 30; }),
                 "DMA_LOAD writes the input or weight bank only");
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kMatmulTile).f[0] = SramAddress(Bank::kWeight, 0); }),
                 "input tile must be in the input bank");
  // Tile shapes.
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kMatmulTile).f[4] = 5; }), "exceeds the 4x4 array");
  ExpectRejected(mutate([&](Program& p) {
                   auto& in = find(p, Opcode::kMatmulTile);
                   in.a = 1;
                   in.f[3] = 9;
                 }),
                 "os tile M=9");
  ExpectRejected(mutate([&](Program& p) {
                   auto& in = find(p, Opcode::kMatmulTile);
                   in.a = 2;
                   in.f[3] = 5;  // IS holds M across the 4 array columns
                 }),
                 "is tile K=");
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kMatmulTile).a = 3; }), "unknown dataflow");
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kMatmulTile).f[3] = 0; }), "empty tile");
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kMatmulTile).b = TSR_DTYPE_F32; }), "i8 or f16");
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kMatmulTile).f[6] = 1; }), "reserved field");
  ExpectRejected(mutate([&](Program& p) {
                   p.entries[0].code.push_back(Instruction{Opcode::kSync, 1});
                 }),
                 "SYNC fields must be zero");
  ExpectRejected(mutate([&](Program& p) { find(p, Opcode::kVector).a = 42; }), "unknown vector op");
  // im2col descriptor contents and tile position.
  ExpectRejected(mutate([&](Program& p) {
                   for (auto& in : p.entries[1].code)
                     if (in.op == Opcode::kDmaLoad && in.a == 1) in.f[5] = 1000;
                 }),
                 "outside the patch matrix");
  // Compiled for another SoC.
  ExpectRejected(good, "compiled for a 4x4 array", SmallNpu(8, 8));
}

TEST(Program, ParseRejectsMalformedBodies) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  const auto body = SerializeProgram(SampleProgram(npu));
  EXPECT_FALSE(ParseProgram({}).ok());
  EXPECT_FALSE(ParseProgram(std::span(body).first(30)).ok());
  auto bad = body;
  bad[0] = 'X';
  EXPECT_NE(std::string(ParseProgram(bad).status().message()).find("bad magic"), std::string::npos);
  bad = body;
  bad[28] = 0xFF;  // constant count
  bad[29] = 0xFF;
  EXPECT_FALSE(ParseProgram(bad).ok());
}

// Flip random bytes / truncate / splice: parse + verify + (when accepted)
// execute must never crash, hang or read out of bounds (run under ASan in
// the sanitizer build).
TEST(Program, FuzzCorruptedBodiesNeverCrash) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  const auto body = SerializeProgram(SampleProgram(npu, 3));
  std::mt19937 rng(99);
  int parsed = 0, verified = 0, executed = 0;
  for (int iter = 0; iter < 5000; ++iter) {
    std::vector<uint8_t> b = body;
    switch (iter % 4) {
      case 0:
      case 1: {  // flip 1..8 random bytes
        const int flips = 1 + rng() % 8;
        for (int i = 0; i < flips; ++i) b[rng() % b.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
        break;
      }
      case 2:  // truncate
        b.resize(rng() % b.size());
        break;
      default: {  // corrupt a whole instruction word in the code
        const size_t at = b.size() - 32 * (1 + rng() % 20);
        for (int i = 0; i < 4; ++i) b[at + (rng() % 32)] = static_cast<uint8_t>(rng());
        break;
      }
    }
    auto p = ParseProgram(b);
    if (!p.ok()) continue;
    ++parsed;
    if (!VerifyProgram(*p, npu).ok()) continue;
    ++verified;
    for (const EntryPoint& e : p->entries) {
      std::vector<std::vector<uint8_t>> in_bufs, out_bufs;
      std::vector<std::span<const uint8_t>> ins;
      std::vector<std::span<uint8_t>> outs;
      in_bufs.resize(e.regions.size());
      out_bufs.resize(e.regions.size());
      for (const Region& r : e.regions) {
        if (r.size_bytes > (1u << 24)) continue;
        auto& v = r.kind == RegionKind::kInput ? in_bufs[r.io_index] : out_bufs[r.io_index];
        v.assign(r.size_bytes, 1);
      }
      for (size_t i = 0; i < e.CountRegions(RegionKind::kInput); ++i) ins.emplace_back(in_bufs[i]);
      for (size_t i = 0; i < e.CountRegions(RegionKind::kOutput); ++i) outs.emplace_back(out_bufs[i]);
      uint64_t work = 0;
      for (const Instruction& in : e.code)
        if (in.op == Opcode::kMatmulTile || in.op == Opcode::kDmaLoad || in.op == Opcode::kVector)
          work += uint64_t{in.f[3]} * in.f[4];
      if (work > (1u << 26)) continue;  // verified but absurdly large: skip running
      auto m = Execute(*p, e, npu, ins, outs, ExecOptions{});
      if (m.ok()) ++executed;
    }
  }
  EXPECT_GT(parsed, 100);
  EXPECT_GT(verified, 10);
  EXPECT_GT(executed, 10);
}

// Field-level mutation: a verified program whose instructions get random
// field values must either be rejected by the verifier or execute safely
// (ASan build). This reaches far more "accepted but odd" programs than
// byte flips in the serialized form.
TEST(Program, MutatedInstructionsVerifyOrRunSafely) {
  const SystolicNpuConfig npu = SmallNpu(4, 4);
  const Program base = SampleProgram(npu, 5);
  std::mt19937 rng(123);
  int accepted = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    Program p = base;
    EntryPoint& e = p.entries[rng() % p.entries.size()];
    const int edits = 1 + rng() % 3;
    for (int k = 0; k < edits; ++k) {
      Instruction& in = e.code[rng() % e.code.size()];
      const uint32_t small = rng() % 9;
      const uint32_t pick = rng() % 10;
      const uint32_t value = rng() % 3 == 0 ? rng() : (rng() % 2 ? small : in.f[pick % 7] + small - 4);
      switch (pick) {
        case 7:
          in.a = static_cast<uint8_t>(value);
          break;
        case 8:
          in.b = static_cast<uint8_t>(value);
          break;
        case 9:
          in.c = static_cast<uint8_t>(value);
          break;
        default:
          in.f[pick] = value;
          break;
      }
    }
    if (!VerifyProgram(p, npu).ok()) continue;
    ++accepted;
    for (const EntryPoint& entry : p.entries) {
      std::vector<std::vector<uint8_t>> in_bufs(entry.CountRegions(RegionKind::kInput)),
          out_bufs(entry.CountRegions(RegionKind::kOutput));
      for (const Region& r : entry.regions) {
        if (r.kind == RegionKind::kInput) in_bufs[r.io_index].assign(r.size_bytes, 7);
        if (r.kind == RegionKind::kOutput) out_bufs[r.io_index].assign(r.size_bytes, 0);
      }
      std::vector<std::span<const uint8_t>> ins(in_bufs.begin(), in_bufs.end());
      std::vector<std::span<uint8_t>> outs(out_bufs.begin(), out_bufs.end());
      uint64_t work = 0;
      for (const Instruction& in : entry.code) work += uint64_t{in.f[3]} * in.f[4];
      if (work > (1u << 24)) continue;
      const ExecMode mode = iter % 5 == 0 ? ExecMode::kCycleStepped : ExecMode::kFast;
      EXPECT_TRUE(Execute(p, entry, npu, ins, outs, ExecOptions{mode, Overlap::kDefault}).ok());
    }
  }
  EXPECT_GT(accepted, 200);
}

}  // namespace
}  // namespace tessera::systolic
