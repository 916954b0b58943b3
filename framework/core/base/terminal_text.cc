#include "framework/core/base/terminal_text.h"

#include <cstdint>
#include <cstdio>

namespace tessera {
namespace {

void AppendEscaped(std::string& out, uint8_t byte) {
  char buf[5];
  std::snprintf(buf, sizeof(buf), "\\x%02x", byte);
  out += buf;
}

}  // namespace

std::string TerminalSafe(absl::string_view text, TerminalLayout layout) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const uint8_t c = static_cast<uint8_t>(text[i]);
    const bool layout_char = c == '\n' || c == '\t';
    if ((c < 0x20 && !(layout_char && layout == TerminalLayout::kText)) || c == 0x7f) {
      AppendEscaped(out, c);
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<uint8_t>(text[i + 1]) >= 0x80 &&
               static_cast<uint8_t>(text[i + 1]) <= 0x9f) {
      // A C1 control in UTF-8 (terminals honour U+009B as CSI).
      AppendEscaped(out, c);
      AppendEscaped(out, static_cast<uint8_t>(text[++i]));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace tessera
