// The `tessera` subcommands. Each takes the arguments after its name and
// returns the process exit code: 0 success, 1 failure, 2 usage error.
#ifndef TESSERA_FRAMEWORK_CLI_COMMANDS_H_
#define TESSERA_FRAMEWORK_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace tessera::cli {

using Argv = std::vector<std::string>;

int PluginsCommand(const Argv& argv);
int InspectCommand(const Argv& argv);
int PartitionCommand(const Argv& argv);
int CompileCommand(const Argv& argv);
int RunCommand(const Argv& argv);
int DemoCommand(const Argv& argv);
int BenchCommand(const Argv& argv);
int ImportCommand(const Argv& argv);
int OnnxTestCommand(const Argv& argv);

}  // namespace tessera::cli

#endif  // TESSERA_FRAMEWORK_CLI_COMMANDS_H_
