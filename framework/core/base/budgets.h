// Resource budgets: the most a model may ask of the host before anything is
// allocated for it. Every limit lives in this one struct, and every check
// goes through CheckBudget, so an overrun always reads the same way: what,
// how much, which budget, and how to raise it (docs/reliability.md §2).
#ifndef TESSERA_FRAMEWORK_CORE_BASE_BUDGETS_H_
#define TESSERA_FRAMEWORK_CORE_BASE_BUDGETS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tessera {

// Defaults are far above any model the SDK targets (phones and edge NPUs)
// and far below what would exhaust a host: they stop a crafted file, not a
// real one. All are inclusive maxima.
struct Budgets {
  uint64_t max_model_bytes = uint64_t{16} << 30;       // a .tsr or .onnx file: 16 GiB
  uint64_t max_tensor_count = 1'000'000;               // tensors in the graph
  uint64_t max_tensor_bytes = uint64_t{16} << 30;      // one tensor: 16 GiB
  uint64_t max_activation_bytes = uint64_t{64} << 30;  // all non-constant tensors together: 64 GiB
  uint64_t max_op_count = 1'000'000;                   // ops in the graph
  uint64_t max_partition_count = 10'000;               // partitions after planning (compile)
  uint64_t max_bytecode_bytes = uint64_t{4} << 30;     // all bytecode blobs of a model: 4 GiB
  // What one device (dispatch session) is asked to hold for a model: the
  // bytecode of every executable loaded on it plus the buffers it allocates
  // for one run context (dispatch/device_memory_budget.h): 16 GiB.
  uint64_t max_device_memory_bytes = uint64_t{16} << 30;
};

// One budget: its name (the member's, as `--budget NAME=VALUE` takes it),
// the member, and what it counts (for messages and `tessera --help`).
struct BudgetField {
  absl::string_view name;
  uint64_t Budgets::*member;
  absl::string_view unit;  // "bytes" or "" for counts
};
std::span<const BudgetField> AllBudgets();

// OK when `value` <= budgets.*member; otherwise RESOURCE_EXHAUSTED:
// "<what> is <value> <unit>, above the budget max_x = N (raise it with
// --budget max_x=VALUE or Budgets::max_x)".
absl::Status CheckBudget(const Budgets& budgets, uint64_t Budgets::*member, uint64_t value, absl::string_view what);

// A model file held to max_model_bytes from its size alone, before it is
// read or mapped. The message starts with the path. A file that cannot be
// stat'ed passes: opening it reports that better.
absl::Status CheckModelFileBudget(const Budgets& budgets, const std::string& path);

// Parses one "NAME=VALUE" (a --budget flag) into `budgets`. VALUE is a
// non-negative integer, optionally with a K/M/G/T suffix (powers of 1024).
// An unknown NAME is an error listing the known ones.
absl::Status SetBudget(Budgets& budgets, absl::string_view name_equals_value);

// The value of the budget called `name` ("max_model_bytes", ...); nullopt
// for an unknown name.
std::optional<uint64_t> BudgetByName(const Budgets& budgets, absl::string_view name);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_BUDGETS_H_
