// zcav sweep DEVICE...: its options, and one device swept (several: several.cc).
#include "sweep.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "../app_util.h"
#include "../live.h"
#include "../output_space.h"
#include "../write_confirm.h"
#include "commands.h"
#include "zcav/analysis/adaptive_steps.h"
#include "zcav/analysis/step_origin.h"
#include "zcav/analysis/transport.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/device/device.h"
#include "zcav/format/data_reader.h"
#include "zcav/format/result_size.h"
#include "zcav/format/zone_table.h"
#include "zcav/measure/access.h"
#include "zcav/measure/adaptive.h"
#include "zcav/measure/burst.h"
#include "zcav/measure/cache_recovery.h"
#include "zcav/measure/estimate.h"
#include "zcav/measure/progress.h"
#include "zcav/measure/sample_sink.h"
#include "zcav/pipeline/pass_curves.h"
#include "zcav/pipeline/result_recorder.h"
#include "zcav/pipeline/resume.h"
#include "zcav/pipeline/sweep_chain.h"
#include "zcav/report/plot.h"
#include "zcav/report/report.h"

namespace zcav {
namespace {

po::options_description SweepFlagsDescription() {
  po::options_description modern = OptionsWithHelp("Sweep options");
  modern.add_options()(
      "output,o", po::value<std::string>()->value_name("FILE"),
      "write results to FILE ('-' = stdout, the default); written as a temporary file "
      "renamed at the end; {host}, {serial}, {model}, {wwn}, {device}, {date} and {time} in "
      "FILE are replaced (e.g. -o '{host}-{serial}.json')")(
      "format", po::value<std::string>()->value_name("FMT"),
      "raw (classic zcav layout, default), csv or json")(
      "block-size", po::value<std::string>()->value_name("SIZE"),
      "bytes per measured block (default: about 1000 blocks over the range, but each at "
      "least the bytes in flight and 100 ms at the start's rate, with at least 64 blocks: "
      "every block timed on its own)")(
      "chunk-size", po::value<std::string>()->value_name("SIZE"),
      "bytes per read call (default: 1M; for SSD/NVMe/virtual disks the largest read the "
      "device takes whole, up to 4M, where it divides the block; the block size if smaller)")(
      "passes", po::value<std::string>()->value_name("N"), "read the range N times (default 1)")(
      "queue-depth", po::value<std::string>()->value_name("N"),
      "chunks in flight at once, 1 to 256 (io_uring; default by device class: 2 for "
      "rotational disks, 16 for SSD/NVMe, 8 MiB worth for virtio disks, 1 for optical "
      "drives, 4 unknown; a loop device as the disk under its file)")(
      "engine", po::value<std::string>()->value_name("NAME"),
      "auto (default: io_uring where the kernel allows it, else pread), io_uring, or pread "
      "(one read at a time, as classic zcav)")(
      "start", po::value<std::string>()->value_name("SIZE"), "first byte to read (default 0)")(
      "end", po::value<std::string>()->value_name("SIZE"),
      "end of the range, exclusive (default: end of the device)")(
      "skip", po::value<std::string>()->value_name("N"),
      "read every Nth block and skip the rest (default 1)")(
      "quick", "read an evenly spaced tenth of the surface (about 1000 points)")(
      "adaptive",
      "find the zones from a small share of the surface: a grid of probes (each one untimed "
      "chunk, then timed; --block-size sets their size), then every level change bisected "
      "down to one probe; the result holds the probes (the only data read) and the zones "
      "inferred between them, with each edge's uncertainty")(
      "budget", po::value<std::string>()->value_name("LIMIT"),
      "with --adaptive: stop refining the edges once LIMIT is spent: a time (10m, 30s) or a "
      "share of the range (1%); the edges left open say how wide they are")(
      "grid", po::value<std::string>()->value_name("N"),
      "with --adaptive: probes of the coarse grid, 3 or more (default 200, fewer on a small "
      "range so that the grid reads at most 3.1 % of it)")(
      "no-warmup", "do not read one untimed chunk before the first timed block")(
      "no-zones", "do not detect zones at the end of the sweep")(
      "live",
      "draw the curve while it is measured: in a gnuplot window when there is a display, "
      "else in the terminal (ignored, with a note, when stderr is not a terminal)")(
      "smart",
      "read the drive's SMART data (smartctl --json, from smartmontools) before and after the "
      "sweep: the counters that grew go into the health conclusion and the results")(
      "resume", po::value<std::string>()->value_name("FILE"),
      "continue the interrupted sweep whose partial result is FILE (zcav raw or JSON, "
      "e.g. out.dat.partial) with the same device and options")(
      "stop-on-error",
      "end the sweep at the first read error (default: retry once, map the unreadable "
      "sectors by bisection and go on)")(
      "slow-factor", po::value<std::string>()->value_name("X"),
      "report chunks more than X times slower than the chunks before them (and over "
      "250 ms) as slow regions; 0 = off (default 10)")(
      "plot", po::value<std::string>()->value_name("DIR"),
      "after the sweep, write the falloff plot into DIR: its data, the gnuplot script "
      "(.gp), a PNG and an SVG")(
      "label", po::value<std::vector<std::string>>()->value_name("L"),
      "the plot's title (default: the device model, or the device name)")(
      "alone-and-together",
      "with several devices: read each alone first, then all together, and say whether "
      "they share a ceiling (a bus, a controller)")("quiet,q",
                                                    "no progress and no zone table on stderr");
  po::options_description write("Write test (destroys data)");
  write.add_options()(
      "write",
      "measure the sequential WRITE rate by position instead of the read rate: overwrites "
      "the range and DESTROYS ITS DATA. Needs --destroy-data, and on a terminal the device "
      "path typed to confirm. Refused when the device or one of its partitions is mounted, "
      "is swap, is held by another program or is open in any other process, and for a "
      "regular file zcav did not create")(
      "destroy-data", "consent to --write (or -w) destroying every byte it writes")(
      "force-in-use",
      "with --write: write the block device even while other processes have it (or a "
      "partition) open; without it that is refused, naming them")(
      "create-size", po::value<std::string>()->value_name("SIZE"),
      "with --write: create DEVICE as a new file of SIZE for the test (an existing file is "
      "refused); zcav removes it when it ends")(
      "fill", po::value<std::string>()->value_name("SHARE"),
      "with --write: fill SHARE (1% to 95%) of the free space of the mounted file system DEVICE "
      "is on (DEVICE: a directory, or a new file name) with a new file, written with O_DIRECT "
      "and removed when zcav ends, also on Ctrl-C; refused when it would leave under 10 % of "
      "the file system (at most 256 MiB) free")(
      "discard",
      "with --write on a block device: discard (TRIM) the whole device before the sweep, so "
      "that an SSD starts with empty cells and an empty write cache")(
      "idle-probe", po::value<std::string>()->value_name("DURATION"),
      "with --write, when the sweep found a write cache: wait DURATION idle (30s, 5m), then "
      "write again from the start and say how much of the cache came back");
  // Short-only options are keyed "-b", "-c", ... in the variables_map.
  po::options_description classic("Classic zcav flags (bonnie++ zcav; sizes in MiB)");
  classic.add_options()(",b", po::value<std::string>()->value_name("MiB[:chunkMiB]"),
                        "block size [and chunk size] in MiB")(
      ",c", po::value<std::string>()->value_name("count"), "number of passes")(
      ",r", po::value<std::string>()->value_name("[start:]end"), "range in MiB")(
      ",s", po::value<std::string>()->value_name("skip"), "read every skip-th block")(
      ",l", po::value<std::vector<std::string>>()->value_name("log"), "output file")(
      ",f", po::value<std::vector<std::string>>()->value_name("file"), "device or file to read")(
      ",u", po::value<std::string>()->value_name("uid[:gid]"),
      "ignored (zcav does not change user)")(",g", po::value<std::string>()->value_name("gid"),
                                             "ignored")(
      ",w", "write test, as --write (destroys data: needs --destroy-data)");
  po::options_description all;
  all.add(modern)
      .add(write)
      .add(ZoneFlagsDescription())
      .add(GateFlagsDescription())
      .add(EventsFlagsDescription())
      .add(classic);
  return all;
}

// zcav sweep --help: the usage, the options, then what goes where.
constexpr const char* kSweepHelpHead = R"(Usage: zcav sweep DEVICE [options]
       zcav sweep DEVICE1 DEVICE2... -o DIR [--alone-and-together] [options]

)";
constexpr const char* kSweepHelpTail = R"(
Results go to stdout (or -o FILE); progress, notes and errors to stderr.
Several devices are read at the same time, one thread each: DIR gets one result
per device (NAME.dat, .csv or .json; NAME.alone.* when read alone first),
aggregate.dat (each device's and the total MB/s over time) and aggregate.json;
classic 'zcav -l LOG1 -f DEV1 -l LOG2 -f DEV2' writes each result to its log.
Read errors are mapped (retry, bisection to the sector) and read around: every
readable block is measured; the ranges go into the output and the summary.
Before reading, the output's file system must hold the results (an estimate from
the plan; not for stdout or a device): else exit 2. If writing fails anyway, the
data is written whole to a new file in $TMPDIR (else /tmp) and stderr says where.
Exit codes: 0 done, 1 unreadable regions found (or --stop-on-error stopped at one,
or --max-errors gave up; data kept), 2 bad input (also: too little space for the
results), 3 the device went away (data so far kept), 4 the results could not be
written where asked (data kept elsewhere, stderr says where; wins over 1, 3, 5,
130), 5 below the --expect expectations (with --expect, unreadable regions alone
are judged by max-unreadable, not exit 1), 130 interrupted. A --max-time stop is
exit 0 (data kept, marked partial) unless expectations fail.
)";

// --fill SHARE: "50%" (1 to 95 %) as a fraction.
double ParseFillShare(const std::string& text) {
  const std::string bad = "--fill: '" + text + "' is not a share of the free space from 1% to " +
                          FormatFixed(kMaxFillShare * 100, 0) + "% (e.g. 50%)";
  if (text.size() < 2 || text.back() != '%') throw Error(bad, ErrorKind::kBadInput);
  const std::optional<double> pct = ParseDecimal(text.substr(0, text.size() - 1));
  if (!pct || !(*pct >= 1) || *pct > kMaxFillShare * 100) throw Error(bad, ErrorKind::kBadInput);
  return *pct / 100;
}

// --write, --destroy-data, --create-size, --fill, --discard: the write test
// and its consent.
void ParseWriteTest(const po::variables_map& vm, SweepCommandOptions& out) {
  // The write test destroys data: only with the flag that says so.
  out.sweep.write = vm.count("write") > 0 || vm.count("-w") > 0;
  out.destroy_data = vm.count("destroy-data") > 0;
  if (out.sweep.write && !out.destroy_data) {
    throw Error(std::string(vm.count("write") ? "--write" : "-w") +
                    " overwrites the device and destroys all data on it: add --destroy-data to go "
                    "on (nothing written)",
                ErrorKind::kBadInput);
  }
  if (out.sweep.write && vm.count("resume")) {
    throw Error("--resume continues a read sweep; a write test cannot be resumed (run it again)",
                ErrorKind::kBadInput);
  }
  if (out.destroy_data && !out.sweep.write) {
    throw Error(
        "--destroy-data goes with --write (the write test); without --write zcav only reads",
        ErrorKind::kBadInput);
  }
  out.force_in_use = vm.count("force-in-use") > 0;
  if (out.force_in_use && !out.sweep.write) {
    throw Error(
        "--force-in-use goes with --write (the write test); without --write zcav only "
        "reads",
        ErrorKind::kBadInput);
  }
  if (vm.count("idle-probe")) {
    if (!out.sweep.write) {
      throw Error("--idle-probe goes with --write: it probes the write cache after the sweep",
                  ErrorKind::kBadInput);
    }
    out.idle_probe = ParseDuration(vm["idle-probe"].as<std::string>(), "--idle-probe");
  }
  if (vm.count("create-size")) {
    if (!out.sweep.write)
      throw Error("--create-size goes with --write: it creates the file the write test writes",
                  ErrorKind::kBadInput);
    out.new_file = NewTestFile{ParseSize(vm["create-size"].as<std::string>(), "--create-size")};
  }
  if (vm.count("fill")) {
    if (!out.sweep.write)
      throw Error(
          "--fill goes with --write: it fills free space with the file the write test "
          "writes",
          ErrorKind::kBadInput);
    if (out.new_file) throw Error("give --fill or --create-size, not both", ErrorKind::kBadInput);
    NewTestFile f;
    f.free_share = ParseFillShare(vm["fill"].as<std::string>());
    out.new_file = f;
  }
  out.discard = vm.count("discard") > 0;
  if (out.discard && !out.sweep.write) {
    throw Error(
        "--discard goes with --write: it discards (TRIMs) the device before the write "
        "test",
        ErrorKind::kBadInput);
  }
  if (out.discard && out.new_file) {
    throw Error(
        "--discard discards a whole block device; the file zcav creates is new and "
        "has nothing to discard",
        ErrorKind::kBadInput);
  }
}

// The devices (DEVICE..., classic -f) and where their results go (-o, -l).
void ParseSweepTargets(const po::variables_map& vm, SweepCommandOptions& out) {
  std::vector<std::string> devices;
  if (vm.count("device")) devices = vm["device"].as<std::vector<std::string>>();
  if (vm.count("-f")) {
    for (const auto& f : vm["-f"].as<std::vector<std::string>>()) devices.push_back(f);
  }
  if (devices.empty())
    throw Error("no device given (usage: zcav sweep DEVICE [options])", ErrorKind::kBadInput);
  for (const auto& d : devices) {
    if (d.empty()) throw Error("empty device name", ErrorKind::kBadInput);
  }
  out.device = devices[0];
  out.devices = devices;
  out.alone_and_together = vm.count("alone-and-together") > 0;
  if (out.sweep.write && devices.size() > 1)
    throw Error("--write tests one device at a time", ErrorKind::kBadInput);

  std::vector<std::string> outputs;
  if (vm.count("output")) outputs.push_back(vm["output"].as<std::string>());
  std::vector<std::string> logs;
  if (vm.count("-l")) logs = vm["-l"].as<std::vector<std::string>>();
  for (const auto& l : logs) outputs.push_back(l);
  if (devices.size() > 1) {
    // Several devices: -o DIR, or classic -l LOG -f DEVICE pairs.
    if (vm.count("output") && !logs.empty())
      throw Error("give -o DIR or -l logs, not both", ErrorKind::kBadInput);
    if (!logs.empty() && logs.size() != devices.size()) {
      throw Error(std::to_string(devices.size()) + " devices but " + std::to_string(logs.size()) +
                      " -l logs: give one -l LOG per -f DEVICE, in order",
                  ErrorKind::kBadInput);
    }
    if (outputs.empty()) {
      throw Error(
          "several devices: give -o DIR (one result per device and the aggregate go "
          "there) or one -l LOG per -f DEVICE",
          ErrorKind::kBadInput);
    }
    for (const auto& o : outputs) {
      if (o.empty() || o == "-") {
        throw Error("several devices cannot share stdout: give -o DIR or one -l LOG per device",
                    ErrorKind::kBadInput);
      }
    }
    if (!logs.empty()) {
      out.outputs = logs;
    } else {
      out.output = outputs[0];
    }
    if (vm.count("label") && vm["label"].as<std::vector<std::string>>().size() > devices.size()) {
      throw Error("more --label than devices", ErrorKind::kBadInput);
    }
  } else {
    if (out.alone_and_together)
      throw Error("--alone-and-together needs two or more devices", ErrorKind::kBadInput);
    if (outputs.size() > 1) throw Error("more than one output file given", ErrorKind::kBadInput);
    if (!outputs.empty()) out.output = outputs[0];
  }
  if (out.output.empty())
    throw Error("empty output file name (use - for stdout)", ErrorKind::kBadInput);
}

// What is read: block and chunk size, passes, skip, the range.
void ParseSweepRange(const po::variables_map& vm, SweepOptions& s) {
  if (vm.count("block-size") && vm.count("-b"))
    throw Error("give --block-size or -b, not both", ErrorKind::kBadInput);
  if (vm.count("block-size"))
    s.block_bytes = ParseSize(vm["block-size"].as<std::string>(), "block size");
  if (vm.count("chunk-size"))
    s.chunk_bytes = ParseSize(vm["chunk-size"].as<std::string>(), "chunk size");
  if (vm.count("-b")) ParseClassicBlock(vm["-b"].as<std::string>(), s);
  if (vm.count("passes") && vm.count("-c"))
    throw Error("give --passes or -c, not both", ErrorKind::kBadInput);
  if (vm.count("passes")) s.passes = ParseCount32(vm["passes"].as<std::string>(), "pass count");
  if (vm.count("-c")) s.passes = ParseCount32(vm["-c"].as<std::string>(), "-c count");
  if (vm.count("skip") && vm.count("-s"))
    throw Error("give --skip or -s, not both", ErrorKind::kBadInput);
  if (vm.count("skip")) s.skip = ParseCount32(vm["skip"].as<std::string>(), "skip");
  if (vm.count("-s")) s.skip = ParseCount32(vm["-s"].as<std::string>(), "-s skip");
  if (vm.count("start"))
    s.start_bytes = ParseSize(vm["start"].as<std::string>(), "range start", true);
  if (vm.count("end")) s.end_bytes = ParseSize(vm["end"].as<std::string>(), "range end");
  if (vm.count("-r")) {
    if (vm.count("start") || vm.count("end"))
      throw Error("give -r or --start/--end, not both", ErrorKind::kBadInput);
    const std::string r = vm["-r"].as<std::string>();
    const auto colon = r.find(':');
    if (colon != std::string::npos) {
      s.start_bytes = ParseClassicMiB(r.substr(0, colon), "-r range start");
      s.end_bytes = ParseClassicMiB(r.substr(colon + 1), "-r range end");
    } else {
      s.end_bytes = ParseClassicMiB(r, "-r range end");
    }
    if (*s.end_bytes == 0)
      throw Error("invalid -r range '" + r + "': the end must be greater than zero",
                  ErrorKind::kBadInput);
  }
  s.quick = vm.count("quick") > 0;
}

// How it is read: warm-up, errors, reads in flight, engine, slow regions.
void ParseSweepReading(const po::variables_map& vm, SweepOptions& s) {
  s.warmup = vm.count("no-warmup") == 0;
  s.stop_on_error = vm.count("stop-on-error") > 0;
  if (vm.count("queue-depth")) {
    s.queue_depth = ParseCount32(vm["queue-depth"].as<std::string>(), "queue depth");
    if (s.queue_depth > kMaxQueueDepth) {
      throw Error("invalid queue depth " + std::to_string(s.queue_depth) + ": at most " +
                      std::to_string(kMaxQueueDepth),
                  ErrorKind::kBadInput);
    }
  }
  if (vm.count("engine")) {
    const std::string e = vm["engine"].as<std::string>();
    if (e == "auto") {
      s.engine = ReadEngineChoice::kAuto;
    } else if (e == "io_uring") {
      s.engine = ReadEngineChoice::kIoUring;
    } else if (e == "pread") {
      s.engine = ReadEngineChoice::kPread;
    } else {
      throw Error("invalid engine '" + e + "': auto, io_uring or pread", ErrorKind::kBadInput);
    }
  }
  if (vm.count("slow-factor")) {
    const std::string text = vm["slow-factor"].as<std::string>();
    const std::optional<double> v = ParseDecimal(text);
    if (!v || !(*v == 0 || *v > 1)) {
      throw Error("invalid slow factor '" + text + "': a number above 1, or 0 to turn it off",
                  ErrorKind::kBadInput);
    }
    s.slow_factor = *v;
  }
}

// --adaptive, --budget, --grid, and what they cannot go with.
void ParseAdaptive(const po::variables_map& vm, SweepCommandOptions& out) {
  out.adaptive = vm.count("adaptive") > 0;
  if (!out.adaptive) {
    for (const char* flag : {"budget", "grid"}) {
      if (vm.count(flag)) {
        throw Error(std::string("--") + flag + " goes with --adaptive", ErrorKind::kBadInput);
      }
    }
    return;
  }
  const auto refuse = [](const std::string& what) {
    throw Error("--adaptive " + what, ErrorKind::kBadInput);
  };
  if (out.sweep.write) refuse("measures reads; a write test writes the whole range");
  if (out.devices.size() > 1) refuse("samples one device at a time");
  if (!out.resume_file.empty()) refuse("cannot be resumed: run it again (it is short)");
  if (out.sweep.passes > 1) refuse("reads each probe as often as it needs: drop --passes");
  if (out.sweep.quick || out.sweep.skip > 1) refuse("chooses its own probes: drop --quick/--skip");
  if (out.sweep.max_time.count() > 0) refuse("takes --budget TIME, not --max-time");
  if (out.live) refuse("reads its probes out of order: --live draws a sweep's curve");
  if (!out.detect_zones) refuse("is a search for the zones' edges: drop --no-zones");
  if (out.format == OutputFormat::kCsv) {
    refuse("writes raw or json: CSV has no place for the edges and the inferred zones");
  }
  if (vm.count("grid")) {
    out.grid_probes = ParseCount32(vm["grid"].as<std::string>(), "--grid");
    if (out.grid_probes < 3) refuse("needs a grid of 3 or more probes (--grid)");
  }
  if (vm.count("budget")) {
    const std::string text = vm["budget"].as<std::string>();
    if (!text.empty() && text.back() == '%') {
      const std::optional<double> pct = ParseDecimal(text.substr(0, text.size() - 1));
      if (!pct || !(*pct > 0) || *pct > 100) {
        throw Error("--budget: '" + text + "' is not a share of the range above 0% and up to 100%",
                    ErrorKind::kBadInput);
      }
      out.budget_share = *pct / 100;
    } else {
      out.budget_time = ParseDuration(text, "--budget");
    }
  }
}

// Reads the options; nullopt after printing the help on inv.out.
std::optional<SweepCommandOptions> ParseSweep(const Invocation& inv) {
  SweepCommandOptions out;
  out.command_line = inv.command_line;
  const po::options_description desc = SweepFlagsDescription();
  const std::optional<po::variables_map> parsed =
      ParseOrHelp(inv, desc, "device", "sweep", kSweepHelpHead, kSweepHelpTail);
  if (!parsed) return std::nullopt;
  const po::variables_map& vm = *parsed;
  ParseWriteTest(vm, out);
  ParseSweepTargets(vm, out);
  if (vm.count("format")) out.format = ParseOutputFormat(vm["format"].as<std::string>());
  ParseSweepRange(vm, out.sweep);
  ParseSweepReading(vm, out.sweep);
  if (vm.count("resume")) {
    out.resume_file = vm["resume"].as<std::string>();
    if (out.resume_file.empty()) throw Error("empty --resume file name", ErrorKind::kBadInput);
    if (out.devices.size() > 1)
      throw Error("--resume continues one device's sweep: give one device", ErrorKind::kBadInput);
  }
  out.quiet = vm.count("quiet") > 0;
  out.detect_zones = vm.count("no-zones") == 0;
  out.smart = vm.count("smart") > 0;
  out.live = vm.count("live") > 0;
  if (vm.count("plot")) {
    out.plot_dir = vm["plot"].as<std::string>();
    if (out.plot_dir.empty()) throw Error("empty --plot directory", ErrorKind::kBadInput);
  }
  if (vm.count("label")) {
    out.labels = vm["label"].as<std::vector<std::string>>();
    if (out.labels.size() > 1 && out.devices.size() == 1)
      throw Error("zcav sweep takes one --label", ErrorKind::kBadInput);
  }
  ParseZoneFlags(vm, out);
  ParseGateFlags(vm, out, out.sweep);
  ParseEventsFlags(vm, out);
  ParseAdaptive(vm, out);
  if (!out.events.empty() && out.devices.size() > 1) {
    throw Error("--events follows one device's sweep: give one device", ErrorKind::kBadInput);
  }
  if (out.events == "-" && out.output == "-") {
    throw Error("--events - and the result cannot share stdout: give -o FILE for the result",
                ErrorKind::kBadInput);
  }
  if (!out.events.empty() && out.events != "-" && out.events == out.output) {
    throw Error("--events and -o name the same file: give each its own", ErrorKind::kBadInput);
  }
  if (!out.expectations.empty() && out.devices.size() > 1) {
    throw Error("--expect judges one device's sweep: give one device", ErrorKind::kBadInput);
  }
  const bool per_request = out.expectations.worst_stall || out.expectations.sustained;
  if (per_request && out.adaptive) {
    throw Error("--expect worst-stall and sustained judge every request: --adaptive times probes",
                ErrorKind::kBadInput);
  }
  if (out.expectations.sustained && out.sweep.write && !out.detect_zones) {
    throw Error(
        "--expect sustained on a write sweep counts after the write cache, which the zone "
        "detection finds: drop --no-zones",
        ErrorKind::kBadInput);
  }
  if (vm.count("-u") || vm.count("-g")) {
    out.warnings.push_back(
        "-u/-g ignored: zcav does not change user; run it as a user that can read the device");
  }
  return out;
}

// A resumed sweep reads in the shape its partial run recorded, where the
// command line leaves it open (the default block follows a rate estimate,
// which differs from run to run).
void KeepRecordedShape(const SavedResult& partial, SweepOptions& options) {
  if (!partial.plan) return;
  if (options.block_bytes == 0) options.block_bytes = partial.plan->block_bytes;
  if (options.chunk_bytes == 0) options.chunk_bytes = partial.plan->chunk_bytes;
  if (options.queue_depth == 0 && partial.plan->engine == "io_uring") {
    options.queue_depth = partial.plan->queue_depth;
  }
}

// Says what a user should know before the sweep starts (O_DIRECT refused,
// the device's and the plan's notes).
void SayBeforeSweep(const SweepCommandOptions& options, const RunInfo& run, std::ostream& err) {
  if (!run.device.direct_io) {
    err << "zcav: warning: O_DIRECT refused for " << run.device.path
        << ": reading through the page cache, dropped before each pass; results may include "
           "page-cache effects (use a block device or a file system that supports O_DIRECT)\n";
  }
  if (!options.quiet) {
    for (const auto& n : run.device.notes) err << "zcav: note: " << n << "\n";
    for (const auto& n : run.plan.notes) err << "zcav: note: " << n << "\n";
  }
}

// --resume: the partial result must belong to this sweep (checked before
// anything is written or read). Nothing without --resume.
std::optional<ResumePoint> ResumeFrom(const SweepCommandOptions& options,
                                      const std::optional<SavedResult>& partial, const RunInfo& run,
                                      std::ostream& err) {
  if (options.resume_file.empty()) return std::nullopt;
  std::optional<ResumePoint> resume = PrepareResume(*partial, run.plan, run.device);
  if (!options.quiet) {
    err << "zcav: resuming " << options.resume_file << ": " << resume->samples.size()
        << " samples kept, going on at pass " << resume->pass + 1 << ", block " << resume->block
        << " of " << run.plan.block_count << "\n";
  }
  return resume;
}

// The result file options.output names; none for "-" (stdout).
std::unique_ptr<AtomicFile> OpenResultFile(const SweepCommandOptions& options) {
  if (options.output == "-") return nullptr;
  std::vector<std::string> inputs{options.device};
  if (!options.resume_file.empty()) inputs.push_back(options.resume_file);
  return std::make_unique<AtomicFile>(options.output, inputs);
}

// Draws the sweep's curve (`points`, with `zones` and the drive temperatures
// of `health`) into options.plot_dir.
void PlotSweep(const SweepCommandOptions& options, const RunInfo& run, const SweepResult& result,
               Curve points, Media media, ZoneAnalysis zones, const HealthReport& health,
               const std::optional<AdaptiveResult>& adaptive, std::ostream& err) {
  PlotInput input;
  SavedResult& p = input.profile;
  p = SweepProfile(options.device, "sweep", run, result, std::move(points));
  p.adaptive = adaptive;
  p.plan = run.plan;  // a write sweep's plot says so and marks its cache's cliff
  p.unreadable = result.unreadable;
  p.slow_regions = result.slow_regions;
  p.temperatures = health.temperatures;
  input.media = media;
  input.zones = std::move(zones);
  input.label = !options.labels.empty()   ? options.labels.front()
                : !p.device_model.empty() ? DefaultPlotLabel(p)
                                          : options.device;
  const std::string name = PlotNameFor(options.device);
  WriteAndRender(PlotKind::kFalloff, {input}, options.plot_dir, name,
                 {name + ".png", name + ".svg"}, options.quiet, err);
}

// --idle-probe: after a write sweep that found a cache, waits idle, then
// writes again from the start until the cache's speed ends, and says how
// much came back (cache_recovery.h). None when interrupted or failed.
std::optional<WriteCacheRecovery> ProbeIdleRecovery(const SweepCommandOptions& options,
                                                    const RunInfo& run,
                                                    const WriteCacheAnalysis& cache,
                                                    OpenedDevice& d, const std::atomic<bool>& stop,
                                                    std::ostream& err) {
  const double idle_s = std::chrono::duration<double>(*options.idle_probe).count();
  if (!options.quiet) err << "zcav: idle probe: waiting " << FormatDuration(idle_s) << " idle\n";
  if (!d.Idle(*options.idle_probe, stop)) return std::nullopt;  // interrupted
  CacheRecoveryOptions o;
  o.start_bytes = run.plan.start_bytes;
  o.limit_bytes = cache.size_bytes + cache.size_bytes / 2;
  o.chunk_bytes = std::min<std::uint64_t>(run.plan.block_bytes, 16 * kMiB);
  o.chunk_bytes = std::max<std::uint64_t>(o.chunk_bytes - o.chunk_bytes % run.device.sector_bytes,
                                          run.device.sector_bytes);
  o.cache_threshold_mb_per_s = (cache.in_cache_mb_per_s + cache.after_cache_mb_per_s) / 2;
  const CacheRecovery r = ProbeCacheRecovery(d.device(), d.clock(), o, &stop);
  if (r.error) {
    err << "zcav: idle probe: write failed after " << FormatBytes(r.written_bytes) << ": "
        << r.error.message() << "\n";
    return std::nullopt;
  }
  if (stop.load()) return std::nullopt;
  WriteCacheRecovery out;
  out.idle_seconds = idle_s;
  out.regained_bytes = r.regained_bytes;
  out.probe_bytes = r.written_bytes;
  out.mb_per_s = r.cache_mb_per_s;
  out.at_least = r.limited;
  WriteCacheAnalysis shown = cache;
  shown.recovery = out;
  err << "zcav: write cache " << RecoveryText(shown)
      << (r.regained_bytes > 0 ? " (written at " + FormatFixed(r.cache_mb_per_s, 0) + " MB/s)" : "")
      << "; the probe wrote " << FormatFixed(static_cast<double>(r.written_bytes) / kGB, 2)
      << " GB (GB = 10^9 B)\n";
  return out;
}

// --discard: TRIMs the whole device before the write test; notes it in the
// run's device notes. Throws Error(kBadInput) when the device cannot.
void DiscardBeforeWrite(OpenedDevice& d, DeviceInfo& info, bool quiet, std::ostream& err) {
  const auto t0 = std::chrono::steady_clock::now();
  if (const std::error_code ec = d.device().DiscardAll()) {
    throw Error(
        "--discard: " + info.path + " cannot discard (TRIM): " + ec.message() + "; nothing written",
        ErrorKind::kBadInput);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  info.notes.push_back("discarded (TRIM) from start to end before the write test (--discard)");
  if (!quiet) {
    err << "zcav: discarded " << FormatBytes(info.size_bytes) << " (the whole device) in "
        << FormatFixed(s, 2) << " s\n";
  }
}

// --adaptive: the probes' shape (PlanAdaptive, or --block-size as
// the probe and --chunk-size as its reads, --grid) put into `sweep` as its
// block and chunk, so that PlanSweep picks the engine and depth for them.
AdaptiveOptions AdaptiveShapeFor(const SweepCommandOptions& options, const DeviceInfo& info,
                                 SweepOptions& sweep) {
  const SweepPlan full = PlanSweep(info, sweep);
  AdaptiveOptions a = PlanAdaptive(AdaptiveRequest{.start_bytes = full.start_bytes,
                                                   .end_bytes = full.end_bytes,
                                                   .sector_bytes = info.sector_bytes,
                                                   .expected_mb_per_s = sweep.expected_mb_per_s,
                                                   .max_chunk_bytes = full.chunk_bytes,
                                                   .probe_bytes = options.sweep.block_bytes,
                                                   .chunk_bytes = options.sweep.chunk_bytes,
                                                   .grid_probes = options.grid_probes,
                                                   .budget_share = options.budget_share,
                                                   .budget_time = options.budget_time});
  sweep.block_bytes = a.probe_bytes;
  sweep.chunk_bytes = a.chunk_bytes;
  return a;
}

// --adaptive on a device so fast that its probe reads in under 2 ms at the
// start's rate (a RAM disk, a small NVMe namespace): a note that the probes
// are too short to time (the timer's and the scheduler's jitter, and a CPU's
// caches serving a probe read again, move them by tens of %) and that a full
// sweep takes little longer. Nothing when the rate is not known.
std::optional<std::string> ShortProbeNote(const AdaptiveOptions& a, const RunInfo& run,
                                          double mb_per_s) {
  constexpr double kMinProbeSeconds = 0.002;
  if (!(mb_per_s > 0)) return std::nullopt;
  const double probe_s = static_cast<double>(a.probe_bytes) / (mb_per_s * kMB);
  if (probe_s >= kMinProbeSeconds) return std::nullopt;
  const double full_s =
      static_cast<double>(run.plan.end_bytes - run.plan.start_bytes) / (mb_per_s * kMB);
  return "adaptive probes of " + ExactBinarySize(a.probe_bytes) + " read in " +
         FormatFixed(probe_s * 1e3, 2) + " ms at the start's " + FormatFixed(mb_per_s, 0) +
         " MB/s: too short to time (a CPU's caches serve a probe read again); a full sweep of " +
         "the range takes about " + FormatFixed(full_s, 1) + " s (without --adaptive)";
}

// Opens the device to sweep; for the write test, after the user's consent
// (write_confirm.h; throws Error when it is not given), before anything is
// written, --discard included.
void OpenSweepTarget(const SweepCommandOptions& given, OpenedDevice& d, std::ostream& err) {
  if (!given.sweep.write) {
    d.Open(given.device);
    return;
  }
  d.OpenForWrite(given.device, given.new_file, given.force_in_use);
  ConfirmWrite(d.device().info(), given.device,
               isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1, given.force_in_use,
               std::cin, err);
}

// -o and --events may name the drive: {serial}, {host}, ... (fleets).
SweepCommandOptions WithDriveNames(const SweepCommandOptions& given, const DeviceInfo& info) {
  SweepCommandOptions options = given;
  options.output = ExpandOutputName(given.output, info);
  if (!given.events.empty() && given.events != "-") {
    options.events = ExpandOutputName(given.events, info);
  }
  return options;
}

// The command's exit code: the sweep's, or 4 when the result was kept
// elsewhere; a sweep that ran to its end (or its time limit) is judged by
// --expect alone, its unreadable ranges too (max-unreadable); its sustained
// rate after `write_cache` (the zone context's, for a write sweep).
int SweepCommandCode(const SweepCommandOptions& options, const RunInfo& run,
                     const SweepResult& result, const ResultPlace& place,
                     const HealthReport& health,
                     const std::optional<WriteCacheAnalysis>& write_cache, std::ostream& err) {
  const int sweep_code =
      SweepExitCode(result, run, place.where.empty() ? "nowhere" : place.where, err);
  if (place.failed) {
    return SayKept(options.output == "-" ? "stdout" : options.output, place.reason, place.where,
                   err);
  }
  const bool ran_to_end =
      result.status == SweepStatus::kComplete || result.status == SweepStatus::kTimeLimit;
  if (options.expectations.empty() || !ran_to_end) return sweep_code;
  ExpectationFigures figures = FiguresOf(result, write_cache);
  figures.health_verdict = HealthVerdictName(health.health.verdict);
  return JudgeExpectations(options, figures, err);
}

// One device swept (several: RunSeveralSweeps).
int RunSweep(const SweepCommandOptions& given, const Invocation& inv) {
  std::ostream& err = inv.err;
  const std::atomic<bool>& stop_requested = inv.stop;
  if (given.devices.size() > 1) return RunSeveralSweeps(given, inv.out, err, stop_requested);
  for (const auto& w : given.warnings) err << "zcav: warning: " << w << "\n";
  OpenedDevice d;
  OpenSweepTarget(given, d, err);
  DeviceInfo info = d.device().info();
  if (given.discard) DiscardBeforeWrite(d, info, given.quiet, err);
  const SweepCommandOptions options = WithDriveNames(given, info);
  // The default block size follows a short estimate of the start's rate
  // (WithStartRate); a resumed sweep keeps the shape its partial run had.
  std::optional<SavedResult> partial;
  SweepOptions sweep_options = options.sweep;
  if (!options.resume_file.empty()) {
    partial = ReadProfile(options.resume_file);
    KeepRecordedShape(*partial, sweep_options);
  }
  // Before anything is read: the plan without the start's rate has at
  // least as many blocks as the one with it.
  CheckOutputSpace(options.output,
                   EstimateResultBytes(options.format, PlanSweep(info, sweep_options)),
                   "the results");
  if (options.resume_file.empty()) {
    sweep_options = WithStartRate(d.device(), d.clock(), sweep_options, &stop_requested);
  }
  std::optional<AdaptiveOptions> adaptive;
  if (options.adaptive) adaptive = AdaptiveShapeFor(options, info, sweep_options);
  RunInfo run = NewRunInfo(info, PlanSweep(info, sweep_options), options.command_line);
  if (adaptive) {
    if (auto note = ShortProbeNote(*adaptive, run, sweep_options.expected_mb_per_s)) {
      run.plan.notes.push_back(std::move(*note));
    }
  }
  SayBeforeSweep(options, run, err);

  const std::optional<ResumePoint> resume = ResumeFrom(options, partial, run, err);
  std::unique_ptr<AtomicFile> file = OpenResultFile(options);
  std::ostream& result_stream = file ? file->stream() : inv.out;
  // A failed write does not end the sweep: the result is kept in memory and
  // written elsewhere at the end (FinishResult).
  SweepChainSpec spec;
  spec.writers = {{options.format, &result_stream, file != nullptr && file->seekable()}};
  spec.record = true;
  spec.keep_curve = !options.plot_dir.empty();
  spec.media = options.media_given ? options.media : GuessMedia(options.device);
  if (options.live) {
    spec.live = MakeLiveView(options.labels.empty() ? options.device : options.labels.front(),
                             d.steady_clock(), options.zones, spec.media != Media::kNone, err);
  }
  std::vector<std::string> inputs{options.device};
  if (!options.resume_file.empty()) inputs.push_back(options.resume_file);
  EventsOutput events(options.events, inv.out, inputs);
  if (events.sink() != nullptr) spec.observers.push_back(events.sink());
  const bool tty = isatty(STDERR_FILENO) == 1;
  if (adaptive && !options.quiet) {
    adaptive->progress = AdaptiveProgressLine(err, tty, run.plan.end_bytes - run.plan.start_bytes);
  } else if (!options.quiet && !DrawsInTerminal(spec.live.get())) {
    // Progress is paced in real time, also for a simulated device.
    spec.progress_out = &err;
    spec.progress_clock = &d.steady_clock();
    spec.progress_tty = tty;
  }
  spec.transport =
      options.bus.empty() ? TransportFromDevice(run.device) : TransportFromName(options.bus);
  // With 2+ passes, steps that follow the time, not the position, are merged
  // away before the writers see the zones (step_origin.h).
  spec.detect_zones = options.detect_zones;
  spec.zones = options.zones;
  spec.zones.blur_blocks = BlockTimingOf(run.plan).blur_blocks();
  spec.health = HealthSourcesFor(d.device(), options.smart);
  const Media media = spec.media;
  SweepChain chain(std::move(spec));
  if (options.idle_probe && chain.zones() != nullptr) {
    chain.zones()->ProbeWriteCacheWith([&](const WriteCacheAnalysis& cache) {
      return ProbeIdleRecovery(options, run, cache, d, stop_requested, err);
    });
  }
  const SweepResult result =
      adaptive
          ? chain.RunAdaptive(d.device(), run, d.clock(), *adaptive, &stop_requested)
          : chain.Run(d.device(), run, d.clock(), &stop_requested, resume ? &*resume : nullptr);
  if (adaptive && !options.quiet && tty) err << "\n";  // below the progress line
  if (DrawsInTerminal(chain.live())) err << "\n";      // below the chart
  const ResultPlace place = FinishResult(options.output, options.format, file, chain.guard(0),
                                         chain.recorder(), result.partial(), inv.out);
  // The partial result this run completed is not needed any more.
  if (file && !place.failed && !result.partial() &&
      options.resume_file == options.output + ".partial") {
    std::remove(options.resume_file.c_str());
  }
  if (options.detect_zones && !options.quiet && result.blocks_measured > 0) {
    err << FormatZoneTable(chain.analysis(), chain.context());
  }
  if (!options.quiet) SayHealth(chain.health()->report(), err);
  if (options.idle_probe && !result.partial() && options.detect_zones &&
      !chain.context().write_cache) {
    err << "zcav: note: --idle-probe: the sweep found no write cache to probe\n";
  }
  if (!options.plot_dir.empty() && !chain.curve().points.empty()) {
    PlotSweep(options, run, result, std::move(chain.curve().points), media, chain.analysis(),
              chain.health()->report(),
              chain.zones() != nullptr ? chain.zones()->adaptive() : std::nullopt, err);
  }
  const int code = SweepCommandCode(options, run, result, place, chain.health()->report(),
                                    chain.context().write_cache, err);
  events.Exit(code, err);
  return code;
}

}  // namespace

int SweepCommand(const Invocation& inv) { return ParseThenRun(inv, ParseSweep, RunSweep); }

}  // namespace zcav
