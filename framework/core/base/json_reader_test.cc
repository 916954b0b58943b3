// ParseJson against hand-written documents: RFC 8259's grammar, its
// escapes and surrogate pairs, and the texts it must refuse.
#include "framework/core/base/json_reader.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

TEST(JsonReader, ReadsEveryKindInFileOrder) {
  absl::StatusOr<JsonValue> v =
      ParseJson(R"( {"b": true, "n": -12.5e1, "z": 0, "s": "a\"\\\/\b\f\n\r\t", "a": [null, false, [], {}], "b": 2} )");
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_TRUE(v->is(JsonValue::Kind::kObject));
  ASSERT_EQ(v->members.size(), 6u);
  EXPECT_EQ(v->members[2].key, "z");
  EXPECT_TRUE(v->Find("b")->boolean);  // the first of a repeated name
  EXPECT_EQ(v->Find("n")->number, -125.0);
  EXPECT_EQ(v->Find("s")->string, "a\"\\/\b\f\n\r\t");
  const JsonValue& a = *v->Find("a");
  ASSERT_EQ(a.items.size(), 4u);
  EXPECT_TRUE(a.items[0].is(JsonValue::Kind::kNull));
  EXPECT_TRUE(a.items[1].is(JsonValue::Kind::kBool));
  EXPECT_FALSE(a.items[1].boolean);
  EXPECT_TRUE(a.items[2].is(JsonValue::Kind::kArray));
  EXPECT_TRUE(a.items[3].is(JsonValue::Kind::kObject));
  EXPECT_EQ(v->Find("missing"), nullptr);
}

TEST(JsonReader, DecodesUnicodeEscapesToUtf8) {
  // U+00E9 (2 bytes), U+20AC (3 bytes), U+1F600 as the pair D83D DE00 (4 bytes).
  absl::StatusOr<JsonValue> v = ParseJson(R"("\u00e9\u20AC\ud83d\ude00")");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->string, "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
}

TEST(JsonReader, RefusesWhatTheGrammarDoesNotAllow) {
  for (const char* bad :
       {"",         "{",   "[1,]",  "{\"a\" 1}", "{\"a\":1,}", "01",      "1.",        "1e",          "-",
        "+1",       ".5",  "tru",   "nul",       "\"a",        "\"\\x\"", "\"\\u12\"", "\"\\ud83d\"", "\"\\ude00\"",
        "\"a\nb\"", "1 2", "[1] x", "{'a':1}"}) {
    absl::StatusOr<JsonValue> v = ParseJson(bad);
    EXPECT_FALSE(v.ok()) << bad;
    if (!v.ok()) {
      EXPECT_THAT(v.status().message(), HasSubstr("at byte")) << bad;
    }
  }
  EXPECT_THAT(ParseJson("[1] x").status().message(), HasSubstr("trailing text after the value at byte 4"));
}

TEST(JsonReader, RefusesNestingPast256) {
  EXPECT_TRUE(ParseJson(std::string(256, '[') + std::string(256, ']')).ok());
  EXPECT_FALSE(ParseJson(std::string(258, '[') + std::string(258, ']')).ok());
  // Deep nesting without closers is refused by depth, not by the stack.
  EXPECT_FALSE(ParseJson(std::string(100000, '[')).ok());
}

}  // namespace
}  // namespace tessera
