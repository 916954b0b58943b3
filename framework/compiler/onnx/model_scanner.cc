#include "framework/compiler/onnx/model_scanner.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "framework/core/io/protobuf_wire.h"

namespace tessera::onnx_import {
namespace {

using io_wire::PutVarint;
using namespace io_wire::wire_types;

// onnx.proto field numbers on the walked paths.
constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphNode = 1;
constexpr uint32_t kGraphInitializer = 5;
constexpr uint32_t kNodeAttribute = 5;
constexpr uint32_t kAttributeT = 5;
constexpr uint32_t kAttributeG = 6;
constexpr uint32_t kAttributeTensors = 10;
constexpr uint32_t kAttributeGraphs = 11;
constexpr uint32_t kTensorRawData = 9;

constexpr int kMaxGroupDepth = 32;

enum class Kind { kNone, kModel, kGraph, kNode, kAttribute, kTensor };

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kModel:
      return "ModelProto";
    case Kind::kGraph:
      return "GraphProto";
    case Kind::kNode:
      return "NodeProto";
    case Kind::kAttribute:
      return "AttributeProto";
    case Kind::kTensor:
      return "TensorProto";
    default:
      return "message";
  }
}

// The message kind a field holds on a walked path; kNone for any other
// field (copied as it is). Only length-delimited fields hold messages: a
// field of another wire type is an unknown field to protobuf.
Kind ChildKind(Kind parent, uint32_t number, uint32_t wire) {
  if (wire != kLengthDelimited) return Kind::kNone;
  switch (parent) {
    case Kind::kModel:
      return number == kModelGraph ? Kind::kGraph : Kind::kNone;
    case Kind::kGraph:
      if (number == kGraphInitializer) return Kind::kTensor;
      return number == kGraphNode ? Kind::kNode : Kind::kNone;
    case Kind::kNode:
      return number == kNodeAttribute ? Kind::kAttribute : Kind::kNone;
    case Kind::kAttribute:
      if (number == kAttributeT || number == kAttributeTensors) return Kind::kTensor;
      return number == kAttributeG || number == kAttributeGraphs ? Kind::kGraph : Kind::kNone;
    default:
      return Kind::kNone;
  }
}

// One field: [tag_at, value_at) is its tag, [value_at, end) its value; for
// a length-delimited field the content is [content_at, end).
struct Field {
  size_t tag_at = 0;
  uint32_t number = 0;
  uint32_t wire = 0;
  size_t value_at = 0;
  size_t content_at = 0;
  size_t end = 0;
};

class Scanner {
 public:
  Scanner(std::span<const uint8_t> bytes, uint64_t min_payload_bytes)
      : bytes_(bytes), min_payload_bytes_(min_payload_bytes) {}

  // Walks the message of `kind` in [begin, end). With `out`, appends its
  // rewritten bytes; `edits` (from a walk without `out`) says which
  // submessages change, so the others are copied whole.
  absl::Status Message(Kind kind, size_t begin, size_t end, int depth, std::vector<uint8_t>* out) {
    std::optional<Field> last_raw;
    if (kind == Kind::kTensor) {
      // Protobuf keeps the last raw_data of a TensorProto: that one is the payload.
      for (size_t pos = begin; pos < end;) {
        absl::StatusOr<Field> f = Next(pos, end, kind);
        if (!f.ok()) return f.status();
        if (f->number == kTensorRawData && f->wire == kLengthDelimited) last_raw = *f;
      }
    }
    const bool elide = last_raw && last_raw->end - last_raw->content_at >= min_payload_bytes_;
    for (size_t pos = begin; pos < end;) {
      absl::StatusOr<Field> f = Next(pos, end, kind);
      if (!f.ok()) return f.status();
      if (kind == Kind::kTensor && f->number == kPayloadMarkerField) {
        edits_.push_back(f->tag_at);  // not ours: dropped
        continue;
      }
      if (kind == Kind::kTensor && elide && f->number == kTensorRawData && f->wire == kLengthDelimited) {
        edits_.push_back(f->tag_at);
        if (f->tag_at != last_raw->tag_at) continue;  // overridden by the last one anyway: dropped
        const uint64_t index = payloads_.size();
        payloads_.push_back({f->content_at, f->end - f->content_at});
        if (out != nullptr) {
          PutVarint(*out, (uint64_t{kPayloadMarkerField} << 3) | kVarint);
          PutVarint(*out, index);
        }
        continue;
      }
      const Kind child = ChildKind(kind, f->number, f->wire);
      const int child_depth = child == Kind::kGraph ? depth + 1 : depth;
      if (child == Kind::kNone || child_depth > kMaxScanDepth) {
        Copy(f->tag_at, f->end, out);
        continue;
      }
      if (out == nullptr) {
        absl::Status s = Message(child, f->content_at, f->end, child_depth, nullptr);
        if (!s.ok()) return s;
        continue;
      }
      if (!HasEdits(f->content_at, f->end)) {
        Copy(f->tag_at, f->end, out);
        continue;
      }
      std::vector<uint8_t> content;
      absl::Status s = Message(child, f->content_at, f->end, child_depth, &content);
      if (!s.ok()) return s;
      Copy(f->tag_at, f->value_at, out);
      PutVarint(*out, content.size());
      out->insert(out->end(), content.begin(), content.end());
    }
    return absl::OkStatus();
  }

  std::vector<ScannedModel::Payload>& payloads() { return payloads_; }
  const std::vector<size_t>& edits() const { return edits_; }
  void StartRewrite() {
    std::sort(edits_.begin(), edits_.end());
    rewrite_edits_ = std::move(edits_);
    edits_.clear();
    payloads_.clear();
  }

 private:
  absl::Status Bad(size_t at, Kind kind, absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("not a valid ONNX ModelProto: at byte ", at, " (in a ", KindName(kind), "): ", what));
  }

  absl::StatusOr<uint64_t> Varint(size_t& pos, size_t end, Kind kind) const {
    const size_t start = pos;
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= end) return Bad(start, kind, "truncated varint");
      const uint8_t b = bytes_[pos++];
      if (shift == 63 && (b & 0x7e) != 0) return Bad(start, kind, "varint overflows 64 bits");
      value |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return value;
    }
    return Bad(start, kind, "varint longer than 10 bytes");
  }

  // Reads one field's tag and skips its value, all within [pos, end).
  absl::StatusOr<Field> Next(size_t& pos, size_t end, Kind kind, int group_depth = 0) const {
    Field f;
    f.tag_at = pos;
    absl::StatusOr<uint64_t> tag = Varint(pos, end, kind);
    if (!tag.ok()) return tag.status();
    if (*tag > 0xffffffffu) return Bad(f.tag_at, kind, "field tag overflows 32 bits");
    f.number = static_cast<uint32_t>(*tag >> 3);
    f.wire = static_cast<uint32_t>(*tag & 7);
    if (f.number == 0) return Bad(f.tag_at, kind, "field number 0");
    f.value_at = pos;
    switch (f.wire) {
      case kVarint: {
        absl::Status s = Varint(pos, end, kind).status();
        if (!s.ok()) return s;
        break;
      }
      case kFixed64:
      case kFixed32: {
        const size_t width = f.wire == kFixed64 ? 8 : 4;
        if (end - pos < width)
          return Bad(f.value_at, kind, absl::StrCat("truncated fixed", width * 8, " of field ", f.number));
        pos += width;
        break;
      }
      case kLengthDelimited: {
        absl::StatusOr<uint64_t> len = Varint(pos, end, kind);
        if (!len.ok()) return len.status();
        if (*len > end - pos)
          return Bad(f.value_at, kind,
                     absl::StrCat("field ", f.number, " has length ", *len, ", past the end of ",
                                  end == bytes_.size() ? "the file" : "its message", " (", end - pos, " bytes left)"));
        f.content_at = pos;
        pos += static_cast<size_t>(*len);
        break;
      }
      case kStartGroup: {
        // Deprecated groups: fields up to the matching end-group tag.
        if (group_depth >= kMaxGroupDepth) return Bad(f.tag_at, kind, "groups nested too deeply");
        while (true) {
          if (pos >= end) return Bad(f.tag_at, kind, absl::StrCat("unterminated group (field ", f.number, ")"));
          const size_t at = pos;
          absl::StatusOr<uint64_t> inner = Varint(pos, end, kind);
          if (!inner.ok()) return inner.status();
          if ((*inner & 7) == kEndGroup) {
            if ((*inner >> 3) != f.number) return Bad(at, kind, "end-group tag does not match its start");
            break;
          }
          pos = at;
          absl::Status s = Next(pos, end, kind, group_depth + 1).status();
          if (!s.ok()) return s;
        }
        break;
      }
      case kEndGroup:
        return Bad(f.tag_at, kind, absl::StrCat("end-group tag without a start (field ", f.number, ")"));
      default:
        return Bad(f.tag_at, kind, absl::StrCat("invalid wire type ", f.wire, " (field ", f.number, ")"));
    }
    f.end = pos;
    return f;
  }

  void Copy(size_t from, size_t to, std::vector<uint8_t>* out) const {
    if (out != nullptr) out->insert(out->end(), bytes_.begin() + from, bytes_.begin() + to);
  }

  // Whether the first walk changed anything within [from, to).
  bool HasEdits(size_t from, size_t to) const {
    auto it = std::lower_bound(rewrite_edits_.begin(), rewrite_edits_.end(), from);
    return it != rewrite_edits_.end() && *it < to;
  }

  std::span<const uint8_t> bytes_;
  uint64_t min_payload_bytes_;
  std::vector<ScannedModel::Payload> payloads_;
  std::vector<size_t> edits_;          // tag offsets of fields dropped or replaced
  std::vector<size_t> rewrite_edits_;  // the first walk's, sorted
};

}  // namespace

absl::StatusOr<ScannedModel> ScanModel(std::span<const uint8_t> bytes, uint64_t min_payload_bytes) {
  Scanner scanner(bytes, min_payload_bytes);
  absl::Status s = scanner.Message(Kind::kModel, 0, bytes.size(), 0, nullptr);
  if (!s.ok()) return s;
  ScannedModel scanned;
  if (scanner.edits().empty()) return scanned;  // nothing elided: parse `bytes` as they are
  const size_t found = scanner.payloads().size();
  scanner.StartRewrite();
  s = scanner.Message(Kind::kModel, 0, bytes.size(), 0, &scanned.stripped);
  if (!s.ok()) return s;
  if (scanner.payloads().size() != found) return absl::InternalError("model scan: the two walks disagree");
  scanned.payloads = std::move(scanner.payloads());
  return scanned;
}

absl::StatusOr<std::optional<uint64_t>> FindPayloadMarker(std::string_view unknown_fields) {
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(unknown_fields.data()), unknown_fields.size());
  io_wire::WireReader r(bytes);
  std::optional<uint64_t> marker;
  while (!r.done()) {
    absl::StatusOr<uint64_t> tag = r.Varint();
    if (!tag.ok()) return tag.status();
    const uint32_t wire = static_cast<uint32_t>(*tag & 7);
    const uint64_t number = *tag >> 3;
    if (number == kPayloadMarkerField && wire == kVarint) {
      absl::StatusOr<uint64_t> v = r.Varint();
      if (!v.ok()) return v.status();
      marker = *v;
      continue;
    }
    absl::Status s = r.Skip(wire, static_cast<uint32_t>(number));
    if (!s.ok()) return s;
  }
  return marker;
}

}  // namespace tessera::onnx_import
