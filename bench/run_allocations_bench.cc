// Heap allocations per steady-state run, host and plugins together: this
// binary interposes malloc/calloc/realloc/free (exported, so the dlopen()ed
// plugin libraries call these too) and counts calls between two points.
//
//   build/bin/run_allocations_bench [MODEL] [ACCELERATORS] [RUNS] [POLICY] [PATH]
//   MODEL: attention | mlp | cnn (the demo models), default attention
//   POLICY: cost (default) | greedy | cpu, as `--policy`; the cost policy
//   keeps these small models on the cpu, greedy puts what it can on the NPU
//   PATH: how a run is made (default run):
//     run    ExecutionContext::Run: host tensors in, newly allocated outputs back
//     into   ExecutionContext::RunInto on buffers made once
//     c-app  tsr_app_run_sized, the C app API, on buffers made once: the same
//            model saved as .tsr bytes and compiled through the app API
//     bound  ExecutionContext::RunBound on 64-byte aligned host buffers bound
//            once (BindInput/BindOutput); prints each binding's mode
//
// Prints allocations per run after warm-up, for one run, and
// how many of them oneDNN makes inside dnnl_primitive_execute (the cpu
// plugin's library; the frames of each allocation are looked up with
// dladdr) against the rest: the framework, the plugins' own code, libc++.
// The baseline to compare with is the same binary on an older commit.
#include <dlfcn.h>
#include <execinfo.h>

#include <algorithm>
#include <map>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <cstring>
#include <functional>
#include <memory>
#include <span>

#include "dispatch/execution_context.h"
#include "framework/cli/app_flags.h"
#include "framework/cli/demo_model.h"
#include "framework/compiler/compile/compile_driver.h"
#include "framework/core/base/install_layout.h"
#include "framework/core/model/model_writer.h"
#include "framework/loader/plugin_registry.h"
#include "tessera/app/tessera_app.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
}

namespace {
std::atomic<uint64_t> allocations{0};
std::atomic<bool> counting{false};
// TSR_ALLOC_SITES=1: also record who allocates (a few frames of each call
// stack), to find the sources. Off by default: backtrace() is slow.
bool record_sites = false;
thread_local bool inside = false;
constexpr int kFrames = 8;
struct Site {
  void* frames[kFrames] = {};
  bool operator<(const Site& o) const {
    return std::lexicographical_compare(frames, frames + kFrames, o.frames, o.frames + kFrames);
  }
};
std::map<Site, uint64_t>* sites = nullptr;
// Allocations with a libdnnl frame on their stack, and a cache of which
// return addresses are in libdnnl (dladdr is a symbol-table walk).
std::atomic<uint64_t> onednn_allocations{0};
std::map<void*, bool>* in_onednn = nullptr;
bool InOneDnn(void* pc) {
  auto [it, fresh] = in_onednn->try_emplace(pc, false);
  if (fresh) {
    Dl_info info;
    it->second = dladdr(pc, &info) != 0 && info.dli_fname != nullptr &&
                 std::string_view(info.dli_fname).find("libdnnl") != std::string_view::npos;
  }
  return it->second;
}
inline void Count() {
  if (!counting.load(std::memory_order_relaxed) || inside) return;
  allocations.fetch_add(1, std::memory_order_relaxed);
  inside = true;
  void* frames[24];
  const int n = backtrace(frames, 24);
  for (int f = 0; f < n; ++f)
    if (InOneDnn(frames[f])) {
      onednn_allocations.fetch_add(1, std::memory_order_relaxed);
      break;
    }
  if (record_sites) {
    Site s;
    backtrace(s.frames, kFrames);
    ++(*sites)[s];
  }
  inside = false;
}
void PrintSites() {
  std::vector<std::pair<uint64_t, Site>> top;
  for (const auto& [site, n] : *sites) top.push_back({n, site});
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < top.size() && i < 15; ++i) {
    std::printf("%8llu allocations from:\n", static_cast<unsigned long long>(top[i].first));
    char** names = backtrace_symbols(top[i].second.frames + 2, kFrames - 2);
    for (int f = 0; f < kFrames - 2; ++f) std::printf("    %s\n", names[f]);
  }
}
}  // namespace

extern "C" {
__attribute__((visibility("default"))) void* malloc(size_t n) {
  Count();
  return __libc_malloc(n);
}
__attribute__((visibility("default"))) void* calloc(size_t n, size_t m) {
  Count();
  return __libc_calloc(n, m);
}
__attribute__((visibility("default"))) void* realloc(void* p, size_t n) {
  Count();
  return __libc_realloc(p, n);
}
__attribute__((visibility("default"))) void free(void* p) { __libc_free(p); }
}

int main(int argc, char** argv) {
  using namespace tessera;
  const std::string model_name = argc > 1 ? argv[1] : "attention";
  const std::string accelerators = argc > 2 ? argv[2] : "npu,cpu";
  const int runs = argc > 3 ? std::atoi(argv[3]) : 100;
  const std::string policy_name = argc > 4 ? argv[4] : "cost";
  const std::string path = argc > 5 ? argv[5] : "run";
  absl::StatusOr<Graph> graph = cli::BuildDemoModel(model_name);
  if (!graph.ok()) {
    std::fprintf(stderr, "%s\n", std::string(graph.status().message()).c_str());
    return 1;
  }
  PluginSearchOptions search;
  search.read_environment = false;
  search.bundled_directory = BundledPluginDirectory();
  const PluginRegistry registry = PluginRegistry::Discover(search);
  CompileOptions options;
  options.accelerators.clear();
  for (size_t start = 0, comma; start <= accelerators.size(); start = comma + 1) {
    comma = accelerators.find(',', start);
    if (comma == std::string::npos) comma = accelerators.size();
    if (comma > start) options.accelerators.push_back(accelerators.substr(start, comma - start));
  }
  absl::StatusOr<PartitionPolicy> policy = ParsePartitionPolicy(policy_name);
  if (!policy.ok()) {
    std::fprintf(stderr, "%s\n", std::string(policy.status().message()).c_str());
    return 1;
  }
  options.partitioning.policy = *policy;
  absl::StatusOr<SocSelection> soc = FindSoc("ref-phone", BundledSocDirectory());
  if (soc.ok()) options.soc = *soc;
  absl::StatusOr<CompiledGraph> compiled = CompileGraph(*graph, registry, options);
  if (!compiled.ok()) {
    std::fprintf(stderr, "%s\n", std::string(compiled.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<std::shared_ptr<const LoadedModel>> loaded =
      LoadedModel::Create(compiled->graph, compiled->jit_slots, registry, {options.soc, options.plugin_options});
  if (!loaded.ok()) return 1;
  absl::StatusOr<std::unique_ptr<ExecutionContext>> context = ExecutionContext::Create(*loaded);
  if (!context.ok()) return 1;
  // The CLI's seeded inputs (`--seed 1`), as host tensors for the runtime.
  std::vector<app::TensorInfo> infos;
  for (int32_t t : graph->inputs)
    infos.push_back({graph->tensors[t].name, static_cast<tsr_dtype>(graph->tensors[t].dtype), graph->tensors[t].shape});
  std::vector<HostTensor> inputs;
  for (const app::Tensor& t : cli::RandomTensors(infos, 1)) {
    const auto* p = static_cast<const uint8_t*>(t.data());
    inputs.push_back({t.info().name, t.info().dtype, t.info().shape, std::vector<uint8_t>(p, p + t.size())});
  }
  // The caller's buffers of `into` and `c-app`, made once.
  std::vector<std::span<const uint8_t>> in_views;
  std::vector<const void*> in_pointers;
  std::vector<size_t> in_sizes, out_sizes;
  for (const HostTensor& h : inputs) {
    in_views.push_back(h.data);
    in_pointers.push_back(h.data.data());
    in_sizes.push_back(h.data.size());
  }
  std::vector<std::vector<uint8_t>> output_buffers;
  std::vector<std::span<uint8_t>> out_views;
  std::vector<void*> out_pointers;
  for (int32_t t : graph->outputs) output_buffers.emplace_back(graph->tensors[t].byte_size());
  for (std::vector<uint8_t>& b : output_buffers) {
    out_views.push_back(b);
    out_pointers.push_back(b.data());
    out_sizes.push_back(b.size());
  }
  tsr_app_environment env = nullptr;
  tsr_app_model app_model = nullptr;
  tsr_app_compiled_model app_compiled = nullptr;
  tsr_app_run_context app_context = nullptr;
  if (path == "c-app") {
    // The demo graph as .tsr bytes, through the public C API from there.
    absl::StatusOr<std::vector<uint8_t>> bytes = SerializeModel(*graph);
    if (!bytes.ok()) return 1;
    const std::string plugins = BundledPluginDirectory(), socs = BundledSocDirectory();
    tsr_app_environment_options env_options{};
    env_options.struct_size = sizeof(env_options);
    env_options.bundled_plugin_directory = plugins.c_str();
    env_options.soc_directory = socs.c_str();
    env_options.log_level = TSR_LOG_ERROR;
    tsr_app_compile_options compile_options{};
    compile_options.struct_size = sizeof(compile_options);
    compile_options.accelerators = accelerators.c_str();
    compile_options.soc = "ref-phone";
    compile_options.policy = policy_name.c_str();
    if (tsr_app_environment_create(&env_options, &env) != TSR_OK ||
        tsr_app_model_from_memory(bytes->data(), bytes->size(), nullptr, &app_model) != TSR_OK ||
        tsr_app_compile(env, app_model, &compile_options, &app_compiled) != TSR_OK ||
        tsr_app_run_context_create(app_compiled, &app_context) != TSR_OK) {
      std::fprintf(stderr, "%s\n", tsr_app_last_error());
      return 1;
    }
  }
  struct FreeMemory {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::vector<std::unique_ptr<uint8_t, FreeMemory>> bound_memory;  // `bound`'s buffers
  std::function<bool()> run_once;
  if (path == "run") {
    run_once = [&] { return (*context)->Run(inputs).ok(); };
  } else if (path == "into") {
    run_once = [&] { return (*context)->RunInto(in_views, out_views).ok(); };
  } else if (path == "bound") {
    // Aligned copies of the inputs and room for the outputs, bound once.
    for (size_t i = 0; i < inputs.size(); ++i) {
      bound_memory.emplace_back(static_cast<uint8_t*>(std::aligned_alloc(64, (inputs[i].data.size() + 64) / 64 * 64)));
      std::memcpy(bound_memory.back().get(), inputs[i].data.data(), inputs[i].data.size());
      absl::StatusOr<BindingMode> mode =
          (*context)->BindInput(i, {TSR_BUFFER_TYPE_HOST, bound_memory.back().get(), -1, 0, inputs[i].data.size()});
      if (!mode.ok()) return std::fprintf(stderr, "%s\n", std::string(mode.status().message()).c_str()), 1;
      std::printf("input %zu bound: %s\n", i, BindingModeName(*mode));
    }
    for (size_t i = 0; i < output_buffers.size(); ++i) {
      bound_memory.emplace_back(
          static_cast<uint8_t*>(std::aligned_alloc(64, (output_buffers[i].size() + 64) / 64 * 64)));
      absl::StatusOr<BindingMode> mode =
          (*context)->BindOutput(i, {TSR_BUFFER_TYPE_HOST, bound_memory.back().get(), -1, 0, output_buffers[i].size()});
      if (!mode.ok()) return std::fprintf(stderr, "%s\n", std::string(mode.status().message()).c_str()), 1;
      std::printf("output %zu bound: %s\n", i, BindingModeName(*mode));
    }
    run_once = [&] { return (*context)->RunBound().ok(); };
  } else if (path == "c-app") {
    run_once = [&] {
      return tsr_app_run_sized(app_context, in_pointers.data(), in_sizes.data(), in_pointers.size(),
                               out_pointers.data(), out_sizes.data(), out_pointers.size()) == TSR_OK;
    };
  } else {
    std::fprintf(stderr, "PATH must be run, into, c-app or bound, not '%s'\n", path.c_str());
    return 2;
  }
  for (int i = 0; i < 10; ++i)
    if (!run_once()) {
      std::fprintf(stderr, "warm-up run failed%s%s\n", path == "c-app" ? ": " : "",
                   path == "c-app" ? tsr_app_last_error() : "");
      return 1;
    }
  record_sites = std::getenv("TSR_ALLOC_SITES") != nullptr;
  if (record_sites) sites = new std::map<Site, uint64_t>();
  in_onednn = new std::map<void*, bool>();
  void* warm[2];
  backtrace(warm, 2);  // loads libgcc's unwinder before counting
  counting = true;
  for (int i = 0; i < runs; ++i)
    if (!run_once()) return 1;
  counting = false;
  const double total = static_cast<double>(allocations.load()) / runs;
  const double onednn = static_cast<double>(onednn_allocations.load()) / runs;
  std::printf(
      "model %s on %s (policy %s, path %s): %zu DISPATCH steps, %.1f heap allocations per run: %.1f inside "
      "oneDNN, %.1f elsewhere (%d runs after 10 warm-up)\n",
      model_name.c_str(), accelerators.c_str(), policy_name.c_str(), path.c_str(), compiled->graph.ops.size(), total,
      onednn, total - onednn, runs);
  if (record_sites) PrintSites();
  tsr_app_run_context_destroy(app_context);
  tsr_app_compiled_model_destroy(app_compiled);
  tsr_app_model_destroy(app_model);
  tsr_app_environment_destroy(env);
  return 0;
}
