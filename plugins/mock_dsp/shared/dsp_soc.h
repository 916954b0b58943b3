// The mock DSP's view of the SoC description: its own [mock_dsp] section
// (docs/soc.md §4.4), read by both libraries. Only that section is read,
// line by line; the rest of the file is another vendor's business (the
// systolic NPU validates the whole file itself).
#ifndef TESSERA_PLUGINS_MOCK_DSP_SHARED_DSP_SOC_H_
#define TESSERA_PLUGINS_MOCK_DSP_SHARED_DSP_SOC_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"

namespace tessera::mock_dsp {

struct DspSoc {
  double clock_mhz = 0;               // vector unit clock
  int64_t vector_lanes = 0;           // f32 lanes per cycle
  int64_t transcendental_cycles = 0;  // cycles per vector of EXP, SIN, ...
  bool accepts_dmabuf = false;        // also accept the shared DMABUF type
};

// Reads [mock_dsp] from the description text. NotFound when the text is
// empty or has no such section (this SoC has no DSP); InvalidArgument
// naming the line for a missing, malformed or unknown key in the section.
absl::StatusOr<DspSoc> ReadDspSoc(const char* text, size_t size);

}  // namespace tessera::mock_dsp

#endif  // TESSERA_PLUGINS_MOCK_DSP_SHARED_DSP_SOC_H_
