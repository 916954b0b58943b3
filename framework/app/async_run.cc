#include "framework/app/async_run.h"

#include <chrono>
#include <string>
#include <utility>

#include "framework/app/app_internal.h"

namespace tessera::app {

AsyncRunner::~AsyncRunner() {
  {
    std::lock_guard<std::mutex> lock(lock_);
    stop_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

bool AsyncRunner::busy() const {
  std::lock_guard<std::mutex> lock(lock_);
  return state_ != State::kIdle;
}

void AsyncRunner::Start(RunProfile* profile, std::span<const Tensor> inputs, std::span<const Tensor> outputs) {
  {
    std::lock_guard<std::mutex> lock(lock_);
    profile_ = profile;
    held_.clear();
    for (std::span<const Tensor> tensors : {inputs, outputs})
      for (const Tensor& t : tensors)
        if (const std::shared_ptr<std::vector<uint8_t>>& owner = TensorAccess::Owner(t)) held_.push_back(owner);
    state_ = State::kQueued;
    // The thread is made once and kept: later runs allocate no thread.
    if (!worker_.joinable()) worker_ = std::thread([this] { Work(); });
  }
  changed_.notify_all();
}

void AsyncRunner::Work() {
  std::unique_lock<std::mutex> lock(lock_);
  for (;;) {
    // A queued run is finished even when the context goes: the app's
    // buffers are borrowed until it ends, never abandoned mid-run.
    changed_.wait(lock, [&] { return state_ == State::kQueued || stop_; });
    if (state_ != State::kQueued) return;
    RunProfile* profile = profile_ != nullptr ? &run_profile_ : nullptr;
    lock.unlock();
    Status result = impl_->RunViews(profile);
    lock.lock();
    // Done writing: the tensors the app may have dropped go now.
    held_.clear();
    result_ = std::move(result);
    state_ = State::kDone;
    changed_.notify_all();
  }
}

Status AsyncRunner::Wait(uint64_t timeout_ns) {
  std::unique_lock<std::mutex> lock(lock_);
  if (state_ == State::kIdle)
    return Status(TSR_FAILED_PRECONDITION, "no asynchronous run to wait for (RunAsync first)");
  auto done = [&] { return state_ == State::kDone; };
  // Past about 73 years a deadline overflows the clock: wait forever.
  constexpr uint64_t kForever = uint64_t{1} << 61;
  if (timeout_ns >= kForever) {
    changed_.wait(lock, done);
  } else if (!changed_.wait_for(lock, std::chrono::nanoseconds(timeout_ns), done)) {
    return Status(TSR_DEADLINE_EXCEEDED, "the asynchronous run is still going (wait again)");
  }
  state_ = State::kIdle;
  if (profile_ != nullptr) std::swap(*profile_, run_profile_);
  profile_ = nullptr;
  return std::exchange(result_, Status());
}

}  // namespace tessera::app
