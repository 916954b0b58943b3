// The app API's objects made from a command's flags: the CLI is an app of
// tessera/app/tessera_app.hpp (docs/app-guide.md), so what `run`, `bench`,
// `partition`, `compile`, `import` and `plugins` do is what an app can do.
// The flags themselves are declared in cli_environment.h (AddCompileFlags,
// AddImportFlags, ...), shared with the commands not yet moved.
#ifndef TESSERA_FRAMEWORK_CLI_APP_FLAGS_H_
#define TESSERA_FRAMEWORK_CLI_APP_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/cli/cli_args.h"
#include "tessera/app/model_diagnostics.hpp"
#include "tessera/app/tessera_app.hpp"

namespace tessera::cli {

// The app's Status as absl's (the codes are the same numbers).
absl::Status ToAbsl(const app::Status& status);
template <typename T>
absl::StatusOr<T> ToAbsl(app::Result<T> result) {
  if (!result.ok()) return ToAbsl(result.status());
  return std::move(result).value();
}

// --plugin-dir DIR... (made absolute: a directory named on the command line
// is named), the bundled directory, TESSERA_PLUGIN_PATH, and --probe.
absl::StatusOr<app::Environment> EnvironmentFrom(const Args& args);

// --budget, and for an .onnx --input-shape, --freeze-input, --no-optimize,
// --max-folded-bytes; with --inputs DIR, a dynamic model takes its shapes
// from DIR's input_K.pb files, by position. Bad values are errors for
// UsageError.
absl::StatusOr<app::LoadOptions> LoadOptionsFrom(const Args& args);
// The same for an .onnx read without a MODEL argument (onnx-test): --budget
// and the import flags.
absl::StatusOr<app::LoadOptions> OnnxLoadOptionsFrom(const Args& args);
// MODEL (the first positional), loaded with LoadOptionsFrom(args). When
// an ONNX import fails, `out_diagnostics` (if given) receives every problem
// it found; the error lists them too.
absl::StatusOr<app::Model> LoadAppModel(const Args& args, std::vector<app::ImportDiagnostic>* out_diagnostics = nullptr);

// --accelerators, --mode, --soc (default ref-phone when installed),
// --option, --kernels, --policy, --min-ops, --max-partitions, and where a
// command declares them the resilience and cache flags. Bad values
// are errors for UsageError.
absl::StatusOr<app::CompileOptions> AppCompileOptionsFrom(const Args& args);
// A compiled model run without --soc runs for the SoC it was compiled for
// (the app adopts it when CompileOptions::soc is ""), not the default one.
void LeaveSocToCompiledModel(const Args& args, const app::Model& model, app::CompileOptions& options);

// The flag values of a command with the compile and import flags, checked
// before anything loads (a bad value is a usage error, exit 2).
absl::Status CheckAppFlags(const Args& args);

// With --strict, an error naming every fallback of `report` (by op type and
// reason), for vendors and CI that must know; OK otherwise. Commands print
// their report first, then return this.
absl::Status CheckStrict(const Args& args, const app::PartitionReport& report);

// The model's inputs as `run` and `bench` take them: --inputs DIR (each
// file refused before it is read when larger than its tensor can need),
// else seeded pseudo-random ones (--seed N, default 1).
absl::StatusOr<std::vector<app::Tensor>> AppInputsFrom(const Args& args, const std::vector<app::TensorInfo>& inputs);
// Deterministic pseudo-random values for `inputs`: floats in (-1, 1),
// integers in [0, 2] (safe as indices).
std::vector<app::Tensor> RandomTensors(const std::vector<app::TensorInfo>& inputs, uint32_t seed);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_APP_FLAGS_H_
