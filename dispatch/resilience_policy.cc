#include "dispatch/resilience_policy.h"

namespace tessera {

const char* FailureClassName(FailureClass c) {
  switch (c) {
    case FailureClass::kTransient: return "transient";
    case FailureClass::kDeviceLost: return "device_lost";
    case FailureClass::kDeadline: return "deadline_exceeded";
    case FailureClass::kCorrupt: return "corrupt";
    case FailureClass::kPermanent: return "permanent";
  }
  return "permanent";
}

FailureClass ClassifyFailure(tsr_status code, bool overran) {
  // A lost device outranks an overrun: no later attempt on it can succeed.
  if (code == TSR_DEVICE_LOST) return FailureClass::kDeviceLost;
  // An overrun is the runtime's own verdict: the result came too late to
  // be used, even when the library says OK.
  if (overran || code == TSR_DEADLINE_EXCEEDED) return FailureClass::kDeadline;
  if (code == TSR_DATA_LOSS) return FailureClass::kCorrupt;
  if (tsr_status_retry_class(code) == TSR_RETRY_SAME_CALL) return FailureClass::kTransient;
  return FailureClass::kPermanent;
}

// A corrupt result is a defect of that device's code for these inputs
// (common.h: DATA_LOSS is TSR_RETRY_NEVER): trying it again would only
// risk using it. A permanent failure repeats by definition.
bool IsRetryable(FailureClass c) { return c == FailureClass::kTransient || c == FailureClass::kDeadline; }

}  // namespace tessera
