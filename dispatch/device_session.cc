#include "dispatch/device_session.h"

#include "absl/strings/str_cat.h"
#include "framework/loader/plugin_log.h"

namespace tessera {

absl::StatusOr<std::unique_ptr<DeviceSession>> DeviceSession::Create(
    const DispatchLibrary& library, const SocSelection& soc,
    const std::vector<std::pair<std::string, std::string>>& options) {
  std::vector<tsr_key_value> kv;
  for (const auto& [k, v] : options) kv.push_back({k.c_str(), v.c_str()});
  tsr_device_context_options opts{};
  opts.header = HostFilledHeader(sizeof(opts), library.version);
  opts.options = kv.data();
  opts.option_count = kv.size();
  opts.soc_model = soc.name.empty() ? nullptr : soc.name.c_str();
  opts.soc_description = soc.description.empty() ? nullptr : soc.description.c_str();
  opts.soc_description_size = soc.description.size();
  opts.log = PluginLogSink;
  opts.log_user_data = const_cast<char*>(library.vendor.c_str());
  tsr_device_context context = nullptr;
  tsr_status code = library.api->create_device_context(&opts, &context);
  if (code != TSR_OK || context == nullptr)
    return PluginStatus(code == TSR_OK ? TSR_INTERNAL : code, library.api->get_last_error,
                        absl::StrCat(library.vendor, " dispatch: create_device_context failed"));
  return std::unique_ptr<DeviceSession>(new DeviceSession(library, context));
}

DeviceSession::~DeviceSession() { library_.api->destroy_device_context(context_); }

absl::Status DeviceSession::Check(tsr_status code, const std::string& context) const {
  if (code == TSR_OK) return absl::OkStatus();  // no text built on success (the run's hot path)
  return PluginStatus(code, library_.api->get_last_error, absl::StrCat(library_.vendor, " dispatch: ", context));
}

void DeviceSession::MarkLost(const std::string& why) const {
  std::lock_guard<std::mutex> lock(lost_lock_);
  if (lost_.load(std::memory_order_relaxed)) return;  // the first loss's text stays
  lost_reason_ = why;
  lost_.store(true, std::memory_order_release);
}

std::string DeviceSession::lost_reason() const {
  std::lock_guard<std::mutex> lock(lost_lock_);
  return lost_reason_;
}

}  // namespace tessera
