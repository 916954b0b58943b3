#include "framework/compiler/partition/soc_cost_model.h"

#include "absl/strings/str_cat.h"

namespace tessera {

absl::StatusOr<SocCostModel> SocCostModel::Parse(std::string_view text) {
  SocCostModel m;
  if (text.empty()) {
    m.notes_.push_back(absl::StrCat("no SoC description: CPU ", kDefaultCpuGflops, " GFLOP/s, links ", kDefaultLinkGbps,
                                    " GB/s + ", kDefaultLinkLatencyUs, " us, no dispatch overhead"));
    return m;
  }
  absl::StatusOr<kit::IniDocument> doc = kit::ParseIni(text);
  if (!doc.ok()) return doc.status();
  absl::StatusOr<kit::CpuSection> cpu = kit::ParseCpuSection(*doc);
  if (!cpu.ok()) return cpu.status();
  if (cpu->present) {
    m.cpu_ = cpu->model;
  } else {
    m.notes_.push_back(absl::StrCat("no [cpu] section: CPU ", kDefaultCpuGflops, " GFLOP/s"));
  }
  absl::StatusOr<kit::TransferTable> transfers = kit::ParseTransferSections(*doc);
  if (!transfers.ok()) return transfers.status();
  m.transfers_ = *std::move(transfers);
  absl::StatusOr<kit::DispatchTable> dispatch = kit::ParseDispatchSections(*doc);
  if (!dispatch.ok()) return dispatch.status();
  m.dispatch_ = *std::move(dispatch);
  return m;
}

SocCostModel SocCostModel::Defaults(std::string why) {
  SocCostModel m = *Parse("");
  m.notes_.insert(m.notes_.begin(), std::move(why));
  return m;
}

double SocCostModel::CpuTimeUs(double ops, bool int8, CpuOpClass c) const {
  const double giga_per_s = (int8 ? cpu_.gops_int8 : cpu_.gflops_f32) * cpu_.efficiency[static_cast<size_t>(c)];
  return ops / (giga_per_s * 1e3);  // 1 G/s = 1e3 per microsecond
}

kit::DispatchModel SocCostModel::Dispatch(const std::string& vendor) const {
  auto it = dispatch_.find(vendor);
  return it != dispatch_.end() ? it->second : kit::DispatchModel{};
}

double SocCostModel::LinkUs(const std::string& from, const std::string& to, uint64_t bytes, bool* found) const {
  auto it = transfers_.find({from, to});
  *found = it != transfers_.end();
  if (!*found) return 0;
  return static_cast<double>(bytes) / (it->second.bandwidth_gbps * 1e3) + it->second.latency_us;
}

double SocCostModel::TransferUs(const std::string& from, const std::string& to, uint64_t bytes) const {
  if (from == to) return 0;
  bool found = false;
  const double direct = LinkUs(from, to, bytes, &found);
  if (found) return direct;
  if (from != "host" && to != "host") {
    bool first = false, second = false;
    const double a = LinkUs(from, "host", bytes, &first);
    const double b = LinkUs("host", to, bytes, &second);
    if (first && second) return a + b;
  }
  return static_cast<double>(bytes) / (kDefaultLinkGbps * 1e3) + kDefaultLinkLatencyUs;
}

}  // namespace tessera
