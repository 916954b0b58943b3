#include "plugins/kit/bytecode_builder.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "absl/strings/str_cat.h"

namespace tessera::kit {
namespace {
constexpr size_t kAlign = 64;
size_t AlignUp(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
size_t BodySize(const BytecodeEntry& e) { return e.body_writer ? e.body_writer->size : e.body.size(); }
}  // namespace

absl::StatusOr<std::vector<uint8_t>> BuildBytecode(
    const BytecodeIdentity& id, const std::vector<BytecodeEntry>& entries) {
  if (id.vendor.empty() || id.vendor.size() >= TSR_BYTECODE_NAME_SIZE ||
      id.soc_model.size() >= TSR_BYTECODE_NAME_SIZE)
    return absl::InvalidArgumentError("bytecode: vendor or SoC name too long or empty");
  if (entries.size() > TSR_BYTECODE_MAX_ENTRIES)
    return absl::InvalidArgumentError("bytecode: too many entry points");
  tsr_bytecode_header h{};
  std::memcpy(h.magic, "TSRB", 4);
  h.format_version = TSR_BYTECODE_FORMAT_VERSION;
  h.header_size = sizeof(h);
  h.abi_major = TSR_ABI_VERSION_MAJOR;
  h.abi_minor = TSR_ABI_VERSION_MINOR;
  std::memcpy(h.vendor, id.vendor.data(), id.vendor.size());
  std::memcpy(h.soc_model, id.soc_model.data(), id.soc_model.size());
  h.vendor_format_version = id.vendor_format_version;
  h.entry_count = static_cast<uint32_t>(entries.size());
  h.entry_table_offset = sizeof(h);
  h.body_offset = AlignUp(sizeof(h) + entries.size() * sizeof(tsr_bytecode_entry));
  // Entries sorted by name (byte order), so readers check uniqueness in one
  // pass and look entry points up by binary search.
  h.entry_size = sizeof(tsr_bytecode_entry);
  h.flags = TSR_BYTECODE_FLAG_SORTED_ENTRIES;
  std::vector<size_t> order(entries.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return entries[a].name < entries[b].name; });

  std::vector<tsr_bytecode_entry> table(entries.size());
  size_t body_size = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    const BytecodeEntry& e = entries[i];
    if (e.name.empty() || e.name.size() >= TSR_BYTECODE_ENTRY_NAME_SIZE || e.name.find('\0') != std::string::npos)
      return absl::InvalidArgumentError(absl::StrCat("bytecode: bad entry name '", e.name, "'"));
    if (k > 0 && entries[order[k - 1]].name == e.name)
      return absl::InvalidArgumentError(absl::StrCat("bytecode: duplicate entry name '", e.name, "'"));
    if (e.body_writer && (!e.body.empty() || !e.body_writer->write))
      return absl::InvalidArgumentError(absl::StrCat("bytecode: entry '", e.name, "' has both a body and a writer, or a writer that cannot write"));
    tsr_bytecode_entry& t = table[k];
    std::memset(&t, 0, sizeof(t));
    std::memcpy(t.name, e.name.data(), e.name.size());
    body_size = AlignUp(body_size);
    t.offset = body_size;
    t.size = BodySize(e);
    t.input_count = e.input_count;
    t.output_count = e.output_count;
    body_size += t.size;
  }
  h.body_size = body_size;
  h.total_size = h.body_offset + body_size;

  std::vector<uint8_t> blob(h.total_size, 0);
  std::memcpy(blob.data() + h.entry_table_offset, table.data(),
              table.size() * sizeof(tsr_bytecode_entry));
  for (size_t k = 0; k < order.size(); ++k) {
    const BytecodeEntry& e = entries[order[k]];
    uint8_t* slot = blob.data() + h.body_offset + table[k].offset;
    if (e.body_writer) {
      if (!e.body_writer->write({slot, e.body_writer->size}))
        return absl::InternalError(absl::StrCat("bytecode: entry '", e.name, "' wrote other than its declared size"));
    } else if (!e.body.empty()) {
      std::memcpy(slot, e.body.data(), e.body.size());
    }
  }
  std::memcpy(blob.data(), &h, sizeof(h));
  h.checksum = tsr_bytecode_compute_checksum(blob.data(), blob.size());
  std::memcpy(blob.data(), &h, sizeof(h));
  return blob;
}

absl::StatusOr<VerifiedEntry> VerifyAndFindEntry(std::span<const uint8_t> blob,
                                                 const char* vendor,
                                                 const char* entry_point,
                                                 tsr_status* out_code, uint32_t source_flags) {
  VerifiedEntry v{};
  char err[160];
  // A host that verified these exact bytes already says so; the bounds and
  // names are still checked (they are cheap), the CRC is not repeated.
  const uint32_t verify_flags =
      (source_flags & TSR_SOURCE_FLAG_ENVELOPE_VERIFIED) != 0 ? TSR_BYTECODE_VERIFY_SKIP_CHECKSUM : 0;
  tsr_status code = tsr_bytecode_verify_ex(blob.data(), blob.size(), vendor, verify_flags,
                                           &v.header, err, sizeof(err));
  if (code != TSR_OK) {
    if (out_code) *out_code = code;
    return absl::InvalidArgumentError(err);
  }
  if (entry_point == nullptr ||
      tsr_bytecode_find_entry(blob.data(), &v.header, entry_point, &v.entry) != TSR_OK) {
    if (out_code) *out_code = TSR_NOT_FOUND;
    return absl::NotFoundError(absl::StrCat("bytecode: no entry point '",
                                            entry_point ? entry_point : "(null)", "'"));
  }
  v.body = blob.subspan(v.header.body_offset + v.entry.offset, v.entry.size);
  return v;
}

}  // namespace tessera::kit
