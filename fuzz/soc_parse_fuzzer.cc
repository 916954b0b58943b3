// SoC description text -> the INI parser and the typed SoC view, both the
// direct parser and SelectSoc (the path a dispatch/compiler context takes
// for a caller-supplied soc_description).
#include <cstdint>
#include <string_view>

#include "plugins/systolic_npu/machine/soc_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)tessera::systolic::ParseIni(text);
  (void)tessera::systolic::ParseSocConfig(text);
  (void)tessera::systolic::SelectSoc("fuzz", text.data(), text.size());
  return 0;
}
