/* Compiles every ABI header as strict C11 and checks the v1 layout pins at
 * run time: the headers must stay pure C, standalone, and append-only. */
#include "tessera/tessera.h"

#include <stdio.h>
#include <string.h>

/* Each v1 table's last member sits where v1 put it (LP64). A change here
 * means someone edited above an "end of v1" marker. */
_Static_assert(offsetof(tsr_graph_view_api, output) == 152, "graph view v1");
_Static_assert(offsetof(tsr_compiler_plugin_api, release_compiled) == 80,
               "compiler plugin v1");
_Static_assert(offsetof(tsr_dispatch_api, get_metric) == 160, "dispatch v1");
_Static_assert(sizeof(tsr_op_support) == 40, "op support v1");
/* ABI 1.1 appended one dispatch member and one struct. */
_Static_assert(offsetof(tsr_dispatch_api, executable_numerics) == 168,
               "dispatch v1.1");
_Static_assert(sizeof(tsr_numerics) == 40, "numerics v1.1");

int main(void) {
  tsr_dispatch_api api;
  memset(&api, 0, sizeof(api));
  api.header.struct_size = sizeof(api);
  const tsr_dispatch_api* p = &api;
  if (TSR_ABI_HAS(p, tsr_dispatch_api, invoke)) { /* invoke is NULL here */
    fprintf(stderr, "TSR_ABI_HAS accepted a NULL member\n");
    return 1;
  }
  api.header.struct_size = offsetof(tsr_dispatch_api, invoke);
  api.invoke = (tsr_status(*)(tsr_invocation))0x1;
  if (TSR_ABI_HAS(p, tsr_dispatch_api, invoke)) {
    fprintf(stderr, "TSR_ABI_HAS accepted a member beyond struct_size\n");
    return 1;
  }
  api.header.struct_size = sizeof(api);
  if (!TSR_ABI_HAS(p, tsr_dispatch_api, invoke)) {
    fprintf(stderr, "TSR_ABI_HAS refused a present member\n");
    return 1;
  }
  unsigned char blob[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  tsr_bytecode_header h;
  char err[128];
  if (tsr_bytecode_verify(blob, sizeof(blob), NULL, &h, err, sizeof(err)) !=
      TSR_BYTECODE_INVALID) {
    fprintf(stderr, "short blob accepted\n");
    return 1;
  }
  /* CRC-32 check value of "123456789" is 0xCBF43926. */
  if (tsr_crc32_update(0, "123456789", 9) != 0xCBF43926u) {
    fprintf(stderr, "crc32 wrong\n");
    return 1;
  }
  printf("1 passed, 0 failed\n");
  return 0;
}
