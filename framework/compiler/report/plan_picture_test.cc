// The partition picture from a hand-made plan: one cluster per partition
// filled with its vendor's colour, cut edges carrying the bytes the report
// (computed separately) says cross, hostile names escaped, and an HTML page
// that fetches nothing.
#include "framework/compiler/report/plan_picture.h"

#include <algorithm>
#include <regex>
#include <set>

#include "framework/compiler/partition/partitioner.h"
#include "framework/core/model/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kHostile[] = "h<script>&\"1";
constexpr char kHostileEscaped[] = "h&lt;script&gt;&amp;&quot;1";

// x -> op0 -> t0 -> op1 -> t1 -> op2 -> t2; op3 = t0 + t2; op4 = t0 + op3.
// The NPU takes ops 0, 2, 3, 4 and the cpu op 1, so the plan is
// npu{0} | cpu{1} | npu{2,3,4}: t0 crosses into the cpu and (read by two
// ops there) into the last partition, t1 crosses once. Every tensor is
// f32[4], 16 bytes.
CompiledGraph TwoVendorModel(const std::string& npu_vendor) {
  ModelBuilder b("pic<&>");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  const int32_t t0 = b.Op(TSR_OP_RELU, {x}, {}, {.name = kHostile});
  const int32_t t1 = b.Op(TSR_OP_RELU, {t0}, {}, {.name = "t1"});
  const int32_t t2 = b.Op(TSR_OP_RELU, {t1}, {}, {.name = "t2"});
  const int32_t t3 = b.Op(TSR_OP_ADD, {t0, t2}, {}, {.name = "t3"});
  b.Output(b.Op(TSR_OP_ADD, {t0, t3}, {}, {.name = "y"}));
  CompiledGraph m;
  m.source = *std::move(b).Build();
  AcceleratorClaims npu{npu_vendor, {}}, cpu{"cpu", {}};
  for (size_t o = 0; o < m.source.ops.size(); ++o) {
    npu.claims.push_back(o == 1 ? OpClaim{false, TSR_REFUSAL_UNSUPPORTED_OP, "not this one"} : OpClaim{true});
    cpu.claims.push_back(OpClaim{true});
  }
  m.accelerators = {npu_vendor, "cpu"};
  m.plan = *PlanPartitions(m.source, {npu, cpu});
  return m;
}

// Each cluster's text ("subgraph cluster_pN { ... }") by N.
std::vector<std::string> Clusters(const std::string& dot) {
  std::vector<std::string> out;
  const std::regex re("subgraph cluster_p([0-9]+) \\{([^}]*)\\}");
  for (auto it = std::sregex_iterator(dot.begin(), dot.end(), re); it != std::sregex_iterator(); ++it) {
    EXPECT_EQ(std::stoul((*it)[1]), out.size());
    out.push_back((*it)[2]);
  }
  return out;
}

std::string FillOf(const std::string& cluster) {
  std::smatch m;
  return std::regex_search(cluster, m, std::regex("fillcolor=\"(#[0-9a-f]{6})\"")) ? m[1].str() : "";
}

TEST(PlanPicture, DotHasAClusterPerPartitionFilledWithItsVendorsColour) {
  const CompiledGraph m = TwoVendorModel("systolic_npu");
  const PartitionReport r = BuildPartitionReport(m);
  ASSERT_EQ(r.partitions.size(), 3u);
  const std::string dot = PlanPictureDot(m, r);
  const std::vector<std::string> clusters = Clusters(dot);
  ASSERT_EQ(clusters.size(), r.partitions.size()) << dot;
  // The documented colours (docs/cli.md): the accelerator blue, the
  // fallback (last in the priority order) orange.
  for (size_t p = 0; p < clusters.size(); ++p)
    EXPECT_EQ(FillOf(clusters[p]), r.partitions[p].vendor == "cpu" ? "#ffd6a5" : "#8ecae6") << clusters[p];
  // Every op is a node in the cluster of its partition.
  for (const ReportedPartition& p : r.partitions)
    for (uint32_t id : p.op_ids) EXPECT_THAT(clusters[p.index], HasSubstr(absl::StrCat(" #", id, ">")));
}

// The documented role colours (docs/cli.md), written out here rather than
// taken from the function under test.
constexpr char kFirst[] = "#8ecae6", kSecond[] = "#b5e48c", kThird[] = "#cdb4db", kFourth[] = "#ffafcc",
               kFallback[] = "#ffd6a5", kPrecompiled[] = "#d9d9d9";

TEST(PlanPicture, ColoursFollowTheRoleInThePriorityOrderNotTheName) {
  const std::vector<std::string> order = {"acme_npu", "zeta_dsp", "gpu_x", "vpu_y", "host_cpu"};
  EXPECT_EQ(VendorFillColour("acme_npu", order), kFirst);
  EXPECT_EQ(VendorFillColour("zeta_dsp", order), kSecond);
  EXPECT_EQ(VendorFillColour("gpu_x", order), kThird);
  EXPECT_EQ(VendorFillColour("vpu_y", order), kFourth);
  EXPECT_EQ(VendorFillColour("host_cpu", order), kFallback);
  // The same vendors in another order swap colours with their roles.
  const std::vector<std::string> reversed = {"host_cpu", "acme_npu"};
  EXPECT_EQ(VendorFillColour("host_cpu", reversed), kFirst);
  EXPECT_EQ(VendorFillColour("acme_npu", reversed), kFallback);
  // Names the bundled plugins use get no colour of their own.
  EXPECT_EQ(VendorFillColour("cpu", {"cpu", "systolic_npu"}), kFirst);
  EXPECT_EQ(VendorFillColour("systolic_npu", {"cpu", "systolic_npu"}), kFallback);
  EXPECT_EQ(VendorFillColour(kPrecompiledVendor, order), kPrecompiled);
}

TEST(PlanPicture, VendorsOutsideTheListGetAStableColourApartFromTheRoles) {
  const std::vector<std::string> order = {"systolic_npu", "cpu"};
  const std::string acme = VendorFillColour("acme_npu", order);
  EXPECT_EQ(acme, VendorFillColour("acme_npu", {"other", "cpu"}));  // by name, wherever it is drawn
  EXPECT_THAT(acme, ::testing::MatchesRegex("#[0-9a-f]{6}"));
  for (const char* role : {kFirst, kSecond, kThird, kFourth, kFallback, kPrecompiled}) EXPECT_NE(acme, role);
  // A fifth accelerator is drawn like an unlisted vendor.
  const std::vector<std::string> six = {"a", "b", "c", "d", "e", "f"};
  EXPECT_EQ(VendorFillColour("e", six), VendorFillColour("e", {}));
}

TEST(PlanPicture, AnAcceleratorOfAnyNameIsDrawnInTheFirstColour) {
  const CompiledGraph m = TwoVendorModel("acme_npu");
  const PartitionReport r = BuildPartitionReport(m);
  const std::vector<std::string> clusters = Clusters(PlanPictureDot(m, r));
  ASSERT_EQ(clusters.size(), 3u);
  EXPECT_EQ(FillOf(clusters[0]), kFirst);
  EXPECT_EQ(FillOf(clusters[1]), kFallback);
}

TEST(PlanPicture, CutEdgesCarryTheBytesTheReportCounts) {
  const CompiledGraph m = TwoVendorModel("systolic_npu");
  const PartitionReport r = BuildPartitionReport(m);
  const std::string dot = PlanPictureDot(m, r);
  // Worked out by hand (see TwoVendorModel): 3 cuts of 16 bytes, drawn as 4
  // red edges (t0 enters the last partition through two ops, labelled once).
  ASSERT_EQ(r.cuts.size(), 3u);
  EXPECT_EQ(r.cut_bytes, 48u);
  const std::regex edge_re("op[0-9]+ -> op[0-9]+ \\[color=\"#d62728\", penwidth=3[^\\]]*\\]");
  EXPECT_EQ(std::distance(std::sregex_iterator(dot.begin(), dot.end(), edge_re), std::sregex_iterator()), 4) << dot;
  std::multiset<std::pair<std::string, uint64_t>> drawn, reported;
  const std::regex label_re("label=<([0-9]+) B<br/>([^>]*)>");
  for (auto it = std::sregex_iterator(dot.begin(), dot.end(), label_re); it != std::sregex_iterator(); ++it)
    drawn.emplace((*it)[2], std::stoull((*it)[1]));
  for (const ReportedCut& c : r.cuts) reported.emplace(c.tensor == kHostile ? kHostileEscaped : c.tensor, c.bytes);
  EXPECT_EQ(drawn, reported) << dot;
}

TEST(PlanPicture, HostileNamesAreEscapedInDotAndHtml) {
  const CompiledGraph m = TwoVendorModel("systolic_npu");
  const PartitionReport r = BuildPartitionReport(m);
  for (const std::string& text : {PlanPictureDot(m, r), PlanPictureHtml(m, r)}) {
    EXPECT_THAT(text, HasSubstr(kHostileEscaped));
    EXPECT_THAT(text, HasSubstr("pic&lt;&amp;&gt;"));  // the graph's name
    EXPECT_THAT(text, Not(HasSubstr("<script")));
    EXPECT_THAT(text, Not(HasSubstr("&\"")));
  }
}

TEST(PlanPicture, XmlEscapeKeepsUtf8AndMakesControlsAndBadBytesVisible) {
  EXPECT_EQ(XmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(XmlEscape("caf\xc3\xa9 \xe2\x86\x92"), "caf\xc3\xa9 \xe2\x86\x92");  // é →
  EXPECT_EQ(XmlEscape(std::string("a\x1b[2Jb\0c", 8)), "a\\x1b[2Jb\\x00c");
  EXPECT_EQ(XmlEscape("\xff\xc3"), "\\xff\\xc3");           // not UTF-8, truncated
  EXPECT_EQ(XmlEscape("\xc2\x9b"), "\\xc2\\x9b");           // C1 CSI: not allowed in XML text
  EXPECT_EQ(XmlEscape("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
}

TEST(PlanPicture, HtmlIsSelfContainedWithTheGraphAndTheTables) {
  const CompiledGraph m = TwoVendorModel("systolic_npu");
  const PartitionReport r = BuildPartitionReport(m);
  const std::string html = PlanPictureHtml(m, r);
  EXPECT_THAT(html, Not(HasSubstr("http://")));
  EXPECT_THAT(html, Not(HasSubstr("https://")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("url(http")));
  EXPECT_THAT(html, HasSubstr("<svg id=\"plan-graph\""));
  EXPECT_THAT(html, HasSubstr("<table id=\"partitions\">"));
  EXPECT_THAT(html, HasSubstr("<table id=\"cuts\">"));
  // One rect per op; one red line per crossing edge; a label per cut.
  const auto count = [&](const std::string& s) {
    size_t n = 0;
    for (size_t at = html.find(s); at != std::string::npos; at = html.find(s, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("<rect "), m.source.ops.size());
  EXPECT_EQ(count("class=\"edge cut\""), 4u);
  EXPECT_EQ(count("<text class=\"cut-label\""), 3u);
  EXPECT_EQ(count(">16 B<title>"), 3u);
}

TEST(PlanPicture, LayersFollowTheLongestPathFromTheInputs) {
  // The chain op0 -> op1 -> op2 -> op3 -> op4 puts every op in a layer of its
  // own (op3 and op4 also read t0, a shorter path that does not count).
  const CompiledGraph m = TwoVendorModel("systolic_npu");
  const std::string html = PlanPictureHtml(m, BuildPartitionReport(m));
  std::vector<int> ys;
  const std::regex rect_re("<rect x=\"[0-9]+\" y=\"([0-9]+)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), rect_re); it != std::sregex_iterator(); ++it)
    ys.push_back(std::stoi((*it)[1]));
  ASSERT_EQ(ys.size(), 5u);
  EXPECT_TRUE(std::is_sorted(ys.begin(), ys.end()));
  EXPECT_EQ(std::set<int>(ys.begin(), ys.end()).size(), 5u);
}

TEST(PlanPicture, AModelWithoutAPlanIsDrawnWithoutClusters) {
  CompiledGraph m = TwoVendorModel("systolic_npu");
  m.plan = PartitionPlan{};
  const PartitionReport r = BuildPartitionReport(m);
  const std::string dot = PlanPictureDot(m, r);
  EXPECT_TRUE(Clusters(dot).empty());
  EXPECT_THAT(dot, Not(HasSubstr("penwidth=3")));
  EXPECT_THAT(PlanPictureHtml(m, r), HasSubstr("<svg id=\"plan-graph\""));
}

}  // namespace
}  // namespace tessera
