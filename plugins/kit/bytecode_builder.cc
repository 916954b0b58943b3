#include "bytecode_builder.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace tessera::kit {
namespace {
constexpr size_t kAlign = 64;
size_t AlignUp(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }
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

  std::vector<tsr_bytecode_entry> table(entries.size());
  size_t body_size = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const BytecodeEntry& e = entries[i];
    if (e.name.empty() || e.name.size() >= TSR_BYTECODE_ENTRY_NAME_SIZE)
      return absl::InvalidArgumentError(absl::StrCat("bytecode: bad entry name '", e.name, "'"));
    tsr_bytecode_entry& t = table[i];
    std::memset(&t, 0, sizeof(t));
    std::memcpy(t.name, e.name.data(), e.name.size());
    body_size = AlignUp(body_size);
    t.offset = body_size;
    t.size = e.body.size();
    t.input_count = e.input_count;
    t.output_count = e.output_count;
    body_size += e.body.size();
  }
  h.body_size = body_size;
  h.total_size = h.body_offset + body_size;

  std::vector<uint8_t> blob(h.total_size, 0);
  std::memcpy(blob.data() + h.entry_table_offset, table.data(),
              table.size() * sizeof(tsr_bytecode_entry));
  for (size_t i = 0; i < entries.size(); ++i)
    if (!entries[i].body.empty())
      std::memcpy(blob.data() + h.body_offset + table[i].offset,
                  entries[i].body.data(), entries[i].body.size());
  std::memcpy(blob.data(), &h, sizeof(h));
  h.checksum = tsr_bytecode_compute_checksum(blob.data(), blob.size());
  std::memcpy(blob.data(), &h, sizeof(h));
  return blob;
}

absl::StatusOr<VerifiedEntry> VerifyAndFindEntry(std::span<const uint8_t> blob,
                                                 const char* vendor,
                                                 const char* entry_point,
                                                 tsr_status* out_code) {
  VerifiedEntry v{};
  char err[160];
  tsr_status code = tsr_bytecode_verify(blob.data(), blob.size(), vendor,
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
