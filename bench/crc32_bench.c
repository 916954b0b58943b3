/* The envelope CRC-32: the 1.1 bitwise loop against 1.2's slicing-by-8
 * (tessera/bytecode.h), on the same 64 MiB buffer, with the same value.
 * Prints MB/s of each and the ratio. Not a test: timings are figures. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tessera/bytecode.h"

static uint32_t crc_bitwise(const unsigned char* p, size_t n) { /* ABI 1.1's tsr_crc32_update */
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void) {
  const size_t n = (size_t)64 << 20;
  unsigned char* data = (unsigned char*)malloc(n);
  if (data == NULL) return 1;
  for (size_t i = 0; i < n; ++i) data[i] = (unsigned char)(i * 2654435761u >> 13);
  double t0 = seconds();
  const uint32_t a = crc_bitwise(data, n);
  double t1 = seconds();
  const uint32_t b = tsr_crc32_update(0, data, n);
  double t2 = seconds();
  const double mb = (double)n / 1e6;
  printf("crc32 over %zu MiB: bitwise (1.1) %.0f MB/s, slicing-by-8 (1.2) %.0f MB/s, ratio %.1fx, values %s\n",
         n >> 20, mb / (t1 - t0), mb / (t2 - t1), (t1 - t0) / (t2 - t1), a == b ? "equal" : "DIFFER");
  free(data);
  return a == b ? 0 : 1;
}
