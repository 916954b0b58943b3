// What the mock DSP runs: elementwise and transcendental ops, softmax,
// layer norm, reductions, SELECT, comparisons and the layout ops, on f32
// and f16 tensors. Decided from a graph snapshot, so the compiler (claims)
// and the dispatch library (verifying a loaded program) apply one rule.
#ifndef TESSERA_PLUGINS_MOCK_DSP_SHARED_OP_SUPPORT_H_
#define TESSERA_PLUGINS_MOCK_DSP_SHARED_OP_SUPPORT_H_

#include <cstdint>
#include <string>

#include "plugins/kit/graph_snapshot.h"

namespace tessera::mock_dsp {

enum class OpClass { kNone, kSimple, kTranscendental, kCompare, kSelect, kReduce, kSoftmax, kLayerNorm, kLayout };

// The class of an op type; kNone for ops the DSP does not implement.
OpClass ClassOf(int32_t op_type);

struct Verdict {
  int32_t reason = 0;  // tsr_refusal_reason; TSR_REFUSAL_NONE when supported
  std::string detail;  // why, for a refusal
  bool ok() const { return reason == 0; }
};

// Checks op `op` of `g`: op type, tensor dtypes (f32/f16 data; bool
// conditions and comparison outputs; i32/i64 indices, axes and slice
// bounds), static shapes, no quantization. Attribute keys are the
// caller's (it holds the graph view).
Verdict JudgeOp(const kit::GraphSnapshot& g, const kit::SnapshotOp& op);

// The ops the DSP implements, for refusal texts.
const char* SupportedOpsText();

}  // namespace tessera::mock_dsp

#endif  // TESSERA_PLUGINS_MOCK_DSP_SHARED_OP_SUPPORT_H_
