#include "framework/core/graph/graph_budgets.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"
#include "support/math/checked_math.h"

namespace tessera {

absl::Status CheckGraphBudgets(const Graph& g, const Budgets& budgets) {
  RETURN_IF_ERROR(CheckBudget(budgets, &Budgets::max_tensor_count, g.tensors.size(), "the tensor count"));
  RETURN_IF_ERROR(CheckBudget(budgets, &Budgets::max_op_count, g.ops.size(), "the op count"));
  uint64_t activations = 0;
  for (const Tensor& t : g.tensors) {
    const std::optional<int64_t> bytes = checked::TensorBytes(t.shape, DTypeSize(t.dtype));
    // A size past 2^48 never verifies; count it as unbounded all the same.
    const uint64_t size = bytes ? static_cast<uint64_t>(*bytes) : std::numeric_limits<uint64_t>::max();
    RETURN_IF_ERROR(CheckBudget(budgets, &Budgets::max_tensor_bytes, size, absl::StrCat("tensor '", t.name, "'")));
    if (!t.is_constant) activations = checked::Add(activations, size).value_or(std::numeric_limits<uint64_t>::max());
  }
  RETURN_IF_ERROR(CheckBudget(budgets, &Budgets::max_activation_bytes, activations,
                              "the activation memory (every non-constant tensor)"));
  uint64_t bytecode = 0;
  for (const auto& b : g.bytecodes)
    bytecode = checked::Add<uint64_t>(bytecode, b.bytes.size()).value_or(std::numeric_limits<uint64_t>::max());
  return CheckBudget(budgets, &Budgets::max_bytecode_bytes, bytecode, "the bytecode");
}

}  // namespace tessera
