/*
 * Tessera C ABI: the standard bytecode envelope.
 *
 * Every AOT blob a compiler plugin returns starts with this envelope, so the
 * framework can inspect any vendor's bytecode and every dispatch library can
 * verify it the same way before use. Layout (all integers little-endian,
 * blob start 8-byte aligned in the model file):
 *
 *   tsr_bytecode_header          (header_size bytes)
 *   tsr_bytecode_entry[entry_count]  at entry_table_offset
 *   vendor body                  at body_offset, body_size bytes
 *
 * checksum is CRC-32 (IEEE 802.3, reflected, poly 0xEDB88320) over the whole
 * blob [0, total_size) with the 4 checksum bytes read as zero.
 *
 * The helpers below are static inline so vendors and the framework share
 * one definition without linking anything. They never read past `size` and
 * never assume alignment of `blob`.
 */
#ifndef TESSERA_BYTECODE_H_
#define TESSERA_BYTECODE_H_

#include "tessera/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_BYTECODE_MAGIC_0 'T'
#define TSR_BYTECODE_MAGIC_1 'S'
#define TSR_BYTECODE_MAGIC_2 'R'
#define TSR_BYTECODE_MAGIC_3 'B'
#define TSR_BYTECODE_FORMAT_VERSION 1u
#define TSR_BYTECODE_NAME_SIZE 32
#define TSR_BYTECODE_ENTRY_NAME_SIZE 64
#define TSR_BYTECODE_MAX_ENTRIES 65536u

typedef struct tsr_bytecode_header {
  char magic[4];                 /* "TSRB" */
  uint32_t format_version;       /* TSR_BYTECODE_FORMAT_VERSION */
  uint32_t header_size;          /* sizeof(tsr_bytecode_header) */
  uint16_t abi_major;            /* ABI the compiler spoke */
  uint16_t abi_minor;
  char vendor[TSR_BYTECODE_NAME_SIZE];    /* NUL-padded */
  char soc_model[TSR_BYTECODE_NAME_SIZE]; /* NUL-padded */
  uint32_t vendor_format_version;/* version of the vendor body format */
  uint32_t entry_count;
  uint64_t entry_table_offset;
  uint64_t body_offset;
  uint64_t body_size;
  uint64_t total_size;
  uint32_t checksum;
  uint32_t reserved;             /* zero */
} tsr_bytecode_header;

typedef struct tsr_bytecode_entry {
  char name[TSR_BYTECODE_ENTRY_NAME_SIZE]; /* NUL-terminated */
  uint64_t offset;               /* relative to body_offset */
  uint64_t size;
  uint32_t input_count;
  uint32_t output_count;
} tsr_bytecode_entry;

/* Pin the layout: these never change within format version 1. */
#ifdef __cplusplus
static_assert(sizeof(tsr_bytecode_header) == 128, "envelope layout");
static_assert(sizeof(tsr_bytecode_entry) == 88, "entry layout");
#else
_Static_assert(sizeof(tsr_bytecode_header) == 128, "envelope layout");
_Static_assert(sizeof(tsr_bytecode_entry) == 88, "entry layout");
#endif

static inline void tsr_bytecode_copy_(void* dst, const void* src, size_t n) {
  unsigned char* d = (unsigned char*)dst;
  const unsigned char* s = (const unsigned char*)src;
  for (size_t i = 0; i < n; ++i) d[i] = s[i];
}

static inline uint32_t tsr_crc32_update(uint32_t crc, const void* data,
                                        size_t size) {
  const unsigned char* p = (const unsigned char*)data;
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

/* CRC of the blob with the checksum field read as zero. */
static inline uint32_t tsr_bytecode_compute_checksum(const void* blob,
                                                     size_t size) {
  const size_t at = offsetof(tsr_bytecode_header, checksum);
  const unsigned char zero[4] = {0, 0, 0, 0};
  uint32_t crc = tsr_crc32_update(0, blob, at < size ? at : size);
  if (size <= at) return crc;
  crc = tsr_crc32_update(crc, zero, size - at < 4 ? size - at : 4);
  if (size > at + 4)
    crc = tsr_crc32_update(crc, (const unsigned char*)blob + at + 4,
                           size - at - 4);
  return crc;
}

static inline int tsr_bytecode_name_equals_(const char* fixed, size_t cap,
                                            const char* s) {
  /* Equal when both end at the same NUL within `cap`. */
  for (size_t i = 0; i < cap; ++i) {
    if (fixed[i] != s[i]) return 0;
    if (s[i] == '\0') return 1;
  }
  return 0;
}

static inline void tsr_bytecode_error_(char* err, size_t cap,
                                       const char* msg) {
  if (err == NULL || cap == 0) return;
  size_t i = 0;
  for (; i + 1 < cap && msg[i] != '\0'; ++i) err[i] = msg[i];
  err[i] = '\0';
}

/* Check magic, sizes, bounds, entry table and checksum. When `vendor` is
 * non-NULL, also that the blob was made for it. On success copies the header
 * to *out_header (may be NULL). On failure writes a message to err (may be
 * NULL) and returns TSR_BYTECODE_INVALID, _CHECKSUM or _INCOMPATIBLE. */
static inline tsr_status tsr_bytecode_verify(const void* blob, size_t size,
                                             const char* vendor,
                                             tsr_bytecode_header* out_header,
                                             char* err, size_t err_cap) {
  tsr_bytecode_header h;
  if (blob == NULL || size < sizeof(h)) {
    tsr_bytecode_error_(err, err_cap, "bytecode: blob smaller than envelope header");
    return TSR_BYTECODE_INVALID;
  }
  tsr_bytecode_copy_(&h, blob, sizeof(h));
  if (h.magic[0] != TSR_BYTECODE_MAGIC_0 || h.magic[1] != TSR_BYTECODE_MAGIC_1 ||
      h.magic[2] != TSR_BYTECODE_MAGIC_2 || h.magic[3] != TSR_BYTECODE_MAGIC_3) {
    tsr_bytecode_error_(err, err_cap, "bytecode: bad magic (want TSRB)");
    return TSR_BYTECODE_INVALID;
  }
  if (h.format_version != TSR_BYTECODE_FORMAT_VERSION) {
    tsr_bytecode_error_(err, err_cap, "bytecode: unknown envelope format version");
    return TSR_BYTECODE_INCOMPATIBLE;
  }
  if (h.header_size != sizeof(h) || h.total_size != size) {
    tsr_bytecode_error_(err, err_cap, "bytecode: header or total size mismatch (truncated?)");
    return TSR_BYTECODE_INVALID;
  }
  if (h.entry_count > TSR_BYTECODE_MAX_ENTRIES ||
      h.entry_table_offset < sizeof(h) || h.entry_table_offset > size ||
      (uint64_t)h.entry_count * sizeof(tsr_bytecode_entry) >
          size - h.entry_table_offset ||
      h.body_offset > size || h.body_size > size - h.body_offset) {
    tsr_bytecode_error_(err, err_cap, "bytecode: entry table or body out of bounds");
    return TSR_BYTECODE_INVALID;
  }
  if (h.vendor[TSR_BYTECODE_NAME_SIZE - 1] != '\0' ||
      h.soc_model[TSR_BYTECODE_NAME_SIZE - 1] != '\0') {
    tsr_bytecode_error_(err, err_cap, "bytecode: vendor or SoC name not terminated");
    return TSR_BYTECODE_INVALID;
  }
  if (tsr_bytecode_compute_checksum(blob, size) != h.checksum) {
    tsr_bytecode_error_(err, err_cap, "bytecode: checksum mismatch (corrupted)");
    return TSR_BYTECODE_CHECKSUM;
  }
  for (uint32_t i = 0; i < h.entry_count; ++i) {
    tsr_bytecode_entry e;
    tsr_bytecode_copy_(&e, (const unsigned char*)blob + h.entry_table_offset +
                               (uint64_t)i * sizeof(e), sizeof(e));
    if (e.name[TSR_BYTECODE_ENTRY_NAME_SIZE - 1] != '\0' ||
        e.offset > h.body_size || e.size > h.body_size - e.offset) {
      tsr_bytecode_error_(err, err_cap, "bytecode: entry point out of bounds");
      return TSR_BYTECODE_INVALID;
    }
  }
  if (vendor != NULL &&
      !tsr_bytecode_name_equals_(h.vendor, TSR_BYTECODE_NAME_SIZE, vendor)) {
    tsr_bytecode_error_(err, err_cap, "bytecode: made for another vendor");
    return TSR_BYTECODE_INCOMPATIBLE;
  }
  if (h.abi_major != TSR_ABI_VERSION_MAJOR) {
    tsr_bytecode_error_(err, err_cap, "bytecode: made for another ABI major version");
    return TSR_BYTECODE_INCOMPATIBLE;
  }
  if (out_header != NULL) *out_header = h;
  return TSR_OK;
}

/* Find entry `name` in a blob that passed tsr_bytecode_verify. */
static inline tsr_status tsr_bytecode_find_entry(const void* blob,
                                                 const tsr_bytecode_header* h,
                                                 const char* name,
                                                 tsr_bytecode_entry* out_entry) {
  for (uint32_t i = 0; i < h->entry_count; ++i) {
    tsr_bytecode_entry e;
    tsr_bytecode_copy_(&e, (const unsigned char*)blob + h->entry_table_offset +
                               (uint64_t)i * sizeof(e), sizeof(e));
    if (tsr_bytecode_name_equals_(e.name, TSR_BYTECODE_ENTRY_NAME_SIZE, name)) {
      *out_entry = e;
      return TSR_OK;
    }
  }
  return TSR_NOT_FOUND;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_BYTECODE_H_ */
