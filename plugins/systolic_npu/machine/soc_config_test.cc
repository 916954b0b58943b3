#include "plugins/systolic_npu/machine/soc_config.h"

#include <random>
#include <string>

#include <gtest/gtest.h>

namespace tessera::systolic {
namespace {

std::string SocPath(const std::string& name) {
  std::string here = __FILE__;
  return here.substr(0, here.rfind("/plugins/")) + "/socs/" + name + ".soc";
}

TEST(SocConfig, ReferenceFilesParse) {
  struct Want {
    const char* name;
    int64_t rows;
    int64_t sram_kib;
  };
  for (Want w : {Want{"ref-edge", 8, 256}, Want{"ref-phone", 32, 2048}, Want{"ref-server", 128, 24576}}) {
    auto cfg = LoadSocConfigFile(SocPath(w.name));
    ASSERT_TRUE(cfg.ok()) << cfg.status();
    EXPECT_EQ(cfg->name, w.name);
    EXPECT_EQ(cfg->npu.array_rows, w.rows);
    EXPECT_EQ(cfg->npu.array_cols, w.rows);
    EXPECT_EQ(cfg->npu.sram_input_kib + cfg->npu.sram_weight_kib + cfg->npu.sram_accum_kib, w.sram_kib);
    EXPECT_EQ(cfg->npu.default_dataflow, Dataflow::kWeightStationary);
    EXPECT_TRUE(cfg->has_cpu);
    EXPECT_TRUE(cfg->has_mock_dsp);
    EXPECT_EQ(cfg->transfers.size(), 6u);
    EXPECT_TRUE(cfg->transfers.count({"host", "device_dram"}));
    EXPECT_TRUE(cfg->transfers.count({"dsp_tcm", "device_dram"}));
    // The built-in copy is the same file.
    auto builtin = BuiltinSocConfig(w.name);
    ASSERT_TRUE(builtin.ok());
    EXPECT_EQ(builtin->npu.clock_mhz, cfg->npu.clock_mhz);
    EXPECT_EQ(builtin->description, cfg->description);
  }
  EXPECT_FALSE(BuiltinSocConfig("ref-watch").ok());
}

std::string Minimal(const std::string& npu_extra = "", const std::string& drop = "") {
  std::string npu =
      "array_rows = 4\narray_cols = 4\nclock_mhz = 500\nsram_input_kib = 4\n"
      "sram_weight_kib = 4\nsram_accum_kib = 4\ndram_bandwidth_gbps = 1.5\n"
      "dram_latency_cycles = 10\nvector_width = 4\ndefault_dataflow = os\n";
  if (!drop.empty()) {
    size_t at = npu.find(drop);
    npu.erase(at, npu.find('\n', at) - at + 1);
  }
  return "# test\n[soc]\nname = tiny\n\n[systolic_npu]\n" + npu + npu_extra;
}

TEST(SocConfig, MinimalParses) {
  auto cfg = ParseSocConfig(Minimal());
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->npu.default_dataflow, Dataflow::kOutputStationary);
  EXPECT_DOUBLE_EQ(cfg->npu.dram_bandwidth_gbps, 1.5);
  EXPECT_FALSE(cfg->has_cpu);
}

void ExpectError(const std::string& text, const std::string& fragment) {
  auto cfg = ParseSocConfig(text);
  ASSERT_FALSE(cfg.ok()) << text;
  EXPECT_NE(std::string(cfg.status().message()).find(fragment), std::string::npos) << cfg.status().message();
}

TEST(SocConfig, ErrorsNameTheLine) {
  ExpectError(Minimal("", "vector_width"), "missing key 'vector_width'");
  ExpectError(Minimal("bogus_key = 1\n"), "line 16: unknown key 'bogus_key'");
  ExpectError("[soc]\nname = x\n[systolic_npu]\narray_rows = abc\n", "line 4");
  ExpectError("[soc]\nname = x\n[systolic_npu]\narray_rows = abc\n", "not a number");
  ExpectError("[soc]\nname = x\nthis line is junk\n", "line 3");
  ExpectError("[soc\n", "line 1: section header missing ']'");
  ExpectError("key = 1\n", "before any [section]");
  ExpectError("[soc]\nname = a\nname = b\n", "line 3: duplicate key");
  ExpectError("[soc]\n[soc]\n", "duplicate section");
  ExpectError("[soc]\nname = \n", "empty value");
  ExpectError("[systolic_npu]\n", "missing section [soc]");
  ExpectError("[soc]\nname = x\n", "missing section [systolic_npu]");
  std::string big_rows = Minimal();
  big_rows.replace(big_rows.find("array_rows = 4"), 14, "array_rows = 0");
  ExpectError(big_rows, "out of range");
  std::string frac = Minimal();
  frac.replace(frac.find("array_cols = 4"), 14, "array_cols = 4.5");
  ExpectError(frac, "must be an integer");
  std::string df = Minimal();
  df.replace(df.find("default_dataflow = os"), 21, "default_dataflow = rs");
  ExpectError(df, "unknown dataflow 'rs'");
  ExpectError(Minimal("[transfer.host]\nbandwidth_gbps = 1\nlatency_us = 1\n"), "[transfer.<from>.<to>]");
  ExpectError(Minimal("[transfer.host.dsp_tcm]\nbandwidth_gbps = 1\n"), "missing key 'latency_us'");
  ExpectError(Minimal("[cpu]\ngflops_f32 = -1\ngops_int8 = 1\nthreads = 1\n"), "out of range");
  std::string tiny_banks = Minimal();
  tiny_banks.replace(tiny_banks.find("array_rows = 4"), 14, "array_rows = 512");
  ExpectError(tiny_banks, "too small");
}

TEST(SocConfig, SelectSoc) {
  EXPECT_EQ(SelectSoc(nullptr, nullptr, 0)->name, "ref-phone");
  EXPECT_EQ(SelectSoc("ref-edge", nullptr, 0)->npu.array_rows, 8);
  EXPECT_EQ(SelectSoc("ref-watch", nullptr, 0).status().code(), absl::StatusCode::kNotFound);
  const std::string text = Minimal();
  auto s = SelectSoc("my-file-stem", text.data(), text.size());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->name, "tiny");
  const std::string bad = "[soc]\nname = x\n";
  EXPECT_FALSE(SelectSoc(nullptr, bad.data(), bad.size()).ok());
}

TEST(SocConfig, RandomGarbageNeverCrashes) {
  std::mt19937 rng(7);
  const std::string base = Minimal();
  for (int i = 0; i < 3000; ++i) {
    std::string s = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0:
          s[at] = static_cast<char>(rng() % 256);
          break;
        case 1:
          s.erase(at, 1 + rng() % 8);
          break;
        default:
          s.resize(at);
          break;
      }
      if (s.empty()) s = "x";
    }
    (void)ParseSocConfig(s);
  }
}

}  // namespace
}  // namespace tessera::systolic
