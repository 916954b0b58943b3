#include "framework/core/base/terminal_text.h"

#include <string>

#include "gtest/gtest.h"

namespace tessera {
namespace {

using namespace std::string_literals;

TEST(TerminalSafe, EscapesEveryControlCharacterOfAName) {
  EXPECT_EQ(TerminalSafe("conv1/weight"), "conv1/weight");
  EXPECT_EQ(TerminalSafe("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(TerminalSafe("a\nb\tc\rd"), "a\\x0ab\\x09c\\x0dd");
  EXPECT_EQ(TerminalSafe("bell\x07"
                         "del\x7f"),
            "bell\\x07del\\x7f");
  EXPECT_EQ(TerminalSafe("nul\0x"s), "nul\\x00x");
}

TEST(TerminalSafe, TextKeepsItsLayout) {
  EXPECT_EQ(TerminalSafe("line 1\n\tline 2\x1b]0;title\x07\n", TerminalLayout::kText),
            "line 1\n\tline 2\\x1b]0;title\\x07\n");
}

TEST(TerminalSafe, EscapesC1ControlsButKeepsOtherUtf8) {
  EXPECT_EQ(TerminalSafe("\xc2\x9b"
                         "2J"),
            "\\xc2\\x9b2J");                                                                          // U+009B, CSI
  EXPECT_EQ(TerminalSafe("caf\xc3\xa9 \xc2\xa0 \xe2\x9c\x93"), "caf\xc3\xa9 \xc2\xa0 \xe2\x9c\x93");  // é, NBSP, ✓
  EXPECT_EQ(TerminalSafe("end\xc2"), "end\xc2");  // a lone lead byte is left
}

}  // namespace
}  // namespace tessera
