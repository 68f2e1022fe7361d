// The command line: a table of commands (ninja's tools table is the model),
// each row a name, its lines in the top help and the function that parses
// that command's own options and runs it.
#pragma once

#include <atomic>
#include <iosfwd>
#include <string>
#include <vector>

namespace zcav {

// One invocation of a command, as its row's function receives it.
struct Invocation {
  std::vector<std::string> args;  // the arguments after the command's name
  std::string command_line;       // argv joined, for the output header
  std::ostream& out;              // results ("-" outputs) and help text
  std::ostream& err;              // progress, notes, warnings
  const std::atomic<bool>& stop;  // set by Ctrl-C / SIGTERM: finish early, keep the data
};

// A row of the command table. `run` parses inv.args (its --help prints the
// command's help on inv.out and returns 0), then runs the command and
// returns the exit code: 0 ok, 1 runtime failure or read error (data kept),
// 2 bad input (nothing written), 3 device gone, 5 below the --expect
// expectations (kExitBelowExpectations, options.h), 130 interrupted. It throws
// Error for what main turns into an exit code.
struct CommandRow {
  const char* name;
  const char* help;    // its lines in `zcav --help`
  bool reads_devices;  // true: Ctrl-C stops it early (signal handlers installed)
  int (*run)(const Invocation& inv);
};

// The commands, in the order `zcav --help` lists them.
const std::vector<CommandRow>& Commands();

// What argv asks for: `zcav --help`, `zcav --version`, a command of the
// table with its arguments, or the classic zcav command line (anything else
// that does not start with "--"), which is `zcav sweep`. Throws
// Error(kBadInput) for a long option before any command.
struct CommandChoice {
  enum class Kind { kHelp, kVersion, kCommand };
  Kind kind = Kind::kHelp;
  const CommandRow* row = nullptr;  // kCommand: the row to run
  std::vector<std::string> args;    // kCommand: the arguments after its name
};
CommandChoice ChooseCommand(const std::vector<std::string>& args);

// The top-level help (`zcav --help`).
std::string TopHelp();

}  // namespace zcav
