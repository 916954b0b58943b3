// One vendor's dispatch library in use: its device context plus the
// executables loaded into it. Several sessions (NPU, DSP, CPU) live in one
// process at once; nothing here is global.
#ifndef TESSERA_DISPATCH_DEVICE_SESSION_H_
#define TESSERA_DISPATCH_DEVICE_SESSION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "plugin_host/plugin_library.h"
#include "plugin_host/soc_selection.h"

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

 private:
  DeviceSession(DispatchLibrary library, tsr_device_context context)
      : library_(std::move(library)), context_(context) {}
  DispatchLibrary library_;
  tsr_device_context context_;
};

}  // namespace tessera

#endif  // TESSERA_DISPATCH_DEVICE_SESSION_H_
