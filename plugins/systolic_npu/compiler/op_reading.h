// Reading one graph op for the claim checks: its tensors, attributes,
// static shapes, per-tensor quantization and fused activation, each check
// refusing with a reason (refusal.h). Shared by the GEMM-family and the
// vector-unit layer builders.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_OP_READING_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_OP_READING_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/systolic_npu/compiler/refusal.h"
#include "plugins/kit/graph_snapshot.h"
#include "plugins/systolic_npu/machine/tiler.h"

namespace tessera::systolic {

// Input (output = false) or output i of `op`; nullptr when absent.
const kit::SnapshotTensor* OpTensor(const kit::GraphSnapshot& g, const kit::SnapshotOp& op,
                                    size_t i, bool output);

std::string ShapeText(const std::vector<int64_t>& shape);
const char* DtypeText(int32_t dtype);
inline bool IsFloat(int32_t dt) { return dt == TSR_DTYPE_F32 || dt == TSR_DTYPE_F16; }

// Integer attribute list, or `def` when absent or empty.
std::vector<int64_t> IntsAttr(const kit::SnapshotOp& op, int32_t key, std::vector<int64_t> def);
// First float (or integer) of an attribute, or `def`.
float FloatAttr(const kit::SnapshotOp& op, int32_t key, float def);

// Per-tensor int8 quantization: one finite positive scale, int8 zero point.
absl::StatusOr<QuantSpec> PerTensorQuant(const kit::SnapshotTensor& t, const char* what, Why* why);

absl::StatusOr<ActivationSpec> FusedActivation(const kit::SnapshotOp& op, Why* why);

// Inputs present in [min_in, max_in] (absent optional inputs allowed),
// exactly one output, all of them static and non-empty.
absl::Status CheckArity(const kit::GraphSnapshot& g, const kit::SnapshotOp& op, size_t min_in,
                        size_t max_in, Why* why);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_COMPILER_OP_READING_H_
