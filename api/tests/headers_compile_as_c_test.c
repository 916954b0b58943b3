/* Compiles every ABI header as strict C11 (-Wpedantic -Wpadded -Werror) and
 * checks, with values worked out by hand or by independent definitions:
 *   - the layout of every struct and table (sizeof and the offset of its
 *     last member), including the 1.0/1.1 end-of-version markers;
 *   - TSR_ABI_HAS, tsr_version_compare, tsr_status_retry_class, tsr_copy_text;
 *   - the CRC-32 tables against the bitwise definition and the standard
 *     check value;
 *   - the envelope rules of 1.2 (longer headers and entries, duplicate
 *     names, informational ABI major, sorted lookup). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/tessera.h"

/* ---- layout pins (LP64). Each number is the hand sum of the members. ---- */
#define PIN(type, last, size, last_offset)                               \
  _Static_assert(sizeof(type) == (size), #type " size");                 \
  _Static_assert(offsetof(type, last) == (last_offset), #type " last member")
PIN(tsr_version, minor, 4, 2);
PIN(tsr_abi_header, minor, 8, 6);
PIN(tsr_quantization, zero_points, 24, 16); /* frozen at 1.0 */
PIN(tsr_key_value, value, 16, 8);
PIN(tsr_graph_view_api, tensor_id, 184, 176);
PIN(tsr_compiler_plugin_info, build_id, 72, 64);
PIN(tsr_compiler_plugin_options, log_user_data, 40, 32);
PIN(tsr_op_support, estimated_cycles, 40, 32); /* frozen at 1.1 */
PIN(tsr_op_claim, reserved0, 48, 44);
PIN(tsr_claim_sink_api, add_group, 24, 16);
PIN(tsr_partition_options, soc_description_size, 32, 24);
PIN(tsr_partition_estimate, detail, 64, 56);
PIN(tsr_compile_options, reserved2, 56, 52);
PIN(tsr_compiler_plugin_api, compiled_constant_references, 136, 128); /* 1.4 appended 8 */
PIN(tsr_dispatch_info, build_id, 64, 56);
PIN(tsr_device_context_options, log_user_data, 64, 56);
PIN(tsr_executable_source, constant_count, 72, 64); /* 1.4 appended 16 */
PIN(tsr_constant_reference, size_bytes, 24, 16);
PIN(tsr_constant_binding, reserved0, 48, 44);
PIN(tsr_buffer_requirements, reserved1, 80, 76);
PIN(tsr_buffer_layout, vendor_layout_id, 104, 96);
PIN(tsr_buffer_type_info, max_size_bytes, 40, 32);
PIN(tsr_buffer_desc, offset, 56, 48);
PIN(tsr_metric, unit, 32, 24);
PIN(tsr_numerics, description, 40, 32);
PIN(tsr_invocation_timing, device_time_us, 32, 24);
PIN(tsr_timeline_point, value, 16, 8);
PIN(tsr_dispatch_async_api, signal, 56, 48);
PIN(tsr_dispatch_api, invocation_timing, 280, 272);
PIN(tsr_bytecode_header, flags, 128, 126);
PIN(tsr_bytecode_entry, output_count, 88, 84);
/* The end-of-version markers of the tables, as 1.0 and 1.1 put them. */
_Static_assert(offsetof(tsr_graph_view_api, output) == 152, "graph view v1");
_Static_assert(offsetof(tsr_compiler_plugin_api, release_compiled) == 80, "compiler plugin v1");
_Static_assert(offsetof(tsr_dispatch_api, get_metric) == 160, "dispatch v1");
_Static_assert(offsetof(tsr_dispatch_api, executable_numerics) == 168, "dispatch v1.1");
/* The 1.2 ends that 1.4 appended after. */
_Static_assert(offsetof(tsr_compiler_plugin_api, compatibility_info) == 120, "compiler plugin v1.2");
_Static_assert(offsetof(tsr_executable_source, reserved1) == 52, "executable source v1.2");
/* The 1.1 tail padding is now named, and the first 1.2 member follows it. */
_Static_assert(offsetof(tsr_compiler_plugin_info, reserved0) == 44, "info tail");
_Static_assert(offsetof(tsr_compiler_plugin_info, default_priority) == 48, "info 1.2");
_Static_assert(offsetof(tsr_compile_options, reserved1) == 44, "options tail");
_Static_assert(offsetof(tsr_dispatch_info, reserved0) == 44, "dispatch info tail");
_Static_assert(offsetof(tsr_buffer_requirements, reserved1) == 76, "requirements tail");

static int failures = 0;
#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                     \
    }                                                                 \
  } while (0)

static uint32_t crc_bitwise(const unsigned char* p, size_t n) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

static void test_abi_has(void) {
  tsr_dispatch_api api;
  memset(&api, 0, sizeof(api));
  api.header.struct_size = sizeof(api);
  const tsr_dispatch_api* p = &api;
  CHECK(!TSR_ABI_HAS(p, tsr_dispatch_api, invoke)); /* NULL member */
  api.header.struct_size = offsetof(tsr_dispatch_api, invoke);
  api.invoke = (tsr_status(*)(tsr_invocation))0x1;
  CHECK(!TSR_ABI_HAS(p, tsr_dispatch_api, invoke)); /* beyond struct_size */
  api.header.struct_size = sizeof(api);
  CHECK(TSR_ABI_HAS(p, tsr_dispatch_api, invoke));
  /* Exactly up to the member's last byte: present; one byte short: not. */
  api.header.struct_size = offsetof(tsr_dispatch_api, invoke) + sizeof(api.invoke);
  CHECK(TSR_ABI_HAS(p, tsr_dispatch_api, invoke));
  api.header.struct_size -= 1;
  CHECK(!TSR_ABI_HAS(p, tsr_dispatch_api, invoke));
  tsr_numerics numerics;
  memset(&numerics, 0, sizeof(numerics));
  numerics.header.struct_size = offsetof(tsr_numerics, description) + sizeof(numerics.description);
  CHECK(TSR_ABI_HAS_FIELD(&numerics, tsr_numerics, description));
  numerics.header.struct_size -= 1;
  CHECK(!TSR_ABI_HAS_FIELD(&numerics, tsr_numerics, description));
}

static void test_helpers(void) {
  tsr_version v10 = {1, 0}, v12 = {1, 2}, v20 = {2, 0};
  CHECK(tsr_version_compare(v10, v12) < 0);
  CHECK(tsr_version_compare(v20, v12) > 0);
  CHECK(tsr_version_compare(v12, v12) == 0);
  CHECK(tsr_status_retry_class(TSR_UNAVAILABLE) == TSR_RETRY_SAME_CALL);
  CHECK(tsr_status_retry_class(TSR_DEADLINE_EXCEEDED) == TSR_RETRY_SAME_CALL);
  CHECK(tsr_status_retry_class(TSR_DEVICE_LOST) == TSR_RETRY_NEW_CONTEXT);
  CHECK(tsr_status_retry_class(TSR_INVALID_ARGUMENT) == TSR_RETRY_NEVER);
  CHECK(tsr_status_retry_class(TSR_INTERNAL) == TSR_RETRY_NEVER);
  CHECK(tsr_status_retry_class(TSR_BYTECODE_CHECKSUM) == TSR_RETRY_NEVER);
  /* 1.4: a code this header does not name is classed by its range (a
   * 1.2/1.3 host classed all three as never-retry). */
  CHECK(tsr_status_retry_class(3517) == TSR_RETRY_SAME_CALL);
  CHECK(tsr_status_retry_class(4001) == TSR_RETRY_NEW_CONTEXT);
  CHECK(tsr_status_retry_class(2999) == TSR_RETRY_NEVER);
  CHECK(tsr_status_retry_class(1500) == TSR_RETRY_NEVER);
  CHECK(tsr_status_retry_class(5000) == TSR_RETRY_NEVER);
  CHECK(tsr_status_retry_class(-3) == TSR_RETRY_NEVER);
  /* The permanent budget refusal is never retried, unlike RESOURCE_EXHAUSTED. */
  CHECK(tsr_status_retry_class(TSR_BUDGET_EXCEEDED) == TSR_RETRY_NEVER);
  CHECK(tsr_status_retry_class(TSR_RESOURCE_EXHAUSTED) == TSR_RETRY_SAME_CALL);
  CHECK(tsr_status_since_minor(TSR_BUDGET_EXCEEDED) == 4 && tsr_status_since_minor(TSR_DEVICE_LOST) == 2 &&
        tsr_status_since_minor(TSR_INTERNAL) == 0 && tsr_status_since_minor(3000) == -1);
  char buf[4];
  size_t len = 0;
  tsr_copy_text("hello", buf, sizeof(buf), &len);
  CHECK(len == 5 && strcmp(buf, "hel") == 0);
  tsr_copy_text(NULL, buf, sizeof(buf), &len);
  CHECK(len == 0 && buf[0] == '\0');
  tsr_copy_text("ab", NULL, 0, &len);
  CHECK(len == 2);
  CHECK(tsr_buffer_type_is_shared(TSR_BUFFER_TYPE_HOST));
  CHECK(tsr_buffer_type_is_shared(TSR_BUFFER_TYPE_DMABUF));
  CHECK(!tsr_buffer_type_is_shared(TSR_BUFFER_TYPE_DEVICE_DRAM));
  CHECK(!tsr_buffer_type_is_shared(TSR_BUFFER_TYPE_VENDOR_BASE + 1));
  CHECK(tsr_attr_key_since_minor(TSR_ATTR_AXIS) == 0);
  CHECK(tsr_attr_key_since_minor(TSR_ATTR_NOOP_WITH_EMPTY_AXES) == 2);
  CHECK(tsr_attr_key_since_minor(TSR_ATTR_RESIZE_MODE) == 3);
  CHECK(tsr_attr_key_since_minor(TSR_ATTR_OUTPUT_PADDING) == 3);
  CHECK(tsr_attr_key_since_minor(TSR_ATTR_SELECT_LAST_INDEX) == 4);
  CHECK(tsr_attr_key_since_minor(TSR_ATTR_REVERSE) == 4);
  CHECK(tsr_attr_key_since_minor(TSR_ATTR_KEY_COUNT_V1_4) == -1);
  CHECK(tsr_op_type_since_minor(TSR_OP_ADD) == 0);
  CHECK(tsr_op_type_since_minor(TSR_OP_RESIZE) == 3);
  CHECK(tsr_op_type_since_minor(TSR_OP_CONV_TRANSPOSE_2D) == 3);
  CHECK(tsr_op_type_since_minor(TSR_OP_ARG_MAX) == 4);
  CHECK(tsr_op_type_since_minor(TSR_OP_CUM_SUM) == 4);
  CHECK(tsr_op_type_since_minor(TSR_OP_COUNT_V1_4) == -1);
  /* Released markers keep the values they shipped with (1.3: 50 ops, 32 keys). */
  CHECK(TSR_OP_COUNT_V1 == 48 && TSR_OP_COUNT_V1_3 == 50 && TSR_OP_COUNT_V1_4 == 54);
  CHECK(TSR_ATTR_KEY_COUNT_V1 == 22 && TSR_ATTR_KEY_COUNT_V1_2 == 23 && TSR_ATTR_KEY_COUNT_V1_3 == 32 &&
        TSR_ATTR_KEY_COUNT_V1_4 == 38);
}

/* A 1.4 reader handed an array by a producer whose binding grew one 8-byte
 * member: it must step by the producer's 56, not its own 48 (the old
 * header-less array read binding 1 as garbage). */
typedef struct {
  tsr_constant_binding v14;
  uint64_t appended;
} future_binding;

static void test_headed_arrays(void) {
  future_binding arr[2];
  const tsr_constant_binding* b1 = NULL;
  size_t stride = 0;
  memset(arr, 0, sizeof arr);
  arr[0].v14.header.struct_size = (uint32_t)sizeof(future_binding);
  arr[1].v14.header.struct_size = (uint32_t)sizeof(future_binding);
  arr[0].v14.key = 7;
  arr[1].v14.key = 4096;
  arr[1].v14.size_bytes = 64;
  arr[1].appended = 0xdeadbeefu;
  CHECK(tsr_abi_array_stride(arr, 2, sizeof(tsr_constant_binding), &stride));
  CHECK(stride == 56);
  b1 = (const tsr_constant_binding*)tsr_abi_array_at(arr, stride, 1);
  CHECK(b1->key == 4096 && b1->size_bytes == 64);
  /* Mixed sizes, a stride below the reader's minimum, an unaligned stride,
   * and a NULL base with elements are refused; an empty array is fine. */
  arr[1].v14.header.struct_size = (uint32_t)sizeof(tsr_constant_binding);
  CHECK(!tsr_abi_array_stride(arr, 2, sizeof(tsr_constant_binding), &stride));
  arr[0].v14.header.struct_size = 40;
  CHECK(!tsr_abi_array_stride(arr, 1, sizeof(tsr_constant_binding), &stride));
  arr[0].v14.header.struct_size = 52;
  CHECK(!tsr_abi_array_stride(arr, 1, 48, &stride));
  CHECK(!tsr_abi_array_stride(NULL, 1, 48, &stride));
  CHECK(tsr_abi_array_stride(NULL, 0, 48, &stride) && stride == 0);
}

static void test_crc(void) {
  /* The standard check value of CRC-32/ISO-HDLC. */
  CHECK(tsr_crc32_update(0, "123456789", 9) == 0xCBF43926u);
  /* Every table entry against the bitwise definition: table k, entry i is
   * the CRC register after byte i followed by k zero bytes. */
  for (int k = 0; k < 8; ++k)
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int b = 0; b < 8 * (k + 1); ++b) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
      CHECK(tsr_crc32_table_[k][i] == c);
    }
  /* Slicing agrees with bitwise on every length and misalignment. */
  unsigned char data[300];
  for (size_t i = 0; i < sizeof(data); ++i) data[i] = (unsigned char)(i * 131u + 7u);
  for (size_t off = 0; off < 9; ++off)
    for (size_t n = 0; n + off <= sizeof(data); n += 7)
      CHECK(tsr_crc32_update(0, data + off, n) == crc_bitwise(data + off, n));
  /* Incremental updates compose. */
  CHECK(tsr_crc32_update(tsr_crc32_update(0, data, 100), data + 100, 200) == crc_bitwise(data, 300));
}

/* A hand-built envelope: header_size, entry_size and names chosen by the
 * test; body = 16 bytes. */
static size_t build_blob(unsigned char* out, size_t cap, uint32_t header_size, uint16_t entry_size,
                         uint16_t flags, uint16_t abi_major, const char* const* names, uint32_t count) {
  const uint32_t stride = entry_size == 0 ? 88 : entry_size;
  const size_t table = header_size, body = table + (size_t)stride * count, total = body + 16;
  if (total > cap) abort();
  memset(out, 0, total);
  tsr_bytecode_header h;
  memset(&h, 0, sizeof(h));
  memcpy(h.magic, "TSRB", 4);
  h.format_version = 1;
  h.header_size = header_size;
  h.abi_major = abi_major;
  h.abi_minor = 0;
  strcpy(h.vendor, "testvendor");
  strcpy(h.soc_model, "any");
  h.entry_count = count;
  h.entry_table_offset = table;
  h.body_offset = body;
  h.body_size = 16;
  h.total_size = total;
  h.entry_size = entry_size;
  h.flags = flags;
  memcpy(out, &h, sizeof(h));
  for (uint32_t i = 0; i < count; ++i) {
    tsr_bytecode_entry e;
    memset(&e, 0, sizeof(e));
    strcpy(e.name, names[i]);
    e.offset = i % 16; /* inside the 16-byte body whatever the count */
    e.size = 1;
    e.input_count = i + 1;
    memcpy(out + table + (size_t)i * stride, &e, sizeof(e));
  }
  const uint32_t crc = tsr_bytecode_compute_checksum(out, total);
  memcpy(out + offsetof(tsr_bytecode_header, checksum), &crc, 4);
  return total;
}

static void test_envelope(void) {
  static unsigned char blob[4096];
  tsr_bytecode_header h;
  tsr_bytecode_entry e;
  char err[160];
  const char* abc[] = {"a", "b", "c"};
  const char* cab[] = {"c", "a", "b"};
  const char* dup[] = {"a", "b", "a"};
  size_t n;

  unsigned char tiny[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(tsr_bytecode_verify(tiny, sizeof(tiny), NULL, &h, err, sizeof(err)) == TSR_BYTECODE_INVALID);

  /* A 1.0-style blob: 128-byte header, entry_size 0, unsorted names. */
  n = build_blob(blob, sizeof(blob), 128, 0, 0, 1, cab, 3);
  CHECK(tsr_bytecode_verify(blob, n, "testvendor", &h, err, sizeof(err)) == TSR_OK);
  CHECK(tsr_bytecode_find_entry(blob, &h, "b", &e) == TSR_OK && e.input_count == 3);
  CHECK(tsr_bytecode_find_entry(blob, &h, "d", &e) == TSR_NOT_FOUND);
  CHECK(tsr_bytecode_verify(blob, n, "othervendor", &h, err, sizeof(err)) == TSR_BYTECODE_INCOMPATIBLE);

  /* Growth: a 160-byte header and 96-byte entries are read by skipping. */
  n = build_blob(blob, sizeof(blob), 160, 96, TSR_BYTECODE_FLAG_SORTED_ENTRIES, 1, abc, 3);
  CHECK(tsr_bytecode_verify(blob, n, NULL, &h, err, sizeof(err)) == TSR_OK);
  CHECK(tsr_bytecode_find_entry(blob, &h, "c", &e) == TSR_OK && e.input_count == 3 && e.offset == 2);
  CHECK(tsr_bytecode_find_entry(blob, &h, "a", &e) == TSR_OK && e.input_count == 1);
  CHECK(tsr_bytecode_find_entry(blob, &h, "bb", &e) == TSR_NOT_FOUND);

  /* Entries shorter than 88 bytes or misaligned strides are refused. */
  n = build_blob(blob, sizeof(blob), 128, 80, 0, 1, abc, 3);
  CHECK(tsr_bytecode_verify(blob, n, NULL, &h, err, sizeof(err)) == TSR_BYTECODE_INVALID);
  n = build_blob(blob, sizeof(blob), 128, 92, 0, 1, abc, 3);
  CHECK(tsr_bytecode_verify(blob, n, NULL, &h, err, sizeof(err)) == TSR_BYTECODE_INVALID);
  /* A header_size below 128 is refused. */
  n = build_blob(blob, sizeof(blob), 128, 0, 0, 1, abc, 3);
  {
    uint32_t small = 120;
    memcpy(blob + offsetof(tsr_bytecode_header, header_size), &small, 4);
    const uint32_t crc = tsr_bytecode_compute_checksum(blob, n);
    memcpy(blob + offsetof(tsr_bytecode_header, checksum), &crc, 4);
    CHECK(tsr_bytecode_verify(blob, n, NULL, &h, err, sizeof(err)) == TSR_BYTECODE_INVALID);
  }

  /* Duplicate names: refused unsorted and sorted; a sorted flag on an
   * unsorted table is refused too. */
  n = build_blob(blob, sizeof(blob), 128, 0, 0, 1, dup, 3);
  CHECK(tsr_bytecode_verify(blob, n, NULL, &h, err, sizeof(err)) == TSR_BYTECODE_INVALID);
  CHECK(strstr(err, "duplicate") != NULL);
  n = build_blob(blob, sizeof(blob), 128, 0, TSR_BYTECODE_FLAG_SORTED_ENTRIES, 1, cab, 3);
  CHECK(tsr_bytecode_verify(blob, n, NULL, &h, err, sizeof(err)) == TSR_BYTECODE_INVALID);

  /* The ABI major is informational: a blob stamped 2.0 still verifies. */
  n = build_blob(blob, sizeof(blob), 128, 0, 0, 2, abc, 3);
  CHECK(tsr_bytecode_verify(blob, n, "testvendor", &h, err, sizeof(err)) == TSR_OK);

  /* A flipped body byte fails the checksum, unless the caller says it has
   * verified these bytes already. */
  n = build_blob(blob, sizeof(blob), 128, 0, 0, 1, abc, 3);
  blob[n - 1] ^= 0x40u;
  CHECK(tsr_bytecode_verify(blob, n, NULL, &h, err, sizeof(err)) == TSR_BYTECODE_CHECKSUM);
  CHECK(tsr_bytecode_verify_ex(blob, n, NULL, TSR_BYTECODE_VERIFY_SKIP_CHECKSUM, &h, err, sizeof(err)) == TSR_OK);

  /* Failure leaves *out_header untouched. */
  memset(&h, 0x5A, sizeof(h));
  CHECK(tsr_bytecode_verify(tiny, sizeof(tiny), NULL, &h, err, sizeof(err)) == TSR_BYTECODE_INVALID);
  CHECK(((unsigned char*)&h)[0] == 0x5A && ((unsigned char*)&h)[127] == 0x5A);
}

/* Rewrites entry i of a blob built by build_blob (128-byte header, 88-byte
 * entries) and restamps the checksum. */
static void set_entry_extent(unsigned char* blob, size_t n, uint32_t i, uint64_t offset, uint64_t size) {
  tsr_bytecode_entry e;
  memcpy(&e, blob + 128 + (size_t)i * 88, sizeof(e));
  e.offset = offset;
  e.size = size;
  memcpy(blob + 128 + (size_t)i * 88, &e, sizeof(e));
  const uint32_t crc = tsr_bytecode_compute_checksum(blob, n);
  memcpy(blob + offsetof(tsr_bytecode_header, checksum), &crc, 4);
}

/* Every bound of the envelope verifier at exactly its limit (accepted) and
 * one past it (refused). */
static void test_envelope_bounds(void) {
  static unsigned char blob[4096];
  tsr_bytecode_header h;
  char err[160];
  const char* abc[] = {"a", "b", "c"};
  const char* abb[] = {"a", "b", "b"};

  /* An entry point ending exactly at the body's end (body_size 16). */
  size_t n = build_blob(blob, sizeof(blob), 128, 0, 0, 1, abc, 3);
  set_entry_extent(blob, n, 2, 15, 1);
  CHECK(tsr_bytecode_verify(blob, n, NULL, &h, err, sizeof(err)) == TSR_OK);
  set_entry_extent(blob, n, 2, 0, 16);
  CHECK(tsr_bytecode_verify(blob, n, NULL, &h, err, sizeof(err)) == TSR_OK);
  set_entry_extent(blob, n, 2, 15, 2); /* one byte past */
  CHECK(tsr_bytecode_verify(blob, n, NULL, &h, err, sizeof(err)) == TSR_BYTECODE_INVALID);
  CHECK(strstr(err, "entry point out of bounds") != NULL);
  set_entry_extent(blob, n, 2, 17, 0); /* starts past the end */
  CHECK(tsr_bytecode_verify(blob, n, NULL, &h, err, sizeof(err)) == TSR_BYTECODE_INVALID);
  set_entry_extent(blob, n, 2, 16, 0); /* empty, at the end */
  CHECK(tsr_bytecode_verify(blob, n, NULL, &h, err, sizeof(err)) == TSR_OK);

  /* The size passed must be the header's total_size: a longer buffer is
   * refused even when the checksum is not checked. */
  n = build_blob(blob, sizeof(blob), 128, 0, 0, 1, abc, 3);
  CHECK(tsr_bytecode_verify_ex(blob, n, NULL, TSR_BYTECODE_VERIFY_SKIP_CHECKSUM, &h, err, sizeof(err)) == TSR_OK);
  CHECK(tsr_bytecode_verify_ex(blob, n + 8, NULL, TSR_BYTECODE_VERIFY_SKIP_CHECKSUM, &h, err, sizeof(err)) ==
        TSR_BYTECODE_INVALID);
  CHECK(strstr(err, "total size") != NULL);

  /* Sorted tables: equal neighbours are duplicates too. */
  n = build_blob(blob, sizeof(blob), 128, 0, TSR_BYTECODE_FLAG_SORTED_ENTRIES, 1, abb, 3);
  CHECK(tsr_bytecode_verify(blob, n, NULL, &h, err, sizeof(err)) == TSR_BYTECODE_INVALID);
  CHECK(strstr(err, "strictly ascending") != NULL);

  /* Entry counts: TSR_BYTECODE_MAX_UNSORTED_ENTRIES unsorted and
   * TSR_BYTECODE_MAX_ENTRIES sorted are accepted, one more is refused. */
  const uint32_t max = TSR_BYTECODE_MAX_ENTRIES;
  const size_t cap = 128 + (size_t)88 * (max + 1) + 16;
  unsigned char* big = (unsigned char*)malloc(cap);
  char* name_bytes = (char*)malloc((size_t)(max + 1) * 8);
  const char** names = (const char**)malloc((size_t)(max + 1) * sizeof(char*));
  if (big == NULL || name_bytes == NULL || names == NULL) abort();
  for (uint32_t i = 0; i <= max; ++i) {
    snprintf(name_bytes + (size_t)i * 8, 8, "%06u", i); /* ascending as bytes */
    names[i] = name_bytes + (size_t)i * 8;
  }
  const uint32_t unsorted = TSR_BYTECODE_MAX_UNSORTED_ENTRIES;
  n = build_blob(big, cap, 128, 0, 0, 1, names, unsorted);
  CHECK(tsr_bytecode_verify(big, n, NULL, &h, err, sizeof(err)) == TSR_OK);
  n = build_blob(big, cap, 128, 0, 0, 1, names, unsorted + 1);
  CHECK(tsr_bytecode_verify(big, n, NULL, &h, err, sizeof(err)) == TSR_BYTECODE_INVALID);
  CHECK(strstr(err, "without TSR_BYTECODE_FLAG_SORTED_ENTRIES") != NULL);
  n = build_blob(big, cap, 128, 0, TSR_BYTECODE_FLAG_SORTED_ENTRIES, 1, names, max);
  CHECK(tsr_bytecode_verify(big, n, NULL, &h, err, sizeof(err)) == TSR_OK);
  n = build_blob(big, cap, 128, 0, TSR_BYTECODE_FLAG_SORTED_ENTRIES, 1, names, max + 1);
  CHECK(tsr_bytecode_verify(big, n, NULL, &h, err, sizeof(err)) == TSR_BYTECODE_INVALID);
  CHECK(strstr(err, "entry table or body out of bounds") != NULL);
  free(names);
  free(name_bytes);
  free(big);
}

int main(void) {
  test_abi_has();
  test_helpers();
  test_headed_arrays();
  test_crc();
  test_envelope();
  test_envelope_bounds();
  if (failures != 0) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("all checks passed\n");
  return 0;
}
