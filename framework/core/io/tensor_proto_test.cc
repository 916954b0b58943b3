#include "framework/core/io/tensor_proto.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A tiny protobuf encoder for hand-built inputs.
struct Pb {
  std::vector<uint8_t> b;
  Pb& Varint(uint64_t v) {
    while (v >= 0x80) {
      b.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    b.push_back(static_cast<uint8_t>(v));
    return *this;
  }
  Pb& Tag(uint32_t field, uint32_t wire) { return Varint((uint64_t{field} << 3) | wire); }
  Pb& VarintField(uint32_t field, uint64_t v) { return Tag(field, 0).Varint(v); }
  Pb& Fixed32Field(uint32_t field, uint32_t v) {
    Tag(field, 5);
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Pb& Fixed64Field(uint32_t field, uint64_t v) {
    Tag(field, 1);
    for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Pb& Bytes(uint32_t field, const std::vector<uint8_t>& data) {
    Tag(field, 2).Varint(data.size());
    b.insert(b.end(), data.begin(), data.end());
    return *this;
  }
  Pb& Str(uint32_t field, const std::string& s) { return Bytes(field, std::vector<uint8_t>(s.begin(), s.end())); }
  Pb& PackedVarints(uint32_t field, const std::vector<uint64_t>& values) {
    Pb inner;
    for (uint64_t v : values) inner.Varint(v);
    return Bytes(field, inner.b);
  }
};

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

template <typename T>
std::vector<uint8_t> RawBytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> Values(const HostTensor& t) {
  std::vector<T> out(t.data.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), t.data.data(), out.size() * sizeof(T));
  return out;
}

absl::StatusOr<HostTensor> Parse(const Pb& pb) { return ParseTensorProto(pb.b); }

// ---------------------------------------------------------------------------
// Hand-built inputs
// ---------------------------------------------------------------------------

TEST(TensorProtoTest, FloatUnpackedDimsAndFloatData) {
  Pb pb;
  pb.VarintField(1, 2).VarintField(1, 3).VarintField(2, 1).Str(8, "x");
  for (int i = 0; i < 6; ++i) pb.Fixed32Field(4, FloatBits(0.5f * i));
  absl::StatusOr<HostTensor> t = Parse(pb);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->name, "x");
  EXPECT_EQ(t->dtype, TSR_DTYPE_F32);
  EXPECT_EQ(t->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<float>(*t), (std::vector<float>{0, 0.5f, 1, 1.5f, 2, 2.5f}));
}

TEST(TensorProtoTest, FloatPackedDimsAndPackedFloatData) {
  std::vector<float> v{1.f, -2.f, 3.25f, 4.f};
  Pb pb;
  pb.PackedVarints(1, {2, 2}).VarintField(2, 1).Bytes(4, RawBytes(v));
  absl::StatusOr<HostTensor> t = Parse(pb);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Values<float>(*t), v);
}

TEST(TensorProtoTest, FieldsInAnyOrderAndRawData) {
  std::vector<float> v{7.f, 8.f, 9.f};
  Pb pb;
  pb.Bytes(9, RawBytes(v)).Str(8, "late").VarintField(2, 1).VarintField(1, 3);
  absl::StatusOr<HostTensor> t = Parse(pb);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->name, "late");
  EXPECT_EQ(Values<float>(*t), v);
}

TEST(TensorProtoTest, Int32DataCarriesNarrowTypes) {
  {  // int8, negative values as sign-extended 10-byte varints
    Pb pb;
    pb.VarintField(1, 4).VarintField(2, 3);
    for (int64_t x : {-128, -1, 0, 127}) pb.VarintField(5, static_cast<uint64_t>(x));
    absl::StatusOr<HostTensor> t = Parse(pb);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->dtype, TSR_DTYPE_I8);
    EXPECT_EQ(Values<int8_t>(*t), (std::vector<int8_t>{-128, -1, 0, 127}));
  }
  {  // uint8, packed
    Pb pb;
    pb.VarintField(1, 3).VarintField(2, 2).PackedVarints(5, {0, 200, 255});
    absl::StatusOr<HostTensor> t = Parse(pb);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->dtype, TSR_DTYPE_U8);
    EXPECT_EQ(t->data, (std::vector<uint8_t>{0, 200, 255}));
  }
  {  // bool
    Pb pb;
    pb.VarintField(1, 2).VarintField(2, 9).PackedVarints(5, {1, 0});
    absl::StatusOr<HostTensor> t = Parse(pb);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->dtype, TSR_DTYPE_BOOL);
    EXPECT_EQ(t->data, (std::vector<uint8_t>{1, 0}));
  }
  {  // float16 bits
    Pb pb;
    pb.VarintField(1, 2).VarintField(2, 10).PackedVarints(5, {0x3c00, 0xc000});
    absl::StatusOr<HostTensor> t = Parse(pb);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->dtype, TSR_DTYPE_F16);
    EXPECT_EQ(Values<uint16_t>(*t), (std::vector<uint16_t>{0x3c00, 0xc000}));
  }
  {  // int32
    Pb pb;
    pb.VarintField(1, 2).VarintField(2, 6).VarintField(5, static_cast<uint64_t>(int64_t{-5})).VarintField(5, 70000);
    absl::StatusOr<HostTensor> t = Parse(pb);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->dtype, TSR_DTYPE_I32);
    EXPECT_EQ(Values<int32_t>(*t), (std::vector<int32_t>{-5, 70000}));
  }
}

TEST(TensorProtoTest, Int32DataOutOfRangeIsAnError) {
  Pb pb;
  pb.VarintField(1, 1).VarintField(2, 3).VarintField(5, 300);
  absl::StatusOr<HostTensor> t = Parse(pb);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("out of range for INT8"));
  Pb bad_bool;
  bad_bool.VarintField(1, 1).VarintField(2, 9).VarintField(5, 2);
  EXPECT_FALSE(Parse(bad_bool).ok());
}

TEST(TensorProtoTest, Int64DataPackedAndUnpacked) {
  Pb packed;
  packed.VarintField(1, 3).VarintField(2, 7).PackedVarints(7,
                                                           {static_cast<uint64_t>(int64_t{-1}), uint64_t{1} << 40, 5});
  absl::StatusOr<HostTensor> t = Parse(packed);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype, TSR_DTYPE_I64);
  EXPECT_EQ(Values<int64_t>(*t), (std::vector<int64_t>{-1, int64_t{1} << 40, 5}));

  Pb unpacked;
  unpacked.VarintField(1, 2).VarintField(2, 7).VarintField(7, 9).VarintField(7, 10);
  t = Parse(unpacked);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(Values<int64_t>(*t), (std::vector<int64_t>{9, 10}));
}

TEST(TensorProtoTest, ScalarAndEmptyTensors) {
  Pb scalar;
  scalar.VarintField(2, 1).Fixed32Field(4, FloatBits(42.f));
  absl::StatusOr<HostTensor> t = Parse(scalar);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->shape.empty());
  EXPECT_EQ(Values<float>(*t), (std::vector<float>{42.f}));

  Pb empty;
  empty.VarintField(1, 0).VarintField(1, 3).VarintField(2, 1);
  t = Parse(empty);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(t->data.empty());

  Pb scalar_without_data;
  scalar_without_data.VarintField(2, 1);
  EXPECT_THAT(Parse(scalar_without_data).status().message(), HasSubstr("holds no data"));
}

TEST(TensorProtoTest, UnknownFieldsAreSkippedByWireType) {
  std::vector<float> v{1.f, 2.f};
  Pb pb;
  pb.VarintField(1, 2)
      .VarintField(100, 12345)                   // unknown varint
      .Fixed64Field(101, 0xdeadbeefcafef00dULL)  // unknown fixed64
      .Fixed32Field(102, 7)                      // unknown fixed32
      .Str(103, "ignored")                       // unknown length-delimited
      .Str(12, "doc string")                     // doc_string, ignored
      .VarintField(14, 0)                        // data_location DEFAULT
      .VarintField(2, 1);
  // An unknown group with a nested varint.
  pb.Tag(104, 3).VarintField(1, 5).Tag(104, 4);
  pb.Bytes(9, RawBytes(v));
  absl::StatusOr<HostTensor> t = Parse(pb);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(Values<float>(*t), v);
}

TEST(TensorProtoTest, UnsupportedContentsAreRefusedClearly) {
  Pb dbl;
  dbl.VarintField(1, 1).VarintField(2, 11).Fixed64Field(10, 0);
  EXPECT_THAT(Parse(dbl).status().message(), HasSubstr("unsupported ONNX data type 11 (DOUBLE)"));
  EXPECT_EQ(Parse(dbl).status().code(), absl::StatusCode::kUnimplemented);

  Pb bf16;
  bf16.VarintField(1, 1).VarintField(2, 16);
  EXPECT_THAT(Parse(bf16).status().message(), HasSubstr("unsupported ONNX data type 16 (BFLOAT16)"));

  Pb str;
  str.VarintField(1, 1).VarintField(2, 8).Str(6, "hello");
  EXPECT_THAT(Parse(str).status().message(), HasSubstr("string"));

  Pb segment;
  segment.Bytes(3, {8, 0, 16, 1}).VarintField(2, 1);
  EXPECT_THAT(Parse(segment).status().message(), HasSubstr("segment"));

  Pb external;
  external.VarintField(1, 1).VarintField(2, 1).Bytes(13, {10, 1, 'k', 18, 1, 'v'});
  EXPECT_THAT(Parse(external).status().message(), HasSubstr("external data"));

  Pb location;
  location.VarintField(1, 1).VarintField(2, 1).VarintField(14, 1);
  EXPECT_THAT(Parse(location).status().message(), HasSubstr("external data"));

  Pb undefined;
  undefined.VarintField(1, 1);
  EXPECT_THAT(Parse(undefined).status().message(), HasSubstr("no data_type"));
}

TEST(TensorProtoTest, ElementCountMustMatchDims) {
  Pb raw;
  raw.VarintField(1, 2).VarintField(1, 2).VarintField(2, 1).Bytes(9, std::vector<uint8_t>(12, 0));
  EXPECT_THAT(Parse(raw).status().message(), HasSubstr("raw_data holds 12 bytes"));

  Pb typed;
  typed.VarintField(1, 3).VarintField(2, 7).PackedVarints(7, {1, 2});
  EXPECT_THAT(Parse(typed).status().message(), HasSubstr("int64_data holds 2 elements, dims need 3"));

  Pb wrong_field;
  wrong_field.VarintField(1, 1).VarintField(2, 1).VarintField(7, 1);
  EXPECT_THAT(Parse(wrong_field).status().message(), HasSubstr("int64_data cannot carry a FLOAT tensor"));

  Pb both;
  both.VarintField(1, 1).VarintField(2, 1).Fixed32Field(4, 0).Bytes(9, {0, 0, 0, 0});
  EXPECT_THAT(Parse(both).status().message(), HasSubstr("both raw_data and float_data"));

  Pb negative;
  negative.VarintField(1, static_cast<uint64_t>(int64_t{-1})).VarintField(2, 1);
  EXPECT_THAT(Parse(negative).status().message(), HasSubstr("negative"));

  Pb huge;  // would need 2^62 * 2^62 elements: must not allocate or wrap
  huge.VarintField(1, uint64_t{1} << 62).VarintField(1, uint64_t{1} << 62).VarintField(2, 1);
  EXPECT_THAT(Parse(huge).status().message(), HasSubstr("overflow"));

  Pb big_no_data;  // a plausible count with no data behind it
  big_no_data.VarintField(1, uint64_t{1} << 40).VarintField(2, 1).Bytes(9, {0, 0, 0, 0});
  EXPECT_FALSE(Parse(big_no_data).ok());
}

TEST(TensorProtoTest, MalformedWireDataGivesClearErrors) {
  // Truncated varint.
  std::vector<uint8_t> bytes{0x08, 0x80};
  EXPECT_THAT(ParseTensorProto(bytes).status().message(), HasSubstr("truncated varint"));
  // Varint longer than 10 bytes.
  bytes = {0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  EXPECT_THAT(ParseTensorProto(bytes).status().message(), HasSubstr("varint"));
  // Length past the end.
  bytes = {0x4a, 0x10, 1, 2, 3};
  EXPECT_THAT(ParseTensorProto(bytes).status().message(), HasSubstr("runs past the end"));
  // Wrong wire type for a known field: name as varint.
  bytes = {0x40, 0x01};
  EXPECT_THAT(ParseTensorProto(bytes).status().message(), HasSubstr("wire type"));
  // float_data as varint.
  bytes = {0x20, 0x01};
  EXPECT_THAT(ParseTensorProto(bytes).status().message(), HasSubstr("wire type"));
  // Packed float_data not a multiple of 4.
  bytes = {0x22, 0x03, 1, 2, 3};
  EXPECT_THAT(ParseTensorProto(bytes).status().message(), HasSubstr("not a multiple of 4"));
  // Truncated fixed32 / fixed64.
  bytes = {0x25, 1, 2};
  EXPECT_THAT(ParseTensorProto(bytes).status().message(), HasSubstr("truncated fixed32"));
  bytes = {0x51, 1, 2};
  EXPECT_THAT(ParseTensorProto(bytes).status().message(), HasSubstr("truncated fixed64"));
  // Invalid wire types 6 and 7, field number 0, stray end-group.
  bytes = {0x0e};
  EXPECT_THAT(ParseTensorProto(bytes).status().message(), HasSubstr("wire type 6"));
  bytes = {0x7f};
  EXPECT_FALSE(ParseTensorProto(bytes).ok());
  bytes = {0x00, 0x01};
  EXPECT_THAT(ParseTensorProto(bytes).status().message(), HasSubstr("field number 0"));
  bytes = {0xa4, 0x06};  // end group, field 100
  EXPECT_THAT(ParseTensorProto(bytes).status().message(), HasSubstr("end-group"));
  bytes = {0xa3, 0x06, 0x08, 0x01};  // unterminated group
  EXPECT_THAT(ParseTensorProto(bytes).status().message(), HasSubstr("unterminated group"));
  // Truncated varint inside packed dims.
  bytes = {0x0a, 0x02, 0x05, 0x80};
  EXPECT_THAT(ParseTensorProto(bytes).status().message(), HasSubstr("packed dims"));
  // Empty input: no data type.
  EXPECT_FALSE(ParseTensorProto({}).ok());
}

// ---------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------

HostTensor MakeTensor(int32_t dtype, std::vector<int64_t> shape, size_t element_size, uint32_t seed) {
  HostTensor t;
  t.name = "t_" + std::to_string(dtype);
  t.dtype = dtype;
  t.shape = std::move(shape);
  size_t n = 1;
  for (int64_t d : t.shape) n *= static_cast<size_t>(d);
  t.data.resize(n * element_size);
  std::mt19937 rng(seed);
  for (uint8_t& b : t.data) b = static_cast<uint8_t>(rng());
  if (dtype == TSR_DTYPE_BOOL)
    for (uint8_t& b : t.data) b &= 1;
  return t;
}

struct DTypeCase {
  int32_t dtype;
  size_t size;
  int32_t onnx;
};
const DTypeCase kDTypes[] = {
    {TSR_DTYPE_F32, 4, 1}, {TSR_DTYPE_U8, 1, 2},   {TSR_DTYPE_I8, 1, 3},   {TSR_DTYPE_I32, 4, 6},
    {TSR_DTYPE_I64, 8, 7}, {TSR_DTYPE_BOOL, 1, 9}, {TSR_DTYPE_F16, 2, 10},
};

TEST(TensorProtoTest, RoundTripEveryDType) {
  for (const DTypeCase& c : kDTypes) {
    for (const std::vector<int64_t>& shape :
         {std::vector<int64_t>{}, std::vector<int64_t>{5}, std::vector<int64_t>{2, 3, 4}, std::vector<int64_t>{0, 7}}) {
      HostTensor t = MakeTensor(c.dtype, shape, c.size, static_cast<uint32_t>(c.dtype * 31 + shape.size()));
      std::vector<uint8_t> bytes = SerializeTensorProto(t);
      absl::StatusOr<HostTensor> back = ParseTensorProto(bytes);
      ASSERT_TRUE(back.ok()) << "dtype " << c.dtype << ": " << back.status();
      EXPECT_EQ(back->name, t.name);
      EXPECT_EQ(back->dtype, t.dtype);
      EXPECT_EQ(back->shape, t.shape);
      EXPECT_EQ(back->data, t.data);
      // The serialized form says the ONNX type.
      ASSERT_GE(bytes.size(), 2u);
      const size_t dtype_tag = shape.size() * 0;  // dims come first; find tag 0x10
      (void)dtype_tag;
      bool found = false;
      for (size_t i = 0; i + 1 < bytes.size(); ++i)
        if (bytes[i] == 0x10 && bytes[i + 1] == c.onnx) found = true;
      EXPECT_TRUE(found) << "dtype " << c.dtype;
    }
  }
}

TEST(TensorProtoTest, SerializedBytesAreCanonical) {
  HostTensor t{"ab", TSR_DTYPE_F32, {1, 2}, RawBytes(std::vector<float>{1.f, 2.f})};
  std::vector<uint8_t> expected{0x08, 0x01, 0x08, 0x02, 0x10, 0x01, 0x42, 0x02, 'a', 'b', 0x4a, 0x08};
  std::vector<uint8_t> raw = t.data;
  expected.insert(expected.end(), raw.begin(), raw.end());
  EXPECT_EQ(SerializeTensorProto(t), expected);
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("tessera_tensor_proto_test_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

TEST(TensorProtoTest, FileRoundTrip) {
  TempDir dir;
  HostTensor t = MakeTensor(TSR_DTYPE_I32, {3, 3}, 4, 7);
  ASSERT_TRUE(WriteTensorProtoFile(t, dir.file("t.pb")).ok());
  absl::StatusOr<HostTensor> back = ReadTensorProtoFile(dir.file("t.pb"));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->data, t.data);
  // No temporary left behind.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);

  EXPECT_EQ(ReadTensorProtoFile(dir.file("missing.pb")).status().code(), absl::StatusCode::kNotFound);
  HostTensor bad = t;
  bad.data.pop_back();
  EXPECT_THAT(WriteTensorProtoFile(bad, dir.file("bad.pb")).message(), HasSubstr("shape needs 36"));
  bad = t;
  bad.dtype = 99;
  EXPECT_THAT(WriteTensorProtoFile(bad, dir.file("bad.pb")).message(), HasSubstr("no ONNX equivalent"));
  EXPECT_FALSE(fs::exists(dir.file("bad.pb")));
  EXPECT_FALSE(WriteTensorProtoFile(t, dir.file("no/such/dir/t.pb")).ok());
  // A corrupted file names its path.
  {
    std::ofstream f(dir.file("junk.pb"), std::ios::binary);
    f << "\x0e";
  }
  absl::StatusOr<HostTensor> junk = ReadTensorProtoFile(dir.file("junk.pb"));
  ASSERT_FALSE(junk.ok());
  EXPECT_THAT(junk.status().message(), HasSubstr("junk.pb"));
}

// `run --outputs DIR` wrote through "<path>.tmp.<pid>", opened with
// O_TRUNC and following symlinks: a link planted there by another user let
// them overwrite any file the victim could write. The writer now uses an
// unpredictable O_EXCL temporary (WriteFileAtomically).
TEST(TensorProtoTest, WriteDoesNotFollowASymlinkAtThePredictableTemporaryName) {
  TempDir dir;
  const std::string victim = dir.file("victim");
  { std::ofstream(victim, std::ios::binary) << "precious"; }
  const std::string path = dir.file("output_0.pb");
  const std::string predictable = path + ".tmp." + std::to_string(::getpid());
  ASSERT_EQ(::symlink(victim.c_str(), predictable.c_str()), 0);
  const HostTensor t = MakeTensor(TSR_DTYPE_F32, {2, 2}, 4, 3);
  ASSERT_TRUE(WriteTensorProtoFile(t, path).ok());
  std::ifstream f(victim, std::ios::binary);
  std::string content((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "precious");
  absl::StatusOr<HostTensor> back = ReadTensorProtoFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->data, t.data);
}

// An input file larger than any encoding of its tensor is refused before
// it is read (the bound: 11 bytes per element, the widest unpacked varint,
// plus 64 KiB of name, dims and tags).
TEST(TensorProtoTest, FileLargerThanItsTensorCanTakeIsNotRead) {
  EXPECT_EQ(MaxTensorProtoFileBytes(std::vector<int64_t>{2, 3}), 6u * 11 + 65536);
  EXPECT_EQ(MaxTensorProtoFileBytes(std::vector<int64_t>{}), 11u + 65536);
  EXPECT_EQ(MaxTensorProtoFileBytes(std::vector<int64_t>{int64_t{1} << 62, 4}), UINT64_MAX);
  TempDir dir;
  const HostTensor t = MakeTensor(TSR_DTYPE_I64, {2, 3}, 8, 5);
  ASSERT_TRUE(WriteTensorProtoFile(t, dir.file("t.pb")).ok());
  const uint64_t size = fs::file_size(dir.file("t.pb"));
  EXPECT_TRUE(ReadTensorProtoFile(dir.file("t.pb"), size).ok());
  absl::StatusOr<HostTensor> refused = ReadTensorProtoFile(dir.file("t.pb"), size - 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("not read"));
  // The widest valid encoding of that tensor fits the bound: unpacked
  // int64_data of -1 (10-byte varints), each with its tag.
  std::vector<uint8_t> wide = {0x08, 0x02, 0x08, 0x03, 0x10, 0x07};  // dims 2, 3; INT64
  for (int i = 0; i < 6; ++i) {
    wide.push_back(0x38);  // field 7, varint
    for (int b = 0; b < 9; ++b) wide.push_back(0xff);
    wide.push_back(0x01);
  }
  ASSERT_TRUE(ParseTensorProto(wide).ok());
  EXPECT_LE(wide.size(), MaxTensorProtoFileBytes(std::vector<int64_t>{2, 3}));
}

TEST(TensorProtoTest, TensorSetRoundTrip) {
  TempDir dir;
  std::vector<HostTensor> inputs;
  for (int i = 0; i < 12; ++i)  // past 10, so ordering is numeric, not lexical
    inputs.push_back(MakeTensor(kDTypes[i % 7].dtype, {2, i + 1}, kDTypes[i % 7].size, i));
  std::vector<HostTensor> outputs{MakeTensor(TSR_DTYPE_F32, {4}, 4, 99)};
  const std::string set = dir.file("test_data_set_0");
  ASSERT_TRUE(WriteTensorSet(inputs, set, "input").ok());
  ASSERT_TRUE(WriteTensorSet(outputs, set, "output").ok());
  absl::StatusOr<std::vector<HostTensor>> in = ReadTensorSet(set, "input");
  absl::StatusOr<std::vector<HostTensor>> out = ReadTensorSet(set, "output");
  ASSERT_TRUE(in.ok()) << in.status();
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(in->size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ((*in)[i].dtype, inputs[i].dtype) << i;
    EXPECT_EQ((*in)[i].shape, inputs[i].shape) << i;
    EXPECT_EQ((*in)[i].data, inputs[i].data) << i;
  }
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].data, outputs[0].data);

  // Rewriting a shorter set removes the stale tail.
  inputs.resize(2);
  ASSERT_TRUE(WriteTensorSet(inputs, set, "input").ok());
  in = ReadTensorSet(set, "input");
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->size(), 2u);
  EXPECT_TRUE(fs::exists(set + "/output_0.pb"));

  // A gap is an error naming the missing file.
  fs::remove(set + "/input_0.pb");
  EXPECT_THAT(ReadTensorSet(set, "input").status().message(), HasSubstr("input_0.pb is missing"));
  // Missing directory, empty set, bad prefix.
  EXPECT_EQ(ReadTensorSet(dir.file("nope"), "input").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<std::vector<HostTensor>> none = ReadTensorSet(set, "nothing");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(ReadTensorSet(set, "").ok());
  EXPECT_FALSE(WriteTensorSet(inputs, set, "a/b").ok());
}

// ---------------------------------------------------------------------------
// Robustness
// ---------------------------------------------------------------------------

// ParseTensorProtoHeader: raw_data held elsewhere (the ONNX importer's
// payloads, model_scanner.h), checked as if it were in the message, never
// copied.
TEST(TensorProtoTest, HeaderWithRawDataHeldElsewhere) {
  Pb header;
  header.VarintField(1, 2).VarintField(1, 2).VarintField(2, 1).Str(8, "w");
  const std::vector<uint8_t> raw = RawBytes(std::vector<float>{1, 2, 3, 4});
  absl::StatusOr<HostTensor> t = ParseTensorProtoHeader(header.b, raw);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->name, "w");
  EXPECT_EQ(t->dtype, TSR_DTYPE_F32);
  EXPECT_EQ(t->shape, (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(t->data.empty());
  // The same tensor with its raw_data inside parses to the same, with data.
  Pb whole = header;
  whole.Bytes(9, raw);
  absl::StatusOr<HostTensor> full = ParseTensorProto(whole.b);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->data, raw);
  // Every check ParseTensorProto makes on raw_data.
  EXPECT_THAT(ParseTensorProtoHeader(header.b, std::span<const uint8_t>(raw).first(12)).status().message(),
              HasSubstr("raw_data holds 12 bytes, dims need 4 elements"));
  EXPECT_THAT(ParseTensorProtoHeader(whole.b, raw).status().message(), HasSubstr("raw_data twice"));
  Pb typed = header;
  for (int i = 0; i < 4; ++i) typed.Fixed32Field(4, FloatBits(1.0f));
  EXPECT_THAT(ParseTensorProtoHeader(typed.b, raw).status().message(), HasSubstr("both raw_data and float_data"));
  Pb bools;
  bools.VarintField(1, 3).VarintField(2, 9);
  EXPECT_TRUE(ParseTensorProtoHeader(bools.b, std::vector<uint8_t>{0, 1, 1}).ok());
  EXPECT_THAT(ParseTensorProtoHeader(bools.b, std::vector<uint8_t>{0, 3, 1}).status().message(),
              HasSubstr("bool raw_data[1] = 3 is not 0 or 1"));
  // No raw_data anywhere: as ParseTensorProto, the typed data or nothing.
  EXPECT_THAT(ParseTensorProtoHeader(header.b, {}).status().message(), HasSubstr("holds no data"));
}

TEST(TensorProtoTest, RandomMutationsAndTruncationsNeverCrash) {
  std::vector<std::vector<uint8_t>> seeds;
  for (const DTypeCase& c : kDTypes) seeds.push_back(SerializeTensorProto(MakeTensor(c.dtype, {2, 3}, c.size, 1)));
  {
    Pb pb;  // typed, packed and unpacked fields
    pb.PackedVarints(1, {2, 2}).VarintField(2, 7).PackedVarints(7, {1, 2}).VarintField(7, 3).VarintField(7, 4).Str(8,
                                                                                                                   "n");
    seeds.push_back(pb.b);
    Pb f;
    f.VarintField(1, 3).VarintField(2, 1).Fixed32Field(4, 1).Bytes(4, std::vector<uint8_t>(8, 0)).Str(12, "doc");
    seeds.push_back(f.b);
  }
  std::mt19937 rng(12345);
  size_t ok = 0, failed = 0;
  for (const std::vector<uint8_t>& seed : seeds) {
    for (size_t len = 0; len <= seed.size(); ++len) {
      absl::StatusOr<HostTensor> t = ParseTensorProto(std::span<const uint8_t>(seed.data(), len));
      (t.ok() ? ok : failed)++;
    }
    for (int iter = 0; iter < 1500; ++iter) {
      std::vector<uint8_t> m = seed;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !m.empty(); ++e) {
        const size_t at = rng() % m.size();
        switch (rng() % 4) {
          case 0:
            m[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
            break;
          case 1:
            m[at] = static_cast<uint8_t>(rng());
            break;
          case 2:
            m.insert(m.begin() + static_cast<ptrdiff_t>(at), static_cast<uint8_t>(rng()));
            break;
          default:
            m.resize(at);
            break;
        }
      }
      absl::StatusOr<HostTensor> t = ParseTensorProto(m);
      if (t.ok()) {
        ++ok;
        // A success is self-consistent.
        size_t n = 1;
        for (int64_t d : t->shape) {
          ASSERT_GE(d, 0);
          n *= static_cast<size_t>(d);
        }
        const size_t esize = t->dtype == TSR_DTYPE_F32 || t->dtype == TSR_DTYPE_I32 ? 4
                             : t->dtype == TSR_DTYPE_I64                            ? 8
                             : t->dtype == TSR_DTYPE_F16                            ? 2
                                                                                    : 1;
        EXPECT_EQ(t->data.size(), n * esize);
      } else {
        ++failed;
        EXPECT_FALSE(t.status().message().empty());
      }
    }
  }
  EXPECT_GT(ok, 0u);
  EXPECT_GT(failed, 0u);
}

// Every TensorProto of the ONNX backend node tests (Debian's
// libonnx-testdata): each parses or fails cleanly; most parse.
TEST(TensorProtoTest, OnnxBackendNodeTestData) {
  const fs::path root = "/usr/share/libonnx-testdata/data/node";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) GTEST_SKIP() << root << " absent (apt-get install libonnx-testdata)";
  size_t parsed = 0, unsupported = 0, other = 0, total = 0;
  std::vector<std::string> other_examples;
  for (const fs::directory_entry& test : fs::directory_iterator(root, ec)) {
    const fs::path set = test.path() / "test_data_set_0";
    if (!fs::is_directory(set, ec)) continue;
    for (const fs::directory_entry& file : fs::directory_iterator(set, ec)) {
      if (file.path().extension() != ".pb") continue;
      ++total;
      absl::StatusOr<HostTensor> t = ReadTensorProtoFile(file.path().string());
      if (t.ok()) {
        ++parsed;
      } else if (t.status().code() == absl::StatusCode::kUnimplemented) {
        ++unsupported;
      } else {
        // Sequence/optional protos in this directory are not TensorProtos.
        ++other;
        if (other_examples.size() < 5) other_examples.push_back(std::string(t.status().message()));
      }
    }
  }
  std::printf("ONNX node test data: %zu files, %zu parsed, %zu unsupported, %zu other errors\n", total, parsed,
              unsupported, other);
  for (const std::string& e : other_examples) std::printf("  e.g. %s\n", e.c_str());
  EXPECT_GT(total, 1000u);
  EXPECT_GT(parsed, total * 8 / 10);
  EXPECT_LT(other, total / 20);
}

}  // namespace
}  // namespace tessera
