// The command line: Boost.Program_options in, a plain CliOptions struct out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zcav/io/plot.h"
#include "zcav/measure/access.h"
#include "zcav/measure/burst.h"
#include "zcav/measure/sweep.h"
#include "zcav/io/writers.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/io/zone_report.h"

namespace zcav {

struct CliOptions {
  // kReport: zcav report FILE... -o REPORT.md|REPORT.html [--label L]...; uses
  // files, labels, output, zones and media below.
  enum class Command { kHelp, kVersion, kSweep, kAccess, kBurst, kZones, kPlot, kReport, kProfile };
  Command command = Command::kHelp;
  std::string help_text;        // for kHelp: what to print on stdout
  std::string device;           // path or sim:NAME
  // sweep: every device given, in order (devices[0] == device). Several are
  // read at the same time, one thread each; output is then a directory.
  std::vector<std::string> devices;
  // sweep with several devices in classic form: one -l LOG per -f DEVICE, in
  // order. Empty = results into the directory `output`.
  std::vector<std::string> outputs;
  // sweep with several devices: read each alone first, then all together.
  // Default: false
  bool alone_and_together = false;
  // sweep --resume FILE: continue the interrupted sweep whose partial result
  // FILE is (same device and options). Default: none
  std::string resume_file;
  std::string output = "-";     // result file; "-" = stdout. Default: "-"
  OutputFormat format = OutputFormat::kRaw;  // Default: raw (classic zcav layout)
  SweepOptions sweep;           // see sweep.h for each field's default
  // sweep --write (sweep.write) or classic -w is refused without --destroy-data.
  bool destroy_data = false;    // --destroy-data: consent to the write test. Default: false
  // sweep --write --create-size SIZE FILE: FILE is created (it must not exist)
  // for the test. Default: none (a regular file is then refused).
  std::optional<std::uint64_t> create_bytes;
  bool quiet = false;           // no progress (nor zone table) on stderr. Default: false
  // Zone detection (sweep: at the end, table on stderr and in JSON/raw; zones:
  // on each file).
  bool detect_zones = true;     // sweep --no-zones turns it off. Default: true
  ZoneOptions zones;            // --sensitivity, --min-zone; see zone_detector.h
  bool media_given = false;     // --media given; otherwise guessed from the device name
  Media media = Media::kNone;   // --media cd|dvd|bd: adds X-speed columns. Default: guessed
  // zcav access / zcav burst (see access.h, burst.h for the defaults).
  AccessOptions access;
  BurstOptions burst;
  std::string bus;              // --bus NAME (usb2, sata3, ...): the link; empty = from sysfs
  // zcav profile [DEVICE] [-o DIR]: device defaults to sim:hdd; output is the
  // directory ("-" = zcav-profile-NAME); sweep, zones, media, bus, labels,
  // quiet as for sweep. kAuto: quick when a full sweep would take over 1 h.
  enum class ProfileMode { kAuto, kFull, kQuick };
  ProfileMode profile_mode = ProfileMode::kAuto;  // --full, --quick. Default: kAuto
  // profile -c N given; otherwise a device read in full in a few seconds is
  // read over 3 passes (see profile.cc). Default: false
  bool passes_given = false;
  // zcav zones: the saved results to analyse and the table format.
  std::vector<std::string> files;
  std::string zones_format = "text";  // text, csv or json. Default: text
  // zcav plot FILE... (output: -o IMAGE, .png or .svg; "-" = FIRST_FILE's name
  // with .png, or -comparison.png etc. for other kinds, beside it) and
  // zcav sweep --plot DIR.
  bool plot_kind_given = false;  // --kind given
  PlotKind plot_kind = PlotKind::kFalloff;  // Default: falloff for one file, comparison for several
  std::vector<std::string> labels;  // --label, one per file in order. Default: device model or file name
  std::string plot_dir;  // sweep --plot DIR: data, .gp, PNG and SVG there. Default: none
  std::string command_line;     // argv joined, for the output header
  std::vector<std::string> warnings;  // things accepted but ignored, for stderr
};

// Parses argv. `zcav profile [DEVICE] [-o DIR]`, `zcav sweep DEVICE [options]`, `zcav zones FILE...`,
// `zcav plot FILE...`, `zcav --help`, `zcav --version`,
// and the classic zcav command lines (`zcav [-b MiB[:chunkMiB]] [-c count]
// [-r [start:]end] [-s skip] [-l log] [-f] file`) with their classic meaning.
// Throws Error(kBadInput) with one line naming the problem.
CliOptions ParseCommandLine(int argc, const char* const* argv);

}  // namespace zcav
