// The layer tuner's search (see layer_tuner.h).
#include "plugins/systolic_npu/compiler/layer_tuner.h"

#include <chrono>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "plugins/systolic_npu/machine/cycle_model.h"
#include "tessera/ops.h"

namespace tessera::systolic {
namespace {

struct Scored {
  uint64_t cycles = 0;
  std::vector<Instruction> code;
};

// One candidate: the op alone, lowered with `t` and no tuning, scored under
// the default overlap.
absl::StatusOr<Scored> Score(const kit::GraphSnapshot& sub, const SystolicNpuConfig& npu,
                             const TilerOptions& t) {
  LoweringOptions lo{t.dataflow};
  lo.free_tile_cap = t.free_tile_cap;
  lo.on_chip_arena = false;  // the layer's tiling, not the partition's memory plan
  absl::StatusOr<Program> p = LowerGraph(sub, npu, lo, "tune");
  if (!p.ok()) return p.status();
  const RunMetrics m = EstimateEntry(*p, p->entries[0], npu, Overlap::kDefault);
  return Scored{m.cycles_total, std::move(p->entries[0].code)};
}

void AppendInts(std::string& key, const std::vector<int64_t>& v) {
  absl::StrAppend(&key, "[", absl::StrJoin(v, ","), "]");
}

std::string MemoKey(const kit::GraphSnapshot& g, size_t op_index, const SystolicNpuConfig& npu,
                    Dataflow rule_dataflow) {
  const kit::SnapshotOp& op = g.ops.at(op_index);
  std::string key = absl::StrCat(npu.array_rows, "x", npu.array_cols, "/", npu.clock_mhz, "/",
                                 npu.sram_input_kib, ",", npu.sram_weight_kib, ",", npu.sram_accum_kib, "/",
                                 npu.dram_bandwidth_gbps, ",", npu.dram_latency_cycles, "/", npu.vector_width,
                                 "/", DataflowName(rule_dataflow), "/op", op.type);
  for (const auto& [name, attr] : op.attrs) {
    absl::StrAppend(&key, " a", name, ":");
    AppendInts(key, attr.ints);
    absl::StrAppend(&key, absl::StrJoin(attr.floats, ","));
  }
  auto tensor = [&](const char* role, int32_t t) {
    absl::StrAppend(&key, " ", role);
    if (t < 0) return;
    const kit::SnapshotTensor& st = g.tensors.at(t);
    absl::StrAppend(&key, st.dtype, st.is_constant ? "c" : "v");
    AppendInts(key, st.shape);
  };
  for (int32_t t : op.inputs) tensor("in", t);
  for (int32_t t : op.outputs) tensor("out", t);
  return key;
}

}  // namespace

bool IsGemmFamily(int32_t op_type) {
  return op_type == TSR_OP_FULLY_CONNECTED || op_type == TSR_OP_MATMUL || op_type == TSR_OP_CONV_2D;
}

absl::StatusOr<LayerTuning> TuneLayer(const kit::GraphSnapshot& g, size_t op_index,
                                      const SystolicNpuConfig& npu, Dataflow rule_dataflow) {
  const kit::GraphSnapshot sub = SingleOpGraph(g, op_index);
  LayerTuning out;
  out.options = TilerOptions{rule_dataflow, 0};
  absl::StatusOr<Scored> rule = Score(sub, npu, out.options);
  ++out.candidates;
  std::optional<uint64_t> best;
  if (rule.ok()) {
    out.rule_cycles = rule->cycles;
    best = rule->cycles;
  }
  for (Dataflow d : kAllDataflows) {
    // The uncapped tiling of this dataflow: caps at or above its tile give
    // the same code, which ends the walk up the caps.
    std::optional<Scored> uncapped;
    if (d == rule_dataflow) {
      if (rule.ok()) uncapped = *rule;
    } else {
      absl::StatusOr<Scored> s = Score(sub, npu, TilerOptions{d, 0});
      ++out.candidates;
      if (s.ok()) {
        uncapped = *std::move(s);
        if (!best || uncapped->cycles < *best) {
          best = uncapped->cycles;
          out.options = TilerOptions{d, 0};
        }
      }
    }
    if (!uncapped) continue;  // even the largest tile of d does not fit
    for (int64_t cap = npu.array_rows; cap < (int64_t{1} << 31); cap *= 2) {
      absl::StatusOr<Scored> s = Score(sub, npu, TilerOptions{d, cap});
      ++out.candidates;
      if (!s.ok()) continue;
      if (s->code == uncapped->code) break;
      if (s->cycles < *best) {
        best = s->cycles;
        out.options = TilerOptions{d, cap};
      }
    }
  }
  if (!best) return rule.status();
  out.tuned_cycles = *best;
  return out;
}

void AddTally(const TuningTally& from, TuningTally& into) {
  into.layers += from.layers;
  into.remembered += from.remembered;
  into.candidates += from.candidates;
  into.rule_cycles += from.rule_cycles;
  into.tuned_cycles += from.tuned_cycles;
  for (int d = 0; d < kDataflowCount; ++d) into.chosen[d] += from.chosen[d];
  into.capped += from.capped;
  into.programs_kept_rule += from.programs_kept_rule;
}

void AddToTally(const LayerTuning& t, bool hit, TuningTally& tally) {
  ++tally.layers;
  if (hit)
    ++tally.remembered;
  else
    tally.candidates += t.candidates;
  tally.rule_cycles += t.rule_cycles;
  tally.tuned_cycles += t.tuned_cycles;
  ++tally.chosen[static_cast<int>(t.options.dataflow)];
  if (t.options.free_tile_cap > 0) ++tally.capped;
}

absl::StatusOr<LayerTuning> TuningMemo::Tune(const kit::GraphSnapshot& g, size_t op_index,
                                             const SystolicNpuConfig& npu, Dataflow rule_dataflow,
                                             TuningTally* tally) {
  const std::string key = MemoKey(g, op_index, npu, rule_dataflow);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = done_.find(key); it != done_.end()) {
      if (tally != nullptr) AddToTally(it->second, /*hit=*/true, *tally);
      return it->second;
    }
  }
  const auto started = std::chrono::steady_clock::now();
  absl::StatusOr<LayerTuning> t = TuneLayer(g, op_index, npu, rule_dataflow);
  if (!t.ok()) return t.status();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  if (tally != nullptr) AddToTally(*t, /*hit=*/false, *tally);
  std::lock_guard<std::mutex> lock(mu_);
  if (done_.emplace(key, *t).second) {
    ++totals_.layers;
    totals_.candidates += t->candidates;
  }
  totals_.search_ms += ms;
  return t;
}

TuningMemo::Totals TuningMemo::totals() const {
  std::lock_guard<std::mutex> lock(mu_);
  return totals_;
}

}  // namespace tessera::systolic
