// What partitioning decided, for people and scripts: the partitions, every
// cut with the bytes that cross it, and the reason each op did not go to a
// higher-priority accelerator.
#ifndef TESSERA_FRAMEWORK_COMPILER_REPORT_PARTITION_REPORT_H_
#define TESSERA_FRAMEWORK_COMPILER_REPORT_PARTITION_REPORT_H_

#include <string>
#include <vector>

#include "framework/compiler/compile/compiled_graph.h"
#include "framework/core/base/json_writer.h"

namespace tessera {

struct ReportedPartition {
  int32_t index = 0;
  std::string vendor;
  std::string mode;  // "aot" or "jit": how its accelerator compiled it
  std::vector<uint32_t> op_ids;
  std::vector<std::string> op_types;
  uint64_t input_bytes = 0;  // bytes entering across cuts or from the app
  uint64_t output_bytes = 0;
  std::string memory;     // the memory kind it reads and writes (SoC model)
  double flops = 0;       // OpWork sum
  double compute_us = 0;  // modelled device time (or the CPU model's)
  double dispatch_us = 0;
  bool whole_partition_estimate = false;  // compute_us from the plugin's estimate_partition
  // What its float math runs in ("fp32", "fp16", "int8": PartitionPrecision)
  // and why: what allowed the reduced precision, or which accelerator's
  // reduced precision --precision kept out of it.
  std::string precision;
  std::string precision_why;
};

struct ReportedCut {
  std::string tensor;
  uint64_t bytes = 0;
  int32_t from_partition = -1;  // -1 = existing DISPATCH op
  int32_t to_partition = -1;
  std::string from_vendor, to_vendor;
};

struct ReportedRefusal {
  std::string vendor;
  std::string reason;  // tsr_refusal_reason name
  std::string detail;
};

struct ReportedConversion {
  std::string tensor;
  std::string from_memory, to_memory;
  uint64_t bytes = 0;
  double us = 0;
};

// Fallbacks of one op type for one reason chain, counted: one line for 178
// SOFTMAX ops that nobody above the cpu takes.
struct ReportedFallbackGroup {
  std::string op_type;
  std::string vendor;   // where they run
  std::string reasons;  // "systolic_npu: unsupported_op", "; "-joined
  std::vector<uint32_t> op_ids;
};

struct ReportTimings {
  double load_ms = -1;  // set by the caller that loaded the model (-1: not measured)
  double claims_ms = 0, partition_ms = 0, compile_ms = 0;
};

struct ReportedPlacement {
  uint32_t op_id = 0;
  std::string op_type;
  std::string vendor;  // where it runs
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
  std::vector<ReportedFallbackGroup> fallback_groups;
  std::vector<FallbackNote> compile_fallbacks;
  uint64_t cut_bytes = 0;
  // The cost model (docs/partitioning.md).
  std::string policy;
  std::string chosen;
  std::string precision;          // --precision: "fp32", "allow-fp16", "allow-int8"
  std::string precision_samples;  // what proved FP16 ranges ("" = nothing)
  double modeled_latency_us = 0;
  double modeled_latency_us_cpu_only = -1;
  double modeled_latency_us_greedy = -1;
  double compute_us = 0, dispatch_us = 0, transfer_us = 0;
  std::vector<ReportedConversion> conversions;
  std::vector<std::string> cost_notes;
  ReportTimings timings;
  // Ops that do not run where the first-choice accelerator would put them
  // (plugin refusals, cost decisions, compile failures): what --strict counts.
  size_t fallback_op_count() const;
};

PartitionReport BuildPartitionReport(const CompiledGraph& model);
void WritePartitionReportJson(const PartitionReport& report, JsonWriter& json);  // one JSON object
std::string FormatPartitionReport(const PartitionReport& report);                // human text

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_REPORT_PARTITION_REPORT_H_
