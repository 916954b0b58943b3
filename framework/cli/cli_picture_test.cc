// `tessera partition --html FILE | --svg FILE` on the attention demo (a
// graph the NPU fragments under --policy greedy): the picture is written
// beside an unchanged report, the page fetches nothing, and a missing
// Graphviz or a bad flag combination is a clear error, and names from a
// hostile model reach the page and the SVG escaped.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "framework/core/model/model_builder.h"
#include "framework/core/model/model_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "tessera/ops.h"
#include "testing/cli_test_util.h"
#include "testing/setuid_cli_copy_for_test.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// An output path in a fresh temp name, removed afterwards.
class OutputFile {
 public:
  explicit OutputFile(const std::string& ext) : path_(base_.path() + ext) {}
  ~OutputFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  TempFile base_;
  std::string path_;
};

class CliPicture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    model_ = new OutputFile(".tsr");
    const Result saved = Tessera("demo --model attention --accelerators cpu --save-model " + model_->path());
    ASSERT_EQ(saved.exit_code, 0) << saved.output;
  }
  static void TearDownTestSuite() { delete model_; }
  static Result Partition(const std::string& flags) {
    return Tessera("partition " + model_->path() + " --accelerators npu,cpu --soc ref-phone --policy greedy " + flags);
  }
  static OutputFile* model_;
};
OutputFile* CliPicture::model_ = nullptr;

TEST_F(CliPicture, HtmlIsWrittenBesideAnUnchangedReport) {
  OutputFile html(".html");
  const Result plain = Partition("");
  const Result pictured = Partition("--html " + html.path());
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  ASSERT_EQ(pictured.exit_code, 0) << pictured.output;
  EXPECT_EQ(pictured.output, plain.output);
  const std::string page = ReadFile(html.path());
  EXPECT_THAT(page, HasSubstr("<svg id=\"plan-graph\""));
  EXPECT_THAT(page, HasSubstr("<table id=\"partitions\">"));
  // Self-contained: nothing to fetch, nothing to run.
  EXPECT_THAT(page, Not(HasSubstr("http://")));
  EXPECT_THAT(page, Not(HasSubstr("https://")));
  EXPECT_THAT(page, Not(HasSubstr("<script")));
  // As many partition rows and cut labels as the text report counts.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(plain.output, m, std::regex("-> ([0-9]+) partitions, ([0-9]+) cuts")));
  const size_t partitions = std::stoul(m[1]), cuts = std::stoul(m[2]);
  EXPECT_GT(cuts, 0u);  // greedy fragments this graph: there is something to mark
  const size_t table = page.find("<table id=\"partitions\">"), end = page.find("</table>", table);
  EXPECT_EQ(Count(page.substr(table, end - table), "<tr><td>"), partitions);
  EXPECT_EQ(Count(page, "<text class=\"cut-label\""), cuts);
}

TEST_F(CliPicture, JsonReportIsUnchangedByThePicture) {
  OutputFile html(".html");
  const Result r = Partition("--json --html " + html.path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // One JSON object on stdout, nothing else.
  EXPECT_EQ(r.output.front(), '{');
  EXPECT_EQ(Count(r.output, "\n"), 1u);
  EXPECT_THAT(r.output, HasSubstr("\"policy\":\"greedy\""));
}

bool HaveDot() { return std::system("command -v dot >/dev/null 2>&1") == 0; }

TEST_F(CliPicture, SvgIsRenderedByGraphviz) {
  if (!HaveDot()) GTEST_SKIP() << "Graphviz `dot` is not installed (Debian package graphviz)";
  OutputFile svg(".svg");
  const Result r = Partition("--svg " + svg.path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = ReadFile(svg.path());
  EXPECT_TRUE(text.rfind("<?xml", 0) == 0 || text.rfind("<svg", 0) == 0) << text.substr(0, 200);
  EXPECT_THAT(text, HasSubstr("cluster_p0"));  // dot keeps cluster names as ids
}

TEST_F(CliPicture, MissingDotIsAClearErrorNamingThePackage) {
  // A PATH with no `dot` on it; the binary is run by absolute path.
  const char* old = std::getenv("PATH");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("PATH", "/nonexistent-tessera-test", 1);
  OutputFile svg(".svg");
  const Result r = Partition("--svg " + svg.path());
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("graphviz"));
  EXPECT_THAT(r.output, HasSubstr("--html"));
  EXPECT_TRUE(ReadFile(svg.path()).empty());
}

// The real thing: a setuid copy of the CLI (owned by nobody, started by
// root: AT_SECURE) asked for --svg with an attacker's `dot` first on PATH
// and TMPDIR aimed at the attacker's directory. Their dot never runs and
// nothing is made in their directory; either a root-owned system dot draws
// the picture or the command refuses, saying why. The control run, without
// the setuid bits, does run the attacker's dot. Needs root and a file
// system that keeps the setuid bit; skipped otherwise.
TEST_F(CliPicture, SetuidCliNeverRunsDotFromTheCallersPathNorUsesTheirTmpdir) {
  if (std::string why = WhySetuidCopyIsUnavailable(); !why.empty()) GTEST_SKIP() << why;
  namespace fs = std::filesystem;
  const SetuidCliCopy copy("tessera_setuid_dot_test");
  ASSERT_TRUE(copy.ok());
  const fs::path evil = copy.dir() / "evil", out = copy.dir() / "out", model = copy.dir() / "model.tsr";
  fs::create_directories(evil);
  fs::create_directories(out);
  const fs::path marker = evil / "dot_ran";
  std::ofstream(evil / "dot") << "#!/bin/sh\ntouch '" << marker.string() << "'\n";
  fs::copy_file(model_->path(), model);
  // The copy runs as nobody: it must read the model and write the output;
  // the attacker's directory is theirs (writable by all here).
  for (const fs::path& p : {evil / "dot", model}) ASSERT_EQ(::chmod(p.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(out.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(evil.c_str(), 0777), 0);
  const std::string cmd = "PATH=" + evil.string() + ":/usr/bin:/bin TMPDIR=" + evil.string() + " " +
                          copy.binary().string() + " partition " + model.string() + " --plugin-dir " +
                          std::getenv("TESSERA_BUILD_DIR") + "/lib --accelerators npu,cpu --policy greedy --svg " +
                          (out / "plan.svg").string();

  // Control: without the setuid bits the attacker's dot (first on PATH) runs.
  const Result plain = RunShellCommand(cmd);
  EXPECT_TRUE(fs::exists(marker)) << plain.output;
  fs::remove(marker);

  if (!copy.MakeSetuid()) GTEST_SKIP() << "the file system dropped the setuid bit";
  const Result secure = RunShellCommand(cmd);
  EXPECT_FALSE(fs::exists(marker)) << secure.output;
  size_t in_evil = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(evil)) in_evil += e.path().filename() != "dot";
  EXPECT_EQ(in_evil, 0u) << "a temporary was made in the caller's TMPDIR";
  if (secure.exit_code == 0) {
    EXPECT_TRUE(fs::exists(out / "plan.svg")) << "a trusted system dot drew the picture";
  } else {
    EXPECT_THAT(secure.output, HasSubstr("elevated privileges")) << secure.output;
  }
}

TEST_F(CliPicture, SvgAndHtmlExcludeEachOther) {
  const Result r = Partition("--svg a.svg --html a.html");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("exclude each other"));
}

TEST_F(CliPicture, AnUnwritablePathIsAnError) {
  const Result r = Partition("--html /nonexistent-tessera-dir/plan.html");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("/nonexistent-tessera-dir/plan.html"));
}

TEST(CliPictureHostile, NamesFromTheModelAreEscapedAndGraphvizAcceptsThem) {
  // relu -> sin -> relu: the NPU refuses SIN, so both hostile tensors cross
  // a cut and reach edge labels. Names carry markup, a control byte and a
  // byte that is not UTF-8.
  ModelBuilder b("evil</title><script>");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  const int32_t a = b.Op(TSR_OP_RELU, {x}, {}, {.name = "a<script>&\"\x1b[2J"});
  const int32_t s = b.Op(TSR_OP_SIN, {a}, {}, {.name = "s</svg>\xff"});
  b.Output(b.Op(TSR_OP_RELU, {s}, {}, {.name = "y"}));
  absl::StatusOr<Graph> g = std::move(b).Build();
  ASSERT_TRUE(g.ok()) << g.status();
  OutputFile model(".tsr"), html(".html"), svg(".svg");
  ASSERT_TRUE(WriteModelFile(*g, model.path()).ok());
  const std::string partition = "partition " + model.path() + " --accelerators npu,cpu --policy greedy ";
  const Result r = Tessera(partition + "--html " + html.path());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string page = ReadFile(html.path());
  EXPECT_THAT(page, HasSubstr("a&lt;script&gt;&amp;&quot;\\x1b[2J"));
  EXPECT_THAT(page, HasSubstr("s&lt;/svg&gt;\\xff"));
  EXPECT_THAT(page, Not(HasSubstr("<script")));
  EXPECT_EQ(Count(page, "</svg>"), 1u);  // only the picture's own
  EXPECT_EQ(Count(page, "<text class=\"cut-label\""), 2u);
  if (!HaveDot()) GTEST_SKIP() << "Graphviz `dot` is not installed (Debian package graphviz)";
  const Result d = Tessera(partition + "--svg " + svg.path());
  ASSERT_EQ(d.exit_code, 0) << d.output;
  const std::string text = ReadFile(svg.path());
  EXPECT_THAT(text, HasSubstr("a&lt;script&gt;&amp;&quot;"));
  EXPECT_THAT(text, Not(HasSubstr("<script")));
}

}  // namespace
}  // namespace tessera
