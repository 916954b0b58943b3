/*
 * Tessera C ABI: the compiler plugin.
 *
 * A vendor ships libtessera_compiler_<vendor>.so exporting exactly one
 * symbol, TSR_COMPILER_PLUGIN_ENTRY. The framework owns partitioning; the
 * plugin answers two questions: which of these ops do I support (partition),
 * and what is the code for them (compile).
 *
 * Call order: entry symbol (negotiate) -> get_info -> create -> claim_ops*
 * (partition* for plugins that negotiated 1.0/1.1) -> compile*
 * -> release_compiled* -> destroy.
 *
 * Threading (the full matrix is docs/abi.md section 8): the library-level
 * calls (negotiate, get_last_error, get_info, create) are thread-safe.
 * Everything that takes a tsr_compiler_plugin is externally synchronized
 * per instance, except where a member says otherwise; distinct instances
 * may be used from different threads at once. Accessors of a tsr_compiled
 * are thread-safe on one result and on distinct results.
 *
 * Lifetime: a JIT handle is borrowed by the vendor's dispatch library, so
 * the host keeps the compiler library loaded (and the tsr_compiled alive)
 * while any executable loaded from it lives.
 */
#ifndef TESSERA_COMPILER_PLUGIN_H_
#define TESSERA_COMPILER_PLUGIN_H_

#include "tessera/common.h"
#include "tessera/graph_view.h"

#ifdef __cplusplus
extern "C" {
#endif

TSR_DEFINE_HANDLE(tsr_compiler_plugin);
TSR_DEFINE_HANDLE(tsr_compiled);
/* tsr_jit_handle, the result of a JIT compile, is defined in common.h: the
 * dispatch library receives it too, and dispatch.h does not include this
 * header. */

/* ------------------------------------------------------------------------ */
/* Identity                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct tsr_compiler_plugin_info {
  tsr_abi_header header;
  const char* vendor;          /* e.g. "systolic_npu"; [a-z0-9_]+ */
  const char* plugin_version;  /* free-form, e.g. "1.2.0" */
  const char* const* soc_models; /* SoC models it compiles for */
  size_t soc_model_count;
  uint32_t compile_modes;      /* TSR_COMPILE_MODE_AOT | _JIT */
  /* end of v1: do not modify above */

  /* Names 1.1's 4 bytes of tail padding, which a 1.1 struct_size (48)
   * covers: never read, so garbage from a 1.1 C producer is harmless. */
  uint32_t reserved0;
  /* since 1.2. Lower is tried first under --accelerators auto. Accelerators
   * use 100..999 (the reference NPU 100, the mock DSP 200); a plugin that
   * claims everything as a fallback uses TSR_PRIORITY_FALLBACK. */
  int32_t default_priority;
  int32_t sanitizer;           /* since 1.2. tsr_sanitizer */
  /* since 1.2. Accelerator alias for --accelerators, e.g. "npu"; [a-z0-9_]+,
   * distinct from every vendor name; may be NULL. */
  const char* short_name;
  /* since 1.2. Exact build identity (e.g. "0.1.0+git.3205fbe.RelWithDebInfo"),
   * static, never NULL. Hosts put it into cache keys and reports. */
  const char* build_id;
  /* end of v1.2: do not modify above */
} tsr_compiler_plugin_info;

#define TSR_PRIORITY_FALLBACK 1000000

/* ------------------------------------------------------------------------ */
/* Create                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct tsr_compiler_plugin_options {
  tsr_abi_header header;
  const tsr_key_value* options; /* borrowed for the call */
  size_t option_count;
  tsr_log_fn log;               /* may be NULL */
  void* log_user_data;
  /* end of v1: do not modify above */
} tsr_compiler_plugin_options;
/* Host services (allocators, tracing, ...) that later versions add arrive
 * as members appended here: the entry symbol has no spare parameter. */

/* ------------------------------------------------------------------------ */
/* Partition: which ops do I support?                                       */
/* ------------------------------------------------------------------------ */

/* Machine-readable reason for refusing an op. */
enum tsr_refusal_reason {
  TSR_REFUSAL_NONE = 0,                 /* op is supported */
  TSR_REFUSAL_UNSUPPORTED_OP = 1,       /* op type not implemented */
  TSR_REFUSAL_UNSUPPORTED_DTYPE = 2,
  TSR_REFUSAL_DYNAMIC_SHAPE = 3,
  TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE = 4,
  TSR_REFUSAL_TOO_LARGE = 5,            /* does not fit even after tiling */
  TSR_REFUSAL_UNSUPPORTED_QUANTIZATION = 6,
  TSR_REFUSAL_OTHER = 7,
  TSR_REFUSAL_MAX_ENUM = INT32_MAX
};

/* ABI 1.0 and 1.1 only, FROZEN: never grows again. The v1 `partition` call
 * writes one entry per op into a caller-allocated array. The stride of that
 * array is exactly sizeof(tsr_op_support) = 40 bytes, and a host passes
 * exactly 40-byte entries (struct_size = 40) to every plugin that
 * negotiated 1.0 or 1.1. Plugins that negotiate 1.2 or later report through
 * tsr_claim_sink_api instead, so no caller-allocated array of versioned
 * structs remains for them. */
typedef struct tsr_op_support {
  tsr_abi_header header;
  uint32_t supported;       /* 1 = claimed, 0 = refused */
  int32_t reason;           /* tsr_refusal_reason; NONE when claimed */
  /* Human text for a refusal, NUL-terminated, may be NULL. Valid until the
   * next partition call on this instance or its destroy (the host copies
   * it at once). */
  const char* reason_detail;
  /* Modelled device time for this op in microseconds; < 0 = no estimate. */
  double estimated_time_us;
  /* Modelled device cycles; 0 = no estimate. */
  uint64_t estimated_cycles;
  /* end of v1: do not modify above */
} tsr_op_support;

/* since 1.2. One plugin's verdict on one op, reported through
 * tsr_claim_sink_api.report_op. The plugin owns it and sets
 * header.struct_size to sizeof() as it compiled the struct: the host reads
 * only the members that struct_size covers and uses the defaults below for
 * the rest, so a plugin built against a later header (a larger struct) and
 * one that fills only a prefix are both read right. */
typedef struct tsr_op_claim {
  tsr_abi_header header;
  uint32_t supported;       /* 1 = claimed, 0 = refused (default 0) */
  int32_t reason;           /* tsr_refusal_reason; NONE when claimed
                               (default OTHER when refused) */
  const char* reason_detail;/* NUL-terminated, may be NULL; borrowed for the
                               report_op call (the host copies it) */
  double estimated_time_us; /* modelled device time; < 0 = none (default) */
  uint64_t estimated_cycles;/* modelled device cycles; 0 = none (default) */
  uint32_t flags;           /* TSR_CLAIM_FLAG_* (default 0) */
  uint32_t reserved0;       /* 0 */
  /* end of v1.2: do not modify above */
} tsr_op_claim;

/* The op is worth offloading only beside a claimed neighbour of the same
 * plugin (a lone RESHAPE, a lone single-byte ADD): the host refuses it on
 * the plugin's behalf when its partition would hold nothing else. */
#define TSR_CLAIM_FLAG_NOT_ALONE ((uint32_t)1u << 0)
/* The estimate assumes the op is fused with its claimed neighbours. */
#define TSR_CLAIM_FLAG_COST_IS_MARGINAL ((uint32_t)1u << 1)
/* since 1.4. The op's float math would run in FP16 on this accelerator
 * (FP16 operands or results; FP32 accumulation may remain). The host offers
 * such an op only when the app allows reduced precision (--precision
 * allow-fp16 or allow-int8) and the op's range is proven to fit FP16
 * (docs/partitioning.md, precision policy). Integer math on quantized
 * tensors (the model's own INT8) sets no flag. A 1.0-1.3 plugin never sets
 * it: the host takes its claims as FP32. */
#define TSR_CLAIM_FLAG_COMPUTES_FP16 ((uint32_t)1u << 2)
/* since 1.4. The op's float math would run in INT8 (the accelerator
 * quantizes float tensors itself); offered only under allow-int8. */
#define TSR_CLAIM_FLAG_COMPUTES_INT8 ((uint32_t)1u << 3)

/* since 1.2. Host-owned receiver of claims, borrowed for one claim_ops call.
 * Every member is called only from inside that call, from the thread that
 * made it (or serialized by the plugin). */
TSR_DEFINE_HANDLE(tsr_claim_sink);
typedef struct tsr_claim_sink_api {
  tsr_abi_header header;
  /* Report the verdict on op `op` (0..op_count-1). At most once per op:
   * TSR_ALREADY_EXISTS for a second report, TSR_INVALID_ARGUMENT for an
   * out-of-range op, a NULL claim, or a struct_size below the end of
   * `supported`. An op the plugin never reports counts as refused
   * (TSR_REFUSAL_OTHER, "not reported"). */
  TSR_MUST_USE_RESULT tsr_status (*report_op)(tsr_claim_sink sink, size_t op, const tsr_op_claim* claim);
  /* Declare that ops[0..count) (count >= 2, distinct, each in no other
   * group) are claimed as a unit: a QDQ triple, conv + activation. The host
   * places all of them on this plugin or none, never cuts between them,
   * and refuses the whole group if any member is refused or if the group
   * is not convex in the graph. `ops` is borrowed for the call. */
  TSR_MUST_USE_RESULT tsr_status (*add_group)(tsr_claim_sink sink, const size_t* ops, size_t count);
  /* end of v1.2: do not modify above */
} tsr_claim_sink_api;

typedef struct tsr_partition_options {
  tsr_abi_header header;
  const char* soc_model;        /* NULL = plugin default */
  /* Contents of the SoC description file (docs/soc.md), borrowed for the
   * call. NULL when none is known. */
  const char* soc_description;
  size_t soc_description_size;
  /* end of v1: do not modify above */
} tsr_partition_options;

/* since 1.2. What the plugin expects of one partition as a whole: fusion,
 * weight residency and DMA overlap make per-op estimates add up wrongly.
 * The host sets header.struct_size; the plugin writes only what it covers. */
typedef struct tsr_partition_estimate {
  tsr_abi_header header;
  double device_time_us;        /* < 0 = no estimate */
  uint64_t cycles;              /* 0 = no estimate */
  uint64_t boundary_bytes_in;   /* bytes the device reads across the cut */
  uint64_t boundary_bytes_out;  /* bytes it writes across the cut */
  uint64_t resident_weight_bytes; /* constants kept on the device */
  uint32_t fits;                /* 1 = compile would accept it; 0 = see reason */
  int32_t reason;               /* tsr_refusal_reason when fits == 0 */
  const char* detail;           /* may be NULL; valid until the next call on
                                   this instance or its destroy */
  /* end of v1.2: do not modify above */
} tsr_partition_estimate;

/* ------------------------------------------------------------------------ */
/* Compile: what is the code for them?                                      */
/* ------------------------------------------------------------------------ */

typedef struct tsr_compile_options {
  tsr_abi_header header;
  uint32_t mode;                /* exactly one TSR_COMPILE_MODE_* bit */
  uint32_t reserved0;           /* names an interior hole; 0, never read */
  const char* soc_model;        /* NULL = plugin default */
  const char* soc_description;  /* as in tsr_partition_options */
  size_t soc_description_size;
  /* Non-zero when the framework guarantees constant data read through the
   * graph view stays mapped until the tsr_compiled is released (JIT may
   * then reference weights in place instead of copying them). */
  uint32_t constants_outlive_result;
  /* end of v1: do not modify above */

  /* Names 1.1's 4 bytes of tail padding (inside a 1.1 struct_size of 48):
   * never read. */
  uint32_t reserved1;
  uint32_t flags;               /* since 1.2. TSR_COMPILE_FLAG_* */
  uint32_t reserved2;           /* 0 */
  /* end of v1.2: do not modify above */
} tsr_compile_options;

/* A failing partition does not fail the call: compile returns TSR_OK, and
 * compiled_partition_status says which partitions failed and why. A failed
 * partition has no entry point and no JIT handle (TSR_NOT_FOUND). Plugins
 * without compiled_partition_status ignore the flag (all or nothing). */
#define TSR_COMPILE_FLAG_PARTIAL_OK ((uint32_t)1u << 0)
/* since 1.4, AOT only. The host keeps every graph constant in the model it
 * writes and hands the dispatch library a binding for each reference
 * (tsr_executable_source.constants, pointing into the mapped model), so the
 * bytecode may name a constant instead of carrying a copy of its bytes
 * (compiled_constant_references). Without this flag a plugin must not emit
 * references: its bytecode stays self-contained. */
#define TSR_COMPILE_FLAG_EXTERNAL_CONSTANTS_OK ((uint32_t)1u << 1)

/* since 1.4. A graph constant that a partition's bytecode names instead of
 * embedding. The host binds `key` to the constant's bytes at load
 * (tsr_constant_binding). Arrays of it are headed arrays (common.h,
 * tsr_abi_array_stride): header.struct_size is the stride, and later
 * versions append members after size_bytes. */
typedef struct tsr_constant_reference {
  tsr_abi_header header;        /* struct_size = the producer's sizeof */
  int32_t tensor;               /* partition-local tensor index (graph view) */
  uint32_t key;                 /* the plugin's name for it; distinct within
                                   one partition */
  uint64_t size_bytes;          /* the constant's byte size, as the view gave it */
  /* end of v1.4: do not modify above */
} tsr_constant_reference;

/* ------------------------------------------------------------------------ */
/* The table                                                                */
/* ------------------------------------------------------------------------ */

typedef struct tsr_compiler_plugin_api {
  tsr_abi_header header;

  /* Thread-safe. After a call through this table fails: that call's text,
   * never empty, valid until the next call into this library on this
   * thread. After a successful call the text is unspecified (possibly an
   * older failure's, possibly ""): read it only right after a failure.
   * Never NULL. */
  const char* (*get_last_error)(void);

  /* Thread-safe; no instance needed. *out_info is owned by the plugin and
   * valid until the library is unloaded. */
  TSR_MUST_USE_RESULT tsr_status (*get_info)(const tsr_compiler_plugin_info** out_info);

  /* Thread-safe. Caller owns *out_plugin (release with destroy). Options
   * are borrowed for the call. Unknown "<vendor>."-prefixed keys are an
   * error. */
  TSR_MUST_USE_RESULT tsr_status (*create)(const tsr_compiler_plugin_options* options,
                       tsr_compiler_plugin* out_plugin);
  /* Accepts NULL. Externally synchronized per instance (no other call on
   * it may be running). Every tsr_compiled must be released before. */
  void (*destroy)(tsr_compiler_plugin plugin);

  /* ABI 1.0/1.1: decide, op by op, what the plugin supports. `graph` and
   * the view are borrowed for the call. `out_support` has op_count(graph)
   * entries of exactly 40 bytes (see tsr_op_support), caller-allocated.
   * Externally synchronized per plugin. A plugin that negotiated 1.2 or
   * later is never called here (it may set the member NULL): the host calls
   * claim_ops instead. */
  TSR_MUST_USE_RESULT tsr_status (*partition)(tsr_compiler_plugin plugin,
                          const tsr_graph_view_api* view, tsr_graph graph,
                          const tsr_partition_options* options,
                          tsr_op_support* out_support);

  /* Compile `partition_count` partitions together. AOT yields one bytecode
   * blob in the standard envelope (tessera/bytecode.h) with one entry point
   * per partition; JIT yields one handle per partition. Graphs are borrowed
   * for the call (see constants_outlive_result). Caller owns *out_compiled.
   * Externally synchronized per plugin. */
  TSR_MUST_USE_RESULT tsr_status (*compile)(tsr_compiler_plugin plugin,
                        const tsr_graph_view_api* view,
                        const tsr_graph* partitions, size_t partition_count,
                        const tsr_compile_options* options,
                        tsr_compiled* out_compiled);

  /* AOT: the bytecode blob, valid until release_compiled. TSR_NOT_FOUND
   * for a JIT result. Thread-safe (as every compiled_* accessor). */
  TSR_MUST_USE_RESULT tsr_status (*compiled_bytecode)(tsr_compiled compiled,
                                  const void** out_data, size_t* out_size);
  /* AOT: the entry-point name of partition `i`, valid until
   * release_compiled. */
  TSR_MUST_USE_RESULT tsr_status (*compiled_entry_point)(tsr_compiled compiled, size_t i,
                                     const char** out_name);
  /* JIT: the handle of partition `i`, valid until release_compiled.
   * TSR_NOT_FOUND for an AOT result. */
  TSR_MUST_USE_RESULT tsr_status (*compiled_jit_handle)(tsr_compiled compiled, size_t i,
                                    tsr_jit_handle* out_handle);
  /* Accepts NULL. Invalidates bytecode pointers and JIT handles.
   * Externally synchronized per result. */
  void (*release_compiled)(tsr_compiled compiled);
  /* end of v1: do not modify above */

  /* since 1.2. Required of plugins that negotiate 1.2 or later (replaces
   * partition). Reports a verdict for each op of `graph` through
   * `sink_api`/`sink` (both borrowed for the call; call them only from
   * inside this call), and declares op groups. Returns TSR_OK when every
   * report it made was accepted; a failure status means the host discards
   * every claim of this call. Externally synchronized per plugin. */
  TSR_MUST_USE_RESULT tsr_status (*claim_ops)(tsr_compiler_plugin plugin,
                          const tsr_graph_view_api* view, tsr_graph graph,
                          const tsr_partition_options* options,
                          const tsr_claim_sink_api* sink_api, tsr_claim_sink sink);
  /* since 1.2, optional. Estimate one partition as a whole (see
   * tsr_partition_estimate); the caller sets out->header.struct_size.
   * Externally synchronized per plugin. */
  TSR_MUST_USE_RESULT tsr_status (*estimate_partition)(tsr_compiler_plugin plugin,
                          const tsr_graph_view_api* view, tsr_graph partition,
                          const tsr_partition_options* options,
                          tsr_partition_estimate* out);
  /* since 1.2, optional. The outcome of partition `i` of a compile made with
   * TSR_COMPILE_FLAG_PARTIAL_OK (or of any compile: TSR_OK for every
   * partition of a successful all-or-nothing compile). *out_code is the
   * partition's status; its text is copied as tsr_copy_text does. Thread-safe. */
  TSR_MUST_USE_RESULT tsr_status (*compiled_partition_status)(tsr_compiled compiled, size_t i,
                          tsr_status* out_code, char* out_text, size_t text_capacity,
                          size_t* out_text_length);
  /* since 1.2, optional. The op ids (tsr_graph_view_api.op_id) that made
   * partition `i` fail, so the host can split around them; *out_count may be
   * 0 ("the partition as a whole"). Valid until release_compiled.
   * Thread-safe. */
  TSR_MUST_USE_RESULT tsr_status (*compiled_partition_culprits)(tsr_compiled compiled, size_t i,
                          const uint32_t** out_op_ids, size_t* out_count);
  /* since 1.2, optional. A NUL-terminated string naming everything in this
   * instance that changes the code compile() would produce for `options`
   * (build id, option values, defaults, the SoC tables it read), copied as
   * tsr_copy_text does. Hosts put it into cache keys and the model file,
   * and hand it to the dispatch library's check_compatibility. Equal strings
   * promise equal code. Externally synchronized per plugin. */
  TSR_MUST_USE_RESULT tsr_status (*compatibility_info)(tsr_compiler_plugin plugin,
                          const tsr_compile_options* options,
                          char* out, size_t capacity, size_t* out_length);
  /* end of v1.2: do not modify above */

  /* since 1.4, optional (NULL or absent: no references). The constants
   * partition `i`'s bytecode references (TSR_COMPILE_FLAG_EXTERNAL_CONSTANTS_OK),
   * *out_count may be 0. Only an AOT compile made with that flag may report
   * any. *out valid until release_compiled. Thread-safe. */
  TSR_MUST_USE_RESULT tsr_status (*compiled_constant_references)(tsr_compiled compiled, size_t i,
                          const tsr_constant_reference** out, size_t* out_count);
  /* end of v1.4: do not modify above */
} tsr_compiler_plugin_api;

/* ------------------------------------------------------------------------ */
/* The one exported symbol                                                  */
/* ------------------------------------------------------------------------ */

/* Version negotiation, as Vulkan's loader does it: the host offers the
 * newest version it knows in `host_version`; the plugin answers in
 * *out_version with the highest version it speaks that is not above
 * host_version (whatever the majors) and returns its const table in
 * *out_api, owned by the plugin and valid until the library is unloaded.
 * Only when it speaks nothing at or below host_version does it return
 * TSR_VERSION_UNSUPPORTED, leaving the outputs alone. The host alone
 * decides, against its floor, whether it can use the answer, and from then
 * on calls only what the answered version defines. Thread-safe; creates no
 * instance. */
#define TSR_COMPILER_PLUGIN_ENTRY "tsr_compiler_plugin_negotiate"
typedef TSR_MUST_USE_RESULT tsr_status (*tsr_compiler_plugin_negotiate_fn)(
    tsr_version host_version, tsr_version* out_version,
    const tsr_compiler_plugin_api** out_api);

/* since 1.4. The entry symbol's prototype, inside extern "C" and with
 * TSR_EXPORT: a C++ definition that forgets extern "C" (or TSR_EXPORT) still
 * defines and exports the C name the host looks up, instead of a mangled
 * one dlsym cannot find. Define TSR_NO_PROTOTYPES before including to leave
 * it out (as VK_NO_PROTOTYPES does for Vulkan). */
#ifndef TSR_NO_PROTOTYPES
TSR_EXPORT tsr_status tsr_compiler_plugin_negotiate(tsr_version host_version, tsr_version* out_version,
                                                  const tsr_compiler_plugin_api** out_api);
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_COMPILER_PLUGIN_H_ */
