// App buffers bound to a run context (ExecutionContext::BindInput/BindOutput,
// RunBound): in place where every step takes the app's memory, copied where
// one does not (a type it does not list, an alignment it does not meet),
// swapped between runs, and refused with a message when wrong. The model is
// FC+ADD entirely on the systolic NPU, whose steps list DEVICE_DRAM then
// HOST and want 64-byte alignment (plugins/systolic_npu/dispatch).
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dispatch/execution_context.h"
#include "framework/compiler/compile/compile_driver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/bundled_plugins_for_test.h"
#include "testing/fc_add_on_npu_for_test.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

constexpr size_t kInputFloats = 4 * 16, kOutputFloats = 4 * 16;
constexpr size_t kInputBytes = kInputFloats * sizeof(float), kOutputBytes = kOutputFloats * sizeof(float);

// out = x·Wᵀ + b with W and b as fc_add_model_for_test.h writes them, in
// double: the reference the runs are held to.
std::vector<double> Expected(const float* x) {
  std::vector<double> out(kOutputFloats);
  for (int r = 0; r < 4; ++r)
    for (int o = 0; o < 16; ++o) {
      double sum = static_cast<double>(o % 3) * 0.25;
      for (int i = 0; i < 16; ++i)
        sum +=
            static_cast<double>(x[r * 16 + i]) * (static_cast<double>(static_cast<int>((o * 16 + i) % 11) - 5) * 0.125);
      out[r * 16 + o] = sum;
    }
  return out;
}

void ExpectNear(const float* got, const std::vector<double>& want) {
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-3 * (1 + std::fabs(want[i]))) << i;
}

// 64-byte aligned host memory, freed with the test.
struct Aligned {
  explicit Aligned(size_t bytes) : p(static_cast<float*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64))) {}
  ~Aligned() { std::free(p); }
  float* p;
};

AppBuffer Host(void* p, size_t bytes) { return {TSR_BUFFER_TYPE_HOST, p, -1, 0, bytes}; }

class Bindings : public ::testing::Test {
 protected:
  void SetUp() override {
    if (registry_.FindCompilerByName("npu") == nullptr) GTEST_SKIP() << "npu not built";
    const absl::Status loaded = LoadFcAddOnNpuForTest("bindings", registry_, &compiled_, &context_);
    ASSERT_TRUE(loaded.ok()) << loaded;
    for (const Op& op : compiled_.graph.ops) ASSERT_EQ(op.dispatch->vendor, "systolic_npu");
    const std::vector<float> x = FcAddInputForTest();
    std::memcpy(in_.p, x.data(), kInputBytes);
  }

  PluginRegistry registry_ = BundledPluginsForTest();
  CompiledGraph compiled_;
  std::unique_ptr<ExecutionContext> context_;
  Aligned in_{kInputBytes}, out_{kOutputBytes};
};

TEST_F(Bindings, AlignedHostBuffersAreUsedInPlaceWithNoCopy) {
  absl::StatusOr<BindingMode> in = context_->BindInput(0, Host(in_.p, kInputBytes));
  absl::StatusOr<BindingMode> out = context_->BindOutput(0, Host(out_.p, kOutputBytes));
  ASSERT_TRUE(in.ok()) << in.status();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*in, BindingMode::kZeroCopy);
  EXPECT_EQ(*out, BindingMode::kZeroCopy);
  ExecutionProfile profile;
  ASSERT_TRUE(context_->RunBound(&profile).ok());
  EXPECT_EQ(profile.io_copy_bytes, 0u);
  EXPECT_TRUE(profile.conversions.empty());
  ExpectNear(out_.p, Expected(in_.p));
}

TEST_F(Bindings, SwappingBuffersBetweenRunsReadsAndWritesTheNewOnes) {
  Aligned in2(kInputBytes), out2(kOutputBytes);
  for (size_t i = 0; i < kInputFloats; ++i) in2.p[i] = static_cast<float>(static_cast<int>(i % 5) - 2) * 0.5f;
  ASSERT_EQ(*context_->BindInput(0, Host(in_.p, kInputBytes)), BindingMode::kZeroCopy);
  ASSERT_EQ(*context_->BindOutput(0, Host(out_.p, kOutputBytes)), BindingMode::kZeroCopy);
  ASSERT_TRUE(context_->RunBound().ok());
  // The next frame: new buffers in both places; the first output stays as
  // it was written.
  std::vector<float> first(out_.p, out_.p + kOutputFloats);
  ASSERT_EQ(*context_->BindInput(0, Host(in2.p, kInputBytes)), BindingMode::kZeroCopy);
  ASSERT_EQ(*context_->BindOutput(0, Host(out2.p, kOutputBytes)), BindingMode::kZeroCopy);
  ASSERT_TRUE(context_->RunBound().ok());
  ExpectNear(out2.p, Expected(in2.p));
  EXPECT_EQ(std::memcmp(first.data(), out_.p, kOutputBytes), 0);
  ExpectNear(out_.p, Expected(in_.p));
  // Writing the bound input between runs is what the next run reads.
  for (size_t i = 0; i < kInputFloats; ++i) in2.p[i] = -in2.p[i];
  ASSERT_TRUE(context_->RunBound().ok());
  ExpectNear(out2.p, Expected(in2.p));
}

TEST_F(Bindings, AMisalignedBufferIsCopiedAndSaysSo) {
  // 4 bytes past a 64-byte boundary: the NPU wants 64.
  std::vector<uint8_t> raw(kInputBytes + 64 + 4);
  uint8_t* base = raw.data() + (64 - reinterpret_cast<uintptr_t>(raw.data()) % 64) % 64 + 4;
  std::memcpy(base, in_.p, kInputBytes);
  absl::StatusOr<BindingMode> in = context_->BindInput(0, Host(base, kInputBytes));
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(*in, BindingMode::kCopied);
  ASSERT_EQ(*context_->BindOutput(0, Host(out_.p, kOutputBytes)), BindingMode::kZeroCopy);
  ExecutionProfile profile;
  ASSERT_TRUE(context_->RunBound(&profile).ok());
  EXPECT_EQ(profile.io_copy_bytes, kInputBytes);
  ExpectNear(out_.p, Expected(in_.p));
}

TEST_F(Bindings, AFdBufferOfATypeTheNpuDoesNotListIsCopiedThroughItsMapping) {
  // A memfd stands in for a dma-buf: an fd the runtime maps. The NPU lists
  // DEVICE_DRAM and HOST, not DMABUF, so both bindings copy.
  const int fd = memfd_create("bindings_test", 0);
  ASSERT_GE(fd, 0);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(2 * page)), 0);
  // Input at offset 100 (not page aligned), output on the second page.
  ASSERT_EQ(pwrite(fd, in_.p, kInputBytes, 100), static_cast<ssize_t>(kInputBytes));
  absl::StatusOr<BindingMode> in = context_->BindInput(0, {TSR_BUFFER_TYPE_DMABUF, nullptr, fd, 100, kInputBytes});
  absl::StatusOr<BindingMode> out = context_->BindOutput(0, {TSR_BUFFER_TYPE_DMABUF, nullptr, fd, page, kOutputBytes});
  ASSERT_TRUE(in.ok()) << in.status();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*in, BindingMode::kCopied);
  EXPECT_EQ(*out, BindingMode::kCopied);
  ExecutionProfile profile;
  ASSERT_TRUE(context_->RunBound(&profile).ok());
  EXPECT_EQ(profile.io_copy_bytes, kInputBytes + kOutputBytes);
  std::vector<float> got(kOutputFloats);
  ASSERT_EQ(pread(fd, got.data(), kOutputBytes, static_cast<off_t>(page)), static_cast<ssize_t>(kOutputBytes));
  ExpectNear(got.data(), Expected(in_.p));
  context_.reset();  // unmaps before the fd closes
  close(fd);
}

TEST_F(Bindings, AFdShorterThanTheTensorIsRefusedAtBind) {
  // Mapped, a short file would raise SIGBUS at the first run that touches
  // the missing bytes; it is refused at bind, with both sizes.
  const int fd = memfd_create("bindings_short", 0);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(kInputBytes - 1)), 0);
  const absl::StatusOr<BindingMode> short_one =
      context_->BindInput(0, {TSR_BUFFER_TYPE_DMABUF, nullptr, fd, 0, kInputBytes});
  ASSERT_FALSE(short_one.ok());
  EXPECT_EQ(short_one.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(short_one.status().message(), HasSubstr(absl::StrCat("is ", kInputBytes - 1, " bytes")));
  EXPECT_THAT(short_one.status().message(), HasSubstr(absl::StrCat("0 + ", kInputBytes, " bytes")));
  // An offset that pushes the tensor past the end is refused too.
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(kInputBytes)), 0);
  EXPECT_FALSE(context_->BindInput(0, {TSR_BUFFER_TYPE_DMABUF, nullptr, fd, 1, kInputBytes}).ok());
  // Exactly the tensor's size binds.
  const absl::StatusOr<BindingMode> exact =
      context_->BindInput(0, {TSR_BUFFER_TYPE_DMABUF, nullptr, fd, 0, kInputBytes});
  EXPECT_TRUE(exact.ok()) << exact.status();
  context_.reset();  // unmaps before the fd closes
  close(fd);
}

TEST_F(Bindings, UnbindingRestoresTheContextsOwnBuffers) {
  ASSERT_EQ(*context_->BindInput(0, Host(in_.p, kInputBytes)), BindingMode::kZeroCopy);
  ASSERT_EQ(*context_->BindOutput(0, Host(out_.p, kOutputBytes)), BindingMode::kZeroCopy);
  // While bound, RunInto would overwrite the app's memory: refused.
  std::vector<float> x = FcAddInputForTest(), y(kOutputFloats);
  const std::vector<std::span<const uint8_t>> ins = {{reinterpret_cast<const uint8_t*>(x.data()), kInputBytes}};
  const std::vector<std::span<uint8_t>> outs = {{reinterpret_cast<uint8_t*>(y.data()), kOutputBytes}};
  EXPECT_THAT(context_->RunInto(ins, outs).message(), HasSubstr("RunBound"));
  ASSERT_TRUE(context_->Unbind(TSR_IO_INPUT, 0).ok());
  EXPECT_THAT(context_->RunBound().message(), HasSubstr("input 0 ('x') is not bound"));
  ASSERT_TRUE(context_->Unbind(TSR_IO_OUTPUT, 0).ok());
  // The app's buffers are no longer touched.
  std::memset(out_.p, 0x7f, kOutputBytes);
  for (float& v : x) v *= 2;
  ExecutionProfile profile;
  ASSERT_TRUE(context_->RunInto(ins, outs, &profile).ok());
  EXPECT_EQ(profile.io_copy_bytes, kInputBytes + kOutputBytes);
  ExpectNear(y.data(), Expected(x.data()));
  for (size_t i = 0; i < kOutputBytes; ++i) ASSERT_EQ(reinterpret_cast<uint8_t*>(out_.p)[i], 0x7f) << i;
}

TEST_F(Bindings, BadBindingsAreRefusedWithTheReason) {
  EXPECT_THAT(context_->BindInput(1, Host(in_.p, kInputBytes)).status().message(), HasSubstr("the model has 1 inputs"));
  EXPECT_THAT(context_->BindInput(0, Host(in_.p, kInputBytes - 4)).status().message(),
              HasSubstr("the tensor is 256 bytes; the buffer has 252"));
  EXPECT_THAT(context_->BindInput(0, Host(nullptr, kInputBytes)).status().message(), HasSubstr("NULL"));
  EXPECT_THAT(context_->BindInput(0, {TSR_BUFFER_TYPE_DEVICE_DRAM, in_.p, -1, 0, kInputBytes}).status().message(),
              HasSubstr("host or dmabuf"));
  EXPECT_THAT(context_->BindInput(0, {TSR_BUFFER_TYPE_DMABUF, nullptr, -1, 0, kInputBytes}).status().message(),
              HasSubstr("without an fd"));
  EXPECT_THAT(context_->Unbind(7, 0).message(), HasSubstr("io kind 7"));
  // A refused bind leaves nothing bound: RunInto still works.
  std::vector<float> x = FcAddInputForTest(), y(kOutputFloats);
  const std::vector<std::span<const uint8_t>> ins = {{reinterpret_cast<const uint8_t*>(x.data()), kInputBytes}};
  const std::vector<std::span<uint8_t>> outs = {{reinterpret_cast<uint8_t*>(y.data()), kOutputBytes}};
  EXPECT_TRUE(context_->RunInto(ins, outs).ok());
}

}  // namespace
}  // namespace tessera
