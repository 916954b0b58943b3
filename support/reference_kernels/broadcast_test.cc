#include "support/reference_kernels/broadcast.h"

#include <gtest/gtest.h>

namespace tessera::cpu {
namespace {

TEST(BroadcastTest, Shapes) {
  const Shape a[] = {{2, 1, 3}, {4, 1}};
  auto s = BroadcastShapes(TSR_OP_ADD, a);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (Shape{2, 4, 3}));
  const Shape b[] = {{}, {5}};
  EXPECT_EQ(*BroadcastShapes(TSR_OP_ADD, b), (Shape{5}));
  const Shape c[] = {{3}, {4}};
  auto bad = BroadcastShapes(TSR_OP_ADD, c);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("ADD"), std::string::npos);
  const Shape z[] = {{0, 3}, {1, 3}};
  EXPECT_EQ(*BroadcastShapes(TSR_OP_ADD, z), (Shape{0, 3}));
  const Shape three[] = {{2, 1}, {1, 3}, {1}};
  EXPECT_EQ(*BroadcastShapes(TSR_OP_SELECT, three), (Shape{2, 3}));
}

TEST(BroadcastTest, Strides) {
  EXPECT_EQ(BroadcastStrides({3, 1}, {2, 3, 4}), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(BroadcastStrides({2, 3, 4}, {2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
}

TEST(BroadcastTest, WalkerOffsets) {
  // out [2,3]; a [2,1]; b [3].
  const Shape ins[] = {{2, 1}, {3}};
  BroadcastWalker w({2, 3}, ins);
  std::vector<int64_t> oa, ob, oo;
  w.ForEach([&](int64_t o, const int64_t* off) {
    oo.push_back(o);
    oa.push_back(off[0]);
    ob.push_back(off[1]);
  });
  EXPECT_EQ(oo, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(oa, (std::vector<int64_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(ob, (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
}

TEST(BroadcastTest, WalkerScalarAndEmpty) {
  const Shape ins[] = {{}};
  int calls = 0;
  BroadcastWalker({}, ins).ForEach([&](int64_t, const int64_t* off) {
    EXPECT_EQ(off[0], 0);
    ++calls;
  });
  EXPECT_EQ(calls, 1);
  calls = 0;
  const Shape ins2[] = {{0, 2}};
  BroadcastWalker({0, 2}, ins2).ForEach([&](int64_t, const int64_t*) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace tessera::cpu
