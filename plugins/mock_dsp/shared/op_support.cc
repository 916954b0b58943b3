#include "plugins/mock_dsp/shared/op_support.h"

#include "absl/strings/str_cat.h"
#include "plugins/mock_dsp/shared/dsp_options.h"
#include "tessera/compiler_plugin.h"
#include "tessera/ops.h"

namespace tessera::mock_dsp {
namespace {

bool IsFloat(int32_t dtype) { return dtype == TSR_DTYPE_F32 || dtype == TSR_DTYPE_F16; }
bool IsIndex(int32_t dtype) { return dtype == TSR_DTYPE_I32 || dtype == TSR_DTYPE_I64; }

const char* DTypeName(int32_t dtype) {
  switch (dtype) {
    case TSR_DTYPE_F32:
      return "f32";
    case TSR_DTYPE_F16:
      return "f16";
    case TSR_DTYPE_I8:
      return "i8";
    case TSR_DTYPE_U8:
      return "u8";
    case TSR_DTYPE_I32:
      return "i32";
    case TSR_DTYPE_I64:
      return "i64";
    case TSR_DTYPE_BOOL:
      return "bool";
    default:
      return "unknown";
  }
}

// What input `i` of an op of class `c` (and type `type`) must be: 'f' the
// op's float dtype, 'b' bool, 'i' i32/i64, '-' anything (ignored by the
// kernel), 'x' not allowed.
char InputRole(OpClass c, int32_t type, size_t i) {
  switch (c) {
    case OpClass::kSimple:
    case OpClass::kTranscendental:
    case OpClass::kCompare:
      return i < 3 ? 'f' : 'x';  // CLIP: x, min, max
    case OpClass::kSelect:
      return i == 0 ? 'b' : i < 3 ? 'f' : 'x';
    case OpClass::kReduce:
      return i == 0 ? 'f' : i == 1 ? 'i' : 'x';
    case OpClass::kSoftmax:
      return i == 0 ? 'f' : 'x';
    case OpClass::kLayerNorm:
      return i < 3 ? 'f' : 'x';
    case OpClass::kLayout:
      if (type == TSR_OP_CONCAT) return 'f';
      if (i == 0) return 'f';
      if (type == TSR_OP_GATHER) return i == 1 ? 'i' : 'x';
      if (type == TSR_OP_SLICE) return i <= 4 ? 'i' : 'x';
      return '-';  // RESHAPE/SQUEEZE/UNSQUEEZE shape or axes inputs
    case OpClass::kNone:
      break;
  }
  return 'x';
}

}  // namespace

OpClass ClassOf(int32_t t) {
  switch (t) {
    case TSR_OP_ADD:
    case TSR_OP_SUB:
    case TSR_OP_MUL:
    case TSR_OP_DIV:
    case TSR_OP_MAXIMUM:
    case TSR_OP_MINIMUM:
    case TSR_OP_NEG:
    case TSR_OP_ABS:
    case TSR_OP_RELU:
    case TSR_OP_CLIP:
      return OpClass::kSimple;
    case TSR_OP_POW:
    case TSR_OP_SQRT:
    case TSR_OP_RSQRT:
    case TSR_OP_EXP:
    case TSR_OP_LOG:
    case TSR_OP_SIN:
    case TSR_OP_COS:
    case TSR_OP_TANH:
    case TSR_OP_SIGMOID:
    case TSR_OP_ERF:
      return OpClass::kTranscendental;
    case TSR_OP_EQUAL:
    case TSR_OP_LESS:
    case TSR_OP_GREATER:
      return OpClass::kCompare;
    case TSR_OP_SELECT:
      return OpClass::kSelect;
    case TSR_OP_REDUCE_MEAN:
    case TSR_OP_REDUCE_SUM:
    case TSR_OP_REDUCE_MAX:
      return OpClass::kReduce;
    case TSR_OP_SOFTMAX:
      return OpClass::kSoftmax;
    case TSR_OP_LAYER_NORM:
      return OpClass::kLayerNorm;
    case TSR_OP_RESHAPE:
    case TSR_OP_SQUEEZE:
    case TSR_OP_UNSQUEEZE:
    case TSR_OP_TRANSPOSE:
    case TSR_OP_SLICE:
    case TSR_OP_CONCAT:
    case TSR_OP_GATHER:
      return OpClass::kLayout;
    default:
      return OpClass::kNone;
  }
}

const char* SupportedOpsText() {
  return "elementwise ADD SUB MUL DIV MAXIMUM MINIMUM NEG ABS RELU CLIP; transcendental POW SQRT RSQRT EXP LOG SIN "
         "COS TANH SIGMOID ERF; EQUAL LESS GREATER SELECT; REDUCE_MEAN REDUCE_SUM REDUCE_MAX; SOFTMAX LAYER_NORM; "
         "RESHAPE SQUEEZE UNSQUEEZE TRANSPOSE SLICE CONCAT GATHER";
}

Verdict JudgeOp(const kit::GraphSnapshot& g, const kit::SnapshotOp& op) {
  const OpClass c = ClassOf(op.type);
  const std::string name = OpName(op.type);
  if (c == OpClass::kNone)
    return {TSR_REFUSAL_UNSUPPORTED_OP,
            absl::StrCat("mock_dsp: ", name, " is not implemented by the DSP vector unit (it runs ", SupportedOpsText(),
                         ")")};
  if (op.inputs.empty() || op.inputs[0] < 0 || op.outputs.empty())
    return {TSR_REFUSAL_OTHER, absl::StrCat("mock_dsp: ", name, " has no data input or no output")};
  const int32_t dtype = g.tensors[op.inputs[0]].dtype;
  const int32_t data_dtype =
      c == OpClass::kSelect && op.inputs.size() > 1 && op.inputs[1] >= 0 ? g.tensors[op.inputs[1]].dtype : dtype;
  if (!IsFloat(data_dtype))
    return {TSR_REFUSAL_UNSUPPORTED_DTYPE,
            absl::StrCat("mock_dsp: ", name, " on ", DTypeName(data_dtype), " (the DSP computes f32 and f16 only)")};
  auto check = [&](int32_t t, char role, const char* what, size_t i) -> Verdict {
    const kit::SnapshotTensor& tensor = g.tensors[t];
    if (!tensor.quant.scales.empty())
      return {TSR_REFUSAL_UNSUPPORTED_QUANTIZATION,
              absl::StrCat("mock_dsp: ", name, " ", what, " ", i, " is quantized (the DSP has no quantized path)")};
    for (int64_t d : tensor.shape)
      if (d < 0)
        return {TSR_REFUSAL_DYNAMIC_SHAPE, absl::StrCat("mock_dsp: ", name, " ", what, " ", i, " has a dynamic shape")};
    const bool ok = role == '-' || (role == 'f' && tensor.dtype == data_dtype) ||
                    (role == 'b' && tensor.dtype == TSR_DTYPE_BOOL) || (role == 'i' && IsIndex(tensor.dtype));
    if (!ok)
      return {role == 'x' ? TSR_REFUSAL_OTHER : TSR_REFUSAL_UNSUPPORTED_DTYPE,
              role == 'x'
                  ? absl::StrCat("mock_dsp: ", name, " takes no ", what, " ", i)
                  : absl::StrCat("mock_dsp: ", name, " ", what, " ", i, " is ", DTypeName(tensor.dtype), ", expected ",
                                 role == 'b'   ? "bool"
                                 : role == 'i' ? "i32 or i64"
                                               : DTypeName(data_dtype))};
    return {};
  };
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    if (op.inputs[i] < 0) continue;
    if (Verdict v = check(op.inputs[i], InputRole(c, op.type, i), "input", i); !v.ok()) return v;
  }
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    if (op.outputs[i] < 0) continue;
    const int32_t out_dtype = g.tensors[op.outputs[i]].dtype;
    if (c == OpClass::kLayerNorm && i > 0 && out_dtype == TSR_DTYPE_UNKNOWN) continue;  // Mean/InvStdDev skipped
    const char role =
        c == OpClass::kCompare ? 'b' : (c == OpClass::kLayerNorm ? (i < 3 ? 'f' : 'x') : (i == 0 ? 'f' : 'x'));
    if (Verdict v = check(op.outputs[i], role, "output", i); !v.ok()) return v;
  }
  return {};
}

}  // namespace tessera::mock_dsp
