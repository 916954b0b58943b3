/* One row per member of the released ABI sets, as laid out by whichever
 * header set this file is compiled against (CMake builds it once per set:
 * api/testdata/abi-1.0 .. abi-1.3, and api/ with each released member list).
 * The test in abi_layout_drift_test.c compares the rows: a member whose
 * offset or size differs between a released snapshot and today's headers is
 * layout drift. */
#include <stddef.h>

#include "api/tests/abi_layout_rows.h"
#include "tessera/tessera.h"

#define TSR_ROW_(type, member, actual) \
  {#type "." #member, offsetof(type, actual), sizeof(((type*)0)->actual), sizeof(type)},

/* A member that a later set split into several, covering the same bytes
 * (1.2 turned the envelope's uint32 `reserved` into entry_size + flags):
 * TSR_LAYOUT_SPLIT_DONE marks the sets built from 1.2 on. */
#ifdef TSR_LAYOUT_SPLIT_DONE
#define TSR_LAYOUT_SPLIT(type, old_name, first, last)                                               \
  {#type "." #old_name, offsetof(type, first),                                                     \
   offsetof(type, last) + sizeof(((type*)0)->last) - offsetof(type, first), sizeof(type)},
#else
#define TSR_LAYOUT_SPLIT(type, old_name, first, last) TSR_ROW_(type, old_name, old_name)
#endif
#define TSR_LAYOUT_MEMBER(type, member) TSR_ROW_(type, member, member)

#define TSR_ROWS_NAME_(set) tsr_layout_rows_##set
#define TSR_ROWS_NAME(set) TSR_ROWS_NAME_(set)
#define TSR_COUNT_NAME_(set) tsr_layout_row_count_##set
#define TSR_COUNT_NAME(set) TSR_COUNT_NAME_(set)

const tsr_layout_row TSR_ROWS_NAME(TSR_LAYOUT_SET)[] = {
#include "api/tests/abi_layout_members_v1_0.inc"
#ifndef TSR_LAYOUT_ONLY_V1_0
#include "api/tests/abi_layout_members_v1_1.inc"
#endif
#ifdef TSR_LAYOUT_WITH_V1_2
#include "api/tests/abi_layout_members_v1_2.inc"
#endif
};
const size_t TSR_COUNT_NAME(TSR_LAYOUT_SET) = sizeof(TSR_ROWS_NAME(TSR_LAYOUT_SET)) / sizeof(tsr_layout_row);
