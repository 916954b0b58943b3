// Command-line parsing for the `tessera` subcommands: positionals plus
// `--flag value` / `--flag=value`, with every flag declared up front so a
// typo is an error rather than silently ignored.
#ifndef TESSERA_FRAMEWORK_CLI_CLI_ARGS_H_
#define TESSERA_FRAMEWORK_CLI_CLI_ARGS_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tessera::cli {

struct FlagSpec {
  std::set<std::string> switches;   // flags without a value, e.g. "json"
  std::set<std::string> values;     // flags with one value
  std::set<std::string> repeated;   // flags that may repeat, e.g. "option"
};

class Args {
 public:
  static absl::StatusOr<Args> Parse(const std::vector<std::string>& argv, const FlagSpec& spec);

  const std::vector<std::string>& positionals() const { return positionals_; }
  bool Has(const std::string& flag) const;
  std::optional<std::string> Value(const std::string& flag) const;
  std::string ValueOr(const std::string& flag, const std::string& fallback) const;
  std::vector<std::string> All(const std::string& flag) const;

 private:
  std::vector<std::string> positionals_;
  std::map<std::string, std::vector<std::string>> flags_;
};

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_CLI_ARGS_H_
