// A loaded cpu executable: the decoded partition plus the per-op kernel
// attributes, ready to interpret with the reference kernels.
#ifndef TESSERA_PLUGINS_CPU_DISPATCH_CPU_PROGRAM_H_
#define TESSERA_PLUGINS_CPU_DISPATCH_CPU_PROGRAM_H_

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "graph_snapshot.h"
#include "kernel_api.h"

namespace tessera::cpu {

struct CpuProgram {
  kit::GraphSnapshot graph;
  std::vector<Attributes> op_attrs;       // per op
  std::vector<size_t> tensor_bytes;       // per tensor
  std::vector<int32_t> input_slot;        // tensor -> graph input index or -1
  std::vector<int32_t> output_slot;       // tensor -> graph output index or -1
};

// Decodes and checks an encoded partition; constants point into `encoded`,
// which must outlive the program.
absl::StatusOr<CpuProgram> LoadCpuProgram(std::span<const uint8_t> encoded);

// Runs the program. `inputs`/`outputs` are the attached host buffers, in
// graph input/output order; `scratch` holds intermediates (resized here).
absl::Status RunCpuProgram(const CpuProgram& program, std::span<void* const> inputs,
                           std::span<void* const> outputs, std::vector<std::vector<uint8_t>>& scratch);

}  // namespace tessera::cpu

#endif  // TESSERA_PLUGINS_CPU_DISPATCH_CPU_PROGRAM_H_
