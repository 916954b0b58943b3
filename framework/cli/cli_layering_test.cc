// The CLI is an app of the app API (tessera/app/*.hpp): its commands load,
// compile, run and report through it, and reach nothing of the framework,
// the runtime or the plugin host directly. This test reads the CLI's own
// sources and checks every #include "..." against what each kind of file
// may use, so a command that starts calling the internals fails here.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {
namespace fs = std::filesystem;

// Quoted includes of a source text, in order.
std::vector<std::string> QuotedIncludes(const std::string& text) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s*"([^"]+)")re", std::regex::multiline);
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kInclude); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

bool Allowed(const std::string& include, const std::vector<std::string>& prefixes) {
  for (const std::string& p : prefixes)
    if (StartsWith(include, p)) return true;
  return false;
}

// What every CLI file may include: the app API, the CLI's own files, abseil,
// the SDK's common types, and the text utilities of base/.
const std::vector<std::string> kEveryFile = {
    "tessera/app/", "tessera/common.h", "cli/", "absl/", "gtest/", "gmock/",
    "base/json_writer.h", "base/terminal_text.h", "base/status_macros.h", "base/dtype.h", "base/element_value.h",
    "base/atomic_file.h", "base/exception_boundary.h",
};
// Turning flags into app options reuses the importer's flag parsers, the
// budget parser and the install layout, so that flag syntax and messages are
// the same everywhere.
const std::vector<std::string> kFlagParsing = {"base/install_layout.h", "base/budgets.h", "onnx/onnx_importer.h",
                                               "plugin_host/soc_selection.h"};
// The demo models are built in code with the model builder, then handed
// to the app as .tsr bytes.
const std::vector<std::string> kModelContent = {"model/model_builder.h", "model/model_writer.h", "graph/", "tessera/ops.h"};

// onnx-test judges outputs with the conformance judge (its own unit-tested
// piece, shared with the conformance suite), over host tensors.
const std::vector<std::string> kJudge = {"io/output_comparison.h", "graph/host_tensor.h"};

std::vector<std::string> AllowedFor(const std::string& file) {
  std::vector<std::string> allowed = kEveryFile;
  auto add = [&](const std::vector<std::string>& more) { allowed.insert(allowed.end(), more.begin(), more.end()); };
  if (StartsWith(file, "cli_environment.") || StartsWith(file, "app_flags.")) add(kFlagParsing);
  if (StartsWith(file, "cmd_onnx_backend.")) add(kJudge);
  // The binary's own process setup: its allocator policy (a process's
  // choice, which the library never makes).
  if (StartsWith(file, "main.")) add({"base/process_allocator.h"});
  if (StartsWith(file, "demo_model.") || StartsWith(file, "fragmenting_models.")) add(kModelContent);
  return allowed;
}

// "file: include" for every include a file may not have.
std::vector<std::string> Violations(const std::string& file, const std::string& text) {
  std::vector<std::string> out;
  const std::vector<std::string> allowed = AllowedFor(file);
  for (const std::string& include : QuotedIncludes(text))
    if (!Allowed(include, allowed)) out.push_back(file + ": " + include);
  return out;
}

TEST(CliLayering, TheCheckSeesAnInternalInclude) {
  // The scanner itself, on texts whose answer is known.
  EXPECT_THAT(Violations("cmd_run.cc", "#include \"compile/compile_driver.h\"\n#include \"cli/app_flags.h\"\n"),
              ::testing::ElementsAre("cmd_run.cc: compile/compile_driver.h"));
  EXPECT_THAT(Violations("cmd_run.cc", "  #  include \"run_context.h\"\n"), ::testing::ElementsAre("cmd_run.cc: run_context.h"));
  EXPECT_THAT(Violations("cmd_run.cc", "#include <vector>\n#include \"tessera/app/tessera.hpp\"\n"), ::testing::IsEmpty());
  // Flag parsing may use the importer's parsers; a command may not.
  EXPECT_THAT(Violations("app_flags.cc", "#include \"onnx/onnx_importer.h\"\n"), ::testing::IsEmpty());
  EXPECT_THAT(Violations("cmd_import.cc", "#include \"onnx/onnx_importer.h\"\n"),
              ::testing::ElementsAre("cmd_import.cc: onnx/onnx_importer.h"));
}

TEST(CliLayering, EveryCommandGoesThroughTheAppApi) {
  const fs::path dir = fs::path(TSR_SOURCE_DIR) / "framework" / "cli";
  std::vector<std::string> violations;
  int files = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    const bool source = e.path().extension() == ".cc" || e.path().extension() == ".h";
    // Tests build models and poke at internals on purpose; they are not the CLI.
    if (!source || name.find("_test") != std::string::npos) continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    for (std::string& v : Violations(name, text.str())) violations.push_back(std::move(v));
    ++files;
  }
  EXPECT_GE(files, 20) << "the CLI's sources were not found in " << dir;
  EXPECT_THAT(violations, ::testing::IsEmpty());
}

}  // namespace
