#include "framework/core/base/budgets.h"

#include <array>
#include <filesystem>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/math/checked_math.h"

namespace tessera {
namespace {

constexpr std::array<BudgetField, 8> kFields = {{
    {"max_model_bytes", &Budgets::max_model_bytes, "bytes"},
    {"max_tensor_count", &Budgets::max_tensor_count, ""},
    {"max_tensor_bytes", &Budgets::max_tensor_bytes, "bytes"},
    {"max_activation_bytes", &Budgets::max_activation_bytes, "bytes"},
    {"max_op_count", &Budgets::max_op_count, ""},
    {"max_partition_count", &Budgets::max_partition_count, ""},
    {"max_bytecode_bytes", &Budgets::max_bytecode_bytes, "bytes"},
    {"max_device_memory_bytes", &Budgets::max_device_memory_bytes, "bytes"},
}};

const BudgetField* FieldOf(uint64_t Budgets::*member) {
  for (const BudgetField& f : kFields)
    if (f.member == member) return &f;
  return nullptr;
}

}  // namespace

std::span<const BudgetField> AllBudgets() { return kFields; }

absl::Status CheckBudget(const Budgets& budgets, uint64_t Budgets::*member, uint64_t value, absl::string_view what) {
  const uint64_t limit = budgets.*member;
  if (value <= limit) return absl::OkStatus();
  const BudgetField* f = FieldOf(member);
  const absl::string_view name = f ? f->name : "?";
  const std::string unit = f && !f->unit.empty() ? absl::StrCat(" ", f->unit) : "";
  return absl::ResourceExhaustedError(absl::StrCat(what, " is ", value, unit, ", above the budget ", name, " = ", limit,
                                                   " (raise it with --budget ", name, "=VALUE, or Budgets::", name,
                                                   " in the API)"));
}

absl::Status CheckModelFileBudget(const Budgets& budgets, const std::string& path) {
  std::error_code error;
  const uintmax_t size = std::filesystem::file_size(path, error);
  if (error) return absl::OkStatus();
  absl::Status s = CheckBudget(budgets, &Budgets::max_model_bytes, size, "the model file");
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat("'", path, "': ", s.message()));
}

absl::Status SetBudget(Budgets& budgets, absl::string_view text) {
  const size_t eq = text.find('=');
  const absl::string_view name = eq == absl::string_view::npos ? text : text.substr(0, eq);
  const BudgetField* field = nullptr;
  for (const BudgetField& f : kFields)
    if (f.name == name) field = &f;
  if (field == nullptr) {
    std::vector<absl::string_view> names;
    for (const BudgetField& f : kFields) names.push_back(f.name);
    return absl::InvalidArgumentError(
        absl::StrCat("--budget: unknown budget '", name, "' (known: ", absl::StrJoin(names, ", "), ")"));
  }
  absl::string_view digits = eq == absl::string_view::npos ? absl::string_view() : text.substr(eq + 1);
  uint64_t scale = 1;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K':
        scale = uint64_t{1} << 10;
        break;
      case 'M':
        scale = uint64_t{1} << 20;
        break;
      case 'G':
        scale = uint64_t{1} << 30;
        break;
      case 'T':
        scale = uint64_t{1} << 40;
        break;
      default:
        break;
    }
    if (scale != 1) digits.remove_suffix(1);
  }
  uint64_t value = 0;
  std::optional<uint64_t> scaled;
  if (!digits.empty() && digits.front() != '-' && digits.front() != '+' && absl::SimpleAtoi(digits, &value))
    scaled = checked::Mul(value, scale);
  if (!scaled)
    return absl::InvalidArgumentError(absl::StrCat("--budget ", name, " wants a non-negative integer below 2^64 (",
                                                   "optionally with K, M, G or T), not '", text, "'"));
  budgets.*(field->member) = *scaled;
  return absl::OkStatus();
}

std::optional<uint64_t> BudgetByName(const Budgets& budgets, absl::string_view name) {
  for (const BudgetField& f : kFields)
    if (f.name == name) return budgets.*(f.member);
  return std::nullopt;
}

}  // namespace tessera
