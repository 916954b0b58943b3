// The cpu plugin's kernel time per op of a model, for the cost model's
// per-op-class cpu efficiency (docs/partitioning.md, "Calibrating the cpu
// model"; bench/cpu_op_class_calibration.sh runs it on the bench models).
//
//   build/bin/cpu_op_class_bench MODEL.tsr NAME [MIN_MS]   (default 30)
//
// Every op that does work (op_work.h) is cut out of the model as a one-op
// graph (its non-constant inputs become graph inputs, its constants stay
// constants), compiled for the cpu alone (one thread: cpu.threads=1) and
// run with app buffers bound in place (RunBound: no input or output copy)
// until MIN_MS of runs have passed (at least 10 runs). The fastest run,
// less the fastest run of a one-element ADD timed the same way (the
// per-run framework and invoke overhead), is the op's kernel time: the
// fastest, not the median, because on a shared machine contention only
// ever adds time. Ops run alone, so an
// activation the cpu plugin would fuse into its producer is timed as a
// pass of its own.
//
// Prints one tab-separated line per op (the calibration file's format):
//   NAME  OP_TYPE  DTYPE  IN0  IN1  OUT  GROUPS  KERNEL  WORK  CLASS  US
// shapes as 1x3x48x192 ("-" for none), KERNEL the pool window ("-"), WORK
// and CLASS what the cost model counts for the op (op_work.h,
// cpu_op_class.h), US the kernel time in microseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "dispatch/execution_context.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/compiler/partition/cpu_op_class.h"
#include "framework/compiler/partition/op_work.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/install_layout.h"
#include "framework/core/model/model_loader.h"
#include "framework/loader/plugin_registry.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using Clock = std::chrono::steady_clock;

std::string Shape(const Graph& g, int32_t t) {
  if (t < 0 || static_cast<size_t>(t) >= g.tensors.size()) return "-";
  if (g.tensors[t].shape.empty()) return "scalar";
  return absl::StrJoin(g.tensors[t].shape, "x");
}

// `op` of `src` as a graph of its own.
Graph OneOpGraph(const Graph& src, const Op& op) {
  Graph g;
  g.name = "one_op";
  std::vector<int32_t> local(src.tensors.size(), -1);
  auto take = [&](int32_t t) {
    if (t < 0) return t;
    if (local[t] < 0) {
      local[t] = static_cast<int32_t>(g.tensors.size());
      g.tensors.push_back(src.tensors[t]);
    }
    return local[t];
  };
  Op copy = op;
  copy.id = 0;
  for (int32_t& t : copy.inputs) {
    const bool fresh = t >= 0 && local[t] < 0;
    t = take(t);
    if (fresh && !g.tensors[t].is_constant) g.inputs.push_back(t);
  }
  for (int32_t& t : copy.outputs) {
    t = take(t);
    g.outputs.push_back(t);
  }
  g.ops.push_back(std::move(copy));
  return g;
}

struct Runner {
  std::shared_ptr<const LoadedModel> model;
  std::unique_ptr<ExecutionContext> context;
  std::vector<void*> memory;
  ~Runner() {
    context.reset();  // unbinds, before the memory goes
    for (void* p : memory) std::free(p);
  }
};

absl::StatusOr<std::unique_ptr<Runner>> Prepare(const Graph& graph, const PluginRegistry& registry) {
  CompileOptions options;
  options.accelerators = {"cpu"};
  options.plugin_options = {{"cpu.threads", "1"}};
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(graph, registry, options);
  if (!compiled.ok()) return compiled.status();
  auto r = std::make_unique<Runner>();
  absl::StatusOr<std::shared_ptr<const LoadedModel>> model =
      LoadedModel::Create(compiled->graph, compiled->jit_slots, registry, {options.soc, options.plugin_options});
  if (!model.ok()) return model.status();
  r->model = *model;
  absl::StatusOr<std::unique_ptr<ExecutionContext>> context = ExecutionContext::Create(r->model);
  if (!context.ok()) return context.status();
  r->context = *std::move(context);
  // Inputs hold small values (0.25): valid indices for GATHER, finite for
  // every transcendental.
  for (int io = 0; io < 2; ++io) {
    const std::vector<int32_t>& list = io == 0 ? graph.inputs : graph.outputs;
    for (size_t i = 0; i < list.size(); ++i) {
      const Tensor& t = graph.tensors[list[i]];
      const size_t bytes = std::max<size_t>(64, (t.byte_size() + 63) / 64 * 64);
      void* p = std::aligned_alloc(64, bytes);
      std::memset(p, 0, bytes);
      if (io == 0 && t.dtype == TSR_DTYPE_F32)
        for (size_t e = 0; e < t.byte_size() / 4; ++e) static_cast<float*>(p)[e] = 0.25f;
      r->memory.push_back(p);
      const AppBuffer buffer{TSR_BUFFER_TYPE_HOST, p, -1, 0, bytes};
      absl::StatusOr<BindingMode> mode = io == 0 ? r->context->BindInput(i, buffer) : r->context->BindOutput(i, buffer);
      if (!mode.ok()) return mode.status();
    }
  }
  return r;
}

// The fastest run in microseconds, over at least 10 runs and min_ms.
double BestUs(Runner& r, double min_ms) {
  std::vector<double> us;
  const auto start = Clock::now();
  if (!r.context->RunBound().ok()) return -1;  // warm-up
  while (us.size() < 10 || std::chrono::duration<double, std::milli>(Clock::now() - start).count() < min_ms) {
    const auto t0 = Clock::now();
    if (!r.context->RunBound().ok()) return -1;
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (us.size() >= 2000) break;
  }
  return *std::min_element(us.begin(), us.end());
}

int Main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: cpu_op_class_bench MODEL.tsr NAME [MIN_MS]\n");
    return 2;
  }
  const std::string name = argv[2];
  const double min_ms = argc > 3 ? std::atof(argv[3]) : 30;
  absl::StatusOr<Graph> graph = LoadModelFile(argv[1]);
  if (!graph.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[1], std::string(graph.status().message()).c_str());
    return 1;
  }
  PluginSearchOptions search;
  search.read_environment = false;
  search.bundled_directory = BundledPluginDirectory();
  const PluginRegistry registry = PluginRegistry::Discover(search);

  // The per-run overhead: a one-element ADD.
  Graph tiny;
  tiny.name = "overhead";
  tiny.tensors = {Tensor{.name = "x", .dtype = TSR_DTYPE_F32, .shape = {1}},
                  Tensor{.name = "y", .dtype = TSR_DTYPE_F32, .shape = {1}}};
  Op add;
  add.type = TSR_OP_ADD;
  add.inputs = {0, 0};
  add.outputs = {1};
  tiny.ops = {add};
  tiny.inputs = {0};
  tiny.outputs = {1};
  absl::StatusOr<std::unique_ptr<Runner>> base = Prepare(tiny, registry);
  if (!base.ok()) {
    std::fprintf(stderr, "overhead model: %s\n", std::string(base.status().message()).c_str());
    return 1;
  }
  const double overhead_us = BestUs(**base, min_ms);
  std::fprintf(stderr, "%s: per-run overhead %.2f us (subtracted)\n", name.c_str(), overhead_us);

  for (const Op& op : graph->ops) {
    const OpWork work = WorkOf(*graph, op);
    if (work.ops <= 0) continue;
    const Graph one = OneOpGraph(*graph, op);
    absl::StatusOr<std::unique_ptr<Runner>> r = Prepare(one, registry);
    if (!r.ok()) {
      std::fprintf(stderr, "%s: op %u %s skipped: %s\n", name.c_str(), op.id, OpTypeName(op.type),
                   std::string(r.status().message()).c_str());
      continue;
    }
    const double us = BestUs(**r, min_ms);
    if (us < 0) {
      std::fprintf(stderr, "%s: op %u %s failed to run\n", name.c_str(), op.id, OpTypeName(op.type));
      continue;
    }
    const Attribute* groups = op.FindAttr(TSR_ATTR_GROUPS);
    const Attribute* kernel = op.FindAttr(TSR_ATTR_KERNEL_SHAPE);
    const int32_t in0 = op.inputs.empty() ? -1 : op.inputs[0];
    std::printf("%s\t%s\t%s\t%s\t%s\t%s\t%lld\t%s\t%.0f\t%s\t%.3f\n", name.c_str(), OpTypeName(op.type),
                in0 >= 0 ? DTypeName(graph->tensors[in0].dtype) : "-", Shape(*graph, in0).c_str(),
                Shape(*graph, op.inputs.size() > 1 ? op.inputs[1] : -1).c_str(),
                Shape(*graph, op.outputs.empty() ? -1 : op.outputs[0]).c_str(),
                static_cast<long long>(groups != nullptr && !groups->ints.empty() ? groups->ints[0] : 1),
                kernel != nullptr ? absl::StrJoin(kernel->ints, "x").c_str() : "-", work.ops,
                std::string(CpuOpClassName(ClassOf(op))).c_str(), std::max(0.0, us - overhead_us));
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) { return tessera::Main(argc, argv); }
