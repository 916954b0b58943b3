#include "plugins/mock_dsp/dispatch/fault_injector.h"

#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "plugins/mock_dsp/shared/hold_file.h"

namespace tessera::mock_dsp {

Fault FaultInjector::LostFault(const char* call) const {
  return {TSR_DEVICE_LOST, absl::StrCat("mock_dsp: ", call,
                                        ": the device is lost (fault injection: "
                                        "mock_dsp.device_lost_after=",
                                        options_.device_lost_after, ")")};
}

Fault FaultInjector::BeforeInvoke() {
  if (lost_.load()) return LostFault("invoke");
  const int64_t n = ++invokes_;  // 1-based number of this invoke
  if (options_.device_lost_after >= 0 && n > options_.device_lost_after) {
    lost_.store(true);
    return LostFault("invoke");
  }
  if (options_.latency_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(options_.latency_us));
  if (options_.hang_invoke > 0 && n == options_.hang_invoke) {
    // A hung device: wait far past any sensible deadline, but only for
    // hang_ms (at most 10 s, in short slices), so no test hangs forever.
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.hang_ms);
    while (std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return {TSR_DEADLINE_EXCEEDED,
            absl::StrCat("mock_dsp: invoke ", n, " hung for ", options_.hang_ms,
                         " ms (fault injection: mock_dsp.hang_invoke=", options_.hang_invoke, ")")};
  }
  if (options_.hold_invoke > 0 && n == options_.hold_invoke) {
    // Tell the outside the invoke is in progress, then wait for its
    // release: an overlap test proves something else ran meanwhile.
    if (!HoldUntilReleased(options_.hold_file, options_.hang_ms))
      return {TSR_DEADLINE_EXCEEDED, absl::StrCat("mock_dsp: invoke ", n, " was held ", options_.hang_ms,
                                                  " ms and never released (fault injection: mock_dsp.hold_invoke=",
                                                  options_.hold_invoke, ", nothing created ", options_.hold_file, ")")};
  }
  if (options_.fail_invoke > 0 && n == options_.fail_invoke)
    return {TSR_UNAVAILABLE, absl::StrCat("mock_dsp: invoke ", n, " failed (fault injection: mock_dsp.fail_invoke=",
                                          options_.fail_invoke, ")")};
  if (options_.fail_after >= 0 && n > options_.fail_after)
    return {TSR_UNAVAILABLE, absl::StrCat("mock_dsp: invoke ", n,
                                          " failed (fault injection: mock_dsp.fail_after=", options_.fail_after, ")")};
  return {};
}

Fault FaultInjector::AfterInvoke() const {
  if (!options_.corrupt) return {};
  return {TSR_DATA_LOSS,
          "mock_dsp: the result is corrupt (fault injection: mock_dsp.corrupt=1); the outputs must "
          "not be used"};
}

}  // namespace tessera::mock_dsp
