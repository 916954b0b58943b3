/*
 * Tessera C ABI: common types shared by the graph view, the compiler-plugin
 * ABI and the dispatch ABI.
 *
 * Pure C11. Includes only <stdint.h>, <stddef.h> and <stdbool.h>. Every
 * struct layout is independent of build flags. Enums are never stored in
 * structs as enum types (their size is compiler-defined in C); structs store
 * them as int32_t / uint32_t, and the enum only names the values.
 *
 * Ownership words used throughout the headers:
 *   "caller owns"             the caller must release it with the named call.
 *   "borrowed for the call"   valid only until the call returns.
 *   "valid until X"           owned by the callee, stays valid until X.
 *   "thread-safe"             may be called concurrently from any thread.
 *   "externally synchronized" the caller must not call it concurrently on
 *                             the same handle.
 */
#ifndef TESSERA_COMMON_H_
#define TESSERA_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Versions                                                                 */
/* ------------------------------------------------------------------------ */

/* The ABI version this header describes. Minor versions only append.
 * ABI 1.2 is the one sanctioned repair of 1.1's layout and rules (docs/abi.md
 * "Changelog"); from 1.2 on, tables and structs grow by appending only. */
#define TSR_ABI_VERSION_MAJOR 1
#define TSR_ABI_VERSION_MINOR 4

/* The oldest ABI version a host built from this header will speak. A plugin
 * that answers below it is refused. */
#define TSR_ABI_VERSION_FLOOR_MAJOR 1
#define TSR_ABI_VERSION_FLOOR_MINOR 0

/* The ABI is defined for LP64 targets only (aarch64, x86_64, riscv64): every
 * layout pin in api/tests/headers_compile_as_c_test.c assumes 8-byte pointers and
 * size_t. A 32-bit build fails here rather than with silently different
 * layouts. */
#ifdef __cplusplus
static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8, "Tessera's ABI is LP64-only");
#else
_Static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8, "Tessera's ABI is LP64-only");
#endif

typedef struct tsr_version {
  uint16_t major;
  uint16_t minor;
} tsr_version;

/* First member of every function table and every versioned struct.
 *
 * Which field decides what (docs/abi.md section 3):
 *   struct_size          whether a member is present: sizeof() the struct as
 *                        its producer compiled it; a reader touches a member
 *                        only if struct_size covers it (TSR_ABI_HAS*).
 *   negotiated version   behaviour: the version the entry symbol agreed on
 *                        decides every rule that changed between versions.
 *   major / minor        informational. In a struct the host fills for a
 *                        plugin: the version it negotiated with that plugin,
 *                        never the host's own compiled one. In a plugin's
 *                        tables and info structs: the version the plugin was
 *                        built against (its newest).
 *
 * Version rule (the Vulkan loader's): the host offers the newest version it
 * knows; the plugin answers with the highest version it speaks that is not
 * above the host's, of any major; the host alone decides, against its floor,
 * whether it can use that answer. A plugin answers TSR_VERSION_UNSUPPORTED
 * only when it speaks nothing at or below the host's version. */
typedef struct tsr_abi_header {
  uint32_t struct_size;
  uint16_t major;
  uint16_t minor;
} tsr_abi_header;

/* Orders two versions: < 0, 0 or > 0 as a is older, equal or newer. */
static inline int tsr_version_compare(tsr_version a, tsr_version b) {
  if (a.major != b.major) return a.major < b.major ? -1 : 1;
  if (a.minor != b.minor) return a.minor < b.minor ? -1 : 1;
  return 0;
}

/* True when `table` (a pointer to a struct starting with tsr_abi_header) is
 * large enough to hold `member` and that member is non-NULL. Use it before
 * every call through a function table member added after v1.0. */
#define TSR_ABI_HAS(table, type, member)                              \
  ((table) != NULL &&                                                 \
   (table)->header.struct_size >=                                     \
       offsetof(type, member) + sizeof(((type*)0)->member) &&         \
   (table)->member != NULL)

/* True when the options struct `opts` is large enough to hold `member`. */
#define TSR_ABI_HAS_FIELD(opts, type, member) \
  ((opts) != NULL &&                          \
   (opts)->header.struct_size >=              \
       offsetof(type, member) + sizeof(((type*)0)->member))

/* Arrays that cross the boundary (since 1.4). Every element is a struct
 * that starts with tsr_abi_header, and element i starts at
 * base + i * stride, where stride is element 0's header.struct_size. Every
 * element of one array carries the same struct_size, a multiple of 8 and no
 * smaller than the struct as the array's version introduced it. A reader
 * steps with the producer's stride, never with its own sizeof, and reads
 * only the members that stride covers (TSR_ABI_HAS_FIELD on the element);
 * a producer compiled against newer headers hands larger elements, an older
 * one smaller, and both are read correctly. An array that breaks the rule
 * is refused: tsr_abi_array_stride checks it. */
static inline bool tsr_abi_array_stride(const void* base, size_t count, size_t min_size, size_t* out_stride) {
  size_t stride = 0;
  size_t i = 0;
  if (count == 0) {
    *out_stride = 0;
    return true;
  }
  if (base == NULL || ((uintptr_t)base % 8u) != 0) return false;
  stride = ((const tsr_abi_header*)base)->struct_size;
  if (stride < min_size || stride % 8u != 0 || count > SIZE_MAX / stride) return false;
  for (i = 1; i < count; ++i)
    if (((const tsr_abi_header*)((const unsigned char*)base + i * stride))->struct_size != stride) return false;
  *out_stride = stride;
  return true;
}

/* Element i of an array checked with tsr_abi_array_stride. */
static inline const void* tsr_abi_array_at(const void* base, size_t stride, size_t i) {
  return (const unsigned char*)base + i * stride;
}

/* ------------------------------------------------------------------------ */
/* Status                                                                   */
/* ------------------------------------------------------------------------ */

/* Every fallible call returns a tsr_status. Zero is OK. Codes 0..16 line up
 * with absl::StatusCode so C++ maps them one to one. The error text of the
 * last failed synchronous call is retrievable from the table that made it
 * (see get_last_error in each table); failures that outlive the call (one
 * partition of a compile, an asynchronous invoke) carry their text on their
 * object and copy it into a caller buffer.
 *
 * Outputs on failure: every call that fails leaves every out_ parameter
 * and every caller-provided output struct untouched. */
typedef int32_t tsr_status;

enum tsr_status_code {
  TSR_OK = 0,
  TSR_CANCELLED = 1,
  TSR_UNKNOWN = 2,
  TSR_INVALID_ARGUMENT = 3,
  TSR_DEADLINE_EXCEEDED = 4,
  TSR_NOT_FOUND = 5,
  TSR_ALREADY_EXISTS = 6,
  TSR_PERMISSION_DENIED = 7,
  TSR_RESOURCE_EXHAUSTED = 8,
  TSR_FAILED_PRECONDITION = 9,
  TSR_ABORTED = 10,
  TSR_OUT_OF_RANGE = 11,
  TSR_UNIMPLEMENTED = 12,
  TSR_INTERNAL = 13,
  TSR_UNAVAILABLE = 14,
  TSR_DATA_LOSS = 15,
  TSR_UNAUTHENTICATED = 16,

  /* Version and bytecode errors have their own range. */
  TSR_VERSION_UNSUPPORTED = 1000,  /* no common ABI version */
  TSR_BYTECODE_INVALID = 1001,     /* envelope or body malformed */
  TSR_BYTECODE_INCOMPATIBLE = 1002,/* well formed, but another vendor, envelope
                                      format or body format */
  TSR_BYTECODE_CHECKSUM = 1003,    /* checksum does not match */
  /* since 1.2. The device behind a context failed for good: every object of
   * that context (executables, buffers, invocations) is dead. Only their
   * release/unload/destroy calls remain valid, and must still be made; the
   * host may create a new context and reload. */
  TSR_DEVICE_LOST = 1004,

  /* since 1.4. Codes from here on are allocated by retry class, in the
   * ranges below, so a host reads the class of a code it does not know from
   * its range (tsr_status_retry_class). 1005..1999 stay unallocated. */
  TSR_STATUS_RANGE_NEVER_FIRST = 2000,        /* permanent */
  TSR_STATUS_RANGE_NEVER_LAST = 2999,
  TSR_STATUS_RANGE_SAME_CALL_FIRST = 3000,    /* transient */
  TSR_STATUS_RANGE_SAME_CALL_LAST = 3999,
  TSR_STATUS_RANGE_NEW_CONTEXT_FIRST = 4000,  /* the context is dead */
  TSR_STATUS_RANGE_NEW_CONTEXT_LAST = 4999,

  /* since 1.4 (TSR_RETRY_NEVER range). A configured limit refuses the
   * request (a vendor option such as cpu.max_memory_bytes, a device memory
   * budget): no amount of freeing makes the same call succeed, unlike
   * RESOURCE_EXHAUSTED. A library returns it only to a host that negotiated
   * 1.4 or later, RESOURCE_EXHAUSTED before. */
  TSR_BUDGET_EXCEEDED = 2000,

  TSR_STATUS_MAX_ENUM = INT32_MAX
};

/* The first version that defines `status`'s value, as its minor within
 * major 1; -1 for a value no version defines yet. A library returns a code
 * only to a host whose negotiated version defines it. */
static inline int32_t tsr_status_since_minor(tsr_status status) {
  if (status >= 0 && status <= 16) return 0;
  if (status >= TSR_VERSION_UNSUPPORTED && status <= TSR_BYTECODE_CHECKSUM) return 0;
  if (status == TSR_DEVICE_LOST) return 2;
  if (status == TSR_BUDGET_EXCEEDED) return 4;
  return -1;
}

/* Retry classes (since 1.2): what a caller may do after a failure, so that
 * hosts react to codes they do not know by class, not by value.
 *   TSR_RETRY_NEVER        permanent for these arguments: do not repeat the
 *                          same call (INVALID_ARGUMENT, NOT_FOUND, UNIMPLEMENTED,
 *                          the bytecode codes, VERSION_UNSUPPORTED, ...).
 *   TSR_RETRY_SAME_CALL    transient: the same call may succeed later
 *                          (UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED,
 *                          RESOURCE_EXHAUSTED once memory was freed).
 *   TSR_RETRY_NEW_CONTEXT  DEVICE_LOST: release everything of the context,
 *                          create a new one, reload, then retry.
 * INTERNAL, UNKNOWN and DATA_LOSS are TSR_RETRY_NEVER: a defect or a
 * corruption does not heal by repetition.
 * Since 1.4 a code at or above 2000 is classed by its range
 * (TSR_STATUS_RANGE_*), so a released host classes codes that later
 * versions add; any other unknown code is TSR_RETRY_NEVER. */
enum tsr_retry_class {
  TSR_RETRY_NEVER = 0,
  TSR_RETRY_SAME_CALL = 1,
  TSR_RETRY_NEW_CONTEXT = 2,
  TSR_RETRY_CLASS_MAX_ENUM = INT32_MAX
};

static inline int32_t tsr_status_retry_class(tsr_status status) {
  switch (status) {
    case TSR_UNAVAILABLE:
    case TSR_DEADLINE_EXCEEDED:
    case TSR_ABORTED:
    case TSR_RESOURCE_EXHAUSTED:
      return TSR_RETRY_SAME_CALL;
    case TSR_DEVICE_LOST:
      return TSR_RETRY_NEW_CONTEXT;
    default:
      break;
  }
  if (status >= TSR_STATUS_RANGE_SAME_CALL_FIRST && status <= TSR_STATUS_RANGE_SAME_CALL_LAST)
    return TSR_RETRY_SAME_CALL;
  if (status >= TSR_STATUS_RANGE_NEW_CONTEXT_FIRST && status <= TSR_STATUS_RANGE_NEW_CONTEXT_LAST)
    return TSR_RETRY_NEW_CONTEXT;
  return TSR_RETRY_NEVER;
}

/* Lets the compiler force callers to look at a returned status. Every
 * status-returning table member carries it. (GCC warns even through a
 * (void) cast; deliberately ignored results need an explicit branch.) */
#if defined(__GNUC__) || defined(__clang__)
#define TSR_MUST_USE_RESULT __attribute__((warn_unused_result))
#else
#define TSR_MUST_USE_RESULT
#endif

/* Marks the one exported entry symbol of a plugin library. */
#if defined(_WIN32)
#define TSR_EXPORT __declspec(dllexport)
#else
#define TSR_EXPORT __attribute__((visibility("default")))
#endif

/* ------------------------------------------------------------------------ */
/* Opaque handles                                                           */
/* ------------------------------------------------------------------------ */

/* Every handle is a pointer to a forward-declared struct that only its
 * owner defines. */
#define TSR_DEFINE_HANDLE(name) typedef struct name##_s* name

/* A JIT result: lives in process memory only, never serialized, never
 * cached. The compiler plugin makes it (compiler_plugin.h) and only the
 * same vendor's dispatch library interprets it (dispatch.h), so it is
 * declared here, where both headers see it without seeing each other. */
TSR_DEFINE_HANDLE(tsr_jit_handle);

/* ------------------------------------------------------------------------ */
/* Element types                                                            */
/* ------------------------------------------------------------------------ */

enum tsr_dtype {
  TSR_DTYPE_UNKNOWN = 0,
  TSR_DTYPE_F32 = 1,
  TSR_DTYPE_F16 = 2,
  TSR_DTYPE_I8 = 3,
  TSR_DTYPE_U8 = 4,
  TSR_DTYPE_I32 = 5,
  TSR_DTYPE_I64 = 6,
  TSR_DTYPE_BOOL = 7, /* one byte per element, 0 or 1 */
  TSR_DTYPE_MAX_ENUM = INT32_MAX
};

/* ------------------------------------------------------------------------ */
/* Quantization                                                             */
/* ------------------------------------------------------------------------ */

/* real_value = scale * (quantized_value - zero_point).
 * Per-tensor when count == 1; per-channel along `axis` otherwise.
 * The arrays are borrowed; see the function that returned the struct.
 *
 * FROZEN: this struct has no tsr_abi_header, so it can never grow; its
 * 24-byte layout is pinned. Schemes it cannot express (block-wise scales,
 * int4, asymmetric per-group) will come through a new, headed struct and
 * accessor (planned: tsr_quantization_ex via a graph-view member appended
 * after 1.2), never by changing this one. */
typedef struct tsr_quantization {
  uint32_t count;            /* 0 when the tensor is not quantized */
  int32_t axis;              /* channel axis when count > 1, else -1 */
  const float* scales;       /* count entries */
  const int64_t* zero_points;/* count entries */
} tsr_quantization; /* frozen at 1.0 */

/* ------------------------------------------------------------------------ */
/* Key/value options                                                        */
/* ------------------------------------------------------------------------ */

/* Plugin options arrive as strings, e.g. {"systolic_npu.dataflow", "os"}.
 * A plugin ignores keys outside its own "<vendor>." prefix and rejects
 * unknown keys inside it with TSR_INVALID_ARGUMENT. */
typedef struct tsr_key_value {
  const char* key;
  const char* value;
} tsr_key_value;

/* ------------------------------------------------------------------------ */
/* Logging                                                                  */
/* ------------------------------------------------------------------------ */

enum tsr_log_severity {
  TSR_LOG_DEBUG = 0,
  TSR_LOG_INFO = 1,
  TSR_LOG_WARNING = 2,
  TSR_LOG_ERROR = 3,
  TSR_LOG_SEVERITY_MAX_ENUM = INT32_MAX
};

/* Host-provided sink for plugin log lines. `message` is borrowed for the
 * call. Must be thread-safe on the host side. */
typedef void (*tsr_log_fn)(void* user_data, int32_t severity,
                           const char* message);

/* ------------------------------------------------------------------------ */
/* Buffer types                                                             */
/* ------------------------------------------------------------------------ */

/* Kinds of memory a dispatch library may accept. Zero-copy between two
 * stages exists only where their accepted sets intersect; elsewhere the
 * runtime inserts a conversion and reports it.
 *
 * Namespace rule (since 1.2; it was silent before): only HOST and DMABUF
 * mean the same memory in every library. DEVICE_DRAM and every value at or
 * above TSR_BUFFER_TYPE_VENDOR_BASE are scoped to the dispatch library (and
 * context) that lists them: two libraries that both list DEVICE_DRAM, or
 * both pick VENDOR_BASE + 1, do NOT share memory, and a host must never
 * hand one library's such buffer to another. A library names its types
 * through get_buffer_type_info (dispatch.h), and those names are what the
 * SoC file's [transfer.A.B] sections use (docs/soc.md). */
enum tsr_buffer_type {
  TSR_BUFFER_TYPE_UNKNOWN = 0,
  TSR_BUFFER_TYPE_HOST = 1,         /* plain CPU memory, any allocator; shared */
  TSR_BUFFER_TYPE_DMABUF = 2,       /* Linux dma-buf fd, CPU-mappable; shared */
  TSR_BUFFER_TYPE_DEVICE_DRAM = 3,  /* the library's own device-local DRAM; library-scoped */
  TSR_BUFFER_TYPE_VENDOR_BASE = 0x10000, /* vendor types: library-scoped */
  TSR_BUFFER_TYPE_MAX_ENUM = INT32_MAX
};

/* True when buffers of `type` mean the same memory in every library. */
static inline int tsr_buffer_type_is_shared(int32_t type) {
  return type == TSR_BUFFER_TYPE_HOST || type == TSR_BUFFER_TYPE_DMABUF;
}

enum tsr_layout {
  TSR_LAYOUT_DENSE = 0,   /* row-major, no padding */
  TSR_LAYOUT_STRIDED = 1, /* row-major with row_stride_bytes padding */
  TSR_LAYOUT_VENDOR = 2,  /* opaque, only the vendor reads it */
  TSR_LAYOUT_STRIDED_ND = 3, /* since 1.2: tsr_buffer_layout.strides_bytes[] */
  TSR_LAYOUT_MAX_ENUM = INT32_MAX
};

/* Compilation modes a compiler plugin offers (bit flags). */
#define TSR_COMPILE_MODE_AOT ((uint32_t)1u << 0)
#define TSR_COMPILE_MODE_JIT ((uint32_t)1u << 1)

/* The sanitizer a plugin was built with (since 1.2, in both info structs).
 * ASan/TSan/MSan code is only usable in a host built with the same one;
 * hosts and the conformance suite refuse mismatches. */
enum tsr_sanitizer {
  TSR_SANITIZER_NONE = 0,
  TSR_SANITIZER_ADDRESS = 1,  /* ASan (with or without UBSan) */
  TSR_SANITIZER_THREAD = 2,   /* TSan */
  TSR_SANITIZER_MEMORY = 3,   /* MSan */
  TSR_SANITIZER_MAX_ENUM = INT32_MAX
};

/* Copies NUL-terminated `text` into out[0..capacity), always terminating it
 * when capacity > 0, and reports the full length in *out_length (may be
 * NULL). The one rule of every "text into a caller buffer" call (since 1.2):
 * a too-small buffer gets a truncated, terminated prefix and the call still
 * succeeds; the caller compares *out_length with capacity. */
static inline void tsr_copy_text(const char* text, char* out, size_t capacity, size_t* out_length) {
  size_t n = 0;
  if (text == NULL) text = "";
  while (text[n] != '\0') ++n;
  if (out != NULL && capacity > 0) {
    size_t k = n < capacity - 1 ? n : capacity - 1;
    for (size_t i = 0; i < k; ++i) out[i] = text[i];
    out[k] = '\0';
  }
  if (out_length != NULL) *out_length = n;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_COMMON_H_ */
