/*
 * Tessera C ABI: the standard bytecode envelope.
 *
 * Every AOT blob a compiler plugin returns starts with this envelope, so the
 * framework can inspect any vendor's bytecode and every dispatch library can
 * verify it the same way before use. Layout (all integers little-endian,
 * blob start 8-byte aligned in the model file):
 *
 *   tsr_bytecode_header          (header_size >= 128 bytes)
 *   entry table at entry_table_offset: entry_count entries, each
 *                                entry_size bytes (0 = 88), each starting
 *                                with a tsr_bytecode_entry
 *   vendor body                  at body_offset, body_size bytes
 *
 * checksum is CRC-32 (IEEE 802.3, reflected, poly 0xEDB88320) over the whole
 * blob [0, total_size) with the 4 checksum bytes read as zero.
 *
 * Growth (since 1.2): a producer may write a longer header (header_size >
 * 128, new fields after the 128 bytes) and longer entries (entry_size > 88,
 * new fields after the 88 bytes); readers skip what they do not know.
 * abi_major/abi_minor record the ABI the compiler spoke and are
 * informational: the vendor body's own vendor_format_version decides
 * whether a dispatch library can run it, so a 2.x library still runs 1.x
 * blobs. Entry names are unique; producers that set
 * TSR_BYTECODE_FLAG_SORTED_ENTRIES write them in strictly ascending byte
 * order, which makes the duplicate check linear and lookups logarithmic.
 *
 * The helpers below are static inline so vendors and the framework share
 * one definition without linking anything. They never read past `size` and
 * never assume alignment of `blob`.
 */
#ifndef TESSERA_BYTECODE_H_
#define TESSERA_BYTECODE_H_

#include "tessera/bytecode_crc32_tables.h"
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
/* An unsorted table (every 1.0/1.1 producer) is checked for duplicates
 * pairwise, so it may hold at most this many entries. */
#define TSR_BYTECODE_MAX_UNSORTED_ENTRIES 1024u
#define TSR_BYTECODE_HEADER_SIZE_V1 128u
#define TSR_BYTECODE_ENTRY_SIZE_V1 88u

/* tsr_bytecode_header.flags */
#define TSR_BYTECODE_FLAG_SORTED_ENTRIES ((uint16_t)1u << 0)

typedef struct tsr_bytecode_header {
  char magic[4];                 /* "TSRB" */
  uint32_t format_version;       /* TSR_BYTECODE_FORMAT_VERSION */
  uint32_t header_size;          /* >= 128 (sizeof(tsr_bytecode_header)); may grow */
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
  /* Was `uint32_t reserved` (always 0) before 1.2. */
  uint16_t entry_size;           /* bytes per entry; 0 = 88 (v1) */
  uint16_t flags;                /* TSR_BYTECODE_FLAG_*; unknown bits ignored */
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

/* CRC-32, slicing-by-8 (the same value as the bitwise definition, about
 * 20x faster; the C test checks both). */
static inline uint32_t tsr_crc32_update(uint32_t crc, const void* data,
                                        size_t size) {
  const unsigned char* p = (const unsigned char*)data;
  crc = ~crc;
  while (size >= 8) {
    const uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
                               (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
    crc = tsr_crc32_table_[7][lo & 0xFFu] ^ tsr_crc32_table_[6][(lo >> 8) & 0xFFu] ^
          tsr_crc32_table_[5][(lo >> 16) & 0xFFu] ^ tsr_crc32_table_[4][lo >> 24] ^
          tsr_crc32_table_[3][p[4]] ^ tsr_crc32_table_[2][p[5]] ^
          tsr_crc32_table_[1][p[6]] ^ tsr_crc32_table_[0][p[7]];
    p += 8;
    size -= 8;
  }
  while (size-- > 0) crc = (crc >> 8) ^ tsr_crc32_table_[0][(crc ^ *p++) & 0xFFu];
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

/* Entry stride of a header that passed verification. */
static inline uint64_t tsr_bytecode_entry_stride(const tsr_bytecode_header* h) {
  return h->entry_size == 0 ? TSR_BYTECODE_ENTRY_SIZE_V1 : h->entry_size;
}

static inline void tsr_bytecode_read_entry_(const void* blob, const tsr_bytecode_header* h, uint32_t i,
                                            tsr_bytecode_entry* out) {
  tsr_bytecode_copy_(out, (const unsigned char*)blob + h->entry_table_offset +
                              (uint64_t)i * tsr_bytecode_entry_stride(h), sizeof(*out));
}

/* Byte order of two entry names (each NUL-terminated within 64 bytes). */
static inline int tsr_bytecode_name_compare_(const char* a, const char* b) {
  for (size_t i = 0; i < TSR_BYTECODE_ENTRY_NAME_SIZE; ++i) {
    const unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
    if (x != y) return x < y ? -1 : 1;
    if (x == '\0') return 0;
  }
  return 0;
}

/* tsr_bytecode_verify_ex flags */
#define TSR_BYTECODE_VERIFY_SKIP_CHECKSUM ((uint32_t)1u << 0) /* the caller verified these bytes already */

/* Check magic, sizes, bounds, entry table (names terminated, unique, in
 * range) and, unless TSR_BYTECODE_VERIFY_SKIP_CHECKSUM, the checksum. When
 * `vendor` is non-NULL, also that the blob was made for it. On success
 * copies the first 128 header bytes to *out_header (may be NULL). On failure
 * writes a message to err (may be NULL), leaves *out_header untouched and
 * returns TSR_BYTECODE_INVALID, _CHECKSUM or _INCOMPATIBLE. */
static inline tsr_status tsr_bytecode_verify_ex(const void* blob, size_t size,
                                                const char* vendor, uint32_t verify_flags,
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
  if (h.header_size < sizeof(h) || h.header_size > size || h.total_size != size) {
    tsr_bytecode_error_(err, err_cap, "bytecode: header or total size mismatch (truncated?)");
    return TSR_BYTECODE_INVALID;
  }
  const uint64_t stride = tsr_bytecode_entry_stride(&h);
  if (stride < TSR_BYTECODE_ENTRY_SIZE_V1 || stride % 8 != 0) {
    tsr_bytecode_error_(err, err_cap, "bytecode: entry_size below 88 or not a multiple of 8");
    return TSR_BYTECODE_INVALID;
  }
  if (h.entry_count > TSR_BYTECODE_MAX_ENTRIES ||
      h.entry_table_offset < h.header_size || h.entry_table_offset > size ||
      (uint64_t)h.entry_count * stride > size - h.entry_table_offset ||
      h.body_offset > size || h.body_size > size - h.body_offset) {
    tsr_bytecode_error_(err, err_cap, "bytecode: entry table or body out of bounds");
    return TSR_BYTECODE_INVALID;
  }
  if (h.vendor[TSR_BYTECODE_NAME_SIZE - 1] != '\0' ||
      h.soc_model[TSR_BYTECODE_NAME_SIZE - 1] != '\0') {
    tsr_bytecode_error_(err, err_cap, "bytecode: vendor or SoC name not terminated");
    return TSR_BYTECODE_INVALID;
  }
  if ((verify_flags & TSR_BYTECODE_VERIFY_SKIP_CHECKSUM) == 0 &&
      tsr_bytecode_compute_checksum(blob, size) != h.checksum) {
    tsr_bytecode_error_(err, err_cap, "bytecode: checksum mismatch (corrupted)");
    return TSR_BYTECODE_CHECKSUM;
  }
  const int sorted = (h.flags & TSR_BYTECODE_FLAG_SORTED_ENTRIES) != 0;
  if (!sorted && h.entry_count > TSR_BYTECODE_MAX_UNSORTED_ENTRIES) {
    tsr_bytecode_error_(err, err_cap, "bytecode: more than 1024 entries without TSR_BYTECODE_FLAG_SORTED_ENTRIES");
    return TSR_BYTECODE_INVALID;
  }
  for (uint32_t i = 0; i < h.entry_count; ++i) {
    tsr_bytecode_entry e;
    tsr_bytecode_read_entry_(blob, &h, i, &e);
    if (e.name[TSR_BYTECODE_ENTRY_NAME_SIZE - 1] != '\0' ||
        e.offset > h.body_size || e.size > h.body_size - e.offset) {
      tsr_bytecode_error_(err, err_cap, "bytecode: entry point out of bounds");
      return TSR_BYTECODE_INVALID;
    }
    if (sorted && i > 0) {
      tsr_bytecode_entry prev;
      tsr_bytecode_read_entry_(blob, &h, i - 1, &prev);
      if (tsr_bytecode_name_compare_(prev.name, e.name) >= 0) {
        tsr_bytecode_error_(err, err_cap, "bytecode: entry names not strictly ascending (duplicate?)");
        return TSR_BYTECODE_INVALID;
      }
    } else if (!sorted) {
      for (uint32_t j = 0; j < i; ++j) {
        tsr_bytecode_entry other;
        tsr_bytecode_read_entry_(blob, &h, j, &other);
        if (tsr_bytecode_name_compare_(other.name, e.name) == 0) {
          tsr_bytecode_error_(err, err_cap, "bytecode: duplicate entry point name");
          return TSR_BYTECODE_INVALID;
        }
      }
    }
  }
  if (vendor != NULL &&
      !tsr_bytecode_name_equals_(h.vendor, TSR_BYTECODE_NAME_SIZE, vendor)) {
    tsr_bytecode_error_(err, err_cap, "bytecode: made for another vendor");
    return TSR_BYTECODE_INCOMPATIBLE;
  }
  if (out_header != NULL) *out_header = h;
  return TSR_OK;
}

/* tsr_bytecode_verify_ex with the checksum. */
static inline tsr_status tsr_bytecode_verify(const void* blob, size_t size,
                                             const char* vendor,
                                             tsr_bytecode_header* out_header,
                                             char* err, size_t err_cap) {
  return tsr_bytecode_verify_ex(blob, size, vendor, 0, out_header, err, err_cap);
}

/* Find entry `name` in a blob that passed tsr_bytecode_verify; the first 88
 * bytes of the entry go to *out_entry. Binary search when the table is
 * sorted. */
static inline tsr_status tsr_bytecode_find_entry(const void* blob,
                                                 const tsr_bytecode_header* h,
                                                 const char* name,
                                                 tsr_bytecode_entry* out_entry) {
  char key[TSR_BYTECODE_ENTRY_NAME_SIZE];
  size_t n = 0;
  for (; n + 1 < sizeof(key) && name[n] != '\0'; ++n) key[n] = name[n];
  if (name[n] != '\0') return TSR_NOT_FOUND; /* longer than any entry name */
  for (size_t i = n; i < sizeof(key); ++i) key[i] = '\0';
  tsr_bytecode_entry e;
  if ((h->flags & TSR_BYTECODE_FLAG_SORTED_ENTRIES) != 0) {
    uint32_t lo = 0, hi = h->entry_count;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      tsr_bytecode_read_entry_(blob, h, mid, &e);
      const int c = tsr_bytecode_name_compare_(e.name, key);
      if (c == 0) {
        *out_entry = e;
        return TSR_OK;
      }
      if (c < 0) lo = mid + 1; else hi = mid;
    }
    return TSR_NOT_FOUND;
  }
  for (uint32_t i = 0; i < h->entry_count; ++i) {
    tsr_bytecode_read_entry_(blob, h, i, &e);
    if (tsr_bytecode_name_compare_(e.name, key) == 0) {
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
