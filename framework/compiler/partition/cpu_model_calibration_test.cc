// The cpu model against the cpu plugin's measured kernel times: the
// checked-in calibration file (bench/data/cpu_op_class_calibration.tsv,
// re-measured by bench/cpu_op_class_calibration.sh) holds one line per op
// of the bench models (the small CNN, the MLP, the attention block, the
// decoder MLP block and PaddleOCR cls, rec and det) with its shapes and its
// measured time. Each op is rebuilt here from its shapes, and the cost
// model prices it as a partition would: WorkOf, ClassOf and the bundled
// SoC's [cpu] efficiencies. Measured times are never taken in a test (a
// shared machine makes them flaky); the bench re-measures.
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "framework/compiler/partition/cpu_op_class.h"
#include "framework/compiler/partition/op_work.h"
#include "framework/compiler/partition/soc_cost_model.h"
#include "framework/core/base/dtype.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Record {
  std::string model;
  Graph graph;        // the op alone: tensors in0, [in1,] out
  double work = 0;    // as the bench counted it
  std::string klass;  // as the bench classed it
  double us = 0;      // measured
};

std::vector<int64_t> ParseShape(const std::string& s) {
  std::vector<int64_t> shape;
  if (s == "scalar") return shape;
  for (absl::string_view d : absl::StrSplit(s, 'x')) {
    int64_t v = 0;
    EXPECT_TRUE(absl::SimpleAtoi(d, &v)) << s;
    shape.push_back(v);
  }
  return shape;
}

std::vector<Record> LoadCalibration() {
  const std::string text = ReadFile(std::string(TSR_SOURCE_DIR) + "/bench/data/cpu_op_class_calibration.tsv");
  EXPECT_FALSE(text.empty()) << "bench/data/cpu_op_class_calibration.tsv is missing";
  std::vector<Record> out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (line[0] == '#') continue;
    const std::vector<std::string> f = absl::StrSplit(line, '\t');
    if (f.size() != 11) {
      ADD_FAILURE() << "malformed line: " << line;
      continue;
    }
    Record r;
    r.model = f[0];
    const std::optional<int32_t> type = OpTypeFromName(f[1]);
    const std::optional<int32_t> dtype = DTypeFromName(f[2]);
    if (!type.has_value() || !dtype.has_value()) {
      ADD_FAILURE() << "unknown op or dtype: " << line;
      continue;
    }
    Op op;
    op.type = *type;
    for (int i : {3, 4}) {
      if (f[i] == "-") continue;
      op.inputs.push_back(static_cast<int32_t>(r.graph.tensors.size()));
      r.graph.tensors.push_back(Tensor{.name = "in", .dtype = *dtype, .shape = ParseShape(f[i])});
    }
    op.outputs.push_back(static_cast<int32_t>(r.graph.tensors.size()));
    r.graph.tensors.push_back(Tensor{.name = "out", .dtype = *dtype, .shape = ParseShape(f[5])});
    int64_t groups = 1;
    EXPECT_TRUE(absl::SimpleAtoi(f[6], &groups)) << line;
    if (groups != 1) op.attrs[TSR_ATTR_GROUPS] = Attribute{{groups}, {}};
    if (f[7] != "-") op.attrs[TSR_ATTR_KERNEL_SHAPE] = Attribute{ParseShape(f[7]), {}};
    r.graph.ops.push_back(std::move(op));
    EXPECT_TRUE(absl::SimpleAtod(f[8], &r.work) && absl::SimpleAtod(f[10], &r.us)) << line;
    r.klass = f[9];
    out.push_back(std::move(r));
  }
  return out;
}

SocCostModel BundledSoc(const std::string& name) {
  absl::StatusOr<SocCostModel> m = SocCostModel::Parse(ReadFile(std::string(TSR_SOURCE_DIR) + "/socs/" + name));
  EXPECT_TRUE(m.ok()) << name << ": " << m.status();
  return m.ok() ? *m : SocCostModel{};
}

// Per class (CpuOpClassNames order): the summed time of one model's ops.
using ClassTimes = std::vector<double>;

std::map<std::string, std::pair<ClassTimes, ClassTimes>> ModelledAndMeasured(const std::vector<Record>& records,
                                                                             const SocCostModel& soc) {
  std::map<std::string, std::pair<ClassTimes, ClassTimes>> out;
  for (const Record& r : records) {
    auto& [modelled, measured] = out[r.model];
    modelled.resize(kit::kCpuOpClassCount);
    measured.resize(kit::kCpuOpClassCount);
    const Op& op = r.graph.ops[0];
    const OpWork w = WorkOf(r.graph, op);
    const size_t c = static_cast<size_t>(ClassOf(op));
    modelled[c] += soc.CpuTimeUs(w.ops, w.int8, ClassOf(op));
    measured[c] += r.us;
  }
  return out;
}

double Sum(const ClassTimes& t) {
  double s = 0;
  for (double v : t) s += v;
  return s;
}

// The classes of a model whose modelled share of its time is off the
// measured share by more than 2x (when the class has at least 5% of the
// measured time) or, for smaller classes, by more than 2x and more than 10
// percentage points (at most a 10% error in the model's total): as
// "model class modelled% measured%".
std::vector<std::string> SharesOffBy2x(const std::vector<Record>& records, const SocCostModel& soc) {
  std::vector<std::string> off;
  for (const auto& [model, times] : ModelledAndMeasured(records, soc)) {
    const double modelled_total = Sum(times.first), measured_total = Sum(times.second);
    for (size_t c = 0; c < kit::kCpuOpClassCount; ++c) {
      const double modelled = times.first[c] / modelled_total, measured = times.second[c] / measured_total;
      const bool off_2x = modelled > 2 * measured || measured > 2 * modelled;
      if (off_2x && (measured >= 0.05 || std::abs(modelled - measured) > 0.10))
        off.push_back(model + " " + kit::CpuOpClassNames()[c] + " modelled " + std::to_string(100 * modelled) +
                      "% measured " + std::to_string(100 * measured) + "%");
    }
  }
  return off;
}

TEST(CpuModelCalibration, TheFileCoversTheBenchModelsAndEveryClass) {
  const std::vector<Record> records = LoadCalibration();
  std::map<std::string, int> per_model;
  std::map<std::string, double> per_class_us;
  for (const Record& r : records) {
    ++per_model[r.model];
    per_class_us[r.klass] += r.us;
  }
  for (const char* m : {"cnn", "mlp", "attention", "decoder", "ocr_cls", "ocr_rec", "ocr_det"})
    EXPECT_GT(per_model[m], 0) << m;
  for (const std::string& c : kit::CpuOpClassNames()) EXPECT_GT(per_class_us[c], 0) << c;
}

TEST(CpuModelCalibration, WasMeasuredWithTodaysCountingRules) {
  // The bench wrote WorkOf and ClassOf of the model's op; the op rebuilt
  // from its shapes counts the same, so the file and the cost model agree
  // (a change to op_work.cc or cpu_op_class.cc needs a re-measure).
  for (const Record& r : LoadCalibration()) {
    const Op& op = r.graph.ops[0];
    EXPECT_DOUBLE_EQ(WorkOf(r.graph, op).ops, r.work) << r.model << " " << OpTypeName(op.type);
    EXPECT_EQ(CpuOpClassName(ClassOf(op)), r.klass) << r.model << " " << OpTypeName(op.type);
  }
}

TEST(CpuModelCalibration, BundledSocsCarryTheFittedEfficiencies) {
  // The fit (docs/partitioning.md): per model, each class's host rate
  // (summed work over summed measured time) over that model's GEMM rate;
  // per class, the geometric mean of that ratio over the models where the
  // class has at least 5% of the measured time. One global scale per SoC:
  // its gflops_f32.
  std::map<std::string, std::vector<double>> work, us;  // by model, per class
  for (const Record& r : LoadCalibration()) {
    const std::optional<CpuOpClass> c = CpuOpClassFromName(r.klass);
    ASSERT_TRUE(c.has_value()) << r.klass;
    work[r.model].resize(kit::kCpuOpClassCount);
    us[r.model].resize(kit::kCpuOpClassCount);
    work[r.model][static_cast<size_t>(*c)] += r.work;
    us[r.model][static_cast<size_t>(*c)] += r.us;
  }
  std::vector<double> log_sum(kit::kCpuOpClassCount);
  std::vector<int> models(kit::kCpuOpClassCount);
  for (const auto& [model, w] : work) {
    const std::vector<double>& t = us[model];
    ASSERT_GT(t[0], 0) << model << " has no GEMM time";
    double total = 0;
    for (double v : t) total += v;
    for (size_t c = 0; c < kit::kCpuOpClassCount; ++c) {
      if (t[c] < 0.05 * total) continue;
      log_sum[c] += std::log((w[c] / t[c]) / (w[0] / t[0]));
      ++models[c];
    }
  }
  for (const char* soc : {"ref-phone.soc", "ref-edge.soc", "ref-server.soc"}) {
    const SocCostModel m = BundledSoc(soc);
    for (size_t c = 0; c < kit::kCpuOpClassCount; ++c) {
      ASSERT_GT(models[c], 0) << kit::CpuOpClassNames()[c];
      const double fit = std::exp(log_sum[c] / models[c]);
      EXPECT_NEAR(m.cpu().efficiency[c], fit, 0.01 * fit)
          << soc << " efficiency_" << kit::CpuOpClassNames()[c] << " (re-run bench/cpu_op_class_calibration.sh)";
    }
  }
}

TEST(CpuModelCalibration, ModelledClassSharesAgreeWithMeasuredWithin2x) {
  const std::vector<Record> records = LoadCalibration();
  for (const char* soc : {"ref-phone.soc", "ref-edge.soc", "ref-server.soc"}) {
    const std::vector<std::string> off = SharesOffBy2x(records, BundledSoc(soc));
    EXPECT_TRUE(off.empty()) << soc << ": " << off.size() << " off, first: " << (off.empty() ? "" : off[0]);
  }
}

TEST(CpuModelCalibration, TheFlatRooflineFailsTheSameCheck) {
  // The check has teeth: the old model, every op class at the GEMM rate,
  // misprices the depthwise, elementwise and data-movement share of the
  // real models by more than 2x.
  absl::StatusOr<SocCostModel> flat = SocCostModel::Parse("[cpu]\ngflops_f32 = 150\ngops_int8 = 600\nthreads = 8\n");
  ASSERT_TRUE(flat.ok()) << flat.status();
  EXPECT_GE(SharesOffBy2x(LoadCalibration(), *flat).size(), 3u);
}

}  // namespace
}  // namespace tessera
