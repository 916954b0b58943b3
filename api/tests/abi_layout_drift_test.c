/* Layout drift: every member of the released 1.0, 1.1, 1.2 and 1.3 headers
 * sits at the same offset, with the same size, in today's headers, and no
 * struct shrank. The snapshots under api/testdata are never edited (their
 * SHA256SUMS is checked by the abi_snapshots_unchanged test), so this is
 * an independent oracle for "append only". */
#include <stdio.h>
#include <string.h>

#include "api/tests/abi_layout_rows.h"

static int compare(const char* label, const tsr_layout_row* old_rows, size_t old_count,
                   const tsr_layout_row* now_rows, size_t now_count) {
  int failures = 0;
  if (old_count != now_count) {
    fprintf(stderr, "%s: %zu rows against %zu\n", label, old_count, now_count);
    return 1;
  }
  for (size_t i = 0; i < old_count; ++i) {
    const tsr_layout_row* a = &old_rows[i];
    const tsr_layout_row* b = &now_rows[i];
    if (strcmp(a->name, b->name) != 0 || a->offset != b->offset || a->size != b->size ||
        b->struct_size < a->struct_size) {
      fprintf(stderr, "%s: %s was offset %zu size %zu (struct %zu), is offset %zu size %zu (struct %zu)\n", label,
              a->name, a->offset, a->size, a->struct_size, b->offset, b->size, b->struct_size);
      ++failures;
    }
  }
  return failures;
}

int main(void) {
  int failures = 0;
  failures += compare("1.0 -> today", tsr_layout_rows_v1_0, tsr_layout_row_count_v1_0,
                      tsr_layout_rows_current_v1_0, tsr_layout_row_count_current_v1_0);
  failures += compare("1.1 -> today", tsr_layout_rows_v1_1, tsr_layout_row_count_v1_1, tsr_layout_rows_current,
                      tsr_layout_row_count_current);
  /* 1.3 appended enumerators only: its rows are 1.2's, laid out by 1.3. */
  failures += compare("1.2 -> today", tsr_layout_rows_v1_2, tsr_layout_row_count_v1_2, tsr_layout_rows_current_v1_2,
                      tsr_layout_row_count_current_v1_2);
  failures += compare("1.3 -> today", tsr_layout_rows_v1_3, tsr_layout_row_count_v1_3, tsr_layout_rows_current_v1_2,
                      tsr_layout_row_count_current_v1_2);
  if (tsr_layout_row_count_v1_0 < 140) {
    fprintf(stderr, "only %zu 1.0 members listed\n", tsr_layout_row_count_v1_0);
    ++failures;
  }
  if (tsr_layout_row_count_v1_2 < tsr_layout_row_count_v1_1 + 90) {
    fprintf(stderr, "only %zu 1.2 members listed\n", tsr_layout_row_count_v1_2 - tsr_layout_row_count_v1_1);
    ++failures;
  }
  printf("%zu members of 1.0, %zu of 1.1, %zu of 1.2 and 1.3 checked, %d drifted\n", tsr_layout_row_count_v1_0,
         tsr_layout_row_count_v1_1, tsr_layout_row_count_v1_2, failures);
  return failures == 0 ? 0 : 1;
}
