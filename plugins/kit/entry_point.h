// The body of every plugin's one exported symbol: negotiate the version,
// then hand out the const table. Plugins write
//
//   constexpr tessera::kit::ImplementedAbi kAbi{.newest = {1, 4}, .oldest = {1, 0}};
//   extern "C" TSR_EXPORT tsr_status tsr_dispatch_negotiate(
//       tsr_version host, tsr_version* out_version, const tsr_dispatch_api** out_api) {
//     return tessera::kit::AnswerNegotiation(host, kAbi, out_version, out_api, &kApi);
//   }
#ifndef TESSERA_PLUGINS_KIT_ENTRY_POINT_H_
#define TESSERA_PLUGINS_KIT_ENTRY_POINT_H_

#include <string>

#include "plugins/kit/plugin_status.h"

namespace tessera::kit {

// What a plugin implements, stated by the vendor and never taken from the
// headers' TSR_ABI_VERSION_*: rebuilding against newer headers must not
// promise newer semantics (the host gates new op types and attribute keys
// by the answered version). `newest` is the newest version whose rules the
// plugin follows, `oldest` the oldest it still speaks (1.0/1.1 means it
// implements the partition() path).
struct ImplementedAbi {
  tsr_version newest;
  tsr_version oldest;
};

template <typename Api>
tsr_status AnswerNegotiation(tsr_version host, ImplementedAbi implemented, tsr_version* out_version,
                             const Api** out_api, const Api* table) {
  if (out_api == nullptr || out_version == nullptr)
    return ReportError(TSR_INVALID_ARGUMENT, "out_api or out_version is NULL");
  // A plugin cannot implement a version its headers do not describe.
  if (tsr_version_compare(implemented.newest, {TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR}) > 0 ||
      tsr_version_compare(implemented.oldest, implemented.newest) > 0)
    return ReportError(
        TSR_INTERNAL, "the plugin states an implemented ABI range " + std::to_string(implemented.oldest.major) + "." +
                          std::to_string(implemented.oldest.minor) + " to " + std::to_string(implemented.newest.major) +
                          "." + std::to_string(implemented.newest.minor) + " that its headers or itself contradict");
  tsr_version agreed{};
  const tsr_status s = NegotiateVersion(host, implemented.newest, implemented.oldest, &agreed);
  if (s != TSR_OK) return s;  // outputs untouched, as the ABI promises
  *out_version = agreed;
  *out_api = table;
  return TSR_OK;
}

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_ENTRY_POINT_H_
