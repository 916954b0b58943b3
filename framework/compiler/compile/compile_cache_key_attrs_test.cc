// A property of the compile-cache key: for every attribute kind the op set
// has (each TSR_ATTR_* key up to TSR_ATTR_KEY_COUNT_V1_4), two models that
// differ only in that attribute have different content digests, so they
// never share a compiled entry. Each kind is changed in every way it can
// be: present or absent, an int, a float, a list's length, and the same
// values under another key.
#include <string>
#include <vector>

#include "framework/compiler/compile/compile_cache_key.h"
#include "framework/core/model/model_builder.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

Graph OneOp() {
  ModelBuilder b("attrs");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {2, 3});
  b.Output(b.Op(TSR_OP_RELU, {x}));
  return *std::move(b).Build();
}

std::string DigestWith(int32_t key, const Attribute& attr) {
  Graph g = OneOp();
  g.ops[0].attrs[key] = attr;
  return GraphContentDigest(g);
}

TEST(CompileCacheKeyAttributes, EveryAttributeKindChangesTheKey) {
  const std::string none = GraphContentDigest(OneOp());
  ASSERT_EQ(none, GraphContentDigest(OneOp()));  // the digest is a function of the content
  for (int32_t key = TSR_ATTR_UNKNOWN + 1; key < TSR_ATTR_KEY_COUNT_V1_4; ++key) {
    SCOPED_TRACE(testing::Message() << "attribute key " << key);
    const std::string int1 = DigestWith(key, {{1}, {}});
    EXPECT_EQ(int1, DigestWith(key, {{1}, {}}));
    EXPECT_NE(int1, none);                           // present against absent
    EXPECT_NE(DigestWith(key, {{}, {}}), none);      // even when empty
    EXPECT_NE(int1, DigestWith(key, {{2}, {}}));     // another int
    EXPECT_NE(int1, DigestWith(key, {{1, 1}, {}}));  // a longer list
    EXPECT_NE(int1, DigestWith(key, {{}, {1.0f}}));  // the same number as a float
    const std::string f = DigestWith(key, {{}, {0.5f}});
    EXPECT_NE(f, DigestWith(key, {{}, {0.25f}}));       // another float
    EXPECT_NE(f, DigestWith(key, {{}, {-0.5f}}));       // its sign alone
    EXPECT_NE(f, DigestWith(key, {{}, {0.5f, 0.5f}}));  // a longer list
    // The same values under the neighbouring key.
    const int32_t other = key + 1 < TSR_ATTR_KEY_COUNT_V1_4 ? key + 1 : TSR_ATTR_UNKNOWN + 1;
    EXPECT_NE(int1, DigestWith(other, {{1}, {}}));
  }
}

TEST(CompileCacheKeyAttributes, TwoAttributesDoNotBlendIntoOne) {
  // {a: [1], b: [2]} against {a: [1, 2]} and {a: [], b: [1, 2]}: the same
  // numbers in one stream, framed differently.
  Graph two = OneOp(), joined = OneOp(), moved = OneOp();
  two.ops[0].attrs[TSR_ATTR_AXIS] = {{1}, {}};
  two.ops[0].attrs[TSR_ATTR_AXIS + 1] = {{2}, {}};
  joined.ops[0].attrs[TSR_ATTR_AXIS] = {{1, 2}, {}};
  moved.ops[0].attrs[TSR_ATTR_AXIS] = {{}, {}};
  moved.ops[0].attrs[TSR_ATTR_AXIS + 1] = {{1, 2}, {}};
  EXPECT_NE(GraphContentDigest(two), GraphContentDigest(joined));
  EXPECT_NE(GraphContentDigest(two), GraphContentDigest(moved));
  EXPECT_NE(GraphContentDigest(joined), GraphContentDigest(moved));
}

}  // namespace
}  // namespace tessera
