// An immutable string whose copies share one buffer: copying costs a
// reference count, not an allocation. It is what a claim's refusal detail
// is: the policy planner gives a partition's ops back with one detail text
// each, and the claims and the plan's refusals copy it per op. With a
// std::string every copy of a million-op partition's detail was a malloc
// and 100-odd bytes; here all the copies point at one buffer.
//
// It reads like a const std::string (it converts to one, and to a
// string_view); it is never modified in place, only reassigned.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_SHARED_TEXT_H_
#define TESSERA_FRAMEWORK_CORE_BASE_SHARED_TEXT_H_

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace tessera {

class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string text)  // NOLINT: implicit, as a std::string field was
      : text_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}
  SharedText(const char* text) : SharedText(std::string(text != nullptr ? text : "")) {}  // NOLINT
  SharedText(std::string_view text) : SharedText(std::string(text)) {}                    // NOLINT

  const std::string& str() const { return text_ != nullptr ? *text_ : Empty(); }
  operator const std::string&() const { return str(); }  // NOLINT: reads as the string it was
  operator std::string_view() const { return str(); }    // NOLINT

  bool empty() const { return text_ == nullptr; }
  size_t size() const { return str().size(); }
  const char* c_str() const { return str().c_str(); }
  size_t find(std::string_view what, size_t from = 0) const { return str().find(what, from); }
  // True when both share one buffer (a copy), not merely equal text.
  bool SharesWith(const SharedText& other) const { return text_ == other.text_; }

  friend bool operator==(const SharedText& a, const SharedText& b) { return a.str() == b.str(); }
  friend bool operator==(const SharedText& a, std::string_view b) { return a.str() == b; }
  friend bool operator==(const SharedText& a, const char* b) { return a.str() == b; }
  friend bool operator==(const SharedText& a, const std::string& b) { return a.str() == b; }
  friend std::ostream& operator<<(std::ostream& os, const SharedText& t) { return os << t.str(); }

 private:
  static const std::string& Empty() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> text_;  // null for ""
};

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_SHARED_TEXT_H_
