#include "framework/core/base/shared_text.h"

#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace tessera {
namespace {

TEST(SharedText, ReadsAsTheStringItWasMadeFrom) {
  const SharedText t = std::string("partition of 3 ops");
  EXPECT_EQ(t, "partition of 3 ops");
  EXPECT_EQ(t, std::string("partition of 3 ops"));
  EXPECT_EQ(t.size(), 18u);
  EXPECT_NE(t.find("3 ops"), std::string::npos);
  const std::string& s = t;
  EXPECT_EQ(s, "partition of 3 ops");
  const std::string_view v = t;
  EXPECT_EQ(v, "partition of 3 ops");
  std::ostringstream os;
  os << t;
  EXPECT_EQ(os.str(), "partition of 3 ops");
}

TEST(SharedText, EmptyHoldsNoBuffer) {
  const SharedText a, b = "", c = std::string();
  EXPECT_TRUE(a.empty());
  EXPECT_TRUE(b.empty());
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(a, "");
  EXPECT_EQ(a.str(), std::string());
  EXPECT_STREQ(a.c_str(), "");
  EXPECT_TRUE(a.SharesWith(b));  // both null
  const SharedText null_pointer = static_cast<const char*>(nullptr);
  EXPECT_TRUE(null_pointer.empty());
}

TEST(SharedText, CopiesShareOneBufferAndReassignmentLeavesOthersAlone) {
  SharedText a = "given back: not profitable";
  SharedText b = a;
  EXPECT_TRUE(a.SharesWith(b));
  EXPECT_EQ(&a.str(), &b.str());
  const SharedText equal_text = "given back: not profitable";
  EXPECT_EQ(a, equal_text);
  EXPECT_FALSE(a.SharesWith(equal_text));
  b = std::string("something else");
  EXPECT_EQ(a, "given back: not profitable");
  EXPECT_EQ(b, "something else");
}

}  // namespace
}  // namespace tessera
