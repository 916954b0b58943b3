#include "framework/core/io/tensor_proto.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "framework/core/base/atomic_file.h"
#include "framework/core/base/exception_boundary.h"
#include "framework/core/io/protobuf_wire.h"
#include "support/math/checked_math.h"
#include "tessera/common.h"

namespace tessera {
namespace {

using io_wire::Malformed;
using io_wire::PutBytes;
using io_wire::PutTag;
using io_wire::PutVarint;
using io_wire::WireReader;
using namespace io_wire::wire_types;

static_assert(std::endian::native == std::endian::little, "tensor_proto.cc assumes a little-endian host");

namespace fs = std::filesystem;

// ONNX TensorProto field numbers.
enum Field : uint32_t {
  kDims = 1,
  kDataType = 2,
  kSegment = 3,
  kFloatData = 4,
  kInt32Data = 5,
  kStringData = 6,
  kInt64Data = 7,
  kName = 8,
  kRawData = 9,
  kDoubleData = 10,
  kUint64Data = 11,
  kDocString = 12,
  kExternalData = 13,
  kDataLocation = 14,
};

// ONNX TensorProto.DataType values used here.
enum OnnxType : int32_t {
  kOnnxUndefined = 0,
  kOnnxFloat = 1,
  kOnnxUint8 = 2,
  kOnnxInt8 = 3,
  kOnnxInt32 = 6,
  kOnnxInt64 = 7,
  kOnnxBool = 9,
  kOnnxFloat16 = 10,
};

constexpr std::array<const char*, 24> kOnnxTypeNames = {
    "UNDEFINED", "FLOAT",        "UINT8",          "INT8",       "UINT16",         "INT16",  "INT32",     "INT64",
    "STRING",    "BOOL",         "FLOAT16",        "DOUBLE",     "UINT32",         "UINT64", "COMPLEX64", "COMPLEX128",
    "BFLOAT16",  "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",  "INT4",      "FLOAT4E2M1"};

const char* FieldName(uint32_t field) {
  switch (field) {
    case kDims:
      return "dims";
    case kDataType:
      return "data_type";
    case kSegment:
      return "segment";
    case kFloatData:
      return "float_data";
    case kInt32Data:
      return "int32_data";
    case kStringData:
      return "string_data";
    case kInt64Data:
      return "int64_data";
    case kName:
      return "name";
    case kRawData:
      return "raw_data";
    case kDoubleData:
      return "double_data";
    case kUint64Data:
      return "uint64_data";
    case kDocString:
      return "doc_string";
    case kExternalData:
      return "external_data";
    case kDataLocation:
      return "data_location";
    default:
      return "unknown";
  }
}

// tsr_dtype for a supported ONNX type, nullopt otherwise.
std::optional<int32_t> DTypeFromOnnx(int32_t onnx) {
  switch (onnx) {
    case kOnnxFloat:
      return TSR_DTYPE_F32;
    case kOnnxUint8:
      return TSR_DTYPE_U8;
    case kOnnxInt8:
      return TSR_DTYPE_I8;
    case kOnnxInt32:
      return TSR_DTYPE_I32;
    case kOnnxInt64:
      return TSR_DTYPE_I64;
    case kOnnxBool:
      return TSR_DTYPE_BOOL;
    case kOnnxFloat16:
      return TSR_DTYPE_F16;
    default:
      return std::nullopt;
  }
}

int32_t OnnxFromDType(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32:
      return kOnnxFloat;
    case TSR_DTYPE_U8:
      return kOnnxUint8;
    case TSR_DTYPE_I8:
      return kOnnxInt8;
    case TSR_DTYPE_I32:
      return kOnnxInt32;
    case TSR_DTYPE_I64:
      return kOnnxInt64;
    case TSR_DTYPE_BOOL:
      return kOnnxBool;
    case TSR_DTYPE_F16:
      return kOnnxFloat16;
    default:
      return kOnnxUndefined;
  }
}

size_t ElementSize(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32:
    case TSR_DTYPE_I32:
      return 4;
    case TSR_DTYPE_F16:
      return 2;
    case TSR_DTYPE_I8:
    case TSR_DTYPE_U8:
    case TSR_DTYPE_BOOL:
      return 1;
    case TSR_DTYPE_I64:
      return 8;
    default:
      return 0;
  }
}

// Appends the varints of a packed field (or one unpacked value) to `out`.
absl::Status ReadVarints(WireReader& r, uint32_t wire, uint32_t field, std::vector<uint64_t>& out) {
  if (wire == kVarint) {
    absl::StatusOr<uint64_t> v = r.Varint();
    if (!v.ok()) return v.status();
    out.push_back(*v);
    return absl::OkStatus();
  }
  if (wire == kLengthDelimited) {
    absl::StatusOr<std::span<const uint8_t>> packed = r.LengthDelimited();
    if (!packed.ok()) return packed.status();
    WireReader inner(*packed);
    const size_t base = r.pos() - packed->size();
    while (!inner.done()) {
      absl::StatusOr<uint64_t> v = inner.Varint();
      if (!v.ok()) return Malformed(base + inner.pos(), absl::StrCat("truncated varint in packed ", FieldName(field)));
      out.push_back(*v);
    }
    return absl::OkStatus();
  }
  return Malformed(r.pos(), absl::StrCat("field ", FieldName(field), " (", field, ") has wire type ", wire,
                                         ", expected varint or packed"));
}

// Appends fixed-width values (4 or 8 bytes) of a packed field or one
// unpacked value, as raw little-endian bytes.
absl::Status ReadFixed(WireReader& r, uint32_t wire, uint32_t field, size_t width, std::vector<uint8_t>& out,
                       size_t& count) {
  const uint32_t unpacked_wire = width == 4 ? kFixed32 : kFixed64;
  if (wire == unpacked_wire) {
    if (width == 4) {
      absl::StatusOr<uint32_t> v = r.Fixed32();
      if (!v.ok()) return v.status();
      const size_t at = out.size();
      out.resize(at + 4);
      std::memcpy(out.data() + at, &*v, 4);
    } else {
      absl::StatusOr<uint64_t> v = r.Fixed64();
      if (!v.ok()) return v.status();
      const size_t at = out.size();
      out.resize(at + 8);
      std::memcpy(out.data() + at, &*v, 8);
    }
    ++count;
    return absl::OkStatus();
  }
  if (wire == kLengthDelimited) {
    const size_t start = r.pos();
    absl::StatusOr<std::span<const uint8_t>> packed = r.LengthDelimited();
    if (!packed.ok()) return packed.status();
    if (packed->size() % width != 0)
      return Malformed(start, absl::StrCat("packed ", FieldName(field), " has ", packed->size(),
                                           " bytes, not a multiple of ", width));
    out.insert(out.end(), packed->begin(), packed->end());
    count += packed->size() / width;
    return absl::OkStatus();
  }
  return Malformed(r.pos(), absl::StrCat("field ", FieldName(field), " (", field, ") has wire type ", wire,
                                         ", expected ", width == 4 ? "fixed32" : "fixed64", " or packed"));
}

struct RawFields {
  std::vector<int64_t> dims;
  std::optional<int32_t> data_type;
  std::string name;
  std::optional<std::span<const uint8_t>> raw_data;
  std::vector<uint8_t> float_bytes;  // float_data, little-endian
  size_t float_count = 0;
  std::vector<uint8_t> double_bytes;  // double_data
  size_t double_count = 0;
  std::vector<uint64_t> int32_data;  // as varints
  std::vector<uint64_t> int64_data;
  std::vector<uint64_t> uint64_data;
};

absl::Status ExpectWire(const WireReader& r, uint32_t field, uint32_t wire, uint32_t expected) {
  if (wire == expected) return absl::OkStatus();
  return Malformed(r.pos(), absl::StrCat("field ", FieldName(field), " (", field, ") has wire type ", wire,
                                         ", expected ", expected));
}

absl::StatusOr<RawFields> ReadFields(std::span<const uint8_t> bytes) {
  RawFields f;
  WireReader r(bytes);
  while (!r.done()) {
    const size_t tag_at = r.pos();
    absl::StatusOr<uint64_t> tag = r.Varint();
    if (!tag.ok()) return tag.status();
    const uint32_t wire = static_cast<uint32_t>(*tag & 7);
    const uint64_t field64 = *tag >> 3;
    if (field64 == 0 || field64 > 0x1fffffff) return Malformed(tag_at, absl::StrCat("invalid field number ", field64));
    const uint32_t field = static_cast<uint32_t>(field64);
    switch (field) {
      case kDims: {
        std::vector<uint64_t> v;
        absl::Status s = ReadVarints(r, wire, field, v);
        if (!s.ok()) return s;
        for (uint64_t d : v) f.dims.push_back(static_cast<int64_t>(d));
        break;
      }
      case kDataType: {
        absl::Status s = ExpectWire(r, field, wire, kVarint);
        if (!s.ok()) return s;
        absl::StatusOr<uint64_t> v = r.Varint();
        if (!v.ok()) return v.status();
        f.data_type = static_cast<int32_t>(static_cast<uint32_t>(*v));  // int32: low 32 bits
        break;
      }
      case kSegment:
        return absl::UnimplementedError("segmented TensorProto (field segment) is not supported");
      case kFloatData: {
        absl::Status s = ReadFixed(r, wire, field, 4, f.float_bytes, f.float_count);
        if (!s.ok()) return s;
        break;
      }
      case kInt32Data: {
        absl::Status s = ReadVarints(r, wire, field, f.int32_data);
        if (!s.ok()) return s;
        break;
      }
      case kStringData:
        return absl::UnimplementedError("string tensors (string_data) are not supported");
      case kInt64Data: {
        absl::Status s = ReadVarints(r, wire, field, f.int64_data);
        if (!s.ok()) return s;
        break;
      }
      case kName: {
        absl::Status s = ExpectWire(r, field, wire, kLengthDelimited);
        if (!s.ok()) return s;
        absl::StatusOr<std::span<const uint8_t>> v = r.LengthDelimited();
        if (!v.ok()) return v.status();
        f.name.assign(reinterpret_cast<const char*>(v->data()), v->size());
        break;
      }
      case kRawData: {
        absl::Status s = ExpectWire(r, field, wire, kLengthDelimited);
        if (!s.ok()) return s;
        absl::StatusOr<std::span<const uint8_t>> v = r.LengthDelimited();
        if (!v.ok()) return v.status();
        f.raw_data = *v;  // last one wins, as protobuf merges bytes fields
        break;
      }
      case kDoubleData: {
        absl::Status s = ReadFixed(r, wire, field, 8, f.double_bytes, f.double_count);
        if (!s.ok()) return s;
        break;
      }
      case kUint64Data: {
        absl::Status s = ReadVarints(r, wire, field, f.uint64_data);
        if (!s.ok()) return s;
        break;
      }
      case kDocString: {
        absl::Status s = ExpectWire(r, field, wire, kLengthDelimited);
        if (!s.ok()) return s;
        absl::Status skip = r.LengthDelimited().status();
        if (!skip.ok()) return skip;
        break;
      }
      case kExternalData:
        return absl::UnimplementedError("TensorProto with external data (external_data) is not supported");
      case kDataLocation: {
        absl::Status s = ExpectWire(r, field, wire, kVarint);
        if (!s.ok()) return s;
        absl::StatusOr<uint64_t> v = r.Varint();
        if (!v.ok()) return v.status();
        if (*v != 0)  // 0 = DEFAULT, 1 = EXTERNAL
          return absl::UnimplementedError(
              absl::StrCat("TensorProto with external data (data_location ", *v, ") is not supported"));
        break;
      }
      default: {
        absl::Status s = r.Skip(wire, field);
        if (!s.ok()) return s;
        break;
      }
    }
  }
  return f;
}

// Converts int32_data entries to 1- or 2-byte elements, checking the range.
absl::Status NarrowInt32Data(const std::vector<uint64_t>& values, int32_t onnx_type, std::vector<uint8_t>& out) {
  int64_t lo = 0, hi = 0;
  size_t width = 1;
  switch (onnx_type) {
    case kOnnxInt8:
      lo = -128;
      hi = 127;
      break;
    case kOnnxUint8:
      lo = 0;
      hi = 255;
      break;
    case kOnnxBool:
      lo = 0;
      hi = 1;
      break;
    case kOnnxFloat16:
      lo = 0;
      hi = 65535;
      width = 2;
      break;
    default:
      lo = std::numeric_limits<int32_t>::min();
      hi = std::numeric_limits<int32_t>::max();
      width = 4;
      break;
  }
  out.resize(values.size() * width);
  for (size_t i = 0; i < values.size(); ++i) {
    // int32 fields are sign-extended varints; take them as int64.
    const int64_t v = static_cast<int64_t>(values[i]);
    if (v < lo || v > hi)
      return absl::InvalidArgumentError(
          absl::StrCat("int32_data[", i, "] = ", v, " is out of range for ", OnnxDataTypeName(onnx_type)));
    if (width == 1) {
      out[i] = static_cast<uint8_t>(v);
    } else if (width == 2) {
      const uint16_t x = static_cast<uint16_t>(v);
      std::memcpy(out.data() + 2 * i, &x, 2);
    } else {
      const int32_t x = static_cast<int32_t>(v);
      std::memcpy(out.data() + 4 * i, &x, 4);
    }
  }
  return absl::OkStatus();
}

// The whole file, unless it holds more than `max_bytes`: the size of the
// open file is checked before anything is allocated or read.
absl::StatusOr<std::vector<uint8_t>> ReadWholeFile(const std::string& path, uint64_t max_bytes) {
  auto cannot = [&](absl::string_view why) {
    return absl::NotFoundError(absl::StrCat("cannot read '", path, "': ", why));
  };
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return cannot(fs::exists(path, ec) ? "not a regular file" : "no such file");
  std::ifstream f(path, std::ios::binary);
  if (!f) return cannot("cannot open");
  f.seekg(0, std::ios::end);
  const std::streamoff size = f.tellg();
  if (size < 0) return cannot("cannot determine size");
  if (static_cast<uint64_t>(size) > max_bytes)
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' holds ", size, " bytes, more than the ", max_bytes,
                                                   " any TensorProto of the expected tensor can take; not read"));
  f.seekg(0, std::ios::beg);
  std::vector<uint8_t> out(static_cast<size_t>(size));
  if (size > 0 && !f.read(reinterpret_cast<char*>(out.data()), size)) return cannot("short read");
  return out;
}

}  // namespace

const char* OnnxDataTypeName(int32_t onnx_type) {
  if (onnx_type < 0 || static_cast<size_t>(onnx_type) >= kOnnxTypeNames.size()) return "UNKNOWN";
  return kOnnxTypeNames[onnx_type];
}

namespace {

// With `external_raw`: raw_data is those bytes (never copied; t.data stays
// empty), and `bytes` may not carry one of its own.
absl::StatusOr<HostTensor> ParseUnguarded(std::span<const uint8_t> bytes,
                                          std::optional<std::span<const uint8_t>> external_raw = std::nullopt) {
  absl::StatusOr<RawFields> fields = ReadFields(bytes);
  if (!fields.ok()) return fields.status();
  RawFields& f = *fields;
  if (external_raw) {
    if (f.raw_data) return absl::InvalidArgumentError("TensorProto carries raw_data twice");
    f.raw_data = *external_raw;
  }

  if (!f.data_type || *f.data_type == kOnnxUndefined)
    return absl::InvalidArgumentError("TensorProto has no data_type (UNDEFINED)");
  const int32_t onnx_type = *f.data_type;
  const std::optional<int32_t> dtype = DTypeFromOnnx(onnx_type);
  if (!dtype)
    return absl::UnimplementedError(
        absl::StrCat("unsupported ONNX data type ", onnx_type, " (", OnnxDataTypeName(onnx_type), ")"));

  // Element count from dims, with overflow checks.
  for (size_t i = 0; i < f.dims.size(); ++i)
    if (f.dims[i] < 0) return absl::InvalidArgumentError(absl::StrCat("dims[", i, "] = ", f.dims[i], " is negative"));
  const size_t esize = ElementSize(*dtype);
  // The dims must describe a tensor whose byte size is representable; the
  // data fields are then compared with it (never trusted for a size).
  if (!checked::TensorBytes(f.dims, esize)) return absl::InvalidArgumentError("dims overflow the tensor size limit");
  const uint64_t count = static_cast<uint64_t>(*checked::ElementCount(f.dims));

  HostTensor t;
  t.name = std::move(f.name);
  t.dtype = *dtype;
  t.shape = f.dims;

  // Which storage carries the values?
  struct Source {
    const char* field;
    size_t count;
  };
  std::vector<Source> typed;
  if (f.float_count) typed.push_back({"float_data", f.float_count});
  if (!f.int32_data.empty()) typed.push_back({"int32_data", f.int32_data.size()});
  if (!f.int64_data.empty()) typed.push_back({"int64_data", f.int64_data.size()});
  if (f.double_count) typed.push_back({"double_data", f.double_count});
  if (!f.uint64_data.empty()) typed.push_back({"uint64_data", f.uint64_data.size()});
  if (typed.size() > 1)
    return absl::InvalidArgumentError(
        absl::StrCat("TensorProto carries both ", typed[0].field, " and ", typed[1].field));
  if (f.raw_data && !f.raw_data->empty() && !typed.empty())
    return absl::InvalidArgumentError(absl::StrCat("TensorProto carries both raw_data and ", typed[0].field));

  const std::string type_label = absl::StrCat(OnnxDataTypeName(onnx_type), " tensor");
  if (f.raw_data && !f.raw_data->empty()) {
    if (f.raw_data->size() % esize != 0 || f.raw_data->size() / esize != count)
      return absl::InvalidArgumentError(absl::StrCat("raw_data holds ", f.raw_data->size(), " bytes, dims need ", count,
                                                     " elements of ", esize, " bytes (", count * esize, ")"));
    if (*dtype == TSR_DTYPE_BOOL)
      for (size_t i = 0; i < f.raw_data->size(); ++i)
        if ((*f.raw_data)[i] > 1)
          return absl::InvalidArgumentError(
              absl::StrCat("bool raw_data[", i, "] = ", int{(*f.raw_data)[i]}, " is not 0 or 1"));
    if (!external_raw) t.data.assign(f.raw_data->begin(), f.raw_data->end());
    return t;
  }
  if (typed.empty()) {
    if (count != 0)
      return absl::InvalidArgumentError(absl::StrCat(type_label, " holds no data, dims need ", count, " elements"));
    return t;
  }
  const Source& src = typed[0];
  if (src.count != count)
    return absl::InvalidArgumentError(absl::StrCat(src.field, " holds ", src.count, " elements, dims need ", count));

  switch (onnx_type) {
    case kOnnxFloat:
      if (!f.float_count) break;
      t.data = std::move(f.float_bytes);
      return t;
    case kOnnxInt32:
    case kOnnxInt8:
    case kOnnxUint8:
    case kOnnxBool:
    case kOnnxFloat16: {
      if (f.int32_data.empty()) break;
      absl::Status s = NarrowInt32Data(f.int32_data, onnx_type, t.data);
      if (!s.ok()) return s;
      return t;
    }
    case kOnnxInt64: {
      if (f.int64_data.empty()) break;
      t.data.resize(f.int64_data.size() * 8);
      std::memcpy(t.data.data(), f.int64_data.data(), t.data.size());
      return t;
    }
    default:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(src.field, " cannot carry a ", type_label));
}

}  // namespace

absl::StatusOr<HostTensor> ParseTensorProto(std::span<const uint8_t> bytes) {
  return CatchAsStatus("reading a TensorProto", [&] { return ParseUnguarded(bytes); });
}

absl::StatusOr<HostTensor> ParseTensorProtoHeader(std::span<const uint8_t> bytes, std::span<const uint8_t> raw_data) {
  return CatchAsStatus("reading a TensorProto", [&] { return ParseUnguarded(bytes, raw_data); });
}

std::vector<uint8_t> SerializeTensorProto(const HostTensor& t) {
  std::vector<uint8_t> out;
  out.reserve(t.data.size() + t.name.size() + 16 + 11 * t.shape.size());
  for (int64_t d : t.shape) {
    PutTag(out, kDims, kVarint);
    PutVarint(out, static_cast<uint64_t>(d));
  }
  PutTag(out, kDataType, kVarint);
  PutVarint(out, static_cast<uint64_t>(OnnxFromDType(t.dtype)));
  if (!t.name.empty()) PutBytes(out, kName, t.name.data(), t.name.size());
  // Always present, even when empty, so the proto says where its data is.
  PutBytes(out, kRawData, t.data.data(), t.data.size());
  return out;
}

uint64_t MaxTensorProtoFileBytes(std::span<const int64_t> shape) {
  // The widest valid encoding of one element is an unpacked varint (a tag
  // byte and 10 bytes: int64_data, or a negative int32_data); the name,
  // dims, doc_string and tags fit in the 64 KiB on top.
  constexpr uint64_t kOverhead = 64 * 1024;
  const std::optional<int64_t> n = checked::ElementCount(shape);
  const std::optional<uint64_t> data = n ? checked::Mul<uint64_t>(static_cast<uint64_t>(*n), 11) : std::nullopt;
  const std::optional<uint64_t> total = data ? checked::Add<uint64_t>(*data, kOverhead) : std::nullopt;
  return total.value_or(std::numeric_limits<uint64_t>::max());
}

absl::StatusOr<HostTensor> ReadTensorProtoFile(const std::string& path, uint64_t max_file_bytes) {
  absl::StatusOr<std::vector<uint8_t>> bytes =
      CatchAsStatus(absl::StrCat("reading '", path, "'"), [&] { return ReadWholeFile(path, max_file_bytes); });
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<HostTensor> t = ParseTensorProto(*bytes);
  if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat("'", path, "': ", t.status().message()));
  return t;
}

absl::Status WriteTensorProtoFile(const HostTensor& t, const std::string& path) {
  if (OnnxFromDType(t.dtype) == kOnnxUndefined)
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", t.name, "' has dtype ", t.dtype, ", which has no ONNX equivalent"));
  for (int64_t d : t.shape)
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("tensor '", t.name, "' has a negative dimension"));
  const std::optional<int64_t> bytes = checked::TensorBytes(t.shape, ElementSize(t.dtype));
  if (!bytes) return absl::InvalidArgumentError(absl::StrCat("tensor '", t.name, "' has too many elements"));
  if (t.data.size() != static_cast<uint64_t>(*bytes))
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", t.name, "' holds ", t.data.size(), " bytes, its shape needs ", *bytes));
  // Through the one atomic writer: the old "<path>.tmp.<pid>" temporary
  // was predictable and followed a symlink planted at that name.
  return WriteFileAtomically(path, SerializeTensorProto(t));
}

}  // namespace tessera
