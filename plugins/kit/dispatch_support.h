// Pieces of the 1.2 dispatch table that every library built on the kit
// fills the same way: the blob compatibility check, host buffer-type info,
// invocation timing and the text rule for caller buffers.
#ifndef TESSERA_PLUGINS_KIT_DISPATCH_SUPPORT_H_
#define TESSERA_PLUGINS_KIT_DISPATCH_SUPPORT_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tessera/dispatch.h"

namespace tessera::kit {

// check_compatibility for a library that runs `vendor` bodies of exactly
// `vendor_format_version` on `soc_models` ("any" matches every SoC): reads
// only the envelope header. UNSUPPORTED for another vendor or body format,
// PREFER_RECOMPILE when the blob's SoC model is not this context's or the
// compatibility string names another build than `build_id`, else OPTIMAL.
tsr_status CheckBlobCompatibility(const void* bytecode, size_t size, const char* vendor,
                                  uint32_t vendor_format_version, std::span<const char* const> soc_models,
                                  std::string_view context_soc, const char* compatibility_info,
                                  const char* build_id, int32_t* out);

// Fills a tsr_buffer_type_info for HOST memory (mappable, coherent,
// importable), honouring out->header.struct_size.
tsr_status HostBufferTypeInfo(uint32_t min_alignment, tsr_buffer_type_info* out);

// CLOCK_MONOTONIC in nanoseconds.
uint64_t MonotonicNowNs();

// Fills a tsr_invocation_timing, honouring out->header.struct_size.
tsr_status FillTiming(uint64_t start_ns, uint64_t end_ns, double device_time_us, tsr_invocation_timing* out);

// A metric a library reports with a fixed descriptor (name and unit are
// static), so the descriptors are the same for every executable.
struct MetricDescriptor {
  const char* name;
  const char* unit;
};

// Fills `out` with descriptor `index` of `table` and `value`: OUT_OF_RANGE
// past the table, INVALID_ARGUMENT for a NULL or too small struct. The
// body of get_metric and executable_metric_info for such libraries.
tsr_status FillMetric(std::span<const MetricDescriptor> table, size_t index, double value, tsr_metric* out);

// detach_input/detach_output over an invocation's slots of one kind.
tsr_status DetachSlot(std::vector<tsr_buffer>& slots, size_t index);

}  // namespace tessera::kit

#endif  // TESSERA_PLUGINS_KIT_DISPATCH_SUPPORT_H_
