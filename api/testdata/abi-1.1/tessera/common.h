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

/* The ABI version this header describes. Minor versions only append. */
#define TSR_ABI_VERSION_MAJOR 1
#define TSR_ABI_VERSION_MINOR 1

/* The oldest ABI version a host built from this header will speak. A plugin
 * that answers below it is refused. */
#define TSR_ABI_VERSION_FLOOR_MAJOR 1
#define TSR_ABI_VERSION_FLOOR_MINOR 0

typedef struct tsr_version {
  uint16_t major;
  uint16_t minor;
} tsr_version;

/* First member of every function table and every options struct.
 * struct_size is sizeof() the struct as the producer compiled it; a reader
 * touches a member only if struct_size covers it (TSR_ABI_HAS). */
typedef struct tsr_abi_header {
  uint32_t struct_size;
  uint16_t major;
  uint16_t minor;
} tsr_abi_header;

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

/* ------------------------------------------------------------------------ */
/* Status                                                                   */
/* ------------------------------------------------------------------------ */

/* Every fallible call returns a tsr_status. Zero is OK. Codes 0..16 line up
 * with absl::StatusCode so C++ maps them one to one. The error text of the
 * last failed call is retrievable from the table that made it (see
 * get_last_error in each table). */
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
  TSR_BYTECODE_INCOMPATIBLE = 1002,/* well formed, wrong vendor/SoC/ABI */
  TSR_BYTECODE_CHECKSUM = 1003,    /* checksum does not match */

  TSR_STATUS_MAX_ENUM = INT32_MAX
};

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
 * The arrays are borrowed; see the function that returned the struct. */
typedef struct tsr_quantization {
  uint32_t count;            /* 0 when the tensor is not quantized */
  int32_t axis;              /* channel axis when count > 1, else -1 */
  const float* scales;       /* count entries */
  const int64_t* zero_points;/* count entries */
} tsr_quantization;

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
 * runtime inserts a conversion and reports it. Values below
 * TSR_BUFFER_TYPE_VENDOR_BASE are reserved for Tessera. A vendor picks its
 * own types at or above it (and documents them). */
enum tsr_buffer_type {
  TSR_BUFFER_TYPE_UNKNOWN = 0,
  TSR_BUFFER_TYPE_HOST = 1,         /* plain CPU memory, any allocator */
  TSR_BUFFER_TYPE_DMABUF = 2,       /* Linux dma-buf fd, CPU-mappable */
  TSR_BUFFER_TYPE_DEVICE_DRAM = 3,  /* device-local DRAM carve-out */
  TSR_BUFFER_TYPE_VENDOR_BASE = 0x10000,
  TSR_BUFFER_TYPE_MAX_ENUM = INT32_MAX
};

enum tsr_layout {
  TSR_LAYOUT_DENSE = 0,   /* row-major, no padding */
  TSR_LAYOUT_STRIDED = 1, /* row-major with row_stride_bytes padding */
  TSR_LAYOUT_VENDOR = 2,  /* opaque, only the vendor reads it */
  TSR_LAYOUT_MAX_ENUM = INT32_MAX
};

/* Compilation modes a compiler plugin offers (bit flags). */
#define TSR_COMPILE_MODE_AOT ((uint32_t)1u << 0)
#define TSR_COMPILE_MODE_JIT ((uint32_t)1u << 1)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_COMMON_H_ */
