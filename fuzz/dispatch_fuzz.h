// Shared body of the two dispatch fuzz targets: bytes -> load_executable
// through the library's own C table (the host's path), then the executable
// queries a host makes next, then unload.
//
// The envelope's checksum is not checked: the input is loaded with
// TSR_SOURCE_FLAG_ENVELOPE_VERIFIED, as the host loads every blob
// (dispatch/loaded_model.cc verifies a blob's CRC once, then loads each
// entry with the flag). An attacker recomputes the CRC anyway, so
// a CRC check would only stop mutations before the envelope bounds and the
// vendor body. The flag skips the CRC alone; every structural check of the
// envelope still runs. The CRC check itself is the bytecode_verify
// target's. (These targets used to recompute the CRC and have the loader
// check it again: with coverage instrumentation the two CRC passes were
// two thirds of each execution, docs/reliability.md §10.)
#ifndef TESSERA_FUZZ_DISPATCH_FUZZ_H_
#define TESSERA_FUZZ_DISPATCH_FUZZ_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "tessera/bytecode.h"
#include "tessera/dispatch.h"

namespace tessera::fuzz {

using Negotiate = tsr_status (*)(tsr_version, tsr_version*, const tsr_dispatch_api**);

// One context per process (created on the first input, default options,
// as the CLI creates it): contexts are not what is being fuzzed.
struct DispatchUnderTest {
  const tsr_dispatch_api* api = nullptr;
  tsr_device_context ctx = nullptr;
};

// `options`: the context's vendor options, as an app sets them (the cpu
// target sets a memory budget a phone app would; see
// cpu_dispatch_load_fuzzer.cc).
inline DispatchUnderTest OpenDispatch(Negotiate negotiate, std::initializer_list<tsr_key_value> options = {}) {
  DispatchUnderTest d;
  tsr_version got{};
  if (negotiate({TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR}, &got, &d.api) != TSR_OK) __builtin_trap();
  tsr_device_context_options o{};
  o.header = {sizeof(o), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  o.options = options.begin();
  o.option_count = options.size();
  if (d.api->create_device_context(&o, &d.ctx) != TSR_OK) __builtin_trap();
  return d;
}

// The first entry's name when the envelope holds one, else "main": loading
// a real entry is what reaches the vendor body.
inline void FirstEntryName(const uint8_t* blob, size_t size, char (&name)[TSR_BYTECODE_ENTRY_NAME_SIZE]) {
  std::strcpy(name, "main");
  tsr_bytecode_header h;
  if (tsr_bytecode_verify_ex(blob, size, nullptr, TSR_BYTECODE_VERIFY_SKIP_CHECKSUM, &h, nullptr, 0) != TSR_OK ||
      h.entry_count == 0)
    return;
  std::memcpy(name, blob + h.entry_table_offset, sizeof(name));
  name[sizeof(name) - 1] = '\0';
}

inline void FuzzLoadExecutable(const DispatchUnderTest& d, const uint8_t* data, size_t size) {
  char entry[TSR_BYTECODE_ENTRY_NAME_SIZE];
  FirstEntryName(data, size, entry);
  tsr_executable_source src{};
  src.header = {sizeof(src), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  src.kind = TSR_EXECUTABLE_BYTECODE;
  src.bytecode = data;  // libFuzzer's exactly-sized copy: ASan sees any read past it
  src.bytecode_size = size;
  src.entry_point = entry;
  src.flags = TSR_SOURCE_FLAG_ENVELOPE_VERIFIED;
  tsr_executable exe = nullptr;
  if (d.api->load_executable(d.ctx, &src, &exe) != TSR_OK) return;
  size_t ins = 0, outs = 0;
  if (d.api->executable_io_count(exe, &ins, &outs) == TSR_OK) {
    for (int32_t kind : {TSR_IO_INPUT, TSR_IO_OUTPUT}) {
      for (size_t i = 0; i < (kind == TSR_IO_INPUT ? ins : outs); ++i) {
        tsr_buffer_requirements r{};
        r.header = {sizeof(r), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
        (void)d.api->buffer_requirements(exe, kind, i, &r);
      }
    }
  }
  d.api->unload_executable(exe);
}

}  // namespace tessera::fuzz

#endif  // TESSERA_FUZZ_DISPATCH_FUZZ_H_
