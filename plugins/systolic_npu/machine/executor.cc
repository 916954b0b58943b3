#include "plugins/systolic_npu/machine/executor.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/systolic_npu/machine/element_access.h"
#include "plugins/systolic_npu/machine/fp16.h"
#include "plugins/systolic_npu/machine/sram_first_touch.h"
#include "plugins/systolic_npu/machine/vector_unit.h"

namespace tessera::systolic {

namespace {

class Machine {
 public:
  Machine(const Program& p, const EntryPoint& e, const SystolicNpuConfig& npu, MatmulEngine& mxu, ExecMemory& memory)
      : p_(p), e_(e), npu_(npu), mxu_(mxu), memory_(memory) {
    bool fresh[3];
    SizeBanks(memory_, npu, fresh);
    for (int i = 0; i < 3; ++i) banks_[i] = memory_.banks[i].data();
    // Old data can reach a result only through bytes read before this run
    // writes them (sram_first_touch.h); beyond the high-water mark of all
    // earlier runs the banks are still zero.
    std::vector<Range> computed;
    if (memory_.first_touch == nullptr) computed = SramReadsBeforeWrites(p, e);
    for (const Range& r : memory_.first_touch != nullptr ? *memory_.first_touch : computed) {
      const uint64_t hi = std::min(r.hi, memory_.dirty[r.space]);
      if (!fresh[r.space] && r.lo < hi) std::memset(banks_[r.space] + r.lo, 0, hi - r.lo);
    }
  }

  absl::Status Bind(std::span<const std::span<const uint8_t>> inputs, std::span<const std::span<uint8_t>> outputs) {
    regions_.assign(e_.regions.size() + 1, nullptr);
    regions_[0] = const_cast<uint8_t*>(p_.constant_data.data());
    std::vector<std::vector<uint8_t>>& scratch = memory_.scratch;
    // Grown, never shrunk: the partitions of one device share this memory,
    // and shrinking for a program with fewer scratch regions freed buffers
    // that the next program allocated again, on every run.
    // The on-chip arena is scratch too (its bytes model SRAM beside the
    // banks' tile buffers, program.h).
    const size_t scratch_regions = e_.CountRegions(RegionKind::kScratch) + e_.CountRegions(RegionKind::kOnChip);
    if (scratch.size() < scratch_regions) scratch.resize(scratch_regions);
    size_t next_scratch = 0;
    for (size_t i = 0; i < e_.regions.size(); ++i) {
      const Region& r = e_.regions[i];
      if (r.kind == RegionKind::kScratch || r.kind == RegionKind::kOnChip) {
        std::vector<uint8_t>& buffer = scratch[next_scratch++];
        buffer.assign(r.size_bytes, 0);
        regions_[i + 1] = buffer.data();
        continue;
      }
      const bool is_in = r.kind == RegionKind::kInput;
      const size_t count = is_in ? inputs.size() : outputs.size();
      if (r.io_index >= count)
        return absl::InvalidArgumentError(absl::StrCat("systolic_npu: entry '", e_.name, "' needs ",
                                                       is_in ? "input " : "output ", r.io_index, " but only ", count,
                                                       " were given"));
      const size_t have = is_in ? inputs[r.io_index].size() : outputs[r.io_index].size();
      if (have < r.size_bytes)
        return absl::InvalidArgumentError(absl::StrCat("systolic_npu: ", is_in ? "input " : "output ", r.io_index,
                                                       " has ", have, " bytes, needs ", r.size_bytes));
      regions_[i + 1] = is_in ? const_cast<uint8_t*>(inputs[r.io_index].data()) : outputs[r.io_index].data();
    }
    return absl::OkStatus();
  }

  RunMetrics Run(Overlap overlap) {
    Scheduler sched(npu_, overlap, &memory_.busy, &e_);
    for (const Instruction& in : e_.code) {
      MatmulTiming mt;
      switch (in.op) {
        case Opcode::kDmaLoad:
          DmaLoad(in);
          Written(in.f[0], uint64_t{in.f[2]} * in.f[3] * NpuDtypeSize(DmaSecondDtype(in.b)));
          break;
        case Opcode::kDmaStore:
          DmaStore(in);
          break;
        case Opcode::kMatmulTile:
          mt = Matmul(in);
          Written(in.f[2], uint64_t{in.f[3]} * in.f[5] * 4);
          break;
        case Opcode::kVector:
          ExecuteVector(p_, in, banks_);
          Written(in.f[2], VectorResultBytes(p_, in));
          break;
        default:
          break;
      }
      sched.Issue(p_, in, mt);
    }
    return sched.Finish();
  }

 private:
  uint8_t* Sram(uint32_t addr) { return banks_[SramBankBits(addr)] + SramOffset(addr); }

  // Raises the high-water mark of the bank `addr` is in (see ExecMemory).
  void Written(uint32_t addr, uint64_t bytes) {
    uint64_t& d = memory_.dirty[SramBankBits(addr)];
    d = std::max(d, uint64_t{SramOffset(addr)} + bytes);
  }

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
  // (channel, kh, kw). Small convolutions spend most of their simulated
  // time here (docs/benchmarks.md).
  //
  // A converting load (F32 -> F16) first converts the input rows the tile
  // touches, once each, into a staging copy in the SRAM dtype and walks
  // that: every input element sits in up to kH x kW patches, and the
  // conversion is elementwise, so the bits are the same.
  void Im2colLoad(const Instruction& in, const uint8_t* base, uint8_t* dst, int32_t dd, int32_t sd, ElementMove move) {
    const size_t se = NpuDtypeSize(sd);
    const Im2colDesc d = p_.Descriptor<Im2colDesc>(in.f[4]);
    const uint64_t rows = in.f[2], cols = in.f[3];
    const uint64_t m0 = in.f[5], k0 = in.f[6];
    const uint64_t khw = uint64_t(d.kernel_h) * d.kernel_w;
    Im2colSource src{base, NpuDtypeSize(dd), uint64_t(d.channel_stride), 0, 0, move};
    if (dd != sd && rows > 0 && cols > 0) {
      const uint64_t c_first = k0 / khw, c_last = (k0 + cols - 1) / khw;
      const int64_t oh_first = static_cast<int64_t>(m0 / d.out_w);
      const int64_t oh_last = static_cast<int64_t>((m0 + rows - 1) / d.out_w);
      const int64_t ih_lo = std::max<int64_t>(0, oh_first * d.stride_h - d.pad_top);
      const int64_t ih_hi =
          std::min<int64_t>(d.in_h, oh_last * d.stride_h - d.pad_top + int64_t(d.kernel_h - 1) * d.dilation_h + 1);
      const uint64_t n_rows = ih_hi > ih_lo ? static_cast<uint64_t>(ih_hi - ih_lo) : 0;
      const uint64_t plane = n_rows * uint64_t(d.in_w);
      converted_.resize((c_last - c_first + 1) * plane * se);
      for (uint64_t c = c_first; c <= c_last && plane > 0; ++c)
        MoveElements(move, base + (c * uint64_t(d.channel_stride) + uint64_t(ih_lo) * d.in_w) * src.elem, src.elem,
                     converted_.data() + (c - c_first) * plane * se, se, plane);
      src = Im2colSource{converted_.data(), se, plane, c_first, ih_lo, MoveFor(sd, sd)};
    }
    Im2colWalk(in, d, src, dst, dd, sd, move);
  }

  // Where IM2COL reads element (c, ih, iw): data + ((c - first_channel) *
  // channel_stride + (ih - first_row) * in_w + iw) * elem, moved by `move`.
  struct Im2colSource {
    const uint8_t* data;
    size_t elem;
    uint64_t channel_stride;
    uint64_t first_channel;
    int64_t first_row;
    ElementMove move;
  };

  // The walk goes column by column (channel, kh, kw) and, inside a column,
  // along the output row segments of the tile's pixels: for stride 1 the
  // source of consecutive pixels is consecutive, so each segment is one
  // strided move. The output columns whose tap lies inside the image row
  // are [ow_lo, ow_hi) for the whole column (one division per column).
  void Im2colWalk(const Instruction& in, const Im2colDesc& d, const Im2colSource& src_at, uint8_t* dst, int32_t dd,
                  int32_t sd, ElementMove pad_move) {
    const size_t se = NpuDtypeSize(sd);
    const uint64_t rows = in.f[2], cols = in.f[3];
    const uint64_t m0 = in.f[5], k0 = in.f[6];
    const uint64_t kw_count = d.kernel_w, kh_count = d.kernel_h, khw = kh_count * kw_count;
    const uint64_t out_w = static_cast<uint64_t>(d.out_w);
    const uint64_t dst_step = cols * se;
    const uint64_t src_step = uint64_t(d.stride_w) * src_at.elem;
    uint8_t pad[4];
    std::memcpy(pad, &d.pad_value, 4);
    if (dd == TSR_DTYPE_I8) pad[0] = static_cast<uint8_t>(d.pad_value);
    if (dd == TSR_DTYPE_F16) {
      const uint16_t h = static_cast<uint16_t>(d.pad_value);
      std::memcpy(pad, &h, 2);
    }
    uint8_t pad_moved[4] = {};
    MoveElement(pad_move, pad, pad_moved);
    auto fill_pad = [&](uint8_t* out, uint64_t n) {
      for (uint64_t t = 0; t < n; ++t) std::memcpy(out + t * dst_step, pad_moved, se);
    };
    uint64_t c = k0 / khw, kh = (k0 % khw) / kw_count, kw = k0 % kw_count;
    for (uint64_t j = 0; j < cols; ++j) {
      const int64_t h_off = static_cast<int64_t>(kh) * d.dilation_h - d.pad_top;
      const int64_t w_off = static_cast<int64_t>(kw) * d.dilation_w - d.pad_left;
      // Inside: 0 <= ow * stride_w + w_off < in_w.
      const int64_t lo = w_off >= 0 ? 0 : (-w_off + d.stride_w - 1) / d.stride_w;
      const int64_t hi = w_off >= d.in_w ? 0 : (d.in_w - 1 - w_off) / d.stride_w + 1;
      const uint64_t ow_lo = static_cast<uint64_t>(std::min<int64_t>(lo, static_cast<int64_t>(out_w)));
      const uint64_t ow_hi = std::max(ow_lo, static_cast<uint64_t>(std::min<int64_t>(hi, static_cast<int64_t>(out_w))));
      const uint8_t* chan = src_at.data + (c - src_at.first_channel) * src_at.channel_stride * src_at.elem;
      uint64_t oh = m0 / out_w, ow = m0 % out_w;
      for (uint64_t i = 0; i < rows;) {
        const uint64_t seg = std::min(out_w - ow, rows - i), end = ow + seg;
        const int64_t ih = static_cast<int64_t>(oh) * d.stride_h + h_off;
        uint8_t* o = dst + i * dst_step + j * se;
        if (ih < 0 || ih >= d.in_h) {
          fill_pad(o, seg);
        } else {
          const uint64_t a = std::clamp(ow_lo, ow, end), b = std::clamp(ow_hi, a, end);
          fill_pad(o, a - ow);
          if (b > a) {
            const int64_t iw = static_cast<int64_t>(a) * d.stride_w + w_off;
            const uint8_t* s = chan + (uint64_t(ih - src_at.first_row) * d.in_w + uint64_t(iw)) * src_at.elem;
            MoveElements(src_at.move, s, src_step, o + (a - ow) * dst_step, dst_step, b - a);
          }
          fill_pad(o + (b - ow) * dst_step, end - b);
        }
        i += seg;
        ow = 0;
        ++oh;
      }
      if (++kw == kw_count) {
        kw = 0;
        if (++kh == kh_count) {
          kh = 0;
          ++c;
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
  std::vector<uint8_t*>& regions_ = memory_.regions;
  std::vector<uint8_t>& converted_ = memory_.im2col_staging;  // Im2colLoad's staging copy
};

}  // namespace

const char* ExecModeName(ExecMode m) { return m == ExecMode::kCycleStepped ? "cycle_stepped" : "fast"; }

absl::StatusOr<ExecMode> ParseExecMode(std::string_view s) {
  if (s == "fast") return ExecMode::kFast;
  if (s == "cycle_stepped") return ExecMode::kCycleStepped;
  return absl::InvalidArgumentError(absl::StrCat("unknown mode '", std::string(s), "' (want fast or cycle_stepped)"));
}

absl::StatusOr<RunMetrics> Execute(const Program& p, const EntryPoint& entry, const SystolicNpuConfig& npu,
                                   std::span<const std::span<const uint8_t>> inputs,
                                   std::span<const std::span<uint8_t>> outputs, const ExecOptions& options,
                                   ExecMemory* memory) {
  ExecMemory own;
  ExecMemory& mem = memory != nullptr ? *memory : own;
  std::unique_ptr<MatmulEngine> stepped;
  if (options.mode == ExecMode::kCycleStepped) {
    stepped = MakeCycleSteppedMatmulEngine();
  } else if (mem.fast_mxu == nullptr) {
    mem.fast_mxu = MakeFastMatmulEngine();
  }
  Machine m(p, entry, npu, stepped != nullptr ? *stepped : *mem.fast_mxu, mem);
  absl::Status s = m.Bind(inputs, outputs);
  if (!s.ok()) return s;
  return m.Run(options.overlap);
}

}  // namespace tessera::systolic
