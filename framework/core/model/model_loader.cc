#include "framework/core/model/model_loader.h"

#include "framework/core/model/flatbuffer_string.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "flatbuffers/flatbuffers.h"
#include "framework/core/base/exception_boundary.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/graph/graph_budgets.h"
#include "framework/core/graph/graph_verifier.h"
#include "framework/core/model/build_stamp_io.h"
#include "framework/core/model/mapped_file.h"
#include "framework/core/model/model_footer.h"
#include "framework/core/schema/model_format_version.h"
#include "framework/core/schema/tessera_model_generated.h"
#include "tessera/bytecode.h"

namespace tessera {
namespace {

namespace fb = ::tessera::schema;

// Copies through memcpy: flatbuffers 2.0.8 checks only 4-byte alignment of
// vectors, so an 8-byte element may sit misaligned in a corrupted file.
template <typename T>
std::vector<T> ToVector(const flatbuffers::Vector<T>* v) {
  std::vector<T> out(v ? v->size() : 0);
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

absl::StatusOr<std::span<const uint8_t>> Range(std::span<const uint8_t> file, uint64_t offset, uint64_t size,
                                               uint64_t data_start, const std::string& what) {
  if (offset < data_start || offset > file.size() || size > file.size() - offset)
    return absl::InvalidArgumentError(absl::StrCat(what, ": range [", offset, ", +", size,
                                                   ") lies outside the data segment (file has ", file.size(),
                                                   " bytes; truncated?)"));
  return file.subspan(offset, size);
}

}  // namespace

bool LooksLikeTsr(std::span<const uint8_t> bytes) {
  return bytes.size() >= 12 &&
         flatbuffers::BufferHasIdentifier(bytes.data(), fb::ModelIdentifier(), /*size_prefixed=*/true);
}

namespace {

// Each blob's envelope once (a blob is one range, however many DISPATCH
// ops use it). At kFull its own CRC is checked here, whatever the footer
// covered: the footer's CRC proves the file is the one written, not that
// the blob inside it is the one its vendor compiled (a writer, or an
// attacker, may refresh the footer over a stale blob, and the dispatch
// library is told the CRC was checked). At kStructure the layout alone:
// reading every byte is what such a load must not do, and the dispatch
// library checks the CRC itself.
absl::Status CheckBytecodeEnvelopes(Graph& g, VerifyLevel level) {
  for (size_t i = 0; i < g.bytecodes.size(); ++i) {
    BytecodeBlob& blob = g.bytecodes[i];
    const bool crc_here = level == VerifyLevel::kFull;
    char err[160] = "";
    if (tsr_bytecode_verify_ex(blob.bytes.data(), blob.bytes.size(), nullptr,
                               crc_here ? 0 : TSR_BYTECODE_VERIFY_SKIP_CHECKSUM, nullptr, err, sizeof(err)) != TSR_OK)
      return absl::DataLossError(
          absl::StrCat("bytecode ", i, " (vendor '", blob.vendor, "') fails the envelope check: ", err));
    blob.crc = crc_here ? BlobCrc::kVerified : BlobCrc::kDeferred;
  }
  return absl::OkStatus();
}

absl::StatusOr<Graph> ParseUnguarded(std::span<const uint8_t> bytes, std::shared_ptr<const void> keep_alive,
                                     const Budgets& budgets, VerifyLevel level) {
  RETURN_IF_ERROR(CheckBudget(budgets, &Budgets::max_model_bytes, bytes.size(), "the model file"));
  // The CRC comes before any parsing: an edited byte anywhere, tables
  // included, then reads as what it is rather than as a format error. A
  // v2 footer's data CRC only at kFull: the weights' pages stay untouched.
  const ModelFooterKind footer = FindModelFooter(bytes);
  const bool has_footer = footer != ModelFooterKind::kNone;
  CheckedModelFile checked{bytes};
  if (has_footer) {
    ASSIGN_OR_RETURN(checked, CheckModelFooter(bytes, level == VerifyLevel::kFull));
    bytes = checked.body;
  }
  if (bytes.size() < 12) return absl::InvalidArgumentError("not a Tessera model: file shorter than the header");
  if (!LooksLikeTsr(bytes))
    return absl::InvalidArgumentError("not a Tessera model: missing the 'TSR1' file identifier");
  const uint32_t table_size = flatbuffers::ReadScalar<uint32_t>(bytes.data());
  if (table_size > bytes.size() - sizeof(uint32_t))
    return absl::InvalidArgumentError(
        absl::StrCat("model is truncated: header says ", table_size, " bytes of tables, file has ", bytes.size()));
  const uint64_t data_start = sizeof(uint32_t) + table_size;
  // Tables outside the footer's tables region would be parsed unchecked.
  if (footer == ModelFooterKind::kSplitV2 && data_start > checked.tables_end)
    return absl::DataLossError(absl::StrCat("the checksum footer's tables region ends at byte ", checked.tables_end,
                                            ", before the tables do (", data_start,
                                            "): the footer or the size prefix was modified"));
  flatbuffers::Verifier verifier(bytes.data(), data_start, /*max_depth=*/64, /*max_tables=*/10'000'000);
  if (!fb::VerifySizePrefixedModelBuffer(verifier))
    return absl::InvalidArgumentError("model tables are corrupted (flatbuffers verification failed)");
  const fb::Model* model = fb::GetSizePrefixedModel(bytes.data());
  if (model->format_version() < kOldestReadableModelFormatVersion || model->format_version() > kModelFormatVersion)
    return absl::FailedPreconditionError(
        absl::StrCat("model format version ", model->format_version(), " is not supported (this build reads ",
                     kOldestReadableModelFormatVersion, "..", kModelFormatVersion, ")"));
  if (model->checksum_footer() && !has_footer)
    return absl::DataLossError(
        "the model's tables declare a checksum footer, but the file does not end with a "
        "valid one (truncated, or its last 16 bytes were modified)");
  if (!model->subgraphs() || model->subgraphs()->size() == 0)
    return absl::InvalidArgumentError("model has no subgraphs");
  // Counts first, before a vector of that many is built.
  const fb::Subgraph* sg = model->subgraphs()->Get(0);
  RETURN_IF_ERROR(
      CheckBudget(budgets, &Budgets::max_tensor_count, sg->tensors() ? sg->tensors()->size() : 0, "the tensor count"));
  RETURN_IF_ERROR(CheckBudget(budgets, &Budgets::max_op_count, sg->ops() ? sg->ops()->size() : 0, "the op count"));

  Graph g;
  g.KeepAlive(std::move(keep_alive));
  // Buffers: index 0 is the empty sentinel.
  std::vector<std::span<const uint8_t>> buffers;
  if (model->buffers()) {
    for (flatbuffers::uoffset_t i = 0; i < model->buffers()->size(); ++i) {
      const fb::Buffer* b = model->buffers()->Get(i);
      if (i == 0) {
        buffers.emplace_back();
        continue;
      }
      ASSIGN_OR_RETURN(auto range, Range(bytes, b->offset(), b->size(), data_start, absl::StrCat("buffer ", i)));
      buffers.push_back(range);
    }
  }
  if (model->bytecodes()) {
    for (flatbuffers::uoffset_t i = 0; i < model->bytecodes()->size(); ++i) {
      const fb::Bytecode* b = model->bytecodes()->Get(i);
      ASSIGN_OR_RETURN(auto range, Range(bytes, b->offset(), b->size(), data_start, absl::StrCat("bytecode ", i)));
      g.bytecodes.push_back({FlatString(b->vendor()), FlatString(b->soc_model()), range});
    }
  }
  if (model->metadata())
    for (const fb::Metadata* m : *model->metadata())
      g.metadata.emplace_back(FlatString(m->key()), FlatString(m->value()));
  if (const fb::BuildStamp* stamp = model->build_stamp()) g.build_stamp = ReadBuildStamp(*stamp);

  g.name = FlatString(sg->name());
  if (sg->tensors()) {
    for (flatbuffers::uoffset_t i = 0; i < sg->tensors()->size(); ++i) {
      const fb::Tensor* ft = sg->tensors()->Get(i);
      Tensor t;
      t.name = FlatString(ft->name());
      t.dtype = ft->dtype();
      t.shape = ToVector(ft->shape());
      if (const fb::Quantization* q = ft->quantization()) {
        t.quant.scales = ToVector(q->scales());
        t.quant.zero_points = ToVector(q->zero_points());
        t.quant.axis = q->axis();
      }
      if (ft->buffer() != 0) {
        if (ft->buffer() >= buffers.size())
          return absl::InvalidArgumentError(absl::StrCat("tensor ", i, " ('", t.name, "') references buffer ",
                                                         ft->buffer(), ", but the model has ", buffers.size()));
        t.is_constant = true;
        t.data = buffers[ft->buffer()];
      }
      g.tensors.push_back(std::move(t));
    }
  }
  if (sg->ops()) {
    for (const fb::Op* fop : *sg->ops()) {
      Op op;
      op.type = fop->type();
      op.id = fop->id();
      op.inputs = ToVector(fop->inputs());
      op.outputs = ToVector(fop->outputs());
      if (fop->attributes())
        for (const fb::Attribute* a : *fop->attributes())
          op.attrs[a->key()] = Attribute{ToVector(a->ints()), ToVector(a->floats())};
      if (const fb::DispatchInfo* d = fop->dispatch()) {
        DispatchRef ref{FlatString(d->vendor()),
                        FlatString(d->soc_model()),
                        FlatString(d->entry_point()),
                        static_cast<int32_t>(d->bytecode()),
                        -1,
                        ToVector(d->source_op_ids()),
                        {}};
        // Range, constant-ness and distinct keys are VerifyGraph's, below.
        const std::vector<uint32_t> keys = ToVector(d->constant_keys());
        const std::vector<int32_t> key_tensors = ToVector(d->constant_tensors());
        if (keys.size() != key_tensors.size())
          return absl::InvalidArgumentError(absl::StrCat("op id ", op.id, ": DISPATCH lists ", keys.size(),
                                                         " external constant keys but ", key_tensors.size(),
                                                         " tensors"));
        for (size_t k = 0; k < keys.size(); ++k) ref.constants.push_back({keys[k], key_tensors[k]});
        if (d->bytecode() >= g.bytecodes.size() ||
            static_cast<uint64_t>(g.bytecodes[d->bytecode()].bytes.data() - bytes.data()) != d->bytecode_offset() ||
            g.bytecodes[d->bytecode()].bytes.size() != d->bytecode_size())
          return absl::InvalidArgumentError(absl::StrCat("op id ", op.id, ": DISPATCH bytecode reference (index ",
                                                         d->bytecode(), ", offset ", d->bytecode_offset(),
                                                         ") does not match the model's bytecode table"));
        op.dispatch = std::move(ref);
      }
      g.ops.push_back(std::move(op));
    }
  }
  g.inputs = ToVector(sg->inputs());
  g.outputs = ToVector(sg->outputs());
  RETURN_IF_ERROR(VerifyGraph(g));
  RETURN_IF_ERROR(CheckGraphBudgets(g, budgets));
  RETURN_IF_ERROR(CheckBytecodeEnvelopes(g, level));
  g.verified = checked.data_checked ? VerifyLevel::kFull : VerifyLevel::kStructure;
  g.checksum_footer = has_footer;
  return g;
}

}  // namespace

absl::StatusOr<Graph> ParseModel(std::span<const uint8_t> bytes, std::shared_ptr<const void> keep_alive,
                                 const Budgets& budgets, VerifyLevel level) {
  return CatchAsStatus("loading the model",
                       [&] { return ParseUnguarded(bytes, std::move(keep_alive), budgets, level); });
}

absl::StatusOr<Graph> LoadModelFile(const std::string& path, const Budgets& budgets, VerifyLevel level) {
  RETURN_IF_ERROR(CheckModelFileBudget(budgets, path));
  ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file,
                   CatchAsStatus(absl::StrCat("opening '", path, "'"), [&] { return MappedFile::Open(path); }));
  absl::StatusOr<Graph> g = ParseModel(file->bytes(), file, budgets, level);
  if (!g.ok()) return absl::Status(g.status().code(), absl::StrCat("'", path, "': ", g.status().message()));
  return g;
}

}  // namespace tessera
