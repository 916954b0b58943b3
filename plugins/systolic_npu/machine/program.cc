#include "plugins/systolic_npu/machine/program.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "plugins/systolic_npu/machine/quant.h"
#include "plugins/systolic_npu/machine/vector_depthwise.h"

namespace tessera::systolic {
namespace {

constexpr size_t kHeaderBytes = 56;
constexpr size_t kConstantRecordBytes = 24;
constexpr size_t kEntryHeaderBytes = 80;
constexpr size_t kRegionRecordBytes = 88;
constexpr uint64_t kMaxRegionBytes = uint64_t{1} << 40;
constexpr uint64_t kMaxInstructions = uint64_t{1} << 26;

static_assert(std::endian::native == std::endian::little,
              "the NPU body is little-endian; add byte swaps for this host");

class Writer {
 public:
  void U32(uint32_t v) { Raw(&v, 4); }
  void U64(uint64_t v) { Raw(&v, 8); }
  void Raw(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  void Align(size_t a) {
    while (out_.size() % a) out_.push_back(0);
  }
  size_t size() const { return out_.size(); }
  std::vector<uint8_t>& out() { return out_; }
  void Patch64(size_t at, uint64_t v) { std::memcpy(out_.data() + at, &v, 8); }

 private:
  std::vector<uint8_t> out_;
};

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> d) : d_(d) {}
  bool Has(uint64_t n) const { return n <= d_.size() - pos_; }
  uint32_t U32() {
    uint32_t v;
    std::memcpy(&v, d_.data() + pos_, 4);
    pos_ += 4;
    return v;
  }
  uint64_t U64() {
    uint64_t v;
    std::memcpy(&v, d_.data() + pos_, 8);
    pos_ += 8;
    return v;
  }
  const uint8_t* Take(size_t n) {
    const uint8_t* p = d_.data() + pos_;
    pos_ += n;
    return p;
  }
  size_t pos() const { return pos_; }
  bool Seek(uint64_t p) {
    if (p > d_.size()) return false;
    pos_ = p;
    return true;
  }
  void Align(size_t a) { pos_ = std::min(d_.size(), (pos_ + a - 1) / a * a); }

 private:
  std::span<const uint8_t> d_;
  size_t pos_ = 0;
};

absl::Status Bad(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("systolic_npu body: ", what));
}

}  // namespace

size_t EntryPoint::CountRegions(RegionKind kind) const {
  size_t n = 0;
  for (const Region& r : regions) n += r.kind == kind ? 1 : 0;
  return n;
}

uint64_t CompulsoryDramBytes(const Program& p, const EntryPoint& e) {
  uint64_t bytes = 0;
  for (const Constant& c : p.constants)
    if (c.kind == ConstantKind::kData) bytes += c.size;
  for (const Region& r : e.regions)
    if (r.kind == RegionKind::kInput || r.kind == RegionKind::kOutput) bytes += r.size_bytes;
  return bytes;
}

TargetInfo TargetInfo::FromSoc(const SystolicNpuConfig& npu) {
  TargetInfo t;
  t.array_rows = static_cast<uint32_t>(npu.array_rows);
  t.array_cols = static_cast<uint32_t>(npu.array_cols);
  t.input_bank_bytes = static_cast<uint32_t>(npu.input_bank_bytes());
  t.weight_bank_bytes = static_cast<uint32_t>(npu.weight_bank_bytes());
  t.accum_bank_bytes = static_cast<uint32_t>(npu.accum_bank_bytes());
  return t;
}

uint32_t Program::AddData(const void* data, size_t size, int32_t dtype) {
  while (constant_data.size() % 16) constant_data.push_back(0);
  Constant c;
  c.kind = ConstantKind::kData;
  c.dtype = dtype;
  c.offset = constant_data.size();
  c.size = size;
  const uint8_t* p = static_cast<const uint8_t*>(data);
  if (size) constant_data.insert(constant_data.end(), p, p + size);
  constants.push_back(c);
  return static_cast<uint32_t>(constants.size() - 1);
}

std::vector<uint8_t> SerializeProgram(const Program& p, std::vector<EntryRange>* ranges) {
  Writer w;
  w.Raw(kBodyMagic, 4);
  w.U32(kBodyVersion);
  w.U32(p.target.array_rows);
  w.U32(p.target.array_cols);
  w.U32(p.target.input_bank_bytes);
  w.U32(p.target.weight_bank_bytes);
  w.U32(p.target.accum_bank_bytes);
  w.U32(static_cast<uint32_t>(p.constants.size()));
  const size_t data_offset_at = w.size();
  w.U64(0);
  w.U64(p.constant_data.size());
  w.U32(static_cast<uint32_t>(p.entries.size()));
  w.U32(0);
  for (const Constant& c : p.constants) {
    w.U32(static_cast<uint32_t>(c.kind));
    w.U32(static_cast<uint32_t>(c.dtype));
    w.U64(c.offset);
    w.U64(c.size);
  }
  w.Align(16);
  w.Patch64(data_offset_at, w.size());
  w.Raw(p.constant_data.data(), p.constant_data.size());
  w.Align(16);
  if (ranges) ranges->clear();
  for (const EntryPoint& e : p.entries) {
    const size_t start = w.size();
    char name[kEntryNameBytes] = {};
    std::memcpy(name, e.name.data(), std::min(e.name.size(), kEntryNameBytes - 1));
    w.Raw(name, kEntryNameBytes);
    w.U32(static_cast<uint32_t>(e.regions.size()));
    w.U32(static_cast<uint32_t>(e.code.size()));
    w.U32(0);
    w.U32(0);
    for (const Region& r : e.regions) {
      w.U32(static_cast<uint32_t>(r.kind));
      w.U32(r.io_index);
      w.U32(static_cast<uint32_t>(r.dtype));
      w.U32(static_cast<uint32_t>(r.dims.size()));
      w.U64(r.size_bytes);
      for (size_t i = 0; i < kMaxRank; ++i) w.U64(i < r.dims.size() ? static_cast<uint64_t>(r.dims[i]) : 0);
    }
    for (const Instruction& in : e.code) {
      uint8_t buf[kInstructionBytes];
      EncodeInstruction(in, buf);
      w.Raw(buf, kInstructionBytes);
    }
    w.Align(16);
    if (ranges) ranges->push_back({start, w.size() - start});
  }
  return std::move(w.out());
}

absl::StatusOr<Program> ParseProgram(std::span<const uint8_t> body) {
  Reader r(body);
  if (!r.Has(kHeaderBytes)) return Bad("shorter than its header");
  if (std::memcmp(r.Take(4), kBodyMagic, 4) != 0) return Bad("bad magic (want SNPU)");
  if (uint32_t v = r.U32(); v != kBodyVersion) return Bad(absl::StrCat("unsupported body version ", v));
  Program p;
  p.target.array_rows = r.U32();
  p.target.array_cols = r.U32();
  p.target.input_bank_bytes = r.U32();
  p.target.weight_bank_bytes = r.U32();
  p.target.accum_bank_bytes = r.U32();
  const uint32_t constant_count = r.U32();
  const uint64_t data_offset = r.U64();
  const uint64_t data_size = r.U64();
  const uint32_t entry_count = r.U32();
  if (r.U32() != 0) return Bad("reserved header word not zero");
  if (!r.Has(uint64_t{constant_count} * kConstantRecordBytes)) return Bad("constant table truncated");
  p.constants.resize(constant_count);
  for (uint32_t i = 0; i < constant_count; ++i) {
    Constant& c = p.constants[i];
    const uint32_t kind = r.U32();
    if (kind == 0 || kind >= kConstantKindCount) return Bad(absl::StrCat("constant ", i, ": unknown kind ", kind));
    c.kind = static_cast<ConstantKind>(kind);
    c.dtype = static_cast<int32_t>(r.U32());
    c.offset = r.U64();
    c.size = r.U64();
  }
  if (data_offset < r.pos() || data_offset > body.size() || data_size > body.size() - data_offset)
    return Bad("constant data out of bounds");
  for (uint32_t i = 0; i < constant_count; ++i) {
    const Constant& c = p.constants[i];
    if (c.offset > data_size || c.size > data_size - c.offset)
      return Bad(absl::StrCat("constant ", i, " out of bounds of the pool"));
    const size_t want = DescriptorBytes(c.kind);
    if (c.kind == ConstantKind::kData) {
      if (NpuDtypeSize(c.dtype) == 0) return Bad(absl::StrCat("constant ", i, ": bad dtype ", c.dtype));
    } else if (c.size != want) {
      return Bad(absl::StrCat("constant ", i, ": descriptor size ", c.size, " (want ", want, ")"));
    }
  }
  p.constant_data.assign(body.begin() + data_offset, body.begin() + data_offset + data_size);
  r.Seek(data_offset + data_size);
  r.Align(16);
  if (entry_count > 65536) return Bad("too many entry points");
  for (uint32_t e = 0; e < entry_count; ++e) {
    if (!r.Has(kEntryHeaderBytes)) return Bad(absl::StrCat("entry ", e, " truncated"));
    EntryPoint ep;
    const char* name = reinterpret_cast<const char*>(r.Take(kEntryNameBytes));
    const size_t len = strnlen(name, kEntryNameBytes);
    if (len == kEntryNameBytes) return Bad(absl::StrCat("entry ", e, ": name not terminated"));
    ep.name.assign(name, len);
    const uint32_t region_count = r.U32();
    const uint32_t code_count = r.U32();
    if (r.U32() != 0 || r.U32() != 0) return Bad(absl::StrCat("entry ", e, ": reserved words not zero"));
    if (region_count > 255) return Bad(absl::StrCat("entry ", e, ": too many regions"));
    if (code_count > kMaxInstructions) return Bad(absl::StrCat("entry ", e, ": too many instructions"));
    if (!r.Has(uint64_t{region_count} * kRegionRecordBytes + uint64_t{code_count} * kInstructionBytes))
      return Bad(absl::StrCat("entry '", ep.name, "' truncated"));
    for (uint32_t i = 0; i < region_count; ++i) {
      Region rg;
      const uint32_t kind = r.U32();
      if (kind < 1 || kind > 4) return Bad(absl::StrCat("entry '", ep.name, "' region ", i + 1, ": bad kind"));
      rg.kind = static_cast<RegionKind>(kind);
      rg.io_index = r.U32();
      rg.dtype = static_cast<int32_t>(r.U32());
      const uint32_t rank = r.U32();
      rg.size_bytes = r.U64();
      if (rank > kMaxRank) return Bad(absl::StrCat("entry '", ep.name, "' region ", i + 1, ": rank > 8"));
      for (size_t d = 0; d < kMaxRank; ++d) {
        const int64_t v = static_cast<int64_t>(r.U64());
        if (d < rank) rg.dims.push_back(v);
      }
      ep.regions.push_back(std::move(rg));
    }
    ep.code.reserve(code_count);
    for (uint32_t i = 0; i < code_count; ++i) ep.code.push_back(DecodeInstruction(r.Take(kInstructionBytes)));
    r.Align(16);
    p.entries.push_back(std::move(ep));
  }
  return p;
}

// ---- Verifier ----------------------------------------------------------------

namespace {

using u128 = unsigned __int128;

struct Ctx {
  const Program& p;
  const EntryPoint& e;
  const SystolicNpuConfig& npu;
  const Instruction& in;
  size_t pc;
  uint64_t* high_water = nullptr;  // optional, per bank

  absl::Status Err(const std::string& what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("systolic_npu verifier: entry '", e.name, "' pc ", pc, " (", OpcodeName(in.op), "): ", what));
  }

  uint64_t BankBytes(uint32_t bank) const {
    switch (bank) {
      case 0:
        return static_cast<uint64_t>(npu.input_bank_bytes());
      case 1:
        return static_cast<uint64_t>(npu.weight_bank_bytes());
      case 2:
        return static_cast<uint64_t>(npu.accum_bank_bytes());
      default:
        return 0;
    }
  }

  // SRAM range [addr, addr + bytes) must lie in one bank.
  absl::Status Sram(const char* what, uint32_t addr, u128 bytes) const {
    const uint32_t bank = SramBankBits(addr);
    if (bank > 2) return Err(absl::StrCat(what, ": bad SRAM bank ", bank));
    const u128 end = u128{SramOffset(addr)} + bytes;
    if (end > BankBytes(bank))
      return Err(absl::StrCat(what, ": SRAM range [", SramOffset(addr), ", ",
                              static_cast<uint64_t>(std::min<u128>(end, ~uint64_t{0})), ") exceeds the ",
                              BankBytes(bank), "-byte bank ", bank));
    if (high_water != nullptr) high_water[bank] = std::max(high_water[bank], static_cast<uint64_t>(end));
    return absl::OkStatus();
  }

  uint64_t RegionBytes(uint8_t region) const {
    if (region == 0) return p.constant_data.size();
    return e.regions[region - 1].size_bytes;
  }

  absl::Status Region(uint8_t region) const {
    if (region > e.regions.size())
      return Err(absl::StrCat("DRAM region ", int{region}, " does not exist (entry has ", e.regions.size(), ")"));
    return absl::OkStatus();
  }

  // Strided DRAM access: elements at off + (i*rs + j*cs)*es.
  absl::Status Dram(uint8_t region, uint64_t off, uint64_t rows, uint64_t cols, uint64_t rs, uint64_t cs,
                    uint64_t es) const {
    const u128 last = u128{off} + (u128{rows - 1} * rs + u128{cols - 1} * cs) * es + es;
    if (last > RegionBytes(region))
      return Err(absl::StrCat("DRAM access ends at byte ", static_cast<uint64_t>(std::min<u128>(last, ~uint64_t{0})),
                              ", beyond region ", int{region}, " (", RegionBytes(region), " bytes)"));
    return absl::OkStatus();
  }

  absl::Status Desc(uint32_t index, ConstantKind kind) const {
    if (index >= p.constants.size())
      return Err(absl::StrCat("constant ", index, " does not exist (pool has ", p.constants.size(), ")"));
    if (p.constants[index].kind != kind) return Err(absl::StrCat("constant ", index, " has the wrong kind"));
    return absl::OkStatus();
  }

  absl::Status Dims(const char* what, u128 rows, u128 cols) const {
    if (rows == 0 || cols == 0 || rows > (1u << 30) || cols > (1u << 30))
      return Err(absl::StrCat(what, ": bad shape ", static_cast<uint64_t>(rows), "x", static_cast<uint64_t>(cols)));
    return absl::OkStatus();
  }
};

#define V_RETURN_IF_ERROR(expr) \
  do {                          \
    absl::Status _s = (expr);   \
    if (!_s.ok()) return _s;    \
  } while (0)

bool InRange(int32_t v, int32_t lo, int32_t hi) { return v >= lo && v <= hi; }

absl::Status VerifyDmaLoad(const Ctx& c) {
  const Instruction& in = c.in;
  const int32_t dd = DmaFirstDtype(in.b), sd = DmaSecondDtype(in.b);
  const size_t de = NpuDtypeSize(dd), se = NpuDtypeSize(sd);
  if (de == 0 || se == 0) return c.Err("bad dtype");
  // F16 -> F32 (exact widening) exists for runtime f16 biases, which the
  // vector unit adds from the F32 parameter buffer.
  if (!(dd == sd || (dd == TSR_DTYPE_F32 && sd == TSR_DTYPE_F16) || (dd == TSR_DTYPE_F16 && sd == TSR_DTYPE_F32)))
    return c.Err("unsupported dtype conversion");
  const uint32_t bank = SramBankBits(in.f[0]);
  if (bank != 0 && bank != 1) return c.Err("DMA_LOAD writes the input or weight bank only");
  V_RETURN_IF_ERROR(c.Dims("tile", in.f[2], in.f[3]));
  V_RETURN_IF_ERROR(c.Sram("destination", in.f[0], u128{in.f[2]} * in.f[3] * se));
  V_RETURN_IF_ERROR(c.Region(in.c));
  if (in.a == static_cast<uint8_t>(DmaMode::kStrided)) {
    if (in.f[6] != 0) return c.Err("reserved field not zero");
    return c.Dram(in.c, in.f[1], in.f[2], in.f[3], in.f[4], in.f[5], de);
  }
  if (in.a != static_cast<uint8_t>(DmaMode::kIm2col)) return c.Err("unknown DMA mode");
  V_RETURN_IF_ERROR(c.Desc(in.f[4], ConstantKind::kIm2colDesc));
  const Im2colDesc d = c.p.Descriptor<Im2colDesc>(in.f[4]);
  const int32_t L = 1 << 16;
  if (!InRange(d.channels, 1, L) || !InRange(d.in_h, 1, L) || !InRange(d.in_w, 1, L) || !InRange(d.kernel_h, 1, L) ||
      !InRange(d.kernel_w, 1, L) || !InRange(d.stride_h, 1, L) || !InRange(d.stride_w, 1, L) ||
      !InRange(d.dilation_h, 1, L) || !InRange(d.dilation_w, 1, L) || !InRange(d.pad_top, 0, L) ||
      !InRange(d.pad_left, 0, L) || !InRange(d.out_h, 1, L) || !InRange(d.out_w, 1, L) ||
      !InRange(d.channel_stride, 0, 1 << 30) || d.reserved != 0)
    return c.Err("im2col descriptor out of range");
  const u128 patch_rows = u128(d.out_h) * d.out_w;
  const u128 patch_cols = u128(d.channels) * d.kernel_h * d.kernel_w;
  if (u128{in.f[5]} + in.f[2] > patch_rows || u128{in.f[6]} + in.f[3] > patch_cols)
    return c.Err("im2col tile outside the patch matrix");
  // Extent of the image the descriptor can touch.
  const u128 last = u128{in.f[1]} + (u128(d.channels - 1) * d.channel_stride + u128(d.in_h) * d.in_w) * de;
  if (last > c.RegionBytes(in.c)) return c.Err("im2col image beyond its DRAM region");
  return absl::OkStatus();
}

absl::Status VerifyDmaStore(const Ctx& c) {
  const Instruction& in = c.in;
  const int32_t sd = DmaFirstDtype(in.b), dd = DmaSecondDtype(in.b);
  const size_t se = NpuDtypeSize(sd), de = NpuDtypeSize(dd);
  if (de == 0 || se == 0) return c.Err("bad dtype");
  if (!(dd == sd || (sd == TSR_DTYPE_F32 && dd == TSR_DTYPE_F16) || (sd == TSR_DTYPE_F16 && dd == TSR_DTYPE_F32)))
    return c.Err("unsupported dtype conversion");
  if (in.a != 0 || in.f[6] != 0) return c.Err("reserved field not zero");
  V_RETURN_IF_ERROR(c.Dims("tile", in.f[2], in.f[3]));
  V_RETURN_IF_ERROR(c.Sram("source", in.f[0], u128{in.f[2]} * in.f[3] * se));
  V_RETURN_IF_ERROR(c.Region(in.c));
  if (in.c == 0) return c.Err("the constant pool (region 0) is read-only");
  if (c.e.regions[in.c - 1].kind == RegionKind::kInput)
    return c.Err(absl::StrCat("region ", int{in.c}, " is an input (read-only)"));
  return c.Dram(in.c, in.f[1], in.f[2], in.f[3], in.f[4], in.f[5], de);
}

absl::Status VerifyMatmul(const Ctx& c) {
  const Instruction& in = c.in;
  if (in.a >= kDataflowCount) return c.Err("unknown dataflow");
  if (in.b != TSR_DTYPE_I8 && in.b != TSR_DTYPE_F16) return c.Err("operand dtype must be i8 or f16");
  if (in.c > 1) return c.Err("unknown flags");
  if (in.f[6] != 0) return c.Err("reserved field not zero");
  const uint64_t M = in.f[3], K = in.f[4], N = in.f[5];
  if (M == 0 || K == 0 || N == 0) return c.Err("empty tile");
  const uint64_t R = c.npu.array_rows, C = c.npu.array_cols;
  if (in.a == 0 && (K > R || N > C))
    return c.Err(absl::StrCat("ws tile K=", K, " N=", N, " exceeds the ", R, "x", C, " array"));
  if (in.a == 1 && (M > R || N > C))
    return c.Err(absl::StrCat("os tile M=", M, " N=", N, " exceeds the ", R, "x", C, " array"));
  if (in.a == 2 && (K > R || M > C))
    return c.Err(absl::StrCat("is tile K=", K, " M=", M, " exceeds the ", R, "x", C, " array"));
  const size_t es = NpuDtypeSize(in.b);
  if (SramBankBits(in.f[0]) != 0) return c.Err("input tile must be in the input bank");
  if (SramBankBits(in.f[1]) != 1) return c.Err("weight tile must be in the weight bank");
  if (SramBankBits(in.f[2]) != 2) return c.Err("accumulator tile must be in the accum bank");
  V_RETURN_IF_ERROR(c.Sram("input", in.f[0], u128{M} * K * es));
  V_RETURN_IF_ERROR(c.Sram("weight", in.f[1], u128{K} * N * es));
  return c.Sram("accumulator", in.f[2], u128{M} * N * 4);
}

absl::Status VerifyVector(const Ctx& c) {
  const Instruction& in = c.in;
  const VectorOp op = static_cast<VectorOp>(in.a);
  const bool binary = IsBinaryVectorOp(op);
  const uint32_t flags_ok = binary                   ? kVectorBroadcastSrc1 | kVectorBroadcastSrc1PerRow
                            : op == VectorOp::kTable ? kVectorBroadcastSrc1PerRow
                                                     : 0u;
  if (op != VectorOp::kDepthwise &&  // DEPTHWISE: f6 = taps
      ((in.f[6] & ~flags_ok) != 0 || in.f[6] == (kVectorBroadcastSrc1 | kVectorBroadcastSrc1PerRow)))
    return c.Err("reserved field not zero");
  const int32_t dt = in.b, ot = in.c;
  const size_t es = NpuDtypeSize(dt), os = NpuDtypeSize(ot);
  if (es == 0 || os == 0) return c.Err("bad dtype");
  const uint64_t rows = in.f[3], cols = in.f[4];
  V_RETURN_IF_ERROR(c.Dims("vector", rows, cols));
  const u128 n = u128{rows} * cols;
  auto need_desc = [&](bool want, ConstantKind kind) -> absl::Status {
    if (!want) {
      if (in.f[5] != kNoConstant) return c.Err("unexpected descriptor");
      return absl::OkStatus();
    }
    return c.Desc(in.f[5], kind);
  };
  auto dtypes = [&](std::initializer_list<int32_t> ok) -> absl::Status {
    if (std::find(ok.begin(), ok.end(), dt) == ok.end())
      return c.Err(absl::StrCat(VectorOpName(op), " does not support ", NpuDtypeName(dt)));
    const bool converts = op == VectorOp::kRequantize || op == VectorOp::kQuantize || op == VectorOp::kDequantize ||
                          op == VectorOp::kRowSum || op == VectorOp::kDepthwise;
    if (!converts && ot != dt) return c.Err("result dtype must equal operand dtype");
    return absl::OkStatus();
  };
  switch (op) {
    case VectorOp::kBiasAdd:
      V_RETURN_IF_ERROR(dtypes({TSR_DTYPE_I32, TSR_DTYPE_F32}));
      V_RETURN_IF_ERROR(need_desc(false, ConstantKind::kData));
      V_RETURN_IF_ERROR(c.Sram("bias", in.f[1], u128{cols} * es));
      break;
    case VectorOp::kRelu:
      V_RETURN_IF_ERROR(dtypes({TSR_DTYPE_F32, TSR_DTYPE_F16, TSR_DTYPE_I32}));
      V_RETURN_IF_ERROR(need_desc(false, ConstantKind::kData));
      if (in.f[1] != 0) return c.Err("src1 must be zero");
      break;
    case VectorOp::kClip:
      V_RETURN_IF_ERROR(dtypes({TSR_DTYPE_F32, TSR_DTYPE_F16, TSR_DTYPE_I32, TSR_DTYPE_I8}));
      V_RETURN_IF_ERROR(need_desc(true, ConstantKind::kClipDesc));
      if (in.f[1] != 0) return c.Err("src1 must be zero");
      break;
    case VectorOp::kRequantize: {
      if (dt != TSR_DTYPE_I32 || ot != TSR_DTYPE_I8) return c.Err("REQUANTIZE is i32 -> i8");
      V_RETURN_IF_ERROR(need_desc(true, ConstantKind::kRequantDesc));
      V_RETURN_IF_ERROR(c.Sram("params", in.f[1], u128{cols} * 8));
      const RequantDesc d = c.p.Descriptor<RequantDesc>(in.f[5]);
      if (!InRange(d.out_zero_point, -128, 127) || !InRange(d.act_min, -128, 127) ||
          !InRange(d.act_max, d.act_min, 127))
        return c.Err("requantize descriptor out of range");
      break;
    }
    case VectorOp::kAdd:
    case VectorOp::kSub:
    case VectorOp::kMul:
      V_RETURN_IF_ERROR(dtypes({TSR_DTYPE_F32, TSR_DTYPE_F16, TSR_DTYPE_I8}));
      V_RETURN_IF_ERROR(need_desc(dt == TSR_DTYPE_I8, ConstantKind::kQuantEltwiseDesc));
      V_RETURN_IF_ERROR(c.Sram("src1", in.f[1], u128{BinarySrc1Elements(in)} * es));
      break;
    case VectorOp::kMaxPool:
    case VectorOp::kAvgPool: {
      V_RETURN_IF_ERROR(dtypes({TSR_DTYPE_F32, TSR_DTYPE_F16, TSR_DTYPE_I8}));
      V_RETURN_IF_ERROR(need_desc(true, ConstantKind::kPoolDesc));
      if (in.f[1] != 0) return c.Err("src1 must be zero");
      const PoolDesc d = c.p.Descriptor<PoolDesc>(in.f[5]);
      const int32_t L = 1 << 16;
      if (!InRange(d.in_h, 1, L) || !InRange(d.in_w, 1, L) || !InRange(d.kernel_h, 1, L) ||
          !InRange(d.kernel_w, 1, L) || !InRange(d.stride_h, 1, L) || !InRange(d.stride_w, 1, L) ||
          !InRange(d.dilation_h, 1, L) || !InRange(d.dilation_w, 1, L) || !InRange(d.pad_top, 0, L) ||
          !InRange(d.pad_left, 0, L) || !InRange(d.out_h, 1, L) || !InRange(d.out_w, 1, L) ||
          !InRange(d.count_include_pad, 0, 1) || !InRange(d.pad_bottom, 0, L) || !InRange(d.pad_right, 0, L) ||
          d.pad_value != 0)
        return c.Err("pool descriptor out of range");
      if (u128(d.in_h) * d.in_w != cols) return c.Err("pool: cols must equal in_h * in_w");
      if (u128(d.kernel_h) * d.kernel_w > 4096) return c.Err("pool window larger than 4096");
      V_RETURN_IF_ERROR(c.Sram("destination", in.f[2], u128{rows} * d.out_h * d.out_w * es));
      V_RETURN_IF_ERROR(c.Sram("source", in.f[0], n * es));
      return absl::OkStatus();
    }
    case VectorOp::kDepthwise: {
      V_RETURN_IF_ERROR(need_desc(true, ConstantKind::kPoolDesc));
      if (const std::string bad = DepthwiseProblem(c.p, in); !bad.empty()) return c.Err(bad);
      V_RETURN_IF_ERROR(c.Sram("source", in.f[0], n * es));
      V_RETURN_IF_ERROR(c.Sram("weights", in.f[1], u128{VectorSrc1Bytes(in)}));
      const PoolDesc d = c.p.Descriptor<PoolDesc>(in.f[5]);
      return c.Sram("destination", in.f[2], u128{rows} * d.out_h * d.out_w * os);
    }
    case VectorOp::kSigmoid:
    case VectorOp::kTanh:
    case VectorOp::kExp:
      V_RETURN_IF_ERROR(dtypes({TSR_DTYPE_F32, TSR_DTYPE_F16}));
      V_RETURN_IF_ERROR(need_desc(false, ConstantKind::kData));
      if (in.f[1] != 0) return c.Err("src1 must be zero");
      break;
    case VectorOp::kSoftmax:
      V_RETURN_IF_ERROR(dtypes({TSR_DTYPE_F32, TSR_DTYPE_F16}));
      V_RETURN_IF_ERROR(need_desc(false, ConstantKind::kData));
      if (in.f[1] != 0) return c.Err("src1 must be zero");
      break;
    case VectorOp::kTable:
      V_RETURN_IF_ERROR(dtypes({TSR_DTYPE_I8}));
      V_RETURN_IF_ERROR(need_desc(false, ConstantKind::kData));
      V_RETURN_IF_ERROR(c.Sram("tables", in.f[1], u128{VectorSrc1Bytes(in)}));
      break;
    case VectorOp::kRowSum:
      if (dt != TSR_DTYPE_I8 || ot != TSR_DTYPE_I32) return c.Err("ROW_SUM is i8 -> i32");
      V_RETURN_IF_ERROR(need_desc(false, ConstantKind::kData));
      if (in.f[1] != 0) return c.Err("src1 must be zero");
      // 255 * cols must fit the int32 sum.
      if (cols > (uint64_t{1} << 23)) return c.Err("ROW_SUM of more than 2^23 columns");
      V_RETURN_IF_ERROR(c.Sram("source", in.f[0], n * es));
      return c.Sram("destination", in.f[2], u128{rows} * 4);
    case VectorOp::kQuantize:
    case VectorOp::kDequantize: {
      const bool quantize = op == VectorOp::kQuantize;
      const int32_t fdt = quantize ? dt : ot, idt = quantize ? ot : dt;
      if (idt != TSR_DTYPE_I8 || (fdt != TSR_DTYPE_F32 && fdt != TSR_DTYPE_F16))
        return c.Err(quantize ? "QUANTIZE is f32/f16 -> i8" : "DEQUANTIZE is i8 -> f32/f16");
      V_RETURN_IF_ERROR(need_desc(true, ConstantKind::kQuantDesc));
      if (in.f[1] != 0) return c.Err("src1 must be zero");
      const QuantDesc d = c.p.Descriptor<QuantDesc>(in.f[5]);
      const float scale = QuantDescScale(d);
      if (!(scale > 0) || !std::isfinite(scale) || !InRange(d.zero_point, -128, 127))
        return c.Err("quant descriptor out of range (scale must be finite > 0, zero point int8)");
      break;
    }
    default:
      return c.Err(absl::StrCat("unknown vector op ", int{in.a}));
  }
  V_RETURN_IF_ERROR(c.Sram("source", in.f[0], n * es));
  return c.Sram("destination", in.f[2], n * os);
}

}  // namespace

absl::Status VerifyInstruction(const Program& program, const EntryPoint& entry, const SystolicNpuConfig& npu,
                               const Instruction& in, size_t pc, uint64_t* sram_high_water) {
  Ctx c{program, entry, npu, in, pc, sram_high_water};
  switch (in.op) {
    case Opcode::kDmaLoad:
      return VerifyDmaLoad(c);
    case Opcode::kDmaStore:
      return VerifyDmaStore(c);
    case Opcode::kMatmulTile:
      return VerifyMatmul(c);
    case Opcode::kVector:
      return VerifyVector(c);
    case Opcode::kSync:
      if (in.a || in.b || in.c || std::any_of(in.f.begin(), in.f.end(), [](uint32_t v) { return v != 0; }))
        return c.Err("SYNC fields must be zero");
      return absl::OkStatus();
    default:
      return c.Err(absl::StrCat("unknown opcode 0x", absl::Hex(static_cast<int>(in.op))));
  }
}

absl::Status VerifyProgram(const Program& p, const SystolicNpuConfig& npu) {
  const TargetInfo want = TargetInfo::FromSoc(npu);
  const TargetInfo& t = p.target;
  if (t.array_rows != want.array_rows || t.array_cols != want.array_cols ||
      t.input_bank_bytes != want.input_bank_bytes || t.weight_bank_bytes != want.weight_bank_bytes ||
      t.accum_bank_bytes != want.accum_bank_bytes)
    return absl::InvalidArgumentError(absl::StrCat(
        "systolic_npu verifier: compiled for a ", t.array_rows, "x", t.array_cols, " array with ", t.input_bank_bytes,
        "/", t.weight_bank_bytes, "/", t.accum_bank_bytes, "-byte banks; this SoC has ", want.array_rows, "x",
        want.array_cols, " with ", want.input_bank_bytes, "/", want.weight_bank_bytes, "/", want.accum_bank_bytes));
  for (size_t i = 0; i < p.constants.size(); ++i) {
    const Constant& c = p.constants[i];
    if (c.offset > p.constant_data.size() || c.size > p.constant_data.size() - c.offset)
      return Bad(absl::StrCat("constant ", i, " out of bounds of the pool"));
    if (c.kind != ConstantKind::kData && c.size != DescriptorBytes(c.kind))
      return Bad(absl::StrCat("constant ", i, ": bad descriptor size"));
  }
  std::set<std::string> names;
  for (const EntryPoint& e : p.entries) {
    if (!names.insert(e.name).second) return Bad(absl::StrCat("duplicate entry '", e.name, "'"));
    if (e.regions.size() > 255) return Bad(absl::StrCat("entry '", e.name, "': too many regions"));
    std::set<std::pair<RegionKind, uint32_t>> ios;
    for (size_t i = 0; i < e.regions.size(); ++i) {
      const Region& r = e.regions[i];
      if (r.size_bytes == 0 || r.size_bytes > kMaxRegionBytes)
        return Bad(absl::StrCat("entry '", e.name, "' region ", i + 1, ": bad size"));
      if ((r.kind == RegionKind::kInput || r.kind == RegionKind::kOutput) && !ios.insert({r.kind, r.io_index}).second)
        return Bad(absl::StrCat("entry '", e.name, "' region ", i + 1, ": duplicate io index"));
    }
    for (RegionKind k : {RegionKind::kInput, RegionKind::kOutput}) {
      const size_t n = e.CountRegions(k);
      for (size_t i = 0; i < n; ++i)
        if (!ios.count({k, static_cast<uint32_t>(i)}))
          return Bad(absl::StrCat("entry '", e.name, "': io indices not 0..n-1"));
    }
    uint64_t high_water[3] = {};
    for (size_t pc = 0; pc < e.code.size(); ++pc) {
      absl::Status s = VerifyInstruction(p, e, npu, e.code[pc], pc, high_water);
      if (!s.ok()) return s;
    }
    // The on-chip arena lives in the SRAM above every bank's highest byte
    // the code touches.
    uint64_t on_chip = 0;
    for (const Region& r : e.regions)
      if (r.kind == RegionKind::kOnChip) on_chip += r.size_bytes;
    const uint64_t free_sram = static_cast<uint64_t>(npu.input_bank_bytes()) - high_water[0] +
                               static_cast<uint64_t>(npu.weight_bank_bytes()) - high_water[1] +
                               static_cast<uint64_t>(npu.accum_bank_bytes()) - high_water[2];
    if (on_chip > free_sram)
      return Bad(absl::StrCat("entry '", e.name, "': on-chip regions of ", on_chip, " bytes exceed the ", free_sram,
                              " SRAM bytes its code leaves free"));
  }
  return absl::OkStatus();
}

}  // namespace tessera::systolic
