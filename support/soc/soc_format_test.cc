#include "support/soc/soc_format.h"

#include <chrono>
#include <string>

#include "gtest/gtest.h"

namespace tessera::kit {
namespace {

IniDocument Doc(std::string_view text) {
  absl::StatusOr<IniDocument> doc = ParseIni(text);
  EXPECT_TRUE(doc.ok()) << doc.status();
  return doc.ok() ? *doc : IniDocument{};
}

TEST(SocFormat, DispatchSectionsGiveOverheadAndMemoryPerVendor) {
  const IniDocument doc =
      Doc("[dispatch.systolic_npu]\noverhead_us = 25\nmemory = device_dram\n"
          "[dispatch.cpu]\noverhead_us = 0.5\nmemory = host\n");
  absl::StatusOr<DispatchTable> table = ParseDispatchSections(doc);
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_EQ(table->size(), 2u);
  EXPECT_DOUBLE_EQ(table->at("systolic_npu").overhead_us, 25);
  EXPECT_EQ(table->at("systolic_npu").memory, "device_dram");
  EXPECT_DOUBLE_EQ(table->at("cpu").overhead_us, 0.5);
  EXPECT_EQ(table->at("cpu").memory, "host");
}

TEST(SocFormat, DispatchSectionErrorsNameTheLine) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"[dispatch.npu]\noverhead_us = 1\nmemory = sram\n", "line 3: [dispatch.npu] memory = 'sram' (want one of"},
      {"[dispatch.npu]\noverhead_us = -1\nmemory = host\n", "line 2: [dispatch.npu] overhead_us = -1 is out of range"},
      {"[dispatch.npu]\nmemory = host\n", "line 1: section [dispatch.npu] is missing key 'overhead_us'"},
      {"[dispatch.npu]\noverhead_us = 1\nmemory = host\nover_head = 2\n",
       "line 4: unknown key 'over_head' in [dispatch.npu]"},
      {"[dispatch.a.b]\noverhead_us = 1\nmemory = host\n",
       "line 1: dispatch section [dispatch.a.b] must be [dispatch.<vendor>]"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<DispatchTable> table = ParseDispatchSections(Doc(c.text));
    ASSERT_FALSE(table.ok()) << c.text;
    EXPECT_NE(table.status().message().find(c.message), std::string::npos) << table.status();
  }
}

TEST(SocFormat, TransferSectionsKeyedByMemoryPair) {
  absl::StatusOr<TransferTable> table =
      ParseTransferSections(Doc("[transfer.host.device_dram]\nbandwidth_gbps = 20\nlatency_us = 2\n"));
  ASSERT_TRUE(table.ok()) << table.status();
  const TransferLink& link = table->at({"host", "device_dram"});
  EXPECT_DOUBLE_EQ(link.bandwidth_gbps, 20);
  EXPECT_DOUBLE_EQ(link.latency_us, 2);
  EXPECT_FALSE(ParseTransferSections(Doc("[transfer.host]\nbandwidth_gbps = 1\nlatency_us = 1\n")).ok());
}

TEST(SocFormat, CpuSectionIsOptionalButCompleteWhenPresent) {
  absl::StatusOr<CpuSection> none = ParseCpuSection(Doc("[soc]\nname = x\n"));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->present);
  absl::StatusOr<CpuSection> cpu = ParseCpuSection(Doc("[cpu]\ngflops_f32 = 150\ngops_int8 = 600\nthreads = 8\n"));
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_TRUE(cpu->present);
  EXPECT_DOUBLE_EQ(cpu->model.gflops_f32, 150);
  EXPECT_EQ(cpu->model.threads, 8);
  EXPECT_FALSE(ParseCpuSection(Doc("[cpu]\ngflops_f32 = 150\n")).ok());
}

TEST(SocFormat, CpuEfficienciesAreOptionalPerClassAndChecked) {
  constexpr char kRates[] = "[cpu]\ngflops_f32 = 150\ngops_int8 = 600\nthreads = 8\n";
  absl::StatusOr<CpuSection> flat = ParseCpuSection(Doc(kRates));
  ASSERT_TRUE(flat.ok()) << flat.status();
  for (double e : flat->model.efficiency) EXPECT_DOUBLE_EQ(e, 1);  // every class at the GEMM rate
  absl::StatusOr<CpuSection> cpu =
      ParseCpuSection(Doc(std::string(kRates) + "efficiency_depthwise = 0.25\nefficiency_data_movement = 0.5\n"));
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  ASSERT_EQ(CpuOpClassNames().size(), kCpuOpClassCount);
  EXPECT_EQ(CpuOpClassNames()[1], "depthwise");
  EXPECT_EQ(CpuOpClassNames()[4], "data_movement");
  EXPECT_DOUBLE_EQ(cpu->model.efficiency[0], 1);
  EXPECT_DOUBLE_EQ(cpu->model.efficiency[1], 0.25);
  EXPECT_DOUBLE_EQ(cpu->model.efficiency[4], 0.5);
  absl::StatusOr<CpuSection> typo = ParseCpuSection(Doc(std::string(kRates) + "efficiency_depthwize = 0.25\n"));
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("line 5"), std::string::npos) << typo.status();
  EXPECT_FALSE(ParseCpuSection(Doc(std::string(kRates) + "efficiency_gemm = 2\n")).ok());  // above the GEMM rate
  EXPECT_FALSE(ParseCpuSection(Doc(std::string(kRates) + "efficiency_gemm = 0\n")).ok());
}

// The duplicate-section check is linear: 30k distinct sections parse in
// well under a second (a scan of the sections seen made 40k take 17 s), and
// a duplicate among them is still named with its line.
TEST(SocFormat, ManySectionsParseInLinearTimeAndADuplicateIsStillFound) {
  constexpr int kSections = 30'000;
  std::string text;
  for (int i = 0; i < kSections; ++i) text += "[s" + std::to_string(i) + "]\nk = 1\n";
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<IniDocument> doc = ParseIni(text);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(doc.ok()) << doc.status();
  EXPECT_EQ(doc->sections.size(), static_cast<size_t>(kSections));
  EXPECT_LT(seconds, 2.0);  // linear: ~0.1 s; the old scan ~10 s
  absl::StatusOr<IniDocument> dup = ParseIni(text + "[s123]\n");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().message(), "soc: line " + std::to_string(2 * kSections + 1) + ": duplicate section [s123]");
}

}  // namespace
}  // namespace tessera::kit
