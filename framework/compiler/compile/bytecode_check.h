// The framework's check of every AOT blob a compiler returns, before
// anything is written: the standard envelope verifies (magic,
// sizes, bounds, entry table, CRC-32 of the body), it names the vendor that
// produced it and the SoC it was compiled for (or "any"), and it holds the
// entry point of every partition that compiled. A blob that fails is that
// vendor's compile failure: its partitions fall back with this message,
// instead of a model that is written with exit 0 and fails on the device.
#ifndef TESSERA_FRAMEWORK_COMPILER_COMPILE_BYTECODE_CHECK_H_
#define TESSERA_FRAMEWORK_COMPILER_COMPILE_BYTECODE_CHECK_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "framework/compiler/claims/compiler_instance.h"

namespace tessera {

// `partitions`: indices (within this compile call) whose entry points must
// be in the blob; `soc`: the SoC compiled for ("" = plugin default: any
// SoC name is accepted).
absl::Status CheckCompiledBytecode(const CompiledArtifact& artifact, const std::string& vendor, const std::string& soc,
                                   const std::vector<size_t>& partitions);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_COMPILE_BYTECODE_CHECK_H_
