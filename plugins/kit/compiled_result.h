// A ready-made tsr_compiled for plugins: one AOT blob with an entry point
// per partition, or one JIT payload per partition, plus the four table
// functions that read it. A plugin that links the kit uses this definition
// of struct tsr_compiled_s (each plugin .so has its own copy).
#ifndef TESSERA_PLUGINS_KIT_COMPILED_RESULT_H_
#define TESSERA_PLUGINS_KIT_COMPILED_RESULT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/kit/bytecode_builder.h"
#include "tessera/compiler_plugin.h"

namespace tessera::kit {

// What a JIT handle points at: plain C data, so a vendor's compiler and
// dispatch libraries (two separate .so files) agree on it without sharing
// C++ layouts. `magic` and `format_version` are the vendor's own.
struct JitPayload {
  uint32_t magic;
  uint32_t format_version;
  const uint8_t* body;     // valid until the tsr_compiled is released
  size_t body_size;
  uint32_t input_count;
  uint32_t output_count;
};

// Dispatch side: the payload behind a handle, or an error when the handle
// is NULL or belongs to someone else.
absl::StatusOr<const JitPayload*> JitPayloadFromHandle(tsr_jit_handle handle, uint32_t magic, uint32_t format_version);

struct PartitionCode {
  std::string entry_point;
  std::vector<uint8_t> body;
  uint32_t input_count = 0;
  uint32_t output_count = 0;
  // A partition that failed to compile (TSR_COMPILE_FLAG_PARTIAL_OK): no
  // code, an error, and the op ids (op_id) that caused it, if known.
  absl::Status status;
  std::vector<uint32_t> culprit_op_ids;
  // Instead of `body`: written in place into the result (BodyWriter), so a
  // body carrying the weights is never held twice.
  std::optional<BodyWriter> body_writer;
  // Constants the body names instead of embedding (AOT with
  // TSR_COMPILE_FLAG_EXTERNAL_CONSTANTS_OK only): the host binds them at load.
  std::vector<tsr_constant_reference> constant_references;
};

// The mode of `options` (compile, compatibility_info): exactly one of
// TSR_COMPILE_MODE_AOT or _JIT, else InvalidArgument naming `call`. One
// check, so compile and compatibility_info refuse the same options.
absl::StatusOr<uint32_t> CompileModeOf(const tsr_compile_options* options, const char* call);

// Assembles the result of one compile() call. For AOT the bodies go into a
// standard-envelope blob; for JIT each becomes a payload behind a handle.
absl::StatusOr<tsr_compiled> MakeCompiledResult(uint32_t mode, const BytecodeIdentity& identity, uint32_t jit_magic,
                                                std::vector<PartitionCode> partitions);

// The table functions. A failed partition has no entry point and no JIT
// handle (TSR_NOT_FOUND); CompiledPartitionStatus says why.
tsr_status CompiledBytecode(tsr_compiled compiled, const void** out_data, size_t* out_size);
tsr_status CompiledEntryPoint(tsr_compiled compiled, size_t i, const char** out_name);
tsr_status CompiledJitHandle(tsr_compiled compiled, size_t i, tsr_jit_handle* out_handle);
void ReleaseCompiled(tsr_compiled compiled);
tsr_status CompiledPartitionStatus(tsr_compiled compiled, size_t i, tsr_status* out_code, char* out_text,
                                   size_t text_capacity, size_t* out_text_length);
tsr_status CompiledPartitionCulprits(tsr_compiled compiled, size_t i, const uint32_t** out_op_ids,
                                     size_t* out_count);
tsr_status CompiledConstantReferences(tsr_compiled compiled, size_t i, const tsr_constant_reference** out,
                                      size_t* out_count);

// Compiles each partition with `compile_one`; with PARTIAL_OK in `flags`
// a failing partition is recorded (status, culprits) instead of failing
// the whole call. Exceptions count as that partition's failure.
template <typename CompileOne>
absl::StatusOr<std::vector<PartitionCode>> CompileEach(size_t partition_count, uint32_t flags,
                                                       CompileOne&& compile_one) {
  std::vector<PartitionCode> code;
  code.reserve(partition_count);
  for (size_t p = 0; p < partition_count; ++p) {
    absl::StatusOr<PartitionCode> one = compile_one(p);
    if (!one.ok()) {
      if ((flags & TSR_COMPILE_FLAG_PARTIAL_OK) == 0) return one.status();
      PartitionCode failed;
      failed.status = one.status();
      code.push_back(std::move(failed));
      continue;
    }
    code.push_back(*std::move(one));
  }
  return code;
}

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_COMPILED_RESULT_H_
