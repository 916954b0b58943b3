// The vector unit's function tables: SIGMOID, TANH and EXP by table lookup
// with linear interpolation, in FP32 (docs/systolic_npu_isa.md §9 "Function tables").
//
// Real NPUs evaluate transcendental activations this way: a small ROM of
// samples and one multiply-add per lane. The tables are fixed hardware: the
// same for every program, so they are not in the constant pool. Each entry
// is a double-precision sample rounded once to f32:
//   EXP2    T[j] = 2^(j/256),          j = 0..256   (2^f for f in [0, 1))
//   SIGMOID S[j] = 1 / (1 + e^-(j/128)), j = 0..2048 ([0, 16))
//   TANH    H[j] = tanh(j/256),        j = 0..2304  ([0, 9))
// The evaluation (every step an f32 operation, no fused multiply-add):
//   EXP(x):  t = x * fl32(log2 e); t >= 128 -> +inf, t < -150 -> +0;
//            k = floor(t), f = t - k; y = ldexp(Interp(T, 256 f), k).
//   SIGMOID: a = |x|, s = a >= 16 ? 1 : Interp(S, 128 a);
//            x >= 0 -> s, x < 0 -> EXP(x) * s   (σ(-a) = e^-a σ(a): no
//            cancellation, so small results keep their relative accuracy).
//   TANH:    a = |x|, y = a >= 9 ? 1 : Interp(H, 256 a), sign of x.
//   Interp(V, p) = V[i] + (p - i) * (V[i+1] - V[i]) with i = floor(p).
// NaN gives NaN. The error bounds (§9 "Function tables", pinned by lookup_tables_test.cc
// against std::exp / std::tanh in double) are kLut*Tolerance below.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_LOOKUP_TABLES_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_LOOKUP_TABLES_H_

namespace tessera::systolic {

float LutExp(float x);
float LutSigmoid(float x);
float LutTanh(float x);

// |y - f(x)| <= kLutRelativeTolerance * |f(x)| + kLutAbsoluteTolerance for
// every f32 input x and f32 result y of the three functions (f the exact
// function). The absolute term covers results that underflow to
// subnormals (2^-149 spacing) and nothing else; EXP results within the
// bound of 2^128 may be +inf.
inline constexpr double kLutRelativeTolerance = 1.0 / 65536;  // 2^-16 ≈ 1.5e-5
inline constexpr double kLutAbsoluteTolerance = 0x1p-140;

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_LOOKUP_TABLES_H_
