// Runs a compiled model: one step per DISPATCH op, each through its
// vendor's dispatch library. Buffer types are negotiated per tensor at
// prepare time; conversions are inserted where the accepted types don't
// intersect, and every run reports them with per-step timings and the
// libraries' own metrics.
#ifndef TESSERA_DISPATCH_EXECUTOR_H_
#define TESSERA_DISPATCH_EXECUTOR_H_

#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "buffer_negotiation.h"
#include "declared_numerics.h"
#include "device_session.h"
#include "graph/graph.h"
#include "graph/host_tensor.h"
#include "plugins/plugin_registry.h"

namespace tessera {

struct RuntimeOptions {
  SocSelection soc;
  std::vector<std::pair<std::string, std::string>> plugin_options;
};

struct ConversionRecord {
  int32_t tensor = -1;
  std::string tensor_name;
  int32_t from_type = 0;
  int32_t to_type = 0;
  uint64_t bytes = 0;
  std::string to_vendor;      // the consumer that needed it
  double host_time_us = 0;    // last run
};

struct StepProfile {
  uint32_t op_id = 0;
  std::string vendor;
  std::string entry_point;
  std::vector<uint32_t> source_op_ids;
  double host_time_us = 0;
  struct Metric {
    std::string name;
    double value = 0;
    std::string unit;
  };
  std::vector<Metric> metrics;
  DeclaredNumerics numerics;  // what the library declared for this executable
};

struct RunProfile {
  double total_us = 0;
  std::vector<StepProfile> steps;
  std::vector<ConversionRecord> conversions;
};

class Executor {
 public:
  // `graph` is a compiled graph (DISPATCH ops only). `jit_slots` resolves
  // DispatchRef::jit_slot and must outlive the executor.
  static absl::StatusOr<std::unique_ptr<Executor>> Create(const Graph& graph, std::span<const tsr_jit_handle> jit_slots,
                                                          const PluginRegistry& registry, const RuntimeOptions& options);
  ~Executor();

  // Inputs in graph input order; dtypes and shapes must match exactly.
  absl::StatusOr<std::vector<HostTensor>> Run(const std::vector<HostTensor>& inputs, RunProfile* profile = nullptr);

  const std::vector<ConversionRecord>& conversions() const { return conversions_; }

  // The tolerance to compare graph output `index` with against an FP32
  // reference: (own_relative, own_absolute) widened by the declarations of
  // every reduced-precision step it depends on.
  OutputTolerance OutputToleranceFor(size_t index, double own_relative, double own_absolute) const;

 private:
  struct Storage;
  struct Step;
  Executor() = default;
  absl::Status Prepare(const std::vector<const DispatchLibrary*>& libraries, std::span<const tsr_jit_handle> jit_slots,
                       const RuntimeOptions& options);
  absl::Status PlanBuffers();
  absl::StatusOr<int32_t> StorageFor(int32_t tensor, int32_t type, int32_t allocating_session, uint64_t size,
                                     uint32_t alignment);
  absl::StatusOr<tsr_buffer> BufferIn(int32_t storage, int32_t session);
  absl::Status Copy(int32_t from_storage, int32_t to_storage, uint64_t bytes);
  absl::StatusOr<uint8_t*> Map(int32_t storage);
  absl::Status Unmap(int32_t storage);

  Graph graph_;
  std::vector<std::unique_ptr<DeviceSession>> sessions_;
  std::vector<std::unique_ptr<Step>> steps_;
  std::vector<std::unique_ptr<Storage>> storages_;
  std::vector<int32_t> primary_storage_;          // per tensor, -1 if none
  std::map<std::pair<int32_t, int32_t>, tsr_buffer> imported_;  // (storage, session) -> buffer
  std::vector<ConversionRecord> conversions_;
};

}  // namespace tessera

#endif  // TESSERA_DISPATCH_EXECUTOR_H_
