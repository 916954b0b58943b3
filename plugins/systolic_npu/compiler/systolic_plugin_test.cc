// End to end through the C ABI: dlopen the two plugin libraries, show them a
// graph through a minimal graph view, partition, compile (AOT and JIT),
// load, run and read the metrics. Also malformed bytecode and options.
#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/compiler/graph_builder_test_util.h"
#include "plugins/systolic_npu/compiler/lowering.h"
#include "plugins/systolic_npu/machine/test_util.h"
#include "tessera/bytecode.h"
#include "tessera/compiler_plugin.h"
#include "tessera/dispatch.h"

namespace tessera::systolic {
namespace {

using namespace snpu_test;

// ---- A minimal graph view over a kit::GraphSnapshot -----------------------

const kit::GraphSnapshot& G(tsr_graph g) { return *reinterpret_cast<const kit::GraphSnapshot*>(g); }
tsr_graph H(const kit::GraphSnapshot& g) { return reinterpret_cast<tsr_graph>(const_cast<kit::GraphSnapshot*>(&g)); }
bool OpOk(tsr_graph g, size_t op) { return op < G(g).ops.size(); }
bool TOk(tsr_graph g, int32_t t) { return t >= 0 && static_cast<size_t>(t) < G(g).tensors.size(); }

const tsr_graph_view_api kView = {
    {sizeof(tsr_graph_view_api), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    [](tsr_graph g) { return G(g).ops.size(); },
    [](tsr_graph g, size_t op) -> int32_t { return OpOk(g, op) ? G(g).ops[op].type : TSR_OP_UNKNOWN; },
    [](tsr_graph g, size_t op) -> size_t { return OpOk(g, op) ? G(g).ops[op].inputs.size() : 0; },
    [](tsr_graph g, size_t op, size_t i) -> int32_t {
      return OpOk(g, op) && i < G(g).ops[op].inputs.size() ? G(g).ops[op].inputs[i] : TSR_NO_TENSOR;
    },
    [](tsr_graph g, size_t op) -> size_t { return OpOk(g, op) ? G(g).ops[op].outputs.size() : 0; },
    [](tsr_graph g, size_t op, size_t i) -> int32_t {
      return OpOk(g, op) && i < G(g).ops[op].outputs.size() ? G(g).ops[op].outputs[i] : TSR_NO_TENSOR;
    },
    [](tsr_graph g, size_t op) -> uint32_t { return OpOk(g, op) ? G(g).ops[op].id : 0; },
    [](tsr_graph g, size_t op, int32_t key, const int64_t** v, size_t* n) -> tsr_status {
      if (!OpOk(g, op)) return TSR_NOT_FOUND;
      auto it = G(g).ops[op].attrs.find(key);
      if (it == G(g).ops[op].attrs.end() || it->second.ints.empty()) return TSR_NOT_FOUND;
      *v = it->second.ints.data();
      *n = it->second.ints.size();
      return TSR_OK;
    },
    [](tsr_graph g, size_t op, int32_t key, const float** v, size_t* n) -> tsr_status {
      if (!OpOk(g, op)) return TSR_NOT_FOUND;
      auto it = G(g).ops[op].attrs.find(key);
      if (it == G(g).ops[op].attrs.end() || it->second.floats.empty()) return TSR_NOT_FOUND;
      *v = it->second.floats.data();
      *n = it->second.floats.size();
      return TSR_OK;
    },
    [](tsr_graph g) { return G(g).tensors.size(); },
    [](tsr_graph g, int32_t t) -> const char* { return TOk(g, t) ? G(g).tensors[t].name.c_str() : ""; },
    [](tsr_graph g, int32_t t) -> int32_t { return TOk(g, t) ? G(g).tensors[t].dtype : TSR_DTYPE_UNKNOWN; },
    [](tsr_graph g, int32_t t, const int64_t** dims, size_t* rank) -> tsr_status {
      if (!TOk(g, t)) return TSR_NOT_FOUND;
      *dims = G(g).tensors[t].shape.data();
      *rank = G(g).tensors[t].shape.size();
      return TSR_OK;
    },
    [](tsr_graph g, int32_t t, tsr_quantization* q) -> tsr_status {
      if (!TOk(g, t)) return TSR_NOT_FOUND;
      const auto& sq = G(g).tensors[t].quant;
      q->count = static_cast<uint32_t>(sq.scales.size());
      q->axis = sq.axis;
      q->scales = sq.scales.data();
      q->zero_points = sq.zero_points.data();
      return TSR_OK;
    },
    [](tsr_graph g, int32_t t, const void** data, size_t* size) -> tsr_status {
      if (!TOk(g, t) || !G(g).tensors[t].is_constant) return TSR_NOT_FOUND;
      *data = G(g).tensors[t].constant.data();
      *size = G(g).tensors[t].constant.size();
      return TSR_OK;
    },
    [](tsr_graph g) { return G(g).inputs.size(); },
    [](tsr_graph g, size_t i) -> int32_t { return i < G(g).inputs.size() ? G(g).inputs[i] : TSR_NO_TENSOR; },
    [](tsr_graph g) { return G(g).outputs.size(); },
    [](tsr_graph g, size_t i) -> int32_t { return i < G(g).outputs.size() ? G(g).outputs[i] : TSR_NO_TENSOR; },
};

// ---- Loading the libraries --------------------------------------------------

std::string LibDir() {
  const char* env = std::getenv("TESSERA_BUILD_DIR");
  return std::string(env ? env : ".") + "/lib";
}

struct Libs {
  void* compiler_so = nullptr;
  void* dispatch_so = nullptr;
  const tsr_compiler_plugin_api* compiler = nullptr;
  const tsr_dispatch_api* dispatch = nullptr;
};

const Libs& Load() {
  static Libs libs = [] {
    Libs l;
    l.compiler_so = dlopen((LibDir() + "/libtessera_compiler_systolic_npu.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    l.dispatch_so = dlopen((LibDir() + "/libtessera_dispatch_systolic_npu.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (l.compiler_so) {
      auto fn = reinterpret_cast<tsr_compiler_plugin_negotiate_fn>(dlsym(l.compiler_so, TSR_COMPILER_PLUGIN_ENTRY));
      tsr_version v{};
      if (fn) (void)fn({TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR}, &v, &l.compiler);
    }
    if (l.dispatch_so) {
      auto fn = reinterpret_cast<tsr_dispatch_negotiate_fn>(dlsym(l.dispatch_so, TSR_DISPATCH_ENTRY));
      tsr_version v{};
      if (fn) (void)fn({TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR}, &v, &l.dispatch);
    }
    return l;
  }();
  return libs;
}

class PluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Libs& l = Load();
    ASSERT_NE(l.compiler, nullptr) << "cannot load the compiler plugin from " << LibDir() << ": " << dlerror();
    ASSERT_NE(l.dispatch, nullptr) << "cannot load the dispatch library from " << LibDir();
    c = l.compiler;
    d = l.dispatch;
  }
  tsr_compiler_plugin CreateCompiler(std::vector<tsr_key_value> kv = {}) {
    tsr_compiler_plugin_options o{};
    o.header = {sizeof(o), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    o.options = kv.data();
    o.option_count = kv.size();
    tsr_compiler_plugin p = nullptr;
    EXPECT_EQ(c->create(&o, &p), TSR_OK) << c->get_last_error();
    return p;
  }
  tsr_device_context CreateContext(const char* soc, std::vector<tsr_key_value> kv = {}) {
    tsr_device_context_options o{};
    o.header = {sizeof(o), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    o.options = kv.data();
    o.option_count = kv.size();
    o.soc_model = soc;
    tsr_device_context ctx = nullptr;
    EXPECT_EQ(d->create_device_context(&o, &ctx), TSR_OK) << d->get_last_error();
    return ctx;
  }
  // Runs one loaded executable on host buffers; returns outputs + metrics.
  std::pair<std::vector<std::vector<uint8_t>>, std::vector<std::pair<std::string, double>>> Run(
      tsr_device_context ctx, tsr_executable exe, const std::vector<std::vector<uint8_t>>& inputs) {
    size_t ni = 0, no = 0;
    EXPECT_EQ(d->executable_io_count(exe, &ni, &no), TSR_OK);
    EXPECT_EQ(ni, inputs.size());
    tsr_invocation inv = nullptr;
    EXPECT_EQ(d->create_invocation(exe, &inv), TSR_OK);
    std::vector<tsr_buffer> bufs;
    std::vector<std::vector<uint8_t>> outs(no);
    for (size_t i = 0; i < ni; ++i) {
      tsr_buffer_desc desc{};
      desc.header = {sizeof(desc), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
      desc.buffer_type = TSR_BUFFER_TYPE_HOST;
      desc.size_bytes = inputs[i].size();
      desc.host_address = const_cast<uint8_t*>(inputs[i].data());
      tsr_buffer b = nullptr;
      EXPECT_EQ(d->register_buffer(ctx, &desc, &b), TSR_OK);
      EXPECT_EQ(d->attach_input(inv, i, b), TSR_OK) << d->get_last_error();
      bufs.push_back(b);
    }
    for (size_t i = 0; i < no; ++i) {
      tsr_buffer_requirements req{};
      req.header = {sizeof(req), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
      EXPECT_EQ(d->buffer_requirements(exe, TSR_IO_OUTPUT, i, &req), TSR_OK);
      EXPECT_EQ(req.buffer_types[0], TSR_BUFFER_TYPE_DEVICE_DRAM);
      tsr_buffer_desc desc{};
      desc.header = {sizeof(desc), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
      desc.buffer_type = TSR_BUFFER_TYPE_DEVICE_DRAM;
      desc.size_bytes = req.size_bytes;
      tsr_buffer b = nullptr;
      EXPECT_EQ(d->allocate_buffer(ctx, &desc, &b), TSR_OK);
      EXPECT_EQ(d->attach_output(inv, i, b), TSR_OK);
      bufs.push_back(b);
    }
    EXPECT_EQ(d->invoke(inv), TSR_OK) << d->get_last_error();
    for (size_t i = 0; i < no; ++i) {
      void* p = nullptr;
      EXPECT_EQ(d->map_buffer(bufs[ni + i], &p), TSR_OK);
      tsr_buffer_requirements req{};
      req.header = {sizeof(req), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
      EXPECT_EQ(d->buffer_requirements(exe, TSR_IO_OUTPUT, i, &req), TSR_OK);
      outs[i].assign(static_cast<uint8_t*>(p), static_cast<uint8_t*>(p) + req.size_bytes);
      EXPECT_EQ(d->unmap_buffer(bufs[ni + i]), TSR_OK);
    }
    std::vector<std::pair<std::string, double>> metrics;
    size_t n = 0;
    EXPECT_EQ(d->metric_count(inv, &n), TSR_OK);
    for (size_t i = 0; i < n; ++i) {
      tsr_metric m{};
      m.header = {sizeof(m), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
      EXPECT_EQ(d->get_metric(inv, i, &m), TSR_OK);
      metrics.emplace_back(m.name, m.value);
    }
    d->destroy_invocation(inv);
    for (tsr_buffer b : bufs) d->release_buffer(b);
    return {outs, metrics};
  }

  const tsr_compiler_plugin_api* c = nullptr;
  const tsr_dispatch_api* d = nullptr;
};

GraphBuilder SmallModel(std::mt19937& rng, std::vector<float>* w_out = nullptr) {
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {3, 20});
  const auto wf = RandomF(rng, 10 * 20);
  if (w_out) *w_out = wf;
  const int32_t w = b.Const("w", TSR_DTYPE_F32, {10, 20}, AsBytes(wf));
  const int32_t h = b.Tensor("h", TSR_DTYPE_F32, {3, 10});
  auto& fc = b.Op(TSR_OP_FULLY_CONNECTED, {x, w}, {h});
  fc.attrs[TSR_ATTR_ACTIVATION].ints = {TSR_ACTIVATION_RELU};
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {3, 10});
  b.Op(TSR_OP_ADD, {h, h}, {y});
  b.Output(y);
  return b;
}

TEST_F(PluginTest, InfoAndOptions) {
  const tsr_compiler_plugin_info* ci = nullptr;
  ASSERT_EQ(c->get_info(&ci), TSR_OK);
  EXPECT_STREQ(ci->vendor, "systolic_npu");
  EXPECT_EQ(ci->soc_model_count, 3u);
  const tsr_dispatch_info* di = nullptr;
  ASSERT_EQ(d->get_info(&di), TSR_OK);
  EXPECT_STREQ(di->vendor, "systolic_npu");
  // Unknown key in our namespace, bad value: refused. Other vendors' keys: ignored.
  tsr_key_value bad_key[] = {{"systolic_npu.bogus", "1"}};
  tsr_key_value bad_value[] = {{"systolic_npu.dataflow", "rs"}};
  tsr_key_value other[] = {{"cpu.kernels", "fast"}, {"systolic_npu.mode", "cycle_stepped"}};
  for (auto* kv : {bad_key, bad_value}) {
    tsr_compiler_plugin_options o{};
    o.header = {sizeof(o), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    o.options = kv;
    o.option_count = 1;
    tsr_compiler_plugin p = nullptr;
    EXPECT_EQ(c->create(&o, &p), TSR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(c->get_last_error()), "");
  }
  tsr_compiler_plugin p = CreateCompiler({other[0], other[1]});
  EXPECT_NE(p, nullptr);
  c->destroy(p);
  // Both libraries take every dataflow (the dispatch side ignores it).
  for (const char* df : {"ws", "os", "is"}) {
    tsr_compiler_plugin q = CreateCompiler({{"systolic_npu.dataflow", df}});
    EXPECT_NE(q, nullptr) << df;
    c->destroy(q);
    tsr_device_context ctx = CreateContext("ref-edge", {{"systolic_npu.dataflow", df}});
    EXPECT_NE(ctx, nullptr) << df;
    d->destroy_device_context(ctx);
  }
}

TEST_F(PluginTest, PartitionClaimsRefusesAndEstimates) {
  std::mt19937 rng(1);
  GraphBuilder b = SmallModel(rng);
  const int32_t s = b.Tensor("s", TSR_DTYPE_F32, {3, 10});
  b.Op(TSR_OP_SOFTMAX, {b.g.outputs[0]}, {s});
  tsr_compiler_plugin p = CreateCompiler();
  std::vector<tsr_op_support> sup(b.g.ops.size());
  for (auto& x : sup) x.header = {sizeof(tsr_op_support), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  tsr_partition_options po{};
  po.header = {sizeof(po), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  po.soc_model = "ref-edge";
  ASSERT_EQ(c->partition(p, &kView, H(b.g), &po, sup.data()), TSR_OK) << c->get_last_error();
  EXPECT_EQ(sup[0].supported, 1u);
  EXPECT_GT(sup[0].estimated_cycles, 0u);
  EXPECT_GT(sup[0].estimated_time_us, 0.0);
  EXPECT_NEAR(sup[0].estimated_time_us, sup[0].estimated_cycles / 800.0, 1e-9);  // ref-edge: 800 MHz
  EXPECT_EQ(sup[1].supported, 1u);
  EXPECT_EQ(sup[2].supported, 0u);
  EXPECT_EQ(sup[2].reason, TSR_REFUSAL_UNSUPPORTED_OP);
  ASSERT_NE(sup[2].reason_detail, nullptr);
  EXPECT_NE(std::string(sup[2].reason_detail).find("SOFTMAX"), std::string::npos);
  // A SoC description without a systolic NPU: everything refused, politely.
  const std::string no_npu = "[soc]\nname = cpu-only\n[cpu]\ngflops_f32 = 1\ngops_int8 = 1\nthreads = 1\n";
  po.soc_model = nullptr;
  po.soc_description = no_npu.data();
  po.soc_description_size = no_npu.size();
  ASSERT_EQ(c->partition(p, &kView, H(b.g), &po, sup.data()), TSR_OK);
  EXPECT_EQ(sup[0].supported, 0u);
  EXPECT_NE(std::string(sup[0].reason_detail).find("no usable NPU"), std::string::npos);
  c->destroy(p);
}

// The envelope names the SoC the host asked for, also when a description
// is given whose own [soc] name differs (the host passes the file's stem,
// and refuses bytecode that names another SoC); with no name, the
// description's own name.
TEST_F(PluginTest, TheEnvelopeNamesTheRequestedSocEvenWithADescription) {
  std::ifstream file(std::string(TSR_SOURCE_DIR) + "/socs/ref-edge.soc");
  ASSERT_TRUE(file) << "socs/ref-edge.soc";
  std::string description((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::string from = "name = ref-edge\n";
  ASSERT_NE(description.find(from), std::string::npos);
  description.replace(description.find(from), from.size(), "name = my-board\n");
  std::mt19937 rng(3);
  std::vector<float> wf;
  GraphBuilder b = SmallModel(rng, &wf);
  tsr_compiler_plugin p = CreateCompiler();
  for (const char* label : {"board-a", static_cast<const char*>(nullptr)}) {
    tsr_compile_options co{};
    co.header = {sizeof(co), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    co.mode = TSR_COMPILE_MODE_AOT;
    co.soc_model = label;
    co.soc_description = description.data();
    co.soc_description_size = description.size();
    tsr_graph parts[] = {H(b.g)};
    tsr_compiled compiled = nullptr;
    ASSERT_EQ(c->compile(p, &kView, parts, 1, &co, &compiled), TSR_OK) << c->get_last_error();
    const void* blob = nullptr;
    size_t size = 0;
    ASSERT_EQ(c->compiled_bytecode(compiled, &blob, &size), TSR_OK);
    tsr_bytecode_header h{};
    ASSERT_EQ(tsr_bytecode_verify(blob, size, "systolic_npu", &h, nullptr, 0), TSR_OK);
    EXPECT_STREQ(h.soc_model, label != nullptr ? "board-a" : "my-board");
    c->release_compiled(compiled);
  }
  c->destroy(p);
}

TEST_F(PluginTest, AotAndJitRunAndReportMetrics) {
  std::mt19937 rng(2);
  std::vector<float> wf;
  GraphBuilder b = SmallModel(rng, &wf);
  tsr_compiler_plugin p = CreateCompiler();
  const std::vector<float> xf = RandomF(rng, 60);
  std::vector<std::vector<uint8_t>> results;
  for (uint32_t mode : {TSR_COMPILE_MODE_AOT, TSR_COMPILE_MODE_JIT}) {
    tsr_compile_options co{};
    co.header = {sizeof(co), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    co.mode = mode;
    co.soc_model = "ref-phone";
    tsr_graph parts[] = {H(b.g)};
    tsr_compiled compiled = nullptr;
    ASSERT_EQ(c->compile(p, &kView, parts, 1, &co, &compiled), TSR_OK) << c->get_last_error();
    const char* entry = nullptr;
    ASSERT_EQ(c->compiled_entry_point(compiled, 0, &entry), TSR_OK);
    tsr_executable_source src{};
    src.header = {sizeof(src), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    src.entry_point = entry;
    if (mode == TSR_COMPILE_MODE_AOT) {
      src.kind = TSR_EXECUTABLE_BYTECODE;
      ASSERT_EQ(c->compiled_bytecode(compiled, &src.bytecode, &src.bytecode_size), TSR_OK);
      tsr_bytecode_header h;
      ASSERT_EQ(tsr_bytecode_verify(src.bytecode, src.bytecode_size, "systolic_npu", &h, nullptr, 0), TSR_OK);
      EXPECT_STREQ(h.soc_model, "ref-phone");
    } else {
      src.kind = TSR_EXECUTABLE_JIT_HANDLE;
      ASSERT_EQ(c->compiled_jit_handle(compiled, 0, &src.jit_handle), TSR_OK);
    }
    tsr_device_context ctx = CreateContext("ref-phone");
    tsr_executable exe = nullptr;
    ASSERT_EQ(d->load_executable(ctx, &src, &exe), TSR_OK) << d->get_last_error();
    auto [outs, metrics] = Run(ctx, exe, {FloatBytes(xf)});
    ASSERT_EQ(outs.size(), 1u);
    results.push_back(outs[0]);
    const std::vector<std::string> names = {
        "cycles_total",     "cycles_compute",        "cycles_dma_stall", "macs",
        "utilization",      "sram_read_bytes",       "sram_write_bytes", "dram_read_bytes",
        "dram_write_bytes", "dram_bytes_compulsory", "time_us"};
    ASSERT_EQ(metrics.size(), names.size());
    for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(metrics[i].first, names[i]);
    EXPECT_EQ(metrics[3].second, 3.0 * 20 * 10);
    EXPECT_GT(metrics[0].second, 0);
    d->unload_executable(exe);
    d->destroy_device_context(ctx);
    c->release_compiled(compiled);
  }
  EXPECT_EQ(results[0], results[1]);
  const auto y = AsFloats(results[0]);
  for (int m = 0; m < 3; ++m)
    for (int n = 0; n < 10; ++n) {
      double s = 0, mag = 0;
      for (int k = 0; k < 20; ++k) {
        s += xf[m * 20 + k] * wf[n * 20 + k];
        mag += std::fabs(xf[m * 20 + k] * wf[n * 20 + k]);
      }
      EXPECT_NEAR(y[m * 10 + n], 2 * std::max(0.0, s), 2 * (1.1e-3 * mag) + 1e-6);
    }
  c->destroy(p);
}

TEST_F(PluginTest, ModesGiveIdenticalBitsAndMetrics) {
  std::mt19937 rng(3);
  GraphBuilder b = SmallModel(rng);
  tsr_compiler_plugin p = CreateCompiler({{"systolic_npu.dataflow", "os"}});
  tsr_compile_options co{};
  co.header = {sizeof(co), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  co.mode = TSR_COMPILE_MODE_AOT;
  co.soc_model = "ref-edge";
  tsr_graph parts[] = {H(b.g)};
  tsr_compiled compiled = nullptr;
  ASSERT_EQ(c->compile(p, &kView, parts, 1, &co, &compiled), TSR_OK) << c->get_last_error();
  tsr_executable_source src{};
  src.header = {sizeof(src), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  src.kind = TSR_EXECUTABLE_BYTECODE;
  ASSERT_EQ(c->compiled_bytecode(compiled, &src.bytecode, &src.bytecode_size), TSR_OK);
  ASSERT_EQ(c->compiled_entry_point(compiled, 0, &src.entry_point), TSR_OK);
  const std::vector<uint8_t> x = FloatBytes(RandomF(rng, 60));
  std::vector<decltype(Run(nullptr, nullptr, {}))> runs;
  for (const char* overlap : {"default", "none"}) {
    for (const char* mode : {"fast", "cycle_stepped"}) {
      tsr_device_context ctx =
          CreateContext("ref-edge", {{"systolic_npu.mode", mode}, {"systolic_npu.overlap", overlap}});
      tsr_executable exe = nullptr;
      ASSERT_EQ(d->load_executable(ctx, &src, &exe), TSR_OK) << d->get_last_error();
      runs.push_back(Run(ctx, exe, {x}));
      d->unload_executable(exe);
      d->destroy_device_context(ctx);
    }
    EXPECT_EQ(runs[runs.size() - 2], runs.back());
  }
  EXPECT_EQ(runs[0].first, runs[2].first);  // overlap changes cycles, not bits
  EXPECT_NE(runs[0].second[0], runs[2].second[0]);
  c->release_compiled(compiled);
  c->destroy(p);
}

// A quantized model's boundary through the ABI: QUANTIZE -> RESHAPE (the
// flatten) -> DEQUANTIZE to f16, all claimed, one partition; both modes
// give the docs/ops.md bits, and the executable declares FP32 numerics
// (these ops are bit exact, not FP16 compute).
TEST_F(PluginTest, QuantizeReshapeDequantizeClaimCompileAndRun) {
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 3, 4});
  const kit::SnapshotQuant qp{{0.05f}, {3}, -1};
  const int32_t q = b.Tensor("q", TSR_DTYPE_I8, {2, 3, 4}, qp);
  const int32_t shape = b.Const("shape", TSR_DTYPE_I64, {2}, AsBytes(std::vector<int64_t>{2, 12}));
  const int32_t flat = b.Tensor("flat", TSR_DTYPE_I8, {2, 12}, qp);
  const int32_t y = b.Tensor("y", TSR_DTYPE_F16, {2, 12});
  b.Op(TSR_OP_QUANTIZE, {x}, {q});
  b.Op(TSR_OP_RESHAPE, {q, shape}, {flat});
  b.Op(TSR_OP_DEQUANTIZE, {flat}, {y});
  b.Output(y);
  tsr_compiler_plugin p = CreateCompiler();
  std::vector<tsr_op_support> sup(3);
  for (auto& e : sup) e.header = {sizeof(tsr_op_support), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  tsr_partition_options po{};
  po.header = {sizeof(po), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  po.soc_model = "ref-edge";
  ASSERT_EQ(c->partition(p, &kView, H(b.g), &po, sup.data()), TSR_OK) << c->get_last_error();
  for (const auto& e : sup) {
    EXPECT_EQ(e.supported, 1u) << (e.reason_detail ? e.reason_detail : "");
    EXPECT_GT(e.estimated_cycles, 0u);
  }
  tsr_compile_options co{};
  co.header = {sizeof(co), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  co.mode = TSR_COMPILE_MODE_AOT;
  co.soc_model = "ref-edge";
  tsr_graph parts[] = {H(b.g)};
  tsr_compiled compiled = nullptr;
  ASSERT_EQ(c->compile(p, &kView, parts, 1, &co, &compiled), TSR_OK) << c->get_last_error();
  tsr_executable_source src{};
  src.header = {sizeof(src), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  src.kind = TSR_EXECUTABLE_BYTECODE;
  ASSERT_EQ(c->compiled_bytecode(compiled, &src.bytecode, &src.bytecode_size), TSR_OK);
  ASSERT_EQ(c->compiled_entry_point(compiled, 0, &src.entry_point), TSR_OK);
  std::vector<float> xf = {0.125f, -0.125f, 0.075f, 1e9f, -1e9f, std::nanf(""), std::numeric_limits<float>::infinity(),
                           0.0f};
  std::mt19937 rng(9);
  for (float v : RandomF(rng, 16, -7, 7)) xf.push_back(v);
  std::vector<std::vector<uint8_t>> outs;
  for (const char* mode : {"fast", "cycle_stepped"}) {
    tsr_device_context ctx = CreateContext("ref-edge", {{"systolic_npu.mode", mode}});
    tsr_executable exe = nullptr;
    ASSERT_EQ(d->load_executable(ctx, &src, &exe), TSR_OK) << d->get_last_error();
    tsr_numerics num{};
    num.header = {sizeof(num), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    ASSERT_EQ(d->executable_numerics(exe, &num), TSR_OK);
    EXPECT_EQ(num.float_precision, TSR_PRECISION_FP32);
    outs.push_back(Run(ctx, exe, {FloatBytes(xf)}).first.at(0));
    d->unload_executable(exe);
    d->destroy_device_context(ctx);
  }
  EXPECT_EQ(outs[0], outs[1]);
  ASSERT_EQ(outs[0].size(), 48u);
  for (size_t i = 0; i < xf.size(); ++i) {
    uint16_t h;
    std::memcpy(&h, outs[0].data() + 2 * i, 2);
    EXPECT_EQ(h, FloatToHalf(DequantizeInt8(QuantizeToInt8(xf[i], 0.05f, 3), 0.05f, 3))) << i;
  }
  // By hand: 0.125 / 0.05 = 2.5 -> 2 (tie to even) + 3 = 5 -> (5 - 3) * 0.05;
  // NaN -> q 0 -> -0.15; 1e9 -> 127 -> 6.2.
  auto half = [&](size_t i) {
    uint16_t h;
    std::memcpy(&h, outs[0].data() + 2 * i, 2);
    return HalfToFloat(h);
  };
  EXPECT_EQ(half(0), HalfToFloat(FloatToHalf(2 * 0.05f)));
  EXPECT_EQ(half(5), HalfToFloat(FloatToHalf(-3 * 0.05f)));
  EXPECT_EQ(half(3), HalfToFloat(FloatToHalf(124 * 0.05f)));
  c->release_compiled(compiled);
  c->destroy(p);
}

// An INT8 head through the two .so files, AOT: QUANTIZE, SIGMOID (TABLE),
// GLOBAL_AVG_POOL (ROW_SUM, BIAS_ADD, REQUANTIZE), DIV by a scalar (TABLE),
// SUB of a per-channel constant, DEQUANTIZE. The serialized bytecode run by
// the dispatch library gives the in-process lowering's bits in both modes
// (which int8_vector_ops_test.cc holds bit exact against the cpu kernels),
// and declares FP32 with tolerances 0: nothing is approximated.
TEST_F(PluginTest, Int8VectorOpsCompileAndRunAot) {
  GraphBuilder b;
  auto q = [](float s, int64_t zp) { return kit::SnapshotQuant{{s}, {zp}, -1}; };
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {1, 4, 3, 3});
  const int32_t xq = b.Tensor("xq", TSR_DTYPE_I8, {1, 4, 3, 3}, q(0.05f, 2));
  const int32_t sg = b.Tensor("sg", TSR_DTYPE_I8, {1, 4, 3, 3}, q(1.0f / 256, -128));
  const int32_t gp = b.Tensor("gp", TSR_DTYPE_I8, {1, 4, 1, 1}, q(1.0f / 256, -128));
  const int32_t two = b.Const("two", TSR_DTYPE_I8, {}, {2}, q(1.0f, 0));
  const int32_t dv = b.Tensor("dv", TSR_DTYPE_I8, {1, 4, 1, 1}, q(1.0f / 512, -128));
  const int32_t per_ch = b.Const("c", TSR_DTYPE_I8, {4, 1, 1}, {10, 20, 30, 40}, q(1.0f / 512, 0));
  const int32_t sb = b.Tensor("sb", TSR_DTYPE_I8, {1, 4, 1, 1}, q(1.0f / 512, -64));
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {1, 4, 1, 1});
  b.Op(TSR_OP_QUANTIZE, {x}, {xq});
  b.Op(TSR_OP_SIGMOID, {xq}, {sg});
  b.Op(TSR_OP_GLOBAL_AVG_POOL, {sg}, {gp});
  b.Op(TSR_OP_DIV, {gp, two}, {dv});
  b.Op(TSR_OP_SUB, {dv, per_ch}, {sb});
  b.Op(TSR_OP_DEQUANTIZE, {sb}, {y});
  b.Output(y);
  tsr_compiler_plugin p = CreateCompiler();
  std::vector<tsr_op_support> sup(b.g.ops.size());
  for (auto& e : sup) e.header = {sizeof(tsr_op_support), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  tsr_partition_options po{};
  po.header = {sizeof(po), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  po.soc_model = "ref-edge";
  ASSERT_EQ(c->partition(p, &kView, H(b.g), &po, sup.data()), TSR_OK) << c->get_last_error();
  for (const auto& e : sup) EXPECT_EQ(e.supported, 1u) << (e.reason_detail ? e.reason_detail : "");
  tsr_compile_options co{};
  co.header = {sizeof(co), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  co.mode = TSR_COMPILE_MODE_AOT;
  co.soc_model = "ref-edge";
  tsr_graph parts[] = {H(b.g)};
  tsr_compiled compiled = nullptr;
  ASSERT_EQ(c->compile(p, &kView, parts, 1, &co, &compiled), TSR_OK) << c->get_last_error();
  tsr_executable_source src{};
  src.header = {sizeof(src), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  src.kind = TSR_EXECUTABLE_BYTECODE;
  ASSERT_EQ(c->compiled_bytecode(compiled, &src.bytecode, &src.bytecode_size), TSR_OK);
  ASSERT_EQ(c->compiled_entry_point(compiled, 0, &src.entry_point), TSR_OK);
  std::mt19937 rng(21);
  const std::vector<uint8_t> xb = FloatBytes(RandomF(rng, 36, -6, 6));
  auto local = LowerGraph(b.g, BuiltinSocConfig("ref-edge")->npu, LoweringOptions{}, "main");
  ASSERT_TRUE(local.ok()) << local.status();
  const auto want = RunEntry(*local, BuiltinSocConfig("ref-edge")->npu, {xb}, {}).outputs.at(0);
  for (const char* mode : {"fast", "cycle_stepped"}) {
    tsr_device_context ctx = CreateContext("ref-edge", {{"systolic_npu.mode", mode}});
    tsr_executable exe = nullptr;
    ASSERT_EQ(d->load_executable(ctx, &src, &exe), TSR_OK) << d->get_last_error();
    tsr_numerics num{};
    num.header = {sizeof(num), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    ASSERT_EQ(d->executable_numerics(exe, &num), TSR_OK);
    EXPECT_EQ(num.float_precision, TSR_PRECISION_FP32);
    EXPECT_EQ(num.relative_tolerance, 0.0);
    EXPECT_EQ(num.absolute_tolerance, 0.0);
    EXPECT_EQ(Run(ctx, exe, {xb}).first.at(0), want) << mode;
    d->unload_executable(exe);
    d->destroy_device_context(ctx);
  }
  c->release_compiled(compiled);
  c->destroy(p);
}

// Weights that arrive at run time (ONNX graphs whose W is a graph input):
// claimed through the ABI, compiled AOT, run by the dispatch library with
// the weights as a second input buffer; both modes agree and the weight
// bytes show in dram_read_bytes.
TEST_F(PluginTest, RuntimeWeightsClaimCompileAndRun) {
  std::mt19937 rng(5);
  GraphBuilder b;
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {3, 20});
  const int32_t w = b.Input("w", TSR_DTYPE_F32, {10, 20});
  const int32_t y = b.Tensor("y", TSR_DTYPE_F32, {3, 10});
  b.Op(TSR_OP_FULLY_CONNECTED, {x, w}, {y});
  b.Output(y);
  tsr_compiler_plugin p = CreateCompiler();
  tsr_op_support sup{};
  sup.header = {sizeof(sup), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  tsr_partition_options po{};
  po.header = {sizeof(po), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  po.soc_model = "ref-edge";
  ASSERT_EQ(c->partition(p, &kView, H(b.g), &po, &sup), TSR_OK) << c->get_last_error();
  ASSERT_EQ(sup.supported, 1u) << (sup.reason_detail ? sup.reason_detail : "");
  tsr_compile_options co{};
  co.header = {sizeof(co), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  co.mode = TSR_COMPILE_MODE_AOT;
  co.soc_model = "ref-edge";
  tsr_graph parts[] = {H(b.g)};
  tsr_compiled compiled = nullptr;
  ASSERT_EQ(c->compile(p, &kView, parts, 1, &co, &compiled), TSR_OK) << c->get_last_error();
  tsr_executable_source src{};
  src.header = {sizeof(src), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  src.kind = TSR_EXECUTABLE_BYTECODE;
  ASSERT_EQ(c->compiled_bytecode(compiled, &src.bytecode, &src.bytecode_size), TSR_OK);
  ASSERT_EQ(c->compiled_entry_point(compiled, 0, &src.entry_point), TSR_OK);
  const std::vector<uint8_t> xb = FloatBytes(RandomF(rng, 60)), wb = FloatBytes(RandomF(rng, 200));
  std::vector<decltype(Run(nullptr, nullptr, {}))> runs;
  for (const char* mode : {"fast", "cycle_stepped"}) {
    tsr_device_context ctx = CreateContext("ref-edge", {{"systolic_npu.mode", mode}});
    tsr_executable exe = nullptr;
    ASSERT_EQ(d->load_executable(ctx, &src, &exe), TSR_OK) << d->get_last_error();
    runs.push_back(Run(ctx, exe, {xb, wb}));
    d->unload_executable(exe);
    d->destroy_device_context(ctx);
  }
  EXPECT_EQ(runs[0], runs[1]);
  // The program run in process gives the same bits.
  auto prog = LowerGraph(b.g, BuiltinSocConfig("ref-edge")->npu, {}, "main");
  ASSERT_TRUE(prog.ok()) << prog.status();
  EXPECT_EQ(runs[0].first[0], RunEntry(*prog, BuiltinSocConfig("ref-edge")->npu, {xb, wb}, ExecOptions{}).outputs[0]);
  double dram_read = 0;
  for (const auto& [name, value] : runs[0].second)
    if (name == "dram_read_bytes") dram_read = value;
  EXPECT_GE(dram_read, (60 + 200) * 4.0);
  c->release_compiled(compiled);
  c->destroy(p);
}

TEST_F(PluginTest, MalformedOrForeignBytecodeIsRefused) {
  std::mt19937 rng(4);
  GraphBuilder b = SmallModel(rng);
  tsr_compiler_plugin p = CreateCompiler();
  tsr_compile_options co{};
  co.header = {sizeof(co), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  co.mode = TSR_COMPILE_MODE_AOT;
  co.soc_model = "ref-edge";
  tsr_graph parts[] = {H(b.g)};
  tsr_compiled compiled = nullptr;
  ASSERT_EQ(c->compile(p, &kView, parts, 1, &co, &compiled), TSR_OK) << c->get_last_error();
  const void* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(c->compiled_bytecode(compiled, &data, &size), TSR_OK);
  const char* entry = nullptr;
  ASSERT_EQ(c->compiled_entry_point(compiled, 0, &entry), TSR_OK);
  const std::vector<uint8_t> blob(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
  tsr_device_context edge = CreateContext("ref-edge");
  tsr_device_context phone = CreateContext("ref-phone");
  auto load = [&](tsr_device_context ctx, const std::vector<uint8_t>& bytes) {
    tsr_executable_source src{};
    src.header = {sizeof(src), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
    src.kind = TSR_EXECUTABLE_BYTECODE;
    src.bytecode = bytes.data();
    src.bytecode_size = bytes.size();
    src.entry_point = entry;
    tsr_executable exe = nullptr;
    const tsr_status s = d->load_executable(ctx, &src, &exe);
    if (exe) d->unload_executable(exe);
    return s;
  };
  EXPECT_EQ(load(edge, blob), TSR_OK) << d->get_last_error();
  EXPECT_EQ(load(phone, blob), TSR_BYTECODE_INCOMPATIBLE);  // compiled for another array
  EXPECT_NE(std::string(d->get_last_error()).find("8x8"), std::string::npos) << d->get_last_error();
  // Corrupt the body, then fix the checksum so the body verifier is reached.
  int invalid = 0;
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> bad = blob;
    tsr_bytecode_header h;
    std::memcpy(&h, bad.data(), sizeof(h));
    const size_t at = h.body_offset + rng() % h.body_size;
    bad[at] ^= static_cast<uint8_t>(1 + rng() % 255);
    if (i % 2 == 0) {
      h.checksum = tsr_bytecode_compute_checksum(bad.data(), bad.size());
      std::memcpy(bad.data(), &h, sizeof(h));
    }
    const tsr_status s = load(edge, bad);
    EXPECT_TRUE(s == TSR_OK || s == TSR_BYTECODE_INVALID || s == TSR_BYTECODE_CHECKSUM ||
                s == TSR_BYTECODE_INCOMPATIBLE)
        << s;
    invalid += s != TSR_OK;
  }
  EXPECT_GT(invalid, 1000);
  std::vector<uint8_t> truncated(blob.begin(), blob.begin() + blob.size() / 2);
  EXPECT_EQ(load(edge, truncated), TSR_BYTECODE_INVALID);
  d->destroy_device_context(edge);
  d->destroy_device_context(phone);
  c->release_compiled(compiled);
  c->destroy(p);
}

}  // namespace
}  // namespace tessera::systolic
