// RunAsync's worker: one thread per run context (made on its first
// RunAsync, joined with the context) that runs the context's one run path
// (RunContext::Impl::RunViews) while the app goes on, so an async run works
// over any dispatch libraries. Inside the run, steps of libraries with the
// async table overlap as in every run (dispatch/execution_context_async.cc).
// One run at a time: the views it runs on are the context's. A run owns
// what it writes: the shared owners of its Allocate()d tensors until it
// ends, and its own profile, handed to the app's at Wait; so an app that
// drops its tensors or its profile early (or destroys the context, which
// waits for the run) never has memory freed under the worker.
#ifndef TESSERA_FRAMEWORK_APP_ASYNC_RUN_H_
#define TESSERA_FRAMEWORK_APP_ASYNC_RUN_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "tessera/app/tessera_app.hpp"

namespace tessera::app {

class AsyncRunner {
 public:
  explicit AsyncRunner(RunContext::Impl* impl) : impl_(impl) {}
  ~AsyncRunner();  // waits for a run in progress, then joins the worker
  AsyncRunner(const AsyncRunner&) = delete;
  AsyncRunner& operator=(const AsyncRunner&) = delete;

  // Started or queued and not yet collected by Wait.
  bool busy() const;
  // Hands the views (already set) to the worker, with the tensors they
  // point into (their owners are held until the run ends). The caller
  // checked !busy(). `profile` is filled by Wait, never by the worker.
  void Start(RunProfile* profile, std::span<const Tensor> inputs, std::span<const Tensor> outputs);
  // The run's status once it finished (the runner is then idle again);
  // TSR_DEADLINE_EXCEEDED if it did not within timeout_ns (it goes on);
  // TSR_FAILED_PRECONDITION when no run was started.
  Status Wait(uint64_t timeout_ns);

 private:
  enum class State { kIdle, kQueued, kDone };
  void Work();

  RunContext::Impl* impl_;
  mutable std::mutex lock_;
  std::condition_variable changed_;
  State state_ = State::kIdle;
  bool stop_ = false;
  RunProfile* profile_ = nullptr;  // the app's, written by Wait only
  RunProfile run_profile_;         // the worker's
  // The shared owners of the run's Allocate()d tensors; cleared (capacity
  // kept: a steady-state run allocates nothing) once the run ends.
  std::vector<std::shared_ptr<std::vector<uint8_t>>> held_;
  Status result_;
  std::thread worker_;
};

}  // namespace tessera::app

#endif  // TESSERA_FRAMEWORK_APP_ASYNC_RUN_H_
