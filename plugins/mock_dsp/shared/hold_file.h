// The mock DSP's hold hook for overlap proofs (options hold_invoke and
// hold_compile): the held call creates "<hold_file>.held", then waits until
// something outside the DSP creates hold_file, for at most hang_ms.
#ifndef TESSERA_PLUGINS_MOCK_DSP_SHARED_HOLD_FILE_H_
#define TESSERA_PLUGINS_MOCK_DSP_SHARED_HOLD_FILE_H_

#include <cstdint>
#include <string>

namespace tessera::mock_dsp {

// True once released; false when hang_ms passed first.
bool HoldUntilReleased(const std::string& hold_file, int64_t hang_ms);

}  // namespace tessera::mock_dsp

#endif  // TESSERA_PLUGINS_MOCK_DSP_SHARED_HOLD_FILE_H_
