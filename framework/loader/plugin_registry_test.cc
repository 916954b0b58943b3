// Loader and ABI tests against deliberately broken plugins built from
// testing/plugins/test_plugin.cc into ${TESSERA_BUILD_DIR}/test_plugins/,
// and against the bundled cpu plugins in ${TESSERA_BUILD_DIR}/lib.
#include "framework/loader/plugin_registry.h"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "framework/core/model/model_builder.h"
#include "framework/loader/plugin_probe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"
#include "testing/special_files_for_test.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string BuildDir() {
  const char* env = std::getenv("TESSERA_BUILD_DIR");
  if (env != nullptr && *env != '\0') return env;
  return TSR_TEST_BUILD_DIR;
}

std::string VariantDir(const std::string& variant) { return BuildDir() + "/test_plugins/" + variant; }
std::string VariantCompiler(const std::string& variant) {
  return VariantDir(variant) + "/libtessera_compiler_testvendor.so";
}

// Restores an environment variable when it goes out of scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class PluginRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(VariantCompiler("good")))
      GTEST_FAIL() << "test plugins not built: " << VariantCompiler("good")
                   << " is missing (build the plugin_registry_test target)";
  }
  static PluginRegistry DiscoverOnly(const std::string& dir) {
    PluginSearchOptions o;
    o.bundled_directory = dir;
    o.read_environment = false;
    return PluginRegistry::Discover(o);
  }
};

// ---------------------------------------------------------------------------
// LoadCompiler, one variant at a time
// ---------------------------------------------------------------------------

TEST_F(PluginRegistryTest, GoodPluginLoadsAtVersion1_0) {
  absl::StatusOr<CompilerPluginLibrary> lib = PluginRegistry::LoadCompiler(VariantCompiler("good"), "testvendor");
  ASSERT_TRUE(lib.ok()) << lib.status();
  EXPECT_EQ(lib->vendor, "testvendor");
  EXPECT_EQ(lib->version.major, 1);
  EXPECT_EQ(lib->version.minor, 0);
  ASSERT_NE(lib->api, nullptr);
  ASSERT_NE(lib->info, nullptr);
  EXPECT_STREQ(lib->info->vendor, "testvendor");
  EXPECT_EQ(lib->info->compile_modes, TSR_COMPILE_MODE_AOT);
  EXPECT_EQ(lib->api->header.struct_size, sizeof(tsr_compiler_plugin_api));
}

TEST_F(PluginRegistryTest, FrozenV1PluginLoads) {
  absl::StatusOr<CompilerPluginLibrary> lib = PluginRegistry::LoadCompiler(VariantCompiler("frozen_v1"), "testvendor");
  ASSERT_TRUE(lib.ok()) << lib.status();
  EXPECT_EQ(lib->version.major, 1);
  EXPECT_EQ(lib->version.minor, 0);
  // The v1 size: the header and ten function pointers.
  EXPECT_EQ(lib->api->header.struct_size, sizeof(tsr_abi_header) + 10 * sizeof(void*));
  EXPECT_TRUE(TSR_ABI_HAS(lib->api, tsr_compiler_plugin_api, release_compiled));
}

struct BrokenCase {
  const char* variant;
  const char* reason;  // what the error text must say
  absl::StatusCode code;
};

class BrokenPluginTest : public PluginRegistryTest, public ::testing::WithParamInterface<BrokenCase> {};

TEST_P(BrokenPluginTest, LoadCompilerRefusesWithReason) {
  const BrokenCase& c = GetParam();
  absl::StatusOr<CompilerPluginLibrary> lib = PluginRegistry::LoadCompiler(VariantCompiler(c.variant), "testvendor");
  ASSERT_FALSE(lib.ok()) << c.variant << " loaded";
  EXPECT_THAT(std::string(lib.status().message()), HasSubstr(c.reason)) << c.variant;
  EXPECT_EQ(lib.status().code(), c.code) << lib.status();
}

TEST_P(BrokenPluginTest, DiscoverSkipsWithReason) {
  const BrokenCase& c = GetParam();
  PluginRegistry r = DiscoverOnly(VariantDir(c.variant));
  EXPECT_TRUE(r.compilers().empty());
  EXPECT_EQ(r.FindCompiler("testvendor"), nullptr);
  ASSERT_FALSE(r.skipped().empty());
  bool found = false;
  for (const SkippedLibrary& s : r.skipped()) {
    if (s.path == VariantCompiler(c.variant)) {
      found = true;
      EXPECT_EQ(s.role, PluginRole::kCompiler);
      EXPECT_THAT(s.reason, HasSubstr(c.reason));
    }
  }
  EXPECT_TRUE(found) << "no skip entry for " << VariantCompiler(c.variant);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, BrokenPluginTest,
    ::testing::Values(
        BrokenCase{"missing_symbol", "missing symbol", absl::StatusCode::kNotFound},
        BrokenCase{"refuses_version", "version refused", absl::StatusCode::kFailedPrecondition},
        BrokenCase{"below_floor", "version refused", absl::StatusCode::kFailedPrecondition},
        BrokenCase{"newer_minor", "version refused", absl::StatusCode::kFailedPrecondition},
        BrokenCase{"null_table", "NULL table", absl::StatusCode::kFailedPrecondition},
        BrokenCase{"short_table", "missing v1 member", absl::StatusCode::kFailedPrecondition},
        BrokenCase{"huge_table", "implausible table size", absl::StatusCode::kFailedPrecondition},
        BrokenCase{"mismatched_vendor", "vendor", absl::StatusCode::kFailedPrecondition},
        BrokenCase{"data_symbol", "is not a function", absl::StatusCode::kFailedPrecondition},
        BrokenCase{"garbage_table", "table member 'get_last_error' is not code", absl::StatusCode::kFailedPrecondition},
        // Pointers and counts that used to crash the host (issue 39).
        BrokenCase{"wild_table", "function table (10) is not readable data", absl::StatusCode::kFailedPrecondition},
        BrokenCase{"garbage_info", "info compiler info struct (10) is not readable data",
                   absl::StatusCode::kFailedPrecondition},
        BrokenCase{"huge_soc_count", "soc_model_count 1099511627776 is implausible",
                   absl::StatusCode::kFailedPrecondition},
        BrokenCase{"wild_string", "info field 'plugin_version' (10) is not a string",
                   absl::StatusCode::kFailedPrecondition}),
    [](const ::testing::TestParamInfo<BrokenCase>& info) { return std::string(info.param.variant); });

// A negotiate that never returns would hang the host, and no in-process
// check can interrupt it: the out-of-process probe kills it at its timeout
// and reports it (docs/reliability.md §8).
TEST_F(PluginRegistryTest, TheProbeReportsANegotiateThatBlocks) {
  const ProbeResult r = ProbeInChildProcess(VariantCompiler("blocking_negotiate"), PluginRole::kCompiler, "testvendor",
                                            /*timeout_ms=*/300);
  EXPECT_EQ(r.kind, ProbeResult::Kind::kTimedOut) << r.detail;
  EXPECT_THAT(r.detail, HasSubstr("took over 300 ms; killed"));
}

TEST_F(PluginRegistryTest, VersionRefusalsNameTheVersions) {
  absl::StatusOr<CompilerPluginLibrary> below =
      PluginRegistry::LoadCompiler(VariantCompiler("below_floor"), "testvendor");
  ASSERT_FALSE(below.ok());
  EXPECT_THAT(std::string(below.status().message()), HasSubstr("0.65535"));
  absl::StatusOr<CompilerPluginLibrary> newer =
      PluginRegistry::LoadCompiler(VariantCompiler("newer_minor"), "testvendor");
  ASSERT_FALSE(newer.ok());
  EXPECT_THAT(std::string(newer.status().message()), HasSubstr("1.7"));
  absl::StatusOr<CompilerPluginLibrary> short_table =
      PluginRegistry::LoadCompiler(VariantCompiler("short_table"), "testvendor");
  ASSERT_FALSE(short_table.ok());
  EXPECT_THAT(std::string(short_table.status().message()), HasSubstr("release_compiled"));
  absl::StatusOr<CompilerPluginLibrary> other =
      PluginRegistry::LoadCompiler(VariantCompiler("mismatched_vendor"), "testvendor");
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(std::string(other.status().message()), HasSubstr("'other'"));
}

TEST_F(PluginRegistryTest, MissingDispatchSymbolIsSkipped) {
  PluginRegistry r = DiscoverOnly(VariantDir("missing_symbol"));
  EXPECT_TRUE(r.dispatchers().empty());
  bool found = false;
  for (const SkippedLibrary& s : r.skipped())
    if (s.role == PluginRole::kDispatch) {
      found = true;
      EXPECT_THAT(s.reason, HasSubstr("missing symbol"));
      EXPECT_THAT(s.reason, HasSubstr(TSR_DISPATCH_ENTRY));
    }
  EXPECT_TRUE(found);
}

TEST_F(PluginRegistryTest, LoadRefusesRelativeAndMissingPaths) {
  absl::StatusOr<CompilerPluginLibrary> rel =
      PluginRegistry::LoadCompiler("test_plugins/good/libtessera_compiler_testvendor.so", "testvendor");
  ASSERT_FALSE(rel.ok());
  EXPECT_THAT(std::string(rel.status().message()), HasSubstr("not absolute"));
  absl::StatusOr<CompilerPluginLibrary> missing =
      PluginRegistry::LoadCompiler(VariantDir("good") + "/libtessera_compiler_nope.so", "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("dlopen failed"));
}

// ---------------------------------------------------------------------------
// Discover
// ---------------------------------------------------------------------------

TEST_F(PluginRegistryTest, DiscoverLoadsGoodAndFrozen) {
  for (const char* variant : {"good", "frozen_v1", "failing_compile"}) {
    PluginRegistry r = DiscoverOnly(VariantDir(variant));
    ASSERT_EQ(r.compilers().size(), 1u) << variant;
    EXPECT_TRUE(r.skipped().empty()) << variant << ": " << r.skipped()[0].reason;
    const CompilerPluginLibrary* c = r.FindCompiler("testvendor");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->path, VariantCompiler(variant));
    EXPECT_EQ(c->version.major, 1);
    EXPECT_EQ(c->version.minor, 0);
    ASSERT_EQ(r.directories().size(), 1u);
    EXPECT_EQ(r.directories()[0].origin, "bundled");
    EXPECT_EQ(r.directories()[0].note, "");
  }
}

TEST_F(PluginRegistryTest, AFifoNamedLikeALibraryIsSkippedWithAReason) {
  // dlopen of a FIFO would wait for a writer forever; discovery skips it.
  ScratchDirectory dir;
  const std::string fifo = dir.Fifo("libtessera_compiler_x.so");
  ASSERT_FALSE(fifo.empty());
  EXPECT_THAT(FinishesWithin(kNoHangTimeout,
                             [&] {
                               const PluginRegistry r = DiscoverOnly(dir.path());
                               std::string text = absl::StrCat(r.compilers().size(), " loaded");
                               for (const SkippedLibrary& s : r.skipped())
                                 absl::StrAppend(&text, "; ", s.path, ": ", s.reason);
                               return text;
                             }),
              ::testing::Optional(AllOf(HasSubstr("0 loaded"), HasSubstr(fifo + ": '" + fifo + "' is a FIFO"))));
  // Loaded by name, too: refused before dlopen.
  EXPECT_THAT(
      FinishesWithin(kNoHangTimeout, [&] { return PluginRegistry::LoadCompiler(fifo, "x").status().ToString(); }),
      ::testing::Optional(HasSubstr("is a FIFO")));
}

TEST_F(PluginRegistryTest, RelativeDirectoriesAreIgnoredWithANote) {
  PluginSearchOptions o;
  o.directories = {"test_plugins/good", "."};
  o.read_environment = false;
  PluginRegistry r = PluginRegistry::Discover(o);
  EXPECT_TRUE(r.compilers().empty());
  ASSERT_EQ(r.directories().size(), 2u);
  for (const SearchedDirectory& d : r.directories()) {
    EXPECT_EQ(d.origin, "options");
    EXPECT_THAT(d.note, HasSubstr("relative"));
  }
}

TEST_F(PluginRegistryTest, MissingDirectoryIsNoted) {
  PluginSearchOptions o;
  o.directories = {VariantDir("does_not_exist"), VariantCompiler("good")};  // absent, and a file
  o.read_environment = false;
  PluginRegistry r = PluginRegistry::Discover(o);
  EXPECT_TRUE(r.compilers().empty());
  ASSERT_EQ(r.directories().size(), 2u);
  EXPECT_THAT(r.directories()[0].note, HasSubstr("not a directory"));
  EXPECT_THAT(r.directories()[1].note, HasSubstr("not a directory"));
}

TEST_F(PluginRegistryTest, SameDirectoryTwiceIsSearchedOnce) {
  PluginSearchOptions o;
  o.directories = {VariantDir("good"), VariantDir("good") + "/"};
  o.read_environment = false;
  PluginRegistry r = PluginRegistry::Discover(o);
  EXPECT_EQ(r.compilers().size(), 1u);
  EXPECT_TRUE(r.skipped().empty());
  ASSERT_EQ(r.directories().size(), 2u);
  EXPECT_THAT(r.directories()[1].note, HasSubstr("already searched"));
}

TEST_F(PluginRegistryTest, DuplicateVendorKeepsTheFirst) {
  PluginSearchOptions o;
  o.directories = {VariantDir("frozen_v1"), VariantDir("broken_does_not_matter"), VariantDir("good")};
  o.bundled_directory = VariantDir("failing_compile");
  o.read_environment = false;
  PluginRegistry r = PluginRegistry::Discover(o);
  ASSERT_EQ(r.compilers().size(), 1u);
  EXPECT_EQ(r.compilers()[0].path, VariantCompiler("frozen_v1"));
  size_t duplicates = 0;
  for (const SkippedLibrary& s : r.skipped()) {
    EXPECT_THAT(s.reason, HasSubstr("duplicate vendor"));
    EXPECT_THAT(s.reason, HasSubstr(VariantCompiler("frozen_v1")));
    ++duplicates;
  }
  EXPECT_EQ(duplicates, 2u);
}

TEST_F(PluginRegistryTest, BrokenFirstDoesNotShadowAGoodLater) {
  // A vendor whose first library is refused may still load from a later
  // directory: only loaded libraries count as "found".
  PluginSearchOptions o;
  o.directories = {VariantDir("null_table"), VariantDir("good")};
  o.read_environment = false;
  PluginRegistry r = PluginRegistry::Discover(o);
  ASSERT_EQ(r.compilers().size(), 1u);
  EXPECT_EQ(r.compilers()[0].path, VariantCompiler("good"));
  ASSERT_EQ(r.skipped().size(), 1u);
  EXPECT_THAT(r.skipped()[0].reason, HasSubstr("NULL table"));
}

TEST_F(PluginRegistryTest, EnvironmentPathComesFirstAndIsIgnoredWhenAsked) {
  ScopedEnv filter("TESSERA_PLUGIN_FILTER", nullptr);
  const std::string env_path = "relative/ignored:" + VariantDir("frozen_v1");
  ScopedEnv path("TESSERA_PLUGIN_PATH", env_path.c_str());
  PluginSearchOptions o;
  o.directories = {VariantDir("good")};
  PluginRegistry r = PluginRegistry::Discover(o);
  ASSERT_EQ(r.compilers().size(), 1u);
  EXPECT_EQ(r.compilers()[0].path, VariantCompiler("frozen_v1"));
  ASSERT_EQ(r.directories().size(), 3u);
  EXPECT_EQ(r.directories()[0].origin, "TESSERA_PLUGIN_PATH");
  EXPECT_THAT(r.directories()[0].note, HasSubstr("relative"));
  EXPECT_EQ(r.directories()[1].origin, "TESSERA_PLUGIN_PATH");
  EXPECT_EQ(r.directories()[2].origin, "options");

  o.read_environment = false;
  r = PluginRegistry::Discover(o);
  ASSERT_EQ(r.compilers().size(), 1u);
  EXPECT_EQ(r.compilers()[0].path, VariantCompiler("good"));
}

TEST_F(PluginRegistryTest, PluginFilterEnvironmentVariable) {
  ScopedEnv path("TESSERA_PLUGIN_PATH", nullptr);
  PluginSearchOptions o;
  o.directories = {VariantDir("good")};
  {
    ScopedEnv filter("TESSERA_PLUGIN_FILTER", "cpu,npu");
    PluginRegistry r = PluginRegistry::Discover(o);
    EXPECT_TRUE(r.compilers().empty());
    ASSERT_EQ(r.skipped().size(), 1u);
    EXPECT_THAT(r.skipped()[0].reason, HasSubstr("filtered out"));
  }
  {
    ScopedEnv filter("TESSERA_PLUGIN_FILTER", "testvendor");
    PluginRegistry r = PluginRegistry::Discover(o);
    EXPECT_EQ(r.compilers().size(), 1u);
  }
  {  // Intersected with the options' filter: nothing in common keeps nothing.
    ScopedEnv filter("TESSERA_PLUGIN_FILTER", "testvendor");
    PluginSearchOptions both = o;
    both.vendor_filter = {"cpu"};
    PluginRegistry r = PluginRegistry::Discover(both);
    EXPECT_TRUE(r.compilers().empty());
    both.vendor_filter = {"cpu", "testvendor"};
    r = PluginRegistry::Discover(both);
    EXPECT_EQ(r.compilers().size(), 1u);
  }
  {  // read_environment=false ignores the variable.
    ScopedEnv filter("TESSERA_PLUGIN_FILTER", "cpu");
    PluginSearchOptions no_env = o;
    no_env.read_environment = false;
    PluginRegistry r = PluginRegistry::Discover(no_env);
    EXPECT_EQ(r.compilers().size(), 1u);
  }
  {  // Options filter alone.
    PluginSearchOptions only = o;
    only.read_environment = false;
    only.vendor_filter = {"", "other"};
    PluginRegistry r = PluginRegistry::Discover(only);
    EXPECT_TRUE(r.compilers().empty());
  }
}

// The fallback is found by its declared priority, never by its name:
// libraries described by hand, with made-up vendors, in any order.
TEST(FallbackCompiler, IsTheCompilerThatDeclaresTheFallbackPriority) {
  auto info = [](const char* vendor, int32_t priority) {
    tsr_compiler_plugin_info i{};
    i.header = {sizeof(i), 1, 2};
    i.vendor = vendor;
    i.default_priority = priority;
    return i;
  };
  const tsr_compiler_plugin_info npu = info("acme_npu", 100), dsp = info("acme_dsp", 200),
                                 host = info("acme_host", TSR_PRIORITY_FALLBACK),
                                 later = info("acme_ref", TSR_PRIORITY_FALLBACK + 5);
  tsr_compiler_plugin_info old_style = info("acme_old", TSR_PRIORITY_FALLBACK);
  auto lib = [](const tsr_compiler_plugin_info& i, tsr_version v) {
    CompilerPluginLibrary l;
    l.vendor = i.vendor;
    l.version = v;
    l.info = &i;
    return l;
  };
  const tsr_version v12{1, 2};
  EXPECT_EQ(FallbackCompiler(std::vector<CompilerPluginLibrary>{}), nullptr);
  EXPECT_EQ(FallbackCompiler({lib(npu, v12), lib(dsp, v12)}), nullptr);
  EXPECT_EQ(FallbackCompiler({lib(host, v12), lib(npu, v12)})->vendor, "acme_host");
  EXPECT_EQ(FallbackCompiler({lib(npu, v12), lib(later, v12), lib(host, v12), lib(dsp, v12)})->vendor, "acme_host");
  EXPECT_EQ(FallbackCompiler({lib(npu, v12), lib(later, v12)})->vendor, "acme_ref");
  // A library negotiated at 1.1 declares no priority, whatever its bytes say.
  old_style.header = {48, 1, 1};
  EXPECT_EQ(FallbackCompiler({lib(old_style, {1, 1}), lib(npu, v12)}), nullptr);
}

TEST_F(PluginRegistryTest, TheBundledFallbackIsTheCpu) {
  PluginSearchOptions o;
  o.bundled_directory = BuildDir() + "/lib";
  o.read_environment = false;
  o.vendor_filter = {"systolic_npu", "cpu", "mock_dsp"};
  PluginRegistry bundled = PluginRegistry::Discover(o);
  ASSERT_EQ(bundled.compilers().size(), 3u) << "bundled plugins missing from " << o.bundled_directory;
  ASSERT_NE(FallbackCompiler(bundled), nullptr);
  EXPECT_EQ(FallbackCompiler(bundled)->vendor, "cpu");
  o.vendor_filter = {"systolic_npu", "mock_dsp"};
  EXPECT_EQ(FallbackCompiler(PluginRegistry::Discover(o)), nullptr);
}

TEST_F(PluginRegistryTest, BundledCpuPluginsLoad) {
  const std::string lib_dir = BuildDir() + "/lib";
  if (!fs::exists(lib_dir + "/libtessera_compiler_cpu.so"))
    GTEST_FAIL() << "bundled cpu plugins missing from " << lib_dir;
  PluginSearchOptions o;
  o.bundled_directory = lib_dir;
  o.read_environment = false;
  o.vendor_filter = {"cpu"};  // other vendors in lib/ are not this test's business
  PluginRegistry r = PluginRegistry::Discover(o);
  const CompilerPluginLibrary* c = r.FindCompiler("cpu");
  const DispatchLibrary* d = r.FindDispatch("cpu");
  ASSERT_NE(c, nullptr);
  ASSERT_NE(d, nullptr);
  // Both bundled libraries are built from these headers: they speak the
  // host's own version.
  EXPECT_EQ(c->version.major, TSR_ABI_VERSION_MAJOR);
  EXPECT_EQ(c->version.minor, TSR_ABI_VERSION_MINOR);
  EXPECT_EQ(d->version.major, TSR_ABI_VERSION_MAJOR);
  EXPECT_EQ(d->version.minor, TSR_ABI_VERSION_MINOR);
  EXPECT_STREQ(c->info->vendor, "cpu");
  EXPECT_STREQ(d->info->vendor, "cpu");
  EXPECT_NE(c->info->compile_modes & TSR_COMPILE_MODE_AOT, 0u);
  EXPECT_NE(d->info->capabilities & TSR_DISPATCH_CAP_BYTECODE, 0u);
  for (const SkippedLibrary& s : r.skipped())
    if (s.path.find("_cpu.so") != std::string::npos) ADD_FAILURE() << s.path << ": " << s.reason;
  // Loaded directly too.
  absl::StatusOr<DispatchLibrary> direct = PluginRegistry::LoadDispatch(lib_dir + "/libtessera_dispatch_cpu.so", "cpu");
  ASSERT_TRUE(direct.ok()) << direct.status();
  // Loaded as the wrong vendor name: refused.
  absl::StatusOr<CompilerPluginLibrary> wrong =
      PluginRegistry::LoadCompiler(lib_dir + "/libtessera_compiler_cpu.so", "npu");
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("vendor"));
}

}  // namespace
}  // namespace tessera
