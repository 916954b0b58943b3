// SoC description files (socs/*.soc): a small INI dialect shared by the whole
// project, and the typed view of it the systolic NPU needs.
//
// Format: '# comment' lines, '[section]' headers, 'key = value' lines. A
// value is a number or a bare string (the rest of the line, trimmed).
// Blank lines are ignored. Keys and sections are [a-z0-9_.-]+.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_SOC_CONFIG_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_SOC_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "support/soc/soc_format.h"

namespace tessera::systolic {

// The INI dialect and the shared sections live in the plugin kit
// (support/soc/soc_format.h), one parser for the framework and every plugin.
using kit::CpuModel;
using kit::IniDocument;
using kit::IniSection;
using kit::IniValue;
using kit::ParseIni;
using kit::SectionReader;
using kit::TransferLink;

// ---- Typed SoC view --------------------------------------------------------

// The MATMUL_TILE `a` field. WS keeps a K x N weight tile in the PEs and
// streams M input rows; OS keeps the M x N outputs and streams K; IS keeps
// the K x M input tile (transposed) and streams the N weight columns.
enum class Dataflow : uint8_t { kWeightStationary = 0, kOutputStationary = 1, kInputStationary = 2 };
inline constexpr uint8_t kDataflowCount = 3;
inline constexpr Dataflow kAllDataflows[] = {Dataflow::kWeightStationary, Dataflow::kOutputStationary,
                                             Dataflow::kInputStationary};
const char* DataflowName(Dataflow d);  // "ws" / "os" / "is"
absl::StatusOr<Dataflow> ParseDataflow(std::string_view s);

struct SystolicNpuConfig {
  int64_t array_rows = 0;
  int64_t array_cols = 0;
  double clock_mhz = 0;
  int64_t sram_input_kib = 0;
  int64_t sram_weight_kib = 0;
  int64_t sram_accum_kib = 0;
  double dram_bandwidth_gbps = 0;
  int64_t dram_latency_cycles = 0;
  int64_t vector_width = 0;
  Dataflow default_dataflow = Dataflow::kWeightStationary;

  int64_t input_bank_bytes() const { return sram_input_kib * 1024; }
  int64_t weight_bank_bytes() const { return sram_weight_kib * 1024; }
  int64_t accum_bank_bytes() const { return sram_accum_kib * 1024; }
  int64_t pe_count() const { return array_rows * array_cols; }
  // DRAM bytes moved per NPU clock cycle.
  double dram_bytes_per_cycle() const { return dram_bandwidth_gbps * 1000.0 / clock_mhz; }
};

struct MockDspConfig {
  double clock_mhz = 0;
  int64_t vector_lanes = 0;
  int64_t transcendental_cycles = 0;
};

struct SystolicSocConfig {
  std::string name;
  std::string description;
  bool has_cpu = false;
  CpuModel cpu;
  SystolicNpuConfig npu;
  bool has_mock_dsp = false;
  MockDspConfig mock_dsp;
  // Keyed by (from, to) buffer-type names, e.g. ("host", "device_dram").
  kit::TransferTable transfers;
  kit::DispatchTable dispatch;  // [dispatch.VENDOR], read by the framework
};

// Parses a SoC description. [soc] (name) and [systolic_npu] (every key) are
// required; [cpu], [mock_dsp] and [transfer.a.b] are optional but, when
// present, must be complete and in range. Unknown keys inside
// [systolic_npu] are errors (typos would silently change the cost model);
// unknown sections are ignored (they belong to other components).
absl::StatusOr<SystolicSocConfig> ParseSocConfig(std::string_view text);

// Reads and parses a file.
absl::StatusOr<SystolicSocConfig> LoadSocConfigFile(const std::string& path);

// The built-in copies of socs/ref-{edge,phone,server}.soc, by SoC name
// ("ref-edge", ...). NotFound for other names.
absl::StatusOr<SystolicSocConfig> BuiltinSocConfig(std::string_view name);
std::vector<std::string> BuiltinSocNames();

inline constexpr char kDefaultSocModel[] = "ref-phone";

// The SoC a plugin call targets, from the ABI's (soc_model,
// soc_description) pair: the description text wins when given (soc_model
// is then only a label); otherwise the built-in copy of soc_model;
// NULL/empty soc_model means kDefaultSocModel.
absl::StatusOr<SystolicSocConfig> SelectSoc(const char* soc_model, const char* description, size_t description_size);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_SOC_CONFIG_H_
