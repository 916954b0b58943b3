// What the runtime does when a dispatch step fails (docs/resilience.md):
// each failure is put in one class, and the class decides whether the same
// invoke is tried again, whether the device is given up for good, and
// whether the partition's cpu plan runs instead. Nothing here talks to a
// library: run_context.cc applies it.
#ifndef TESSERA_DISPATCH_RESILIENCE_POLICY_H_
#define TESSERA_DISPATCH_RESILIENCE_POLICY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/common.h"

namespace tessera {

struct ResiliencePolicy {
  // Extra attempts of a transient failure (or an overrun) on the same
  // device before the cpu plan takes over. 0 = none.
  int32_t max_retries = 2;
  // Run the partition's cpu plan when its device gives up. Off: the
  // failure is the run's error, as before.
  bool fallback = true;
  // Per invoke, in milliseconds; 0 = no deadline.
  uint32_t deadline_ms = 0;
  // The fallback library (FallbackCompiler's vendor; "" = none): its
  // steps, like the cpu plans, are never abandoned at the deadline. They
  // are the last resort (nothing is left to run instead) and the
  // reference, and a late correct result beats none. Only accelerator
  // steps are held to the deadline.
  std::string last_resort_vendor;
};

// The classes of docs/resilience.md, in the order of its table.
enum class FailureClass {
  kTransient,   // TSR_RETRY_SAME_CALL codes: UNAVAILABLE, ABORTED, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED
  kDeviceLost,  // TSR_DEVICE_LOST: the context is gone for this and every later run
  kDeadline,    // the runtime saw the invoke overrun its deadline (whatever it returned)
  kCorrupt,     // TSR_DATA_LOSS: the library says its outputs are wrong
  kPermanent,   // everything else (TSR_RETRY_NEVER)
};
const char* FailureClassName(FailureClass c);  // "transient", "device_lost", ...

// `overran`: the runtime's own deadline check fired for this attempt.
FailureClass ClassifyFailure(tsr_status code, bool overran);
// Whether another attempt on the same device may succeed.
bool IsRetryable(FailureClass c);

// One step that did not end on its first attempt on its own device: retried
// to success, or handed to its cpu plan, or (no plan, or fallback off) the
// run's error.
struct FallbackRecord {
  size_t step = 0;         // index of the DISPATCH op in the compiled graph
  uint32_t op_id = 0;      // its op id
  std::string from;        // the vendor whose invoke failed
  std::string to;          // who produced the outputs: the same vendor (retried), the fallback that ran its cpu plan, or "" (none: error)
  std::string failure;     // FailureClassName of the last failure
  std::string reason;      // the last failure's text
  int32_t attempts = 0;    // invokes tried on `from` in this run (0: its device was lost in an earlier run)
};

}  // namespace tessera

#endif  // TESSERA_DISPATCH_RESILIENCE_POLICY_H_
