#include "dispatch/step_schedule.h"

#include <algorithm>

namespace tessera {

const tsr_dispatch_async_api* UsableAsyncApi(const tsr_dispatch_api* api) {
  if (api == nullptr || !TSR_ABI_HAS(api, tsr_dispatch_api, async) || api->async == nullptr) return nullptr;
  const tsr_dispatch_async_api* a = api->async;
  // Every member is needed: a partial table is used as none.
  if (a->header.struct_size < sizeof(tsr_dispatch_async_api) || a->create_timeline == nullptr ||
      a->destroy_timeline == nullptr || a->invoke_async == nullptr || a->wait == nullptr || a->query == nullptr ||
      a->signal == nullptr)
    return nullptr;
  return a;
}

const tsr_dispatch_async_api* AsyncApiOf(const DeviceSession& session) { return UsableAsyncApi(session.api()); }

StepSchedule ScheduleSteps(const LoadedModel& model) {
  const std::vector<LoadedStep>& steps = model.steps();
  StepSchedule s;
  s.producer.assign(model.storages().size(), -1);
  for (size_t k = 0; k < steps.size(); ++k)
    for (int32_t storage : steps[k].output_storage)
      if (storage >= 0) s.producer[storage] = static_cast<int32_t>(k);
  s.depends_on.resize(steps.size());
  s.host_waits.resize(steps.size());
  s.async.resize(steps.size());
  auto unique = [](std::vector<int32_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  for (size_t k = 0; k < steps.size(); ++k) {
    const int32_t self = static_cast<int32_t>(k);
    auto producer_of = [&](int32_t storage) { return storage >= 0 ? s.producer[storage] : -1; };
    for (int32_t storage : steps[k].input_storage)
      if (const int32_t p = producer_of(storage); p >= 0 && p != self) s.depends_on[k].push_back(p);
    for (const LoadedStep::Conversion& c : steps[k].conversions_before) {
      if (const int32_t p = producer_of(c.from); p >= 0 && p != self) s.host_waits[k].push_back(p);
      for (size_t j = 0; j < k; ++j)
        if (std::find(steps[j].input_storage.begin(), steps[j].input_storage.end(), c.to) != steps[j].input_storage.end())
          s.host_waits[k].push_back(static_cast<int32_t>(j));
    }
    unique(s.depends_on[k]);
    unique(s.host_waits[k]);
    s.async[k] = AsyncApiOf(*model.sessions()[steps[k].session]) != nullptr;
    s.any_async = s.any_async || s.async[k];
  }
  return s;
}

}  // namespace tessera
