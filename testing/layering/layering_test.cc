// The layer rule of docs/architecture.md, enforced. The table of folders and
// what each may include is read from that page (between its
// layering-table markers), so the page and this check are one table. Every
// quoted #include of every source file in the repository, production and
// test, must be rooted and must land in the including file's own folder or
// in one its row allows.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {
namespace fs = std::filesystem;

const fs::path kRoot = TSR_SOURCE_DIR;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// One row of the table: a folder and the roots it may include besides itself.
struct LayerRow {
  std::string folder;                // "framework/core/"
  std::vector<std::string> allowed;  // "api/", "framework/compiler/onnx/onnx_importer.h"
};

// The rows between <!-- layering-table:begin --> and <!-- layering-table:end -->:
// a markdown table whose first column is the folder and whose third lists
// the allowed roots, each in backquotes.
std::vector<LayerRow> ParseLayerTable(const std::string& markdown) {
  std::vector<LayerRow> rows;
  const size_t begin = markdown.find("<!-- layering-table:begin -->");
  const size_t end = markdown.find("<!-- layering-table:end -->");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return rows;
  std::istringstream lines(markdown.substr(begin, end - begin));
  static const std::regex kCode("`([^`]+)`");
  for (std::string line; std::getline(lines, line);) {
    if (!StartsWith(line, "| `")) continue;
    std::vector<std::string> cells;
    std::stringstream cell_stream(line.substr(1));
    for (std::string cell; std::getline(cell_stream, cell, '|');) cells.push_back(cell);
    if (cells.size() < 3) continue;
    std::smatch folder;
    if (!std::regex_search(cells[0], folder, kCode)) continue;
    LayerRow row{folder[1], {}};
    for (auto it = std::sregex_iterator(cells[2].begin(), cells[2].end(), kCode); it != std::sregex_iterator(); ++it)
      row.allowed.push_back((*it)[1]);
    rows.push_back(std::move(row));
  }
  return rows;
}

// The row a file belongs to: the longest folder that contains it.
const LayerRow* RowFor(const std::vector<LayerRow>& rows, const std::string& file) {
  const LayerRow* best = nullptr;
  for (const LayerRow& row : rows)
    if (StartsWith(file, row.folder) && (best == nullptr || row.folder.size() > best->folder.size())) best = &row;
  return best;
}

bool IsTestFile(const std::string& file) {
  const std::string name = fs::path(file).filename().string();
  return name.find("_test.") != std::string::npos || name.find("test_util") != std::string::npos ||
         name.find("_for_test.h") != std::string::npos;
}

const std::set<std::string> kTopFolders = {"api",     "support",     "plugins", "framework", "dispatch",
                                           "testing", "conformance", "samples", "bench",     "fuzz"};

// Where a quoted include lands in the repository, "" if it names no file of
// ours (a third-party header). The installed public headers keep their
// installed spelling.
std::string RepoPathOf(const std::string& include, const std::set<std::string>& files) {
  if (StartsWith(include, "tessera/app/")) return "framework/app/include/" + include;
  if (StartsWith(include, "tessera/")) return "api/" + include;
  if (files.count(include)) return include;
  // A generated header belongs where its source is: flatc writes
  // X_generated.h from X.fbs into the build tree, at the same path.
  const std::string kGenerated = "_generated.h";
  if (include.size() > kGenerated.size() && include.ends_with(kGenerated)) {
    const std::string schema = include.substr(0, include.size() - kGenerated.size()) + ".fbs";
    if (files.count(schema)) return schema;
  }
  return "";
}

std::vector<std::string> QuotedIncludes(const std::string& text) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s*"([^"]+)")re", std::regex::multiline);
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kInclude); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

// "file: include (why)" for every include of `text` the table forbids.
std::vector<std::string> Violations(const std::vector<LayerRow>& rows, const std::set<std::string>& files,
                                    const std::string& file, const std::string& text) {
  std::vector<std::string> out;
  const LayerRow* row = RowFor(rows, file);
  if (row == nullptr) return {file + ": (no row of the layer table holds this file)"};
  const std::string own_dir = fs::path(file).parent_path().string();
  for (const std::string& include : QuotedIncludes(text)) {
    const std::string target = RepoPathOf(include, files);
    if (target.empty()) {
      // Not a repository path: third-party, unless it is one of our files
      // spelled relative to the including folder.
      if (files.count(own_dir + "/" + include)) out.push_back(file + ": " + include + " (not rooted)");
      const std::string top = include.substr(0, include.find('/'));
      if (include.find('/') != std::string::npos && kTopFolders.count(top))
        out.push_back(file + ": " + include + " (no such file)");
      continue;
    }
    if (StartsWith(target, row->folder)) continue;
    bool allowed = IsTestFile(file) && (StartsWith(target, "testing/") || StartsWith(target, "plugins/kit/"));
    for (const std::string& root : row->allowed) allowed = allowed || StartsWith(target, root);
    if (!allowed) out.push_back(file + ": " + include + " (" + row->folder + " may not include it)");
  }
  return out;
}

bool IsSource(const fs::path& path) {
  static const std::set<std::string> kExtensions = {".h", ".hpp", ".cc", ".cpp", ".c", ".inc", ".in", ".fbs"};
  return kExtensions.count(path.extension().string()) > 0;
}

// Every tracked-looking source file under the layered folders, relative to
// the root. Build trees and the frozen header snapshots are skipped: the
// snapshots are released bytes, judged by their checksums instead.
std::vector<std::string> SourceFiles() {
  std::vector<std::string> out;
  for (const std::string& top : kTopFolders) {
    for (auto it = fs::recursive_directory_iterator(kRoot / top); it != fs::recursive_directory_iterator(); ++it) {
      const std::string rel = fs::relative(it->path(), kRoot).string();
      if (it->is_directory() && (rel == "api/testdata" || rel.find("build") != std::string::npos ||
                                 rel.find("node_modules") != std::string::npos)) {
        it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file() && IsSource(it->path())) out.push_back(rel);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

class Layering : public ::testing::Test {
 protected:
  void SetUp() override {
    rows_ = ParseLayerTable(ReadText(kRoot / "docs" / "architecture.md"));
    for (const std::string& f : SourceFiles()) files_.insert(f);
  }
  std::vector<std::string> Check(const std::string& file, const std::string& text) const {
    return Violations(rows_, files_, file, text);
  }
  std::vector<LayerRow> rows_;
  std::set<std::string> files_;
};

TEST_F(Layering, TheTableIsReadFromTheArchitecturePage) {
  ASSERT_EQ(rows_.size(), 23u);
  const LayerRow* runtime = RowFor(rows_, "dispatch/loaded_model.cc");
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(runtime->folder, "dispatch/");
  EXPECT_THAT(runtime->allowed, ::testing::ElementsAre("api/", "support/", "framework/core/", "framework/loader/"));
  EXPECT_THAT(RowFor(rows_, "api/tessera/common.h")->allowed, ::testing::IsEmpty());
  // The longest folder wins: the app's public headers have a row of their own.
  EXPECT_EQ(RowFor(rows_, "framework/app/include/tessera/app/tessera_app.h")->folder, "framework/app/include/");
}

// The check itself, on planted includes whose answer is known: for every
// row, an include of a folder the row does not list fails, and one it does
// list passes.
TEST_F(Layering, APlantedWrongWayIncludeFailsInEveryFolder) {
  const std::vector<std::pair<std::string, std::string>> tops = {
      {"api/", "api/tessera/common.h"},
      {"support/", "support/math/checked_math.h"},
      {"plugins/kit/", "plugins/kit/claims.h"},
      {"framework/core/", "framework/core/graph/graph.h"},
      {"framework/loader/", "framework/loader/plugin_registry.h"},
      {"dispatch/", "dispatch/loaded_model.h"},
      {"framework/compiler/claims/", "framework/compiler/claims/compiler_instance.h"},
      {"framework/compiler/partition/", "framework/compiler/partition/partitioner.h"},
      {"framework/compiler/compile/", "framework/compiler/compile/compile_driver.h"},
      {"framework/compiler/onnx/", "framework/compiler/onnx/onnx_importer.h"},
      {"framework/app/", "framework/app/app_internal.h"},
      {"framework/cli/", "framework/cli/cli_args.h"},
      {"testing/", "testing/cli_test_util.h"},
  };
  int planted = 0;
  for (const LayerRow& row : rows_) {
    const std::string file = row.folder + "planted.cc";
    for (const auto& [root, header] : tops) {
      ASSERT_TRUE(files_.count(header)) << header;
      bool may = StartsWith(header, row.folder);
      for (const std::string& a : row.allowed) may = may || StartsWith(header, a);
      const std::string include = StartsWith(header, "api/") ? header.substr(4) : header;
      const std::vector<std::string> found = Check(file, "#include \"" + include + "\"\n");
      if (may) {
        EXPECT_THAT(found, ::testing::IsEmpty()) << file << " includes " << include;
      } else {
        EXPECT_THAT(found, ::testing::SizeIs(1)) << file << " includes " << include;
        ++planted;
      }
    }
  }
  EXPECT_GE(planted, 80);
}

TEST_F(Layering, TheRulesReadAsTheArchitecturePageSays) {
  // The runtime never sees the compiler; the compiler may see the runtime.
  EXPECT_THAT(Check("dispatch/x.cc", "#include \"framework/compiler/compile/compile_driver.h\"\n"),
              ::testing::SizeIs(1));
  EXPECT_THAT(Check("framework/compiler/compile/x.cc", "#include \"dispatch/loaded_model.h\"\n"), ::testing::IsEmpty());
  // Inside the compiler: partitioning sees claims, never the compile driver.
  EXPECT_THAT(Check("framework/compiler/partition/x.h", "#include \"framework/compiler/claims/compiler_instance.h\"\n"),
              ::testing::IsEmpty());
  EXPECT_THAT(Check("framework/compiler/partition/x.h", "#include \"framework/compiler/compile/compiled_model.h\"\n"),
              ::testing::SizeIs(1));
  // A plugin never sees the framework or the runtime, however it spells it.
  EXPECT_THAT(Check("plugins/cpu/dispatch/x.cc", "#include \"framework/core/graph/graph.h\"\n"), ::testing::SizeIs(1));
  EXPECT_THAT(Check("plugins/cpu/dispatch/x.cc", "#include \"plugins/systolic_npu/machine/isa.h\"\n"),
              ::testing::SizeIs(1));
  EXPECT_THAT(Check("plugins/cpu/dispatch/x.cc", "#include \"tessera/dispatch.h\"\n#include <vector>\n"),
              ::testing::IsEmpty());
  // The app's public headers see only the ABI's.
  EXPECT_THAT(Check("framework/app/include/tessera/app/x.hpp", "#include \"framework/core/base/dtype.h\"\n"),
              ::testing::SizeIs(1));
  // The CLI reaches the importer's flag parsers and nothing else of the compiler.
  EXPECT_THAT(Check("framework/cli/x.cc", "#include \"framework/compiler/onnx/onnx_importer.h\"\n"),
              ::testing::IsEmpty());
  EXPECT_THAT(Check("framework/cli/x.cc", "#include \"framework/compiler/onnx/constant_folding.h\"\n"),
              ::testing::SizeIs(1));
  // Test files, and only test files, may include testing/.
  EXPECT_THAT(Check("dispatch/x_test.cc", "#include \"testing/cli_test_util.h\"\n"), ::testing::IsEmpty());
  EXPECT_THAT(Check("dispatch/x.cc", "#include \"testing/cli_test_util.h\"\n"), ::testing::SizeIs(1));
  // An include of one of our files that is not rooted is refused; a
  // third-party header is not ours to judge.
  EXPECT_THAT(Check("dispatch/x.cc", "#include \"loaded_model.h\"\n"),
              ::testing::ElementsAre("dispatch/x.cc: loaded_model.h (not rooted)"));
  EXPECT_THAT(Check("dispatch/x.cc", "#include \"absl/status/status.h\"\n"), ::testing::IsEmpty());
  // A generated header is judged where its source is.
  EXPECT_THAT(Check("framework/core/model/x.cc", "#include \"framework/core/schema/tessera_model_generated.h\"\n"),
              ::testing::IsEmpty());
  EXPECT_THAT(Check("plugins/cpu/x.cc", "#include \"framework/core/schema/tessera_model_generated.h\"\n"),
              ::testing::SizeIs(1));
  EXPECT_THAT(Check("dispatch/x.cc", "#include \"dispatch/no_such_header.h\"\n"),
              ::testing::ElementsAre("dispatch/x.cc: dispatch/no_such_header.h (no such file)"));
  // A file in no row is a finding too.
  EXPECT_THAT(Check("newtop/x.cc", ""), ::testing::SizeIs(1));
}

TEST_F(Layering, EveryIncludeInTheRepositoryFollowsTheTable) {
  std::vector<std::string> violations;
  for (const std::string& file : files_)
    for (std::string& v : Check(file, ReadText(kRoot / file))) violations.push_back(std::move(v));
  EXPECT_GE(files_.size(), 600u) << "the sources were not found under " << kRoot;
  EXPECT_THAT(violations, ::testing::IsEmpty());
}

}  // namespace
