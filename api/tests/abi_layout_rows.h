/* A member's place in a struct, as one header set lays it out. */
#ifndef TESSERA_API_ABI_LAYOUT_ROWS_H_
#define TESSERA_API_ABI_LAYOUT_ROWS_H_

#include <stddef.h>

typedef struct tsr_layout_row {
  const char* name;     /* "type.member" */
  size_t offset;
  size_t size;
  size_t struct_size;   /* sizeof the whole struct in that header set */
} tsr_layout_row;

extern const tsr_layout_row tsr_layout_rows_v1_0[];
extern const size_t tsr_layout_row_count_v1_0;
extern const tsr_layout_row tsr_layout_rows_v1_1[];
extern const size_t tsr_layout_row_count_v1_1;
extern const tsr_layout_row tsr_layout_rows_current_v1_0[];
extern const size_t tsr_layout_row_count_current_v1_0;
extern const tsr_layout_row tsr_layout_rows_current[];
extern const size_t tsr_layout_row_count_current;
extern const tsr_layout_row tsr_layout_rows_v1_2[];
extern const size_t tsr_layout_row_count_v1_2;
extern const tsr_layout_row tsr_layout_rows_v1_3[];
extern const size_t tsr_layout_row_count_v1_3;
extern const tsr_layout_row tsr_layout_rows_current_v1_2[];
extern const size_t tsr_layout_row_count_current_v1_2;

#endif /* TESSERA_API_ABI_LAYOUT_ROWS_H_ */
