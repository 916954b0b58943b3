// The dispatch side of the fault-injection options (dsp_options.h): decides,
// per invoke of one device context, whether the invoke runs, is delayed,
// fails, hangs, reports corruption or loses the device. Counting is per
// context, so two runs in one process see independent devices.
#ifndef TESSERA_PLUGINS_MOCK_DSP_DISPATCH_FAULT_INJECTOR_H_
#define TESSERA_PLUGINS_MOCK_DSP_DISPATCH_FAULT_INJECTOR_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "plugins/mock_dsp/shared/dsp_options.h"
#include "tessera/common.h"

namespace tessera::mock_dsp {

struct Fault {
  tsr_status code = TSR_OK;
  std::string message;
  bool ok() const { return code == TSR_OK; }
};

class FaultInjector {
 public:
  explicit FaultInjector(const DspOptions& options) : options_(options) {}

  // Before the kernels run: counts the invoke, applies latency and hangs,
  // and returns the failure this invoke injects (OK to run it).
  Fault BeforeInvoke();
  // After the kernels ran: the corruption report, if injected.
  Fault AfterInvoke() const;
  // Once the device is lost every later call fails with TSR_DEVICE_LOST.
  bool device_lost() const { return lost_.load(); }
  Fault LostFault(const char* call) const;
  int64_t invokes() const { return invokes_.load(); }

 private:
  DspOptions options_;
  std::atomic<int64_t> invokes_{0};
  std::atomic<bool> lost_{false};
};

}  // namespace tessera::mock_dsp

#endif  // TESSERA_PLUGINS_MOCK_DSP_DISPATCH_FAULT_INJECTOR_H_
