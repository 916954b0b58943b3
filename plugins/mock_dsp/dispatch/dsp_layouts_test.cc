// The DSP's TCM layout, checked byte by byte against its formula: element
// [r, j] of a f32 tensor with rows padded to 128 bytes sits at
// r * 128 + j * 4 (r counts rows over all outer dims). The kernels read and
// write it in place, a program's graph inputs and outputs keep it, and
// convert_buffer's row relayout moves between it and dense.
#include "plugins/mock_dsp/dispatch/dsp_layouts.h"

#include <cstring>
#include <vector>

#include "plugins/mock_dsp/shared/dsp_contract.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/kit/host_buffers.h"
#include "plugins/mock_dsp/kernels/dsp_kernels.h"
#include "plugins/kit/plugin_status.h"
#include "plugins/mock_dsp/dispatch/dsp_program.h"
#include "tessera/ops.h"

namespace tessera::mock_dsp {
namespace {

using ::testing::HasSubstr;

float At(const std::vector<uint8_t>& b, size_t offset) {
  float f;
  std::memcpy(&f, b.data() + offset, 4);
  return f;
}
void Put(std::vector<uint8_t>& b, size_t offset, float f) { std::memcpy(b.data() + offset, &f, 4); }

kit::SnapshotTensor F32(std::vector<int64_t> shape) { return {"t", TSR_DTYPE_F32, std::move(shape)}; }

TEST(DspTcmLayout, RowsArePaddedToWhole128ByteLines) {
  EXPECT_EQ(TcmRowStride(TSR_DTYPE_F32, std::vector<int64_t>{3, 10}), 128);   // 40 bytes -> 128
  EXPECT_EQ(TcmRowStride(TSR_DTYPE_F32, std::vector<int64_t>{2, 40}), 256);   // 160 -> 256
  EXPECT_EQ(TcmRowStride(TSR_DTYPE_F16, std::vector<int64_t>{2, 10}), 128);   // 20 -> 128
  EXPECT_EQ(TcmRowStride(TSR_DTYPE_F32, std::vector<int64_t>{4, 32}), 0);     // 128 already: dense
  EXPECT_EQ(TcmRowStride(TSR_DTYPE_F32, std::vector<int64_t>{10}), 0);        // one row
  EXPECT_EQ(TcmRowStride(TSR_DTYPE_I32, std::vector<int64_t>{3, 10}), 0);     // indices stay dense
  // Whole rows, the last one padded too: 2 * 3 rows of 128 bytes.
  EXPECT_EQ(LaidOutBytes(TSR_DTYPE_F32, std::vector<int64_t>{2, 3, 10}, 128), 768u);
  EXPECT_EQ(BufferBytes(kDspTcmBufferType, F32({2, 3, 10})), 768u);
  EXPECT_EQ(BufferBytes(TSR_BUFFER_TYPE_DMABUF, F32({2, 3, 10})), 240u);
}

TEST(DspTcmLayout, TheKernelsReadAndWritePaddedRowsInPlace) {
  // y = x + 1 on [2, 3] f32 with 16-byte rows; padding keeps its 0xEE bytes.
  std::vector<uint8_t> x(32, 0xEE), y(32, 0xEE);
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 3; ++j) Put(x, r * 16 + j * 4, static_cast<float>(r * 10 + j));
  std::vector<float> one = {1};
  DspTensor in[] = {{TSR_DTYPE_F32, {2, 3}, x.data(), 16}, {TSR_DTYPE_F32, {1}, reinterpret_cast<uint8_t*>(one.data())}};
  ASSERT_TRUE(RunDspOp(TSR_OP_ADD, {}, in, {{DspTensor{TSR_DTYPE_F32, {2, 3}, y.data(), 16}}}).ok());
  for (int r = 0; r < 2; ++r) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(At(y, r * 16 + j * 4), r * 10 + j + 1) << r << "," << j;
    for (int b = 12; b < 16; ++b) EXPECT_EQ(y[r * 16 + b], 0xEE) << "padding of row " << r;
  }
}

// A program (RELU then TRANSPOSE, a byte-moving kernel) whose input and
// output are TCM buffers: padded on both ends, dense in between.
TEST(DspTcmLayout, AProgramKeepsItsGraphInputsAndOutputsInTheTcmLayout) {
  DspProgram p;
  p.graph.tensors = {F32({3, 10}), F32({3, 10}), F32({10, 3})};
  p.graph.inputs = {0};
  p.graph.outputs = {2};
  p.graph.ops.push_back({TSR_OP_RELU, 1, {0}, {1}, {}});
  p.graph.ops.push_back({TSR_OP_TRANSPOSE, 2, {1}, {2}, {{TSR_ATTR_PERM, {{1, 0}, {}}}}});
  for (const kit::SnapshotTensor& t : p.graph.tensors) p.tensor_bytes.push_back(BufferBytes(TSR_BUFFER_TYPE_DMABUF, t));
  // x[r, j] = r * 10 + j - 5 at r * 128 + j * 4.
  std::vector<uint8_t> x(BufferBytes(kDspTcmBufferType, p.graph.tensors[0]), 0);
  std::vector<uint8_t> y(BufferBytes(kDspTcmBufferType, p.graph.tensors[2]), 0);
  ASSERT_EQ(x.size(), 384u);  // 3 rows of 128
  ASSERT_EQ(y.size(), 1280u);  // 10 rows of 12 bytes, each padded to 128
  for (int r = 0; r < 3; ++r)
    for (int j = 0; j < 10; ++j) Put(x, r * 128 + j * 4, static_cast<float>(r * 10 + j - 5));
  const DspIo in[] = {{x.data(), TcmRowStride(TSR_DTYPE_F32, p.graph.tensors[0].shape)}};
  const DspIo out[] = {{y.data(), TcmRowStride(TSR_DTYPE_F32, p.graph.tensors[2].shape)}};
  ASSERT_TRUE(RunDspProgram(p, in, out).ok());
  // y[j, r] = relu(x[r, j]) at j * 128 + r * 4.
  for (int j = 0; j < 10; ++j)
    for (int r = 0; r < 3; ++r) EXPECT_EQ(At(y, j * 128 + r * 4), std::max(0, r * 10 + j - 5)) << j << "," << r;
}

TEST(DspTcmLayout, DeclaresTheTcmAsPaddedStridesAndDmabufAsDense) {
  tsr_buffer_layout l{};
  l.header.struct_size = sizeof(l);
  FillLayout(F32({2, 3, 10}), false, 0, &l);
  EXPECT_EQ(l.buffer_type, kDspTcmBufferType);
  EXPECT_EQ(l.layout, TSR_LAYOUT_STRIDED_ND);
  ASSERT_EQ(l.rank, 3u);
  EXPECT_EQ(l.strides_bytes[0], 384);  // 3 rows of 128
  EXPECT_EQ(l.strides_bytes[1], 128);
  EXPECT_EQ(l.strides_bytes[2], 4);
  EXPECT_EQ(l.size_bytes, 768u);
  EXPECT_EQ(l.alignment, 128u);
  FillLayout(F32({2, 3, 10}), true, 0, &l);  // accepts_dmabuf: DMABUF first, dense
  EXPECT_EQ(l.buffer_type, TSR_BUFFER_TYPE_DMABUF);
  EXPECT_EQ(l.layout, TSR_LAYOUT_DENSE);
  EXPECT_EQ(l.size_bytes, 240u);
  FillLayout(F32({4, 32}), false, 0, &l);  // rows of 128 bytes already
  EXPECT_EQ(l.layout, TSR_LAYOUT_DENSE);
}

// convert_buffer's rows come from the layouts alone.
class DspConvertRows : public ::testing::Test {
 protected:
  static tsr_buffer_layout Dense(uint64_t size) {
    tsr_buffer_layout l{};
    l.header.struct_size = sizeof(l);
    l.layout = TSR_LAYOUT_DENSE;
    l.size_bytes = size;
    return l;
  }
  static tsr_buffer_layout Padded(const kit::SnapshotTensor& t) {
    tsr_buffer_layout l{};
    l.header.struct_size = sizeof(l);
    FillLayout(t, false, 0, &l);
    return l;
  }
  static tsr_buffer_s Buffer(std::vector<uint8_t>& bytes) {
    tsr_buffer_s b;
    b.type = kDspTcmBufferType;
    b.host = bytes.data();
    b.size = bytes.size();
    return b;
  }
};

TEST_F(DspConvertRows, DenseToPaddedAndBack) {
  const kit::SnapshotTensor t = F32({2, 3});  // 12-byte rows padded to 128
  std::vector<uint8_t> dense(24), padded(256, 0), back(24, 0);
  for (int i = 0; i < 6; ++i) Put(dense, i * 4, static_cast<float>(i + 1));
  tsr_buffer_s d = Buffer(dense), p = Buffer(padded), k = Buffer(back);
  const tsr_buffer_layout dl = Dense(24), pl = Padded(t);
  ASSERT_EQ(ConvertRows(&d, &dl, &p, &pl), TSR_OK);
  EXPECT_EQ(At(padded, 0), 1);
  EXPECT_EQ(At(padded, 8), 3);
  EXPECT_EQ(At(padded, 128), 4);
  EXPECT_EQ(At(padded, 136), 6);
  ASSERT_EQ(ConvertRows(&p, &pl, &k, &dl), TSR_OK);
  EXPECT_EQ(back, dense);
}

TEST_F(DspConvertRows, InconsistentLayoutsAreRefused) {
  const kit::SnapshotTensor t = F32({2, 3});
  std::vector<uint8_t> dense(25), padded(256, 0);
  tsr_buffer_s d = Buffer(dense), p = Buffer(padded);
  const tsr_buffer_layout dl = Dense(25), pl = Padded(t);  // 25 bytes are not 2 rows of 4-byte elements
  EXPECT_EQ(ConvertRows(&d, &dl, &p, &pl), TSR_INVALID_ARGUMENT);
  EXPECT_THAT(kit::LastErrorMessage(), HasSubstr("a dense layout of 25 bytes is not 2 rows of at most 128 bytes"));
  tsr_buffer_layout vendor = Dense(24);
  vendor.layout = TSR_LAYOUT_VENDOR;
  EXPECT_EQ(ConvertRows(&d, &vendor, &p, &pl), TSR_UNIMPLEMENTED);
  const tsr_buffer_layout big = Dense(4096);
  EXPECT_EQ(ConvertRows(&d, &big, &p, &pl), TSR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace tessera::mock_dsp
