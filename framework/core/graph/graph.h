// The framework's in-memory graph. Loading a .tsr yields a Graph whose
// constant tensors and bytecode blobs point straight into the memory map;
// building one in code keeps its bytes in the graph's own arena. Either way
// a Graph shares ownership of that storage, so copies are cheap and spans
// stay valid as long as any copy lives.
#ifndef TESSERA_FRAMEWORK_CORE_GRAPH_GRAPH_H_
#define TESSERA_FRAMEWORK_CORE_GRAPH_GRAPH_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "framework/core/graph/build_stamp.h"

namespace tessera {

struct Quantization {
  std::vector<float> scales;  // empty = not quantized
  std::vector<int64_t> zero_points;
  int32_t axis = -1;
  bool quantized() const { return !scales.empty(); }
};

// Where constant bytes start. A graph built in memory holds them in
// heap vectors (operator new: 16-byte aligned) and a loaded .tsr at 64-byte
// aligned offsets of a page-aligned mapping, so code that runs kernels on
// constants may read them through typed pointers. A graph imported from
// an ONNX file is the exception: its large initializers are views of the
// file's raw_data at whatever offset the file has them (onnx/onnx_importer.h,
// ImportOnnxFile). Such a graph may be written (the .tsr writer places every
// constant 64-byte aligned), inspected, or read element by element through
// memcpy (LoadElement), as the importer and its passes do; anything that
// hands constants to kernels calls AlignConstants first.
inline constexpr size_t kConstantAlignment = 16;

struct Tensor {
  std::string name;
  int32_t dtype = 0;  // tsr_dtype
  std::vector<int64_t> shape;
  Quantization quant;
  bool is_constant = false;
  // Constant bytes (into graph storage); see kConstantAlignment.
  std::span<const uint8_t> data;

  int64_t element_count() const;
  size_t byte_size() const;
};

struct Attribute {
  std::vector<int64_t> ints;
  std::vector<float> floats;
};

// What a DISPATCH op runs.
// A graph constant that a DISPATCH op's bytecode names by key instead of
// embedding (ABI 1.4, TSR_COMPILE_FLAG_EXTERNAL_CONSTANTS_OK): the runtime
// binds `key` to the tensor's bytes in the mapped model when it loads.
struct DispatchConstant {
  uint32_t key = 0;
  int32_t tensor = -1;  // global index of a constant tensor
};

struct DispatchRef {
  std::string vendor;
  std::string soc_model;
  std::string entry_point;
  int32_t bytecode = -1;  // index into Graph::bytecodes (AOT)
  int32_t jit_slot = -1;  // index into the in-memory JIT registry
  std::vector<uint32_t> source_op_ids;
  std::vector<DispatchConstant> constants;
};

struct Op {
  int32_t type = 0;             // tsr_op_type
  std::vector<int32_t> inputs;  // -1 = omitted optional input
  std::vector<int32_t> outputs;
  std::map<int32_t, Attribute> attrs;
  uint32_t id = 0;
  std::optional<DispatchRef> dispatch;

  const Attribute* FindAttr(int32_t key) const;
};

// How a loaded .tsr was checked (model/model_loader.h, docs/model_format.md
// §4): kStructure checks the tables (their CRC), every range and each
// bytecode envelope's layout, reading no weight page; kFull also checks the
// data segment's CRC (every weight and bytecode byte).
enum class VerifyLevel { kStructure, kFull };

// Whether a blob's CRC was checked before the host hands it to a dispatch
// library, which decides whether the library may be told so
// (TSR_SOURCE_FLAG_ENVELOPE_VERIFIED, api/tessera/dispatch.h).
enum class BlobCrc {
  kUnchecked,  // nothing checked it yet (a graph built or compiled in memory): the host checks it when it loads it
  kVerified,   // the loader checked its own envelope CRC (at kFull, whatever the footer covered) and its layout
  kDeferred,   // loaded at kStructure: only the envelope's layout was checked; the dispatch library checks the CRC
};

struct BytecodeBlob {
  std::string vendor;
  std::string soc_model;
  std::span<const uint8_t> bytes;  // into graph storage
  BlobCrc crc = BlobCrc::kUnchecked;
};

class Graph {
 public:
  std::string name;
  std::vector<Tensor> tensors;
  std::vector<Op> ops;  // topologically ordered
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<BytecodeBlob> bytecodes;
  // How the bytecodes were built; absent in source models and in models
  // compiled before the stamp existed.
  std::optional<BuildStamp> build_stamp;
  // For a graph loaded from a .tsr: what the loader checked. kFull only
  // when a CRC covered every byte (a file without a footer has none, so it
  // is kStructure even when kFull was asked for). Absent otherwise.
  std::optional<VerifyLevel> verified;
  // For a graph loaded from a .tsr: it ended with a checksum footer (v1 or
  // v2). Without one nothing has a CRC, tables included.
  bool checksum_footer = false;

  // Moves `bytes` into storage the graph co-owns; returns a span of them.
  std::span<const uint8_t> AdoptBytes(std::vector<uint8_t> bytes);
  // Keeps `storage` (e.g. a memory map) alive as long as this graph.
  void KeepAlive(std::shared_ptr<const void> storage);
  // A copy of `bytes` at a 64-byte aligned address, in storage the graph
  // co-owns.
  std::span<const uint8_t> AdoptAlignedCopy(std::span<const uint8_t> bytes);

  uint32_t NextOpId() const;  // one past the largest op id
  // -1 when no op produces it (a graph input or a constant).
  std::vector<int32_t> ProducerIndex() const;
  std::vector<std::vector<int32_t>> ConsumerIndex() const;
  std::optional<std::string> FindMetadata(const std::string& key) const;

 private:
  std::vector<std::shared_ptr<const void>> storage_;
};

// True when `data` is empty or starts at a multiple of kConstantAlignment.
bool IsAlignedConstant(std::span<const uint8_t> data);
// True when some constant of `graph` is not aligned.
bool HasUnalignedConstants(const Graph& graph);
// Copies every constant that is not aligned into storage the graph owns;
// returns how many bytes it copied.
size_t AlignConstants(Graph& graph);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_GRAPH_GRAPH_H_
