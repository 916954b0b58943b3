/*
 * Tessera C ABI: the graph view.
 *
 * The framework hands a plugin a const table of accessors plus an opaque
 * tsr_graph handle. Through them the plugin reads ops, op types, attributes,
 * tensors, dtypes, shapes, quantization and constant data. The plugin never
 * links the framework and never sees its C++ types.
 *
 * Indices: ops are numbered 0..op_count-1 and tensors 0..tensor_count-1
 * within one tsr_graph. A partition handed to compile() is its own tsr_graph
 * whose inputs/outputs are the tensors crossing the partition boundary.
 *
 * Lifetime: a tsr_graph and every pointer read from it (names, shapes,
 * attribute arrays, constant data) are valid until the plugin call that
 * received the graph returns, unless the call's documentation says longer.
 * Constant data points into the memory-mapped model: read-only, never copy
 * it unless you need it after the call (an AOT compiler copies weights into
 * its bytecode; a JIT compile result may keep pointers while the model is
 * loaded: see tsr_compile_options.constants_outlive_result).
 *
 * Thread-safety: every accessor is thread-safe; the graph is immutable while
 * a plugin holds it.
 *
 * Failure: accessors that return a status leave their outputs untouched on
 * failure; the others return the documented "absent" value (0, NULL, "",
 * TSR_NO_TENSOR, TSR_OP_UNKNOWN) for out-of-range arguments. The graph view
 * has no error text: its only failures are argument errors.
 *
 * Versions: the host hands a plugin a table whose header carries the
 * version that plugin negotiated. Ops or attributes newer than that version
 * never reach the plugin as claimable (see tsr_attr_key_since_minor).
 */
#ifndef TESSERA_GRAPH_VIEW_H_
#define TESSERA_GRAPH_VIEW_H_

#include "tessera/common.h"

#ifdef __cplusplus
extern "C" {
#endif

TSR_DEFINE_HANDLE(tsr_graph);

/* Index meaning "optional input not given". */
#define TSR_NO_TENSOR ((int32_t)-1)

typedef struct tsr_graph_view_api {
  tsr_abi_header header;

  /* ---- ops ---- */
  size_t (*op_count)(tsr_graph graph);
  /* tsr_op_type, or TSR_OP_UNKNOWN for an out-of-range index. */
  int32_t (*op_type)(tsr_graph graph, size_t op);
  size_t (*op_input_count)(tsr_graph graph, size_t op);
  /* Tensor index, or TSR_NO_TENSOR for an omitted optional input or an
   * out-of-range argument. */
  int32_t (*op_input)(tsr_graph graph, size_t op, size_t i);
  size_t (*op_output_count)(tsr_graph graph, size_t op);
  int32_t (*op_output)(tsr_graph graph, size_t op, size_t i);
  /* Stable id of the op in the whole model (same across partition views),
   * used in reports and reasons. */
  uint32_t (*op_id)(tsr_graph graph, size_t op);

  /* ---- attributes (tsr_attr_key) ---- */
  /* TSR_NOT_FOUND when absent; out_* untouched then. Arrays are borrowed
   * (see Lifetime above). A scalar is an array of one. */
  TSR_MUST_USE_RESULT tsr_status (*op_attr_ints)(tsr_graph graph, size_t op, int32_t key,
                             const int64_t** out_values, size_t* out_count);
  TSR_MUST_USE_RESULT tsr_status (*op_attr_floats)(tsr_graph graph, size_t op, int32_t key,
                               const float** out_values, size_t* out_count);

  /* ---- tensors ---- */
  size_t (*tensor_count)(tsr_graph graph);
  /* NUL-terminated, never NULL (may be ""). */
  const char* (*tensor_name)(tsr_graph graph, int32_t tensor);
  int32_t (*tensor_dtype)(tsr_graph graph, int32_t tensor); /* tsr_dtype */
  /* Shapes are static. Rank 0 is a scalar (out_dims may be NULL then). */
  TSR_MUST_USE_RESULT tsr_status (*tensor_shape)(tsr_graph graph, int32_t tensor,
                             const int64_t** out_dims, size_t* out_rank);
  /* out->count == 0 when not quantized. */
  TSR_MUST_USE_RESULT tsr_status (*tensor_quantization)(tsr_graph graph, int32_t tensor,
                                    tsr_quantization* out);
  /* TSR_NOT_FOUND when the tensor is not a constant. */
  TSR_MUST_USE_RESULT tsr_status (*tensor_constant_data)(tsr_graph graph, int32_t tensor,
                                     const void** out_data,
                                     size_t* out_size_bytes);

  /* ---- graph boundary ---- */
  size_t (*input_count)(tsr_graph graph);
  int32_t (*input)(tsr_graph graph, size_t i);
  size_t (*output_count)(tsr_graph graph);
  int32_t (*output)(tsr_graph graph, size_t i);
  /* end of v1: do not modify above */

  /* since 1.2. Attribute enumeration, so that a plugin can refuse an op that
   * carries an attribute it does not implement instead of claiming it
   * blindly. Keys come in ascending order; op_attr_key returns
   * TSR_ATTR_UNKNOWN for an out-of-range index. Thread-safe. */
  size_t (*op_attr_count)(tsr_graph graph, size_t op);
  int32_t (*op_attr_key)(tsr_graph graph, size_t op, size_t i);
  /* since 1.2. Stable id of the tensor in the whole model, the same in every
   * partition view (like op_id): lets a plugin compiling N partitions store
   * a constant they share once. UINT32_MAX for an out-of-range index.
   * Thread-safe. */
  uint32_t (*tensor_id)(tsr_graph graph, int32_t tensor);
  /* end of v1.2: do not modify above */
} tsr_graph_view_api;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_GRAPH_VIEW_H_ */
