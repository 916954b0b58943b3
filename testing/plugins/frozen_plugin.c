/* A frozen vendor plugin pair (compiler + dispatch), written in plain C
 * against a read-only snapshot of a released header set: CMake builds it
 * against api/testdata/abi-1.0, abi-1.1 and abi-1.3, never against today's
 * headers. It speaks exactly the version of its snapshot, so it is what a
 * vendor shipped, and today's host must keep loading and running it. The
 * 1.3 build speaks 1.2's rules (TSR_ABI_VERSION_MINOR >= 2): claims through
 * the host's sink, refuses attributes itself, fills the 1.2 identity
 * members, and answers any newer host with its own version.
 *
 * Vendor "frozen": claims f32 ADD and MUL of equal shapes (no broadcasting),
 * compiles AOT (a standard envelope built with the snapshot's bytecode.h)
 * or JIT (the same body behind a handle). The body is the op list: for each
 * op its type and the local indices of its two inputs and one output.
 * TSR_FROZEN_ROLE_DISPATCH selects the dispatch library.
 *
 * Demanding variants (testing/plugins/CMakeLists.txt, demanding_dispatch_test.cc)
 * reach runtime paths no bundled plugin does; their defaults are the
 * frozen plugin's own behaviour:
 *   TSR_FROZEN_ALIGNMENT     the alignment requirements ask for (16); a
 *                            registered host address below it is refused
 *   TSR_FROZEN_BUFFER_TYPES  the buffer types requirements list, in order
 *                            of preference (TSR_BUFFER_TYPE_HOST); buffers
 *                            of any listed type can be allocated
 *   TSR_FROZEN_NUMERICS_RTOL the relative tolerance executable_numerics
 *                            declares, as FP16 (0: FP32, exact)
 *   TSR_FROZEN_COMPAT_VERDICT (1.2+ builds) fills check_compatibility,
 *                            answering this tsr_compatibility for every
 *                            blob; unset, the member stays NULL */
#include <stdlib.h>
#include <string.h>

#include "tessera/tessera.h"

#define FROZEN_MAX_OPS 64
#define FROZEN_MAX_TENSORS 192
#define FROZEN_BODY_VERSION 1u
#ifndef TSR_FROZEN_ALIGNMENT
#define TSR_FROZEN_ALIGNMENT 16u
#endif
#ifndef TSR_FROZEN_NUMERICS_RTOL
#define TSR_FROZEN_NUMERICS_RTOL 0
#endif
#ifndef TSR_FROZEN_BUFFER_TYPES
#define TSR_FROZEN_BUFFER_TYPES TSR_BUFFER_TYPE_HOST
#endif

static const char* const kSocs[] = {"any"};

/* The compiled code of one partition: plain data, shared by both roles. */
typedef struct frozen_code {
  uint32_t op_count, tensor_count, input_count, output_count;
  uint64_t elements;                  /* every tensor has this many floats */
  int32_t inputs[FROZEN_MAX_TENSORS]; /* graph inputs, local indices */
  int32_t outputs[FROZEN_MAX_TENSORS];
  int32_t ops[FROZEN_MAX_OPS][4]; /* type, a, b, out */
} frozen_code;

static _Thread_local const char* last_error = "";
static tsr_status fail(tsr_status code, const char* text) {
  last_error = text;
  return code;
}
static const char* get_last_error(void) { return last_error; }

#if TSR_ABI_VERSION_MINOR >= 2
#if defined(__SANITIZE_ADDRESS__)
#define FROZEN_SANITIZER TSR_SANITIZER_ADDRESS
#elif defined(__SANITIZE_THREAD__)
#define FROZEN_SANITIZER TSR_SANITIZER_THREAD
#else
#define FROZEN_SANITIZER TSR_SANITIZER_NONE
#endif
#define FROZEN_STRINGIFY_(x) #x
#define FROZEN_STRINGIFY(x) FROZEN_STRINGIFY_(x)
#define FROZEN_BUILD_ID "1.0.0-frozen+abi-1." FROZEN_STRINGIFY(TSR_ABI_VERSION_MINOR)
#endif

/* The negotiation rule of the plugin's own release. 1.0/1.1: the same
 * major, at most the host's version. 1.2 on (the Vulkan rule): its own
 * version whenever the host offers that or newer, of any major; the host
 * decides. */
static tsr_status negotiate(tsr_version host, tsr_version* out_version) {
  if (out_version == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL output");
#if TSR_ABI_VERSION_MINOR >= 2
  const tsr_version own = {TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR};
  if (tsr_version_compare(host, own) < 0) return fail(TSR_VERSION_UNSUPPORTED, "frozen: host too old");
#else
  if (host.major != TSR_ABI_VERSION_MAJOR) return fail(TSR_VERSION_UNSUPPORTED, "frozen: another major");
  if (host.minor < TSR_ABI_VERSION_MINOR) return fail(TSR_VERSION_UNSUPPORTED, "frozen: host too old");
#endif
  out_version->major = TSR_ABI_VERSION_MAJOR;
  out_version->minor = TSR_ABI_VERSION_MINOR;
  return TSR_OK;
}

#ifndef TSR_FROZEN_ROLE_DISPATCH
/* ------------------------------ compiler ------------------------------ */

struct tsr_compiler_plugin_s {
  int unused;
};
struct tsr_compiled_s {
  uint32_t mode;
  size_t count;
  frozen_code* code;   /* JIT: one per partition */
  unsigned char* blob; /* AOT */
  size_t blob_size;
  char names[FROZEN_MAX_OPS][TSR_BYTECODE_ENTRY_NAME_SIZE];
};

static const tsr_compiler_plugin_info kInfo = {
    {sizeof(tsr_compiler_plugin_info), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    "frozen",
    "1.0.0-frozen",
    kSocs,
    1,
    TSR_COMPILE_MODE_AOT | TSR_COMPILE_MODE_JIT,
#if TSR_ABI_VERSION_MINOR >= 2
    0,
    500,
    FROZEN_SANITIZER,
    NULL,
    FROZEN_BUILD_ID, /* reserved0, default_priority, sanitizer, short_name, build_id */
#endif
};

static tsr_status get_info(const tsr_compiler_plugin_info** out) {
  if (out == NULL) return fail(TSR_INVALID_ARGUMENT, "out_info is NULL");
  *out = &kInfo;
  return TSR_OK;
}
static tsr_status create(const tsr_compiler_plugin_options* o, tsr_compiler_plugin* out) {
  (void)o;
  if (out == NULL) return fail(TSR_INVALID_ARGUMENT, "out_plugin is NULL");
  *out = (tsr_compiler_plugin)calloc(1, sizeof(struct tsr_compiler_plugin_s));
  return *out ? TSR_OK : fail(TSR_RESOURCE_EXHAUSTED, "out of memory");
}
static void destroy(tsr_compiler_plugin p) { free(p); }

static uint64_t element_count(const tsr_graph_view_api* v, tsr_graph g, int32_t t) {
  const int64_t* dims = NULL;
  size_t rank = 0;
  if (v->tensor_shape(g, t, &dims, &rank) != TSR_OK) return 0;
  uint64_t n = 1;
  for (size_t i = 0; i < rank; ++i) n *= (uint64_t)dims[i];
  return n;
}

/* ADD/MUL of three f32 tensors of one shape, no constants. From 1.2 the
 * plugin sees every attribute an op carries and refuses what it does not
 * implement (ADD and MUL take none); before, the host refuses newer ones on
 * its behalf. */
static int claimable(const tsr_graph_view_api* v, tsr_graph g, size_t op) {
  const int32_t type = v->op_type(g, op);
  if ((type != TSR_OP_ADD && type != TSR_OP_MUL) || v->op_input_count(g, op) != 2 || v->op_output_count(g, op) != 1)
    return 0;
#if TSR_ABI_VERSION_MINOR >= 2
  if (v->op_attr_count(g, op) != 0) return 0;
#endif
  const int32_t t[3] = {v->op_input(g, op, 0), v->op_input(g, op, 1), v->op_output(g, op, 0)};
  const uint64_t n = element_count(v, g, t[2]);
  for (int i = 0; i < 3; ++i) {
    const void* data;
    size_t size;
    if (t[i] < 0 || v->tensor_dtype(g, t[i]) != TSR_DTYPE_F32 || element_count(v, g, t[i]) != n) return 0;
    if (v->tensor_constant_data(g, t[i], &data, &size) == TSR_OK) return 0;
  }
  return 1;
}

/* The verdict on one op, in the members tsr_op_support and tsr_op_claim
 * share. */
#define FROZEN_VERDICT(s, ok)                                                            \
  do {                                                                                   \
    (s)->supported = (ok) ? 1u : 0u;                                                     \
    (s)->reason = (ok) ? TSR_REFUSAL_NONE : TSR_REFUSAL_UNSUPPORTED_OP;                  \
    (s)->reason_detail = (ok) ? NULL : "frozen claims f32 ADD/MUL of equal shapes only"; \
    (s)->estimated_time_us = (ok) ? 0.5 : -1.0;                                          \
    (s)->estimated_cycles = (ok) ? 7u : 0u;                                              \
  } while (0)

#if TSR_ABI_VERSION_MINOR < 2
/* The v1 loop: entry i at out_support + i, with this snapshot's sizeof. */
static tsr_status partition(tsr_compiler_plugin p, const tsr_graph_view_api* v, tsr_graph g,
                            const tsr_partition_options* o, tsr_op_support* out) {
  (void)o;
  if (p == NULL || v == NULL || out == NULL) return fail(TSR_INVALID_ARGUMENT, "partition: NULL argument");
  const size_t n = v->op_count(g);
  for (size_t i = 0; i < n; ++i) FROZEN_VERDICT(&out[i], claimable(v, g, i));
  return TSR_OK;
}
#else
/* The 1.2 path: one claim per op through the host's sink. */
static tsr_status claim_ops(tsr_compiler_plugin p, const tsr_graph_view_api* v, tsr_graph g,
                            const tsr_partition_options* o, const tsr_claim_sink_api* sink_api, tsr_claim_sink sink) {
  (void)o;
  if (p == NULL || v == NULL || sink_api == NULL) return fail(TSR_INVALID_ARGUMENT, "claim_ops: NULL argument");
  const size_t n = v->op_count(g);
  for (size_t i = 0; i < n; ++i) {
    tsr_op_claim c;
    memset(&c, 0, sizeof(c));
    c.header.struct_size = sizeof(c);
    c.header.major = TSR_ABI_VERSION_MAJOR;
    c.header.minor = TSR_ABI_VERSION_MINOR;
    FROZEN_VERDICT(&c, claimable(v, g, i));
    if (sink_api->report_op(sink, i, &c) != TSR_OK) return fail(TSR_INTERNAL, "frozen: the host refused a claim");
  }
  return TSR_OK;
}
#endif

static tsr_status lower(const tsr_graph_view_api* v, tsr_graph g, frozen_code* c) {
  memset(c, 0, sizeof(*c));
  c->op_count = (uint32_t)v->op_count(g);
  c->tensor_count = (uint32_t)v->tensor_count(g);
  c->input_count = (uint32_t)v->input_count(g);
  c->output_count = (uint32_t)v->output_count(g);
  if (c->op_count > FROZEN_MAX_OPS || c->tensor_count > FROZEN_MAX_TENSORS || c->op_count == 0)
    return fail(TSR_RESOURCE_EXHAUSTED, "frozen: partition too large");
  for (uint32_t i = 0; i < c->input_count; ++i) c->inputs[i] = v->input(g, i);
  for (uint32_t i = 0; i < c->output_count; ++i) c->outputs[i] = v->output(g, i);
  for (uint32_t i = 0; i < c->op_count; ++i) {
    if (!claimable(v, g, i)) return fail(TSR_INVALID_ARGUMENT, "frozen: partition holds an op it did not claim");
    c->ops[i][0] = v->op_type(g, i);
    c->ops[i][1] = v->op_input(g, i, 0);
    c->ops[i][2] = v->op_input(g, i, 1);
    c->ops[i][3] = v->op_output(g, i, 0);
  }
  c->elements = element_count(v, g, c->ops[0][3]);
  return TSR_OK;
}

static tsr_status compile(tsr_compiler_plugin p, const tsr_graph_view_api* v, const tsr_graph* parts, size_t count,
                          const tsr_compile_options* o, tsr_compiled* out) {
  if (p == NULL || v == NULL || out == NULL || o == NULL || count == 0 || count > FROZEN_MAX_OPS)
    return fail(TSR_INVALID_ARGUMENT, "compile: bad argument");
  struct tsr_compiled_s* r = (struct tsr_compiled_s*)calloc(1, sizeof(*r));
  frozen_code* code = (frozen_code*)calloc(count, sizeof(frozen_code));
  if (r == NULL || code == NULL) {
    free(r);
    free(code);
    return fail(TSR_RESOURCE_EXHAUSTED, "out of memory");
  }
  r->mode = o->mode;
  r->count = count;
  r->code = code;
  for (size_t i = 0; i < count; ++i) {
    tsr_status s = lower(v, parts[i], &code[i]);
    if (s != TSR_OK) {
      free(code);
      free(r);
      return s;
    }
    /* "p0".."p9", then "pa".. : unique, and in ascending byte order. */
    r->names[i][0] = 'p';
    r->names[i][1] = (char)(i < 10 ? '0' + i : 'a' + (i - 10));
  }
  if (o->mode == TSR_COMPILE_MODE_AOT) {
    /* The snapshot's envelope: 128-byte header, 88-byte entries, body. */
    const size_t table = sizeof(tsr_bytecode_header);
    const size_t body = table + count * sizeof(tsr_bytecode_entry);
    const size_t total = body + count * sizeof(frozen_code);
    unsigned char* blob = (unsigned char*)calloc(1, total);
    if (blob == NULL) return fail(TSR_RESOURCE_EXHAUSTED, "out of memory");
    tsr_bytecode_header h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, "TSRB", 4);
    h.format_version = TSR_BYTECODE_FORMAT_VERSION;
    h.header_size = sizeof(h);
    h.abi_major = TSR_ABI_VERSION_MAJOR;
    h.abi_minor = TSR_ABI_VERSION_MINOR;
    strcpy(h.vendor, "frozen");
    strcpy(h.soc_model, "any");
    h.vendor_format_version = FROZEN_BODY_VERSION;
    h.entry_count = (uint32_t)count;
    h.entry_table_offset = table;
    h.body_offset = body;
    h.body_size = count * sizeof(frozen_code);
    h.total_size = total;
    for (size_t i = 0; i < count; ++i) {
      tsr_bytecode_entry e;
      memset(&e, 0, sizeof(e));
      memcpy(e.name, r->names[i], 2);
      e.offset = i * sizeof(frozen_code);
      e.size = sizeof(frozen_code);
      e.input_count = code[i].input_count;
      e.output_count = code[i].output_count;
      memcpy(blob + table + i * sizeof(e), &e, sizeof(e));
      memcpy(blob + body + i * sizeof(frozen_code), &code[i], sizeof(frozen_code));
    }
    memcpy(blob, &h, sizeof(h));
    h.checksum = tsr_bytecode_compute_checksum(blob, total);
    memcpy(blob, &h, sizeof(h));
    r->blob = blob;
    r->blob_size = total;
  }
  *out = r;
  return TSR_OK;
}

static tsr_status compiled_bytecode(tsr_compiled c, const void** data, size_t* size) {
  if (c == NULL || data == NULL || size == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL argument");
  if (c->blob == NULL) return fail(TSR_NOT_FOUND, "a JIT result has no bytecode");
  *data = c->blob;
  *size = c->blob_size;
  return TSR_OK;
}
static tsr_status compiled_entry_point(tsr_compiled c, size_t i, const char** name) {
  if (c == NULL || name == NULL || i >= c->count) return fail(TSR_OUT_OF_RANGE, "partition index out of range");
  *name = c->names[i];
  return TSR_OK;
}
static tsr_status compiled_jit_handle(tsr_compiled c, size_t i, tsr_jit_handle* out) {
  if (c == NULL || out == NULL || i >= c->count) return fail(TSR_OUT_OF_RANGE, "partition index out of range");
  if (c->mode != TSR_COMPILE_MODE_JIT) return fail(TSR_NOT_FOUND, "an AOT result has no JIT handles");
  *out = (tsr_jit_handle)&c->code[i];
  return TSR_OK;
}
static void release_compiled(tsr_compiled c) {
  if (c == NULL) return;
  free(c->code);
  free(c->blob);
  free(c);
}

/* Positional, as a vendor of that release wrote it: 1.0/1.1 exactly the v1
 * members; 1.2 on no partition (a 1.2+-only plugin), claim_ops, and none of
 * the optional 1.2 members. */
static const tsr_compiler_plugin_api kApi = {
    {sizeof(tsr_compiler_plugin_api), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    get_last_error,
    get_info,
    create,
    destroy,
#if TSR_ABI_VERSION_MINOR < 2
    partition,
#else
    NULL,
#endif
    compile,
    compiled_bytecode,
    compiled_entry_point,
    compiled_jit_handle,
    release_compiled,
#if TSR_ABI_VERSION_MINOR >= 2
    claim_ops,
    NULL,
    NULL,
    NULL,
    NULL, /* estimate_partition, compiled_partition_status, _culprits, compatibility_info */
#endif
};

TSR_EXPORT tsr_status tsr_compiler_plugin_negotiate(tsr_version host, tsr_version* out_version,
                                                    const tsr_compiler_plugin_api** out_api) {
  if (out_version == NULL || out_api == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL output");
  const tsr_status s = negotiate(host, out_version);
  if (s == TSR_OK) *out_api = &kApi;
  return s;
}

#else
/* ------------------------------ dispatch ------------------------------ */

struct tsr_device_context_s {
  int unused;
};
struct tsr_executable_s {
  frozen_code code;
};
struct tsr_buffer_s {
  void* host;
  uint64_t size;
  int owned;
};
struct tsr_invocation_s {
  const struct tsr_executable_s* exe;
  tsr_buffer in[FROZEN_MAX_TENSORS];
  tsr_buffer out[FROZEN_MAX_TENSORS];
};

static const tsr_dispatch_info kInfo = {
    {sizeof(tsr_dispatch_info), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    "frozen",
    "1.0.0-frozen",
    kSocs,
    1,
    TSR_DISPATCH_CAP_BYTECODE | TSR_DISPATCH_CAP_JIT_HANDLE,
#if TSR_ABI_VERSION_MINOR >= 2
    0,
    FROZEN_SANITIZER,
    0,
    FROZEN_BUILD_ID, /* reserved0, sanitizer, reserved1, build_id */
#endif
};

static tsr_status get_info(const tsr_dispatch_info** out) {
  if (out == NULL) return fail(TSR_INVALID_ARGUMENT, "out_info is NULL");
  *out = &kInfo;
  return TSR_OK;
}
static tsr_status create_context(const tsr_device_context_options* o, tsr_device_context* out) {
  (void)o;
  if (out == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL output");
  *out = (tsr_device_context)calloc(1, sizeof(struct tsr_device_context_s));
  return *out ? TSR_OK : fail(TSR_RESOURCE_EXHAUSTED, "out of memory");
}
static void destroy_context(tsr_device_context c) { free(c); }

static tsr_status load(tsr_device_context c, const tsr_executable_source* src, tsr_executable* out) {
  if (c == NULL || src == NULL || out == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL argument");
  const frozen_code* code = NULL;
  tsr_bytecode_header h;
  tsr_bytecode_entry e;
  if (src->kind == TSR_EXECUTABLE_BYTECODE) {
    static _Thread_local char err[160];
    /* The snapshot's own verifier: this is what the vendor compiled in. */
    tsr_status s = tsr_bytecode_verify(src->bytecode, src->bytecode_size, "frozen", &h, err, sizeof(err));
    if (s != TSR_OK) return fail(s, err);
    if (tsr_bytecode_find_entry(src->bytecode, &h, src->entry_point, &e) != TSR_OK || e.size != sizeof(frozen_code))
      return fail(TSR_NOT_FOUND, "frozen: no such entry point");
    code = (const frozen_code*)((const unsigned char*)src->bytecode + h.body_offset + e.offset);
  } else {
    code = (const frozen_code*)src->jit_handle;
  }
  if (code == NULL || code->op_count > FROZEN_MAX_OPS || code->tensor_count > FROZEN_MAX_TENSORS)
    return fail(TSR_BYTECODE_INVALID, "frozen: malformed code");
  struct tsr_executable_s* x = (struct tsr_executable_s*)malloc(sizeof(*x));
  if (x == NULL) return fail(TSR_RESOURCE_EXHAUSTED, "out of memory");
  memcpy(&x->code, code, sizeof(x->code));
  *out = x;
  return TSR_OK;
}
static void unload(tsr_executable x) { free(x); }
static tsr_status io_count(tsr_executable x, size_t* ins, size_t* outs) {
  if (x == NULL || ins == NULL || outs == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL argument");
  *ins = x->code.input_count;
  *outs = x->code.output_count;
  return TSR_OK;
}
static tsr_status requirements(tsr_executable x, int32_t kind, size_t i, tsr_buffer_requirements* out) {
  if (x == NULL || out == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL argument");
  if (i >= (kind == TSR_IO_INPUT ? x->code.input_count : x->code.output_count)) return fail(TSR_OUT_OF_RANGE, "index");
  static const int32_t kTypes[] = {TSR_FROZEN_BUFFER_TYPES};
  const uint32_t count = (uint32_t)(sizeof(kTypes) / sizeof(kTypes[0]));
  for (uint32_t t = 0; t < count; ++t) out->buffer_types[t] = kTypes[t];
  out->buffer_type_count = count;
  out->alignment = TSR_FROZEN_ALIGNMENT;
  out->size_bytes = x->code.elements * 4;
  out->layout = TSR_LAYOUT_DENSE;
  out->row_stride_bytes = 0;
  out->dtype = TSR_DTYPE_F32;
  return TSR_OK;
}
static int listed_type(int32_t type) {
  static const int32_t kTypes[] = {TSR_FROZEN_BUFFER_TYPES};
  for (size_t t = 0; t < sizeof(kTypes) / sizeof(kTypes[0]); ++t)
    if (kTypes[t] == type) return 1;
  return 0;
}
static tsr_status new_buffer(const tsr_buffer_desc* d, void* host, tsr_buffer* out) {
  if (d == NULL || out == NULL || !listed_type(d->buffer_type))
    return fail(TSR_INVALID_ARGUMENT, "frozen: a buffer type it did not list");
  /* The requirement is a promise the host must keep: a device would fault. */
  if (host != NULL && (uintptr_t)host % TSR_FROZEN_ALIGNMENT != 0)
    return fail(TSR_INVALID_ARGUMENT, "frozen: host address below the alignment its requirements asked for");
  struct tsr_buffer_s* b = (struct tsr_buffer_s*)calloc(1, sizeof(*b));
  if (b == NULL) return fail(TSR_RESOURCE_EXHAUSTED, "out of memory");
  b->size = d->size_bytes;
  b->owned = host == NULL;
  if (host == NULL) {
    const size_t size = d->size_bytes ? (size_t)d->size_bytes : 1;
    const size_t rounded = (size + TSR_FROZEN_ALIGNMENT - 1) / TSR_FROZEN_ALIGNMENT * TSR_FROZEN_ALIGNMENT;
    host = aligned_alloc(TSR_FROZEN_ALIGNMENT, rounded);
    if (host != NULL) memset(host, 0, rounded);
  }
  b->host = host;
  if (b->host == NULL) {
    free(b);
    return fail(TSR_RESOURCE_EXHAUSTED, "out of memory");
  }
  *out = b;
  return TSR_OK;
}
static tsr_status allocate(tsr_device_context c, const tsr_buffer_desc* d, tsr_buffer* out) {
  (void)c;
  return new_buffer(d, NULL, out);
}
static tsr_status register_buffer(tsr_device_context c, const tsr_buffer_desc* d, tsr_buffer* out) {
  (void)c;
  if (d == NULL || d->host_address == NULL) return fail(TSR_INVALID_ARGUMENT, "no host address");
  return new_buffer(d, d->host_address, out);
}
static void release_buffer(tsr_buffer b) {
  if (b == NULL) return;
  if (b->owned) free(b->host);
  free(b);
}
static tsr_status map(tsr_buffer b, void** out) {
  if (b == NULL || out == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL argument");
  *out = b->host;
  return TSR_OK;
}
static tsr_status unmap(tsr_buffer b) { return b ? TSR_OK : fail(TSR_INVALID_ARGUMENT, "NULL buffer"); }
static tsr_status create_invocation(tsr_executable x, tsr_invocation* out) {
  if (x == NULL || out == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL argument");
  struct tsr_invocation_s* inv = (struct tsr_invocation_s*)calloc(1, sizeof(*inv));
  if (inv == NULL) return fail(TSR_RESOURCE_EXHAUSTED, "out of memory");
  inv->exe = x;
  *out = inv;
  return TSR_OK;
}
static void destroy_invocation(tsr_invocation inv) { free(inv); }
static tsr_status attach_in(tsr_invocation inv, size_t i, tsr_buffer b) {
  if (inv == NULL || b == NULL || i >= inv->exe->code.input_count) return fail(TSR_INVALID_ARGUMENT, "attach");
  inv->in[i] = b;
  return TSR_OK;
}
static tsr_status attach_out(tsr_invocation inv, size_t i, tsr_buffer b) {
  if (inv == NULL || b == NULL || i >= inv->exe->code.output_count) return fail(TSR_INVALID_ARGUMENT, "attach");
  inv->out[i] = b;
  return TSR_OK;
}
static tsr_status invoke(tsr_invocation inv) {
  if (inv == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL invocation");
  const frozen_code* c = &inv->exe->code;
  float* values[FROZEN_MAX_TENSORS] = {0};
  float* scratch = (float*)calloc(c->tensor_count * c->elements + 1, sizeof(float));
  if (scratch == NULL) return fail(TSR_RESOURCE_EXHAUSTED, "out of memory");
  for (uint32_t t = 0; t < c->tensor_count; ++t) values[t] = scratch + t * c->elements;
  for (uint32_t i = 0; i < c->input_count; ++i) {
    if (inv->in[i] == NULL) {
      free(scratch);
      return fail(TSR_FAILED_PRECONDITION, "input not attached");
    }
    values[c->inputs[i]] = (float*)inv->in[i]->host;
  }
  for (uint32_t i = 0; i < c->output_count; ++i) {
    if (inv->out[i] == NULL) {
      free(scratch);
      return fail(TSR_FAILED_PRECONDITION, "output not attached");
    }
    values[c->outputs[i]] = (float*)inv->out[i]->host;
  }
  for (uint32_t o = 0; o < c->op_count; ++o) {
    const float* a = values[c->ops[o][1]];
    const float* b = values[c->ops[o][2]];
    float* y = values[c->ops[o][3]];
    for (uint64_t k = 0; k < c->elements; ++k) y[k] = c->ops[o][0] == TSR_OP_ADD ? a[k] + b[k] : a[k] * b[k];
  }
  free(scratch);
  return TSR_OK;
}
static tsr_status metric_count(tsr_invocation inv, size_t* out) {
  if (inv == NULL || out == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL argument");
  *out = 0;
  return TSR_OK;
}
static tsr_status get_metric(tsr_invocation inv, size_t i, tsr_metric* out) {
  (void)inv;
  (void)i;
  (void)out;
  return fail(TSR_OUT_OF_RANGE, "frozen has no metrics");
}
#if TSR_ABI_VERSION_MINOR >= 1
static tsr_status numerics(tsr_executable x, tsr_numerics* out) {
  if (x == NULL || out == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL argument");
  out->float_precision = TSR_FROZEN_NUMERICS_RTOL != 0 ? TSR_PRECISION_FP16 : TSR_PRECISION_FP32;
  out->reserved = 0;
  out->relative_tolerance = TSR_FROZEN_NUMERICS_RTOL;
  out->absolute_tolerance = 0;
  out->description = "FP32, one rounding per op";
  return TSR_OK;
}
#endif

#if TSR_ABI_VERSION_MINOR >= 2 && defined(TSR_FROZEN_COMPAT_VERDICT)
static tsr_status check_compatibility(tsr_device_context ctx, const void* bytecode, size_t size,
                                      const char* compatibility_info, int32_t* out) {
  (void)compatibility_info;
  if (ctx == NULL || bytecode == NULL || out == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL argument");
  if (size < sizeof(tsr_bytecode_header)) return fail(TSR_BYTECODE_INVALID, "blob smaller than the envelope");
  *out = TSR_FROZEN_COMPAT_VERDICT;
  return TSR_OK;
}
#endif

static const tsr_dispatch_api kApi = {
    {sizeof(tsr_dispatch_api), TSR_ABI_VERSION_MAJOR, TSR_ABI_VERSION_MINOR},
    get_last_error,
    get_info,
    create_context,
    destroy_context,
    load,
    unload,
    io_count,
    requirements,
    allocate,
    register_buffer,
    release_buffer,
    map,
    unmap,
    create_invocation,
    destroy_invocation,
    attach_in,
    attach_out,
    invoke,
    metric_count,
    get_metric,
#if TSR_ABI_VERSION_MINOR >= 1
    numerics,
#endif
#if TSR_ABI_VERSION_MINOR >= 2
/* None of 1.2's members but, in the verdict variants,
 * check_compatibility: detach_input/_output, buffer type names,
 * layouts, convert_buffer, async, metric descriptors, timing. */
#ifdef TSR_FROZEN_COMPAT_VERDICT
    check_compatibility,
#else
    NULL,
#endif
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
#endif
};

TSR_EXPORT tsr_status tsr_dispatch_negotiate(tsr_version host, tsr_version* out_version,
                                             const tsr_dispatch_api** out_api) {
  if (out_version == NULL || out_api == NULL) return fail(TSR_INVALID_ARGUMENT, "NULL output");
  const tsr_status s = negotiate(host, out_version);
  if (s == TSR_OK) *out_api = &kApi;
  return s;
}
#endif
