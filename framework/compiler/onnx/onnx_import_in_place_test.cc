// Large tensors imported in place (onnx_importer.h, model_scanner.h): an
// ONNX file's raw_data stays where it is, and the .tsr written from it is
// byte for byte the one written before (when every tensor went through
// libprotobuf and was copied three times): here against the old path
// (ImportOptions::large_payload_bytes = UINT64_MAX) and against SHA-256s of
// the files `tessera import` wrote at 45c16ba, before this change.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/initializers.h"
#include "framework/compiler/onnx/model_reader.h"
#include "framework/compiler/onnx/model_scanner.h"
#include "framework/compiler/onnx/onnx_importer.h"
#include "framework/core/base/sha256.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::OnnxModelBuilder;
using testing::RunReference;
using testing::SeededFloats;
using Bytes = std::vector<uint8_t>;

constexpr uint64_t kOldPath = std::numeric_limits<uint64_t>::max();

std::string Hex(const Sha256::Digest& d) {
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
}
std::string Sha(std::span<const uint8_t> bytes) {
  Sha256 h;
  h.Update(bytes);
  return Hex(h.Finish());
}

Bytes Serialized(const absl::StatusOr<Graph>& g) {
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return {};
  absl::StatusOr<Bytes> bytes = SerializeModel(*g);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : Bytes{};
}

std::string TempPath(const std::string& name) {
  return (fs::temp_directory_path() / absl::StrCat("in_place_", getpid(), "_", name)).string();
}

void WriteFile(const std::string& path, const Bytes& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

Bytes ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

// The hand encoding of bench/make_weight_model.py (the weight-scaling benchmark
// model), for `mb` = 1: x [1, 1024] · w [1024, 256], f32 raw_data.
Bytes Varint(uint64_t v) {
  Bytes out;
  for (; v >= 0x80; v >>= 7) out.push_back(static_cast<uint8_t>(v | 0x80));
  out.push_back(static_cast<uint8_t>(v));
  return out;
}
Bytes Cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
Bytes VInt(uint32_t field, uint64_t v) { return Cat({Varint(uint64_t{field} << 3), Varint(v)}); }
Bytes Ld(uint32_t field, const Bytes& payload) {
  return Cat({Varint((uint64_t{field} << 3) | 2), Varint(payload.size()), payload});
}
Bytes Ld(uint32_t field, const std::string& s) { return Ld(field, Bytes(s.begin(), s.end())); }
Bytes ValueInfo(const std::string& name, std::initializer_list<int64_t> dims) {
  Bytes shape;
  for (int64_t d : dims) shape = Cat({shape, Ld(1, VInt(1, static_cast<uint64_t>(d)))});
  return Cat({Ld(1, name), Ld(2, Ld(1, Cat({VInt(1, 1), Ld(2, shape)})))});
}
Bytes WeightModel(int mb) {
  const int64_t k = 1024, n = int64_t{mb} * 1024 * 1024 / (4 * k);
  Bytes row(4 * n);
  for (int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>((i * 37) % 201 - 100) / 1024.0f;
    std::memcpy(row.data() + 4 * i, &v, 4);
  }
  Bytes raw;
  for (int64_t r = 0; r < k; ++r) raw.insert(raw.end(), row.begin(), row.end());
  const Bytes tensor = Cat({VInt(1, k), VInt(1, n), VInt(2, 1), Ld(8, "w"), Ld(9, raw)});
  const Bytes node = Cat({Ld(1, "x"), Ld(1, "w"), Ld(2, "y"), Ld(3, "matmul"), Ld(4, "MatMul")});
  const Bytes graph = Cat(
      {Ld(1, node), Ld(2, "weights"), Ld(5, tensor), Ld(11, ValueInfo("x", {1, k})), Ld(12, ValueInfo("y", {1, n}))});
  return Cat({VInt(1, 8), Ld(8, Cat({Ld(1, ""), VInt(2, 17)})), Ld(7, graph)});
}

// `python3 bench/make_weight_model.py 1 m.onnx`, and what `tessera import
// m.onnx -o m.tsr` wrote at 45c16ba.
constexpr char kWeightModelOnnxSha[] = "714541fa854888c4170c3ff677b407a5953c887cb034b6704305f6052e1631ce";
constexpr char kWeightModelTsrSha[] = "33e56f50d6378d7b09f84e57a987333848be6b9c4ed285bb129cb6eb6cd834c8";

TEST(OnnxImportInPlace, BenchModelWritesTheFileOfBefore) {
  const Bytes onnx = WeightModel(1);
  EXPECT_EQ(Sha(onnx), kWeightModelOnnxSha) << "the C++ port of make_weight_model.py drifted";
  const std::string in = TempPath("w1.onnx"), out = TempPath("w1.tsr");
  WriteFile(in, onnx);
  absl::StatusOr<Graph> g = ImportOnnxFile(in);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(WriteModelFile(*g, out).ok());
  EXPECT_EQ(Sha(ReadFile(out)), kWeightModelTsrSha);
  // The old path writes the same bytes.
  ImportOptions old;
  old.large_payload_bytes = kOldPath;
  EXPECT_EQ(Serialized(ImportOnnxBytes(onnx, old)), ReadFile(out));
  std::remove(in.c_str());
  std::remove(out.c_str());
}

// Raw f32 data of `t`, as a TensorProto initializer's raw_data.
onnx::TensorProto* RawInit(OnnxModelBuilder& b, const std::string& name, const HostTensor& t) {
  onnx::TensorProto* p = b.model().mutable_graph()->add_initializer();
  p->set_name(name);
  p->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : t.shape) p->add_dims(d);
  p->set_raw_data(std::string(t.data.begin(), t.data.end()));
  return p;
}

// y = x·W + x·Transpose(W2·½) + x·C, reshaped to [32]: W and W2
// initializers, C a Constant node's value, 8 KiB each (above the default
// threshold); W2·½ and its Transpose fold at import, the Mul reading W2's
// floats through the reference kernels; ½ (float_data) and the Reshape's
// shape are small initializers (the old path).
Bytes ThreeWeightModel() {
  OnnxModelBuilder b(13);
  b.Input("x", onnx::TensorProto::FLOAT, {1, 64});
  RawInit(b, "W", SeededFloats({64, 32}, 1));
  RawInit(b, "W2", SeededFloats({32, 64}, 2));
  b.Int64Init("shape", {1}, {32});
  b.FloatInit("half", {}, {0.5f});
  onnx::NodeProto& c = b.Node("Constant", {}, {"C"}, "c");
  onnx::AttributeProto* value = c.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  const HostTensor ct = SeededFloats({64, 32}, 3);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : ct.shape) value->mutable_t()->add_dims(d);
  value->mutable_t()->set_raw_data(std::string(ct.data.begin(), ct.data.end()));
  b.Node("MatMul", {"x", "W"}, {"a"});
  b.Node("Mul", {"W2", "half"}, {"W2h"});
  b.Node("Transpose", {"W2h"}, {"W2t"});
  b.Node("MatMul", {"x", "W2t"}, {"b"});
  b.Node("MatMul", {"x", "C"}, {"c_out"});
  b.Node("Add", {"a", "b"}, {"ab"});
  b.Node("Add", {"ab", "c_out"}, {"abc"});
  b.Node("Reshape", {"abc", "shape"}, {"y"});
  b.Output("y");
  return b.Bytes();
}

// What `tessera import` wrote for ThreeWeightModel() at 45c16ba.
constexpr char kThreeWeightTsrSha[] = "6337134d185daf340b968702e56f4caa13cc3716e1d79daace032027fb0fa60d";

// Payloads of ThreeWeightModel() in file order (protobuf writes a graph's
// nodes, field 1, before its initializers, field 5).
constexpr size_t kPayloadW = 1, kPayloadW2 = 2;  // C's is 0

// `bytes` at an address where the payload of index `payload` (file order)
// is odd, owned by the returned buffer.
std::pair<std::span<const uint8_t>, std::shared_ptr<const Bytes>> AtOddAddress(const Bytes& bytes, size_t payload) {
  absl::StatusOr<ParsedModel> parsed = ParseModelElided(bytes, kDefaultLargePayloadBytes);
  EXPECT_TRUE(parsed.ok());
  const size_t offset = static_cast<size_t>(parsed->payloads.at(payload).data() - bytes.data());
  auto owned = std::make_shared<Bytes>(bytes.size() + 1);
  const size_t shift = (reinterpret_cast<uintptr_t>(owned->data()) + offset) % 2 == 0 ? 1 : 0;
  std::memcpy(owned->data() + shift, bytes.data(), bytes.size());
  return {std::span<const uint8_t>(owned->data() + shift, bytes.size()), owned};
}

TEST(OnnxImportInPlace, EveryPathWritesTheSameBytes) {
  const Bytes onnx = ThreeWeightModel();
  ImportOptions old;
  old.large_payload_bytes = kOldPath;
  const Bytes before = Serialized(ImportOnnxBytes(onnx, old));
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(Sha(before), kThreeWeightTsrSha);

  // Copied once (ImportOnnxBytes), every constant aligned.
  absl::StatusOr<Graph> copied = ImportOnnxBytes(onnx);
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_FALSE(HasUnalignedConstants(*copied));
  EXPECT_EQ(Serialized(copied), before);

  // Mapped (ImportOnnxFile).
  const std::string path = TempPath("three.onnx");
  WriteFile(path, onnx);
  EXPECT_EQ(Serialized(ImportOnnxFile(path)), before);
  std::remove(path.c_str());

  // In place at odd addresses (W2's payload odd: the Mul folds over a
  // misaligned view, through an aligned copy; without it UBSan reports a
  // misaligned load in the reference kernel).
  auto [view, owner] = AtOddAddress(onnx, kPayloadW2);
  absl::StatusOr<Graph> shared = ImportOnnxShared(view, owner);
  ASSERT_TRUE(shared.ok()) << shared.status();
  EXPECT_EQ(Serialized(shared), before);
  size_t in_place = 0;
  for (const Tensor& t : shared->tensors)
    if (t.is_constant && !t.data.empty() && t.data.data() >= owner->data() &&
        t.data.data() + t.data.size() <= owner->data() + owner->size())
      ++in_place;
  EXPECT_GE(in_place, 1u) << "no constant references the model's bytes";

  // Every payload left out of the parse, however small: the same file.
  ImportOptions all;
  all.large_payload_bytes = 0;
  EXPECT_EQ(Serialized(ImportOnnxShared(view, owner, all)), before);
  EXPECT_EQ(Serialized(ImportOnnxBytes(onnx, all)), before);
}

TEST(OnnxImportInPlace, AlignConstantsCopiesOnlyTheMisalignedOnes) {
  const Bytes onnx = ThreeWeightModel();
  auto [view, owner] = AtOddAddress(onnx, kPayloadW);
  absl::StatusOr<Graph> g = ImportOnnxShared(view, owner);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(HasUnalignedConstants(*g));
  Graph aligned = *g;
  size_t expected = 0;
  for (const Tensor& t : g->tensors)
    if (t.is_constant && !IsAlignedConstant(t.data)) expected += t.data.size();
  EXPECT_GE(expected, 64u * 32 * 4);  // W at least
  EXPECT_EQ(AlignConstants(aligned), expected);
  EXPECT_FALSE(HasUnalignedConstants(aligned));
  for (size_t i = 0; i < aligned.tensors.size(); ++i) {
    const Tensor& was = g->tensors[i];
    const Tensor& now = aligned.tensors[i];
    if (!now.is_constant || now.data.empty()) continue;
    if (IsAlignedConstant(was.data))
      EXPECT_EQ(now.data.data(), was.data.data()) << now.name << " copied for nothing";
    else
      EXPECT_EQ(reinterpret_cast<uintptr_t>(now.data.data()) % 64, 0u) << now.name;
  }
  EXPECT_EQ(Serialized(aligned), Serialized(g));

  // Aligned, it runs on the reference kernels as the old path's graph does.
  ImportOptions old;
  old.large_payload_bytes = kOldPath;
  absl::StatusOr<Graph> reference = ImportOnnxBytes(onnx, old);
  ASSERT_TRUE(reference.ok());
  const std::vector<HostTensor> x = {SeededFloats({1, 64}, 9)};
  absl::StatusOr<std::vector<HostTensor>> want = RunReference(*reference, x);
  absl::StatusOr<std::vector<HostTensor>> got = RunReference(aligned, x);
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_EQ((*got)[0].data, (*want)[0].data);
  // The views still point into the model's bytes: the graph keeps them.
  g = absl::InternalError("dropped");
  owner.reset();
  got = RunReference(aligned, x);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)[0].data, (*want)[0].data);
}

// A one-initializer model with `raw` as raw_data of an initializer of
// `dtype` and `dims`, fed to an Identity.
Bytes OneInitializer(int32_t dtype, std::vector<int64_t> dims, const Bytes& raw) {
  OnnxModelBuilder b(13);
  onnx::TensorProto* p = b.model().mutable_graph()->add_initializer();
  p->set_name("t");
  p->set_data_type(dtype);
  for (int64_t d : dims) p->add_dims(d);
  p->set_raw_data(std::string(raw.begin(), raw.end()));
  b.Node("Identity", {"t"}, {"y"});
  b.Output("y");
  return b.Bytes();
}

std::string ImportError(const Bytes& bytes, uint64_t large) {
  ImportOptions o;
  o.large_payload_bytes = large;
  absl::StatusOr<Graph> g = ImportOnnxBytes(bytes, o);
  return g.ok() ? "OK" : std::string(g.status().message());
}

TEST(OnnxImportInPlace, PayloadsAreCheckedAsBefore) {
  // For each: the old path's error, and the same from the payload path.
  Bytes bools(2048, 1);
  bools[5] = 2;
  const Bytes bad_bool = OneInitializer(onnx::TensorProto::BOOL, {2048}, bools);
  EXPECT_THAT(ImportError(bad_bool, kOldPath), HasSubstr("bool raw_data[5] = 2 is not 0 or 1"));
  EXPECT_EQ(ImportError(bad_bool, 0), ImportError(bad_bool, kOldPath));
  const Bytes short_raw = OneInitializer(onnx::TensorProto::FLOAT, {1024}, Bytes(4092, 0));
  EXPECT_THAT(ImportError(short_raw, kOldPath), HasSubstr("raw_data holds 4092 bytes, dims need 1024 elements"));
  EXPECT_EQ(ImportError(short_raw, 0), ImportError(short_raw, kOldPath));
  const Bytes good = OneInitializer(onnx::TensorProto::FLOAT, {1024}, Bytes(4096, 0));
  EXPECT_EQ(ImportError(good, 0), "OK");
}

TEST(OnnxImportInPlace, AMergedTensorWithTwoRawDataIsRefused) {
  // A Constant whose value (AttributeProto.t, a singular message) is given
  // twice: protobuf merges the two, and the second raw_data (8 bytes, with
  // dims [2] and FLOAT) replaces the first (32 bytes, alone). With the first
  // left out of the parse, which raw_data came last is unknown: the import
  // refuses the tensor.
  const Bytes attr = Cat({Ld(1, "value"), VInt(20, 4), Ld(5, Ld(9, Bytes(32, 0))),
                          Ld(5, Cat({VInt(1, 2), VInt(2, 1), Ld(9, Bytes(8, 0))}))});
  const Bytes node = Cat({Ld(2, "y"), Ld(4, "Constant"), Ld(5, attr)});
  const Bytes model = Cat({VInt(1, 8), Ld(8, VInt(2, 13)), Ld(7, Cat({Ld(1, node), Ld(12, Ld(1, "y"))}))});
  EXPECT_EQ(ImportError(model, kOldPath), "OK");
  EXPECT_THAT(ImportError(model, 16), HasSubstr("raw_data given more than once"));
  EXPECT_EQ(ImportError(model, 64), "OK");  // nothing left out
}

// A model whose tensors all go through the scan and the payload views
// (large_payload_bytes = 0), cut at every byte and flipped at every byte:
// any status, never a crash (nor, under ASan/UBSan, a bad read).
TEST(OnnxImportInPlace, CutAndFlippedModelsNeverCrash) {
  OnnxModelBuilder b(13);
  b.Input("x", onnx::TensorProto::FLOAT, {1, 8});
  RawInit(b, "w", SeededFloats({8, 4}, 4));
  onnx::NodeProto& c = b.Node("Constant", {}, {"bias"});
  onnx::AttributeProto* value = c.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value->mutable_t()->add_dims(4);
  value->mutable_t()->set_raw_data(std::string(16, '\0'));
  b.Node("MatMul", {"x", "w"}, {"m"});
  b.Node("Add", {"m", "bias"}, {"y"});
  b.Output("y");
  const Bytes bytes = b.Bytes();
  ImportOptions all;
  all.large_payload_bytes = 0;
  auto import = [&](Bytes input) {
    auto owned = std::make_shared<const Bytes>(std::move(input));
    absl::StatusOr<Graph> g = ImportOnnxShared(*owned, owned, all);
    if (g.ok()) (void)SerializeModel(*g);
  };
  const auto whole = std::make_shared<const Bytes>(bytes);
  absl::StatusOr<Graph> g = ImportOnnxShared(*whole, whole, all);
  ASSERT_TRUE(g.ok()) << g.status();
  for (size_t n = 0; n < bytes.size(); ++n) import(Bytes(bytes.begin(), bytes.begin() + n));
  for (size_t i = 0; i < bytes.size(); ++i) {
    Bytes flipped = bytes;
    flipped[i] ^= 0x5a;
    import(flipped);
  }
}

TEST(OnnxImportInPlace, AMarkerWithoutPayloadsIsRefused) {
  onnx::TensorProto t;
  t.set_name("t");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(1);
  const Bytes marker = Cat({Varint(uint64_t{kPayloadMarkerField} << 3), Varint(0)});
  t.mutable_unknown_fields()->append(marker.begin(), marker.end());
  EXPECT_THAT(std::string(ConvertTensorProto(t).status().message()), HasSubstr("unknown payload marker 0"));
  ModelPayloads none;
  EXPECT_THAT(std::string(ConvertTensorProto(t, &none).status().message()), HasSubstr("unknown payload marker 0"));
  const Bytes four(4, 0);
  ModelPayloads one{{std::span<const uint8_t>(four)}, nullptr};
  absl::StatusOr<HostTensor> h = ConvertTensorProto(t, &one);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->data, four);
}

}  // namespace
}  // namespace tessera::onnx_import
