// `tessera partition --svg FILE | --html FILE`: the partition picture
// (partition/plan_picture.h) written beside the report.
#ifndef TESSERA_FRAMEWORK_CLI_PLAN_PICTURE_FILES_H_
#define TESSERA_FRAMEWORK_CLI_PLAN_PICTURE_FILES_H_

#include <string>

#include "absl/status/status.h"
#include "framework/cli/cli_args.h"
#include "tessera/app/tessera_app.hpp"

namespace tessera::cli {

// Adds --svg FILE and --html FILE to a command's flags.
void AddPictureFlags(FlagSpec& spec);

// A usage error text when the picture flags are given wrongly (both at
// once), else "".
std::string PictureFlagsError(const Args& args);

// Writes the picture --svg or --html asks for (nothing when neither is
// given). --svg runs Graphviz `dot`; a missing `dot` is FailedPrecondition
// naming the Debian package.
absl::Status WritePlanPicture(const Args& args, const app::CompiledModel& model);

// Renders DOT text to SVG with `dot -Tsvg` (run through base/helper_process.h:
// found on PATH, or with elevated privileges only at a fixed root-owned
// location with a clean environment; run without a
// shell, in a private temporary directory) and writes it to `path`
// atomically.
absl::Status RenderDotToSvg(const std::string& dot, const std::string& path);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_PLAN_PICTURE_FILES_H_
