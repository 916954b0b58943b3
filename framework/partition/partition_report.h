// What partitioning decided, for people and scripts: the partitions, every
// cut with the bytes that cross it, and the reason each op did not go to a
// higher-priority accelerator.
#ifndef TESSERA_FRAMEWORK_PARTITION_PARTITION_REPORT_H_
#define TESSERA_FRAMEWORK_PARTITION_PARTITION_REPORT_H_

#include <string>
#include <vector>

#include "base/json_writer.h"
#include "compile/compiled_model.h"

namespace tessera {

struct ReportedPartition {
  int32_t index = 0;
  std::string vendor;
  std::vector<uint32_t> op_ids;
  std::vector<std::string> op_types;
  uint64_t input_bytes = 0;      // bytes entering across cuts or from the app
  uint64_t output_bytes = 0;
};

struct ReportedCut {
  std::string tensor;
  uint64_t bytes = 0;
  int32_t from_partition = -1;   // -1 = existing DISPATCH op
  int32_t to_partition = -1;
  std::string from_vendor, to_vendor;
};

struct ReportedRefusal {
  std::string vendor;
  std::string reason;            // tsr_refusal_reason name
  std::string detail;
};

struct ReportedPlacement {
  uint32_t op_id = 0;
  std::string op_type;
  std::string vendor;            // where it runs
  std::vector<ReportedRefusal> refused_by;
};

struct PartitionReport {
  std::vector<std::string> accelerators;
  std::string mode;
  std::string soc;
  size_t op_count = 0;
  std::vector<ReportedPartition> partitions;
  std::vector<ReportedCut> cuts;
  std::vector<ReportedPlacement> fallbacks;  // ops refused by a higher-priority accelerator
  std::vector<FallbackNote> compile_fallbacks;
  uint64_t cut_bytes = 0;
};

PartitionReport BuildPartitionReport(const CompiledModel& model);
void WritePartitionReportJson(const PartitionReport& report, JsonWriter& json);  // one JSON object
std::string FormatPartitionReport(const PartitionReport& report);               // human text

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_PARTITION_PARTITION_REPORT_H_
