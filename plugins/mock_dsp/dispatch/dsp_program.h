// A loaded mock DSP program: the partition's graph (decoded from the JIT
// payload), checked against what the DSP runs, with its modelled cycles.
#ifndef TESSERA_PLUGINS_MOCK_DSP_DISPATCH_DSP_PROGRAM_H_
#define TESSERA_PLUGINS_MOCK_DSP_DISPATCH_DSP_PROGRAM_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/kit/graph_snapshot.h"
#include "plugins/mock_dsp/shared/dsp_soc.h"

namespace tessera::mock_dsp {

struct DspProgram {
  kit::GraphSnapshot graph;
  std::vector<uint64_t> tensor_bytes;  // per tensor
  uint64_t cycles = 0;                 // modelled, per invoke
  bool has_f16 = false;                // any f16 tensor (sets the declared tolerance)
};

// Decodes and checks `encoded` (untrusted: every op must be one the DSP
// runs). `encoded` must outlive the program (constants point into it).
absl::StatusOr<DspProgram> LoadDspProgram(std::span<const uint8_t> encoded, const DspSoc& soc);

// The graph's inputs and outputs as the dispatch library attached them:
// where the bytes are and their row stride (0 = dense; TcmRowStride for a
// TCM buffer).
struct DspIo {
  void* data = nullptr;
  int64_t row_stride_bytes = 0;
};

// Runs every op in order. Intermediates stay in dense scratch; graph
// inputs and outputs are read and written in their own layout.
absl::Status RunDspProgram(const DspProgram& program, std::span<const DspIo> inputs, std::span<const DspIo> outputs);

}  // namespace tessera::mock_dsp

#endif  // TESSERA_PLUGINS_MOCK_DSP_DISPATCH_DSP_PROGRAM_H_
