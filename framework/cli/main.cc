// tessera: one CLI for importing, inspecting, partitioning, compiling,
// running and benchmarking models across vendor plugins.
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace {

constexpr char kUsage[] = R"(usage: tessera <command> [options]

commands:
  plugins [--json] [--plugin-dir DIR]        list loaded and skipped plugin libraries
  inspect MODEL [--json]                     describe a .tsr model (tensors, ops, bytecode)
  partition MODEL [--accelerators LIST] [--json]
                                             show how the model would be partitioned
  compile MODEL -o OUT.tsr [--accelerators LIST] [--soc NAME] [--quantize int8 --calibration DIR] [--json]
                                             compile ahead of time into a model file
                                             (optionally INT8 after post-training calibration)
  run MODEL [--accelerators LIST] [--inputs DIR | --random] [--outputs DIR] [--json]
                                             run a model and print its outputs
  demo [--accelerators LIST] [--json]        build, compile and run the attention+RoPE demo
  bench MODEL [--accelerators LIST] [--reps N] [--threads N] [--json]
                                             time repeated runs after warm-up (latency min/median/mean)
  import MODEL.onnx -o OUT.tsr [--input-shape NAME=D0,D1,...]...
                                             import an ONNX model (opsets 11-17)
  onnx-test DIR... [--list FILE [--root DIR]] [--accelerators LIST] [--kernels reference|fast] [--json]
                                             run ONNX backend-test cases and compare outputs

common options:
  --accelerators LIST   comma-separated priority list (cpu, npu, dsp, or vendor names) or auto
  --mode aot|jit        compile ahead of time (default) or just in time
  --soc NAME|FILE       SoC description (default ref-phone)
  --option KEY=VALUE    plugin option, e.g. systolic_npu.dataflow=os (repeatable)
  --kernels reference|fast  cpu plugin kernels
  --plugin-dir DIR      search DIR for plugins too (also TESSERA_PLUGIN_PATH)
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = argv[1];
  const std::vector<std::string> rest(argv + 2, argv + argc);
  using namespace tessera::cli;
  if (command == "plugins") return PluginsCommand(rest);
  if (command == "inspect") return InspectCommand(rest);
  if (command == "partition") return PartitionCommand(rest);
  if (command == "compile") return CompileCommand(rest);
  if (command == "run") return RunCommand(rest);
  if (command == "demo") return DemoCommand(rest);
  if (command == "bench") return BenchCommand(rest);
  if (command == "import") return ImportCommand(rest);
  if (command == "onnx-test") return OnnxTestCommand(rest);
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return 0;
  }
  std::cerr << "tessera: unknown command '" << command << "'\n" << kUsage;
  return 2;
}
