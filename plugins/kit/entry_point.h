// The body of every plugin's one exported symbol: negotiate the version,
// then hand out the const table. Plugins write
//
//   extern "C" TSR_EXPORT tsr_status tsr_dispatch_negotiate(
//       tsr_version host, tsr_version* out_version, const tsr_dispatch_api** out_api) {
//     return tessera::kit::AnswerNegotiation(host, out_version, out_api, &kApi);
//   }
#ifndef TESSERA_PLUGINS_KIT_ENTRY_POINT_H_
#define TESSERA_PLUGINS_KIT_ENTRY_POINT_H_

#include "plugins/kit/plugin_status.h"

namespace tessera::kit {

template <typename Api>
tsr_status AnswerNegotiation(tsr_version host, tsr_version* out_version, const Api** out_api, const Api* table) {
  if (out_api == nullptr || out_version == nullptr)
    return ReportError(TSR_INVALID_ARGUMENT, "out_api or out_version is NULL");
  tsr_version agreed{};
  const tsr_status s = NegotiateVersion(host, {TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
                                        {TSR_ABI_VERSION_FLOOR_MAJOR, TSR_ABI_VERSION_FLOOR_MINOR}, &agreed);
  if (s != TSR_OK) return s;  // outputs untouched, as the ABI promises
  *out_version = agreed;
  *out_api = table;
  return TSR_OK;
}

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_ENTRY_POINT_H_
