#include "plugins/kit/dispatch_support.h"

#include <time.h>

#include <cstring>
#include <string>

#include "plugins/kit/plugin_status.h"
#include "tessera/bytecode.h"

namespace tessera::kit {

tsr_status CheckBlobCompatibility(const void* bytecode, size_t size, const char* vendor,
                                  uint32_t vendor_format_version, std::span<const char* const> soc_models,
                                  std::string_view context_soc, const char* compatibility_info,
                                  const char* build_id, int32_t* out) {
  if (bytecode == nullptr || out == nullptr) return ReportError(TSR_INVALID_ARGUMENT, "check_compatibility: NULL argument");
  if (size < sizeof(tsr_bytecode_header))
    return ReportError(TSR_BYTECODE_INVALID, "check_compatibility: blob smaller than envelope header");
  tsr_bytecode_header h;
  std::memcpy(&h, bytecode, sizeof(h));
  if (std::memcmp(h.magic, "TSRB", 4) != 0 || h.vendor[TSR_BYTECODE_NAME_SIZE - 1] != '\0' ||
      h.soc_model[TSR_BYTECODE_NAME_SIZE - 1] != '\0')
    return ReportError(TSR_BYTECODE_INVALID, "check_compatibility: not a Tessera envelope");
  int32_t verdict = TSR_COMPATIBILITY_OPTIMAL;
  if (std::strcmp(h.vendor, vendor) != 0 || h.format_version != TSR_BYTECODE_FORMAT_VERSION ||
      h.vendor_format_version != vendor_format_version) {
    verdict = TSR_COMPATIBILITY_UNSUPPORTED;
  } else {
    bool soc_known = false;
    for (const char* s : soc_models) soc_known = soc_known || std::strcmp(s, "any") == 0 || std::strcmp(s, h.soc_model) == 0;
    const bool soc_matches = context_soc.empty() || context_soc == h.soc_model || std::strcmp(h.soc_model, "any") == 0;
    // A custom SoC file (docs/soc.md) is none of the listed models, but
    // the context runs it: the blob compiled for it runs where it compiled
    // (the library's verifier still checks the array and banks at load).
    soc_known = soc_known || (!context_soc.empty() && context_soc == h.soc_model);
    if (!soc_known) {
      verdict = TSR_COMPATIBILITY_UNSUPPORTED;
    } else if (!soc_matches) {
      verdict = TSR_COMPATIBILITY_PREFER_RECOMPILE;
    } else if (compatibility_info != nullptr && build_id != nullptr &&
               std::string(compatibility_info).find(std::string(";build=") + build_id + ";") == std::string::npos) {
      verdict = TSR_COMPATIBILITY_PREFER_RECOMPILE;  // compiled by another build of this vendor
    }
  }
  *out = verdict;
  return TSR_OK;
}

tsr_status HostBufferTypeInfo(uint32_t min_alignment, tsr_buffer_type_info* out) {
  if (!TSR_ABI_HAS_FIELD(out, tsr_buffer_type_info, max_size_bytes))
    return ReportError(TSR_INVALID_ARGUMENT, "get_buffer_type_info: NULL or too small struct");
  out->type = TSR_BUFFER_TYPE_HOST;
  out->flags = TSR_BUFFER_TYPE_FLAG_HOST_MAPPABLE | TSR_BUFFER_TYPE_FLAG_HOST_COHERENT | TSR_BUFFER_TYPE_FLAG_IMPORT_HOST;
  out->name = "host";
  out->min_alignment = min_alignment;
  out->reserved0 = 0;
  out->max_size_bytes = 0;
  return TSR_OK;
}

uint64_t MonotonicNowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

tsr_status FillTiming(uint64_t start_ns, uint64_t end_ns, double device_time_us, tsr_invocation_timing* out) {
  if (!TSR_ABI_HAS_FIELD(out, tsr_invocation_timing, device_time_us))
    return ReportError(TSR_INVALID_ARGUMENT, "invocation_timing: NULL or too small struct");
  out->start_ns = start_ns;
  out->end_ns = end_ns;
  out->device_time_us = device_time_us;
  return TSR_OK;
}

tsr_status FillMetric(std::span<const MetricDescriptor> table, size_t index, double value, tsr_metric* out) {
  if (!TSR_ABI_HAS_FIELD(out, tsr_metric, unit)) return ReportError(TSR_INVALID_ARGUMENT, "NULL or too small tsr_metric");
  if (index >= table.size()) return ReportError(TSR_OUT_OF_RANGE, "metric index out of range");
  out->name = table[index].name;
  out->unit = table[index].unit;
  out->value = value;
  return TSR_OK;
}

tsr_status DetachSlot(std::vector<tsr_buffer>& slots, size_t index) {
  if (index >= slots.size()) return ReportError(TSR_OUT_OF_RANGE, "detach: index out of range");
  slots[index] = nullptr;
  return TSR_OK;
}

}  // namespace tessera::kit
