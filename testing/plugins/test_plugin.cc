// One source, many deliberately (mis)behaving compiler plugins for vendor
// "testvendor". testing/plugins/CMakeLists.txt builds it once per variant, each with
// one TSR_TEST_PLUGIN_<VARIANT> definition, into
// ${CMAKE_BINARY_DIR}/test_plugins/<variant>/libtessera_compiler_testvendor.so:
//
//   GOOD               a minimal working plugin: claims ADD only, compiles
//                      AOT to a trivial envelope (one entry per partition)
//   MISSING_SYMBOL     exports no entry symbol at all
//   REFUSES_VERSION    speaks only ABI 0.9: returns TSR_VERSION_UNSUPPORTED
//   BELOW_FLOOR        answers {0,65535}, the newest version below the 1.0
//                      floor in the host's order (one past the limit)
//   NULL_TABLE         returns TSR_OK with a NULL table
//   NEWER_MINOR        answers 1.7 whatever the host offered
//   SHORT_TABLE        header.struct_size ends before release_compiled
//   HUGE_TABLE         header.struct_size is 4097, one byte past the largest
//                      plausible table (the host's kMaxTableBytes, 4096)
//   FAILING_COMPILE    claims ADD, but compile fails with TSR_INTERNAL + text
//   FROZEN_V1          fills only the v1 members and pins struct_size to the
//                      v1 size, so it keeps loading as the ABI grows
//   MISMATCHED_VENDOR  the file says testvendor, get_info says "other"
//   DATA_SYMBOL        exports tsr_compiler_plugin_negotiate as a data
//                      object, not a function: calling it would crash
//   GARBAGE_TABLE      a well-sized, version-right table whose members
//                      point into a data array instead of code
//   WILD_TABLE         returns TSR_OK with a table pointer of 0x10
//   GARBAGE_INFO       get_info answers an info pointer of 0x10
//   HUGE_SOC_COUNT     get_info's soc_model_count is 2^40
//   WILD_STRING        get_info's plugin_version points at 0x10
//   BLOCKING_NEGOTIATE the entry symbol never returns (only the
//                      out-of-process probe, with its timeout, survives it)
//   BAD_CHECKSUM       compiles like GOOD, then flips a body byte: the
//                      envelope's CRC no longer matches
//   BLOB_VENDOR        compiles like GOOD, but the envelope says "other"
//   MISSING_ENTRY      names entry points its blob does not contain
//
// Like a real vendor plugin it sees only api/ and plugins/kit.
#if defined(TSR_TEST_PLUGIN_DATA_SYMBOL)
// It defines the entry's name as data, which the headers' prototype forbids.
#define TSR_NO_PROTOTYPES 1
#endif
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "plugins/kit/bytecode_builder.h"
#include "plugins/kit/plugin_status.h"
#include "tessera/bytecode.h"
#include "tessera/compiler_plugin.h"
#include "tessera/ops.h"

struct tsr_compiler_plugin_s {
  int unused = 0;
};

struct tsr_compiled_s {
  std::vector<uint8_t> bytecode;
  std::vector<std::string> entry_points;
};

namespace {

#if defined(TSR_TEST_PLUGIN_MISMATCHED_VENDOR)
constexpr const char* kVendor = "other";
#else
constexpr const char* kVendor = "testvendor";
#endif

const char* const kSocModels[] = {"any"};

const tsr_compiler_plugin_info kInfo = {
    .header = {sizeof(tsr_compiler_plugin_info), 1, 0},
    .vendor = kVendor,
    .plugin_version = "0.0.1-test",
    .soc_models = kSocModels,
    .soc_model_count = 1,
    .compile_modes = TSR_COMPILE_MODE_AOT,
};

const char* GetLastError() { return tessera::kit::LastErrorMessage(); }

tsr_status GetInfo(const tsr_compiler_plugin_info** out) {
  if (out == nullptr) return tessera::kit::ReportError(TSR_INVALID_ARGUMENT, "out_info is NULL");
#if defined(TSR_TEST_PLUGIN_GARBAGE_INFO)
  *out = reinterpret_cast<const tsr_compiler_plugin_info*>(uintptr_t{0x10});
#elif defined(TSR_TEST_PLUGIN_HUGE_SOC_COUNT)
  static tsr_compiler_plugin_info huge = kInfo;
  huge.soc_model_count = size_t{1} << 40;
  *out = &huge;
#elif defined(TSR_TEST_PLUGIN_WILD_STRING)
  static tsr_compiler_plugin_info wild = kInfo;
  wild.plugin_version = reinterpret_cast<const char*>(uintptr_t{0x10});
  *out = &wild;
#else
  *out = &kInfo;
#endif
  return TSR_OK;
}

tsr_status Create(const tsr_compiler_plugin_options* options, tsr_compiler_plugin* out) {
  if (out == nullptr) return tessera::kit::ReportError(TSR_INVALID_ARGUMENT, "out_plugin is NULL");
  *out = new tsr_compiler_plugin_s();
  return TSR_OK;
}

void Destroy(tsr_compiler_plugin plugin) { delete plugin; }

tsr_status Partition(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, tsr_graph graph,
                     const tsr_partition_options* options, tsr_op_support* out_support) {
  if (plugin == nullptr || view == nullptr || out_support == nullptr)
    return tessera::kit::ReportError(TSR_INVALID_ARGUMENT, "partition: NULL argument");
  const size_t n = view->op_count(graph);
  for (size_t i = 0; i < n; ++i) {
    tsr_op_support& s = out_support[i];
    const bool ok = view->op_type(graph, i) == TSR_OP_ADD;
    const uint32_t size = s.header.struct_size;
    if (size >= offsetof(tsr_op_support, supported) + sizeof(uint32_t)) s.supported = ok ? 1 : 0;
    if (size >= offsetof(tsr_op_support, reason) + sizeof(int32_t))
      s.reason = ok ? TSR_REFUSAL_NONE : TSR_REFUSAL_UNSUPPORTED_OP;
    if (size >= offsetof(tsr_op_support, reason_detail) + sizeof(const char*))
      s.reason_detail = ok ? nullptr : "testvendor claims ADD only";
    if (size >= offsetof(tsr_op_support, estimated_time_us) + sizeof(double)) s.estimated_time_us = ok ? 1.0 : -1.0;
    if (size >= offsetof(tsr_op_support, estimated_cycles) + sizeof(uint64_t)) s.estimated_cycles = ok ? 100 : 0;
  }
  return TSR_OK;
}

tsr_status Compile(tsr_compiler_plugin plugin, const tsr_graph_view_api* view, const tsr_graph* partitions,
                   size_t partition_count, const tsr_compile_options* options, tsr_compiled* out) {
#if defined(TSR_TEST_PLUGIN_FAILING_COMPILE)
  return tessera::kit::ReportError(TSR_INTERNAL, "testvendor: code generation exploded (deliberately)");
#else
  if (plugin == nullptr || view == nullptr || out == nullptr || (partition_count > 0 && partitions == nullptr))
    return tessera::kit::ReportError(TSR_INVALID_ARGUMENT, "compile: NULL argument");
  if (!TSR_ABI_HAS_FIELD(options, tsr_compile_options, mode) || options->mode != TSR_COMPILE_MODE_AOT)
    return tessera::kit::ReportError(TSR_UNIMPLEMENTED, "testvendor compiles AOT only");
  auto compiled = std::make_unique<tsr_compiled_s>();
  std::vector<tessera::kit::BytecodeEntry> entries;
  for (size_t p = 0; p < partition_count; ++p) {
    const size_t ops = view->op_count(partitions[p]);
    for (size_t i = 0; i < ops; ++i)
      if (view->op_type(partitions[p], i) != TSR_OP_ADD)
        return tessera::kit::ReportError(TSR_INVALID_ARGUMENT, "testvendor: partition holds an op it did not claim");
    std::string name = "test_partition_" + std::to_string(p);
    // Trivial body: the op count, one byte per op.
    entries.push_back({name, std::vector<uint8_t>(ops, 0xAD), static_cast<uint32_t>(view->input_count(partitions[p])),
                       static_cast<uint32_t>(view->output_count(partitions[p]))});
    compiled->entry_points.push_back(std::move(name));
  }
#if defined(TSR_TEST_PLUGIN_BLOB_VENDOR)
  const char* envelope_vendor = "other";
#else
  const char* envelope_vendor = kVendor;
#endif
  absl::StatusOr<std::vector<uint8_t> > blob = tessera::kit::BuildBytecode({envelope_vendor, "any", 1}, entries);
  if (!blob.ok()) return tessera::kit::ReportStatus(blob.status());
  compiled->bytecode = *std::move(blob);
#if defined(TSR_TEST_PLUGIN_BAD_CHECKSUM)
  tsr_bytecode_header header;
  std::memcpy(&header, compiled->bytecode.data(), sizeof header);
  compiled->bytecode[header.body_offset] ^= 0xFF;  // the first body byte
#endif
#if defined(TSR_TEST_PLUGIN_MISSING_ENTRY)
  for (std::string& name : compiled->entry_points) name = "not_in_the_blob_" + name;
#endif
  *out = compiled.release();
  return TSR_OK;
#endif
}

tsr_status CompiledBytecode(tsr_compiled c, const void** data, size_t* size) {
  if (c == nullptr || data == nullptr || size == nullptr)
    return tessera::kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  *data = c->bytecode.data();
  *size = c->bytecode.size();
  return TSR_OK;
}

tsr_status CompiledEntryPoint(tsr_compiled c, size_t i, const char** name) {
  if (c == nullptr || name == nullptr) return tessera::kit::ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  if (i >= c->entry_points.size()) return tessera::kit::ReportError(TSR_OUT_OF_RANGE, "partition index out of range");
  *name = c->entry_points[i].c_str();
  return TSR_OK;
}

tsr_status CompiledJitHandle(tsr_compiled c, size_t i, tsr_jit_handle* handle) {
  return tessera::kit::ReportError(TSR_NOT_FOUND, "testvendor produces AOT results only");
}

void ReleaseCompiled(tsr_compiled c) { delete c; }

// The size of the v1 table as a v1 plugin compiled it: the header plus ten
// function pointers. A frozen v1 plugin states exactly this, whatever
// members later headers append.
constexpr uint32_t kV1TableSize =
    static_cast<uint32_t>(offsetof(tsr_compiler_plugin_api, release_compiled) + sizeof(void (*)(tsr_compiled)));
static_assert(kV1TableSize == sizeof(tsr_abi_header) + 10 * sizeof(void*),
              "the v1 compiler table is the header plus ten function pointers");

#if defined(TSR_TEST_PLUGIN_FROZEN_V1)
constexpr uint32_t kTableSize = kV1TableSize;
#elif defined(TSR_TEST_PLUGIN_HUGE_TABLE)
// A corrupted or garbage header, at the boundary: one byte past the
// host's limit of 4096 (512 pointers; no real table comes near it).
constexpr uint32_t kTableSize = 4096 + 1;
#elif defined(TSR_TEST_PLUGIN_SHORT_TABLE)
// Ends before release_compiled: a table from a plugin that lost a member.
constexpr uint32_t kTableSize = static_cast<uint32_t>(offsetof(tsr_compiler_plugin_api, release_compiled));
#else
constexpr uint32_t kTableSize = sizeof(tsr_compiler_plugin_api);
#endif

// Only the v1 members are set, by name; anything a later header appends
// stays zero-initialized and, for the v1-sized variants, out of struct_size.
const tsr_compiler_plugin_api kApi = {
    .header = {kTableSize, 1, 0},
    .get_last_error = GetLastError,
    .get_info = GetInfo,
    .create = Create,
    .destroy = Destroy,
    .partition = Partition,
    .compile = Compile,
    .compiled_bytecode = CompiledBytecode,
    .compiled_entry_point = CompiledEntryPoint,
    .compiled_jit_handle = CompiledJitHandle,
    .release_compiled = ReleaseCompiled,
};

}  // namespace

#if defined(TSR_TEST_PLUGIN_DATA_SYMBOL)
// The entry symbol's name on bytes, not code.
extern "C" TSR_EXPORT const unsigned char tsr_compiler_plugin_negotiate[16] = {0xff};
#elif defined(TSR_TEST_PLUGIN_MISSING_SYMBOL)
// The entry point under the wrong name, and hidden: nothing is exported.
extern "C" tsr_status tsr_compiler_plugin_negotiate_misspelled(tsr_version host, tsr_version* out_version,
                                                               const tsr_compiler_plugin_api** out_api) {
  *out_version = host;
  *out_api = &kApi;
  return TSR_OK;
}
#else
extern "C" TSR_EXPORT tsr_status tsr_compiler_plugin_negotiate(tsr_version host, tsr_version* out_version,
                                                               const tsr_compiler_plugin_api** out_api) {
  if (out_version == nullptr || out_api == nullptr)
    return tessera::kit::ReportError(TSR_INVALID_ARGUMENT, "NULL output");
#if defined(TSR_TEST_PLUGIN_REFUSES_VERSION)
  (void)host;
  return tessera::kit::ReportError(TSR_VERSION_UNSUPPORTED, "testvendor speaks ABI 0.9 only");
#elif defined(TSR_TEST_PLUGIN_BELOW_FLOOR)
  (void)host;
  *out_version = {0, 0xFFFF};
  *out_api = &kApi;
  return TSR_OK;
#elif defined(TSR_TEST_PLUGIN_NULL_TABLE)
  *out_version = host;
  *out_api = nullptr;
  return TSR_OK;
#elif defined(TSR_TEST_PLUGIN_NEWER_MINOR)
  (void)host;
  *out_version = {1, 7};
  *out_api = &kApi;
  return TSR_OK;
#elif defined(TSR_TEST_PLUGIN_GARBAGE_TABLE)
  // Every member the address of a data array: non-NULL, so only a check
  // that they are code stops the host's first call.
  static unsigned char junk[64] = {0xff};
  static tsr_compiler_plugin_api garbage = kApi;
  auto* slots =
      reinterpret_cast<void**>(reinterpret_cast<char*>(&garbage) + offsetof(tsr_compiler_plugin_api, get_last_error));
  const size_t count = (kV1TableSize - offsetof(tsr_compiler_plugin_api, get_last_error)) / sizeof(void*);
  for (size_t i = 0; i < count; ++i) slots[i] = junk + i;
  *out_version = {1, 0};
  *out_api = &garbage;
  return TSR_OK;
#elif defined(TSR_TEST_PLUGIN_WILD_TABLE)
  *out_version = host;
  *out_api = reinterpret_cast<const tsr_compiler_plugin_api*>(uintptr_t{0x10});
  return TSR_OK;
#elif defined(TSR_TEST_PLUGIN_BLOCKING_NEGOTIATE)
  (void)host;
  for (;;) pause();
#else
  tsr_version agreed{};
  const tsr_status s = tessera::kit::NegotiateVersion(host, {1, 0}, {1, 0}, &agreed);
  if (s != TSR_OK) return s;
  *out_version = agreed;
  *out_api = &kApi;
  return TSR_OK;
#endif
}
#endif
