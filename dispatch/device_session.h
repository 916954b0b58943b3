// One vendor's dispatch library in use: its device context plus the
// executables loaded into it. Several sessions (NPU, DSP, CPU) live in one
// process at once; nothing here is global.
#ifndef TESSERA_DISPATCH_DEVICE_SESSION_H_
#define TESSERA_DISPATCH_DEVICE_SESSION_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/core/base/soc_selection.h"
#include "framework/loader/plugin_library.h"

namespace tessera {

class DeviceSession {
 public:
  static absl::StatusOr<std::unique_ptr<DeviceSession>> Create(
      const DispatchLibrary& library, const SocSelection& soc,
      const std::vector<std::pair<std::string, std::string>>& options);
  ~DeviceSession();

  const DispatchLibrary& library() const { return library_; }
  const tsr_dispatch_api* api() const { return library_.api; }
  tsr_device_context context() const { return context_; }
  absl::Status Check(tsr_status code, const std::string& context) const;

  // TSR_DEVICE_LOST is sticky for a context (common.h): once an invoke
  // reports it, every step of this session, in every ExecutionContext and every
  // later run, goes to its cpu plan (docs/resilience.md). Thread-safe.
  void MarkLost(const std::string& why) const;
  bool lost() const { return lost_.load(std::memory_order_acquire); }
  std::string lost_reason() const;

 private:
  DeviceSession(DispatchLibrary library, tsr_device_context context)
      : library_(std::move(library)), context_(context) {}
  DispatchLibrary library_;
  tsr_device_context context_;
  mutable std::atomic<bool> lost_{false};
  mutable std::mutex lost_lock_;
  mutable std::string lost_reason_;
};

}  // namespace tessera

#endif  // TESSERA_DISPATCH_DEVICE_SESSION_H_
