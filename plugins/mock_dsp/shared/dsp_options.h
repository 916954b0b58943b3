// The mock DSP's plugin options ("mock_dsp.KEY=VALUE", --option on the
// CLI): fault-injection knobs for the reliability and conformance tests.
// The compiler and the dispatch library accept the same keys, so one option
// list can go to both; each acts on the keys that concern it.
#ifndef TESSERA_PLUGINS_MOCK_DSP_SHARED_DSP_OPTIONS_H_
#define TESSERA_PLUGINS_MOCK_DSP_SHARED_DSP_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "tessera/common.h"

namespace tessera::mock_dsp {

struct DspOptions {
  bool refuse_load = false;        // create (compiler) / create_device_context fail
  int32_t fail_compile_op = 0;     // tsr_op_type whose partitions fail to compile; 0 = none
  int64_t fail_invoke = 0;         // the Nth invoke of a context fails (1-based); 0 = never
  int64_t fail_after = -1;         // every invoke after the Nth fails (0: all); -1 = never
  int64_t latency_us = 0;          // added to every invoke (a real sleep)
  bool corrupt = false;            // every invoke reports TSR_DATA_LOSS
  int64_t device_lost_after = -1;  // invokes after the Nth return TSR_DEVICE_LOST (0: all); -1 = never
  int64_t hang_invoke = 0;         // the Nth invoke hangs for hang_ms, then fails
  int64_t hang_ms = 2000;          // bounded, so no test waits forever
  // A test hook for overlap proofs: the Nth invoke creates "<hold_file>.held"
  // and then waits until hold_file exists (at most hang_ms, then it fails):
  // something outside the DSP releases it. 0 = never.
  int64_t hold_invoke = 0;
  // The same for every compile call (1): what a slow vendor compile looks
  // like to a background warm-up, for the test that its first run answers
  // before the compile ends.
  bool hold_compile = false;
  std::string hold_file;
};

// Every key this plugin knows, for messages.
extern const char* const kDspOptionKeys[];

// Parses the "mock_dsp." options of `options`; other vendors' keys are
// ignored. Unknown keys, non-integers, negative counts and unknown op names
// are InvalidArgument naming the option.
absl::StatusOr<DspOptions> ParseDspOptions(const tsr_key_value* options, size_t count);

// "SIN" -> TSR_OP_SIN; 0 when unknown. Upper-case names as docs/ops.md.
int32_t OpTypeFromName(const std::string& name);
const char* OpName(int32_t type);

}  // namespace tessera::mock_dsp

#endif  // TESSERA_PLUGINS_MOCK_DSP_SHARED_DSP_OPTIONS_H_
