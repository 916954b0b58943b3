#include "framework/cli/cli_args.h"

#include "absl/strings/str_cat.h"

namespace tessera::cli {

absl::StatusOr<Args> Args::Parse(const std::vector<std::string>& argv, const FlagSpec& spec) {
  Args a;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg.size() < 3 || arg.rfind("--", 0) != 0) {
      if (arg.size() > 1 && arg[0] == '-' && arg != "-") {
        if (arg == "-o" && spec.values.count("output")) {
          if (i + 1 >= argv.size()) return absl::InvalidArgumentError("-o needs a value");
          a.flags_["output"].push_back(argv[++i]);
          continue;
        }
        return absl::InvalidArgumentError(absl::StrCat("unknown option '", arg, "'"));
      }
      a.positionals_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2), value;
    bool has_inline = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_inline = true;
    }
    if (spec.switches.count(name)) {
      if (has_inline) return absl::InvalidArgumentError(absl::StrCat("--", name, " takes no value"));
      a.flags_[name].push_back("true");
    } else if (spec.values.count(name) || spec.repeated.count(name)) {
      if (!has_inline) {
        if (i + 1 >= argv.size()) return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
        value = argv[++i];
      }
      if (spec.values.count(name) && a.flags_.count(name))
        return absl::InvalidArgumentError(absl::StrCat("--", name, " given twice"));
      a.flags_[name].push_back(value);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown option '--", name, "'"));
    }
  }
  return a;
}

bool Args::Has(const std::string& flag) const { return flags_.count(flag) > 0; }

std::optional<std::string> Args::Value(const std::string& flag) const {
  auto it = flags_.find(flag);
  if (it == flags_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::string Args::ValueOr(const std::string& flag, const std::string& fallback) const {
  return Value(flag).value_or(fallback);
}

std::vector<std::string> Args::All(const std::string& flag) const {
  auto it = flags_.find(flag);
  return it == flags_.end() ? std::vector<std::string>{} : it->second;
}

}  // namespace tessera::cli
