// RunOptions: what one run may be given beside its tensors (cancel from
// another thread, a deadline, a tag for the trace).
// Part of the app API: include "tessera/app/tessera_app.hpp".
#ifndef TESSERA_APP_RUN_OPTIONS_HPP_
#define TESSERA_APP_RUN_OPTIONS_HPP_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace tessera::app {

// A cancel switch for runs, to be thrown from any thread. Copies share one
// switch, so the thread that cancels holds a copy of what the run was
// given. Cancelled stays cancelled until Reset().
class RunCancellation {
 public:
  RunCancellation() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void Cancel() const { flag_->store(true, std::memory_order_release); }
  void Reset() const { flag_->store(false, std::memory_order_release); }
  bool cancelled() const { return flag_->load(std::memory_order_acquire); }
  // The switch itself, for the runtime; lives as long as any copy.
  const std::atomic<bool>* flag() const { return flag_.get(); }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

struct RunOptions {
  // Checked before each step of the run (a step under way finishes first):
  // once cancelled, the run ends with TSR_CANCELLED, naming how many steps
  // ran. The outputs are then undefined.
  RunCancellation cancel;
  // Milliseconds from the call; 0 = none. A run that passes it, before a
  // step or by its end, ends with TSR_DEADLINE_EXCEEDED (late outputs are
  // not returned as good ones). Beside CompileOptions::deadline_ms, which
  // holds each device invoke to its deadline and falls back.
  uint32_t deadline_ms = 0;
  // Names the run: RunProfile::tag, and the process name of its trace
  // (ChromeTraceJson: "tessera run: TAG").
  std::string tag;
};

}  // namespace tessera::app

#endif  // TESSERA_APP_RUN_OPTIONS_HPP_
