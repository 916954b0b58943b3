// tessera: one CLI for importing, inspecting, partitioning, compiling,
// running and benchmarking models across vendor plugins.
#include <iostream>
#include <string>
#include <vector>

#include "framework/core/base/exception_boundary.h"
#include "framework/core/base/process_allocator.h"
#include "framework/core/base/terminal_text.h"
#include "framework/cli/commands.h"

namespace {

// Every command and every flag it accepts (each command's FlagSpec); a
// usage error also prints that command's own usage line. cli_test checks
// that each command's own usage line names no flag missing here.
constexpr char kUsage[] = R"(usage: tessera <command> [arguments] [options]

commands:
  plugins    [--json] [--plugin-dir DIR]...
             list the plugin libraries found, loaded and skipped, and the directories searched
  inspect    MODEL [--json] [--verify structure|full]
             describe a model: tensors, ops, bytecode, what was verified (loads no plugins)
  partition  MODEL [--json] [--svg FILE | --html FILE] [COMPILE OPTIONS]
             show how MODEL would be partitioned (compiles in memory; writes only the
             picture --svg or --html asks for: ops coloured by device, cuts and their bytes)
  compile    MODEL -o|--output OUT.tsr [--quantize int8 --calibration DIR] [--json] [COMPILE OPTIONS]
             compile ahead of time into a new .tsr model (--mode jit is refused); with
             --quantize int8, post-training INT8 calibrated on DIR, with an accuracy report
  run        MODEL [--inputs DIR | --random [--seed N]] [--outputs DIR] [--json] [COMPILE OPTIONS]
             compile unless precompiled, run, print the outputs and a profile; run and bench also
             take --deadline-ms N, --max-retries N, --no-fallback (docs/resilience.md)
  demo       [--model mlp-wide|attention|mlp|cnn|frag-chain|frag-gated] [--save-model FILE] [--json] [COMPILE OPTIONS]
             build, compile (AOT and JIT), run and check a demo model
  bench      MODEL [--reps N] [--warmup N] [--threads N] [--inputs DIR | --seed N] [--json] [COMPILE OPTIONS]
             time repeated runs after warm-up (latency min/median/mean/p90)
  import     MODEL.onnx -o|--output OUT.tsr [--input-shape NAME=D0,D1,...]... [--freeze-input NAME=V,...]...
             [--max-folded-bytes N] [--budget NAME=VALUE]... [--no-optimize] [--json]
             import an ONNX model (opsets 11-21) into a .tsr model
  onnx-test  DIR... [--list FILE [--root DIR]] [--expect-pass] [--require-vendor NAME] [--json] [COMPILE OPTIONS]
             run ONNX backend-test cases and compare with their expected outputs
  help       print this text (also --help, -h)

COMPILE OPTIONS (partition, compile, run, demo, bench, onnx-test):
  --accelerators LIST        comma-separated priority list (npu, dsp, cpu or vendor names) or auto (default)
  --mode aot|jit             compile ahead of time (default) or just in time
  --soc NAME|FILE            SoC description (default ref-phone)
  --option KEY=VALUE         plugin option, e.g. systolic_npu.dataflow=os (repeatable)
  --kernels reference|fast   cpu plugin kernels (default fast)
  --precision fp32|allow-fp16|allow-int8
                             what accelerators may give up (default fp32; demo: allow-fp16); FP16 needs
                             its ranges proven by --calibration DIR or the inputs a command computes on
  --plugin-dir DIR           also search DIR for plugins (repeatable; see also TESSERA_PLUGIN_PATH)

MODEL is a .tsr file, or an .onnx file imported in memory; an .onnx takes --input-shape NAME=D0,D1,...,
--freeze-input NAME=V,... (the input becomes a constant), --no-optimize and --max-folded-bytes N.
Every command that loads a .tsr MODEL takes --verify structure|full: structure (default) checks the tables'
CRC-32, ranges and bytecode envelopes without reading the weights; full also the CRC-32 of every weight byte.
Every command that loads a MODEL takes --budget NAME=VALUE (repeatable): max_model_bytes, max_tensor_count,
max_tensor_bytes, max_activation_bytes, max_op_count, max_partition_count, max_bytecode_bytes,
max_device_memory_bytes
(defaults and meaning: docs/reliability.md section 2; VALUE may end in K, M, G or T).
Exit codes: 0 success, 1 the command failed, 2 usage error (with the command's usage line).
Details: docs/cli.md
)";

int Dispatch(const std::string& command, const std::vector<std::string>& rest);

}  // namespace

// The CLI's exception boundary: whatever a command throws (std::bad_alloc
// for a model input of gigabytes, ...) is an error with exit code 1, never
// an abort.
int main(int argc, char** argv) {
  tessera::KeepFreedMemoryForReuse();  // base/process_allocator.h: the binary's choice, not the library's
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = argv[1];
  try {
    const std::vector<std::string> rest(argv + 2, argv + argc);
    return Dispatch(command, rest);
  } catch (...) {
    const absl::Status s = tessera::StatusFromCurrentException(command);
    std::cerr << "tessera: error: " << tessera::TerminalSafe(s.message(), tessera::TerminalLayout::kText) << "\n";
    return 1;
  }
}

namespace {

int Dispatch(const std::string& command, const std::vector<std::string>& rest) {
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
  std::cerr << "tessera: unknown command '" << tessera::TerminalSafe(command) << "'\n" << kUsage;
  return 2;
}

}  // namespace
