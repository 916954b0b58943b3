// End to end through the C ABI of libtessera_dispatch_cpu.so: one program
// with ops the fast kernels handle (FULLY_CONNECTED, MATMUL, CONV_2D,
// MAX_POOL_2D, fused RELU/CLIP) and one they don't (CAST), loaded as AOT bytecode and as
// a JIT handle with cpu.kernels=fast (the default) and =reference. The
// ops_fast metric shows which path each run took; outputs agree.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "plugins/kit/bytecode_builder.h"
#include "plugins/cpu/shared/cpu_jit_program.h"
#include "plugins/kit/compiled_result.h"
#include "plugins/kit/graph_snapshot.h"
#include "tessera/dispatch.h"
#include "tessera/ops.h"

namespace tessera::cpu {
namespace {

const tsr_dispatch_api* Api() {
  static const tsr_dispatch_api* api = [] {
    const char* env = std::getenv("TESSERA_BUILD_DIR");
    const std::string path = std::string(env ? env : ".") + "/lib/libtessera_dispatch_cpu.so";
    void* so = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (so == nullptr) return static_cast<const tsr_dispatch_api*>(nullptr);
    auto fn = reinterpret_cast<tsr_dispatch_negotiate_fn>(dlsym(so, TSR_DISPATCH_ENTRY));
    const tsr_dispatch_api* out = nullptr;
    tsr_version v{};
    if (fn == nullptr || fn({TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR}, &v, &out) != TSR_OK) return out;
    return out;
  }();
  return api;
}

struct Program {
  kit::GraphSnapshot graph;
  std::vector<std::vector<uint8_t>> constants;
  std::vector<uint8_t> encoded;
  std::vector<uint8_t> bytecode;
};

std::vector<uint8_t> RandomBytes(std::mt19937& rng, size_t floats) {
  std::vector<uint8_t> bytes(floats * 4);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (size_t i = 0; i < floats; ++i) {
    const float v = u(rng);
    std::memcpy(bytes.data() + 4 * i, &v, 4);
  }
  return bytes;
}

// x [8, 32] -> FC(64) -> RELU -> CAST (f32 to f32) -> MATMUL [64, 16] -> CLIP [-0.05, 0.05] -> y [8, 16]
// img [1, 3, 10, 10] -> CONV_2D(8, 3x3, pad 1, relu) -> MAX_POOL_2D(2x2, s2) -> z [1, 8, 5, 5]
// The fast path runs FC+RELU and MATMUL+CLIP as two fused ops, CONV_2D and
// MAX_POOL_2D, and leaves CAST to the reference kernel.
Program MakeProgram() {
  Program p;
  std::mt19937 rng(3);
  p.constants.push_back(RandomBytes(rng, 64 * 32));  // W1
  p.constants.push_back(RandomBytes(rng, 64));       // b1
  p.constants.push_back(RandomBytes(rng, 64 * 16));  // B
  p.constants.push_back(RandomBytes(rng, 8 * 3 * 9));  // conv W
  p.constants.push_back(RandomBytes(rng, 8));        // conv b
  auto tensor = [](std::string name, std::vector<int64_t> shape) {
    return kit::SnapshotTensor{.name = std::move(name), .dtype = TSR_DTYPE_F32, .shape = std::move(shape)};
  };
  auto constant = [&](std::string name, std::vector<int64_t> shape, size_t index) {
    kit::SnapshotTensor t = tensor(std::move(name), std::move(shape));
    t.is_constant = true;
    t.constant = p.constants[index];
    return t;
  };
  p.graph.tensors = {tensor("x", {8, 32}),           // 0
                     constant("w1", {64, 32}, 0),     // 1
                     constant("b1", {64}, 1),         // 2
                     tensor("h1", {8, 64}),           // 3
                     tensor("h2", {8, 64}),           // 4
                     constant("b", {64, 16}, 2),      // 5
                     tensor("y", {8, 16}),            // 6
                     tensor("img", {1, 3, 10, 10}),   // 7
                     constant("cw", {8, 3, 3, 3}, 3), // 8
                     constant("cb", {8}, 4),          // 9
                     tensor("c", {1, 8, 10, 10}),     // 10
                     tensor("z", {1, 8, 5, 5}),       // 11
                     tensor("h1r", {8, 64}),          // 12
                     tensor("m", {8, 16})};           // 13
  kit::SnapshotOp fc{.type = TSR_OP_FULLY_CONNECTED, .id = 1, .inputs = {0, 1, 2}, .outputs = {3}};
  kit::SnapshotOp relu{.type = TSR_OP_RELU, .id = 2, .inputs = {3}, .outputs = {12}};
  kit::SnapshotOp cast{.type = TSR_OP_CAST, .id = 3, .inputs = {12}, .outputs = {4}};
  kit::SnapshotOp mm{.type = TSR_OP_MATMUL, .id = 4, .inputs = {4, 5}, .outputs = {13}};
  kit::SnapshotOp clip{.type = TSR_OP_CLIP, .id = 5, .inputs = {13}, .outputs = {6}};
  clip.attrs[TSR_ATTR_CLIP_MIN].floats = {-0.05f};
  clip.attrs[TSR_ATTR_CLIP_MAX].floats = {0.05f};
  kit::SnapshotOp conv{.type = TSR_OP_CONV_2D, .id = 6, .inputs = {7, 8, 9}, .outputs = {10}};
  conv.attrs[TSR_ATTR_PADS].ints = {1, 1, 1, 1};
  conv.attrs[TSR_ATTR_ACTIVATION].ints = {TSR_ACTIVATION_RELU};
  kit::SnapshotOp pool{.type = TSR_OP_MAX_POOL_2D, .id = 7, .inputs = {10}, .outputs = {11}};
  pool.attrs[TSR_ATTR_KERNEL_SHAPE].ints = {2, 2};
  pool.attrs[TSR_ATTR_STRIDES].ints = {2, 2};
  p.graph.ops = {fc, relu, cast, mm, clip, conv, pool};
  p.graph.inputs = {0, 7};
  p.graph.outputs = {6, 11};
  p.encoded = kit::EncodeSnapshot(p.graph);
  absl::StatusOr<std::vector<uint8_t>> blob =
      kit::BuildBytecode({kCpuVendor, "any", kCpuBodyFormatVersion}, {{"main", p.encoded, 2, 2}});
  if (blob.ok()) p.bytecode = *std::move(blob);
  return p;
}

struct RunResult {
  std::vector<std::vector<float>> outputs;
  double ops_fast = -1;
  double ops_executed = -1;
};

// Creates a context with `options`, loads, runs twice, reads the metrics.
RunResult RunProgram(const Program& p, std::vector<tsr_key_value> options, bool jit = false) {
  const tsr_dispatch_api* api = Api();
  RunResult r;
  tsr_device_context_options o{};
  o.header = {sizeof(o), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  o.options = options.data();
  o.option_count = options.size();
  tsr_device_context ctx = nullptr;
  EXPECT_EQ(api->create_device_context(&o, &ctx), TSR_OK) << api->get_last_error();
  if (ctx == nullptr) return r;
  kit::JitPayload payload{kCpuJitMagic, kCpuBodyFormatVersion, p.encoded.data(), p.encoded.size(), 2, 2};
  tsr_executable_source src{};
  src.header = {sizeof(src), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  src.kind = jit ? TSR_EXECUTABLE_JIT_HANDLE : TSR_EXECUTABLE_BYTECODE;
  src.bytecode = p.bytecode.data();
  src.bytecode_size = p.bytecode.size();
  src.entry_point = "main";
  src.jit_handle = reinterpret_cast<tsr_jit_handle>(&payload);
  tsr_executable exe = nullptr;
  EXPECT_EQ(api->load_executable(ctx, &src, &exe), TSR_OK) << api->get_last_error();
  if (exe == nullptr) {
    api->destroy_device_context(ctx);
    return r;
  }
  std::mt19937 rng(9);
  std::vector<std::vector<uint8_t>> in_bytes = {RandomBytes(rng, 8 * 32), RandomBytes(rng, 3 * 100)};
  r.outputs = {std::vector<float>(8 * 16), std::vector<float>(8 * 25)};
  tsr_invocation inv = nullptr;
  EXPECT_EQ(api->create_invocation(exe, &inv), TSR_OK);
  std::vector<tsr_buffer> buffers;
  auto wrap = [&](void* p, size_t size) {
    tsr_buffer_desc d{};
    d.header = {sizeof(d), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    d.buffer_type = TSR_BUFFER_TYPE_HOST;
    d.size_bytes = size;
    d.host_address = p;
    tsr_buffer b = nullptr;
    EXPECT_EQ(api->register_buffer(ctx, &d, &b), TSR_OK) << api->get_last_error();
    buffers.push_back(b);
    return b;
  };
  for (size_t i = 0; i < 2; ++i) EXPECT_EQ(api->attach_input(inv, i, wrap(in_bytes[i].data(), in_bytes[i].size())), TSR_OK);
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(api->attach_output(inv, i, wrap(r.outputs[i].data(), r.outputs[i].size() * 4)), TSR_OK);
  for (int run = 0; run < 2; ++run) EXPECT_EQ(api->invoke(inv), TSR_OK) << api->get_last_error();
  size_t count = 0;
  EXPECT_EQ(api->metric_count(inv, &count), TSR_OK);
  for (size_t i = 0; i < count; ++i) {
    tsr_metric m{};
    m.header = {sizeof(m), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    EXPECT_EQ(api->get_metric(inv, i, &m), TSR_OK);
    if (std::string(m.name) == "ops_fast") r.ops_fast = m.value;
    if (std::string(m.name) == "ops_executed") r.ops_executed = m.value;
  }
  api->destroy_invocation(inv);
  for (tsr_buffer b : buffers) api->release_buffer(b);
  api->unload_executable(exe);
  api->destroy_device_context(ctx);
  return r;
}

void ExpectClose(const RunResult& a, const RunResult& b) {
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (size_t o = 0; o < a.outputs.size(); ++o)
    for (size_t i = 0; i < a.outputs[o].size(); ++i)
      EXPECT_NEAR(a.outputs[o][i], b.outputs[o][i], 1e-4 * (1 + std::fabs(b.outputs[o][i]))) << "output " << o << " [" << i << "]";
}

TEST(CpuDispatch, FastIsTheDefaultAndMatchesReference) {
  ASSERT_NE(Api(), nullptr) << "libtessera_dispatch_cpu.so not found under $TESSERA_BUILD_DIR/lib";
  const Program p = MakeProgram();
  ASSERT_FALSE(p.bytecode.empty());
  const RunResult reference = RunProgram(p, {{"cpu.kernels", "reference"}});
  EXPECT_EQ(reference.ops_executed, 7);
  EXPECT_EQ(reference.ops_fast, 0);
  const RunResult by_default = RunProgram(p, {});
  EXPECT_EQ(by_default.ops_fast, 6);  // all but CAST (RELU and CLIP fused)
  ExpectClose(by_default, reference);
  const RunResult fast = RunProgram(p, {{"cpu.kernels", "fast"}, {"other.option", "ignored"}});
  EXPECT_EQ(fast.ops_fast, 6);
  ExpectClose(fast, reference);
  // The CLIP bounds are in effect (fused as a post-op).
  float lo = 1, hi = -1;
  for (float v : fast.outputs[0]) lo = std::min(lo, v), hi = std::max(hi, v);
  EXPECT_EQ(lo, -0.05f);
  EXPECT_EQ(hi, 0.05f);
}

TEST(CpuDispatch, JitHandleAndThreads) {
  ASSERT_NE(Api(), nullptr);
  const Program p = MakeProgram();
  const RunResult reference = RunProgram(p, {{"cpu.kernels", "reference"}}, /*jit=*/true);
  EXPECT_EQ(reference.ops_fast, 0);
  const RunResult two = RunProgram(p, {{"cpu.threads", "2"}}, /*jit=*/true);
  EXPECT_EQ(two.ops_fast, 6);
  ExpectClose(two, reference);
}

// A crafted program: int64 tensors of 2^62 elements, whose byte size
// (2^65) wraps to 0. The bytecode envelope's checksum is recomputed, as an
// attacker would. Loading used to succeed, so an 8-byte buffer passed the
// attach check and NEG wrote 2^62 elements into it; now the load fails.
// NEG from x to y, both `dtype` `shape`, as cpu bytecode.
std::vector<uint8_t> NegBytecode(int32_t dtype, const std::vector<int64_t>& shape) {
  kit::GraphSnapshot g;
  g.tensors = {kit::SnapshotTensor{.name = "x", .dtype = dtype, .shape = shape},
               kit::SnapshotTensor{.name = "y", .dtype = dtype, .shape = shape}};
  g.ops = {kit::SnapshotOp{.type = TSR_OP_NEG, .id = 1, .inputs = {0}, .outputs = {1}}};
  g.inputs = {0};
  g.outputs = {1};
  absl::StatusOr<std::vector<uint8_t>> blob =
      kit::BuildBytecode({kCpuVendor, "any", kCpuBodyFormatVersion}, {{"main", kit::EncodeSnapshot(g), 1, 1}});
  EXPECT_TRUE(blob.ok()) << blob.status();
  return blob.ok() ? *blob : std::vector<uint8_t>{};
}

// load_executable's status for `blob` in a context made with `options`,
// and the library's last error when it failed.
std::pair<tsr_status, std::string> LoadStatus(const std::vector<uint8_t>& blob, std::vector<tsr_key_value> options = {},
                                              uint16_t negotiated_minor = 4) {
  const tsr_dispatch_api* api = Api();
  tsr_device_context_options o{};
  o.header = {sizeof(o), 1, negotiated_minor};
  o.options = options.data();
  o.option_count = options.size();
  tsr_device_context ctx = nullptr;
  if (api->create_device_context(&o, &ctx) != TSR_OK) return {TSR_INTERNAL, api->get_last_error()};
  tsr_executable_source src{};
  src.header = {sizeof(src), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  src.kind = TSR_EXECUTABLE_BYTECODE;
  src.bytecode = blob.data();
  src.bytecode_size = blob.size();
  src.entry_point = "main";
  tsr_executable exe = nullptr;
  const tsr_status code = api->load_executable(ctx, &src, &exe);
  std::string error = code == TSR_OK ? "" : api->get_last_error();
  if (code != TSR_OK) {
    EXPECT_EQ(exe, nullptr);
  }
  if (exe != nullptr) api->unload_executable(exe);
  api->destroy_device_context(ctx);
  return {code, error};
}

TEST(CpuDispatch, RefusesBytecodeWhoseTensorSizesWrap) {
  ASSERT_NE(Api(), nullptr);
  const auto [code, error] = LoadStatus(NegBytecode(TSR_DTYPE_I64, {int64_t{1} << 62}));
  EXPECT_EQ(code, TSR_BYTECODE_INVALID);
  EXPECT_NE(error.find("exceeds"), std::string::npos) << error;
}

// cpu.max_memory_bytes bounds the bytes of the tensors a run touches,
// before anything is prepared (fuzz finding 9: a 25 KB bytecode whose
// convolution output was 2.1 GB drove the load to 2.1 GB RSS). Here x and
// y are f32 [4, 8], 128 bytes each: 256 loads, 255 is refused by name.
TEST(CpuDispatch, MaxMemoryBytesBoundsTheTensorsAtItsLimitAndOnePast) {
  ASSERT_NE(Api(), nullptr);
  const std::vector<uint8_t> blob = NegBytecode(TSR_DTYPE_F32, {4, 8});
  EXPECT_EQ(LoadStatus(blob, {{"cpu.max_memory_bytes", "256"}}).first, TSR_OK);
  const auto [code, error] = LoadStatus(blob, {{"cpu.max_memory_bytes", "255"}});
  // Permanent: the host must not retry it (RESOURCE_EXHAUSTED would be).
  EXPECT_EQ(code, TSR_BUDGET_EXCEEDED);
  EXPECT_EQ(tsr_status_retry_class(code), TSR_RETRY_NEVER);
  EXPECT_NE(error.find("need 256 bytes or more, above cpu.max_memory_bytes = 255"), std::string::npos) << error;
  // A 1.3 host does not know the code, and gets the one it does.
  EXPECT_EQ(LoadStatus(blob, {{"cpu.max_memory_bytes", "255"}}, 3).first, TSR_RESOURCE_EXHAUSTED);
}

TEST(CpuDispatch, RejectsBadOptions) {
  const tsr_dispatch_api* api = Api();
  ASSERT_NE(api, nullptr);
  for (std::vector<tsr_key_value> bad : std::vector<std::vector<tsr_key_value>>{
           {{"cpu.kernels", "turbo"}}, {{"cpu.threads", "0"}}, {{"cpu.threads", "two"}}, {{"cpu.speed", "1"}},
           {{"cpu.max_memory_bytes", "0"}}, {{"cpu.max_memory_bytes", "1G"}}}) {
    tsr_device_context_options o{};
    o.header = {sizeof(o), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    o.options = bad.data();
    o.option_count = bad.size();
    tsr_device_context ctx = nullptr;
    EXPECT_EQ(api->create_device_context(&o, &ctx), TSR_INVALID_ARGUMENT) << bad[0].key << "=" << bad[0].value;
    EXPECT_EQ(ctx, nullptr);
  }
}

}  // namespace
}  // namespace tessera::cpu
