#include "plugins/systolic_npu/machine/cycle_model.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "plugins/systolic_npu/machine/vector_softmax.h"
#include "plugins/systolic_npu/machine/vector_unit.h"

namespace tessera::systolic {
namespace {

// VECTOR: rows f3 x cols f4.
uint64_t Elems(const Instruction& in) { return uint64_t{in.f[3]} * in.f[4]; }

// DMA_LOAD / DMA_STORE: rows f2 x cols f3.
uint64_t DmaElems(const Instruction& in) { return uint64_t{in.f[2]} * in.f[3]; }

bool Overlaps(const Range& a, const Range& b) { return a.space == b.space && a.lo < b.hi && b.lo < a.hi; }

bool ReadsOverlap(const Footprint& f, const Range& w) {
  for (uint8_t i = 0; i < f.read_count; ++i)
    if (Overlaps(f.reads[i], w)) return true;
  return false;
}

Range Sram(uint32_t addr, uint64_t bytes) {
  return Range{SramBankBits(addr), SramOffset(addr), SramOffset(addr) + bytes};
}

Range Dram(uint8_t region, uint64_t off, uint64_t rows, uint64_t cols, uint64_t rs, uint64_t cs, uint64_t es) {
  const uint64_t last = off + ((rows - 1) * rs + (cols - 1) * cs) * es + es;
  return Range{3u + region, off, last};
}

}  // namespace

const char* OverlapName(Overlap o) { return o == Overlap::kNone ? "none" : "default"; }

absl::StatusOr<Overlap> ParseOverlap(std::string_view s) {
  if (s == "default") return Overlap::kDefault;
  if (s == "none") return Overlap::kNone;
  return absl::InvalidArgumentError(absl::StrCat("unknown overlap '", std::string(s), "' (want default or none)"));
}

MatmulTiming MatmulFormula(Dataflow df, uint64_t M, uint64_t K, uint64_t N, uint64_t R, uint64_t C) {
  (void)C;
  MatmulTiming t;
  switch (df) {
    case Dataflow::kOutputStationary:
      t.fill = 0;
      t.stream = K;
      t.drain = M + N + R - 1;
      break;
    case Dataflow::kInputStationary:  // WS with the roles of A and B^T swapped
      t.fill = K;
      t.stream = N;
      t.drain = M + R - 1;
      break;
    default:
      t.fill = K;
      t.stream = M;
      t.drain = N + R - 1;
      break;
  }
  return t;
}

uint64_t DmaCycles(uint64_t dram_bytes, const SystolicNpuConfig& npu) {
  const double bpc = npu.dram_bytes_per_cycle();
  const uint64_t transfer = static_cast<uint64_t>(std::ceil(static_cast<double>(dram_bytes) / bpc));
  return static_cast<uint64_t>(npu.dram_latency_cycles) + transfer;
}

uint64_t SramDmaCycles(uint64_t bytes, const SystolicNpuConfig& npu) {
  const uint64_t bpc = SramDmaBytesPerCycle(npu);
  return kSramDmaLatencyCycles + (bytes + bpc - 1) / bpc;
}

uint64_t VectorCycles(const Program& p, const Instruction& in, const SystolicNpuConfig& npu) {
  const VectorOp op = static_cast<VectorOp>(in.a);
  if (op == VectorOp::kSoftmax) return SoftmaxCycles(in.f[3], in.f[4], static_cast<uint64_t>(npu.vector_width));
  uint64_t elements = Elems(in), passes = 1;
  // DEPTHWISE: one multiply-accumulate per tap and lane, as pooling.
  if (op == VectorOp::kMaxPool || op == VectorOp::kAvgPool || op == VectorOp::kDepthwise) {
    const PoolDesc d = p.Descriptor<PoolDesc>(in.f[5]);
    elements = uint64_t{in.f[3]} * d.out_h * d.out_w;
    passes = uint64_t(d.kernel_h) * d.kernel_w;
  }
  // SIGMOID of a negative x needs the EXP table too (lookup_tables.h): the
  // lanes look up both tables for every element, two passes.
  if (op == VectorOp::kSigmoid) passes = 2;
  // ROW_SUM: lanes across rows (channels), one column (tap) per pass, as
  // the float GLOBAL_AVG_POOL's AVG_POOL whose window is the plane.
  if (op == VectorOp::kRowSum) {
    elements = in.f[3];
    passes = in.f[4];
  }
  const uint64_t vw = static_cast<uint64_t>(npu.vector_width);
  return kVectorPipelineDepth + passes * ((elements + vw - 1) / vw);
}

Traffic InstructionTraffic(const Program& p, const Instruction& in, bool on_chip) {
  Traffic t;
  switch (in.op) {
    case Opcode::kDmaLoad:
      (on_chip ? t.sram_read : t.dram_read) = DmaElems(in) * NpuDtypeSize(DmaFirstDtype(in.b));
      t.sram_write = DmaElems(in) * NpuDtypeSize(DmaSecondDtype(in.b));
      break;
    case Opcode::kDmaStore:
      t.sram_read = DmaElems(in) * NpuDtypeSize(DmaFirstDtype(in.b));
      (on_chip ? t.sram_write : t.dram_write) = DmaElems(in) * NpuDtypeSize(DmaSecondDtype(in.b));
      break;
    case Opcode::kMatmulTile: {
      const uint64_t M = in.f[3], K = in.f[4], N = in.f[5];
      const uint64_t es = NpuDtypeSize(in.b);
      t.sram_read = (M * K + K * N) * es + ((in.c & 1) ? M * N * 4 : 0);
      t.sram_write = M * N * 4;
      t.macs = M * K * N;
      break;
    }
    case Opcode::kVector: {
      const uint64_t es = NpuDtypeSize(in.b);
      const uint64_t n = Elems(in);
      t.sram_read = n * es + VectorSrc1Bytes(in);
      t.sram_write = VectorResultBytes(p, in);
      break;
    }
    default:
      break;
  }
  return t;
}

void Footprint::AddRead(const Range& r) {
  reads[read_count++] = r;
  read_spaces |= uint64_t{1} << (r.space % 64);
}

void Footprint::SetWrite(const Range& r) {
  write = r;
  has_write = true;
  write_spaces |= uint64_t{1} << (r.space % 64);
}

Footprint InstructionFootprint(const Program& p, const Instruction& in) {
  Footprint fp;
  const uint64_t rows = in.f[2], cols = in.f[3];
  switch (in.op) {
    case Opcode::kDmaLoad: {
      const uint64_t de = NpuDtypeSize(DmaFirstDtype(in.b));
      fp.SetWrite(Sram(in.f[0], rows * cols * NpuDtypeSize(DmaSecondDtype(in.b))));
      if (in.a == static_cast<uint8_t>(DmaMode::kIm2col)) {
        const Im2colDesc d = p.Descriptor<Im2colDesc>(in.f[4]);
        const uint64_t extent = (uint64_t(d.channels - 1) * d.channel_stride + uint64_t(d.in_h) * d.in_w) * de;
        fp.AddRead(Range{3u + in.c, in.f[1], in.f[1] + extent});
      } else {
        fp.AddRead(Dram(in.c, in.f[1], rows, cols, in.f[4], in.f[5], de));
      }
      break;
    }
    case Opcode::kDmaStore:
      fp.AddRead(Sram(in.f[0], rows * cols * NpuDtypeSize(DmaFirstDtype(in.b))));
      fp.SetWrite(Dram(in.c, in.f[1], rows, cols, in.f[4], in.f[5], NpuDtypeSize(DmaSecondDtype(in.b))));
      break;
    case Opcode::kMatmulTile: {
      const uint64_t M = in.f[3], K = in.f[4], N = in.f[5], es = NpuDtypeSize(in.b);
      fp.AddRead(Sram(in.f[0], M * K * es));
      fp.AddRead(Sram(in.f[1], K * N * es));
      if (in.c & 1) fp.AddRead(Sram(in.f[2], M * N * 4));
      fp.SetWrite(Sram(in.f[2], M * N * 4));
      break;
    }
    case Opcode::kVector: {
      const uint64_t es = NpuDtypeSize(in.b);
      const uint64_t n = Elems(in);
      fp.AddRead(Sram(in.f[0], n * es));
      if (const uint64_t b = VectorSrc1Bytes(in); b > 0) fp.AddRead(Sram(in.f[1], b));
      fp.SetWrite(Sram(in.f[2], VectorResultBytes(p, in)));
      break;
    }
    default:
      break;
  }
  return fp;
}

std::array<RunMetrics::Named_, RunMetrics::kNamedCount> RunMetrics::Named() const {
  return {{
      {"cycles_total", static_cast<double>(cycles_total), "cycles"},
      {"cycles_compute", static_cast<double>(cycles_compute), "cycles"},
      {"cycles_dma_stall", static_cast<double>(cycles_dma_stall), "cycles"},
      {"macs", static_cast<double>(macs), "macs"},
      {"utilization", utilization, "ratio"},
      {"sram_read_bytes", static_cast<double>(sram_read_bytes), "bytes"},
      {"sram_write_bytes", static_cast<double>(sram_write_bytes), "bytes"},
      {"dram_read_bytes", static_cast<double>(dram_read_bytes), "bytes"},
      {"dram_write_bytes", static_cast<double>(dram_write_bytes), "bytes"},
      {"dram_bytes_compulsory", static_cast<double>(dram_bytes_compulsory), "bytes"},
      {"time_us", time_us, "us"},
  }};
}

Scheduler::Scheduler(const SystolicNpuConfig& npu, Overlap overlap,
                     std::vector<std::pair<uint64_t, uint64_t>>* busy_storage, const EntryPoint* entry)
    : npu_(npu), overlap_(overlap), busy_(busy_storage != nullptr ? busy_storage : &own_busy_), entry_(entry) {
  busy_->clear();
}

uint64_t Scheduler::Dependencies(const Footprint& fp, int engine) const {
  uint64_t t = barrier_;
  for (size_t k = 0; k < window_size_; ++k) {
    const Record& r = window_[(window_head_ + k) % kWindow];
    if (r.engine == engine) continue;  // engines are in-order pipelines
    // RAW and WAW: wait for completion. WAR: wait for the reads to end.
    if (r.fp.has_write && ((fp.read_spaces | fp.write_spaces) & r.fp.write_spaces) &&
        (ReadsOverlap(fp, r.fp.write) || (fp.has_write && Overlaps(fp.write, r.fp.write))))
      t = std::max(t, r.done);
    if (fp.has_write && (fp.write_spaces & r.fp.read_spaces) && ReadsOverlap(r.fp, fp.write))
      t = std::max(t, r.read_end);
  }
  return t;
}

void Scheduler::Retire(Record r) {
  if (window_size_ < kWindow) {
    window_[(window_head_ + window_size_++) % kWindow] = r;
    return;
  }
  // Full: the oldest record retires into the barrier and its slot takes r.
  barrier_ = std::max(barrier_, window_[window_head_].done);
  window_[window_head_] = r;
  window_head_ = (window_head_ + 1) % kWindow;
}

void Scheduler::Issue(const Program& p, const Instruction& in, const MatmulTiming& mt) {
  const bool dma = in.op == Opcode::kDmaLoad || in.op == Opcode::kDmaStore;
  const bool on_chip = dma && entry_ != nullptr && entry_->OnChip(in.c);
  if (entry_ != nullptr && !compulsory_known_) {
    compulsory_ = CompulsoryDramBytes(p, *entry_);
    compulsory_known_ = true;
  }
  const Traffic tr = InstructionTraffic(p, in, on_chip);
  traffic_.sram_read += tr.sram_read;
  traffic_.sram_write += tr.sram_write;
  traffic_.dram_read += tr.dram_read;
  traffic_.dram_write += tr.dram_write;
  traffic_.macs += tr.macs;

  if (overlap_ == Overlap::kNone) {
    // Serial compute; DMA is assumed perfectly hidden. A fold pays the full
    // array's fill and drain once, each of its tiles its own stream (from
    // the formula or, cycle-stepped, measured).
    if (in.op == Opcode::kMatmulTile) {
      if (!folds_.Continues(in))
        serial_ += ClassicFoldOverhead(static_cast<Dataflow>(in.a), static_cast<uint64_t>(npu_.array_rows),
                                       static_cast<uint64_t>(npu_.array_cols));
      serial_ += mt.stream;
      return;
    }
    if (in.op == Opcode::kVector) serial_ += VectorCycles(p, in, npu_);
    if (in.op == Opcode::kDmaLoad || in.op == Opcode::kVector) {
      const Footprint fp = InstructionFootprint(p, in);
      folds_.Overwritten(fp.write.space, fp.write.lo, fp.write.hi);
    }
    return;
  }

  if (in.op == Opcode::kSync) {
    barrier_ = std::max(barrier_, end_);
    return;
  }
  Record rec;
  rec.fp = InstructionFootprint(p, in);
  switch (in.op) {
    case Opcode::kDmaLoad:
    case Opcode::kDmaStore: {
      rec.engine = in.op == Opcode::kDmaLoad ? kDmaIn : kDmaOut;
      const uint64_t deps = Dependencies(rec.fp, rec.engine);
      const uint64_t start = std::max(deps, engine_free_[rec.engine]);
      // Bytes on the far side (DRAM, or the on-chip arena).
      const uint64_t far =
          DmaElems(in) * NpuDtypeSize(in.op == Opcode::kDmaLoad ? DmaFirstDtype(in.b) : DmaSecondDtype(in.b));
      rec.done = rec.read_end = start + (on_chip ? SramDmaCycles(far, npu_) : DmaCycles(far, npu_));
      engine_free_[rec.engine] = rec.done;
      break;
    }
    case Opcode::kMatmulTile: {
      rec.engine = kMxu;
      const uint64_t deps = Dependencies(rec.fp, kMxu);
      // WS: the weight preload (fill) uses the shadow weight registers and
      // overlaps the previous tile's stream; the stream follows the
      // previous stream back to back; the drain overlaps the next tile.
      const uint64_t preload_start = std::max({deps, mxu_prev_stream_start_, mxu_prev_preload_end_});
      const uint64_t preload_end = preload_start + mt.fill;
      const uint64_t start = std::max({preload_end, mxu_prev_stream_end_, deps});
      const uint64_t stream_end = start + mt.stream;
      rec.read_end = stream_end;
      rec.done = stream_end + mt.drain;
      mxu_prev_stream_start_ = start;
      mxu_prev_stream_end_ = stream_end;
      mxu_prev_preload_end_ = preload_end;
      engine_free_[kMxu] = stream_end;
      busy_->push_back({preload_start, rec.done});
      break;
    }
    case Opcode::kVector: {
      rec.engine = kVpu;
      const uint64_t deps = Dependencies(rec.fp, kVpu);
      const uint64_t start = std::max(deps, engine_free_[kVpu]);
      rec.done = rec.read_end = start + VectorCycles(p, in, npu_);
      engine_free_[kVpu] = rec.done;
      busy_->push_back({start, rec.done});
      break;
    }
    default:
      return;
  }
  end_ = std::max(end_, rec.done);
  Retire(std::move(rec));
}

RunMetrics Scheduler::Finish() {
  RunMetrics m;
  if (overlap_ == Overlap::kNone) {
    m.cycles_total = m.cycles_compute = serial_;
    m.cycles_dma_stall = 0;
  } else {
    m.cycles_total = end_;
    std::sort(busy_->begin(), busy_->end());
    uint64_t covered = 0, cur_lo = 0, cur_hi = 0;
    bool open = false;
    for (const auto& [lo, hi] : *busy_) {
      if (open && lo <= cur_hi) {
        cur_hi = std::max(cur_hi, hi);
      } else {
        if (open) covered += cur_hi - cur_lo;
        cur_lo = lo;
        cur_hi = hi;
        open = true;
      }
    }
    if (open) covered += cur_hi - cur_lo;
    m.cycles_compute = covered;
    m.cycles_dma_stall = m.cycles_total - m.cycles_compute;
  }
  m.macs = traffic_.macs;
  m.sram_read_bytes = traffic_.sram_read;
  m.sram_write_bytes = traffic_.sram_write;
  m.dram_read_bytes = traffic_.dram_read;
  m.dram_write_bytes = traffic_.dram_write;
  m.dram_bytes_compulsory = compulsory_;
  const double pes = static_cast<double>(npu_.pe_count());
  m.utilization =
      m.cycles_compute == 0 ? 0.0 : static_cast<double>(m.macs) / (static_cast<double>(m.cycles_compute) * pes);
  m.time_us = static_cast<double>(m.cycles_total) / npu_.clock_mhz;
  return m;
}

RunMetrics EstimateEntry(const Program& p, const EntryPoint& e, const SystolicNpuConfig& npu, Overlap overlap) {
  Scheduler s(npu, overlap, nullptr, &e);
  for (const Instruction& in : e.code) {
    MatmulTiming mt;
    if (in.op == Opcode::kMatmulTile)
      mt = MatmulFormula(static_cast<Dataflow>(in.a), in.f[3], in.f[4], in.f[5], npu.array_rows, npu.array_cols);
    s.Issue(p, in, mt);
  }
  return s.Finish();
}

}  // namespace tessera::systolic
