#include "framework/core/model/model_writer.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "flatbuffers/flatbuffers.h"
#include "framework/core/base/atomic_file.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/graph/graph_verifier.h"
#include "framework/core/model/build_stamp_io.h"
#include "framework/core/model/model_footer.h"
#include "framework/core/schema/model_format_version.h"
#include "tessera/bytecode.h"
#include "tessera/ops.h"
#include "framework/core/schema/tessera_model_generated.h"

namespace tessera {
namespace {

namespace fb = ::tessera::schema;
constexpr uint64_t kDataAlignment = 64;

uint64_t AlignUp(uint64_t v) { return (v + kDataAlignment - 1) / kDataAlignment * kDataAlignment; }

// Where each constant and bytecode lands, relative to the data segment.
struct DataLayout {
  std::vector<uint32_t> tensor_buffer;            // per tensor: buffer index (0 = none)
  std::vector<std::span<const uint8_t>> buffers;  // index 0 unused
  std::vector<uint64_t> buffer_offset;            // relative
  std::vector<uint64_t> bytecode_offset;          // relative
  uint64_t size = 0;
};

DataLayout PlanData(const Graph& g) {
  DataLayout d;
  d.buffers.emplace_back();
  d.buffer_offset.push_back(0);
  // Each item starts aligned; the file ends right after the last one, so
  // any truncation cuts real data and fails the range checks on load.
  for (const Tensor& t : g.tensors) {
    if (!t.is_constant) {
      d.tensor_buffer.push_back(0);
      continue;
    }
    d.tensor_buffer.push_back(static_cast<uint32_t>(d.buffers.size()));
    d.buffers.push_back(t.data);
    d.size = AlignUp(d.size);
    d.buffer_offset.push_back(d.size);
    d.size += t.data.size();
  }
  for (const BytecodeBlob& b : g.bytecodes) {
    d.size = AlignUp(d.size);
    d.bytecode_offset.push_back(d.size);
    d.size += b.bytes.size();
  }
  return d;
}

std::vector<uint8_t> BuildTables(const Graph& g, const DataLayout& d, uint64_t data_start, bool footer) {
  flatbuffers::FlatBufferBuilder b(4096);
  b.ForceDefaults(true);  // fixed table size regardless of offset values
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const Tensor& t = g.tensors[i];
    flatbuffers::Offset<fb::Quantization> quant = 0;
    if (t.quant.quantized())
      quant =
          fb::CreateQuantization(b, b.CreateVector(t.quant.scales), b.CreateVector(t.quant.zero_points), t.quant.axis);
    tensors.push_back(
        fb::CreateTensor(b, b.CreateString(t.name), t.dtype, b.CreateVector(t.shape), quant, d.tensor_buffer[i]));
  }
  std::vector<flatbuffers::Offset<fb::Op>> ops;
  for (const Op& op : g.ops) {
    std::vector<flatbuffers::Offset<fb::Attribute>> attrs;
    for (const auto& [key, value] : op.attrs)
      attrs.push_back(fb::CreateAttribute(b, key, b.CreateVector(value.ints), b.CreateVector(value.floats)));
    flatbuffers::Offset<fb::DispatchInfo> dispatch = 0;
    if (op.dispatch) {
      const DispatchRef& r = *op.dispatch;
      const uint64_t offset = data_start + d.bytecode_offset[r.bytecode];
      // Written only when there are some, so self-contained models stay
      // byte-identical to those written before external constants.
      flatbuffers::Offset<flatbuffers::Vector<uint32_t>> keys = 0;
      flatbuffers::Offset<flatbuffers::Vector<int32_t>> key_tensors = 0;
      if (!r.constants.empty()) {
        std::vector<uint32_t> k;
        std::vector<int32_t> t;
        for (const DispatchConstant& c : r.constants) {
          k.push_back(c.key);
          t.push_back(c.tensor);
        }
        keys = b.CreateVector(k);
        key_tensors = b.CreateVector(t);
      }
      dispatch = fb::CreateDispatchInfo(b, b.CreateString(r.vendor), b.CreateString(r.soc_model),
                                        b.CreateString(r.entry_point), static_cast<uint32_t>(r.bytecode), offset,
                                        g.bytecodes[r.bytecode].bytes.size(), b.CreateVector(r.source_op_ids), keys,
                                        key_tensors);
    }
    ops.push_back(fb::CreateOp(b, op.type, b.CreateVector(op.inputs), b.CreateVector(op.outputs), b.CreateVector(attrs),
                               dispatch, op.id));
  }
  auto subgraph = fb::CreateSubgraph(b, b.CreateString(g.name), b.CreateVector(tensors), b.CreateVector(ops),
                                     b.CreateVector(g.inputs), b.CreateVector(g.outputs));
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  for (size_t i = 0; i < d.buffers.size(); ++i)
    buffers.push_back(fb::CreateBuffer(b, i == 0 ? 0 : data_start + d.buffer_offset[i], d.buffers[i].size()));
  std::vector<flatbuffers::Offset<fb::Bytecode>> bytecodes;
  for (size_t i = 0; i < g.bytecodes.size(); ++i)
    bytecodes.push_back(fb::CreateBytecode(b, b.CreateString(g.bytecodes[i].vendor),
                                           b.CreateString(g.bytecodes[i].soc_model), data_start + d.bytecode_offset[i],
                                           g.bytecodes[i].bytes.size()));
  std::vector<flatbuffers::Offset<fb::Metadata>> metadata;
  for (const auto& [k, v] : g.metadata) metadata.push_back(fb::CreateMetadata(b, b.CreateString(k), b.CreateString(v)));
  auto subgraphs = b.CreateVector(std::vector{subgraph});
  flatbuffers::Offset<fb::BuildStamp> stamp = 0;
  if (g.build_stamp) stamp = WriteBuildStamp(b, *g.build_stamp);
  auto model = fb::CreateModel(b, kModelFormatVersion, b.CreateString("tessera"), subgraphs, b.CreateVector(buffers),
                               b.CreateVector(bytecodes), b.CreateVector(metadata), footer, stamp);
  fb::FinishSizePrefixedModelBuffer(b, model);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

// The file in order, without one copy of the data: the tables (and their
// zero padding up to data_start) and the footer are owned here; every
// constant and bytecode blob is a span of the graph's own bytes, with zero
// padding spans between them. The footer's CRCs are computed over the same
// pieces, so writing them out needs no whole-file buffer.
struct PlannedFile {
  std::vector<uint8_t> tables;                 // [0, data_start)
  std::vector<std::span<const uint8_t>> data;  // [data_start, F), in order
  std::vector<uint8_t> footer;                 // empty without one
  uint64_t size = 0;

  std::vector<std::span<const uint8_t>> Pieces() const {
    std::vector<std::span<const uint8_t>> all{tables};
    all.insert(all.end(), data.begin(), data.end());
    if (!footer.empty()) all.push_back(footer);
    return all;
  }
};

constexpr uint8_t kZeros[kDataAlignment] = {};

absl::StatusOr<PlannedFile> PlanFile(const Graph& g, const ModelWriteOptions& options) {
  RETURN_IF_ERROR(VerifyGraph(g));
  for (const Op& op : g.ops)
    if (op.dispatch && op.dispatch->jit_slot >= 0)
      return absl::FailedPreconditionError(absl::StrCat(
          "op id ", op.id, " runs a JIT handle from vendor '", op.dispatch->vendor,
          "': JIT results live in process memory only and cannot be written to a model file; compile with --mode aot"));
  const DataLayout d = PlanData(g);
  // Offsets are absolute, so the tables depend on their own size. With
  // forced defaults the size does not depend on the offset values: two
  // passes settle it.
  std::vector<uint8_t> tables = BuildTables(g, d, 0, options.checksum_footer);
  const uint64_t data_start = AlignUp(tables.size());
  tables = BuildTables(g, d, data_start, options.checksum_footer);
  if (AlignUp(tables.size()) != data_start)
    return absl::InternalError("model writer: table size changed between passes");
  PlannedFile file;
  file.tables = std::move(tables);
  file.tables.resize(data_start, 0);
  // In the order PlanData laid them out: constants, then bytecode.
  uint64_t at = 0;  // relative to data_start
  auto place = [&](uint64_t offset, std::span<const uint8_t> bytes) {
    if (offset > at) file.data.push_back(std::span<const uint8_t>(kZeros, offset - at));
    if (!bytes.empty()) file.data.push_back(bytes);
    at = offset + bytes.size();
  };
  for (size_t i = 1; i < d.buffers.size(); ++i) place(d.buffer_offset[i], d.buffers[i]);
  for (size_t i = 0; i < g.bytecodes.size(); ++i) place(d.bytecode_offset[i], g.bytecodes[i].bytes);
  file.size = data_start + d.size;
  if (options.checksum_footer) {
    const uint32_t tables_crc = tsr_crc32_update(0, file.tables.data(), file.tables.size());
    // v2's data CRC starts afresh; v1's one CRC continues the tables'.
    uint32_t crc = options.whole_file_footer_v1 ? tables_crc : 0;
    for (std::span<const uint8_t> piece : file.data) crc = tsr_crc32_update(crc, piece.data(), piece.size());
    file.footer = options.whole_file_footer_v1 ? ModelFooterV1Bytes(file.size, crc)
                                               : ModelFooterBytes(data_start, file.size, tables_crc, crc);
  }
  return file;
}

}  // namespace

absl::StatusOr<std::vector<uint8_t>> SerializeModel(const Graph& g, const ModelWriteOptions& options) {
  ASSIGN_OR_RETURN(const PlannedFile file, PlanFile(g, options));
  std::vector<uint8_t> out;
  out.reserve(file.size + file.footer.size());
  for (std::span<const uint8_t> piece : file.Pieces()) out.insert(out.end(), piece.begin(), piece.end());
  return out;
}

absl::Status WriteModelFile(const Graph& g, const std::string& path, const ModelWriteOptions& options) {
  ASSIGN_OR_RETURN(const PlannedFile file, PlanFile(g, options));
  return WritePiecesAtomically(path, file.Pieces());
}

}  // namespace tessera
