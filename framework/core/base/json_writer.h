// A small streaming JSON writer for the CLI's --json outputs (stable,
// machine-read field names live at the call sites).
#ifndef TESSERA_FRAMEWORK_CORE_BASE_JSON_WRITER_H_
#define TESSERA_FRAMEWORK_CORE_BASE_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Number(double value);  // non-finite values become null
  JsonWriter& Int(int64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // A value that is already JSON (another writer's str(), e.g. the app
  // API's report), written as it is.
  JsonWriter& Raw(std::string_view json);
  // Key + value shorthands.
  JsonWriter& Field(std::string_view key, std::string_view value) { return Key(key).String(value); }
  JsonWriter& Field(std::string_view key, const char* value) { return Key(key).String(value); }
  JsonWriter& Field(std::string_view key, double value) { return Key(key).Number(value); }
  JsonWriter& Field(std::string_view key, int64_t value) { return Key(key).Int(value); }
  JsonWriter& Field(std::string_view key, int value) { return Key(key).Int(value); }
  JsonWriter& Field(std::string_view key, uint32_t value) { return Key(key).Int(value); }
  JsonWriter& Field(std::string_view key, uint64_t value) { return Key(key).Int(static_cast<int64_t>(value)); }
  JsonWriter& Field(std::string_view key, bool value) { return Key(key).Bool(value); }

  const std::string& str() const { return out_; }

 private:
  void BeforeValue();
  void Quote(std::string_view v);
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_JSON_WRITER_H_
