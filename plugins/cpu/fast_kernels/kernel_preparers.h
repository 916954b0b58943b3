// One preparer per op family: each builds the oneDNN plan of one op (or a
// chain of convolutions/pools) at load time, or throws NotHandled (see
// dnnl_plan.h) so that the reference kernel runs it instead.
#ifndef TESSERA_PLUGINS_CPU_FAST_KERNELS_KERNEL_PREPARERS_H_
#define TESSERA_PLUGINS_CPU_FAST_KERNELS_KERNEL_PREPARERS_H_

#include <memory>
#include <span>

#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/cpu/fast_kernels/dnnl_plan.h"
#include "plugins/cpu/fast_kernels/fast_kernels.h"

namespace tessera::cpu::fast::detail {

using Ins = std::span<const TensorRef>;
using Outs = std::span<const TensorRef>;

// gemm_kernels.cc
std::unique_ptr<FastOp> PrepareFullyConnected(const dnnl::engine& engine, const Attributes& attrs, Ins ins, Outs outs);
std::unique_ptr<FastOp> PrepareMatmul(const dnnl::engine& engine, const Attributes& attrs, Ins ins, Outs outs);

// conv_pool_kernels.cc
std::unique_ptr<FastOp> PrepareConv(const dnnl::engine& engine, const Attributes& attrs, Ins ins, Outs outs);
// Appends a CONV_2D, MAX/AVG_POOL_2D or GLOBAL_AVG_POOL reading `src` (in
// any layout; reordered into the primitive's when they differ); the result
// stays in the primitive's layout, or is output `output` (>= 0) directly
// when that layout is plain.
Act AppendConvOrPool(PlanOp& plan, const dnnl::engine& engine, int32_t op_type, const Attributes& attrs, Ins ins,
                     Outs outs, const Act& src, int output);

// region_kernels.cc: convolutions, pools and broadcasting binary ops whose
// internal tensors keep the convolutions' layout (FastEngine::PrepareRegion).
// `threads`: the engine's; links that are not `parallel` get one.
std::unique_ptr<FastOp> PrepareRegion(const dnnl::engine& engine, std::span<const RegionLink> links,
                                      std::span<const TensorRef> inputs, int threads);

// conv_transpose_kernels.cc: CONV_TRANSPOSE_2D on oneDNN's deconvolution.
std::unique_ptr<FastOp> PrepareConvTranspose(const dnnl::engine& engine, const Attributes& attrs, Ins ins, Outs outs);

// elementwise_kernels.cc
std::unique_ptr<FastOp> PrepareBinary(int32_t op, const dnnl::engine& engine, Ins ins, Outs outs);
std::unique_ptr<FastOp> PrepareSoftmax(const dnnl::engine& engine, const Attributes& attrs, Ins ins, Outs outs);

// binary_loop_kernels.cc: any broadcasting binary op (arithmetic,
// MAXIMUM/MINIMUM, POW, EQUAL/LESS/GREATER) as vectorized loops.
std::unique_ptr<FastOp> PrepareBinaryLoop(int32_t op, Ins ins, Outs outs);

// unary_kernels.cc
std::unique_ptr<FastOp> PrepareUnary(int32_t op, const Attributes& attrs, Ins ins, Outs outs);
// POW whose exponent is one constant value (2, 3, 0.5, 1, 0, -1 special-cased).
std::unique_ptr<FastOp> PreparePowConstant(Ins ins, Outs outs);

// elementwise_group_kernels.cc
std::unique_ptr<FastOp> PrepareElementwiseGroup(std::span<const GroupLink> links, Ins ins, Outs outs);

// reduce_kernels.cc: REDUCE_MEAN / REDUCE_SUM / REDUCE_MAX
std::unique_ptr<FastOp> PrepareReduce(int32_t op, const Attributes& attrs, Ins ins, Outs outs);

// layer_norm_kernels.cc
std::unique_ptr<FastOp> PrepareLayerNorm(const Attributes& attrs, Ins ins, Outs outs);

// copy_kernels.cc: RESHAPE/SQUEEZE/UNSQUEEZE, CONCAT, GATHER (any dtype)
std::unique_ptr<FastOp> PrepareReshape(int32_t op, Ins ins, Outs outs);
std::unique_ptr<FastOp> PrepareConcat(const Attributes& attrs, Ins ins, Outs outs);
std::unique_ptr<FastOp> PrepareGather(const Attributes& attrs, Ins ins, Outs outs);
// resize_kernels.cc: RESIZE, nearest mode (index maps from the reference
// kernel); linear mode is handed to PrepareLinearResize.
std::unique_ptr<FastOp> PrepareResize(const Attributes& attrs, Ins ins, Outs outs);
// resize_linear_kernels.cc: RESIZE, linear mode, f32 (taps from
// kernels/resize_taps.h).
std::unique_ptr<FastOp> PrepareLinearResize(const Attributes& attrs, Ins ins, Outs outs);

// pad_kernels.cc
std::unique_ptr<FastOp> PreparePad(const Attributes& attrs, Ins ins, Outs outs);

// data_movement_kernels.cc
std::unique_ptr<FastOp> PrepareSlice(const dnnl::engine& engine, const Attributes& attrs, Ins ins, Outs outs);
std::unique_ptr<FastOp> PrepareSelect(Ins ins, Outs outs);
std::unique_ptr<FastOp> PrepareTranspose(const dnnl::engine& engine, const Attributes& attrs, Ins ins, Outs outs);

}  // namespace tessera::cpu::fast::detail

#endif  // TESSERA_PLUGINS_CPU_FAST_KERNELS_KERNEL_PREPARERS_H_
