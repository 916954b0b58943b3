#include "framework/loader/code_address.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace {

struct Search {
  uintptr_t address;
  size_t bytes;     // the range [address, address + bytes) must fit one segment
  ElfW(Word) flag;  // PF_X for code, PF_R for data
  bool found;
};

int VisitObject(dl_phdr_info* info, size_t, void* data) {
  auto* s = static_cast<Search*>(data);
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & s->flag) == 0) continue;
    const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    if (s->address >= lo && s->address - lo < ph.p_memsz && s->bytes <= ph.p_memsz - (s->address - lo)) {
      s->found = true;
      return 1;  // stops the walk
    }
  }
  return 0;
}

// The size of the loaded segment's rest from `address` on (0 when none).
int VisitObjectRest(dl_phdr_info* info, size_t, void* data) {
  auto* s = static_cast<Search*>(data);
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_R) == 0) continue;
    const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    if (s->address >= lo && s->address - lo < ph.p_memsz) {
      s->bytes = ph.p_memsz - (s->address - lo);
      return 1;
    }
  }
  return 0;
}

bool InSegment(const void* address, size_t bytes, ElfW(Word) flag) {
  if (address == nullptr) return false;
  Search s{reinterpret_cast<uintptr_t>(address), bytes, flag, false};
  dl_iterate_phdr(VisitObject, &s);
  return s.found;
}

}  // namespace

bool IsCodeAddress(const void* address) { return InSegment(address, 1, PF_X); }

bool IsLoadedData(const void* address, size_t bytes) { return InSegment(address, bytes, PF_R); }

bool IsLoadedString(const char* s, size_t max_length) {
  if (s == nullptr) return false;
  Search rest{reinterpret_cast<uintptr_t>(s), 0, PF_R, false};
  dl_iterate_phdr(VisitObjectRest, &rest);
  // Read only within the segment: the NUL must come before its end.
  const size_t limit = rest.bytes < max_length + 1 ? rest.bytes : max_length + 1;
  for (size_t i = 0; i < limit; ++i)
    if (s[i] == '\0') return true;
  return false;
}

absl::Status CheckEntrySymbolIsCode(const void* address, const std::string& name) {
  Dl_info info{};
  void* entry = nullptr;  // a const ElfW(Sym)*
  if (dladdr1(address, &info, &entry, RTLD_DL_SYMENT) != 0 && entry != nullptr) {
    const auto* sym = static_cast<const ElfW(Sym)*>(entry);
    const unsigned type = ELF64_ST_TYPE(sym->st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC)
      return absl::FailedPreconditionError(absl::StrCat("entry symbol ", name, " is not a function (ELF symbol type ",
                                                        type, type == STT_OBJECT ? ", a data object" : "",
                                                        "): calling it would crash the host"));
  }
  if (!IsCodeAddress(address))
    return absl::FailedPreconditionError(
        absl::StrCat("entry symbol ", name, " is not in executable memory: calling it would crash the host"));
  return absl::OkStatus();
}

}  // namespace tessera
