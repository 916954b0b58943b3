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
 */
#ifndef TESSERA_DISPATCH_H_
#define TESSERA_DISPATCH_H_

#include "tessera/common.h"
#include "tessera/compiler_plugin.h"

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

typedef struct tsr_executable_source {
  tsr_abi_header header;
  int32_t kind;                 /* tsr_executable_kind */
  /* BYTECODE: the whole blob (envelope included). It stays valid and
   * unchanged until unload_executable (it usually points into the
   * memory-mapped model), so the library may execute it in place. The
   * library verifies the envelope and the body before use. */
  const void* bytecode;
  size_t bytecode_size;
  const char* entry_point;      /* NUL-terminated, borrowed for the call */
  tsr_jit_handle jit_handle;    /* JIT_HANDLE: valid until unload */
  /* end of v1: do not modify above */
} tsr_executable_source;

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
  uint64_t row_stride_bytes;    /* TSR_LAYOUT_STRIDED only */
  int32_t dtype;                /* element type the executable expects */
  /* end of v1: do not modify above */
} tsr_buffer_requirements;

typedef struct tsr_buffer_desc {
  tsr_abi_header header;
  int32_t buffer_type;          /* tsr_buffer_type */
  uint64_t size_bytes;
  uint32_t alignment;           /* allocate: wanted alignment; 0 = default */
  /* register only: caller memory (HOST) or fd + offset (DMABUF). The
   * memory must stay valid until release_buffer. */
  void* host_address;
  int32_t fd;
  uint64_t offset;
  /* end of v1: do not modify above */
} tsr_buffer_desc;

typedef struct tsr_metric {
  tsr_abi_header header;
  const char* name;             /* e.g. "cycles_total"; valid until the
                                   next invoke or destroy_invocation */
  double value;
  const char* unit;             /* e.g. "cycles", "bytes", "us"; may be "" */
  /* end of v1: do not modify above */
} tsr_metric;

typedef struct tsr_dispatch_api {
  tsr_abi_header header;

  /* Thread-safe. Text of the last failed call on this thread through this
   * table; valid until the next call on this thread. Never NULL. */
  const char* (*get_last_error)(void);

  /* Thread-safe; *out_info valid until the library is unloaded. */
  TSR_MUST_USE_RESULT tsr_status (*get_info)(const tsr_dispatch_info** out_info);

  /* Caller owns *out_context. Thread-safe. */
  TSR_MUST_USE_RESULT tsr_status (*create_device_context)(const tsr_device_context_options* opts,
                                      tsr_device_context* out_context);
  /* Accepts NULL. All executables and buffers must be released first. */
  void (*destroy_device_context)(tsr_device_context context);

  /* Verify and load. Caller owns *out_executable. Malformed bytecode yields
   * TSR_BYTECODE_INVALID / _CHECKSUM / _INCOMPATIBLE, never a crash.
   * Externally synchronized per context. */
  TSR_MUST_USE_RESULT tsr_status (*load_executable)(tsr_device_context context,
                                const tsr_executable_source* source,
                                tsr_executable* out_executable);
  void (*unload_executable)(tsr_executable executable); /* accepts NULL */

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
   * memory alive until release_buffer. */
  TSR_MUST_USE_RESULT tsr_status (*register_buffer)(tsr_device_context context,
                                const tsr_buffer_desc* desc,
                                tsr_buffer* out_buffer);
  void (*release_buffer)(tsr_buffer buffer); /* accepts NULL */
  /* CPU access to a buffer's bytes; valid until unmap_buffer. */
  TSR_MUST_USE_RESULT tsr_status (*map_buffer)(tsr_buffer buffer, void** out_host_address);
  TSR_MUST_USE_RESULT tsr_status (*unmap_buffer)(tsr_buffer buffer);

  /* Caller owns *out_invocation. Externally synchronized per executable. */
  TSR_MUST_USE_RESULT tsr_status (*create_invocation)(tsr_executable executable,
                                  tsr_invocation* out_invocation);
  void (*destroy_invocation)(tsr_invocation invocation); /* accepts NULL */
  /* The buffer is borrowed until detached, re-attached or the invocation is
   * destroyed. Its type must be one the requirements list. */
  TSR_MUST_USE_RESULT tsr_status (*attach_input)(tsr_invocation invocation, size_t index,
                             tsr_buffer buffer);
  TSR_MUST_USE_RESULT tsr_status (*attach_output)(tsr_invocation invocation, size_t index,
                              tsr_buffer buffer);
  /* Runs synchronously. Every input and output must be attached.
   * Externally synchronized per invocation. */
  TSR_MUST_USE_RESULT tsr_status (*invoke)(tsr_invocation invocation);

  /* Metrics of the last invoke (cycles, bytes moved, modelled time...).
   * Thread-safe after invoke returns. out->header.struct_size set by the
   * caller. */
  TSR_MUST_USE_RESULT tsr_status (*metric_count)(tsr_invocation invocation, size_t* out_count);
  TSR_MUST_USE_RESULT tsr_status (*get_metric)(tsr_invocation invocation, size_t index,
                           tsr_metric* out);
  /* end of v1: do not modify above */
} tsr_dispatch_api;

/* The one exported symbol; negotiation as in compiler_plugin.h. */
#define TSR_DISPATCH_ENTRY "tsr_dispatch_negotiate"
typedef TSR_MUST_USE_RESULT tsr_status (*tsr_dispatch_negotiate_fn)(
    tsr_version host_version, tsr_version* out_version,
    const tsr_dispatch_api** out_api);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_DISPATCH_H_ */
