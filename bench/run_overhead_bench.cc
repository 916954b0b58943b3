// Framework overhead per run: a one-op model run through ExecutionContext::Run
// (inputs copied in, the step invoked, outputs copied out) and RunBound
// (app buffers bound once, used in place) against the same
// executable invoked directly through the dispatch table with its buffers
// attached once, and through the app API (what an app and the CLI pay),
// side by side.
//
//   build/bin/run_overhead_bench [ACCELERATOR] [ELEMENTS] [RUNS] [SOC]   (default cpu 16 200000 ref-phone)
//
// Prints the minimum and median per-run time of both and their difference:
// what the framework adds beyond the plugin's own invoke.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dispatch/execution_context.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/base/install_layout.h"
#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "framework/loader/plugin_registry.h"
#include "tessera/app/tessera_app.hpp"
#include "tessera/dispatch.h"
#include "tessera/ops.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Stats {
  double min_ns = 0, median_ns = 0;
};

template <typename Body>
Stats Time(int runs, Body body) {
  std::vector<double> ns(runs);
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    body();
    ns[i] = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  }
  std::sort(ns.begin(), ns.end());
  return {ns.front(), ns[ns.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tessera;
  const std::string accelerator = argc > 1 ? argv[1] : "cpu";
  const int64_t n = argc > 2 ? std::atoll(argv[2]) : 16;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 200000;

  ModelBuilder b("one_op");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {n});
  const int32_t y = b.Input("y", TSR_DTYPE_F32, {n});
  b.Output(b.Op(TSR_OP_ADD, {x, y}, {}, {.name = "out"}));
  const Graph graph = *std::move(b).Build();

  PluginSearchOptions search;
  search.read_environment = false;
  search.bundled_directory = BundledPluginDirectory();
  const PluginRegistry registry = PluginRegistry::Discover(search);
  CompileOptions options;
  options.accelerators = {accelerator};
  // One op on the accelerator, whatever the cost model would choose: the
  // overhead of the path is what is measured.
  options.partitioning.policy = PartitionPolicy::kGreedy;
  absl::StatusOr<SocSelection> soc = FindSoc(argc > 4 ? argv[4] : "ref-phone", BundledSocDirectory());
  if (soc.ok()) options.soc = *soc;
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(graph, registry, options);
  if (!compiled.ok() || compiled->graph.ops.size() != 1) {
    std::fprintf(stderr, "compile failed or split: %s\n",
                 compiled.ok() ? "more than one step" : std::string(compiled.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<std::shared_ptr<const LoadedModel>> model =
      LoadedModel::Create(compiled->graph, compiled->jit_slots, registry, {options.soc, options.plugin_options});
  if (!model.ok()) return 1;
  absl::StatusOr<std::unique_ptr<ExecutionContext>> context = ExecutionContext::Create(*model);
  if (!context.ok()) return 1;

  HostTensor hx{"x", TSR_DTYPE_F32, {n}, std::vector<uint8_t>(n * 4)};
  HostTensor hy{"y", TSR_DTYPE_F32, {n}, std::vector<uint8_t>(n * 4)};
  const std::vector<HostTensor> inputs = {hx, hy};
  const Stats framework = Time(runs, [&] {
    if (!(*context)->Run(inputs).ok()) std::abort();
  });
  // The same context on app buffers bound once (64-byte aligned host
  // memory): no copy in or out where the step takes them in place.
  std::vector<float*> bound;
  const char* bound_modes[3] = {};
  for (int i = 0; i < 3; ++i) bound.push_back(static_cast<float*>(std::aligned_alloc(64, (n * 4 + 63) / 64 * 64)));
  for (int i = 0; i < 3; ++i) {
    const AppBuffer buffer{TSR_BUFFER_TYPE_HOST, bound[i], -1, 0, static_cast<uint64_t>(n) * 4};
    absl::StatusOr<BindingMode> mode = i < 2 ? (*context)->BindInput(i, buffer) : (*context)->BindOutput(0, buffer);
    if (!mode.ok()) return 1;
    bound_modes[i] = BindingModeName(*mode);
  }
  const Stats framework_bound = Time(runs, [&] {
    if (!(*context)->RunBound().ok()) std::abort();
  });
  context->reset();  // unbinds, before the memory goes
  for (float* p : bound) std::free(p);

  // The same executable, invoked directly: one invocation, host buffers
  // registered and attached once, no copies.
  const LoadedStep& step = (*model)->steps()[0];
  const DeviceSession& s = *(*model)->sessions()[step.session];
  const tsr_dispatch_api* api = s.api();
  // 64-byte aligned, as the bound buffers above: the same memory the
  // kernel would get from an app that binds.
  std::vector<float*> direct_memory;
  for (int i = 0; i < 3; ++i)
    direct_memory.push_back(static_cast<float*>(std::aligned_alloc(64, (n * 4 + 63) / 64 * 64)));
  tsr_invocation inv = nullptr;
  if (api->create_invocation(step.executable, &inv) != TSR_OK) return 1;
  std::vector<tsr_buffer> buffers;
  for (float* p : direct_memory) {
    tsr_buffer_desc desc{};
    desc.header = HostFilledHeader(sizeof(desc), s.library().version);
    desc.buffer_type = TSR_BUFFER_TYPE_HOST;
    desc.size_bytes = n * 4;
    desc.host_address = p;
    desc.fd = -1;
    tsr_buffer buf = nullptr;
    if (api->register_buffer(s.context(), &desc, &buf) != TSR_OK) {
      std::fprintf(stderr, "%s cannot register host buffers: the direct baseline needs them\n", accelerator.c_str());
      return 1;
    }
    buffers.push_back(buf);
  }
  if (api->attach_input(inv, 0, buffers[0]) != TSR_OK || api->attach_input(inv, 1, buffers[1]) != TSR_OK ||
      api->attach_output(inv, 0, buffers[2]) != TSR_OK)
    return 1;
  const Stats direct = Time(runs, [&] {
    if (api->invoke(inv) != TSR_OK) std::abort();
  });
  api->destroy_invocation(inv);
  for (tsr_buffer buf : buffers) api->release_buffer(buf);
  for (float* p : direct_memory) std::free(p);

  // What an app pays: the same model through the app API (tessera_app.hpp),
  // which the CLI uses too. Its Run copies the inputs into host tensors and
  // hands each output over as an owned Tensor.
  Stats app_run{};
  {
    const absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(graph);
    app::Result<app::Environment> env = app::Environment::Create({.read_environment = false});
    app::Result<app::Model> model = bytes.ok() ? app::Model::FromMemory(bytes->data(), bytes->size())
                                               : app::Result<app::Model>(app::Status(TSR_INTERNAL, "serialize"));
    if (!env.ok() || !model.ok()) return 1;
    app::CompileOptions app_options;
    app_options.accelerators = {accelerator};
    app_options.policy = "greedy";
    app_options.soc = argc > 4 ? argv[4] : "ref-phone";
    app::Result<app::CompiledModel> app_compiled = app::CompiledModel::Compile(*env, *model, app_options);
    if (!app_compiled.ok()) return 1;
    app::Result<app::RunContext> app_context = app::RunContext::Create(*app_compiled);
    if (!app_context.ok()) return 1;
    const std::vector<app::Tensor> app_inputs = {app::Tensor::Allocate({"x", TSR_DTYPE_F32, {n}}),
                                                 app::Tensor::Allocate({"y", TSR_DTYPE_F32, {n}})};
    app_run = Time(runs, [&] {
      if (!app_context->Run(app_inputs).ok()) std::abort();
    });
  }

  std::printf("one ADD of %lld f32 on %s (%s), %d runs each\n", static_cast<long long>(n), accelerator.c_str(),
              options.soc.name.c_str(), runs);
  std::printf("  direct invoke      min %8.0f ns  median %8.0f ns\n", direct.min_ns, direct.median_ns);
  std::printf("  ExecutionContext::Run    min %8.0f ns  median %8.0f ns\n", framework.min_ns, framework.median_ns);
  std::printf("  framework overhead min %8.0f ns  median %8.0f ns\n", framework.min_ns - direct.min_ns,
              framework.median_ns - direct.median_ns);
  std::printf("  RunBound           min %8.0f ns  median %8.0f ns  (inputs %s, %s; output %s)\n",
              framework_bound.min_ns, framework_bound.median_ns, bound_modes[0], bound_modes[1], bound_modes[2]);
  std::printf("  bound overhead     min %8.0f ns  median %8.0f ns\n", framework_bound.min_ns - direct.min_ns,
              framework_bound.median_ns - direct.median_ns);
  std::printf("  app ExecutionContext::Run min %7.0f ns  median %8.0f ns\n", app_run.min_ns, app_run.median_ns);
  std::printf("  app API overhead   min %8.0f ns  median %8.0f ns  (over the direct invoke)\n",
              app_run.min_ns - direct.min_ns, app_run.median_ns - direct.median_ns);
  return 0;
}
