// The ABI's written contracts (api/tessera/*.h, docs/abi.md sections 3 and
// 8), checked against every bundled plugin through its raw C tables:
//  - every call that fails leaves every out_ parameter and every
//    caller-provided output struct byte for byte untouched;
//  - after a failure get_last_error is that call's text, never NULL, never
//    empty; after a success it is never NULL;
//  - reason_detail of the 1.0/1.1 `partition` call stays valid until the
//    next partition call on that instance (compiles and claims between
//    them do not invalidate it; ASan reads the old pointers);
//  - a DMABUF fd handed to register_buffer is borrowed: whatever the
//    library answers, the caller's fd is still open afterwards;
//  - distinct invocations of one executable invoke concurrently with
//    correct results, while load_executable runs on the same context.
// A vendor plugin that breaks one of these fails here by name; the later
// conformance suite runs the same checks against out-of-tree plugins.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "framework/compiler/claims/graph_view_impl.h"
#include "framework/core/model/model_builder.h"
#include "framework/loader/plugin_registry.h"
#include "gtest/gtest.h"
#include "tessera/bytecode.h"
#include "tessera/dispatch.h"
#include "tessera/ops.h"
#include "testing/bundled_plugins_for_test.h"

namespace tessera {
namespace {

const PluginRegistry& Bundled() {
  static const PluginRegistry registry = BundledPluginsForTest();
  return registry;
}

// out = relu(x + y) on [2, 3] f32: every bundled plugin claims ADD and RELU.
// The values are small halves, exact in FP16, so even the NPU's FP16 vector
// unit gives the hand result exactly.
Graph AddRelu() {
  ModelBuilder b("contract");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 3});
  const int32_t y = b.Input("y", TSR_DTYPE_F32, {2, 3});
  b.Output(b.Op(TSR_OP_RELU, {b.Op(TSR_OP_ADD, {x, y})}, {}, {.name = "out"}));
  return *std::move(b).Build();
}
const std::array<float, 6> kX = {1, -2, 3, 0.5f, 4, -1};
const std::array<float, 6> kY = {2, 1, -5, 0.25f, -4, 3};
const std::array<float, 6> kWant = {3, 0, 0, 0.75f, 0, 2};  // relu(x + y) by hand

// A graph each bundled plugin refuses: the NPU has no SIN, and the cpu's
// reference kernels have no integer SIN.
Graph PartlyRefused() {
  ModelBuilder b("refused");
  const int32_t x = b.Input("x", TSR_DTYPE_I32, {4});
  b.Output(b.Op(TSR_OP_SIN, {x}, {}, {.name = "out"}));
  return *std::move(b).Build();
}

// The bytes of an output before a call, to compare after it.
template <typename T>
std::vector<unsigned char> Bytes(const T& v) {
  const auto* p = reinterpret_cast<const unsigned char*>(&v);
  return std::vector<unsigned char>(p, p + sizeof(T));
}

// A canary: every byte 0xA5, then the header a caller sets.
template <typename T>
T Canary() {
  T v;
  std::memset(static_cast<void*>(&v), 0xA5, sizeof(T));
  return v;
}
template <typename T>
T CanaryStruct() {
  T v = Canary<T>();
  v.header = tsr_abi_header{static_cast<uint32_t>(sizeof(T)), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  return v;
}

class Contract : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    compiler_ = Bundled().FindCompiler(GetParam());
    dispatch_ = Bundled().FindDispatch(GetParam());
    ASSERT_NE(compiler_, nullptr) << GetParam() << " compiler not loaded from " << TestBuildDir() << "/lib";
    ASSERT_NE(dispatch_, nullptr) << GetParam() << " dispatch not loaded";
    c_ = compiler_->api;
    d_ = dispatch_->api;
    tsr_compiler_plugin_options opts{};
    opts.header = HostFilledHeader(sizeof(opts), compiler_->version);
    ASSERT_EQ(c_->create(&opts, &plugin_), TSR_OK) << c_->get_last_error();
    tsr_device_context_options copts{};
    copts.header = HostFilledHeader(sizeof(copts), dispatch_->version);
    ASSERT_EQ(d_->create_device_context(&copts, &context_), TSR_OK) << d_->get_last_error();
  }
  void TearDown() override {
    if (d_ != nullptr) d_->destroy_device_context(context_);
    if (c_ != nullptr) c_->destroy(plugin_);
  }

  std::string Vendor() const { return GetParam(); }
  std::string Key(const char* name) const { return Vendor() + "." + name; }

  // `call` must fail; then the library's last error is its non-empty text.
  void ExpectFails(const char* what, tsr_status status, const char* (*last_error)()) {
    EXPECT_NE(status, TSR_OK) << Vendor() << ": " << what << " succeeded";
    const char* text = last_error();
    ASSERT_NE(text, nullptr) << Vendor() << ": get_last_error after " << what << " is NULL";
    EXPECT_STRNE(text, "") << Vendor() << ": get_last_error after " << what << " is empty";
  }
  void CompilerFails(const char* what, tsr_status s) { ExpectFails(what, s, c_->get_last_error); }
  void DispatchFails(const char* what, tsr_status s) { ExpectFails(what, s, d_->get_last_error); }

  tsr_compiled CompileWhole(const Graph& g, uint32_t mode) {
    GraphView view = GraphView::Whole(g);
    tsr_graph handle = view.handle();
    tsr_compile_options opts{};
    opts.header = HostFilledHeader(sizeof(opts), compiler_->version);
    opts.mode = mode;
    tsr_compiled compiled = nullptr;
    EXPECT_EQ(c_->compile(plugin_, GraphViewApiFor(compiler_->version), &handle, 1, &opts, &compiled), TSR_OK)
        << c_->get_last_error();
    return compiled;
  }

  // AOT-compiles AddRelu and loads it; the blob stays alive in blob_.
  tsr_executable LoadAddRelu() {
    tsr_compiled compiled = CompileWhole(graph_, TSR_COMPILE_MODE_AOT);
    if (compiled == nullptr) return nullptr;
    const void* data = nullptr;
    size_t size = 0;
    const char* entry = nullptr;
    EXPECT_EQ(c_->compiled_bytecode(compiled, &data, &size), TSR_OK);
    EXPECT_EQ(c_->compiled_entry_point(compiled, 0, &entry), TSR_OK);
    blob_.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
    entry_ = entry;
    c_->release_compiled(compiled);
    return Load(blob_, entry_);
  }
  tsr_executable Load(const std::vector<uint8_t>& blob, const std::string& entry) {
    tsr_executable_source src{};
    src.header = HostFilledHeader(sizeof(src), dispatch_->version);
    src.kind = TSR_EXECUTABLE_BYTECODE;
    src.bytecode = blob.data();
    src.bytecode_size = blob.size();
    src.entry_point = entry.c_str();
    tsr_executable exe = nullptr;
    EXPECT_EQ(d_->load_executable(context_, &src, &exe), TSR_OK) << d_->get_last_error();
    return exe;
  }

  tsr_buffer Host(void* memory, size_t bytes) {
    tsr_buffer_desc desc{};
    desc.header = HostFilledHeader(sizeof(desc), dispatch_->version);
    desc.buffer_type = TSR_BUFFER_TYPE_HOST;
    desc.size_bytes = bytes;
    desc.host_address = memory;
    tsr_buffer b = nullptr;
    EXPECT_EQ(d_->register_buffer(context_, &desc, &b), TSR_OK) << d_->get_last_error();
    return b;
  }

  const CompilerPluginLibrary* compiler_ = nullptr;
  const DispatchLibrary* dispatch_ = nullptr;
  const tsr_compiler_plugin_api* c_ = nullptr;
  const tsr_dispatch_api* d_ = nullptr;
  tsr_compiler_plugin plugin_ = nullptr;
  tsr_device_context context_ = nullptr;
  Graph graph_ = AddRelu();
  std::vector<uint8_t> blob_;
  std::string entry_;
};

TEST_P(Contract, CompilerCallsThatFailLeaveTheirOutputsUntouched) {
  // create: an option this vendor does not have.
  {
    const std::string key = Key("no_such_option");
    tsr_key_value kv{key.c_str(), "1"};
    tsr_compiler_plugin_options opts{};
    opts.header = HostFilledHeader(sizeof(opts), compiler_->version);
    opts.options = &kv;
    opts.option_count = 1;
    auto out = Canary<tsr_compiler_plugin>();
    const auto before = Bytes(out);
    CompilerFails("create with an unknown option", c_->create(&opts, &out));
    EXPECT_EQ(Bytes(out), before) << "create wrote *out_plugin on failure";
  }
  GraphView view = GraphView::Whole(graph_);
  const tsr_graph_view_api* view_api = GraphViewApiFor(compiler_->version);
  // compile: no mode bit is not "exactly one TSR_COMPILE_MODE_* bit".
  {
    tsr_compile_options opts{};
    opts.header = HostFilledHeader(sizeof(opts), compiler_->version);
    opts.mode = 0;
    tsr_graph handle = view.handle();
    auto out = Canary<tsr_compiled>();
    const auto before = Bytes(out);
    CompilerFails("compile with mode 0", c_->compile(plugin_, view_api, &handle, 1, &opts, &out));
    EXPECT_EQ(Bytes(out), before) << "compile wrote *out_compiled on failure";
  }
  // partition (the 1.0/1.1 call): a NULL view.
  {
    tsr_partition_options opts{};
    opts.header = HostFilledHeader(sizeof(opts), compiler_->version);
    std::vector<tsr_op_support> out(view.ops().size(), Canary<tsr_op_support>());
    const auto before = Bytes(out[0]);
    CompilerFails("partition with a NULL view", c_->partition(plugin_, nullptr, view.handle(), &opts, out.data()));
    EXPECT_EQ(Bytes(out[0]), before) << "partition wrote an entry on failure";
  }
  // estimate_partition (optional): a NULL partition.
  if (c_->estimate_partition != nullptr) {
    tsr_partition_options opts{};
    opts.header = HostFilledHeader(sizeof(opts), compiler_->version);
    auto out = CanaryStruct<tsr_partition_estimate>();
    const auto before = Bytes(out);
    CompilerFails("estimate_partition of a NULL graph",
                  c_->estimate_partition(plugin_, view_api, nullptr, &opts, &out));
    EXPECT_EQ(Bytes(out), before) << "estimate_partition wrote *out on failure";
  }
  // compatibility_info: mode 0 names no code to describe.
  {
    tsr_compile_options opts{};
    opts.header = HostFilledHeader(sizeof(opts), compiler_->version);
    char text[64];
    std::memset(text, 0x5A, sizeof(text));
    auto length = Canary<size_t>();
    CompilerFails("compatibility_info with mode 0",
                  c_->compatibility_info(plugin_, &opts, text, sizeof(text), &length));
    EXPECT_EQ(length, Canary<size_t>()) << "compatibility_info wrote *out_length on failure";
    EXPECT_EQ(text[0], 0x5A) << "compatibility_info wrote the buffer on failure";
  }

  // The accessors of a result, on the wrong kind or a partition that is not there.
  tsr_compiled aot = CompileWhole(graph_, TSR_COMPILE_MODE_AOT);
  tsr_compiled jit = CompileWhole(graph_, TSR_COMPILE_MODE_JIT);
  ASSERT_NE(aot, nullptr);
  ASSERT_NE(jit, nullptr);
  {
    auto data = Canary<const void*>();
    auto size = Canary<size_t>();
    CompilerFails("compiled_bytecode of a JIT result", c_->compiled_bytecode(jit, &data, &size));
    EXPECT_EQ(data, Canary<const void*>());
    EXPECT_EQ(size, Canary<size_t>());
  }
  {
    auto name = Canary<const char*>();
    CompilerFails("compiled_entry_point of partition 7", c_->compiled_entry_point(aot, 7, &name));
    EXPECT_EQ(name, Canary<const char*>());
  }
  {
    auto handle = Canary<tsr_jit_handle>();
    CompilerFails("compiled_jit_handle of an AOT result", c_->compiled_jit_handle(aot, 0, &handle));
    EXPECT_EQ(handle, Canary<tsr_jit_handle>());
    CompilerFails("compiled_jit_handle of partition 7", c_->compiled_jit_handle(jit, 7, &handle));
    EXPECT_EQ(handle, Canary<tsr_jit_handle>());
  }
  if (c_->compiled_partition_status != nullptr) {
    auto code = Canary<tsr_status>();
    auto length = Canary<size_t>();
    char text[32];
    std::memset(text, 0x5A, sizeof(text));
    CompilerFails("compiled_partition_status of partition 7",
                  c_->compiled_partition_status(aot, 7, &code, text, sizeof(text), &length));
    EXPECT_EQ(code, Canary<tsr_status>());
    EXPECT_EQ(length, Canary<size_t>());
    EXPECT_EQ(text[0], 0x5A);
  }
  if (c_->compiled_partition_culprits != nullptr) {
    auto ids = Canary<const uint32_t*>();
    auto count = Canary<size_t>();
    CompilerFails("compiled_partition_culprits of partition 7", c_->compiled_partition_culprits(aot, 7, &ids, &count));
    EXPECT_EQ(ids, Canary<const uint32_t*>());
    EXPECT_EQ(count, Canary<size_t>());
  }
  c_->release_compiled(aot);
  c_->release_compiled(jit);
}

TEST_P(Contract, GetLastErrorIsNeverNullAfterASuccess) {
  const tsr_compiler_plugin_info* info = nullptr;
  ASSERT_EQ(c_->get_info(&info), TSR_OK);
  EXPECT_NE(c_->get_last_error(), nullptr);
  const tsr_dispatch_info* dinfo = nullptr;
  ASSERT_EQ(d_->get_info(&dinfo), TSR_OK);
  EXPECT_NE(d_->get_last_error(), nullptr);
  // A failure, then a success: still never NULL (its text is unspecified).
  CompilerFails("compiled_entry_point of NULL", c_->compiled_entry_point(nullptr, 0, nullptr));
  ASSERT_EQ(c_->get_info(&info), TSR_OK);
  EXPECT_NE(c_->get_last_error(), nullptr);
}

TEST_P(Contract, LastErrorIsPerThread) {
  // "valid until the next call into this library on this thread": a failure
  // on another thread does not replace this thread's text.
  CompilerFails("compiled_entry_point of partition 7 (NULL result)", c_->compiled_entry_point(nullptr, 7, nullptr));
  const std::string mine = c_->get_last_error();
  std::thread other([&] {
    tsr_compile_options opts{};
    opts.header = HostFilledHeader(sizeof(opts), compiler_->version);
    tsr_compiled out = nullptr;
    EXPECT_NE(c_->compile(plugin_, nullptr, nullptr, 0, &opts, &out), TSR_OK);
    EXPECT_STRNE(c_->get_last_error(), mine.c_str());
  });
  other.join();
  EXPECT_EQ(mine, c_->get_last_error());
}

TEST_P(Contract, DispatchCallsThatFailLeaveTheirOutputsUntouched) {
  // create_device_context: an option this vendor does not have.
  {
    const std::string key = Key("no_such_option");
    tsr_key_value kv{key.c_str(), "1"};
    tsr_device_context_options opts{};
    opts.header = HostFilledHeader(sizeof(opts), dispatch_->version);
    opts.options = &kv;
    opts.option_count = 1;
    auto out = Canary<tsr_device_context>();
    DispatchFails("create_device_context with an unknown option", d_->create_device_context(&opts, &out));
    EXPECT_EQ(out, Canary<tsr_device_context>());
  }
  tsr_executable exe = LoadAddRelu();
  ASSERT_NE(exe, nullptr);
  // load_executable: a flipped body byte (checksum), and an entry point that is not there.
  {
    std::vector<uint8_t> bad = blob_;
    bad.back() ^= 0x40;
    tsr_executable_source src{};
    src.header = HostFilledHeader(sizeof(src), dispatch_->version);
    src.kind = TSR_EXECUTABLE_BYTECODE;
    src.bytecode = bad.data();
    src.bytecode_size = bad.size();
    src.entry_point = entry_.c_str();
    auto out = Canary<tsr_executable>();
    DispatchFails("load_executable of a corrupted blob", d_->load_executable(context_, &src, &out));
    EXPECT_EQ(out, Canary<tsr_executable>());
    src.bytecode = blob_.data();
    src.entry_point = "no_such_entry_point";
    DispatchFails("load_executable of a missing entry point", d_->load_executable(context_, &src, &out));
    EXPECT_EQ(out, Canary<tsr_executable>());
  }
  {
    auto ins = Canary<size_t>(), outs = Canary<size_t>();
    DispatchFails("executable_io_count of NULL", d_->executable_io_count(nullptr, &ins, &outs));
    EXPECT_EQ(ins, Canary<size_t>());
    EXPECT_EQ(outs, Canary<size_t>());
  }
  {
    auto out = CanaryStruct<tsr_buffer_requirements>();
    const auto before = Bytes(out);
    DispatchFails("buffer_requirements of input 7", d_->buffer_requirements(exe, TSR_IO_INPUT, 7, &out));
    EXPECT_EQ(Bytes(out), before);
    DispatchFails("buffer_requirements of io kind 9", d_->buffer_requirements(exe, 9, 0, &out));
    EXPECT_EQ(Bytes(out), before);
    out.header.struct_size = 4;  // a caller that claims no members at all
    const auto small = Bytes(out);
    DispatchFails("buffer_requirements into a 4-byte struct", d_->buffer_requirements(exe, TSR_IO_INPUT, 0, &out));
    EXPECT_EQ(Bytes(out), small);
  }
  {
    tsr_buffer_desc desc{};
    desc.header = HostFilledHeader(sizeof(desc), dispatch_->version);
    desc.buffer_type = 0x7ffffff0;  // nobody's type
    desc.size_bytes = 64;
    auto out = Canary<tsr_buffer>();
    DispatchFails("allocate_buffer of an unknown type", d_->allocate_buffer(context_, &desc, &out));
    EXPECT_EQ(out, Canary<tsr_buffer>());
    desc.buffer_type = TSR_BUFFER_TYPE_HOST;
    desc.host_address = nullptr;
    DispatchFails("register_buffer of NULL host memory", d_->register_buffer(context_, &desc, &out));
    EXPECT_EQ(out, Canary<tsr_buffer>());
  }
  {
    auto address = Canary<void*>();
    DispatchFails("map_buffer of NULL", d_->map_buffer(nullptr, &address));
    EXPECT_EQ(address, Canary<void*>());
  }
  {
    auto out = Canary<tsr_invocation>();
    DispatchFails("create_invocation of NULL", d_->create_invocation(nullptr, &out));
    EXPECT_EQ(out, Canary<tsr_invocation>());
  }
  tsr_invocation inv = nullptr;
  ASSERT_EQ(d_->create_invocation(exe, &inv), TSR_OK);
  std::array<float, 6> x = kX, out_values{};
  tsr_buffer bx = Host(x.data(), sizeof(x));
  DispatchFails("attach_input of input 7", d_->attach_input(inv, 7, bx));
  DispatchFails("invoke with nothing attached", d_->invoke(inv));
  {
    auto out = CanaryStruct<tsr_metric>();
    const auto before = Bytes(out);
    DispatchFails("get_metric of metric 999", d_->get_metric(inv, 999, &out));
    EXPECT_EQ(Bytes(out), before);
  }
  {
    auto out = CanaryStruct<tsr_numerics>();
    out.header.struct_size = 4;
    const auto before = Bytes(out);
    DispatchFails("executable_numerics into a 4-byte struct", d_->executable_numerics(exe, &out));
    EXPECT_EQ(Bytes(out), before);
  }
  if (d_->check_compatibility != nullptr) {
    auto out = Canary<int32_t>();
    DispatchFails("check_compatibility of NULL context",
                  d_->check_compatibility(nullptr, blob_.data(), blob_.size(), nullptr, &out));
    EXPECT_EQ(out, Canary<int32_t>());
  }
  DispatchFails("detach_input of input 7", d_->detach_input(inv, 7));
  DispatchFails("detach_output of output 7", d_->detach_output(inv, 7));
  {
    auto count = Canary<size_t>();
    DispatchFails("buffer_type_count of NULL context", d_->buffer_type_count(nullptr, &count));
    EXPECT_EQ(count, Canary<size_t>());
    auto out = CanaryStruct<tsr_buffer_type_info>();
    const auto before = Bytes(out);
    DispatchFails("get_buffer_type_info of type 99", d_->get_buffer_type_info(context_, 99, &out));
    EXPECT_EQ(Bytes(out), before);
  }
  if (d_->buffer_layout_count != nullptr) {
    auto count = Canary<size_t>();
    DispatchFails("buffer_layout_count of input 7", d_->buffer_layout_count(exe, TSR_IO_INPUT, 7, &count));
    EXPECT_EQ(count, Canary<size_t>());
    auto out = CanaryStruct<tsr_buffer_layout>();
    const auto before = Bytes(out);
    DispatchFails("get_buffer_layout of alternative 99", d_->get_buffer_layout(exe, TSR_IO_INPUT, 0, 99, &out));
    EXPECT_EQ(Bytes(out), before);
  }
  {
    auto count = Canary<size_t>();
    DispatchFails("executable_metric_count of NULL", d_->executable_metric_count(nullptr, &count));
    EXPECT_EQ(count, Canary<size_t>());
    auto out = CanaryStruct<tsr_metric>();
    const auto before = Bytes(out);
    DispatchFails("executable_metric_info of metric 999", d_->executable_metric_info(exe, 999, &out));
    EXPECT_EQ(Bytes(out), before);
    std::array<double, 2> values;
    values.fill(-7.5);
    size_t n = 0;
    ASSERT_EQ(d_->executable_metric_count(exe, &n), TSR_OK);
    ASSERT_NE(n, 1u);
    DispatchFails("invocation_metric_values with a count that is not executable_metric_count",
                  d_->invocation_metric_values(inv, values.data(), 1));
    EXPECT_EQ(values[0], -7.5);
  }
  {
    auto out = CanaryStruct<tsr_invocation_timing>();
    out.header.struct_size = 4;
    const auto before = Bytes(out);
    DispatchFails("invocation_timing into a 4-byte struct", d_->invocation_timing(inv, &out));
    EXPECT_EQ(Bytes(out), before);
  }
  (void)out_values;
  d_->destroy_invocation(inv);
  d_->release_buffer(bx);
  d_->unload_executable(exe);
}

TEST_P(Contract, ReasonDetailLivesUntilTheNextPartitionCall) {
  const Graph refused = PartlyRefused();
  GraphView view = GraphView::Whole(refused);
  const tsr_graph_view_api* view_api = GraphViewApiFor(tsr_version{1, 1});
  tsr_partition_options opts{};
  opts.header = tsr_abi_header{sizeof(opts), 1, 1};
  std::vector<tsr_op_support> first(view.ops().size());
  for (tsr_op_support& s : first) s.header = tsr_abi_header{sizeof(tsr_op_support), 1, 1};
  ASSERT_EQ(c_->partition(plugin_, view_api, view.handle(), &opts, first.data()), TSR_OK) << c_->get_last_error();
  std::vector<std::string> texts;
  for (const tsr_op_support& s : first)
    if (!s.supported && s.reason_detail != nullptr) texts.push_back(s.reason_detail);
  ASSERT_FALSE(texts.empty()) << Vendor() << " refused no integer SIN, or gave no detail";
  // Other calls on the instance, then the old pointers are still the same text.
  tsr_compiled compiled = CompileWhole(graph_, TSR_COMPILE_MODE_JIT);
  c_->release_compiled(compiled);
  size_t k = 0;
  for (const tsr_op_support& s : first)
    if (!s.supported && s.reason_detail != nullptr) EXPECT_EQ(texts[k++], s.reason_detail);
  // The next partition may reuse the storage; its own details are right.
  std::vector<tsr_op_support> second = first;
  ASSERT_EQ(c_->partition(plugin_, view_api, view.handle(), &opts, second.data()), TSR_OK);
  k = 0;
  for (const tsr_op_support& s : second)
    if (!s.supported && s.reason_detail != nullptr) EXPECT_EQ(texts[k++], s.reason_detail);
  EXPECT_EQ(k, texts.size());
}

TEST_P(Contract, ADmabufFdStaysTheCallersWhateverTheAnswer) {
  const int fd = memfd_create("tessera-contract", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  tsr_buffer_desc desc{};
  desc.header = HostFilledHeader(sizeof(desc), dispatch_->version);
  desc.buffer_type = TSR_BUFFER_TYPE_DMABUF;
  desc.size_bytes = 4096;
  desc.fd = fd;
  tsr_buffer out = nullptr;
  const tsr_status s = d_->register_buffer(context_, &desc, &out);
  if (s == TSR_OK) d_->release_buffer(out);
  EXPECT_NE(fcntl(fd, F_GETFD), -1) << Vendor() << " closed the caller's fd (status " << s << ")";
  EXPECT_EQ(close(fd), 0);
}

TEST_P(Contract, DistinctInvocationsOfOneExecutableRunConcurrently) {
  tsr_executable exe = LoadAddRelu();
  ASSERT_NE(exe, nullptr);
  constexpr int kThreads = 4, kRuns = 50;
  std::atomic<int> wrong{0}, failed{0};
  std::atomic<bool> stop_loading{false};
  // load_executable "may run while other threads invoke invocations of the
  // same context": one thread keeps loading and unloading a second copy.
  std::thread loader([&] {
    while (!stop_loading.load()) {
      tsr_executable second = Load(blob_, entry_);
      if (second == nullptr) ++failed;
      d_->unload_executable(second);
    }
  });
  std::vector<tsr_invocation> invocations(kThreads);
  std::vector<std::array<float, 6>> xs(kThreads), ys(kThreads), outs(kThreads);
  std::vector<std::array<tsr_buffer, 3>> buffers(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(d_->create_invocation(exe, &invocations[t]), TSR_OK);
    for (size_t i = 0; i < 6; ++i) {
      xs[t][i] = kX[i] * static_cast<float>(t + 1);
      ys[t][i] = kY[i] * static_cast<float>(t + 1);
    }
    buffers[t] = {Host(xs[t].data(), 24), Host(ys[t].data(), 24), Host(outs[t].data(), 24)};
    ASSERT_EQ(d_->attach_input(invocations[t], 0, buffers[t][0]), TSR_OK);
    ASSERT_EQ(d_->attach_input(invocations[t], 1, buffers[t][1]), TSR_OK);
    ASSERT_EQ(d_->attach_output(invocations[t], 0, buffers[t][2]), TSR_OK);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        outs[t].fill(-99.f);
        if (d_->invoke(invocations[t]) != TSR_OK) {
          ++failed;
          continue;
        }
        for (size_t i = 0; i < 6; ++i)
          if (outs[t][i] != kWant[i] * static_cast<float>(t + 1)) {
            ++wrong;
            break;
          }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  stop_loading = true;
  loader.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0) << "of " << kThreads * kRuns << " concurrent runs";
  for (int t = 0; t < kThreads; ++t) {
    d_->destroy_invocation(invocations[t]);
    for (tsr_buffer b : buffers[t]) d_->release_buffer(b);
  }
  d_->unload_executable(exe);
}

INSTANTIATE_TEST_SUITE_P(Bundled, Contract, ::testing::Values("cpu", "systolic_npu"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace tessera
