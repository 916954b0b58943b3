// The function tables against the exact functions: every expected value is
// std::exp / std::tanh in double (never the tables), and every f32 result
// must lie within the bound that lookup_tables.h declares and
// docs/systolic_npu_isa.md §9 "Function tables" states.
#include "plugins/systolic_npu/machine/lookup_tables.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>
#include "plugins/systolic_npu/machine/cycle_model.h"
#include "plugins/systolic_npu/machine/fp16.h"
#include "plugins/systolic_npu/machine/test_util.h"
#include "plugins/systolic_npu/machine/vector_unit.h"

namespace tessera::systolic {
namespace {

double ExactExp(double x) { return std::exp(x); }
double ExactSigmoid(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }
double ExactTanh(double x) { return std::tanh(x); }

// Every f32 whose bit pattern is a multiple of `step` (both signs), plus
// the sample points of the tables and the midpoints between them, where
// interpolation errs most.
std::vector<float> Inputs(uint32_t step) {
  std::vector<float> v;
  for (uint64_t b = 0; b < 0x7F800000u; b += step) {
    float f;
    const uint32_t u = static_cast<uint32_t>(b);
    std::memcpy(&f, &u, 4);
    v.push_back(f);
    v.push_back(-f);
  }
  for (int j = 0; j <= 2 * 2304; ++j) {
    v.push_back(j / 512.0f);
    v.push_back(-j / 512.0f);
  }
  for (float x = -110.0f; x <= 110.0f; x += 1.0f / 64) v.push_back(x);
  return v;
}

struct Worst {
  double rel = 0;
  float at = 0;
};

// Checks every input against the declared bound; returns the worst
// relative error over results at least 2^-126 (normal f32).
template <typename Lut, typename Exact>
Worst CheckBound(const char* name, Lut lut, Exact exact) {
  Worst w;
  int failures = 0;
  for (float x : Inputs(4099)) {
    const double want = exact(static_cast<double>(x));
    const float got = lut(x);
    const double want_f = std::min(want, static_cast<double>(std::numeric_limits<float>::max()));
    // Results within the bound of 2^128 may overflow to inf (§9 "Function tables").
    if (std::isinf(got) && want > std::numeric_limits<float>::max() * (1 - kLutRelativeTolerance)) continue;
    const double err = std::fabs(static_cast<double>(got) - want_f);
    if (!(err <= kLutRelativeTolerance * std::fabs(want) + kLutAbsoluteTolerance) && failures++ < 5)
      ADD_FAILURE() << name << "(" << x << ") = " << got << ", exact " << want;
    if (std::fabs(want) >= 0x1p-126 && err / std::fabs(want) > w.rel) w = {err / std::fabs(want), x};
  }
  std::printf("%s: worst relative error %.3g at x = %.9g\n", name, w.rel, w.at);
  return w;
}

TEST(LookupTables, WithinTheDeclaredBound) {
  // The measured worst cases stay below the per-function figures of
  // docs/systolic_npu_isa.md §9 "Function tables" (which leave the declared 2^-16 room).
  EXPECT_LT(CheckBound("EXP", LutExp, ExactExp).rel, 6e-6);
  EXPECT_LT(CheckBound("SIGMOID", LutSigmoid, ExactSigmoid).rel, 8e-6);
  EXPECT_LT(CheckBound("TANH", LutTanh, ExactTanh).rel, 6e-6);
}

TEST(LookupTables, HandVectors) {
  // Sample points of the tables are exact up to one f32 rounding.
  EXPECT_EQ(LutExp(0.0f), 1.0f);
  EXPECT_EQ(LutSigmoid(0.0f), 0.5f);
  EXPECT_EQ(LutTanh(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(LutTanh(-0.0f)));
  EXPECT_FLOAT_EQ(LutTanh(0.5f), static_cast<float>(std::tanh(0.5)));
  EXPECT_FLOAT_EQ(LutSigmoid(1.0f), static_cast<float>(1.0 / (1.0 + std::exp(-1.0))));
  // Halfway between TANH samples 0 and 1 the chord through 0 lies below
  // tanh by h^2/3 relative (h = 1/256): 3.8e-6 of 0.00195.
  const float mid = 1.0f / 512;
  EXPECT_NEAR(LutTanh(mid), std::tanh(1.0 / 512), 1e-8);
  EXPECT_LT(LutTanh(mid), std::tanh(1.0 / 512));
  // Saturation and specials.
  EXPECT_EQ(LutTanh(9.0f), 1.0f);
  EXPECT_EQ(LutTanh(-50.0f), -1.0f);
  EXPECT_EQ(LutSigmoid(16.0f), 1.0f);
  EXPECT_EQ(LutSigmoid(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(LutExp(89.0f), std::numeric_limits<float>::infinity());
  EXPECT_EQ(LutExp(-104.0f), 0.0f);  // e^-104 < 2^-150
  EXPECT_EQ(LutExp(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_TRUE(std::isnan(LutExp(NAN)));
  EXPECT_TRUE(std::isnan(LutSigmoid(NAN)));
  EXPECT_TRUE(std::isnan(LutTanh(NAN)));
  // Small negative sigmoid keeps its relative accuracy (no 1 - s).
  EXPECT_NEAR(LutSigmoid(-30.0f) / std::exp(-30.0), 1.0, 1e-5);
  // A subnormal result of EXP.
  EXPECT_NEAR(LutExp(-100.0f), std::exp(-100.0), 0x1p-149);
}

// The vector unit: F32 results are the tables' values; F16 results add one
// rounding to nearest even (relative 2^-11, or 2^-25 absolute below 2^-14).
TEST(LookupTables, VectorUnitF32AndF16) {
  const std::vector<float> xs = {-12.5f, -3.0f, -0.75f, -0.001f, 0.0f, 0.2f, 1.5f, 4.0f, 7.25f, 10.0f};
  const size_t n = xs.size();
  std::vector<uint8_t> b0(256), b1(256), b2(256);
  uint8_t* banks[3] = {b0.data(), b1.data(), b2.data()};
  Program p;
  const struct {
    VectorOp op;
    double (*exact)(double);
  } cases[] = {{VectorOp::kSigmoid, ExactSigmoid}, {VectorOp::kTanh, ExactTanh}, {VectorOp::kExp, ExactExp}};
  // One VECTOR of `n` elements of dtype `dt` from b0 to b2.
  auto run = [&](VectorOp op, int32_t dt) {
    ExecuteVector(p,
                  MakeVector(op, dt, dt, SramAddress(Bank::kInput, 0), 0, SramAddress(Bank::kAccum, 0), 1,
                             static_cast<uint32_t>(n)),
                  banks);
  };
  for (const auto& c : cases) {
    std::memcpy(b0.data(), xs.data(), n * 4);
    run(c.op, TSR_DTYPE_F32);
    for (size_t i = 0; i < n; ++i) {
      float got;
      std::memcpy(&got, b2.data() + i * 4, 4);
      const double want = c.exact(xs[i]);
      EXPECT_LE(std::fabs(got - want), kLutRelativeTolerance * std::fabs(want) + kLutAbsoluteTolerance)
          << VectorOpName(c.op) << "(" << xs[i] << ")";
    }
    const std::vector<uint16_t> h = snpu_test::ToHalf(xs);
    std::memcpy(b0.data(), h.data(), n * 2);
    run(c.op, TSR_DTYPE_F16);
    for (size_t i = 0; i < n; ++i) {
      uint16_t got;
      std::memcpy(&got, b2.data() + i * 2, 2);
      const double want = c.exact(HalfToFloat(h[i]));
      const double bound = (kLutRelativeTolerance + snpu_test::kU16) * std::fabs(want) + 0x1p-25;
      if (want > 65504) {
        EXPECT_EQ(got, 0x7C00) << VectorOpName(c.op) << "(" << xs[i] << ")";  // f16 overflow
      } else {
        EXPECT_LE(std::fabs(HalfToFloat(got) - want), bound) << VectorOpName(c.op) << "(" << xs[i] << ")";
      }
    }
  }
}

// Cost: SIGMOID reads two tables per element (two passes), TANH / EXP one.
TEST(LookupTables, Cycles) {
  const SystolicNpuConfig npu = snpu_test::SmallNpu(4, 4);  // 4 lanes
  Program p;
  auto in = [](VectorOp op) {
    return MakeVector(op, TSR_DTYPE_F32, TSR_DTYPE_F32, 0, 0, SramAddress(Bank::kAccum, 0), 3, 5);
  };
  EXPECT_EQ(VectorCycles(p, in(VectorOp::kSigmoid), npu), 4u + 2u * 4u);  // 2 * ceil(15 / 4)
  EXPECT_EQ(VectorCycles(p, in(VectorOp::kTanh), npu), 4u + 4u);
  EXPECT_EQ(VectorCycles(p, in(VectorOp::kExp), npu), 4u + 4u);
}

}  // namespace
}  // namespace tessera::systolic

namespace tessera::systolic {
namespace {

// Arguments whose scaled table position rounds onto the last sample: the
// table ends there, so the result is that sample, never a read past it
// (ASan found the read). Expected values from <cmath> in double.
TEST(LookupTables, PositionsThatRoundOntoTheLastSample) {
  const float tiny = -1e-9f;  // exp2 fraction 1 - 1e-9 rounds to 1.0f
  EXPECT_NEAR(LutExp(tiny), std::exp(static_cast<double>(tiny)), 1e-5);
  const float below16 = std::nextafter(16.0f, 0.0f);  // sigmoid position 2048.0f
  EXPECT_NEAR(LutSigmoid(below16), 1.0 / (1.0 + std::exp(-static_cast<double>(below16))), 1e-6);
  EXPECT_NEAR(LutSigmoid(-below16), 1.0 / (1.0 + std::exp(static_cast<double>(below16))), 1e-11);
  const float below9 = std::nextafter(9.0f, 0.0f);  // tanh position 2304.0f
  EXPECT_NEAR(LutTanh(below9), std::tanh(static_cast<double>(below9)), 1e-6);
}

}  // namespace
}  // namespace tessera::systolic
