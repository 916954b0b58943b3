// The SoC description format (socs/*.soc, docs/soc.md): one INI dialect
// shared by the whole project, and the typed sections that more than one
// component reads. The framework's cost model and every plugin parse the
// same text with this one parser, so a file means the same to all of them.
//
// Format: '# comment' lines, '[section]' headers, 'key = value' lines. A
// value is a number or a bare string (the rest of the line, trimmed).
// Blank lines are ignored. Keys and sections are [a-z0-9_.-]+.
#ifndef TESSERA_SUPPORT_SOC_SOC_FORMAT_H_
#define TESSERA_SUPPORT_SOC_SOC_FORMAT_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tessera::kit {

// ---- The INI dialect --------------------------------------------------------

struct IniValue {
  std::string text;
  int line = 0;  // 1-based source line, for error messages
};

struct IniSection {
  std::string name;
  int line = 0;
  std::map<std::string, IniValue> values;
};

struct IniDocument {
  std::vector<IniSection> sections;  // in file order, names unique
  const IniSection* Find(std::string_view name) const;
};

// Parses the INI dialect. Errors name the offending line.
absl::StatusOr<IniDocument> ParseIni(std::string_view text);

// Typed values of one section. Every key asked for is required; errors name
// the line and the section.
class SectionReader {
 public:
  explicit SectionReader(const IniSection& s) : s_(s) {}
  absl::StatusOr<const IniValue*> Get(const std::string& key) const;
  absl::StatusOr<double> Number(const std::string& key, double lo, double hi) const;
  absl::StatusOr<int64_t> Integer(const std::string& key, int64_t lo, int64_t hi) const;
  absl::StatusOr<std::string> String(const std::string& key) const;
  // One of `words`, exactly.
  absl::StatusOr<std::string> Word(const std::string& key, const std::vector<std::string>& words) const;
  // Errors for keys not in `known` (typos would silently change a model).
  absl::Status OnlyKeys(const std::vector<std::string>& known) const;

 private:
  const IniSection& s_;
};

// ---- Sections more than one component reads ---------------------------------

// [cpu]: the host CPU's throughput, for cost models. `gflops_f32` and
// `gops_int8` are the GEMM rates; `efficiency[c]` is the fraction of them
// that op class c (CpuOpClassNames(), in that order) reaches, from the
// optional keys `efficiency_CLASS` (1 = the GEMM rate, the default).
inline constexpr size_t kCpuOpClassCount = 5;
struct CpuModel {
  double gflops_f32 = 0;
  double gops_int8 = 0;
  int64_t threads = 0;
  double efficiency[kCpuOpClassCount] = {1, 1, 1, 1, 1};
};
// The op classes of the cpu model, in CpuModel::efficiency order: "gemm",
// "depthwise", "elementwise", "reduction", "data_movement".
const std::vector<std::string>& CpuOpClassNames();

// [transfer.FROM.TO]: copying between two memory kinds (buffer-type names:
// host, device_dram, dsp_tcm, ...): bytes / bandwidth + latency.
struct TransferLink {
  double bandwidth_gbps = 0;
  double latency_us = 0;
};
using TransferTable = std::map<std::pair<std::string, std::string>, TransferLink>;

// [dispatch.VENDOR]: what one invoke of a vendor's partition costs beyond
// its compute, and the memory kind its partitions read and write.
struct DispatchModel {
  double overhead_us = 0;
  std::string memory = "host";
};
using DispatchTable = std::map<std::string, DispatchModel>;  // by vendor name

// The memory kinds a [dispatch.VENDOR] section may name.
const std::vector<std::string>& MemoryKinds();

// The [cpu] section, when present (complete and in range); nullopt-like
// `present = false` when the file has none.
struct CpuSection {
  bool present = false;
  CpuModel model;
};
absl::StatusOr<CpuSection> ParseCpuSection(const IniDocument& doc);
absl::StatusOr<TransferTable> ParseTransferSections(const IniDocument& doc);
absl::StatusOr<DispatchTable> ParseDispatchSections(const IniDocument& doc);

}  // namespace tessera::kit

#endif  // TESSERA_SUPPORT_SOC_SOC_FORMAT_H_
