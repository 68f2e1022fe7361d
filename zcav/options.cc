#include "options.h"

#include <ostream>
#include <stdexcept>

#include "zcav/analysis/transport.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"

namespace zcav {

po::options_description OptionsWithHelp(const char* caption) {
  po::options_description desc(caption);
  desc.add_options()("help,h", "show this help");
  return desc;
}

po::options_description ZoneFlagsDescription() {
  po::options_description zones("Zone detection");
  zones.add_options()(
      "sensitivity", po::value<std::string>()->value_name("X"),
      "multiply the segmentation penalty by X: above 1 finds fewer zones, below 1 more "
      "(default 1)")("min-zone", po::value<std::string>()->value_name("N"),
                     "shortest zone in blocks (default: max(3, 0.2 % of the blocks))")(
      "media", po::value<std::string>()->value_name("cd|dvd|bd"),
      "optical media: also show X speed (default: guessed from the device, e.g. /dev/sr0)")(
      "bus", po::value<std::string>()->value_name("NAME"),
      "the link the device is read through, for the bus-or-media verdict, when sysfs "
      "cannot tell (a USB bridge often reports wrong): usb1, usb2, usb3, usb3.1, fw400, "
      "fw800, udma33..udma133, sata1, sata2, sata3, sas3..sas12, pcieGxW (e.g. pcie3x4)");
  return zones;
}

void ParseZoneFlags(const po::variables_map& vm, ZoneFlags& out) {
  if (vm.count("sensitivity")) {
    const std::string text = vm["sensitivity"].as<std::string>();
    const std::optional<double> v = ParseDecimal(text);
    if (!v || !(*v > 0) || *v > 1e6) {
      throw Error("invalid sensitivity '" + text + "': must be a number above 0 (1 = default)",
                  ErrorKind::kBadInput);
    }
    out.zones.sensitivity = *v;
  }
  if (vm.count("min-zone")) {
    out.zones.min_zone_blocks = ParseCount(vm["min-zone"].as<std::string>(), "minimum zone length");
  }
  if (vm.count("bus")) {
    out.bus = vm["bus"].as<std::string>();
    (void)TransportFromName(out.bus);  // bad names are refused here, before any read
  }
  if (vm.count("media")) {
    out.media = ParseMedia(vm["media"].as<std::string>());
    out.media_given = true;
  }
}

po::options_description GateFlagsDescription() {
  po::options_description gate("Gates for scripts (exit code 5 when a run is below expectations)");
  gate.add_options()(
      "expect", po::value<std::string>()->value_name("KEY=VALUE,..."),
      "after the run, exit 5 with one line on stderr per expectation not met: min=MBPS (the "
      "slowest block's median rate at least), avg=MBPS (the average at least), max-slow=N (slow "
      "regions at most), max-unreadable=N (unreadable ranges at most), health=good|suspect "
      "(the health verdict no worse), worst-stall=DURATION (the longest single read or write "
      "call at most, in ms or s: 500ms, 2s), sustained=RATE@WINDOW (the lowest rate over any "
      "WINDOW of the run's requests, after a write sweep's write cache, at least RATE, in MB/s "
      "or MiB/s: 30MB/s@10s); MB = 10^6 B, MiB = 2^20 B. With --expect, unreadable ranges "
      "alone no longer give exit 1: max-unreadable judges them")(
      "max-errors", po::value<std::string>()->value_name("N"),
      "give up on a dying disk after N unreadable ranges (what was read is kept, marked "
      "partial; exit 1)")(
      "max-time", po::value<std::string>()->value_name("DURATION"),
      "stop the sweep once DURATION has passed since it started (e.g. 90s, 10m, 2h): what "
      "was read is written, marked partial; exit 0 unless expectations fail");
  return gate;
}

po::options_description EventsFlagsDescription() {
  po::options_description events("Events for pipelines");
  events.add_options()(
      "events", po::value<std::string>()->value_name("FILE|-"),
      "write newline-delimited JSON events to FILE ('-' = stdout) while the run goes on: "
      "start, pass_start, block, pass_end, unreadable, slow_region, health, zones, done (with "
      "the exit code); one whole line per event, flushed. 'zcav zones|plot|report FILE' read "
      "it, also cut off mid-run");
  return events;
}

void ParseEventsFlags(const po::variables_map& vm, EventsFlags& out) {
  if (!vm.count("events")) return;
  out.events = vm["events"].as<std::string>();
  if (out.events.empty())
    throw Error("empty --events file name (use - for stdout)", ErrorKind::kBadInput);
}

void ParseGateFlags(const po::variables_map& vm, GateFlags& out, SweepOptions& sweep) {
  if (vm.count("expect")) out.expectations = ParseExpectations(vm["expect"].as<std::string>());
  if (out.expectations.sustained) sweep.sustained_window = out.expectations.sustained->window;
  if (vm.count("max-errors")) {
    sweep.max_errors = ParseCount(vm["max-errors"].as<std::string>(), "--max-errors count");
  }
  if (vm.count("max-time"))
    sweep.max_time = ParseDuration(vm["max-time"].as<std::string>(), "--max-time");
}

int JudgeExpectations(const GateFlags& gate, const ExpectationFigures& figures, std::ostream& err) {
  const std::vector<std::string> unmet = UnmetExpectations(gate.expectations, figures);
  for (const std::string& line : unmet) err << "zcav: below expectations: " << line << "\n";
  return unmet.empty() ? 0 : kExitBelowExpectations;
}

std::vector<PlotInput> LoadPlotInputs(const std::vector<std::string>& files,
                                      const std::vector<std::string>& labels,
                                      const ZoneFlags& flags) {
  std::vector<PlotInput> inputs;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string label = i < labels.size() ? labels[i] : std::string();
    inputs.push_back(LoadPlotInput(files[i], label, flags.zones, flags.media_given, flags.media));
  }
  return inputs;
}

po::variables_map ParseArgs(const std::vector<std::string>& args,
                            const po::options_description& visible, const char* positional_name,
                            const char* command) {
  po::options_description hidden;
  hidden.add_options()(positional_name, po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add(positional_name, -1);
  po::variables_map vm;
  try {
    po::store(
        po::command_line_parser(args)
            .options(all)
            .positional(positional)
            .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
            .run(),
        vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw Error(std::string(e.what()) + " (see 'zcav " + command + " --help')",
                ErrorKind::kBadInput);
  }
  return vm;
}

std::optional<po::variables_map> ParseOrHelp(const Invocation& inv,
                                             const po::options_description& desc,
                                             const char* positional_name, const char* command,
                                             const std::string& help_head,
                                             const std::string& help_tail) {
  po::variables_map vm = ParseArgs(inv.args, desc, positional_name, command);
  if (vm.count("help")) {
    inv.out << help_head << desc << help_tail;
    return std::nullopt;
  }
  return vm;
}

std::vector<std::string> Positionals(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::vector<std::string>>() : std::vector<std::string>{};
}

std::vector<std::string> LabelsFor(const po::variables_map& vm, std::size_t inputs) {
  std::vector<std::string> labels;
  if (vm.count("label")) labels = vm["label"].as<std::vector<std::string>>();
  if (labels.size() > inputs) {
    throw Error(std::to_string(labels.size()) + " labels for " + std::to_string(inputs) +
                    " files: give at most one --label per file",
                ErrorKind::kBadInput);
  }
  return labels;
}

std::string OutputOrStdout(const po::variables_map& vm) {
  const std::string output = vm.count("output") ? vm["output"].as<std::string>() : "-";
  if (output.empty())
    throw Error("empty output file name (use - for stdout)", ErrorKind::kBadInput);
  return output;
}

void ParseClassicBlock(const std::string& b, SweepOptions& s) {
  const auto colon = b.find(':');
  s.block_bytes = ParseClassicMiB(b.substr(0, colon), "-b block size");
  if (s.block_bytes == 0)
    throw Error("invalid -b block size '" + b + "': must be greater than zero",
                ErrorKind::kBadInput);
  if (colon != std::string::npos) {
    s.chunk_bytes = ParseClassicMiB(b.substr(colon + 1), "-b chunk size");
    if (s.chunk_bytes == 0)
      throw Error("invalid -b chunk size '" + b + "': must be greater than zero",
                  ErrorKind::kBadInput);
  }
}

std::uint64_t ParseClassicMiB(const std::string& text, const std::string& what) {
  const bool plain = !text.empty() && text.find_first_not_of("0123456789.") == std::string::npos;
  return plain ? ParseSize(text + "M", what, true) : ParseSize(text, what, true);
}

std::uint32_t ParseCount32(const std::string& text, const std::string& what) {
  return static_cast<std::uint32_t>(ParseCount(text, what));
}

}  // namespace zcav
