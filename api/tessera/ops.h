/*
 * Tessera C ABI: the op set and attribute keys.
 *
 * Semantics (broadcasting, layouts, rounding) are specified in docs/ops.md.
 * Values are stable: new ops and keys are appended, never renumbered.
 */
#ifndef TESSERA_OPS_H_
#define TESSERA_OPS_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tsr_op_type {
  TSR_OP_UNKNOWN = 0,
  /* Elementwise, numpy broadcasting. */
  TSR_OP_ADD = 1,
  TSR_OP_SUB = 2,
  TSR_OP_MUL = 3,
  TSR_OP_DIV = 4,
  TSR_OP_POW = 5,
  TSR_OP_NEG = 6,
  TSR_OP_ABS = 7,
  TSR_OP_SQRT = 8,
  TSR_OP_RSQRT = 9,
  TSR_OP_EXP = 10,
  TSR_OP_LOG = 11,
  TSR_OP_SIN = 12,
  TSR_OP_COS = 13,
  TSR_OP_TANH = 14,
  TSR_OP_SIGMOID = 15,
  TSR_OP_RELU = 16,
  TSR_OP_CLIP = 17,
  TSR_OP_ERF = 18,
  TSR_OP_MAXIMUM = 19,
  TSR_OP_MINIMUM = 20,
  /* Comparison and selection. */
  TSR_OP_EQUAL = 21,
  TSR_OP_LESS = 22,
  TSR_OP_GREATER = 23,
  TSR_OP_SELECT = 24,
  /* Reductions. */
  TSR_OP_REDUCE_MEAN = 25,
  TSR_OP_REDUCE_SUM = 26,
  TSR_OP_REDUCE_MAX = 27,
  /* Compute. */
  TSR_OP_MATMUL = 28,
  TSR_OP_FULLY_CONNECTED = 29,
  TSR_OP_CONV_2D = 30,
  TSR_OP_MAX_POOL_2D = 31,
  TSR_OP_AVG_POOL_2D = 32,
  TSR_OP_GLOBAL_AVG_POOL = 33,
  TSR_OP_SOFTMAX = 34,
  TSR_OP_LAYER_NORM = 35,
  /* Layout. */
  TSR_OP_RESHAPE = 36,
  TSR_OP_TRANSPOSE = 37,
  TSR_OP_SLICE = 38,
  TSR_OP_CONCAT = 39,
  TSR_OP_GATHER = 40,
  TSR_OP_SQUEEZE = 41,
  TSR_OP_UNSQUEEZE = 42,
  TSR_OP_PAD = 43,
  /* Conversion. */
  TSR_OP_CAST = 44,
  TSR_OP_QUANTIZE = 45,
  TSR_OP_DEQUANTIZE = 46,
  /* A compiled partition: runs bytecode through a dispatch library. */
  TSR_OP_DISPATCH = 47,
  TSR_OP_COUNT_V1 = 48, /* one past the last v1 op */
  /* since 1.3 */
  TSR_OP_RESIZE = 48,           /* interpolation (nearest, linear, cubic) */
  TSR_OP_CONV_TRANSPOSE_2D = 49,/* transposed (fractionally strided) conv */
  TSR_OP_COUNT_V1_3 = 50,       /* one past the last 1.3 op */
  /* since 1.4 */
  TSR_OP_ARG_MAX = 50,          /* index of the largest element along an axis (i64) */
  TSR_OP_ARG_MIN = 51,          /* index of the smallest element along an axis (i64) */
  TSR_OP_TOP_K = 52,            /* k largest/smallest along an axis: values, i64 indices */
  TSR_OP_CUM_SUM = 53,          /* running sum along an axis */
  TSR_OP_COUNT_V1_4 = 54,       /* one past the last 1.4 op */
  TSR_OP_MAX_ENUM = INT32_MAX
};

/* Attribute keys. Each op documents which keys it reads (docs/ops.md). An
 * attribute is either an integer list or a float list; a scalar is a list
 * of one. */
enum tsr_attr_key {
  TSR_ATTR_UNKNOWN = 0,
  TSR_ATTR_AXIS = 1,              /* int: softmax, concat, gather, layer norm */
  TSR_ATTR_AXES = 2,              /* ints: reduce, squeeze, unsqueeze, slice */
  TSR_ATTR_KEEP_DIMS = 3,         /* int 0/1: reductions (default 1) */
  TSR_ATTR_PERM = 4,              /* ints: transpose */
  TSR_ATTR_SHAPE = 5,             /* ints: reshape target, resize output sizes (static) */
  TSR_ATTR_STARTS = 6,            /* ints: slice */
  TSR_ATTR_ENDS = 7,              /* ints: slice */
  TSR_ATTR_STEPS = 8,             /* ints: slice */
  TSR_ATTR_PADS = 9,              /* ints: [b0..bn-1, e0..en-1], pad/conv/pool */
  TSR_ATTR_PAD_MODE = 10,         /* int tsr_pad_mode: pad */
  TSR_ATTR_PAD_VALUE = 11,        /* float: constant pad value */
  TSR_ATTR_STRIDES = 12,          /* ints [sh, sw]: conv, pool */
  TSR_ATTR_DILATIONS = 13,        /* ints [dh, dw]: conv, pool */
  TSR_ATTR_KERNEL_SHAPE = 14,     /* ints [kh, kw]: pool */
  TSR_ATTR_GROUPS = 15,           /* int: conv (default 1) */
  TSR_ATTR_CLIP_MIN = 16,         /* float: clip lower bound */
  TSR_ATTR_CLIP_MAX = 17,         /* float: clip upper bound */
  TSR_ATTR_ACTIVATION = 18,       /* int tsr_activation: fused into FC/conv/matmul */
  TSR_ATTR_EPSILON = 19,          /* float: layer norm */
  TSR_ATTR_CEIL_MODE = 20,        /* int 0/1: pool output size rounding */
  TSR_ATTR_COUNT_INCLUDE_PAD = 21,/* int 0/1: avg pool */
  TSR_ATTR_KEY_COUNT_V1 = 22,
  /* since 1.2 */
  TSR_ATTR_NOOP_WITH_EMPTY_AXES = 22, /* int 0/1: reductions (ONNX opset 18):
                                         1 with no axes = identity, not a
                                         reduction over every axis */
  TSR_ATTR_KEY_COUNT_V1_2 = 23,
  /* since 1.3 */
  TSR_ATTR_RESIZE_MODE = 23,          /* int tsr_resize_mode: resize */
  TSR_ATTR_COORD_TRANSFORM = 24,      /* int tsr_coord_transform: resize */
  TSR_ATTR_NEAREST_MODE = 25,         /* int tsr_nearest_mode: resize */
  TSR_ATTR_CUBIC_COEFF_A = 26,        /* float: resize cubic (default -0.75) */
  TSR_ATTR_EXCLUDE_OUTSIDE = 27,      /* int 0/1: resize (default 0) */
  TSR_ATTR_EXTRAPOLATION_VALUE = 28,  /* float: resize crop (default 0) */
  TSR_ATTR_SCALES = 29,               /* floats, one per axis: resize */
  TSR_ATTR_ROI = 30,                  /* floats [starts, ends]: resize crop */
  TSR_ATTR_OUTPUT_PADDING = 31,       /* ints [oh, ow]: conv transpose */
  TSR_ATTR_KEY_COUNT_V1_3 = 32,
  /* since 1.4 */
  TSR_ATTR_SELECT_LAST_INDEX = 32,    /* int 0/1: arg max/min tie goes to the last index (default 0) */
  TSR_ATTR_K = 33,                    /* int >= 0: top k count */
  TSR_ATTR_LARGEST = 34,              /* int 0/1: top k largest (default 1) or smallest */
  TSR_ATTR_SORTED = 35,               /* int 0/1: top k in sorted order (default 1) */
  TSR_ATTR_EXCLUSIVE = 36,            /* int 0/1: cum sum excludes the element itself (default 0) */
  TSR_ATTR_REVERSE = 37,              /* int 0/1: cum sum runs from the end (default 0) */
  TSR_ATTR_KEY_COUNT_V1_4 = 38,
  TSR_ATTR_MAX_ENUM = INT32_MAX
};

/* The minor version (of major 1) that introduced attribute `key`, or -1 for
 * a key this header does not know. A host refuses, on a plugin's behalf,
 * every op that carries an attribute newer than the version the plugin
 * negotiated (reason TSR_REFUSAL_ATTRIBUTE_OUT_OF_RANGE): an old plugin
 * cannot see that the new attribute changes the op's meaning. Plugins that
 * negotiated 1.2 enumerate attributes themselves (op_attr_count/op_attr_key)
 * and refuse keys they do not implement. */
static inline int32_t tsr_attr_key_since_minor(int32_t key) {
  if (key > TSR_ATTR_UNKNOWN && key < TSR_ATTR_KEY_COUNT_V1) return 0;
  if (key >= TSR_ATTR_KEY_COUNT_V1 && key < TSR_ATTR_KEY_COUNT_V1_2) return 2;
  if (key >= TSR_ATTR_KEY_COUNT_V1_2 && key < TSR_ATTR_KEY_COUNT_V1_3) return 3;
  if (key >= TSR_ATTR_KEY_COUNT_V1_3 && key < TSR_ATTR_KEY_COUNT_V1_4) return 4;
  return -1;
}

/* The same for op types: the ops before TSR_OP_COUNT_V1 are from 1.0; ops
 * appended later get their own COUNT marker and a branch here. A host
 * refuses a newer op on behalf of a plugin that negotiated an older minor. */
static inline int32_t tsr_op_type_since_minor(int32_t type) {
  if (type > TSR_OP_UNKNOWN && type < TSR_OP_COUNT_V1) return 0;
  if (type >= TSR_OP_COUNT_V1 && type < TSR_OP_COUNT_V1_3) return 3;
  if (type >= TSR_OP_COUNT_V1_3 && type < TSR_OP_COUNT_V1_4) return 4;
  return -1;
}

enum tsr_activation {
  TSR_ACTIVATION_NONE = 0,
  TSR_ACTIVATION_RELU = 1,
  TSR_ACTIVATION_CLIP = 2, /* bounds in TSR_ATTR_CLIP_MIN / TSR_ATTR_CLIP_MAX */
  TSR_ACTIVATION_MAX_ENUM = INT32_MAX
};

/* Resize (since 1.3); semantics in docs/ops.md (RESIZE), after ONNX Resize. */
enum tsr_resize_mode {
  TSR_RESIZE_NEAREST = 0,
  TSR_RESIZE_LINEAR = 1, /* n-linear over every axis */
  TSR_RESIZE_CUBIC = 2,  /* n-cubic, coefficient TSR_ATTR_CUBIC_COEFF_A */
  TSR_RESIZE_MODE_MAX_ENUM = INT32_MAX
};

/* How an output coordinate maps onto the input axis. */
enum tsr_coord_transform {
  TSR_COORD_HALF_PIXEL = 0,
  TSR_COORD_ASYMMETRIC = 1,
  TSR_COORD_PYTORCH_HALF_PIXEL = 2,
  TSR_COORD_TF_HALF_PIXEL_FOR_NN = 3,
  TSR_COORD_ALIGN_CORNERS = 4,
  TSR_COORD_TF_CROP_AND_RESIZE = 5, /* reads TSR_ATTR_ROI */
  TSR_COORD_TRANSFORM_MAX_ENUM = INT32_MAX
};

/* How a nearest resize rounds a fractional input coordinate. */
enum tsr_nearest_mode {
  TSR_NEAREST_ROUND_PREFER_FLOOR = 0,
  TSR_NEAREST_ROUND_PREFER_CEIL = 1,
  TSR_NEAREST_FLOOR = 2,
  TSR_NEAREST_CEIL = 3,
  TSR_NEAREST_MODE_MAX_ENUM = INT32_MAX
};

enum tsr_pad_mode {
  TSR_PAD_CONSTANT = 0,
  TSR_PAD_REFLECT = 1,
  TSR_PAD_EDGE = 2,
  TSR_PAD_MODE_MAX_ENUM = INT32_MAX
};

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_OPS_H_ */
