// Which ops the NPU claims (dispatching to the per-family layer builders)
// and the lowering of a whole partition onto the tiling compiler.
#include "plugins/systolic_npu/compiler/lowering.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "plugins/systolic_npu/compiler/convert_op_layers.h"
#include "plugins/systolic_npu/compiler/div_by_constant.h"
#include "plugins/systolic_npu/compiler/gemm_family_layers.h"
#include "plugins/systolic_npu/compiler/layer_tuner.h"
#include "plugins/systolic_npu/compiler/memory_plan.h"
#include "plugins/systolic_npu/compiler/op_reading.h"
#include "plugins/systolic_npu/compiler/vector_op_layers.h"
#include "plugins/systolic_npu/machine/numerics.h"
#include "plugins/systolic_npu/machine/tiler.h"
#include "support/ops/op_names.h"
#include "tessera/ops.h"

namespace tessera::systolic {
namespace {

using kit::GraphSnapshot;
using kit::SnapshotOp;
using kit::SnapshotTensor;

// RESHAPE, SQUEEZE and UNSQUEEZE (ONNX Flatten imports as RESHAPE) change
// only the shape (IsLayoutOnly, memory_plan.h): DRAM tensors are dense
// row-major, so the bytes are the same and the output is the input's memory
// (no instruction), except for a partition output, which has its own region
// and gets a DMA copy.
absl::Status BuildConvertLayer(const GraphSnapshot& g, const SnapshotOp& op, ConvertLayer* L, Why* why) {
  return IsLayoutOnly(op.type) ? BuildReshapeLayer(g, op, L, why) : BuildQuantizeLayer(g, op, L, why);
}

absl::Status BuildAnyPoolLayer(const GraphSnapshot& g, const SnapshotOp& op, Pool2dLayer* L, Why* why) {
  return op.type == TSR_OP_GLOBAL_AVG_POOL ? BuildGlobalAvgPoolLayer(g, op, L, why) : BuildPoolLayer(g, op, L, why);
}

absl::Status Check(const GraphSnapshot& g, const SnapshotOp& op, Why* why) {
  switch (op.type) {
    case TSR_OP_FULLY_CONNECTED:
    case TSR_OP_MATMUL: {
      GemmLayer L;
      return BuildGemmLayer(g, op, &L, why);
    }
    case TSR_OP_CONV_2D: {
      Conv2dLayer L;
      return BuildConvLayer(g, op, &L, why);
    }
    case TSR_OP_ADD:
    case TSR_OP_SUB:
    case TSR_OP_MUL:
    case TSR_OP_DIV:
    case TSR_OP_RELU:
    case TSR_OP_CLIP:
    case TSR_OP_SIGMOID:
    case TSR_OP_TANH:
    case TSR_OP_EXP: {
      ElementwiseLayer L;
      return BuildElementwiseLayer(g, op, &L, why);
    }
    case TSR_OP_MAX_POOL_2D:
    case TSR_OP_AVG_POOL_2D:
    case TSR_OP_GLOBAL_AVG_POOL: {
      Pool2dLayer L;
      return BuildAnyPoolLayer(g, op, &L, why);
    }
    case TSR_OP_RESHAPE:
    case TSR_OP_SQUEEZE:
    case TSR_OP_UNSQUEEZE:
    case TSR_OP_QUANTIZE:
    case TSR_OP_DEQUANTIZE: {
      ConvertLayer L;
      return BuildConvertLayer(g, op, &L, why);
    }
    default:
      SNPU_REFUSE(TSR_REFUSAL_UNSUPPORTED_OP, OpName(op.type),
                  " is not implemented by the systolic NPU (matrix unit: FULLY_CONNECTED, MATMUL, "
                  "CONV_2D; vector unit: ADD, SUB, MUL, DIV by a constant, RELU, CLIP, SIGMOID, TANH, "
                  "EXP, MAX_POOL_2D, AVG_POOL_2D, GLOBAL_AVG_POOL, QUANTIZE, DEQUANTIZE; no data "
                  "movement: RESHAPE, SQUEEZE, UNSQUEEZE)");
  }
}

Region IoRegion(RegionKind kind, uint32_t io, const SnapshotTensor& t) {
  Region r;
  r.kind = kind;
  r.io_index = io;
  r.dtype = t.dtype;
  r.dims = t.shape;
  r.size_bytes = static_cast<uint64_t>(kit::ElementCount(t.shape)) * kit::DTypeByteSize(t.dtype);
  return r;
}

absl::StatusOr<LayerTuning> Tune(const GraphSnapshot& g, size_t op_index, const SystolicNpuConfig& npu,
                                 const LoweringOptions& opt) {
  if (opt.memo != nullptr) return opt.memo->Tune(g, op_index, npu, opt.dataflow, opt.tally);
  absl::StatusOr<LayerTuning> t = TuneLayer(g, op_index, npu, opt.dataflow);
  if (t.ok() && opt.tally != nullptr) AddToTally(*t, /*hit=*/false, *opt.tally);
  return t;
}

}  // namespace

const char* OpName(int32_t t) {
  const char* name = OpTypeNameOrNull(t);
  return name != nullptr ? name : "an unknown op";
}

OpSupport CheckOpSupport(const GraphSnapshot& g, const SnapshotOp& op) {
  Why why;
  const absl::Status s = Check(g, op, &why);
  if (s.ok()) return OpSupport{true, TSR_REFUSAL_NONE, ""};
  return OpSupport{false, why.reason, absl::StrCat("systolic_npu: ", s.message())};
}

namespace {

// `*retiled` (optional): set when the tuner moved some layer off the rule's
// tiling, i.e. when the program differs from the untuned one. `plan`: the
// tensors held in the on-chip arena (memory_plan.h); the tiler then sees
// the banks the arena leaves.
absl::StatusOr<Program> LowerEachLayer(const GraphSnapshot& g, const SystolicNpuConfig& soc, const LoweringOptions& opt,
                                       const std::string& name, const ActivationPlan& plan, bool* retiled = nullptr) {
  const SystolicNpuConfig npu = TileBanks(soc, plan.arena_bytes);
  Program p;
  p.target = TargetInfo::FromSoc(soc);
  EntryPoint e;
  e.name = name;
  std::map<int32_t, TensorRef> where;
  const size_t io = g.inputs.size() + g.outputs.size();
  if (io + 1 > 255) return absl::ResourceExhaustedError("systolic_npu: more than 254 partition inputs and outputs");
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const SnapshotTensor& t = g.tensors.at(g.inputs[i]);
    e.regions.push_back(IoRegion(RegionKind::kInput, static_cast<uint32_t>(i), t));
    where[g.inputs[i]] = TensorRef{static_cast<uint8_t>(e.regions.size()), 0};
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const SnapshotTensor& t = g.tensors.at(g.outputs[i]);
    if (where.count(g.outputs[i]) || t.is_constant)
      return absl::UnimplementedError(
          absl::StrCat("systolic_npu: partition output '", t.name, "' is an input or a constant"));
    e.regions.push_back(IoRegion(RegionKind::kOutput, static_cast<uint32_t>(i), t));
    where[g.outputs[i]] = TensorRef{static_cast<uint8_t>(e.regions.size()), 0};
  }
  // Intermediates the plan keeps on chip live in the arena; the others
  // share one DRAM scratch region, 64-byte aligned.
  const uint8_t scratch_region = static_cast<uint8_t>(e.regions.size() + 1);
  uint64_t scratch = 0;
  // Layout-only ops' outputs alias their input (bound when emitted).
  for (const SnapshotOp& op : g.ops)
    for (int32_t t : op.outputs)
      if (t >= 0 && !where.count(t) && !IsLayoutOnly(op.type) && !plan.offset.count(t)) {
        where[t] = TensorRef{scratch_region, scratch};
        const SnapshotTensor& st = g.tensors.at(t);
        scratch += (static_cast<uint64_t>(kit::ElementCount(st.shape)) * kit::DTypeByteSize(st.dtype) + 63) / 64 * 64;
      }
  auto add_region = [&](RegionKind kind, uint64_t bytes) {
    Region r;
    r.kind = kind;
    r.dtype = TSR_DTYPE_I8;
    r.dims = {static_cast<int64_t>(bytes)};
    r.size_bytes = bytes;
    e.regions.push_back(r);
    return static_cast<uint8_t>(e.regions.size());
  };
  if (scratch > 0) add_region(RegionKind::kScratch, scratch);
  if (plan.arena_bytes > 0) {
    const uint8_t arena = add_region(RegionKind::kOnChip, plan.arena_bytes);
    for (const auto& [t, off] : plan.offset) {
      const TensorRef on_chip{arena, off};
      if (where.count(t)) {  // a staged input: one DMA copy from its region
        const SnapshotTensor& st = g.tensors.at(t);
        ConvertLayer copy;
        copy.op = ConvertOp::kCopy;
        copy.count = kit::ElementCount(st.shape);
        copy.in_dtype = copy.out_dtype = st.dtype;
        if (absl::Status s = EmitConvert(copy, where[t], on_chip, npu, p, e); !s.ok())
          return absl::Status(s.code(), absl::StrCat("systolic_npu: staging input '", st.name, "': ", s.message()));
      }
      where[t] = on_chip;
    }
  }
  // Constant data operands (e.g. ADD with a constant) live in the pool.
  auto ref = [&](int32_t t) -> TensorRef {
    auto it = where.find(t);
    if (it != where.end()) return it->second;
    const SnapshotTensor& st = g.tensors.at(t);
    const uint32_t c = p.AddData(st.constant.data(), st.constant.size(), st.dtype);
    where[t] = TensorRef{0, p.constants[c].offset};
    return where[t];
  };
  // Weights and bias placed in DRAM are read where their tensor lives: a
  // region, or (constants) raw bytes in the pool.
  auto layer_refs = [&](const SnapshotOp& op, OperandPlacement w, OperandPlacement b) {
    LayerRefs r{ref(op.inputs[0]), ref(op.outputs[0]), {}, {}};
    if (w == OperandPlacement::kDram) r.weights = ref(op.inputs[1]);
    if (b == OperandPlacement::kDram) r.bias = ref(op.inputs[2]);
    return r;
  };
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const SnapshotOp& op = g.ops[i];
    Why why;
    absl::Status s = Check(g, op, &why);
    if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("systolic_npu: op ", op.id, ": ", s.message()));
    TilerOptions topt{opt.dataflow, opt.free_tile_cap};
    if (opt.tune && IsGemmFamily(op.type)) {
      absl::StatusOr<LayerTuning> tuned = Tune(g, i, npu, opt);
      if (!tuned.ok()) return tuned.status();
      topt = tuned->options;
      if (retiled != nullptr && (topt.dataflow != opt.dataflow || topt.free_tile_cap != opt.free_tile_cap))
        *retiled = true;
    }
    for (int32_t t : op.inputs)
      if (t >= 0 && !where.count(t) && !g.tensors.at(t).is_constant)
        return absl::InvalidArgumentError(absl::StrCat("systolic_npu: op ", op.id, " reads tensor '",
                                                       g.tensors.at(t).name, "' before it is written"));
    switch (op.type) {
      case TSR_OP_FULLY_CONNECTED:
      case TSR_OP_MATMUL: {
        GemmLayer L;
        s = BuildGemmLayer(g, op, &L, &why);
        if (s.ok()) s = EmitGemm(L, layer_refs(op, L.weights_placement, L.bias_placement), npu, topt, p, e);
        break;
      }
      case TSR_OP_CONV_2D: {
        Conv2dLayer L;
        s = BuildConvLayer(g, op, &L, &why);
        if (s.ok()) s = EmitConv2d(L, layer_refs(op, L.weights_placement, L.bias_placement), npu, topt, p, e);
        break;
      }
      case TSR_OP_ADD:
      case TSR_OP_SUB:
      case TSR_OP_MUL:
      case TSR_OP_DIV:
      case TSR_OP_RELU:
      case TSR_OP_CLIP:
      case TSR_OP_SIGMOID:
      case TSR_OP_TANH:
      case TSR_OP_EXP: {
        ElementwiseLayer L;
        int ai = 0;
        s = BuildElementwiseLayer(g, op, &L, &why, &ai);
        if (!s.ok()) break;
        TensorRef b{};
        if (op.type == TSR_OP_DIV) {  // MUL by the reciprocals (int8: tables), in the pool
          const SnapshotTensor& divisor = g.tensors.at(op.inputs[1]);
          auto r =
              L.op == ElementwiseOp::kTable ? Int8DivisionTables(divisor, L, &why) : DivisorReciprocal(divisor, &why);
          if (!r.ok()) {
            s = r.status();
            break;
          }
          const uint32_t c = p.AddData(r->data(), r->size(), L.dtype);  // i8 tables: bytes
          b = TensorRef{0, p.constants[c].offset};
        } else if (IsBinary(L.op)) {
          b = ref(op.inputs[1 - ai]);
        }
        s = EmitElementwise(L, ref(op.inputs[ai]), b, ref(op.outputs[0]), npu, p, e);
        break;
      }
      case TSR_OP_RESHAPE:
      case TSR_OP_SQUEEZE:
      case TSR_OP_UNSQUEEZE:
        if (!where.count(op.outputs[0])) {  // not a partition output: alias, no code
          where[op.outputs[0]] = ref(op.inputs[0]);
          break;
        }
        [[fallthrough]];
      case TSR_OP_QUANTIZE:
      case TSR_OP_DEQUANTIZE: {
        ConvertLayer L;
        s = BuildConvertLayer(g, op, &L, &why);
        if (s.ok()) s = EmitConvert(L, ref(op.inputs[0]), ref(op.outputs[0]), npu, p, e);
        break;
      }
      case TSR_OP_GLOBAL_AVG_POOL: {
        Pool2dLayer L;
        QuantGlobalAvgPoolLayer QL;
        s = BuildGlobalAvgPoolLayer(g, op, &L, &why, &QL);
        if (!s.ok()) break;
        s = L.dtype == TSR_DTYPE_I8 ? EmitQuantGlobalAvgPool(QL, ref(op.inputs[0]), ref(op.outputs[0]), npu, p, e)
                                    : EmitPool2d(L, ref(op.inputs[0]), ref(op.outputs[0]), npu, p, e);
        break;
      }
      default: {
        Pool2dLayer L;
        s = BuildPoolLayer(g, op, &L, &why);
        if (s.ok()) s = EmitPool2d(L, ref(op.inputs[0]), ref(op.outputs[0]), npu, p, e);
        break;
      }
    }
    if (!s.ok())
      return absl::Status(s.code(),
                          absl::StrCat("systolic_npu: op ", op.id, " (", OpName(op.type), "): ", s.message()));
  }
  p.entries.push_back(std::move(e));
  if (absl::Status v = VerifyProgram(p, soc); !v.ok())
    return absl::InternalError(absl::StrCat("systolic_npu: generated code failed verification: ", v.message()));
  return p;
}

}  // namespace

namespace {

// One memory plan, tuned or by the rule.
absl::StatusOr<Program> LowerWithPlan(const GraphSnapshot& g, const SystolicNpuConfig& npu, const LoweringOptions& opt,
                                      const std::string& name, const ActivationPlan& plan) {
  bool retiled = false;
  absl::StatusOr<Program> p = LowerEachLayer(g, npu, opt, name, plan, &retiled);
  // Every layer kept the rule's tiling: the rule's program is this one.
  if (!opt.tune || !p.ok() || !retiled) return p;
  // The search scores each layer alone; in the whole program one layer's
  // DMA overlaps the next one's compute, which can reverse a small gain.
  // The rule's program is kept when the whole tuned one is not faster.
  LoweringOptions rule = opt;
  rule.tune = false;
  rule.tally = nullptr;
  absl::StatusOr<Program> r = LowerEachLayer(g, npu, rule, name, plan);
  if (!r.ok()) return p;  // only the tuned tiling fits
  const uint64_t tuned = EstimateEntry(*p, p->entries[0], npu, Overlap::kDefault).cycles_total;
  const uint64_t plain = EstimateEntry(*r, r->entries[0], npu, Overlap::kDefault).cycles_total;
  if (tuned < plain) return p;
  if (opt.tally != nullptr) ++opt.tally->programs_kept_rule;
  return r;
}

}  // namespace

absl::StatusOr<Program> LowerGraph(const GraphSnapshot& g, const SystolicNpuConfig& npu, const LoweringOptions& opt,
                                   const std::string& name) {
  // One plan per arena budget (a larger budget that places the same
  // tensors adds nothing), then the all-DRAM program: the arena costs the
  // tile buffers part of every bank, which can cost a layer smaller tiles
  // or weight reloads. The program with the fewest modelled cycles is kept,
  // the earlier (smaller arena) on a tie. Each lowering counts its tuning
  // apart; the tally reports the program kept.
  std::vector<ActivationPlan> plans;
  if (opt.on_chip_arena)
    for (uint64_t budget : ArenaBudgets(npu)) {
      ActivationPlan plan = PlanActivations(g, budget);
      if (plan.arena_bytes > 0 && (plans.empty() || plan.offset != plans.back().offset))
        plans.push_back(std::move(plan));
    }
  if (plans.empty()) return LowerWithPlan(g, npu, opt, name, ActivationPlan{});
  plans.push_back(ActivationPlan{});
  absl::StatusOr<Program> best = absl::InternalError("systolic_npu: no memory plan");
  uint64_t best_cycles = 0;
  TuningTally best_tally;
  for (const ActivationPlan& plan : plans) {
    TuningTally tally;
    LoweringOptions o = opt;
    o.tally = &tally;
    absl::StatusOr<Program> p = LowerWithPlan(g, npu, o, name, plan);
    if (!p.ok()) {
      if (!best.ok()) best = std::move(p);  // none fits: the all-DRAM program's error, the last
      continue;
    }
    const uint64_t cycles = EstimateEntry(*p, p->entries[0], npu, Overlap::kDefault).cycles_total;
    if (best.ok() && cycles >= best_cycles) continue;
    best = std::move(p);
    best_cycles = cycles;
    best_tally = tally;
  }
  if (opt.tally != nullptr && best.ok()) AddTally(best_tally, *opt.tally);
  return best;
}

GraphSnapshot SingleOpGraph(const GraphSnapshot& g, size_t op_index) {
  const SnapshotOp& op = g.ops.at(op_index);
  GraphSnapshot sub;
  std::map<int32_t, int32_t> remap;
  auto add = [&](int32_t t) -> int32_t {
    if (t < 0) return t;
    auto it = remap.find(t);
    if (it != remap.end()) return it->second;
    sub.tensors.push_back(g.tensors.at(t));
    const int32_t n = static_cast<int32_t>(sub.tensors.size() - 1);
    remap[t] = n;
    return n;
  };
  SnapshotOp copy = op;
  for (int32_t& t : copy.inputs) {
    const bool fresh = t >= 0 && !remap.count(t);
    t = add(t);
    if (fresh && !sub.tensors[t].is_constant) sub.inputs.push_back(t);
  }
  for (int32_t& t : copy.outputs) {
    t = add(t);
    sub.outputs.push_back(t);
  }
  sub.ops.push_back(copy);
  return sub;
}

absl::StatusOr<RunMetrics> EstimateOp(const GraphSnapshot& g, size_t op_index, const SystolicNpuConfig& npu,
                                      const LoweringOptions& opt, Overlap overlap, bool* computes_fp16) {
  auto p = LowerGraph(SingleOpGraph(g, op_index), npu, opt, "estimate");
  if (!p.ok()) return p.status();
  if (computes_fp16 != nullptr) {
    // FP16 math on a model that is F16 already is its own precision.
    const SnapshotOp& op = g.ops[op_index];
    bool touches_f32 = false;
    for (const std::vector<int32_t>* list : {&op.inputs, &op.outputs})
      for (int32_t t : *list)
        if (t >= 0 && g.tensors[t].dtype == TSR_DTYPE_F32) touches_f32 = true;
    *computes_fp16 = touches_f32 && ComputesInFp16(p->entries[0]);
  }
  return EstimateEntry(*p, p->entries[0], npu, overlap);
}

}  // namespace tessera::systolic
