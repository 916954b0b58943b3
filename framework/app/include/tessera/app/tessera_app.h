/*
 * Tessera's app API in C, over the C++ one (tessera_app.hpp), for other
 * languages. Opaque handles, the plugin ABI's status codes
 * (tessera/common.h), and text for every error.
 *
 * Errors: a call that fails returns a non-OK tsr_status, leaves its out_
 * parameters untouched, and sets the calling thread's error text, which
 * tsr_app_last_error() returns (never NULL; valid until the next tsr_app_
 * call on this thread).
 *
 * Threads: environments, models and compiled models are immutable and may
 * be used from any thread. A run context may be shared too: its runs are
 * serialized (one at a time, each complete); for runs in parallel make one
 * context per thread from a shared compiled model.
 *
 * Handles (app API 8) are checked: each is an entry of the library's
 * handle table, not an address. A call given a destroyed handle, one
 * destroyed twice, a handle of another kind, or a value the library never
 * made returns TSR_INVALID_ARGUMENT with its text, never reads freed
 * memory (a slot's generation wraps only after 2^32 destroys of it). A run
 * context keeps its compiled model alive: destroying the compiled model's
 * handle first is allowed; the model goes with its last context.
 *
 * Its own version, apart from the plugin ABI's: TSR_APP_API_VERSION grows
 * when functions are added; option structs grow by appending and carry
 * struct_size (set it to sizeof). A struct_size of 0, or one smaller than
 * the struct's first version (up to its first "appended" member), is
 * refused with TSR_INVALID_ARGUMENT; a larger one than this library knows
 * is accepted, and only the members it knows are read.
 */
#ifndef TESSERA_APP_TESSERA_APP_H_
#define TESSERA_APP_TESSERA_APP_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_APP_API_VERSION 8

/* Marks the calls that app API 8 replaced; they still work. */
#if defined(__GNUC__) || defined(__clang__)
#define TSR_APP_DEPRECATED(why) __attribute__((deprecated(why)))
#else
#define TSR_APP_DEPRECATED(why)
#endif

typedef struct tsr_app_environment_s* tsr_app_environment;
typedef struct tsr_app_model_s* tsr_app_model;
typedef struct tsr_app_compiled_model_s* tsr_app_compiled_model;
typedef struct tsr_app_run_context_s* tsr_app_run_context;

/* The calling thread's text of its last failed tsr_app_ call. */
const char* tsr_app_last_error(void);
/* TSR_APP_API_VERSION of the library actually linked. */
uint32_t tsr_app_api_version(void);

typedef struct tsr_app_environment_options {
  uint32_t struct_size;                  /* sizeof(tsr_app_environment_options) */
  int32_t read_environment;              /* nonzero: honour TESSERA_PLUGIN_PATH / _FILTER */
  const char* const* plugin_directories; /* absolute paths, searched first; borrowed */
  size_t plugin_directory_count;
  const char* bundled_plugin_directory; /* NULL = <exe>/../lib */
  const char* soc_directory;            /* NULL = <exe>/../share/tessera/socs */
  int32_t log_level;                    /* tsr_log_severity: lines below it are dropped */
  uint32_t reserved0;                   /* 0 */
} tsr_app_environment_options;

/* opts NULL = defaults (environment honoured, bundled plugins, warnings). */
tsr_status tsr_app_environment_create(const tsr_app_environment_options* opts, tsr_app_environment* out);
/* Destroys: NULL is accepted (TSR_OK); a destroyed or foreign handle is
 * TSR_INVALID_ARGUMENT and nothing is freed. Each _destroy returns
 * tsr_status since app API 8 (void before: callers that ignore it are
 * unchanged). */
tsr_status tsr_app_environment_destroy(tsr_app_environment env);

enum tsr_app_model_format {
  TSR_APP_FORMAT_DETECT = 0, /* load: by file name (.onnx); memory: by content */
  TSR_APP_FORMAT_TSR = 1,
  TSR_APP_FORMAT_ONNX = 2
};

typedef struct tsr_app_input_shape {
  const char* name; /* graph input name */
  const int64_t* dims;
  size_t rank;
} tsr_app_input_shape;

/* One resource budget over its default: name as in LoadOptions::budgets
 * ("max_tensor_bytes", ...). */
typedef struct tsr_app_budget {
  const char* name;
  uint64_t value;
} tsr_app_budget;

typedef struct tsr_app_load_options {
  uint32_t struct_size;                    /* sizeof(tsr_app_load_options) */
  int32_t format;                          /* tsr_app_model_format */
  const tsr_app_input_shape* input_shapes; /* ONNX with symbolic dims; borrowed */
  size_t input_shape_count;
  /* appended: read only when struct_size covers them */
  const tsr_app_budget* budgets; /* LoadOptions::budgets; borrowed */
  size_t budget_count;
  /* appended (app API 5): how much of a .tsr to check (LoadOptions::verify,
   * docs/model_format.md section 4); TSR_APP_VERIFY_* */
  int32_t verify;
  uint32_t reserved0; /* 0 */
} tsr_app_load_options;
/* tsr_app_load_options::verify. STRUCTURE (the default): the tables' CRC,
 * every range and each bytecode envelope's layout; no weight is read, so
 * loading does not grow with the weights. FULL: also the CRC of every weight
 * and bytecode byte; a mismatch is TSR_DATA_LOSS. */
#define TSR_APP_VERIFY_STRUCTURE 0
#define TSR_APP_VERIFY_FULL 1

/* opts may be NULL. */
tsr_status tsr_app_model_load(const char* path, const tsr_app_load_options* opts, tsr_app_model* out);
/* The bytes are copied. */
tsr_status tsr_app_model_from_memory(const void* bytes, size_t size, const tsr_app_load_options* opts,
                                     tsr_app_model* out);
tsr_status tsr_app_model_destroy(tsr_app_model model); /* as tsr_app_environment_destroy */

typedef struct tsr_app_compile_options {
  uint32_t struct_size;                /* sizeof(tsr_app_compile_options) */
  int32_t mode;                        /* 0 = AOT, 1 = JIT */
  const char* accelerators;            /* "npu,cpu"; NULL or "" = by declared priority */
  const char* soc;                     /* SoC name or .soc path; NULL = plugin defaults */
  const tsr_key_value* plugin_options; /* "vendor.key" = "value"; borrowed */
  size_t plugin_option_count;
  /* appended: read only when struct_size covers them */
  const char* policy;     /* "cost" (NULL = default), "greedy", "cpu" */
  int32_t min_ops;        /* 0 = any size */
  int32_t max_partitions; /* 0 = no limit */
  /* appended (app API 2): resilience, docs/resilience.md */
  int32_t max_retries;  /* 0 = the default (2); < 0 = no retry; else N retries */
  int32_t no_fallback;  /* nonzero: never run a partition's cpu plan */
  uint32_t deadline_ms; /* per invoke; 0 = none */
  uint32_t reserved1;   /* 0 */
  /* appended (app API 3): the compile cache (docs/compile_cache.md); AOT only */
  const char* cache_dir;    /* NULL or "" = no cache */
  uint64_t cache_max_bytes; /* 0 = the default cap, 1 GiB */
  /* appended (app API 3): nonzero with mode 1 (JIT): runs start on a cpu plan while the
   * JIT compile proceeds on a worker (CompileOptions::background_warmup) */
  int32_t background_warmup;
  /* appended (app API 5): nonzero with mode 0 (AOT): a JIT-only accelerator's partitions stay in
   * the model as plain ops, so tsr_app_compiled_model_save can write it and a later compile of the
   * saved file JIT-compiles them (CompileOptions::leave_jit_only_ops). 0: they are JIT-compiled
   * beside the others' bytecode, and the result runs here but cannot be saved. */
  int32_t leave_jit_only_ops;
  /* appended (app API 8): the precision policy (CompileOptions::precision,
   * docs/partitioning.md): NULL or "fp32" = keep FP32 accuracy, "allow-fp16",
   * "allow-int8"; and the input sets (the layout `tessera run --inputs`
   * reads) that prove FP16 ranges under allow-fp16/allow-int8. */
  const char* precision;
  const char* calibration_dir;
} tsr_app_compile_options;

/* Compiles `model`, or takes an already compiled one as it is (then no
 * compiler library is opened). opts may be NULL. */
tsr_status tsr_app_compile(tsr_app_environment env, tsr_app_model model, const tsr_app_compile_options* opts,
                           tsr_app_compiled_model* out);
/* As tsr_app_environment_destroy. Run contexts made from it keep the model
 * alive; its handle is invalid at once. */
tsr_status tsr_app_compiled_model_destroy(tsr_app_compiled_model compiled);
/* What the compile cache did for this compile (app API 3). */
typedef struct tsr_app_cache_info {
  uint32_t struct_size; /* set by the caller: sizeof(tsr_app_cache_info) */
  int32_t enabled;      /* 1 when a cache_dir was given and used */
  int32_t hit;          /* 1 when the model came from the cache */
  uint32_t reserved0;
  const char* key;             /* 64 hex digits, "" when disabled; valid while the compiled model lives */
  const char* disabled_reason; /* why a given cache_dir was not used, or ""; same lifetime */
  uint64_t hits, misses, invalidations, evictions;
} tsr_app_cache_info;
/* Fills *out; out->struct_size must be at least this version's
 * sizeof(tsr_app_cache_info) (later versions append). Thread-safe. */
tsr_status tsr_app_compiled_model_cache_info(tsr_app_compiled_model compiled, tsr_app_cache_info* out);

/* How each vendor's dispatch library judged the model's compiled bytecode
 * when it loaded (app API 4; check_compatibility, ABI 1.2; the model's
 * build stamp, docs/model_format.md). One entry per bytecode blob; a blob
 * judged unsupported refused the compile, so it never appears. */
#define TSR_APP_COMPATIBILITY_OPTIMAL 0          /* tsr_compatibility's values (tessera/dispatch.h) */
#define TSR_APP_COMPATIBILITY_PREFER_RECOMPILE 1 /* runs, but a recompile gives better code */
#define TSR_APP_COMPATIBILITY_UNKNOWN (-1)       /* the library has no check_compatibility */
typedef struct tsr_app_bytecode_compatibility {
  uint32_t struct_size; /* set by the caller: sizeof(tsr_app_bytecode_compatibility) */
  int32_t verdict;      /* TSR_APP_COMPATIBILITY_* */
  int32_t stamped;      /* 1 when the build stamp supplied the compatibility string */
  uint32_t reserved0;
  const char* vendor;  /* valid while the compiled model lives */
  const char* soc;     /* the blob's SoC model; same lifetime */
  const char* message; /* prefer_recompile: the warning; unknown: why; else ""; same lifetime */
} tsr_app_bytecode_compatibility;
tsr_status tsr_app_compiled_model_compatibility_count(tsr_app_compiled_model compiled, size_t* out_count);
/* Fills *out for entry `index` (< the count); out->struct_size must be at
 * least this version's size. Thread-safe. */
tsr_status tsr_app_compiled_model_compatibility(tsr_app_compiled_model compiled, size_t index,
                                                tsr_app_bytecode_compatibility* out);

/* background_warmup: blocks until the background compile has finished;
 * TSR_OK when runs now use the accelerated plan, else the reason they stay
 * on the cpu plan. TSR_OK at once without background warm-up. */
tsr_status tsr_app_compiled_model_wait_for_accelerated(tsr_app_compiled_model compiled);

/* AOT only: writes a .tsr that runs with dispatch libraries alone. */
tsr_status tsr_app_compiled_model_save(tsr_app_compiled_model compiled, const char* path);

typedef struct tsr_app_tensor_info {
  const char* name; /* valid while the compiled model lives */
  int32_t dtype;    /* tsr_dtype */
  uint32_t reserved0;
  const int64_t* shape; /* valid while the compiled model lives */
  size_t rank;
  size_t byte_size;
} tsr_app_tensor_info;

tsr_status tsr_app_compiled_model_io_count(tsr_app_compiled_model compiled, size_t* out_inputs, size_t* out_outputs);
#define TSR_APP_IO_INPUT 0 /* the values of the dispatch ABI's TSR_IO_INPUT/OUTPUT */
#define TSR_APP_IO_OUTPUT 1
tsr_status tsr_app_compiled_model_tensor_info(tsr_app_compiled_model compiled, int32_t io_kind, size_t index,
                                              tsr_app_tensor_info* out);
/* App API 8: inputs and outputs by name, beside positions: *out_index
 * receives the position of the input (io_kind TSR_APP_IO_INPUT) or output
 * named `name`; TSR_NOT_FOUND, listing the names there are, when none is. */
TSR_MUST_USE_RESULT tsr_status tsr_app_compiled_model_io_index(tsr_app_compiled_model compiled, int32_t io_kind,
                                                               const char* name, size_t* out_index);
/* App API 8: the same metadata before compiling, from a loaded model (an
 * ONNX model's shapes as the load resolved them); the pointers in `out`
 * stay valid while the model lives. */
TSR_MUST_USE_RESULT tsr_status tsr_app_model_io_count(tsr_app_model model, size_t* out_inputs, size_t* out_outputs);
TSR_MUST_USE_RESULT tsr_status tsr_app_model_tensor_info(tsr_app_model model, int32_t io_kind, size_t index,
                                                         tsr_app_tensor_info* out);
/* The partition report as one JSON object (the fields of `tessera
 * partition --json`), copied as tsr_copy_text does: a too-small buffer gets
 * a truncated prefix, *out_length the full length. */
tsr_status tsr_app_compiled_model_partition_report_json(tsr_app_compiled_model compiled, char* out, size_t capacity,
                                                        size_t* out_length);

tsr_status tsr_app_run_context_create(tsr_app_compiled_model compiled, tsr_app_run_context* out);
/* As tsr_app_environment_destroy; waits for an asynchronous run in flight
 * (and, shared between threads, for a run another thread is making). */
tsr_status tsr_app_run_context_destroy(tsr_app_run_context context);
/* App API 8: one synchronous run; every buffer crosses with its byte size.
 * inputs[i] holds input i (dense, the model's dtype), input_sizes[i] bytes;
 * outputs[i], output_sizes[i] bytes, receives output i. A buffer smaller
 * than its tensor's tsr_app_tensor_info byte_size is refused with
 * TSR_INVALID_ARGUMENT before anything is read or written; a larger one is
 * used up to byte_size. Buffers are borrowed for the call. Calls on one
 * context from several threads run one at a time. */
TSR_MUST_USE_RESULT tsr_status tsr_app_run_sized(tsr_app_run_context context, const void* const* inputs,
                                                 const size_t* input_sizes, size_t input_count, void* const* outputs,
                                                 const size_t* output_sizes, size_t output_count);
/* App API 8: the same run, started on the context's worker thread; returns
 * once it is under way (or with the error of a bad argument). The arrays
 * are read during the call; the memory they point to stays borrowed until
 * tsr_app_run_wait returns anything but TSR_DEADLINE_EXCEEDED, or the
 * context is destroyed (which waits for the run). One run at a time per
 * context: the other run calls fail with TSR_FAILED_PRECONDITION until
 * then. Works over any dispatch libraries. */
TSR_MUST_USE_RESULT tsr_status tsr_app_run_async_sized(tsr_app_run_context context, const void* const* inputs,
                                                       const size_t* input_sizes, size_t input_count,
                                                       void* const* outputs, const size_t* output_sizes,
                                                       size_t output_count);
/* Before app API 8: the same runs without sizes. They cannot check a
 * buffer: each must hold its tensor's byte_size, or memory past it is read
 * or written. Kept so older sources build; use the _sized calls. */
TSR_APP_DEPRECATED("no buffer sizes: use tsr_app_run_sized")
tsr_status tsr_app_run(tsr_app_run_context context, const void* const* inputs, size_t input_count, void* const* outputs,
                       size_t output_count);
TSR_APP_DEPRECATED("no buffer sizes: use tsr_app_run_async_sized")
tsr_status tsr_app_run_async(tsr_app_run_context context, const void* const* inputs, size_t input_count,
                             void* const* outputs, size_t output_count);
/* App API 7: waits up to timeout_ns (UINT64_MAX: for ever) for the run
 * tsr_app_run_async_sized started. Returns its status (and text, as tsr_app_run
 * would), or TSR_DEADLINE_EXCEEDED when it is still going (wait again), or
 * TSR_FAILED_PRECONDITION when none was started. tsr_app_run_context_destroy
 * waits for a run in flight. */
tsr_status tsr_app_run_wait(tsr_app_run_context context, uint64_t timeout_ns);

/* since API 6. The app's own buffer for one input or output, by type:
 * TSR_BUFFER_TYPE_HOST (host_address) or TSR_BUFFER_TYPE_DMABUF (fd and
 * offset; the fd stays the app's). Borrowed until unbound, rebound or the
 * run context is destroyed. */
typedef struct tsr_app_buffer {
  uint32_t struct_size; /* sizeof(tsr_app_buffer) */
  int32_t buffer_type;  /* tsr_buffer_type */
  void* host_address;
  int32_t fd;
  uint32_t reserved0; /* 0 */
  uint64_t offset;
  uint64_t size_bytes; /* at least the tensor's byte_size */
} tsr_app_buffer;
#define TSR_APP_BINDING_ZERO_COPY 0 /* every partition uses the buffer in place */
#define TSR_APP_BINDING_COPIED 1    /* one cannot (type, alignment): each run copies */
/* Binds input or output `index` (io_kind TSR_APP_IO_INPUT / _OUTPUT) to
 * `buffer`; binding again swaps buffers without re-creating anything.
 * *out_mode (may be NULL) receives TSR_APP_BINDING_*. buffer NULL unbinds.
 * While anything is bound tsr_app_run refuses; run with tsr_app_run_bound. */
tsr_status tsr_app_run_context_bind(tsr_app_run_context context, int32_t io_kind, size_t index,
                                    const tsr_app_buffer* buffer, int32_t* out_mode);
/* One synchronous run on the bound buffers: every input and output bound. */
tsr_status tsr_app_run_bound(tsr_app_run_context context);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_APP_TESSERA_APP_H_ */
