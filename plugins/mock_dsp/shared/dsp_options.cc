#include "plugins/mock_dsp/shared/dsp_options.h"

#include <map>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "plugins/kit/options.h"
#include "plugins/mock_dsp/shared/dsp_contract.h"
#include "support/ops/op_names.h"
#include "tessera/ops.h"

namespace tessera::mock_dsp {
namespace {

// since ABI 1.4

absl::Status Count(const std::map<std::string, std::string>& kv, const char* key, int64_t max, int64_t* out) {
  auto it = kv.find(key);
  if (it == kv.end()) return absl::OkStatus();
  if (!absl::SimpleAtoi(it->second, out) || *out < 0 || *out > max)
    return absl::InvalidArgumentError(absl::StrCat("option 'mock_dsp.", key, "' has value '", it->second,
                                                   "'; expected an integer in [0, ", max, "]"));
  return absl::OkStatus();
}

}  // namespace

const char* const kDspOptionKeys[] = {"refuse_load",  "fail_compile_op",   "fail_invoke", "fail_after", "latency_us",
                                      "corrupt",      "device_lost_after", "hang_invoke", "hang_ms",    "hold_invoke",
                                      "hold_compile", "hold_file",         nullptr};

int32_t OpTypeFromName(const std::string& name) {
  const int32_t type = OpTypeNamed(name);
  return type < 0 ? TSR_OP_UNKNOWN : type;
}

const char* OpName(int32_t type) {
  const char* name = type > TSR_OP_UNKNOWN ? OpTypeNameOrNull(type) : nullptr;
  return name != nullptr ? name : "UNKNOWN";
}

absl::StatusOr<DspOptions> ParseDspOptions(const tsr_key_value* options, size_t count) {
  std::map<std::string, std::set<std::string>> allowed;
  for (const char* const* k = kDspOptionKeys; *k != nullptr; ++k) allowed[*k] = {};
  allowed["refuse_load"] = {"0", "1"};
  allowed["corrupt"] = {"0", "1"};
  allowed["hold_compile"] = {"0", "1"};
  absl::StatusOr<std::map<std::string, std::string>> kv = kit::ParseVendorOptions(options, count, kDspVendor, allowed);
  if (!kv.ok()) return kv.status();
  DspOptions o;
  o.refuse_load = kv->count("refuse_load") && kv->at("refuse_load") == "1";
  o.corrupt = kv->count("corrupt") && kv->at("corrupt") == "1";
  o.hold_compile = kv->count("hold_compile") && kv->at("hold_compile") == "1";
  if (auto it = kv->find("fail_compile_op"); it != kv->end()) {
    o.fail_compile_op = OpTypeFromName(it->second);
    if (o.fail_compile_op == 0 || o.fail_compile_op == TSR_OP_DISPATCH)
      return absl::InvalidArgumentError(absl::StrCat("option 'mock_dsp.fail_compile_op' has value '", it->second,
                                                     "'; expected an op name such as SIN (docs/ops.md)"));
  }
  constexpr int64_t kMaxCount = int64_t{1} << 40;
  absl::Status s = Count(*kv, "fail_invoke", kMaxCount, &o.fail_invoke);
  if (s.ok()) s = Count(*kv, "fail_after", kMaxCount, &o.fail_after);
  // A minute: latency is for timing-shaped tests, not for stalling CI.
  if (s.ok()) s = Count(*kv, "latency_us", 60'000'000, &o.latency_us);
  if (s.ok()) s = Count(*kv, "device_lost_after", kMaxCount, &o.device_lost_after);
  if (s.ok()) s = Count(*kv, "hang_invoke", kMaxCount, &o.hang_invoke);
  // Bounded at 10 s so a hung invoke can never hold a test run forever.
  if (s.ok()) s = Count(*kv, "hang_ms", 10'000, &o.hang_ms);
  if (s.ok()) s = Count(*kv, "hold_invoke", kMaxCount, &o.hold_invoke);
  if (!s.ok()) return s;
  if (auto it = kv->find("hold_file"); it != kv->end()) o.hold_file = it->second;
  if ((o.hold_invoke > 0 || o.hold_compile) && o.hold_file.empty())
    return absl::InvalidArgumentError(absl::StrCat("option 'mock_dsp.", o.hold_compile ? "hold_compile" : "hold_invoke",
                                                   "' needs 'mock_dsp.hold_file' (the path that releases the held ",
                                                   o.hold_compile ? "compile" : "invoke", ")"));
  return o;
}

}  // namespace tessera::mock_dsp
