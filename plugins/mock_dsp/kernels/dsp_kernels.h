// The mock DSP's own kernels: f32 arithmetic on its vector unit (f16 is
// widened on load and rounded once on store), so results differ from the
// cpu reference (f64 for transcendentals and sums) by the tolerance in
// docs/mock_dsp.md. Every kernel checks shapes and fails with
// InvalidArgument, never asserts.
#ifndef TESSERA_PLUGINS_MOCK_DSP_KERNELS_DSP_KERNELS_H_
#define TESSERA_PLUGINS_MOCK_DSP_KERNELS_DSP_KERNELS_H_

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "plugins/kit/graph_snapshot.h"
#include "plugins/mock_dsp/kernels/dsp_tensor.h"

namespace tessera::mock_dsp {

using Attrs = std::map<int32_t, kit::SnapshotAttr>;

// An absent optional input has dtype TSR_DTYPE_UNKNOWN and no data.
absl::Status RunDspOp(int32_t op_type, const Attrs& attrs, std::span<const DspTensor> inputs,
                      std::span<const DspTensor> outputs);

// Per family (elementwise.cc, reduce_norm.cc, layout.cc).
absl::Status RunElementwise(int32_t op_type, const Attrs& attrs, std::span<const DspTensor> in, const DspTensor& out);
absl::Status RunReduction(int32_t op_type, const Attrs& attrs, std::span<const DspTensor> in, const DspTensor& out);
absl::Status RunSoftmax(const Attrs& attrs, const DspTensor& in, const DspTensor& out);
absl::Status RunLayerNorm(const Attrs& attrs, std::span<const DspTensor> in, std::span<const DspTensor> out);
absl::Status RunLayout(int32_t op_type, const Attrs& attrs, std::span<const DspTensor> in, const DspTensor& out);

// Attribute helpers: the ints (or one int) of `key`, or `fallback`.
std::vector<int64_t> IntsAttr(const Attrs& attrs, int32_t key, std::vector<int64_t> fallback = {});
int64_t IntAttr(const Attrs& attrs, int32_t key, int64_t fallback);
float FloatAttr(const Attrs& attrs, int32_t key, float fallback);

// `shape` must equal `expected`, else InvalidArgument naming the op.
absl::Status CheckShape(const char* op, std::span<const int64_t> shape, std::span<const int64_t> expected);
// A possibly negative axis of a rank-`rank` tensor, checked.
absl::StatusOr<int64_t> NormalizeAxis(const char* op, int64_t axis, size_t rank);

}  // namespace tessera::mock_dsp

#endif  // TESSERA_PLUGINS_MOCK_DSP_KERNELS_DSP_KERNELS_H_
