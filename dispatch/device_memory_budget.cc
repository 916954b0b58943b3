#include "dispatch/device_memory_budget.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "support/math/checked_math.h"
#include "tessera/bytecode.h"

namespace tessera {

absl::Status DeviceMemoryUse::AddExecutable(uint64_t bytecode_bytes) { return Add(bytecode_bytes, &executables_); }

absl::Status DeviceMemoryUse::AddBuffer(uint64_t bytes) { return Add(bytes, &buffers_); }

absl::Status DeviceMemoryUse::Add(uint64_t bytes, size_t* count) {
  const size_t executables = executables_ + (count == &executables_ ? 1 : 0);
  const size_t buffers = buffers_ + (count == &buffers_ ? 1 : 0);
  const std::string what = absl::StrCat("the device memory of '", vendor_, "' (", executables, " executables and ",
                                        buffers, " device buffers)");
  const std::optional<uint64_t> total = checked::Add(total_, bytes);
  if (!total) return absl::ResourceExhaustedError(absl::StrCat(what, " overflows 64 bits"));
  if (absl::Status s = CheckBudget(*budgets_, &Budgets::max_device_memory_bytes, *total, what); !s.ok()) return s;
  total_ = *total;
  ++*count;
  return absl::OkStatus();
}

uint64_t BytecodeEntryBytes(const void* blob, size_t size, const char* entry_point) {
  tsr_bytecode_header h;
  if (blob == nullptr || entry_point == nullptr ||
      tsr_bytecode_verify_ex(blob, size, nullptr, TSR_BYTECODE_VERIFY_SKIP_CHECKSUM, &h, nullptr, 0) != TSR_OK)
    return 0;
  tsr_bytecode_entry e;
  return tsr_bytecode_find_entry(blob, &h, entry_point, &e) == TSR_OK ? e.size : 0;
}

}  // namespace tessera
