// A plugin-side copy of a partition read through the graph view, and its
// portable byte encoding. Vendors whose "bytecode" is an interpreted graph
// (the cpu plugin, the mock DSP) serialize this; real NPUs lower it further.
#ifndef TESSERA_PLUGINS_KIT_GRAPH_SNAPSHOT_H_
#define TESSERA_PLUGINS_KIT_GRAPH_SNAPSHOT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/kit/body_writer.h"
#include "tessera/graph_view.h"

namespace tessera::kit {

struct SnapshotQuant {
  std::vector<float> scales;
  std::vector<int64_t> zero_points;
  int32_t axis = -1;
};

struct SnapshotTensor {
  std::string name;
  int32_t dtype = 0;
  std::vector<int64_t> shape;
  SnapshotQuant quant;
  bool is_constant = false;
  // Constant bytes: points into `owned` or into memory that outlives the
  // snapshot (the mapped model, or the loaded bytecode).
  std::span<const uint8_t> constant;
  std::shared_ptr<const std::vector<uint8_t>> owned;
  // A constant the encoding names instead of carrying (constant_references.h):
  // set, `constant` is empty until the dispatch side binds the key.
  std::optional<uint32_t> external_key;
};

struct SnapshotAttr {
  std::vector<int64_t> ints;
  std::vector<float> floats;
};

struct SnapshotOp {
  int32_t type = 0;
  uint32_t id = 0;
  std::vector<int32_t> inputs;   // TSR_NO_TENSOR for omitted optionals
  std::vector<int32_t> outputs;
  std::map<int32_t, SnapshotAttr> attrs;
};

struct GraphSnapshot {
  std::vector<SnapshotTensor> tensors;
  std::vector<SnapshotOp> ops;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
};

// Reads everything through the view. Constants are copied unless
// `reference_constants` (then they must outlive the snapshot).
absl::StatusOr<GraphSnapshot> SnapshotGraph(const tsr_graph_view_api* view,
                                            tsr_graph graph,
                                            bool reference_constants);

// Portable encoding ("TSG1"; version 2 when any constant is external, so a
// decoder that predates external constants refuses it). Constant payloads are 16-byte aligned relative
// to the start of the encoding. Allocated once, at its exact size.
std::vector<uint8_t> EncodeSnapshot(const GraphSnapshot& graph);

// The same encoding in two passes, for a caller that owns the final
// buffer: the size, then the bytes written into `out` (exactly
// EncodedSnapshotSize bytes; false, and `out` unusable, otherwise).
size_t EncodedSnapshotSize(const GraphSnapshot& graph);
bool EncodeSnapshotInto(const GraphSnapshot& graph, std::span<uint8_t> out);

// A body writer that encodes `graph` where the envelope puts it. It keeps
// `graph`; constants the snapshot references (SnapshotGraph with
// reference_constants) must stay valid until the body is written, which
// inside one compile() call they are.
BodyWriter SnapshotBodyWriter(GraphSnapshot graph);

// Strict decoder for untrusted bytes: every length, index and size is
// checked; constants point into `bytes`, which must outlive the result.
absl::StatusOr<GraphSnapshot> DecodeSnapshot(std::span<const uint8_t> bytes);

size_t DTypeByteSize(int32_t dtype);  // 0 for unknown
// Product of dims, or -1 on negative dims / overflow.
int64_t ElementCount(std::span<const int64_t> shape);
// Bytes of `t`'s dense data, or -1 on a negative dim, an unknown dtype, or
// a size above checked::kMaxTensorBytes. A decoded snapshot's tensors all
// have a size (DecodeSnapshot refuses the rest).
int64_t TensorByteSize(const SnapshotTensor& t);

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_GRAPH_SNAPSHOT_H_
