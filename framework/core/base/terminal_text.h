// Strings from models and plugins (tensor and graph names, vendors, error
// texts that quote them) reach the user's terminal. A name holding ESC
// sequences could recolour, retitle or rewrite the screen, so the CLI
// prints them only through TerminalSafe.
#ifndef TESSERA_FRAMEWORK_CORE_BASE_TERMINAL_TEXT_H_
#define TESSERA_FRAMEWORK_CORE_BASE_TERMINAL_TEXT_H_

#include <string>
#include "absl/strings/string_view.h"

namespace tessera {

enum class TerminalLayout {
  kName,  // one name: every control character is escaped, \n and \t too
  kText,  // a report: \n and \t stay, every other control character is escaped
};

// `text` with the C0 controls (0x00-0x1f), DEL (0x7f) and the C1 controls
// (U+0080-U+009F in UTF-8, e.g. CSI as C2 9B) written as "\xNN" escapes,
// one per byte; a backslash stays a backslash. Everything else, UTF-8
// included, is unchanged.
std::string TerminalSafe(absl::string_view text, TerminalLayout layout = TerminalLayout::kName);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_BASE_TERMINAL_TEXT_H_
