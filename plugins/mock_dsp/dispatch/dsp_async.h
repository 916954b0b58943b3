// The mock DSP's asynchronous execution (tsr_dispatch_async_api, ABI 1.2):
// one in-order queue per device context, drained by one worker thread that
// the context starts on its first timeline and joins when it is destroyed.
// A queued invocation runs once every wait point is reached; it then
// signals its point, or fails its timeline with the invoke's own error text
// (sticky: later waits on that timeline get it). Timelines are this
// library's and one context's: waits on another context's timeline are
// refused (docs/mock_dsp.md).
#ifndef TESSERA_PLUGINS_MOCK_DSP_DISPATCH_DSP_ASYNC_H_
#define TESSERA_PLUGINS_MOCK_DSP_DISPATCH_DSP_ASYNC_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "tessera/dispatch.h"

namespace tessera::mock_dsp {
class AsyncQueue;
}

struct tsr_timeline_s {
  tessera::mock_dsp::AsyncQueue* queue = nullptr;
  // Guarded by the queue's lock.
  uint64_t value = 0;
  tsr_status failure = TSR_OK;
  std::string failure_text;
  int64_t uses = 0;  // queued entries that wait on or signal it
};

namespace tessera::mock_dsp {

class AsyncQueue {
 public:
  // Runs one invocation synchronously on the worker: returns its status and,
  // on failure, sets *error to its text.
  using RunFn = tsr_status (*)(tsr_invocation invocation, std::string* error);
  explicit AsyncQueue(RunFn run) : run_(run) {}
  // Joins the worker; entries still waiting fail with TSR_ABORTED.
  ~AsyncQueue();
  AsyncQueue(const AsyncQueue&) = delete;
  AsyncQueue& operator=(const AsyncQueue&) = delete;

  tsr_status CreateTimeline(uint64_t initial_value, tsr_timeline* out);
  void DestroyTimeline(tsr_timeline timeline);
  tsr_status Enqueue(tsr_invocation invocation, const tsr_timeline_point* waits, size_t wait_count,
                     tsr_timeline_point signal);
  tsr_status Wait(tsr_timeline_point point, uint64_t timeout_ns);
  tsr_status Query(tsr_timeline timeline, uint64_t* out_value, tsr_status* out_failure, char* out_text,
                   size_t text_capacity, size_t* out_text_length);
  tsr_status Signal(tsr_timeline_point point);

 private:
  struct Entry {
    tsr_invocation invocation = nullptr;
    absl::InlinedVector<tsr_timeline_point, 4> waits;  // inline: a steady-state enqueue allocates nothing
    tsr_timeline_point signal{};
  };
  void Work();
  // With lock_ held: every wait reached (true), or one failed (*failed set).
  bool Ready(const Entry& e, const tsr_timeline_s** failed) const;
  void Fail(tsr_timeline t, tsr_status code, std::string text);
  void Release(const Entry& e);

  RunFn run_;
  std::mutex lock_;
  std::condition_variable changed_;  // a timeline moved, an entry came or left, or stop
  // A ring of entries, grown only when full: steady state allocates nothing.
  std::vector<Entry> ring_;
  size_t head_ = 0, size_ = 0;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace tessera::mock_dsp

#endif  // TESSERA_PLUGINS_MOCK_DSP_DISPATCH_DSP_ASYNC_H_
