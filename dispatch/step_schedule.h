// Which steps of a loaded plan depend on which, for running them out of
// order: a step waits only for the steps that wrote what it (or a
// conversion before it) reads. Every storage of a run is written by one
// writer (a step output, the conversions into it, or a graph input copied
// in before the steps), so reads after writes are the hazards within a run,
// plus a conversion target rewritten (with the same bytes) for a second
// consumer; a run finishes every step before the next starts.
#ifndef TESSERA_DISPATCH_STEP_SCHEDULE_H_
#define TESSERA_DISPATCH_STEP_SCHEDULE_H_

#include <cstdint>
#include <vector>

#include "dispatch/loaded_model.h"

namespace tessera {

struct StepSchedule {
  // Per storage: the step whose output it is; -1 when the host writes it
  // (graph inputs, conversion targets).
  std::vector<int32_t> producer;
  // Per step: the distinct earlier steps whose outputs it reads, ascending.
  std::vector<std::vector<int32_t>> depends_on;
  // Per step: the earlier steps the host must see finished before the
  // conversions in front of it run (they copy on the host): the producers
  // of what they read, and the readers of what they overwrite (a storage
  // two consumers share is converted again before the second).
  std::vector<std::vector<int32_t>> host_waits;
  // Per step: its session's library has the async sub-table (ABI 1.2).
  std::vector<bool> async;
  bool any_async = false;
};

// Built once per ExecutionContext (never per run).
StepSchedule ScheduleSteps(const LoadedModel& model);

// The async table of a dispatch table, or nullptr: absent, too old a
// table, one shorter than the whole v1.2 async table, or any member NULL
// (a partial table is used as none).
const tsr_dispatch_async_api* UsableAsyncApi(const tsr_dispatch_api* api);

// UsableAsyncApi of a session's library.
const tsr_dispatch_async_api* AsyncApiOf(const DeviceSession& session);

}  // namespace tessera

#endif  // TESSERA_DISPATCH_STEP_SCHEDULE_H_
