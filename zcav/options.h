// The option groups several commands share, declared once: each group is a
// plain struct (a command's options struct derives from the groups it takes)
// and a function that describes its flags and one that reads them.
// Boost.Program_options is the parser; private to the zcav executable.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cli.h"
#include "zcav/analysis/expectations.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/format/zone_table.h"
#include "zcav/measure/sweep.h"
#include "zcav/report/plot.h"

namespace zcav {

namespace po = boost::program_options;

// What every command that runs gets from the command line as a whole.
struct RunFlags {
  std::string command_line;           // argv joined, for the output header
  std::vector<std::string> warnings;  // things accepted but ignored, for stderr
};

// --sensitivity, --min-zone, --media, --bus: how zones are found and named.
struct ZoneFlags {
  ZoneOptions zones;           // --sensitivity, --min-zone; see zone_detector.h
  bool media_given = false;    // --media given; otherwise guessed from the device name
  Media media = Media::kNone;  // --media cd|dvd|bd: adds X-speed columns. Default: guessed
  std::string bus;             // --bus NAME (usb2, sata3, ...): the link; empty = from sysfs
};
// An options group titled `caption` that starts with -h/--help.
po::options_description OptionsWithHelp(const char* caption = "Options");
po::options_description ZoneFlagsDescription();
// --expect, --max-errors, --max-time (zcav sweep, zcav profile): a pass/fail
// for scripts, and limits on a sweep of a dying or slow disk. The limits are
// SweepOptions fields (max_errors, max_time; sweep.h).
struct GateFlags {
  // --expect KEY=VALUE[,...] (expectations.h); empty() = no gate. Default: none
  Expectations expectations;
};
// The exit code of a run that ended as it should but is below the
// expectations --expect gave (one line on stderr per unmet expectation).
// Code 3 is a device gone and 4 results kept elsewhere.
inline constexpr int kExitBelowExpectations = 5;
// The exit code of zcav verify when the device is not genuine (fake
// capacity, data loss, unreadable places).
inline constexpr int kExitNotGenuine = 6;
po::options_description GateFlagsDescription();
// Reads the group: the expectations into `out`, the limits into `sweep`.
// Throws Error(kBadInput) for a bad value.
void ParseGateFlags(const po::variables_map& vm, GateFlags& out, SweepOptions& sweep);
// The gate: one "zcav: below expectations: ..." line on `err` per
// expectation `figures` do not meet; returns kExitBelowExpectations when
// there is one, else 0. REQUIRES: !gate.expectations.empty().
int JudgeExpectations(const GateFlags& gate, const ExpectationFigures& figures, std::ostream& err);

// --events FILE|- (zcav sweep, zcav profile): newline-delimited JSON events
// while the run goes on (format/events_writer.h).
struct EventsFlags {
  // --events: the events file ("-" = stdout); empty = none. Written directly
  // (not under a temporary name), so a run killed mid-way leaves what it
  // wrote. Default: none
  std::string events;
};
po::options_description EventsFlagsDescription();
// Reads the group. Throws Error(kBadInput) for an empty name.
void ParseEventsFlags(const po::variables_map& vm, EventsFlags& out);

// LoadPlotInput (plot.h) of each of `files` with its label (none past the
// end of `labels`): every file read before anything is written. Throws Error
// as LoadPlotInput does.
std::vector<PlotInput> LoadPlotInputs(const std::vector<std::string>& files,
                                      const std::vector<std::string>& labels,
                                      const ZoneFlags& flags);
// Reads the group. Throws Error(kBadInput) for a bad value (an unknown bus
// or media name is refused here, before any read).
void ParseZoneFlags(const po::variables_map& vm, ZoneFlags& out);

// Parses `args` against `visible` options plus positional arguments collected
// under `positional_name`; no abbreviated long options. Throws
// Error(kBadInput) naming `command`'s help.
po::variables_map ParseArgs(const std::vector<std::string>& args,
                            const po::options_description& visible, const char* positional_name,
                            const char* command);

// ParseArgs of inv.args; on --help, prints `help_head`, the options and
// `help_tail` on inv.out and returns nullopt.
std::optional<po::variables_map> ParseOrHelp(const Invocation& inv,
                                             const po::options_description& desc,
                                             const char* positional_name, const char* command,
                                             const std::string& help_head,
                                             const std::string& help_tail = "");

// A command of the table: its options parsed by `parse` (nullopt after the
// help was printed: exit 0), then `run` with them.
template <class Options>
int ParseThenRun(const Invocation& inv, std::optional<Options> (*parse)(const Invocation&),
                 int (*run)(const Options&, const Invocation&)) {
  const std::optional<Options> options = parse(inv);
  return options ? run(*options, inv) : 0;
}

// How a command reads its command line: its name (in messages), what its
// positional arguments are called in the variables map, and its help around
// the options.
struct CommandSyntax {
  const char* name;
  const char* positional;
  const char* help_head;
  const char* help_tail = "";
};

// A command of the table built from parts: `describe` gives its options
// (ZoneFlagsDescription added when Options has ZoneFlags), --help prints
// them with the syntax's help, else `read` makes the Options of the parsed
// flags (then ZoneFlags and RunFlags are filled in when Options has them)
// and `run` runs with them. `read` throws Error(kBadInput).
template <class Options>
int ParseThenRun(const Invocation& inv, const CommandSyntax& syntax,
                 po::options_description (*describe)(), Options (*read)(const po::variables_map&),
                 int (*run)(const Options&, const Invocation&)) {
  po::options_description desc = describe();
  if constexpr (std::is_base_of_v<ZoneFlags, Options>) desc.add(ZoneFlagsDescription());
  const std::optional<po::variables_map> vm =
      ParseOrHelp(inv, desc, syntax.positional, syntax.name, syntax.help_head, syntax.help_tail);
  if (!vm) return 0;
  Options options = read(*vm);
  if constexpr (std::is_base_of_v<ZoneFlags, Options>) ParseZoneFlags(*vm, options);
  if constexpr (std::is_base_of_v<RunFlags, Options>) options.command_line = inv.command_line;
  return run(options, inv);
}

// The positional arguments collected under `name` (none: empty).
std::vector<std::string> Positionals(const po::variables_map& vm, const char* name);
// --label L...: one per input at most. Throws Error(kBadInput) for more
// labels than `inputs` files.
std::vector<std::string> LabelsFor(const po::variables_map& vm, std::size_t inputs);
// -o FILE: the value given, else "-" (stdout). Throws Error(kBadInput) for an
// empty name.
std::string OutputOrStdout(const po::variables_map& vm);

// Classic -b MiB[:chunkMiB] (zcav sweep and zcav profile): block and chunk
// size in MiB, each above zero. Throws Error(kBadInput).
void ParseClassicBlock(const std::string& b, SweepOptions& s);
// Classic zcav gives sizes as plain numbers of MiB; a unit suffix is accepted too.
std::uint64_t ParseClassicMiB(const std::string& text, const std::string& what);
// ParseCount (units.h) for 32-bit counts.
std::uint32_t ParseCount32(const std::string& text, const std::string& what);

}  // namespace zcav
