/*
 * Tessera C ABI: the dispatch library.
 *
 * A vendor ships libtessera_dispatch_<vendor>.so exporting exactly one
 * symbol, TSR_DISPATCH_ENTRY. It runs what the vendor's compiler produced:
 * AOT bytecode (read from the model file) or a JIT handle (held in memory).
 * An AOT model must run where only the dispatch library is installed.
 *
 * Several dispatch libraries are active in one process at once; nothing in
 * this table is process-global. Call order:
 *   entry (negotiate) -> get_info -> create_device_context
 *   -> load_executable -> buffer_requirements -> allocate/register buffers
 *   -> create_invocation -> attach_* -> invoke* -> metrics
 *   -> destroy_invocation -> release buffers -> unload_executable
 *   -> destroy_device_context.
 *
 * Threading (the full matrix is docs/abi.md section 8):
 *   library     negotiate, get_last_error, get_info, create_device_context:
 *               thread-safe. One library may have several contexts alive.
 *   context     load_executable, unload_executable, allocate_buffer,
 *               register_buffer, release_buffer, destroy_device_context:
 *               externally synchronized per context. load_executable MAY run
 *               while other threads invoke invocations of that context.
 *   executable  executable_io_count, buffer_requirements, executable_numerics
 *               and the other executable queries: thread-safe.
 *               create_invocation: externally synchronized per executable.
 *   buffer      map_buffer, unmap_buffer: externally synchronized per buffer.
 *   invocation  attach_*, detach_*, invoke, metric_count, get_metric,
 *               destroy_invocation: externally synchronized per invocation.
 *               Distinct invocations, even of one executable, may invoke
 *               concurrently (an executable shares nothing mutable between
 *               its invocations).
 *
 * After a failed invoke the outputs' contents are undefined; the invocation
 * stays usable unless the status is TSR_DEVICE_LOST (common.h).
 */
#ifndef TESSERA_DISPATCH_H_
#define TESSERA_DISPATCH_H_

#include "tessera/common.h"

#ifdef __cplusplus
extern "C" {
#endif

TSR_DEFINE_HANDLE(tsr_device_context);
TSR_DEFINE_HANDLE(tsr_executable);
TSR_DEFINE_HANDLE(tsr_buffer);
TSR_DEFINE_HANDLE(tsr_invocation);

#define TSR_MAX_BUFFER_TYPES 8

/* Capability bits of a dispatch library. */
#define TSR_DISPATCH_CAP_BYTECODE ((uint32_t)1u << 0)   /* loads AOT */
#define TSR_DISPATCH_CAP_JIT_HANDLE ((uint32_t)1u << 1) /* loads JIT */

typedef struct tsr_dispatch_info {
  tsr_abi_header header;
  const char* vendor;            /* must equal the compiler's vendor */
  const char* library_version;
  const char* const* soc_models; /* SoC models it runs */
  size_t soc_model_count;
  uint32_t capabilities;         /* TSR_DISPATCH_CAP_* */
  /* end of v1: do not modify above */

  /* Names 1.1's 4 bytes of tail padding (inside a 1.1 struct_size of 48):
   * never read. */
  uint32_t reserved0;
  int32_t sanitizer;             /* since 1.2. tsr_sanitizer */
  uint32_t reserved1;            /* 0 */
  /* since 1.2. Exact build identity, static, never NULL. */
  const char* build_id;
  /* end of v1.2: do not modify above */
} tsr_dispatch_info;

typedef struct tsr_device_context_options {
  tsr_abi_header header;
  const tsr_key_value* options; /* borrowed for the call */
  size_t option_count;
  const char* soc_model;        /* NULL = library default */
  const char* soc_description;  /* SoC file contents, borrowed; may be NULL */
  size_t soc_description_size;
  tsr_log_fn log;               /* may be NULL */
  void* log_user_data;
  /* end of v1: do not modify above */
} tsr_device_context_options;

enum tsr_executable_kind {
  TSR_EXECUTABLE_BYTECODE = 0,  /* AOT bytecode in the standard envelope */
  TSR_EXECUTABLE_JIT_HANDLE = 1,
  TSR_EXECUTABLE_KIND_MAX_ENUM = INT32_MAX
};

/* since 1.4. The bytes of one graph constant that the bytecode references
 * by key (tsr_constant_reference): borrowed until unload_executable, usually
 * pointing into the mapped model, never copied by the host. `data` is at
 * least 64-byte aligned (TSR_CONSTANT_ALIGNMENT), so a library may hand it
 * to vector loads or a DMA engine as it is. Arrays of it are headed arrays
 * (common.h, tsr_abi_array_stride): header.struct_size is the stride. */
typedef struct tsr_constant_binding {
  tsr_abi_header header;        /* struct_size = the host's sizeof */
  uint32_t key;                 /* as compiled_constant_references gave it */
  uint32_t flags;               /* none defined in 1.4: 0; a library ignores
                                   bits it does not know */
  const void* data;             /* never NULL when size_bytes > 0 */
  uint64_t size_bytes;
  /* Where the same bytes live in a file, so a library can map them itself
   * (into device memory, or with its own page attributes): `fd` is a
   * readable descriptor borrowed until unload_executable, `file_offset` the
   * bytes' offset in it (a multiple of TSR_CONSTANT_ALIGNMENT). fd = -1:
   * no file, use `data`. */
  uint64_t file_offset;
  int32_t fd;
  uint32_t reserved0;           /* 0, never read */
  /* end of v1.4: do not modify above */
} tsr_constant_binding;

/* The alignment, in bytes, of every tsr_constant_binding.data. */
#define TSR_CONSTANT_ALIGNMENT 64u

typedef struct tsr_executable_source {
  tsr_abi_header header;
  int32_t kind;                 /* tsr_executable_kind */
  uint32_t reserved0;           /* names an interior hole; 0, never read */
  /* BYTECODE: the whole blob (envelope included). It stays valid and
   * unchanged until unload_executable (it usually points into the
   * memory-mapped model), so the library may execute it in place. The
   * library verifies the envelope and the body before use. */
  const void* bytecode;
  size_t bytecode_size;
  const char* entry_point;      /* NUL-terminated, borrowed for the call */
  tsr_jit_handle jit_handle;    /* JIT_HANDLE: valid until unload */
  /* end of v1: do not modify above */

  uint32_t flags;               /* since 1.2. TSR_SOURCE_FLAG_* */
  uint32_t reserved1;           /* 0 */
  /* end of v1.2: do not modify above */

  /* since 1.4. BYTECODE: one binding per constant the entry point's
   * partition references (distinct keys), borrowed until unload: a headed
   * array (common.h, tsr_abi_array_stride), its stride constants[0]'s
   * header.struct_size, never the library's sizeof. A
   * struct_size that does not cover these members means no bindings; a
   * library whose bytecode needs one it did not get refuses the load. */
  const tsr_constant_binding* constants;
  size_t constant_count;
  /* end of v1.4: do not modify above */
} tsr_executable_source;

/* The host ran tsr_bytecode_verify (checksum included) on exactly these
 * bytes in this process, and they are unchanged since: the library may skip
 * the envelope checksum (it still checks bounds and its own body). Lets N
 * entry points of one blob cost one CRC, not N. */
#define TSR_SOURCE_FLAG_ENVELOPE_VERIFIED ((uint32_t)1u << 0)

enum tsr_io_kind {
  TSR_IO_INPUT = 0,
  TSR_IO_OUTPUT = 1,
  TSR_IO_KIND_MAX_ENUM = INT32_MAX
};

/* What an executable accepts for one input or output. */
typedef struct tsr_buffer_requirements {
  tsr_abi_header header;
  /* tsr_buffer_type values, most preferred first. */
  int32_t buffer_types[TSR_MAX_BUFFER_TYPES];
  uint32_t buffer_type_count;
  uint32_t alignment;           /* bytes, power of two */
  uint64_t size_bytes;          /* minimum buffer size */
  int32_t layout;               /* tsr_layout */
  uint32_t reserved0;           /* names an interior hole; never read */
  uint64_t row_stride_bytes;    /* TSR_LAYOUT_STRIDED only */
  int32_t dtype;                /* element type the executable expects */
  /* end of v1: do not modify above */

  /* Names 1.1's 4 bytes of tail padding (inside a 1.1 struct_size of 80):
   * never read. */
  uint32_t reserved1;
  /* end of v1.2: do not modify above */
} tsr_buffer_requirements;

/* since 1.2. One accepted memory layout of an input or output, as an
 * alternative to the single layout of tsr_buffer_requirements ("DEVICE_DRAM
 * in a tile layout, or HOST dense"). */
#define TSR_MAX_RANK 8
typedef struct tsr_buffer_layout {
  tsr_abi_header header;
  int32_t buffer_type;          /* tsr_buffer_type (namespace rule: common.h) */
  int32_t layout;               /* tsr_layout, or TSR_LAYOUT_STRIDED_ND */
  uint32_t alignment;           /* bytes, power of two */
  uint32_t rank;                /* STRIDED_ND: entries used in strides_bytes */
  uint64_t size_bytes;          /* minimum buffer size */
  int64_t strides_bytes[TSR_MAX_RANK]; /* STRIDED_ND only, outermost first */
  uint64_t vendor_layout_id;    /* VENDOR only: equal ids are compatible
                                   within this library */
  /* end of v1.2: do not modify above */
} tsr_buffer_layout;

/* since 1.2. A buffer type this library accepts, by name. */
#define TSR_BUFFER_TYPE_FLAG_HOST_MAPPABLE ((uint32_t)1u << 0) /* map_buffer works */
#define TSR_BUFFER_TYPE_FLAG_HOST_COHERENT ((uint32_t)1u << 1) /* no cache maintenance */
#define TSR_BUFFER_TYPE_FLAG_IMPORT_HOST   ((uint32_t)1u << 2) /* register_buffer of host memory */
#define TSR_BUFFER_TYPE_FLAG_IMPORT_DMABUF ((uint32_t)1u << 3) /* register_buffer of an fd */
typedef struct tsr_buffer_type_info {
  tsr_abi_header header;
  int32_t type;                 /* the value requirements use */
  uint32_t flags;               /* TSR_BUFFER_TYPE_FLAG_* */
  /* "host", "dmabuf", or the library's own name ("npu_dram", "dsp_tcm"):
   * [a-z0-9_]+, what the SoC file's [transfer.A.B] sections use. Static. */
  const char* name;
  uint32_t min_alignment;       /* bytes, power of two */
  uint32_t reserved0;           /* 0 */
  uint64_t max_size_bytes;      /* largest single buffer; 0 = no limit */
  /* end of v1.2: do not modify above */
} tsr_buffer_type_info;

typedef struct tsr_buffer_desc {
  tsr_abi_header header;
  int32_t buffer_type;          /* tsr_buffer_type */
  uint32_t reserved0;           /* names an interior hole; never read */
  uint64_t size_bytes;
  uint32_t alignment;           /* allocate: wanted alignment; 0 = default */
  uint32_t reserved1;           /* names an interior hole; never read */
  /* register only: caller memory (HOST) or fd + offset (DMABUF). The
   * memory must stay valid until release_buffer. The fd is borrowed for
   * the call: a library that keeps it dup()s it and closes its own copy at
   * release_buffer; the caller still owns and closes the original. */
  void* host_address;
  int32_t fd;
  uint32_t reserved2;           /* names an interior hole; never read */
  uint64_t offset;
  /* end of v1: do not modify above */
} tsr_buffer_desc;

typedef struct tsr_metric {
  tsr_abi_header header;
  const char* name;             /* e.g. "cycles_total"; get_metric: valid
                                   until the next invoke or
                                   destroy_invocation; executable_metric_info
                                   (1.2): until unload_executable */
  double value;
  const char* unit;             /* e.g. "cycles", "bytes", "us"; may be "" */
  /* end of v1: do not modify above */
} tsr_metric;

/* How an executable computes its floating-point results (ABI 1.1). A runner
 * uses it to compare results fairly against an FP32 reference and to say
 * which partitions ran in reduced precision. Integer outputs (quantized
 * int8 included) carry no tolerance: they must match the reference
 * pipeline of docs/ops.md exactly. */
enum tsr_precision {
  TSR_PRECISION_FP32 = 0,  /* full FP32: differs from the reference only by
                              summation order (the runner's own tolerance) */
  TSR_PRECISION_FP16 = 1,  /* some float math in FP16 */
  TSR_PRECISION_BF16 = 2,  /* some float math in BF16 */
  TSR_PRECISION_MAX_ENUM = INT32_MAX
};

typedef struct tsr_numerics {
  tsr_abi_header header;
  int32_t float_precision;     /* tsr_precision: the lowest precision any float
                                  output of the executable is computed in */
  uint32_t reserved;           /* 0 */
  /* Declared: every float output y of the executable, against an FP32
   * reference of the same ops on the same inputs, satisfies
   * |y - y_ref| <= absolute_tolerance + relative_tolerance * |y_ref|.
   * 0 and 0 with FP32 = "use the runner's own tolerance". */
  double relative_tolerance;
  double absolute_tolerance;
  const char* description;     /* e.g. "FP16 operands, FP32 accumulation";
                                  static, never NULL (may be "") */
  /* end of v1.1: do not modify above */
} tsr_numerics;

/* since 1.2. Whether a compiled blob suits this library and context. */
enum tsr_compatibility {
  TSR_COMPATIBILITY_OPTIMAL = 0,
  TSR_COMPATIBILITY_PREFER_RECOMPILE = 1, /* runs, but a recompile is better */
  TSR_COMPATIBILITY_UNSUPPORTED = 2,      /* will not load */
  TSR_COMPATIBILITY_MAX_ENUM = INT32_MAX
};

/* since 1.2. Host timestamps of the last invoke, on CLOCK_MONOTONIC. */
typedef struct tsr_invocation_timing {
  tsr_abi_header header;
  uint64_t start_ns;            /* 0 = unknown */
  uint64_t end_ns;              /* 0 = unknown */
  double device_time_us;        /* modelled or measured; < 0 = unknown */
  /* end of v1.2: do not modify above */
} tsr_invocation_timing;

/* since 1.2. Asynchronous execution on timelines, IREE-style: a timeline
 * is a uint64 that only grows; waiting for value v waits for every signal up
 * to v. Steady state allocates nothing (the next run signals value + 1). A
 * failure is sticky on the timeline with its text. Optional: a library
 * without it sets tsr_dispatch_api.async to NULL (every bundled library
 * does today). */
TSR_DEFINE_HANDLE(tsr_timeline);
typedef struct tsr_timeline_point {
  tsr_timeline timeline;
  uint64_t value;
} tsr_timeline_point;

typedef struct tsr_dispatch_async_api {
  tsr_abi_header header;
  /* Thread-safe. Caller owns *out (destroy_timeline). */
  TSR_MUST_USE_RESULT tsr_status (*create_timeline)(tsr_device_context context, uint64_t initial_value,
                                                    tsr_timeline* out);
  /* Accepts NULL. Blocks until every queued signal of the timeline ran. */
  void (*destroy_timeline)(tsr_timeline timeline);
  /* Queue the invocation to run after every wait point; signal `signal`
   * when done, or fail the timeline with the error. The attached buffers
   * stay borrowed until the signal. Externally synchronized per
   * invocation; waits/wait_count borrowed for the call. */
  TSR_MUST_USE_RESULT tsr_status (*invoke_async)(tsr_invocation invocation, const tsr_timeline_point* waits,
                                                 size_t wait_count, tsr_timeline_point signal);
  /* Thread-safe. TSR_OK once reached, TSR_DEADLINE_EXCEEDED on timeout,
   * else the timeline's failure. timeout_ns = UINT64_MAX waits forever. */
  TSR_MUST_USE_RESULT tsr_status (*wait)(tsr_timeline_point point, uint64_t timeout_ns);
  /* Thread-safe. The value reached so far and the sticky failure (TSR_OK if
   * none); its text copied as tsr_copy_text does. */
  TSR_MUST_USE_RESULT tsr_status (*query)(tsr_timeline timeline, uint64_t* out_value, tsr_status* out_failure,
                                          char* out_text, size_t text_capacity, size_t* out_text_length);
  /* Thread-safe. Host-side signal (app-produced inputs). */
  TSR_MUST_USE_RESULT tsr_status (*signal)(tsr_timeline_point point);
  /* end of v1.2: do not modify above */
} tsr_dispatch_async_api;

typedef struct tsr_dispatch_api {
  tsr_abi_header header;

  /* Thread-safe. After a call through this table fails: that call's text,
   * never empty, valid until the next call into this library on this
   * thread. After a success the text is unspecified: read it only right
   * after a failure. Never NULL. */
  const char* (*get_last_error)(void);

  /* Thread-safe; *out_info valid until the library is unloaded. */
  TSR_MUST_USE_RESULT tsr_status (*get_info)(const tsr_dispatch_info** out_info);

  /* Caller owns *out_context. Thread-safe. */
  TSR_MUST_USE_RESULT tsr_status (*create_device_context)(const tsr_device_context_options* opts,
                                      tsr_device_context* out_context);
  /* Accepts NULL. Externally synchronized per context. All executables and
   * buffers must be released first. */
  void (*destroy_device_context)(tsr_device_context context);

  /* Verify and load. Caller owns *out_executable. Malformed bytecode yields
   * TSR_BYTECODE_INVALID / _CHECKSUM / _INCOMPATIBLE, never a crash.
   * Externally synchronized per context, but may run while other threads
   * invoke invocations of the same context. */
  TSR_MUST_USE_RESULT tsr_status (*load_executable)(tsr_device_context context,
                                const tsr_executable_source* source,
                                tsr_executable* out_executable);
  /* Accepts NULL. Externally synchronized per context; every invocation of
   * the executable must be destroyed first. */
  void (*unload_executable)(tsr_executable executable);

  /* Number of inputs and outputs of the loaded entry point. Thread-safe. */
  TSR_MUST_USE_RESULT tsr_status (*executable_io_count)(tsr_executable executable,
                                    size_t* out_inputs, size_t* out_outputs);

  /* Thread-safe. The caller sets out->header.struct_size. */
  TSR_MUST_USE_RESULT tsr_status (*buffer_requirements)(tsr_executable executable, int32_t io_kind,
                                    size_t index,
                                    tsr_buffer_requirements* out);

  /* Library-owned memory of a type it supports. Caller owns *out_buffer.
   * Externally synchronized per context. */
  TSR_MUST_USE_RESULT tsr_status (*allocate_buffer)(tsr_device_context context,
                                const tsr_buffer_desc* desc,
                                tsr_buffer* out_buffer);
  /* Wrap caller memory (zero-copy). Caller owns *out_buffer and keeps the
   * memory alive until release_buffer. Externally synchronized per context. */
  TSR_MUST_USE_RESULT tsr_status (*register_buffer)(tsr_device_context context,
                                const tsr_buffer_desc* desc,
                                tsr_buffer* out_buffer);
  /* Accepts NULL. Externally synchronized per context; the buffer must not
   * be attached to a live invocation. */
  void (*release_buffer)(tsr_buffer buffer);
  /* CPU access to a buffer's bytes; valid until unmap_buffer. Externally
   * synchronized per buffer. */
  TSR_MUST_USE_RESULT tsr_status (*map_buffer)(tsr_buffer buffer, void** out_host_address);
  TSR_MUST_USE_RESULT tsr_status (*unmap_buffer)(tsr_buffer buffer);

  /* Caller owns *out_invocation. Externally synchronized per executable. */
  TSR_MUST_USE_RESULT tsr_status (*create_invocation)(tsr_executable executable,
                                  tsr_invocation* out_invocation);
  /* Accepts NULL. Externally synchronized per invocation. */
  void (*destroy_invocation)(tsr_invocation invocation);
  /* The buffer is borrowed until detached (detach_*, 1.2), re-attached or
   * the invocation is destroyed. Its type must be one the requirements
   * list. Externally synchronized per invocation. */
  TSR_MUST_USE_RESULT tsr_status (*attach_input)(tsr_invocation invocation, size_t index,
                             tsr_buffer buffer);
  TSR_MUST_USE_RESULT tsr_status (*attach_output)(tsr_invocation invocation, size_t index,
                              tsr_buffer buffer);
  /* Runs synchronously. Every input and output must be attached.
   * Externally synchronized per invocation; distinct invocations may run
   * concurrently. */
  TSR_MUST_USE_RESULT tsr_status (*invoke)(tsr_invocation invocation);

  /* Metrics of the last invoke (cycles, bytes moved, modelled time...).
   * Externally synchronized per invocation (not concurrently with its
   * invoke). out->header.struct_size set by the caller. */
  TSR_MUST_USE_RESULT tsr_status (*metric_count)(tsr_invocation invocation, size_t* out_count);
  TSR_MUST_USE_RESULT tsr_status (*get_metric)(tsr_invocation invocation, size_t index,
                           tsr_metric* out);
  /* end of v1: do not modify above */

  /* ABI 1.1. How the loaded executable computes (see tsr_numerics); the
   * caller sets out->header.struct_size. A 1.0 library lacks it (check with
   * TSR_ABI_HAS): hosts then assume FP32. Thread-safe. */
  TSR_MUST_USE_RESULT tsr_status (*executable_numerics)(tsr_executable executable,
                                                       tsr_numerics* out);
  /* end of v1.1: do not modify above */

  /* since 1.2, optional. Whether a blob compiled with `compatibility_info`
   * (the compiler's compatibility string, may be NULL when unknown) suits
   * this context. Cheap: reads the envelope header, never the whole body.
   * Thread-safe. */
  TSR_MUST_USE_RESULT tsr_status (*check_compatibility)(tsr_device_context context, const void* bytecode,
                                                       size_t bytecode_size, const char* compatibility_info,
                                                       int32_t* out_compatibility);
  /* since 1.2. Undo attach_*: the invocation no longer borrows the buffer;
   * invoke then fails until something is attached again. Externally
   * synchronized per invocation. */
  TSR_MUST_USE_RESULT tsr_status (*detach_input)(tsr_invocation invocation, size_t index);
  TSR_MUST_USE_RESULT tsr_status (*detach_output)(tsr_invocation invocation, size_t index);
  /* since 1.2. The buffer types this library accepts, by name (see
   * tsr_buffer_type_info); the caller sets out->header.struct_size.
   * Thread-safe. */
  TSR_MUST_USE_RESULT tsr_status (*buffer_type_count)(tsr_device_context context, size_t* out_count);
  TSR_MUST_USE_RESULT tsr_status (*get_buffer_type_info)(tsr_device_context context, size_t index,
                                                        tsr_buffer_type_info* out);
  /* since 1.2, optional. Layout alternatives of one input or output, most
   * preferred first; alternative 0 equals what buffer_requirements reports.
   * The caller sets out->header.struct_size. Thread-safe. */
  TSR_MUST_USE_RESULT tsr_status (*buffer_layout_count)(tsr_executable executable, int32_t io_kind,
                                                       size_t index, size_t* out_count);
  TSR_MUST_USE_RESULT tsr_status (*get_buffer_layout)(tsr_executable executable, int32_t io_kind, size_t index,
                                                     size_t alternative, tsr_buffer_layout* out);
  /* since 1.2, optional. Copy or convert between two buffers of this
   * library (a DMA, a relayout), synchronously. Layouts borrowed for the
   * call. Externally synchronized per context. */
  TSR_MUST_USE_RESULT tsr_status (*convert_buffer)(tsr_device_context context, tsr_buffer src,
                                                  const tsr_buffer_layout* src_layout, tsr_buffer dst,
                                                  const tsr_buffer_layout* dst_layout);
  /* since 1.2. NULL = synchronous only. Owned by the library, static. */
  const tsr_dispatch_async_api* async;
  /* since 1.2. Metric descriptors stable per executable: names and units
   * valid until unload_executable (value ignored), so a profiler reads
   * them once and then only values. Thread-safe. */
  TSR_MUST_USE_RESULT tsr_status (*executable_metric_count)(tsr_executable executable, size_t* out_count);
  TSR_MUST_USE_RESULT tsr_status (*executable_metric_info)(tsr_executable executable, size_t index,
                                                          tsr_metric* out);
  /* since 1.2. Values of the last invoke, in descriptor order; `count` must
   * equal executable_metric_count. No strings, no allocation. Externally
   * synchronized per invocation. */
  TSR_MUST_USE_RESULT tsr_status (*invocation_metric_values)(tsr_invocation invocation, double* out_values,
                                                            size_t count);
  /* since 1.2. Timestamps of the last invoke; the caller sets
   * out->header.struct_size. Externally synchronized per invocation. */
  TSR_MUST_USE_RESULT tsr_status (*invocation_timing)(tsr_invocation invocation, tsr_invocation_timing* out);
  /* end of v1.2: do not modify above */
} tsr_dispatch_api;

/* The one exported symbol; negotiation as in compiler_plugin.h. */
#define TSR_DISPATCH_ENTRY "tsr_dispatch_negotiate"
typedef TSR_MUST_USE_RESULT tsr_status (*tsr_dispatch_negotiate_fn)(
    tsr_version host_version, tsr_version* out_version,
    const tsr_dispatch_api** out_api);

/* since 1.4. The entry symbol's prototype, inside extern "C" and with
 * TSR_EXPORT: a C++ definition that forgets extern "C" (or TSR_EXPORT) still
 * defines and exports the C name the host looks up, instead of a mangled
 * one dlsym cannot find. Define TSR_NO_PROTOTYPES before including to leave
 * it out (as VK_NO_PROTOTYPES does for Vulkan). */
#ifndef TSR_NO_PROTOTYPES
TSR_EXPORT tsr_status tsr_dispatch_negotiate(tsr_version host_version, tsr_version* out_version,
                                           const tsr_dispatch_api** out_api);
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_DISPATCH_H_ */
