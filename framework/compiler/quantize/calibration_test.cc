#include "framework/compiler/quantize/calibration.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "framework/compiler/quantize/test_models.h"
#include "framework/core/io/tensor_proto.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera::quantize {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TempDir {
 public:
  TempDir() {
    char path[] = "/tmp/tessera_calibration_test_XXXXXX";
    path_ = ::mkdtemp(path) ? path : "";
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string Sub(const std::string& name) const { return (fs::path(path_) / name).string(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

HostTensor F32(const std::string& name, std::vector<int64_t> shape, float value) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n), value);
  HostTensor t{name, TSR_DTYPE_F32, std::move(shape), std::vector<uint8_t>(v.size() * 4)};
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

TEST(CalibrationSamples, EmptyDirectoryIsAnError) {
  TempDir dir;
  absl::StatusOr<std::vector<CalibrationSample>> s = ReadCalibrationSamples(dir.path(), testing::BuildMlp());
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("holds no samples"));
  EXPECT_FALSE(ReadCalibrationSamples(dir.Sub("missing"), testing::BuildMlp()).ok());
}

TEST(CalibrationSamples, OneSampleAtTheTopOrOnePerSubdirectorySortedByName) {
  const Graph g = testing::BuildMlp();
  TempDir top;
  ASSERT_TRUE(WriteTensorSet({F32("x", {4, 16}, 1.0f)}, top.path(), "input").ok());
  absl::StatusOr<std::vector<CalibrationSample>> one = ReadCalibrationSamples(top.path(), g);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->size(), 1u);

  TempDir sets;
  ASSERT_TRUE(WriteTensorSet({F32("x", {4, 16}, 2.0f)}, sets.Sub("test_data_set_1"), "input").ok());
  ASSERT_TRUE(WriteTensorSet({F32("x", {4, 16}, 1.0f)}, sets.Sub("test_data_set_0"), "input").ok());
  fs::create_directories(sets.Sub("notes"));  // no input files: not a sample
  absl::StatusOr<std::vector<CalibrationSample>> two = ReadCalibrationSamples(sets.path(), g);
  ASSERT_TRUE(two.ok()) << two.status();
  ASSERT_EQ(two->size(), 2u);
  EXPECT_THAT((*two)[0].origin, HasSubstr("test_data_set_0"));
  EXPECT_THAT((*two)[1].origin, HasSubstr("test_data_set_1"));
}

TEST(CalibrationSamples, WrongCountDtypeOrShapeNameTheSample) {
  const Graph g = testing::BuildMlp();
  TempDir count;
  ASSERT_TRUE(WriteTensorSet({F32("x", {4, 16}, 1.0f), F32("z", {1}, 0.0f)}, count.Sub("s0"), "input").ok());
  absl::StatusOr<std::vector<CalibrationSample>> s = ReadCalibrationSamples(count.path(), g);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("takes 1 inputs, got 2"));
  EXPECT_THAT(s.status().message(), HasSubstr("s0"));

  TempDir shape;
  ASSERT_TRUE(WriteTensorSet({F32("x", {4, 15}, 1.0f)}, shape.path(), "input").ok());
  s = ReadCalibrationSamples(shape.path(), g);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("must be f32 [4,16], got f32 [4,15]"));

  TempDir dtype;
  HostTensor i32{"x", TSR_DTYPE_I32, {4, 16}, std::vector<uint8_t>(4 * 64)};
  ASSERT_TRUE(WriteTensorSet({i32}, dtype.path(), "input").ok());
  s = ReadCalibrationSamples(dtype.path(), g);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("got i32"));
}

TEST(Calibrate, RecordsMinMaxOverAllSamples) {
  const Graph g = testing::BuildMlp();
  std::vector<CalibrationSample> samples = {{"a", {F32("x", {4, 16}, -0.5f)}}, {"b", {F32("x", {4, 16}, 0.75f)}}};
  absl::StatusOr<Calibration> c = Calibrate(g, samples);
  ASSERT_TRUE(c.ok()) << c.status();
  const TensorRange& x = c->ranges[g.inputs[0]];
  EXPECT_TRUE(x.seen);
  EXPECT_EQ(x.min, -0.5f);
  EXPECT_EQ(x.max, 0.75f);
  ASSERT_EQ(c->fp32_outputs.size(), 2u);
  // Every op output is observed; constants are not.
  for (const Op& op : g.ops) EXPECT_TRUE(c->ranges[op.outputs[0]].seen);
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (g.tensors[t].is_constant) {
      EXPECT_FALSE(c->ranges[t].seen);
    }
  }
  // The RELU output never goes below 0.
  EXPECT_GE(c->ranges[g.ops[1].outputs[0]].min, 0.0f);
}

}  // namespace
}  // namespace tessera::quantize
