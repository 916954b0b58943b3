// The framework's error texts are shared with the CLI and name its flags
// (`--input-shape`, `--policy`). An app never typed a flag: InApiTerms
// names the option it set instead (LoadOptions::input_shapes,
// CompileOptions::policy). FromAbsl applies it to every app status, except
// in the tessera CLI, whose users did type the flags (KeepCliTermsInErrors).
#ifndef TESSERA_FRAMEWORK_APP_API_TERMS_H_
#define TESSERA_FRAMEWORK_APP_API_TERMS_H_

#include <string>
#include <string_view>

namespace tessera::app {

std::string InApiTerms(std::string_view message);

// FromAbsl's translation: InApiTerms, or the message as it is once the
// process has called KeepCliTermsInErrors (the CLI does, before any command).
std::string ErrorTextForApp(std::string_view message);
void KeepCliTermsInErrors();

}  // namespace tessera::app

#endif  // TESSERA_FRAMEWORK_APP_API_TERMS_H_
