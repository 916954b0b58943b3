// A model's build stamp as `tessera inspect` prints it (docs/cli.md):
// one JSON value (`build_stamp`, null when the model has none) or text lines.
#ifndef TESSERA_FRAMEWORK_CLI_BUILD_STAMP_REPORT_H_
#define TESSERA_FRAMEWORK_CLI_BUILD_STAMP_REPORT_H_

#include <string>

#include "framework/core/base/json_writer.h"
#include "tessera/app/model_summary.hpp"

namespace tessera::cli {

void WriteBuildStampJson(const app::ModelSummary::BuildStamp& stamp, JsonWriter& j);
// "" when the model has no stamp; names from the file are made TerminalSafe.
std::string FormatBuildStamp(const app::ModelSummary::BuildStamp& stamp);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_BUILD_STAMP_REPORT_H_
