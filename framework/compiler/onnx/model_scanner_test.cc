// The model scanner (model_scanner.h) on protobuf bytes written by hand:
// every tag is (field number << 3) | wire type, from the field numbers of
// /usr/include/onnx/onnx.proto, so the tests do not lean on libprotobuf to
// say what the bytes are. libprotobuf then parses what the scan leaves, to
// check that the markers land where the importer looks for them.
#include "framework/compiler/onnx/model_scanner.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <onnx.pb.h>
#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/model_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera::onnx_import {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Bytes = std::vector<uint8_t>;

// Wire types.
constexpr uint32_t kVarint = 0, kFixed64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5;
// onnx.proto field numbers.
constexpr uint32_t kModelIrVersion = 1, kModelGraph = 7;
constexpr uint32_t kGraphNode = 1, kGraphName = 2, kGraphInitializer = 5;
constexpr uint32_t kNodeInput = 1, kNodeOpType = 4, kNodeAttribute = 5;
constexpr uint32_t kAttrName = 1, kAttrT = 5, kAttrG = 6, kAttrTensors = 10, kAttrType = 20;
constexpr uint32_t kTensorDims = 1, kTensorDataType = 2, kTensorFloatData = 4, kTensorName = 8, kTensorRawData = 9;

uint64_t Tag(uint32_t field, uint32_t wire) { return (uint64_t{field} << 3) | wire; }

Bytes Varint(uint64_t v) {
  Bytes out;
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
  return out;
}

Bytes Cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Bytes Str(const std::string& s) { return Bytes(s.begin(), s.end()); }
Bytes VarintField(uint32_t field, uint64_t v) { return Cat({Varint(Tag(field, kVarint)), Varint(v)}); }
Bytes Len(uint32_t field, const Bytes& content) {
  return Cat({Varint(Tag(field, kLen)), Varint(content.size()), content});
}
Bytes Marker(uint64_t index) { return VarintField(kPayloadMarkerField, index); }

// 8 bytes that are not a valid anything, so a payload copied by mistake shows.
const Bytes kPayload = {0xde, 0xad, 0xbe, 0xef, 0x00, 0x80, 0xff, 0x7f};

// A float initializer named `name`: dims [2], FLOAT, then `data`.
Bytes Tensor(const std::string& name, const Bytes& data) {
  return Cat({VarintField(kTensorDims, 2), VarintField(kTensorDataType, 1), Len(kTensorName, Str(name)), data});
}
Bytes Model(const Bytes& graph) { return Cat({VarintField(kModelIrVersion, 8), Len(kModelGraph, graph)}); }

size_t Find(const Bytes& haystack, const Bytes& needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end());
  return it == haystack.end() ? std::string::npos : static_cast<size_t>(it - haystack.begin());
}

std::string Error(const Bytes& bytes, uint64_t min = 0) {
  absl::StatusOr<ScannedModel> s = ScanModel(bytes, min);
  return s.ok() ? "OK" : std::string(s.status().message());
}

TEST(ModelScanner, ElidesAnInitializersRawData) {
  const Bytes model = Model(Len(kGraphInitializer, Tensor("w", Len(kTensorRawData, kPayload))));
  absl::StatusOr<ScannedModel> s = ScanModel(model, 8);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->payloads.size(), 1u);
  EXPECT_EQ(s->payloads[0].offset, Find(model, kPayload));
  EXPECT_EQ(s->payloads[0].size, kPayload.size());
  // Every enclosing length shrinks with it.
  EXPECT_EQ(s->stripped, Model(Len(kGraphInitializer, Tensor("w", Marker(0)))));

  // What libprotobuf makes of it: no raw_data, the marker among the
  // TensorProto's unknown fields.
  onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromArray(s->stripped.data(), static_cast<int>(s->stripped.size())));
  ASSERT_EQ(proto.graph().initializer_size(), 1);
  const onnx::TensorProto& t = proto.graph().initializer(0);
  EXPECT_EQ(t.name(), "w");
  EXPECT_FALSE(t.has_raw_data());
  absl::StatusOr<std::optional<uint64_t>> marker = FindPayloadMarker(t.unknown_fields());
  ASSERT_TRUE(marker.ok());
  EXPECT_EQ(*marker, std::optional<uint64_t>(0));

  // ParseModelElided: the payload is a span of the input, not a copy.
  absl::StatusOr<ParsedModel> parsed = ParseModelElided(model, 8);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->payloads.size(), 1u);
  EXPECT_EQ(parsed->payloads[0].data(), model.data() + Find(model, kPayload));
  EXPECT_EQ(parsed->payloads[0].size(), kPayload.size());
}

TEST(ModelScanner, KeepsPayloadsBelowTheThreshold) {
  const Bytes model = Model(Len(kGraphInitializer, Tensor("w", Len(kTensorRawData, kPayload))));
  absl::StatusOr<ScannedModel> s = ScanModel(model, 9);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->payloads.empty());
  EXPECT_TRUE(s->stripped.empty());  // nothing changed: the input parses as it is
}

TEST(ModelScanner, RawDataAbsentFloatDataStays) {
  // float_data (4), packed: two floats, 8 bytes.
  const Bytes floats = Len(kTensorFloatData, {0, 0, 0x80, 0x3f, 0, 0, 0, 0x40});
  const Bytes model = Model(Len(kGraphInitializer, Tensor("w", floats)));
  absl::StatusOr<ScannedModel> s = ScanModel(model, 0);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->payloads.empty());
  EXPECT_TRUE(s->stripped.empty());
}

TEST(ModelScanner, RefusesATruncatedVarint) {
  // At the top level: a tag whose continuation bit runs off the end.
  Bytes model = Model(Len(kGraphInitializer, Tensor("w", Len(kTensorRawData, kPayload))));
  model.push_back(0x80);
  EXPECT_THAT(Error(model),
              HasSubstr(absl::StrCat("at byte ", model.size() - 1, " (in a ModelProto): truncated varint")));
  // Inside a TensorProto: its last byte starts a varint (dims) the tensor's
  // length does not cover, although the file goes on.
  const Bytes tensor = Cat({Tensor("w", Len(kTensorRawData, kPayload)), Varint(Tag(kTensorDims, kVarint)), {0x81}});
  const Bytes nested = Cat({Model(Len(kGraphInitializer, tensor)), Len(kGraphName, Str("after"))});
  const std::string e = Error(nested);
  EXPECT_THAT(e, HasSubstr("(in a TensorProto): truncated varint"));
  EXPECT_THAT(e, HasSubstr(absl::StrCat("at byte ", Find(nested, Bytes{0x81}))));
  // Ten continuation bytes: longer than any varint.
  // Ten bytes, the tenth with its continuation bit (and a value bit that
  // still fits 64 bits): longer than any varint.
  EXPECT_THAT(Error(Cat({Varint(Tag(kModelIrVersion, kVarint)), Bytes(9, 0xff), {0x81, 0x01}})),
              HasSubstr("varint longer than 10 bytes"));
  EXPECT_THAT(Error(Cat({Varint(Tag(kModelIrVersion, kVarint)), Bytes(9, 0xff), {0x02}})),
              HasSubstr("varint overflows 64 bits"));
}

TEST(ModelScanner, RefusesALengthPastTheEnd) {
  // The graph says 1000 bytes; the file has far fewer.
  const Bytes graph = Len(kGraphInitializer, Tensor("w", Len(kTensorRawData, kPayload)));
  const Bytes model = Cat({VarintField(kModelIrVersion, 8), Varint(Tag(kModelGraph, kLen)), Varint(1000), graph});
  EXPECT_THAT(Error(model), HasSubstr("(in a ModelProto): field 7 has length 1000, past the end of the file"));
  // A raw_data longer than its TensorProto, but not than the file (the
  // graph name follows): past the end of its message.
  const Bytes tensor = Cat({Tensor("w", {}), Varint(Tag(kTensorRawData, kLen)), Varint(20), kPayload});
  const Bytes nested = Model(Cat({Len(kGraphInitializer, tensor), Len(kGraphName, Str("a long graph name"))}));
  EXPECT_THAT(Error(nested), HasSubstr("(in a TensorProto): field 9 has length 20, past the end of its message"));
  // A truncated fixed64.
  EXPECT_THAT(Error(Cat({Varint(Tag(3, kFixed64)), {1, 2, 3}})), HasSubstr("truncated fixed64"));
}

TEST(ModelScanner, RefusesWhatProtobufRefuses) {
  EXPECT_THAT(Error(VarintField(0, 1)), HasSubstr("field number 0"));
  EXPECT_THAT(Error(Cat({Varint(Tag(3, 6)), {0}})), HasSubstr("invalid wire type 6"));
  EXPECT_THAT(Error(Varint(Tag(3, kEndGroup))), HasSubstr("end-group tag without a start"));
  EXPECT_THAT(Error(Cat({Varint(Tag(3, kStartGroup)), VarintField(1, 1)})), HasSubstr("unterminated group"));
  EXPECT_THAT(Error(Cat({Varint(Tag(3, kStartGroup)), Varint(Tag(4, kEndGroup))})),
              HasSubstr("end-group tag does not match its start"));
  EXPECT_THAT(Error(Varint(uint64_t{1} << 35)), HasSubstr("field tag overflows 32 bits"));
  // The CLI's "not ONNX" case (cli_bad_input_test).
  EXPECT_THAT(Error({0xff, 0xff, 0xff, 0xff, 0x01}), HasSubstr("not a valid ONNX ModelProto"));
}

TEST(ModelScanner, SkipsNestedUnknownFields) {
  // Unknown fields of every wire type at each walked level, one of them a
  // message that looks like a graph with a raw_data (field 99 is on no
  // walked path: copied, not scanned for payloads).
  const Bytes lookalike = Len(kGraphInitializer, Tensor("not_walked", Len(kTensorRawData, kPayload)));
  const Bytes group = Cat({Varint(Tag(40, kStartGroup)), VarintField(1, 5), Len(2, Str("in a group")),
                           Varint(Tag(3, kStartGroup)), Varint(Tag(3, kEndGroup)), Varint(Tag(40, kEndGroup))});
  const Bytes fixed = Cat({Varint(Tag(41, kFixed32)), {1, 2, 3, 4}, Varint(Tag(42, kFixed64)), Bytes(8, 7)});
  const auto tensor = [&](const Bytes& raw) {
    return Cat({group, Tensor("w", Cat({Len(15, Len(1, Str("nested"))), raw})), fixed});
  };
  const auto model = [&](const Bytes& raw) {
    return Cat({Len(99, lookalike), group,
                Len(kModelGraph, Cat({fixed, Len(kGraphInitializer, tensor(raw)), Len(77, lookalike)})), fixed});
  };
  const Bytes input = model(Len(kTensorRawData, kPayload));
  absl::StatusOr<ScannedModel> s = ScanModel(input, 8);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->payloads.size(), 1u);
  // The payload inside the walked tensor, after the lookalike's copy of it.
  EXPECT_EQ(s->payloads[0].offset, Find(input, Cat({Len(kTensorRawData, kPayload), fixed})) + 2);
  EXPECT_EQ(s->stripped, model(Marker(0)));
}

TEST(ModelScanner, FindsTensorAttributesAndSubgraphInitializers) {
  const Bytes p1(16, 1), p2(16, 2), p3(16, 3), p4(16, 4);
  // Constant's value (t), a tensors list, and an If branch (g) with an initializer.
  const Bytes value = Len(kNodeAttribute, Cat({Len(kAttrName, Str("value")), VarintField(kAttrType, 4),
                                               Len(kAttrT, Tensor("", Len(kTensorRawData, p1)))}));
  const Bytes list =
      Len(kNodeAttribute, Cat({Len(kAttrName, Str("list")), Len(kAttrTensors, Tensor("a", Len(kTensorRawData, p2))),
                               Len(kAttrTensors, Tensor("b", Len(kTensorRawData, p3)))}));
  const Bytes branch =
      Len(kNodeAttribute, Cat({Len(kAttrName, Str("then_branch")),
                               Len(kAttrG, Len(kGraphInitializer, Tensor("c", Len(kTensorRawData, p4))))}));
  const Bytes node =
      Len(kGraphNode, Cat({Len(kNodeInput, Str("x")), Len(kNodeOpType, Str("Constant")), value, list, branch}));
  const Bytes model = Model(node);
  absl::StatusOr<ScannedModel> s = ScanModel(model, 16);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->payloads.size(), 4u);
  const std::vector<Bytes> expected = {p1, p2, p3, p4};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(s->payloads[i].offset, Find(model, expected[i])) << i;
    EXPECT_EQ(s->payloads[i].size, 16u);
  }
  onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromArray(s->stripped.data(), static_cast<int>(s->stripped.size())));
  const onnx::NodeProto& n = proto.graph().node(0);
  ASSERT_EQ(n.attribute_size(), 3);
  EXPECT_EQ(*FindPayloadMarker(n.attribute(0).t().unknown_fields()), std::optional<uint64_t>(0));
  EXPECT_EQ(*FindPayloadMarker(n.attribute(1).tensors(1).unknown_fields()), std::optional<uint64_t>(2));
  EXPECT_EQ(*FindPayloadMarker(n.attribute(2).g().initializer(0).unknown_fields()), std::optional<uint64_t>(3));
  EXPECT_FALSE(n.attribute(2).g().initializer(0).has_raw_data());
}

TEST(ModelScanner, TheLastRawDataIsThePayload) {
  // Protobuf keeps the last raw_data of a message: the scan elides that one
  // and drops the others.
  const Bytes first(8, 0x11);
  const Bytes model =
      Model(Len(kGraphInitializer,
                Tensor("w", Cat({Len(kTensorRawData, first), VarintField(3 + 11, 0), Len(kTensorRawData, kPayload)}))));
  absl::StatusOr<ScannedModel> s = ScanModel(model, 8);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->payloads.size(), 1u);
  EXPECT_EQ(s->payloads[0].offset, Find(model, kPayload));
  EXPECT_EQ(s->stripped, Model(Len(kGraphInitializer, Tensor("w", Cat({VarintField(14, 0), Marker(0)})))));
  // When the last one is small, everything stays as it is.
  const Bytes small_last =
      Model(Len(kGraphInitializer, Tensor("w", Cat({Len(kTensorRawData, kPayload), Len(kTensorRawData, {1})}))));
  s = ScanModel(small_last, 8);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->payloads.empty());
  EXPECT_TRUE(s->stripped.empty());
}

TEST(ModelScanner, DropsMarkersAlreadyInTheInput) {
  // A file cannot point the importer at a payload of its choosing.
  const Bytes model = Model(Len(kGraphInitializer, Tensor("w", Marker(7))));
  absl::StatusOr<ScannedModel> s = ScanModel(model, 8);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->payloads.empty());
  EXPECT_EQ(s->stripped, Model(Len(kGraphInitializer, Tensor("w", {}))));
}

TEST(ModelScanner, CopiesFieldsOfAnotherWireType) {
  // graph (7) as a varint: an unknown field to protobuf, not a graph.
  const Bytes model = Cat({VarintField(kModelGraph, 3), Len(kModelGraph, Len(kGraphName, Str("g")))});
  absl::StatusOr<ScannedModel> s = ScanModel(model, 0);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->payloads.empty());
  EXPECT_TRUE(s->stripped.empty());
}

TEST(ModelScanner, StopsDescendingPastTheDepthLimit) {
  // Graphs nested 40 deep through If branches, each with a payload: those
  // of the first kMaxScanDepth graphs are elided, deeper ones stay inline.
  Bytes graph;
  for (int level = 40; level >= 1; --level) {
    const Bytes init = Len(kGraphInitializer, Tensor("w", Len(kTensorRawData, Bytes(8, static_cast<uint8_t>(level)))));
    const Bytes node = level == 40
                           ? Bytes{}
                           : Len(kGraphNode, Len(kNodeAttribute, Cat({Len(kAttrName, Str("b")), Len(kAttrG, graph)})));
    graph = Cat({init, node});
  }
  const Bytes model = Model(graph);
  absl::StatusOr<ScannedModel> s = ScanModel(model, 8);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->payloads.size(), static_cast<size_t>(kMaxScanDepth));
  for (int i = 0; i < kMaxScanDepth; ++i)  // past the raw_data's tag and length
    EXPECT_EQ(s->payloads[i].offset, Find(model, Len(kTensorRawData, Bytes(8, static_cast<uint8_t>(i + 1)))) + 2) << i;
  EXPECT_EQ(Find(s->stripped, Bytes(8, 1)), std::string::npos);
  EXPECT_EQ(Find(s->stripped, Bytes(8, kMaxScanDepth)), std::string::npos);
  for (int level = kMaxScanDepth + 1; level <= 40; ++level)
    EXPECT_NE(Find(s->stripped, Bytes(8, static_cast<uint8_t>(level))), std::string::npos) << level;
}

TEST(ModelScanner, FindPayloadMarker) {
  EXPECT_EQ(*FindPayloadMarker(""), std::nullopt);
  const Bytes fields = Cat({VarintField(20, 1), Marker(3), Len(21, Str("x")), Marker(5)});
  EXPECT_EQ(*FindPayloadMarker(std::string(fields.begin(), fields.end())), std::optional<uint64_t>(5));
  EXPECT_FALSE(FindPayloadMarker(std::string("\x80", 1)).ok());
}

}  // namespace
}  // namespace tessera::onnx_import
