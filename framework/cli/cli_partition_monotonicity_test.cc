// The cost policy is monotone in its choices on the bundled models: on the
// reference SoCs, `partition --accelerators L'` models no slower than
// `--accelerators L` for every L contained in L' (same order), within 1%.
// The figures are the CLI's own (`partition --json`, modeled_latency_us),
// compared with each other: the property, not a stored number.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "framework/core/io/tensor_proto.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "testing/cli_test_util.h"

namespace tessera {
namespace {

double ModeledUs(const std::string& json) {
  std::smatch m;
  static const std::regex re("\"modeled_latency_us\":([0-9.eE+-]+)");
  if (!std::regex_search(json, m, re)) return -1;
  return std::stod(m[1]);
}

// Flags that fix a case's input shapes from its test_data_set_0 files (by
// the tensors' names), and freeze its one-element integer inputs (a sample
// rate) to their values.
std::string FlagsFromCase(const std::filesystem::path& dir) {
  std::string flags;
  for (int i = 0;; ++i) {
    const std::filesystem::path file = dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb");
    if (!std::filesystem::exists(file)) break;
    absl::StatusOr<HostTensor> t = ReadTensorProtoFile(file.string());
    if (!t.ok() || t->name.empty()) continue;
    if (t->dtype == TSR_DTYPE_I64 && t->data.size() == 8) {
      int64_t v = 0;
      std::memcpy(&v, t->data.data(), 8);
      flags += " --freeze-input " + t->name + "=" + std::to_string(v);
    } else if (!t->shape.empty()) {
      flags += " --input-shape " + t->name + "=" + absl::StrJoin(t->shape, ",");
    }
  }
  return flags;
}

// Whole networks: Debian's libonnx-testdata convolutions, and the cases
// under $TESSERA_REAL_ONNX_CASES (third-party models: PP-OCRv4's text
// detector is one where `auto` modelled 7.6% (ref-phone) and 22% (ref-edge)
// slower than npu,cpu before every sub-list was searched), with the flags
// they need.
std::vector<std::pair<std::string, std::string>> RealOnnxModels() {
  const std::string dir = "/usr/share/libonnx-testdata/data/pytorch-converted/";
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* name : {"test_Conv2d", "test_Conv2d_depthwise", "test_Linear", "test_Conv2d_groups"})
    if (std::filesystem::exists(dir + name + "/model.onnx")) out.push_back({dir + name + "/model.onnx", ""});
  if (const char* cases = std::getenv("TESSERA_REAL_ONNX_CASES"); cases != nullptr)
    for (const std::filesystem::directory_entry& e : std::filesystem::directory_iterator(cases))
      if (std::filesystem::exists(e.path() / "model.onnx"))
        out.push_back({(e.path() / "model.onnx").string(), FlagsFromCase(e.path())});
  return out;
}

TEST(CliPartitionMonotonicity, AWiderAcceleratorListNeverModelsSlower) {
  std::vector<std::pair<std::string, std::string>> models;  // path, flags
  std::vector<TempFile> files(5);
  const char* demos[] = {"attention", "mlp", "cnn", "frag-chain", "frag-gated"};
  for (size_t i = 0; i < 5; ++i) {
    const std::string path = files[i].path() + ".tsr";
    Result saved = Tessera(std::string("demo --model ") + demos[i] + " --accelerators cpu --save-model " + path);
    ASSERT_EQ(saved.exit_code, 0) << saved.output;
    models.push_back({path, ""});
  }
  for (const auto& m : RealOnnxModels()) models.push_back(m);
  // `auto` is npu,dsp,cpu: every sub-list of it that keeps the cpu.
  const std::vector<std::string> lists = {"cpu", "npu,cpu", "dsp,cpu", "npu,dsp,cpu"};
  const std::vector<std::pair<int, int>> contains = {{1, 0}, {2, 0}, {3, 0}, {3, 1}, {3, 2}};
  for (const auto& [model, flags] : models) {
    for (const char* soc : {"ref-phone", "ref-edge"}) {
      std::vector<double> us;
      for (const std::string& list : lists) {
        Result r = Tessera("partition " + model + " --soc " + soc + " --accelerators " + list + " --json" + flags);
        ASSERT_EQ(r.exit_code, 0) << model << " " << soc << " " << list << ": " << r.output;
        us.push_back(ModeledUs(r.output));
        ASSERT_GT(us.back(), 0) << r.output;
      }
      for (const auto& [wide, narrow] : contains)
        EXPECT_LE(us[wide], us[narrow] * 1.01) << model << " on " << soc << ": " << lists[wide] << " models "
                                               << us[wide] << " us, " << lists[narrow] << " " << us[narrow] << " us";
    }
  }
  for (size_t i = 0; i < files.size(); ++i) std::filesystem::remove(files[i].path() + ".tsr");
}

}  // namespace
}  // namespace tessera
