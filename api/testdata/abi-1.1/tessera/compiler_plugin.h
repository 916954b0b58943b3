/*
 * Tessera C ABI: the compiler plugin.
 *
 * A vendor ships libtessera_compiler_<vendor>.so exporting exactly one
 * symbol, TSR_COMPILER_PLUGIN_ENTRY. The framework owns partitioning; the
 * plugin answers two questions: which of these ops do I support (partition),
 * and what is the code for them (compile).
 *
 * Call order: entry symbol (negotiate) -> get_info -> create -> partition*
 * -> compile* -> release_compiled* -> destroy.
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
/* A JIT result: lives in process memory only, never serialized, never
 * cached. Only the same vendor's dispatch library interprets it. */
TSR_DEFINE_HANDLE(tsr_jit_handle);

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
} tsr_compiler_plugin_info;

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

/* One entry per op of the graph, caller-allocated. The caller sets
 * header.struct_size of every entry; the plugin writes only the members
 * that struct_size covers. */
typedef struct tsr_op_support {
  tsr_abi_header header;
  uint32_t supported;       /* 1 = claimed, 0 = refused */
  int32_t reason;           /* tsr_refusal_reason; NONE when claimed */
  /* Human text for a refusal, NUL-terminated. Valid until the plugin is
   * destroyed. May be NULL. */
  const char* reason_detail;
  /* Modelled device time for this op in microseconds; < 0 = no estimate. */
  double estimated_time_us;
  /* Modelled device cycles; 0 = no estimate. */
  uint64_t estimated_cycles;
  /* end of v1: do not modify above */
} tsr_op_support;

typedef struct tsr_partition_options {
  tsr_abi_header header;
  const char* soc_model;        /* NULL = plugin default */
  /* Contents of the SoC description file (docs/soc.md), borrowed for the
   * call. NULL when none is known. */
  const char* soc_description;
  size_t soc_description_size;
  /* end of v1: do not modify above */
} tsr_partition_options;

/* ------------------------------------------------------------------------ */
/* Compile: what is the code for them?                                      */
/* ------------------------------------------------------------------------ */

typedef struct tsr_compile_options {
  tsr_abi_header header;
  uint32_t mode;                /* exactly one TSR_COMPILE_MODE_* bit */
  const char* soc_model;        /* NULL = plugin default */
  const char* soc_description;  /* as in tsr_partition_options */
  size_t soc_description_size;
  /* Non-zero when the framework guarantees constant data read through the
   * graph view stays mapped until the tsr_compiled is released (JIT may
   * then reference weights in place instead of copying them). */
  uint32_t constants_outlive_result;
  /* end of v1: do not modify above */
} tsr_compile_options;

/* ------------------------------------------------------------------------ */
/* The table                                                                */
/* ------------------------------------------------------------------------ */

typedef struct tsr_compiler_plugin_api {
  tsr_abi_header header;

  /* Thread-safe. The text of the last failed call made on this thread
   * through this table: valid until the next call on this thread. Never
   * NULL (may be ""). */
  const char* (*get_last_error)(void);

  /* Thread-safe; no instance needed. *out_info is owned by the plugin and
   * valid until the library is unloaded. */
  TSR_MUST_USE_RESULT tsr_status (*get_info)(const tsr_compiler_plugin_info** out_info);

  /* Caller owns *out_plugin (release with destroy). Options are borrowed
   * for the call. Unknown "<vendor>."-prefixed keys are an error. */
  TSR_MUST_USE_RESULT tsr_status (*create)(const tsr_compiler_plugin_options* options,
                       tsr_compiler_plugin* out_plugin);
  /* Accepts NULL. Every tsr_compiled must be released before. */
  void (*destroy)(tsr_compiler_plugin plugin);

  /* Decide, op by op, what the plugin supports. `graph` and the view are
   * borrowed for the call. `out_support` has op_count(graph) entries,
   * caller-allocated. Externally synchronized per plugin. */
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
   * for a JIT result. */
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
  /* Accepts NULL. Invalidates bytecode pointers and JIT handles. */
  void (*release_compiled)(tsr_compiled compiled);
  /* end of v1: do not modify above */
} tsr_compiler_plugin_api;

/* ------------------------------------------------------------------------ */
/* The one exported symbol                                                  */
/* ------------------------------------------------------------------------ */

/* Version negotiation, as Vulkan's loader does it: the host offers the
 * newest version it knows in `host_version`; the plugin answers in
 * *out_version with the version it will speak (at most host_version, same
 * major) and returns its const table in *out_api, owned by the plugin and
 * valid until the library is unloaded. When it speaks no version the host
 * knows it returns TSR_VERSION_UNSUPPORTED and leaves the outputs alone.
 * The host then refuses anything below its floor. Thread-safe; creates no
 * instance. */
#define TSR_COMPILER_PLUGIN_ENTRY "tsr_compiler_plugin_negotiate"
typedef TSR_MUST_USE_RESULT tsr_status (*tsr_compiler_plugin_negotiate_fn)(
    tsr_version host_version, tsr_version* out_version,
    const tsr_compiler_plugin_api** out_api);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_COMPILER_PLUGIN_H_ */
