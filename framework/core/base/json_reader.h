// A strict RFC 8259 JSON reader into a small tree: what tests use to check
// the JSON the CLI and the app library write (reports, Chrome traces) as
// data, field by field, rather than by searching the text.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_JSON_READER_H_
#define TESSERA_FRAMEWORK_CORE_BASE_JSON_READER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tessera {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  // An object's member. Declared here, defined below: a vector may hold an
  // incomplete type, a std::pair may not (clang rejects
  // pair<string, JsonValue> inside JsonValue; the fuzz build uses clang).
  struct Member;
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> items;  // kArray
  std::vector<Member> members;   // kObject, in file order

  // The member named `key` of an object (the first, if repeated), or null.
  const JsonValue* Find(std::string_view key) const;
  bool is(Kind k) const { return kind == k; }
};

struct JsonValue::Member {
  std::string key;
  JsonValue value;
};

// The whole of `text` as one JSON value. Refuses, with the byte offset:
// trailing text, bad escapes, unpaired surrogates, leading zeros, control
// characters in strings, and nesting deeper than 256.
absl::StatusOr<JsonValue> ParseJson(std::string_view text);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_JSON_READER_H_
