/* Tessera C ABI: umbrella header. Includes every ABI header. */
#ifndef TESSERA_TESSERA_H_
#define TESSERA_TESSERA_H_

#include "tessera/common.h"
#include "tessera/ops.h"
#include "tessera/graph_view.h"
#include "tessera/compiler_plugin.h"
#include "tessera/dispatch.h"
#include "tessera/bytecode.h"

#endif /* TESSERA_TESSERA_H_ */
