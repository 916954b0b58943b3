#include "framework/compiler/partition/precision_policy.h"

#include <cmath>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "framework/compiler/claims/compiler_instance.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

// The largest |value| of an F32 constant (its data is known exactly).
double ConstantMaxAbs(const Tensor& t) {
  double max_abs = 0;
  for (size_t i = 0; i + sizeof(float) <= t.data.size(); i += sizeof(float)) {
    float v;
    std::memcpy(&v, t.data.data() + i, sizeof v);
    if (!std::isfinite(v)) return INFINITY;
    max_abs = std::max(max_abs, static_cast<double>(std::fabs(v)));
  }
  return max_abs;
}

// Why op `o`'s FP16 math is not proven to stay finite, or "" when it is.
std::string UnprovenRange(const Graph& graph, const PrecisionOptions& options, size_t o,
                          std::map<int32_t, double>* constant_max) {
  const Op& op = graph.ops[o];
  for (const std::vector<int32_t>* list : {&op.inputs, &op.outputs}) {
    for (int32_t t : *list) {
      if (t < 0 || graph.tensors[t].dtype != TSR_DTYPE_F32) continue;
      const Tensor& tensor = graph.tensors[t];
      if (tensor.is_constant) {
        auto [it, fresh] = constant_max->emplace(t, 0.0);
        if (fresh) it->second = ConstantMaxAbs(tensor);
        if (it->second > kFp16Max)
          return absl::StrFormat("constant %s holds %g, beyond FP16's %g", tensor.name, it->second, kFp16Max);
        continue;
      }
      if (options.samples.empty()) return "its range is not proven: no calibration samples were given";
      const auto seen_it = options.observed_max_abs.find(tensor.name);
      const double seen = seen_it != options.observed_max_abs.end() ? seen_it->second : -1;
      if (seen < 0)
        return absl::StrCat("the range of ", tensor.name, " is not proven (not observed on ", options.samples, ")");
      if (seen > kFp16SafeMax)
        return absl::StrFormat("%s reaches %g on %s, beyond the FP16 bound %g (65504 / 16 headroom)", tensor.name, seen,
                               options.samples, kFp16SafeMax);
    }
  }
  return "";
}

}  // namespace

const char* PrecisionPolicyName(Precision precision) {
  switch (precision) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kAllowFp16:
      return "allow-fp16";
    case Precision::kAllowInt8:
      return "allow-int8";
  }
  return "fp32";
}

std::optional<Precision> ParsePrecisionPolicy(std::string_view name) {
  if (name == "fp32") return Precision::kFp32;
  if (name == "allow-fp16") return Precision::kAllowFp16;
  if (name == "allow-int8") return Precision::kAllowInt8;
  return std::nullopt;
}

void ApplyPrecisionPolicy(const Graph& graph, const PrecisionOptions& options, std::vector<AcceleratorClaims>* claims) {
  const char* allowed = PrecisionPolicyName(options.precision);
  std::map<int32_t, double> constant_max;
  for (AcceleratorClaims& a : *claims) {
    for (size_t o = 0; o < a.claims.size() && o < graph.ops.size(); ++o) {
      OpClaim& c = a.claims[o];
      if (!c.supported) continue;
      std::string why;
      if ((c.flags & TSR_CLAIM_FLAG_COMPUTES_INT8) != 0 && options.precision != Precision::kAllowInt8) {
        why = absl::StrCat(a.vendor, " computes in int8, not allowed by --precision ", allowed);
      } else if ((c.flags & TSR_CLAIM_FLAG_COMPUTES_FP16) != 0) {
        if (options.precision == Precision::kFp32) {
          why = absl::StrCat(a.vendor, " computes in fp16, not allowed by --precision ", allowed);
        } else if (std::string range = UnprovenRange(graph, options, o, &constant_max); !range.empty()) {
          why = absl::StrCat(a.vendor, " computes in fp16, allowed by --precision ", allowed, ", but ", range);
        }
      }
      if (!why.empty()) c = OpClaim{false, kRefusalPrecision, SharedText(why)};
    }
  }
}

const char* PartitionPrecision(const AcceleratorClaims& claims, const std::vector<int32_t>& ops) {
  bool fp16 = false;
  for (int32_t o : ops) {
    if (o < 0 || static_cast<size_t>(o) >= claims.claims.size()) continue;
    const uint32_t flags = claims.claims[o].flags;
    if ((flags & TSR_CLAIM_FLAG_COMPUTES_INT8) != 0) return "int8";
    fp16 = fp16 || (flags & TSR_CLAIM_FLAG_COMPUTES_FP16) != 0;
  }
  return fp16 ? "fp16" : "fp32";
}

}  // namespace tessera
