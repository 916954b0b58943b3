// LSTM / GRU / RNN unrolling. Expected values come from closed forms
// (zero weights) and from a scalar f64 evaluation of the ONNX operator
// equations written out here, independent of the converter's op graph.
#include <cmath>
#include <cstring>
#include <vector>

#include "framework/compiler/onnx/onnx_importer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/common.h"
#include "testing/onnx_test_util.h"

namespace tessera::onnx_import {
namespace {

using testing::AttrInt;
using testing::AttrString;
using testing::Floats;
using testing::FloatTensor;
using ::testing::HasSubstr;
using testing::OnnxModelBuilder;
using testing::RunReference;
using testing::SeededFloats;

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kInt32 = onnx::TensorProto::INT32;

double Sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Row-major views of ONNX tensors.
struct Weights {
  std::vector<float> w, r, b;  // [nd, G*H, I], [nd, G*H, H], [nd, 2*G*H]
};

// The ONNX LSTM equations (default activations, no peepholes), one
// direction, layout 0; `lens` per batch entry. Returns Y [T, B, H] of this
// direction and writes the final H.
std::vector<double> LstmDirection(const std::vector<float>& x, int T, int B, int I, int H, const Weights& wt, int d,
                                  bool reverse, const std::vector<int>& lens, std::vector<double>& h_final) {
  const int G = 4;
  std::vector<double> h(B * H, 0), c(B * H, 0), y(T * B * H, 0);
  for (int k = 0; k < T; ++k) {
    const int t = reverse ? T - 1 - k : k;
    std::vector<double> hn = h, cn = c;
    for (int bi = 0; bi < B; ++bi) {
      if (t >= lens[bi]) continue;
      for (int j = 0; j < H; ++j) {
        double g[4];
        for (int q = 0; q < G; ++q) {
          const int row = q * H + j;
          double s = wt.b[d * 2 * G * H + row] + wt.b[d * 2 * G * H + G * H + row];
          for (int ii = 0; ii < I; ++ii) s += x[(t * B + bi) * I + ii] * wt.w[(d * G * H + row) * I + ii];
          for (int hh = 0; hh < H; ++hh) s += h[bi * H + hh] * wt.r[(d * G * H + row) * H + hh];
          g[q] = s;
        }
        const double i = Sig(g[0]), o = Sig(g[1]), f = Sig(g[2]), cc = std::tanh(g[3]);
        cn[bi * H + j] = f * c[bi * H + j] + i * cc;
        hn[bi * H + j] = o * std::tanh(cn[bi * H + j]);
        y[(t * B + bi) * H + j] = hn[bi * H + j];
      }
    }
    h = hn;
    c = cn;
  }
  h_final = h;
  return y;
}

// The ONNX GRU equations (default activations), one direction.
std::vector<double> GruDirection(const std::vector<float>& x, int T, int B, int I, int H, const Weights& wt, int d,
                                 bool reverse, bool lbr, std::vector<double>& h_final) {
  const int G = 3;
  std::vector<double> h(B * H, 0), y(T * B * H, 0);
  auto wb = [&](int row) { return wt.b[d * 2 * G * H + row]; };
  auto rb = [&](int row) { return wt.b[d * 2 * G * H + G * H + row]; };
  auto xw = [&](int t, int bi, int row) {
    double s = 0;
    for (int ii = 0; ii < I; ++ii) s += x[(t * B + bi) * I + ii] * wt.w[(d * G * H + row) * I + ii];
    return s;
  };
  auto hr = [&](const std::vector<double>& v, int bi, int row) {
    double s = 0;
    for (int hh = 0; hh < H; ++hh) s += v[bi * H + hh] * wt.r[(d * G * H + row) * H + hh];
    return s;
  };
  for (int k = 0; k < T; ++k) {
    const int t = reverse ? T - 1 - k : k;
    std::vector<double> hn(B * H);
    for (int bi = 0; bi < B; ++bi) {
      std::vector<double> z(H), r(H), rh(B * H, 0);
      for (int j = 0; j < H; ++j) {
        z[j] = Sig(xw(t, bi, j) + hr(h, bi, j) + wb(j) + rb(j));
        r[j] = Sig(xw(t, bi, H + j) + hr(h, bi, H + j) + wb(H + j) + rb(H + j));
        rh[bi * H + j] = r[j] * h[bi * H + j];
      }
      for (int j = 0; j < H; ++j) {
        const int row = 2 * H + j;
        const double pre = lbr ? xw(t, bi, row) + r[j] * (hr(h, bi, row) + rb(row)) + wb(row)
                               : xw(t, bi, row) + hr(rh, bi, row) + rb(row) + wb(row);
        const double hh = std::tanh(pre);
        hn[bi * H + j] = (1 - z[j]) * hh + z[j] * h[bi * H + j];
        y[(t * B + bi) * H + j] = hn[bi * H + j];
      }
    }
    h = hn;
  }
  h_final = h;
  return y;
}

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want, double tol = 2e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

std::vector<float> Values(const HostTensor& t) { return Floats(t); }

TEST(OnnxRnn, GruWithZeroWeightsHalvesTheStateEachStep) {
  // z = sigmoid(0) = 1/2 and the candidate tanh(0) = 0, so H_t = H_{t-1}/2.
  OnnxModelBuilder b;
  b.Input("x", kFloat, {3, 1, 2});
  b.FloatInit("w", {1, 3, 2}, std::vector<float>(6, 0));
  b.FloatInit("r", {1, 3, 1}, std::vector<float>(3, 0));
  b.FloatInit("h0", {1, 1, 1}, {1.0f});
  AttrInt(b.Node("GRU", {"x", "w", "r", "", "", "h0"}, {"y", "yh"}, "gru"), "hidden_size", 1);
  b.Output("y");
  b.Output("yh");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {SeededFloats({3, 1, 2}, 1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, (std::vector<int64_t>{3, 1, 1, 1}));
  EXPECT_THAT(Values((*out)[0]), ::testing::ElementsAre(0.5f, 0.25f, 0.125f));
  EXPECT_THAT(Values((*out)[1]), ::testing::ElementsAre(0.125f));
}

TEST(OnnxRnn, LstmWithZeroWeightsFromInitialCell) {
  // Every gate is sigmoid(0) = 1/2 and the candidate 0: C1 = C0/2 = 1/2,
  // H1 = tanh(1/2)/2.
  OnnxModelBuilder b;
  b.Input("x", kFloat, {1, 1, 1});
  b.FloatInit("w", {1, 4, 1}, std::vector<float>(4, 0));
  b.FloatInit("r", {1, 4, 1}, std::vector<float>(4, 0));
  b.FloatInit("h0", {1, 1, 1}, {0.0f});
  b.FloatInit("c0", {1, 1, 1}, {1.0f});
  AttrInt(b.Node("LSTM", {"x", "w", "r", "", "", "h0", "c0"}, {"", "yh", "yc"}, "lstm"), "hidden_size", 1);
  b.Output("yh");
  b.Output("yc");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({1, 1, 1}, {3.0f})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectNear(Values((*out)[0]), {0.5 * std::tanh(0.5)});
  ExpectNear(Values((*out)[1]), {0.5});
}

TEST(OnnxRnn, LstmInputForgetCouplesTheForgetGate) {
  // Zero weights, forget-gate bias 10, C0 = 1: the candidate is tanh(0) = 0,
  // so C1 = f. Uncoupled f = sigmoid(10); coupled f = 1 - i = 1/2.
  for (int coupled : {0, 1}) {
    OnnxModelBuilder b;
    b.Input("x", kFloat, {1, 1, 1});
    b.FloatInit("w", {1, 4, 1}, std::vector<float>(4, 0));
    b.FloatInit("r", {1, 4, 1}, std::vector<float>(4, 0));
    b.FloatInit("b", {1, 8}, {0, 0, 10, 0, 0, 0, 0, 0});  // Wb i, o, f, c; Rb
    b.FloatInit("h0", {1, 1, 1}, {0.0f});
    b.FloatInit("c0", {1, 1, 1}, {1.0f});
    onnx::NodeProto& n = b.Node("LSTM", {"x", "w", "r", "b", "", "h0", "c0"}, {"", "", "yc"}, "lstm");
    AttrInt(n, "hidden_size", 1);
    AttrInt(n, "input_forget", coupled);
    b.Output("yc");
    absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
    ASSERT_TRUE(g.ok()) << g.status();
    absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({1, 1, 1}, {2.0f})});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectNear(Values((*out)[0]), {coupled ? 0.5 : 1.0 / (1.0 + std::exp(-10.0))});
  }
}

TEST(OnnxRnn, BidirectionalLstmWithSequenceLensMatchesTheEquations) {
  const int T = 4, B = 3, I = 2, H = 3;
  Weights wt{Floats(SeededFloats({2, 4 * H, I}, 2)), Floats(SeededFloats({2, 4 * H, H}, 3)),
             Floats(SeededFloats({2, 8 * H}, 4))};
  for (float& v : wt.r) v *= 0.5f;
  const std::vector<int> lens = {4, 2, 0};
  OnnxModelBuilder b;
  b.Input("x", kFloat, {T, B, I});
  b.Input("lens", kInt32, {B});
  b.FloatInit("w", {2, 4 * H, I}, wt.w);
  b.FloatInit("r", {2, 4 * H, H}, wt.r);
  b.FloatInit("b", {2, 8 * H}, wt.b);
  onnx::NodeProto& n = b.Node("LSTM", {"x", "w", "r", "b", "lens"}, {"y", "yh"}, "bilstm");
  AttrInt(n, "hidden_size", H);
  AttrString(n, "direction", "bidirectional");
  b.Output("y");
  b.Output("yh");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status();
  const HostTensor x = SeededFloats({T, B, I}, 5);
  HostTensor lens_t;
  lens_t.dtype = TSR_DTYPE_I32;
  lens_t.shape = {B};
  lens_t.data.resize(B * 4);
  std::memcpy(lens_t.data.data(), lens.data(), B * 4);
  absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {x, lens_t});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> hf, hb;
  const std::vector<double> yf = LstmDirection(Floats(x), T, B, I, H, wt, 0, false, lens, hf);
  const std::vector<double> yb = LstmDirection(Floats(x), T, B, I, H, wt, 1, true, lens, hb);
  std::vector<double> y, yh(hf);
  yh.insert(yh.end(), hb.begin(), hb.end());
  for (int t = 0; t < T; ++t) {  // Y [T, 2, B, H]
    y.insert(y.end(), yf.begin() + t * B * H, yf.begin() + (t + 1) * B * H);
    y.insert(y.end(), yb.begin() + t * B * H, yb.begin() + (t + 1) * B * H);
  }
  EXPECT_EQ((*out)[0].shape, (std::vector<int64_t>{T, 2, B, H}));
  ExpectNear(Values((*out)[0]), y);
  ExpectNear(Values((*out)[1]), yh);
}

TEST(OnnxRnn, ReverseGruBothResetOrdersAndBatchMajorLayout) {
  const int T = 3, B = 2, I = 3, H = 2;
  Weights wt{Floats(SeededFloats({1, 3 * H, I}, 6)), Floats(SeededFloats({1, 3 * H, H}, 7)),
             Floats(SeededFloats({1, 6 * H}, 8))};
  const HostTensor x = SeededFloats({T, B, I}, 9);
  // layout 1 takes X as [B, T, I] and gives Y [B, T, 1, H].
  std::vector<float> xb(T * B * I);
  for (int t = 0; t < T; ++t)
    for (int bi = 0; bi < B; ++bi)
      for (int i = 0; i < I; ++i) xb[(bi * T + t) * I + i] = Floats(x)[(t * B + bi) * I + i];
  for (int lbr : {0, 1}) {
    OnnxModelBuilder b(14);
    b.Input("x", kFloat, {B, T, I});
    b.FloatInit("w", {1, 3 * H, I}, wt.w);
    b.FloatInit("r", {1, 3 * H, H}, wt.r);
    b.FloatInit("b", {1, 6 * H}, wt.b);
    onnx::NodeProto& n = b.Node("GRU", {"x", "w", "r", "b"}, {"y", "yh"}, "gru");
    AttrInt(n, "hidden_size", H);
    AttrInt(n, "layout", 1);
    AttrInt(n, "linear_before_reset", lbr);
    AttrString(n, "direction", "reverse");
    b.Output("y");
    b.Output("yh");
    absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
    ASSERT_TRUE(g.ok()) << g.status();
    absl::StatusOr<std::vector<HostTensor>> out = RunReference(*g, {FloatTensor({B, T, I}, xb)});
    ASSERT_TRUE(out.ok()) << out.status();
    std::vector<double> hf;
    const std::vector<double> y = GruDirection(Floats(x), T, B, I, H, wt, 0, true, lbr != 0, hf);
    std::vector<double> yt(T * B * H);
    for (int t = 0; t < T; ++t)
      for (int bi = 0; bi < B; ++bi)
        for (int j = 0; j < H; ++j) yt[(bi * T + t) * H + j] = y[(t * B + bi) * H + j];
    EXPECT_EQ((*out)[0].shape, (std::vector<int64_t>{B, T, 1, H})) << "lbr " << lbr;
    ExpectNear(Values((*out)[0]), yt);
    ExpectNear(Values((*out)[1]), hf);
  }
}

TEST(OnnxRnn, RefusesClipAndOverlongSequencesNamingTheNode) {
  for (int64_t steps : {int64_t{2}, int64_t{5000}}) {
    OnnxModelBuilder b;
    b.Input("x", kFloat, {steps, 1, 1});
    b.FloatInit("w", {1, 1, 1}, {1});
    b.FloatInit("r", {1, 1, 1}, {1});
    onnx::NodeProto& n = b.Node("RNN", {"x", "w", "r"}, {"y"}, "rnn0");
    AttrInt(n, "hidden_size", 1);
    if (steps == 2) testing::AttrFloat(n, "clip", 1.0f);
    b.Output("y");
    absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
    ASSERT_FALSE(g.ok());
    EXPECT_THAT(g.status().message(), HasSubstr("node 'rnn0' (RNN)"));
    EXPECT_THAT(g.status().message(), HasSubstr(steps == 2 ? "clip" : "unrolling limit of 4096"));
  }
}

TEST(OnnxRnn, ConstantSequenceFoldingIsBoundedInTotal) {
  // Over a constant X every step folds; each constant fits the budget, but
  // 120 steps of five [4,8] results exceed 4 x the budget in total.
  OnnxModelBuilder b;
  b.FloatInit("x", {120, 4, 1}, std::vector<float>(480, 0.5f));
  b.FloatInit("w", {1, 8, 1}, std::vector<float>(8, 0.1f));
  b.FloatInit("r", {1, 8, 8}, std::vector<float>(64, 0.1f));
  AttrInt(b.Node("RNN", {"x", "w", "r"}, {"y"}, "const_rnn"), "hidden_size", 8);
  b.Output("y");
  ImportOptions o;
  o.max_folded_constant_bytes = 16000;
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes(), o);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(g.status().message(), HasSubstr("node 'const_rnn' (RNN): unrolled steps folded"));
  EXPECT_TRUE(ImportOnnxBytes(b.Bytes()).ok());  // the default budget takes it
}

TEST(OnnxRnn, MalformedWeightsAreAnError) {
  OnnxModelBuilder b;
  b.Input("x", kFloat, {2, 1, 3});
  b.FloatInit("w", {1, 4, 2}, std::vector<float>(8, 0));  // input size 2, X has 3
  b.FloatInit("r", {1, 4, 1}, std::vector<float>(4, 0));
  AttrInt(b.Node("LSTM", {"x", "w", "r"}, {"y"}, "l"), "hidden_size", 1);
  b.Output("y");
  absl::StatusOr<Graph> g = ImportOnnxBytes(b.Bytes());
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(g.status().message(), HasSubstr("W or R does not match"));
}

}  // namespace
}  // namespace tessera::onnx_import
