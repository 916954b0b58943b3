#include "executor.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "element_access.h"
#include "fp16.h"
#include "vector_unit.h"

namespace tessera::systolic {
namespace {

class Machine {
 public:
  Machine(const Program& p, const EntryPoint& e, const SystolicNpuConfig& npu,
          MatmulEngine& mxu, ExecMemory& memory)
      : p_(p), e_(e), npu_(npu), mxu_(mxu), memory_(memory) {
    const int64_t sizes[3] = {npu.input_bank_bytes(), npu.weight_bank_bytes(), npu.accum_bank_bytes()};
    for (int i = 0; i < 3; ++i) {
      memory_.banks[i].assign(static_cast<size_t>(sizes[i]), 0);  // reuses the capacity of earlier runs
      banks_[i] = memory_.banks[i].data();
    }
  }

  absl::Status Bind(std::span<const std::span<const uint8_t>> inputs,
                    std::span<const std::span<uint8_t>> outputs) {
    regions_.assign(e_.regions.size() + 1, nullptr);
    regions_[0] = const_cast<uint8_t*>(p_.constant_data.data());
    std::vector<std::vector<uint8_t>>& scratch = memory_.scratch;
    scratch.resize(e_.CountRegions(RegionKind::kScratch));
    size_t next_scratch = 0;
    for (size_t i = 0; i < e_.regions.size(); ++i) {
      const Region& r = e_.regions[i];
      if (r.kind == RegionKind::kScratch) {
        std::vector<uint8_t>& buffer = scratch[next_scratch++];
        buffer.assign(r.size_bytes, 0);
        regions_[i + 1] = buffer.data();
        continue;
      }
      const bool is_in = r.kind == RegionKind::kInput;
      const size_t count = is_in ? inputs.size() : outputs.size();
      if (r.io_index >= count)
        return absl::InvalidArgumentError(absl::StrCat(
            "systolic_npu: entry '", e_.name, "' needs ", is_in ? "input " : "output ",
            r.io_index, " but only ", count, " were given"));
      const size_t have = is_in ? inputs[r.io_index].size() : outputs[r.io_index].size();
      if (have < r.size_bytes)
        return absl::InvalidArgumentError(absl::StrCat(
            "systolic_npu: ", is_in ? "input " : "output ", r.io_index, " has ",
            have, " bytes, needs ", r.size_bytes));
      regions_[i + 1] = is_in ? const_cast<uint8_t*>(inputs[r.io_index].data())
                              : outputs[r.io_index].data();
    }
    return absl::OkStatus();
  }

  RunMetrics Run(Overlap overlap) {
    Scheduler sched(npu_, overlap);
    for (const Instruction& in : e_.code) {
      MatmulTiming mt;
      switch (in.op) {
        case Opcode::kDmaLoad: DmaLoad(in); break;
        case Opcode::kDmaStore: DmaStore(in); break;
        case Opcode::kMatmulTile: mt = Matmul(in); break;
        case Opcode::kVector: ExecuteVector(p_, in, banks_); break;
        default: break;
      }
      sched.Issue(p_, in, mt);
    }
    return sched.Finish();
  }

 private:
  uint8_t* Sram(uint32_t addr) { return banks_[SramBankBits(addr)] + SramOffset(addr); }

  void DmaLoad(const Instruction& in) {
    const int32_t dd = DmaFirstDtype(in.b), sd = DmaSecondDtype(in.b);
    const size_t de = NpuDtypeSize(dd), se = NpuDtypeSize(sd);
    const ElementMove move = MoveFor(dd, sd);
    const uint8_t* base = regions_[in.c] + in.f[1];
    uint8_t* dst = Sram(in.f[0]);
    const uint64_t rows = in.f[2], cols = in.f[3];
    if (in.a == static_cast<uint8_t>(DmaMode::kStrided)) {
      const uint64_t rs = in.f[4], cs = in.f[5];
      for (uint64_t i = 0; i < rows; ++i) {
        const uint8_t* row = base + i * rs * de;
        uint8_t* out = dst + i * cols * se;
        if (cs == 1 && sd == dd) {
          std::memcpy(out, row, cols * de);
        } else {
          MoveElements(move, row, cs * de, out, se, cols);
        }
      }
      return;
    }
    Im2colLoad(in, base, dst, dd, sd, move);
  }

  // IM2COL: row i is output pixel m0 + i, column j is patch column k0 + j =
  // (channel, kh, kw). Walks (c, kh, kw) with counters (no division per
  // element) and moves each in-image run of kw taps in one call.
  void Im2colLoad(const Instruction& in, const uint8_t* base, uint8_t* dst, int32_t dd, int32_t sd,
                  ElementMove move) {
    const size_t de = NpuDtypeSize(dd), se = NpuDtypeSize(sd);
    const Im2colDesc d = p_.Descriptor<Im2colDesc>(in.f[4]);
    const uint64_t rows = in.f[2], cols = in.f[3];
    const uint64_t m0 = in.f[5], k0 = in.f[6];
    const uint64_t kw_count = d.kernel_w, kh_count = d.kernel_h, khw = kh_count * kw_count;
    uint8_t pad[4];
    std::memcpy(pad, &d.pad_value, 4);
    if (dd == TSR_DTYPE_I8) pad[0] = static_cast<uint8_t>(d.pad_value);
    if (dd == TSR_DTYPE_F16) {
      const uint16_t h = static_cast<uint16_t>(d.pad_value);
      std::memcpy(pad, &h, 2);
    }
    uint8_t pad_moved[4] = {};
    MoveElement(move, pad, pad_moved);
    for (uint64_t i = 0; i < rows; ++i) {
      const uint64_t pix = m0 + i;
      const int64_t h0 = static_cast<int64_t>(pix / d.out_w) * d.stride_h - d.pad_top;
      const int64_t w0 = static_cast<int64_t>(pix % d.out_w) * d.stride_w - d.pad_left;
      uint8_t* out = dst + i * cols * se;
      uint64_t c = k0 / khw, kh = (k0 % khw) / kw_count, kw = k0 % kw_count;
      for (uint64_t j = 0; j < cols;) {
        const uint64_t run = std::min(kw_count - kw, cols - j);
        const int64_t ih = h0 + static_cast<int64_t>(kh) * d.dilation_h;
        const bool row_inside = ih >= 0 && ih < d.in_h;
        const uint8_t* plane = base + (c * uint64_t(d.channel_stride) + (row_inside ? uint64_t(ih) * d.in_w : 0)) * de;
        for (uint64_t t = 0; t < run;) {
          const int64_t iw = w0 + static_cast<int64_t>(kw + t) * d.dilation_w;
          if (!row_inside || iw < 0 || iw >= d.in_w) {
            std::memcpy(out + (j + t) * se, pad_moved, se);
            ++t;
            continue;
          }
          // The taps from here that stay inside the row: one strided move.
          const uint64_t left = static_cast<uint64_t>((d.in_w - 1 - iw) / d.dilation_w) + 1;
          const uint64_t n = std::min(run - t, left);
          MoveElements(move, plane + uint64_t(iw) * de, uint64_t(d.dilation_w) * de, out + (j + t) * se, se, n);
          t += n;
        }
        j += run;
        kw += run;
        if (kw == kw_count) {
          kw = 0;
          if (++kh == kh_count) {
            kh = 0;
            ++c;
          }
        }
      }
    }
  }

  void DmaStore(const Instruction& in) {
    const int32_t sd = DmaFirstDtype(in.b), dd = DmaSecondDtype(in.b);
    const size_t se = NpuDtypeSize(sd), de = NpuDtypeSize(dd);
    const ElementMove move = MoveFor(sd, dd);
    uint8_t* base = regions_[in.c] + in.f[1];
    const uint8_t* src = Sram(in.f[0]);
    const uint64_t rows = in.f[2], cols = in.f[3], rs = in.f[4], cs = in.f[5];
    for (uint64_t i = 0; i < rows; ++i) {
      uint8_t* row = base + i * rs * de;
      const uint8_t* s = src + i * cols * se;
      if (cs == 1 && sd == dd) {
        std::memmove(row, s, cols * de);
      } else {
        MoveElements(move, s, se, row, cs * de, cols);
      }
    }
  }

  MatmulTiming Matmul(const Instruction& in) {
    MatmulArgs a;
    a.dataflow = static_cast<Dataflow>(in.a);
    a.dtype = in.b;
    a.accumulate = (in.c & 1) != 0;
    a.input = Sram(in.f[0]);
    a.weight = Sram(in.f[1]);
    a.acc = Sram(in.f[2]);
    a.M = in.f[3];
    a.K = in.f[4];
    a.N = in.f[5];
    a.R = static_cast<uint32_t>(npu_.array_rows);
    a.C = static_cast<uint32_t>(npu_.array_cols);
    return mxu_.Run(a);
  }

  const Program& p_;
  const EntryPoint& e_;
  const SystolicNpuConfig& npu_;
  MatmulEngine& mxu_;
  ExecMemory& memory_;
  uint8_t* banks_[3];
  std::vector<uint8_t*> regions_;
};

}  // namespace

const char* ExecModeName(ExecMode m) {
  return m == ExecMode::kCycleStepped ? "cycle_stepped" : "fast";
}

absl::StatusOr<ExecMode> ParseExecMode(std::string_view s) {
  if (s == "fast") return ExecMode::kFast;
  if (s == "cycle_stepped") return ExecMode::kCycleStepped;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown mode '", std::string(s), "' (want fast or cycle_stepped)"));
}

absl::StatusOr<RunMetrics> Execute(const Program& p, const EntryPoint& entry,
                                   const SystolicNpuConfig& npu,
                                   std::span<const std::span<const uint8_t>> inputs,
                                   std::span<const std::span<uint8_t>> outputs,
                                   const ExecOptions& options, ExecMemory* memory) {
  std::unique_ptr<MatmulEngine> mxu = options.mode == ExecMode::kCycleStepped
                                          ? MakeCycleSteppedMatmulEngine()
                                          : MakeFastMatmulEngine();
  ExecMemory own;
  Machine m(p, entry, npu, *mxu, memory != nullptr ? *memory : own);
  absl::Status s = m.Bind(inputs, outputs);
  if (!s.ok()) return s;
  return m.Run(options.overlap);
}

}  // namespace tessera::systolic
