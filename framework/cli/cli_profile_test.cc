// `tessera run --trace FILE.json` and `--profile` on the attention demo,
// which the NPU fragments under --policy greedy. The trace is read back as
// JSON and checked against the run's own `--json` figures: one host track
// per device, an event per partition in run order and inside the run, the
// NPU's modelled time beside its host time, and conversions on a track of
// their own. The verdict is checked against the modelled shares the run
// reports.
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/core/base/json_reader.h"
#include "testing/cli_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

JsonValue Parsed(const std::string& text) {
  absl::StatusOr<JsonValue> v = ParseJson(text);
  EXPECT_TRUE(v.ok()) << v.status() << "\n" << text.substr(0, 2000);
  return v.ok() ? *std::move(v) : JsonValue{};
}

double NumberAt(const JsonValue& object, const char* key) {
  const JsonValue* v = object.Find(key);
  EXPECT_NE(v, nullptr) << key;
  return v != nullptr ? v->number : 0;
}

std::string StringAt(const JsonValue& object, const char* key) {
  const JsonValue* v = object.Find(key);
  return v != nullptr ? v->string : "";
}

class AttentionModel {
 public:
  AttentionModel() : path_(file_.path() + ".tsr") {
    EXPECT_EQ(Tessera("demo --model attention --accelerators cpu --save-model " + path_).exit_code, 0);
  }
  ~AttentionModel() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  TempFile file_;
  std::string path_;
};

struct TracedRun {
  JsonValue run;    // the run's --json
  JsonValue trace;  // the --trace file
  std::map<uint64_t, std::string> tracks;  // tid -> thread_name
};

TracedRun RunTraced(const std::string& model, const std::string& flags) {
  TempFile trace;
  const Result r = Tessera("run " + model + " --random --json --trace " + trace.path() + " " + flags);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  TracedRun out{Parsed(r.output), Parsed(ReadFile(trace.path())), {}};
  if (const JsonValue* events = out.trace.Find("traceEvents"))
    for (const JsonValue& e : events->items)
      if (StringAt(e, "name") == "thread_name")
        out.tracks[static_cast<uint64_t>(NumberAt(e, "tid"))] = StringAt(*e.Find("args"), "name");
  return out;
}

std::vector<const JsonValue*> EventsOf(const TracedRun& t, const std::string& category) {
  std::vector<const JsonValue*> out;
  for (const JsonValue& e : t.trace.Find("traceEvents")->items)
    if (StringAt(e, "cat") == category) out.push_back(&e);
  return out;
}

TEST(CliTrace, OneTrackPerDeviceAndOneEventPerPartitionInRunOrder) {
  AttentionModel model;
  const TracedRun t = RunTraced(model.path(), "--accelerators npu,cpu --policy greedy --soc ref-phone");
  std::set<std::string> names;
  for (const auto& [tid, name] : t.tracks) names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"systolic_npu (host time)", "systolic_npu (modelled device time)",
                                          "cpu (host time)"}));
  const std::vector<JsonValue>& partitions = t.run.Find("partitions")->items;
  const std::vector<const JsonValue*> events = EventsOf(t, "partition");
  ASSERT_EQ(events.size(), partitions.size());
  ASSERT_GT(partitions.size(), 2u);  // greedy fragments this model
  const double total_us = NumberAt(t.run, "total_us");
  double previous_end = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const JsonValue& e = *events[i];
    EXPECT_EQ(StringAt(e, "ph"), "X");
    EXPECT_THAT(StringAt(e, "name"), StartsWith("#" + std::to_string(i) + " "));
    EXPECT_EQ(t.tracks.at(static_cast<uint64_t>(NumberAt(e, "tid"))),
              StringAt(partitions[i], "vendor") + " (host time)");
    // Its duration is the partition's host time in the run's own report,
    // and the runtime runs one step after another inside the run.
    EXPECT_DOUBLE_EQ(NumberAt(e, "dur"), NumberAt(partitions[i], "host_time_us"));
    EXPECT_GE(NumberAt(e, "ts"), previous_end - 1e-6);
    previous_end = NumberAt(e, "ts") + NumberAt(e, "dur");
  }
  EXPECT_LE(previous_end, total_us + 1e-6);
  // The NPU's modelled device time is drawn beside its host time, from its
  // `time_us` metric.
  const std::vector<const JsonValue*> modelled = EventsOf(t, "modelled");
  size_t npu_partitions = 0;
  for (const JsonValue& p : partitions) npu_partitions += StringAt(p, "vendor") == "systolic_npu";
  ASSERT_EQ(modelled.size(), npu_partitions);
  for (const JsonValue* e : modelled) {
    const size_t i = static_cast<size_t>(NumberAt(*e->Find("args"), "partition"));
    ASSERT_LT(i, partitions.size());
    EXPECT_DOUBLE_EQ(NumberAt(*e, "dur"), NumberAt(*partitions[i].Find("metrics"), "time_us"));
    EXPECT_DOUBLE_EQ(NumberAt(*e, "ts"), NumberAt(*events[i], "ts"));
  }
  EXPECT_TRUE(EventsOf(t, "conversion").empty());  // npu,cpu share host memory here
}

TEST(CliTrace, ConversionsHaveATrackOfTheirOwnWithTheirBytes) {
  // The mock DSP computes in its own dsp_tcm memory: every tensor that
  // crosses to or from it is converted.
  AttentionModel model;
  const TracedRun t = RunTraced(model.path(), "--accelerators dsp,cpu --mode jit --policy greedy");
  const std::vector<JsonValue>& conversions = t.run.Find("conversions")->items;
  ASSERT_FALSE(conversions.empty());
  double bytes = 0, us = 0;
  for (const JsonValue& c : conversions) bytes += NumberAt(c, "bytes"), us += NumberAt(c, "host_time_us");
  EXPECT_EQ(NumberAt(t.run, "conversion_bytes"), bytes);
  EXPECT_DOUBLE_EQ(NumberAt(t.run, "conversion_us"), us);
  const std::vector<const JsonValue*> events = EventsOf(t, "conversion");
  ASSERT_EQ(events.size(), conversions.size());
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(t.tracks.at(static_cast<uint64_t>(NumberAt(*events[i], "tid"))), "conversions");
    EXPECT_EQ(NumberAt(*events[i]->Find("args"), "bytes"), NumberAt(conversions[i], "bytes"));
    EXPECT_DOUBLE_EQ(NumberAt(*events[i], "dur"), NumberAt(conversions[i], "host_time_us"));
    EXPECT_GE(NumberAt(*events[i], "ts"), 0);
    EXPECT_LE(NumberAt(*events[i], "ts") + NumberAt(*events[i], "dur"), NumberAt(t.run, "total_us") + 1e-6);
  }
}

TEST(CliProfile, TheVerdictNamesFragmentationWhenTransfersAndDispatchDominate) {
  AttentionModel model;
  const Result r = Tessera("run " + model.path() + " --accelerators npu,cpu --policy greedy --soc ref-phone --random "
                           "--json --profile");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const JsonValue run = Parsed(r.output);
  const JsonValue& modeled = *run.Find("modeled_latency");
  const double overhead = (NumberAt(modeled, "transfer_us") + NumberAt(modeled, "dispatch_us")) /
                          NumberAt(modeled, "measured_us");
  ASSERT_GT(overhead, 0.5) << "the demo no longer fragments on ref-phone";
  const JsonValue& summary = *run.Find("profile_summary");
  EXPECT_THAT(StringAt(summary, "verdict"), StartsWith("fragmented: "));
  EXPECT_THAT(StringAt(summary, "verdict"),
              HasSubstr(std::to_string(run.Find("partitions")->items.size()) + " partitions"));
  // Per-device host time adds up to the partitions' host times.
  std::map<std::string, double> by_vendor;
  for (const JsonValue& p : run.Find("partitions")->items) by_vendor[StringAt(p, "vendor")] += NumberAt(p, "host_time_us");
  for (const JsonValue& d : summary.Find("devices")->items)
    EXPECT_NEAR(NumberAt(d, "host_us"), by_vendor[StringAt(d, "vendor")], 1e-9) << StringAt(d, "vendor");
  EXPECT_EQ(summary.Find("devices")->items.size(), by_vendor.size());

  // All on the cpu: one partition, nothing to cut.
  const Result cpu = Tessera("run " + model.path() + " --accelerators npu,cpu --policy cpu --random --profile");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.output;
  EXPECT_THAT(cpu.output, HasSubstr("verdict: compute-bound on cpu"));
  EXPECT_THAT(cpu.output, HasSubstr("top steps:"));
}

}  // namespace
}  // namespace tessera
