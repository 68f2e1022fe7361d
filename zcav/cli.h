// The command line: Boost.Program_options in, a plain CliOptions struct out.
#pragma once

#include <string>
#include <vector>

#include "zcav/sweep.h"
#include "zcav/writers.h"
#include "zcav/zone_detector.h"
#include "zcav/zone_report.h"

namespace zcav {

struct CliOptions {
  enum class Command { kHelp, kVersion, kSweep, kZones };
  Command command = Command::kHelp;
  std::string help_text;        // for kHelp: what to print on stdout
  std::string device;           // path or sim:NAME
  std::string output = "-";     // result file; "-" = stdout. Default: "-"
  OutputFormat format = OutputFormat::kRaw;  // Default: raw (classic zcav layout)
  SweepOptions sweep;           // see sweep.h for each field's default
  bool quiet = false;           // no progress (nor zone table) on stderr. Default: false
  // Zone detection (sweep: at the end, table on stderr and in JSON/raw; zones:
  // on each file).
  bool detect_zones = true;     // sweep --no-zones turns it off. Default: true
  ZoneOptions zones;            // --sensitivity, --min-zone; see zone_detector.h
  bool media_given = false;     // --media given; otherwise guessed from the device name
  Media media = Media::kNone;   // --media cd|dvd|bd: adds X-speed columns. Default: guessed
  // zcav zones: the saved results to analyse and the table format.
  std::vector<std::string> files;
  std::string zones_format = "text";  // text, csv or json. Default: text
  std::string command_line;     // argv joined, for the output header
  std::vector<std::string> warnings;  // things accepted but ignored, for stderr
};

// Parses argv. `zcav sweep DEVICE [options]`, `zcav --help`, `zcav --version`,
// and the classic zcav command lines (`zcav [-b MiB[:chunkMiB]] [-c count]
// [-r [start:]end] [-s skip] [-l log] [-f] file`) with their classic meaning.
// Throws Error(kBadInput) with one line naming the problem.
CliOptions ParseCommandLine(int argc, const char* const* argv);

}  // namespace zcav
