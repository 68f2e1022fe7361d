#include "cli.h"

#include <boost/program_options.hpp>
#include <sstream>

#include "zcav/base/error.h"
#include "zcav/base/units.h"

namespace zcav {
namespace {

namespace po = boost::program_options;

constexpr const char* kTopHelp = R"(zcav: profile how fast a storage device reads at every position.

Usage:
  zcav profile [DEVICE] [-o DIR]  start here: burst rate, access time, a sweep (quick when
                                a full one would take over an hour; --full), zones, the
                                bus-or-media verdict, plots and reports into one directory
                                (default zcav-profile-NAME); DEVICE defaults to sim:hdd
  zcav sweep DEVICE [options]   read DEVICE from start to end, write MB/s per position
  zcav access DEVICE [options] average access time (random small reads)
  zcav burst DEVICE [options]   burst rate (the drive cache's, i.e. the interface's rate)
  zcav zones FILE... [options]  find the zones (plateaus) in saved results: zcav's raw,
                                CSV or JSON, and classic zcav logs (bonnie++ 1.03, 1.9x, 2.00)
  zcav plot FILE... [-o OUT.png|OUT.svg]  draw saved results with gnuplot: the falloff
                                curve of one file, a comparison of several; writes the
                                editable .gp script and its data beside the image
  zcav report FILE... -o REPORT.md|REPORT.html  a table of the runs (min/max/avg MB/s,
                                zones, ...) and their plots, as Markdown with PNGs beside
                                it or as one self-contained HTML file
  zcav --help | --version
  zcav [classic zcav flags] DEVICE   the classic zcav command line (same as zcav sweep)

DEVICE is a block device (/dev/sdb, /dev/nvme0n1, /dev/sr0, /dev/loop0), a regular
file, or a simulated device: sim:hdd, sim:usb2-hdd, sim:cd, sim:dvd, sim:ssd
(optionally sim:hdd?size=2T&seed=7&noise=0.5%).

Run 'zcav COMMAND --help' (profile, sweep, zones, plot, report) for its options.
Units: MB = 10^6 B, MiB = 2^20 B; sizes accept 4k, 64M, 1G, 1.5T (binary) and 500MB (decimal).
)";

po::options_description ZoneOptionsDescription() {
  po::options_description zones("Zone detection");
  zones.add_options()
      ("sensitivity", po::value<std::string>()->value_name("X"),
       "multiply the segmentation penalty by X: above 1 finds fewer zones, below 1 more "
       "(default 1)")
      ("min-zone", po::value<std::string>()->value_name("N"),
       "shortest zone in blocks (default: max(3, 0.2 % of the blocks))")
      ("media", po::value<std::string>()->value_name("cd|dvd|bd"),
       "optical media: also show X speed (default: guessed from the device, e.g. /dev/sr0)")
      ("bus", po::value<std::string>()->value_name("NAME"),
       "the link the device is read through, for the bus-or-media verdict, when sysfs "
       "cannot tell (a USB bridge often reports wrong): usb1, usb2, usb3, usb3.1, fw400, "
       "fw800, udma33..udma133, sata1, sata2, sata3, sas3..sas12, pcieGxW (e.g. pcie3x4)");
  return zones;
}

void ParseZoneOptions(const po::variables_map& vm, CliOptions& out) {
  if (vm.count("sensitivity")) {
    const std::string text = vm["sensitivity"].as<std::string>();
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || !(v > 0) || v > 1e6) {
      throw Error("invalid sensitivity '" + text + "': must be a number above 0 (1 = default)");
    }
    out.zones.sensitivity = v;
  }
  if (vm.count("min-zone")) out.zones.min_zone_blocks = ParseCount(vm["min-zone"].as<std::string>(), "minimum zone length");
  if (vm.count("bus")) {
    out.bus = vm["bus"].as<std::string>();
    (void)TransportFromName(out.bus);  // bad names are refused here, before any read
  }
  if (vm.count("media")) {
    out.media = ParseMedia(vm["media"].as<std::string>());
    out.media_given = true;
  }
}

po::options_description SweepOptionsDescription() {
  po::options_description modern("Sweep options");
  modern.add_options()
      ("help,h", "show this help")
      ("output,o", po::value<std::string>()->value_name("FILE"),
       "write results to FILE ('-' = stdout, the default); written as a temporary file "
       "renamed at the end")
      ("format", po::value<std::string>()->value_name("FMT"),
       "raw (classic zcav layout, default), csv or json")
      ("block-size", po::value<std::string>()->value_name("SIZE"),
       "bytes per measured block (default: about 1000 blocks over the range, but each at "
       "least the bytes in flight and 100 ms at the start's rate, with at least 64 blocks: "
       "every block timed on its own)")
      ("chunk-size", po::value<std::string>()->value_name("SIZE"),
       "bytes per read call (default: 1M; for SSD/NVMe/virtual disks the largest read the "
       "device takes whole, up to 4M, where it divides the block; the block size if smaller)")
      ("passes", po::value<std::string>()->value_name("N"), "read the range N times (default 1)")
      ("queue-depth", po::value<std::string>()->value_name("N"),
       "chunks in flight at once, 1 to 256 (io_uring; default by device class: 2 for "
       "rotational disks, 16 for SSD/NVMe, 8 MiB worth for virtio disks, 1 for optical "
       "drives, 4 unknown; a loop device as the disk under its file)")
      ("engine", po::value<std::string>()->value_name("NAME"),
       "auto (default: io_uring where the kernel allows it, else pread), io_uring, or pread "
       "(one read at a time, as classic zcav)")
      ("start", po::value<std::string>()->value_name("SIZE"), "first byte to read (default 0)")
      ("end", po::value<std::string>()->value_name("SIZE"),
       "end of the range, exclusive (default: end of the device)")
      ("skip", po::value<std::string>()->value_name("N"),
       "read every Nth block and skip the rest (default 1)")
      ("quick", "read an evenly spaced tenth of the surface (about 1000 points)")
      ("no-warmup", "do not read one untimed chunk before the first timed block")
      ("no-zones", "do not detect zones at the end of the sweep")
      ("resume", po::value<std::string>()->value_name("FILE"),
       "continue the interrupted sweep whose partial result is FILE (zcav raw or JSON, "
       "e.g. out.dat.partial) with the same device and options")
      ("stop-on-error",
       "end the sweep at the first read error (default: retry once, map the unreadable "
       "sectors by bisection and go on)")
      ("slow-factor", po::value<std::string>()->value_name("X"),
       "report chunks more than X times slower than the chunks before them (and over "
       "250 ms) as slow regions; 0 = off (default 10)")
      ("plot", po::value<std::string>()->value_name("DIR"),
       "after the sweep, write the falloff plot into DIR: its data, the gnuplot script "
       "(.gp), a PNG and an SVG")
      ("label", po::value<std::vector<std::string>>()->value_name("L"),
       "the plot's title (default: the device model, or the device name)")
      ("alone-and-together",
       "with several devices: read each alone first, then all together, and say whether "
       "they share a ceiling (a bus, a controller)")
      ("quiet,q", "no progress and no zone table on stderr");
  po::options_description write("Write test (destroys data)");
  write.add_options()
      ("write",
       "measure the sequential WRITE rate by position instead of the read rate: overwrites "
       "the range and DESTROYS ITS DATA. Needs --destroy-data, and on a terminal the device "
       "path typed to confirm. Refused when the device or one of its partitions is mounted, "
       "is swap or is held by another program, and for a regular file zcav did not create")
      ("destroy-data", "consent to --write (or -w) destroying every byte it writes")
      ("create-size", po::value<std::string>()->value_name("SIZE"),
       "with --write: create DEVICE as a new file of SIZE for the test (an existing file is "
       "refused); zcav removes it when it ends");
  // Short-only options are keyed "-b", "-c", ... in the variables_map.
  po::options_description classic("Classic zcav flags (bonnie++ zcav; sizes in MiB)");
  classic.add_options()
      (",b", po::value<std::string>()->value_name("MiB[:chunkMiB]"), "block size [and chunk size] in MiB")
      (",c", po::value<std::string>()->value_name("count"), "number of passes")
      (",r", po::value<std::string>()->value_name("[start:]end"), "range in MiB")
      (",s", po::value<std::string>()->value_name("skip"), "read every skip-th block")
      (",l", po::value<std::vector<std::string>>()->value_name("log"), "output file")
      (",f", po::value<std::vector<std::string>>()->value_name("file"), "device or file to read")
      (",u", po::value<std::string>()->value_name("uid[:gid]"), "ignored (zcav does not change user)")
      (",g", po::value<std::string>()->value_name("gid"), "ignored")
      (",w", "write test, as --write (destroys data: needs --destroy-data)");
  po::options_description all;
  all.add(modern).add(write).add(ZoneOptionsDescription()).add(classic);
  return all;
}

// Classic zcav gives sizes as plain numbers of MiB; a unit suffix is accepted too.
std::uint64_t ParseClassicMiB(const std::string& text, const std::string& what) {
  const bool plain = !text.empty() && text.find_first_not_of("0123456789.") == std::string::npos;
  return plain ? ParseSize(text + "M", what, true) : ParseSize(text, what, true);
}

std::uint32_t ParseCount32(const std::string& text, const std::string& what) {
  return static_cast<std::uint32_t>(ParseCount(text, what));
}

// Parses `args` against `visible` options plus positional arguments collected
// under `positional_name`; no abbreviated long options. Errors name the
// command's help.
po::variables_map ParseArgs(const std::vector<std::string>& args,
                            const po::options_description& visible,
                            const char* positional_name, const char* command) {
  po::options_description hidden;
  hidden.add_options()(positional_name, po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add(positional_name, -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args)
                  .options(all)
                  .positional(positional)
                  .style(po::command_line_style::default_style &
                         ~po::command_line_style::allow_guessing)
                  .run(),
              vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw Error(std::string(e.what()) + " (see 'zcav " + command + " --help')");
  }
  return vm;
}

// zcav sweep --help.
std::string SweepHelp(const po::options_description& desc) {
  std::ostringstream s;
  s << "Usage: zcav sweep DEVICE [options]\n"
    << "       zcav sweep DEVICE1 DEVICE2... -o DIR [--alone-and-together] [options]\n\n"
    << desc << "\n"
    << "Results go to stdout (or -o FILE); progress, notes and errors to stderr.\n"
    << "Several devices are read at the same time, one thread each: DIR gets one result\n"
    << "per device (NAME.dat, .csv or .json; NAME.alone.* when read alone first),\n"
    << "aggregate.dat (each device's and the total MB/s over time) and aggregate.json;\n"
    << "classic 'zcav -l LOG1 -f DEV1 -l LOG2 -f DEV2' writes each result to its log.\n"
    << "Read errors are mapped (retry, bisection to the sector) and read around: every\n"
    << "readable block is measured; the ranges go into the output and the summary.\n"
    << "Exit codes: 0 done, 1 unreadable regions found (or --stop-on-error stopped at one;\n"
    << "data kept), 2 bad input, 3 the device went away (data so far kept), 130 interrupted.\n";
  return s.str();
}

// Classic -b MiB[:chunkMiB] (zcav sweep and zcav profile): block and chunk
// size in MiB, each above zero.
void ParseClassicBlock(const std::string& b, SweepOptions& s) {
  const auto colon = b.find(':');
  s.block_bytes = ParseClassicMiB(b.substr(0, colon), "-b block size");
  if (s.block_bytes == 0) throw Error("invalid -b block size '" + b + "': must be greater than zero");
  if (colon != std::string::npos) {
    s.chunk_bytes = ParseClassicMiB(b.substr(colon + 1), "-b chunk size");
    if (s.chunk_bytes == 0) throw Error("invalid -b chunk size '" + b + "': must be greater than zero");
  }
}

// --write, --destroy-data, --create-size: the write test and its consent.
void ParseWriteTest(const po::variables_map& vm, CliOptions& out) {
  // The write test destroys data: only with the flag that says so.
  out.sweep.write = vm.count("write") > 0 || vm.count("-w") > 0;
  out.destroy_data = vm.count("destroy-data") > 0;
  if (out.sweep.write && !out.destroy_data) {
    throw Error(std::string(vm.count("write") ? "--write" : "-w") +
                " overwrites the device and destroys all data on it: add --destroy-data to go "
                "on (nothing written)");
  }
  if (out.sweep.write && vm.count("resume")) {
    throw Error("--resume continues a read sweep; a write test cannot be resumed (run it again)");
  }
  if (out.destroy_data && !out.sweep.write) {
    throw Error("--destroy-data goes with --write (the write test); without --write zcav only reads");
  }
  if (vm.count("create-size")) {
    if (!out.sweep.write) throw Error("--create-size goes with --write: it creates the file the write test writes");
    out.create_bytes = ParseSize(vm["create-size"].as<std::string>(), "--create-size");
  }
}

// The devices (DEVICE..., classic -f) and where their results go (-o, -l).
void ParseSweepTargets(const po::variables_map& vm, CliOptions& out) {
  std::vector<std::string> devices;
  if (vm.count("device")) devices = vm["device"].as<std::vector<std::string>>();
  if (vm.count("-f")) {
    for (const auto& f : vm["-f"].as<std::vector<std::string>>()) devices.push_back(f);
  }
  if (devices.empty()) throw Error("no device given (usage: zcav sweep DEVICE [options])");
  for (const auto& d : devices) {
    if (d.empty()) throw Error("empty device name");
  }
  out.device = devices[0];
  out.devices = devices;
  out.alone_and_together = vm.count("alone-and-together") > 0;
  if (out.sweep.write && devices.size() > 1) throw Error("--write tests one device at a time");

  std::vector<std::string> outputs;
  if (vm.count("output")) outputs.push_back(vm["output"].as<std::string>());
  std::vector<std::string> logs;
  if (vm.count("-l")) logs = vm["-l"].as<std::vector<std::string>>();
  for (const auto& l : logs) outputs.push_back(l);
  if (devices.size() > 1) {
    // Several devices: -o DIR, or classic -l LOG -f DEVICE pairs.
    if (vm.count("output") && !logs.empty()) throw Error("give -o DIR or -l logs, not both");
    if (!logs.empty() && logs.size() != devices.size()) {
      throw Error(std::to_string(devices.size()) + " devices but " + std::to_string(logs.size()) +
                  " -l logs: give one -l LOG per -f DEVICE, in order");
    }
    if (outputs.empty()) {
      throw Error("several devices: give -o DIR (one result per device and the aggregate go "
                  "there) or one -l LOG per -f DEVICE");
    }
    for (const auto& o : outputs) {
      if (o.empty() || o == "-") {
        throw Error("several devices cannot share stdout: give -o DIR or one -l LOG per device");
      }
    }
    if (!logs.empty()) {
      out.outputs = logs;
    } else {
      out.output = outputs[0];
    }
    if (vm.count("label") && vm["label"].as<std::vector<std::string>>().size() > devices.size()) {
      throw Error("more --label than devices");
    }
  } else {
    if (out.alone_and_together) throw Error("--alone-and-together needs two or more devices");
    if (outputs.size() > 1) throw Error("more than one output file given");
    if (!outputs.empty()) out.output = outputs[0];
  }
  if (out.output.empty()) throw Error("empty output file name (use - for stdout)");
}

// What is read: block and chunk size, passes, skip, the range.
void ParseSweepRange(const po::variables_map& vm, SweepOptions& s) {
  if (vm.count("block-size") && vm.count("-b")) throw Error("give --block-size or -b, not both");
  if (vm.count("block-size")) s.block_bytes = ParseSize(vm["block-size"].as<std::string>(), "block size");
  if (vm.count("chunk-size")) s.chunk_bytes = ParseSize(vm["chunk-size"].as<std::string>(), "chunk size");
  if (vm.count("-b")) ParseClassicBlock(vm["-b"].as<std::string>(), s);
  if (vm.count("passes") && vm.count("-c")) throw Error("give --passes or -c, not both");
  if (vm.count("passes")) s.passes = ParseCount32(vm["passes"].as<std::string>(), "pass count");
  if (vm.count("-c")) s.passes = ParseCount32(vm["-c"].as<std::string>(), "-c count");
  if (vm.count("skip") && vm.count("-s")) throw Error("give --skip or -s, not both");
  if (vm.count("skip")) s.skip = ParseCount32(vm["skip"].as<std::string>(), "skip");
  if (vm.count("-s")) s.skip = ParseCount32(vm["-s"].as<std::string>(), "-s skip");
  if (vm.count("start")) s.start_bytes = ParseSize(vm["start"].as<std::string>(), "range start", true);
  if (vm.count("end")) s.end_bytes = ParseSize(vm["end"].as<std::string>(), "range end");
  if (vm.count("-r")) {
    if (vm.count("start") || vm.count("end")) throw Error("give -r or --start/--end, not both");
    const std::string r = vm["-r"].as<std::string>();
    const auto colon = r.find(':');
    if (colon != std::string::npos) {
      s.start_bytes = ParseClassicMiB(r.substr(0, colon), "-r range start");
      s.end_bytes = ParseClassicMiB(r.substr(colon + 1), "-r range end");
    } else {
      s.end_bytes = ParseClassicMiB(r, "-r range end");
    }
    if (*s.end_bytes == 0) throw Error("invalid -r range '" + r + "': the end must be greater than zero");
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
                  std::to_string(kMaxQueueDepth));
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
      throw Error("invalid engine '" + e + "': auto, io_uring or pread");
    }
  }
  if (vm.count("slow-factor")) {
    const std::string text = vm["slow-factor"].as<std::string>();
    std::size_t used = 0;
    double v = -1;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || !std::isfinite(v) || !(v == 0 || v > 1)) {
      throw Error("invalid slow factor '" + text + "': a number above 1, or 0 to turn it off");
    }
    s.slow_factor = v;
  }
}

void ParseSweep(const std::vector<std::string>& args, CliOptions& out) {
  const po::options_description desc = SweepOptionsDescription();
  const po::variables_map vm = ParseArgs(args, desc, "device", "sweep");
  if (vm.count("help")) {
    out.command = CliOptions::Command::kHelp;
    out.help_text = SweepHelp(desc);
    return;
  }
  out.command = CliOptions::Command::kSweep;
  ParseWriteTest(vm, out);
  ParseSweepTargets(vm, out);
  if (vm.count("format")) out.format = ParseOutputFormat(vm["format"].as<std::string>());
  ParseSweepRange(vm, out.sweep);
  ParseSweepReading(vm, out.sweep);
  if (vm.count("resume")) {
    out.resume_file = vm["resume"].as<std::string>();
    if (out.resume_file.empty()) throw Error("empty --resume file name");
    if (out.devices.size() > 1) throw Error("--resume continues one device's sweep: give one device");
  }
  out.quiet = vm.count("quiet") > 0;
  out.detect_zones = vm.count("no-zones") == 0;
  if (vm.count("plot")) {
    out.plot_dir = vm["plot"].as<std::string>();
    if (out.plot_dir.empty()) throw Error("empty --plot directory");
  }
  if (vm.count("label")) {
    out.labels = vm["label"].as<std::vector<std::string>>();
    if (out.labels.size() > 1 && out.devices.size() == 1) throw Error("zcav sweep takes one --label");
  }
  ParseZoneOptions(vm, out);
  if (vm.count("-u") || vm.count("-g")) {
    out.warnings.push_back("-u/-g ignored: zcav does not change user; run it as a user that can read the device");
  }
}

// zcav access DEVICE / zcav burst DEVICE.
void ParseProbe(const std::vector<std::string>& args, bool access, CliOptions& out) {
  const char* command = access ? "access" : "burst";
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")
      ("output,o", po::value<std::string>()->value_name("FILE"),
       "write the result to FILE ('-' = stdout, the default)")
      ("format", po::value<std::string>()->value_name("FMT"), "text (default) or json")
      ("quiet,q", "no notes on stderr");
  if (access) {
    desc.add_options()
        ("samples", po::value<std::string>()->value_name("N"), "number of random reads (default 1000)")
        ("read-size", po::value<std::string>()->value_name("SIZE"),
         "bytes per read, rounded up to the sector (default 4k)")
        ("seed", po::value<std::string>()->value_name("N"), "seed of the random positions (default 1)");
  } else {
    desc.add_options()
        ("region", po::value<std::string>()->value_name("SIZE"),
         "bytes at the start of the device read again and again (default 512k)")
        ("chunk-size", po::value<std::string>()->value_name("SIZE"), "bytes per read (default 64k)")
        ("repetitions", po::value<std::string>()->value_name("N"), "timed reads of the region (default 200)");
  }
  const po::variables_map vm = ParseArgs(args, desc, "device", command);
  if (vm.count("help")) {
    std::ostringstream s;
    s << "Usage: zcav " << command << " DEVICE [options]\n\n"
      << (access ? "Average access time: small O_DIRECT reads at uniformly random positions;\n"
                   "min/mean/median/p95/max ms and every sample (position, distance, ms).\n"
                 : "Burst (buffered) rate: the first region of the device read again and again, so\n"
                   "the drive answers from its cache and the figure is the interface's rate.\n"
                   "On a device without a cache it is the outer rate less one seek per repetition.\n")
      << "\n" << desc;
    out.command = CliOptions::Command::kHelp;
    out.help_text = s.str();
    return;
  }
  out.command = access ? CliOptions::Command::kAccess : CliOptions::Command::kBurst;
  std::vector<std::string> devices;
  if (vm.count("device")) devices = vm["device"].as<std::vector<std::string>>();
  if (devices.size() != 1) {
    throw Error(devices.empty() ? std::string("no device given (usage: zcav ") + command + " DEVICE)"
                                : "one device at a time, got " + std::to_string(devices.size()));
  }
  out.device = devices[0];
  if (vm.count("output")) out.output = vm["output"].as<std::string>();
  if (out.output.empty()) throw Error("empty output file name (use - for stdout)");
  out.zones_format = vm.count("format") ? vm["format"].as<std::string>() : "text";
  if (out.zones_format != "text" && out.zones_format != "json") {
    throw Error("unknown format '" + out.zones_format + "' (use text or json)");
  }
  out.quiet = vm.count("quiet") > 0;
  if (access) {
    if (vm.count("samples")) out.access.samples = ParseCount32(vm["samples"].as<std::string>(), "sample count");
    if (vm.count("read-size")) out.access.read_bytes = ParseSize(vm["read-size"].as<std::string>(), "read size");
    if (vm.count("seed")) out.access.seed = ParseCount(vm["seed"].as<std::string>(), "seed");
  } else {
    if (vm.count("region")) out.burst.region_bytes = ParseSize(vm["region"].as<std::string>(), "region");
    if (vm.count("chunk-size")) out.burst.chunk_bytes = ParseSize(vm["chunk-size"].as<std::string>(), "chunk size");
    if (vm.count("repetitions")) out.burst.repetitions = ParseCount32(vm["repetitions"].as<std::string>(), "repetitions");
    if (out.burst.chunk_bytes > out.burst.region_bytes) {
      throw Error("chunk size is larger than the region");
    }
  }
}

void ParseZones(const std::vector<std::string>& args, CliOptions& out) {
  po::options_description desc("Options");
  desc.add_options()
      ("help,h", "show this help")
      ("format", po::value<std::string>()->value_name("FMT"), "text (default), csv or json")
      ("output,o", po::value<std::string>()->value_name("FILE"),
       "write the tables to FILE ('-' = stdout, the default)");
  desc.add(ZoneOptionsDescription());
  const po::variables_map vm = ParseArgs(args, desc, "file", "zones");
  if (vm.count("help")) {
    std::ostringstream s;
    s << "Usage: zcav zones FILE... [options]\n\n"
      << "Finds the zones (throughput plateaus) in saved results and names the curve:\n"
      << "zoned, flat, clipped, cav, pcav, zclv, clv or other. FILE is zcav raw, CSV or\n"
      << "JSON output, or a classic zcav log (bonnie++ 1.03, 1.9x, 2.00; '++++' rates are\n"
      << "recomputed from the time column). Rates are MB/s (10^6 B/s), GB = 10^9 B.\n\n"
      << desc;
    out.command = CliOptions::Command::kHelp;
    out.help_text = s.str();
    return;
  }
  out.command = CliOptions::Command::kZones;
  if (vm.count("file")) out.files = vm["file"].as<std::vector<std::string>>();
  if (out.files.empty()) throw Error("no data file given (usage: zcav zones FILE... [options])");
  if (vm.count("format")) {
    out.zones_format = vm["format"].as<std::string>();
    if (out.zones_format != "text" && out.zones_format != "csv" && out.zones_format != "json") {
      throw Error("unknown format '" + out.zones_format + "' for zcav zones (use text, csv or json)");
    }
  }
  if (vm.count("output")) out.output = vm["output"].as<std::string>();
  if (out.output.empty()) throw Error("empty output file name (use - for stdout)");
  ParseZoneOptions(vm, out);
}

void ParsePlot(const std::vector<std::string>& args, CliOptions& out) {
  po::options_description desc("Options");
  desc.add_options()
      ("help,h", "show this help")
      ("output,o", po::value<std::string>()->value_name("OUT.png|OUT.svg"),
       "the image; the .gp script and data files go beside it, named after it (default: "
       "the first FILE's name with .png, or NAME-KIND.png for other kinds, beside it)")
      ("label", po::value<std::vector<std::string>>()->value_name("L"),
       "legend/title of the next FILE, in order (default: device model, else file name)")
      ("kind", po::value<std::string>()->value_name("KIND"),
       "falloff (default for one FILE), comparison (default for several), access, "
       "histogram or concurrent")
      ("quiet,q", "do not say which files were written");
  desc.add(ZoneOptionsDescription());
  const po::variables_map vm = ParseArgs(args, desc, "file", "plot");
  if (vm.count("help")) {
    std::ostringstream s;
    s << "Usage: zcav plot FILE... [-o OUT.png|OUT.svg] [options]\n\n"
      << "Draws saved results (zcav raw, CSV or JSON; classic zcav logs) with gnuplot:\n"
      << "one FILE gives its falloff curve (MB/s against position, the min-max band across\n"
      << "passes, the detected zones labelled, outliers marked), several FILEs a comparison\n"
      << "with the position in % of each device. Beside the image zcav writes NAME.gp and\n"
      << "its data; 'gnuplot NAME.gp' in that directory draws it again after you edit it.\n"
      << "Without gnuplot, zcav writes the script and data and says how to render later.\n"
      << "Units: MB = 10^6 B, GB = 10^9 B.\n\n"
      << desc;
    out.command = CliOptions::Command::kHelp;
    out.help_text = s.str();
    return;
  }
  out.command = CliOptions::Command::kPlot;
  if (vm.count("file")) out.files = vm["file"].as<std::vector<std::string>>();
  if (out.files.empty()) throw Error("no data file given (usage: zcav plot FILE... [-o OUT.png])");
  if (vm.count("label")) out.labels = vm["label"].as<std::vector<std::string>>();
  if (out.labels.size() > out.files.size()) {
    throw Error(std::to_string(out.labels.size()) + " labels for " +
                std::to_string(out.files.size()) + " files: give at most one --label per file");
  }
  if (vm.count("kind")) {
    out.plot_kind = ParsePlotKind(vm["kind"].as<std::string>());
    out.plot_kind_given = true;
  } else {
    out.plot_kind = out.files.size() == 1 ? PlotKind::kFalloff : PlotKind::kComparison;
  }
  if (vm.count("output")) {
    out.output = vm["output"].as<std::string>();
    const auto ends = [&](const std::string& ext) {
      return out.output.size() > ext.size() &&
             out.output.compare(out.output.size() - ext.size(), ext.size(), ext) == 0;
    };
    if (!ends(".png") && !ends(".svg")) {
      throw Error("output '" + out.output + "': the image name must end in .png or .svg");
    }
  }
  out.quiet = vm.count("quiet") > 0;
  ParseZoneOptions(vm, out);
}

void ParseReport(const std::vector<std::string>& args, CliOptions& out) {
  po::options_description desc("Options");
  desc.add_options()
      ("help,h", "show this help")
      ("output,o", po::value<std::string>()->value_name("REPORT.md|REPORT.html"),
       "the report (required): .md = Markdown with the plots as PNG files beside it "
       "(REPORT-N.png and REPORT-N.gp), .html = one self-contained page with inline SVG")
      ("label", po::value<std::vector<std::string>>()->value_name("L"),
       "name of the next FILE in the table and plots, in order (default: device model, "
       "else file name)")
      ("quiet,q", "no notes on stderr");
  desc.add(ZoneOptionsDescription());
  const po::variables_map vm = ParseArgs(args, desc, "file", "report");
  if (vm.count("help")) {
    std::ostringstream s;
    s << "Usage: zcav report FILE... -o REPORT.md|REPORT.html [options]\n\n"
      << "Writes a report of saved results (zcav raw, CSV or JSON; classic zcav logs): a\n"
      << "table with one row per FILE (device, interface, min/max/average MB/s, zones and\n"
      << "curve type, outer/inner ratio, and CPU % or X speed when known), then each FILE's\n"
      << "falloff curve and, for several FILEs, a comparison. Markdown puts the plots\n"
      << "beside the report as PNG files with their gnuplot scripts; HTML is one file with\n"
      << "the plots inline (no scripts, no network), readable on a phone and printable.\n"
      << "Without gnuplot the report is written without images, and zcav says so.\n"
      << "Units: MB = 10^6 B, GB = 10^9 B.\n\n"
      << desc;
    out.command = CliOptions::Command::kHelp;
    out.help_text = s.str();
    return;
  }
  out.command = CliOptions::Command::kReport;
  if (vm.count("file")) out.files = vm["file"].as<std::vector<std::string>>();
  if (out.files.empty()) {
    throw Error("no data file given (usage: zcav report FILE... -o REPORT.md|REPORT.html)");
  }
  if (vm.count("label")) out.labels = vm["label"].as<std::vector<std::string>>();
  if (out.labels.size() > out.files.size()) {
    throw Error(std::to_string(out.labels.size()) + " labels for " +
                std::to_string(out.files.size()) + " files: give at most one --label per file");
  }
  if (!vm.count("output") || vm["output"].as<std::string>().empty() ||
      vm["output"].as<std::string>() == "-") {
    throw Error("no report file given: add -o REPORT.md or -o REPORT.html");
  }
  out.output = vm["output"].as<std::string>();
  out.quiet = vm.count("quiet") > 0;
  ParseZoneOptions(vm, out);
}

void ParseProfileCommand(const std::vector<std::string>& args, CliOptions& out) {
  po::options_description desc("Options");
  desc.add_options()
      ("help,h", "show this help")
      ("output,o", po::value<std::string>()->value_name("DIR"),
       "the directory for the results (created; an existing one is reused, its files "
       "replaced) (default: zcav-profile-NAME in the current directory)")
      ("full", "read every block, however long it takes")
      ("quick", "read an evenly spaced tenth of the surface, however short a full sweep is")
      (",b", po::value<std::string>()->value_name("MiB[:chunkMiB]"),
       "block size [and chunk size] in MiB, as for zcav sweep (default: as zcav sweep's "
       "--block-size)")
      (",c", po::value<std::string>()->value_name("N"),
       "passes of the sweep (default 1; 3 when a full pass takes under 20 s)")
      ("label", po::value<std::vector<std::string>>()->value_name("TEXT"),
       "the plot and report title (default: the device model, or the device name)")
      ("quiet,q", "no progress, notes or summary on stderr (the summary is in DIR/summary.txt)");
  desc.add(ZoneOptionsDescription());
  const po::variables_map vm = ParseArgs(args, desc, "device", "profile");
  if (vm.count("help")) {
    std::ostringstream s;
    s << "Usage: zcav profile [DEVICE] [-o DIR] [options]\n\n"
      << "The one command most people should run. Measures DEVICE (default: the simulated\n"
      << "disk sim:hdd) and writes everything into DIR: the burst rate, the average access\n"
      << "time, a sweep (quick when a full one would take over an hour: an estimate from\n"
      << "reading the first 256 MiB or 2 s says so; --full reads every block), its zones\n"
      << "and the bus-or-media verdict, plots and reports. Files in DIR: profile.json (all\n"
      << "of it; 'zcav zones|plot|report DIR/profile.json' read it), NAME.dat (the classic\n"
      << "raw data), zones.txt, NAME.png/.svg (falloff) and NAME-access.png/.svg (access\n"
      << "times) with their .gp scripts and data, report.html, report.md (with report-1.png\n"
      << "beside it), summary.txt. Every file is written under a temporary name and renamed.\n"
      << "The summary goes to stderr; stdout stays empty. Units: MB = 10^6 B, GB = 10^9 B.\n"
      << "Exit codes: 0 done, 1 read error (what was measured is written, marked partial),\n"
      << "2 bad input (nothing written), 130 interrupted (written so far, marked partial).\n\n"
      << desc;
    out.command = CliOptions::Command::kHelp;
    out.help_text = s.str();
    return;
  }
  out.command = CliOptions::Command::kProfile;
  std::vector<std::string> devices;
  if (vm.count("device")) devices = vm["device"].as<std::vector<std::string>>();
  if (devices.size() > 1) {
    throw Error("one device at a time, got " + std::to_string(devices.size()) +
                " (usage: zcav profile [DEVICE] [-o DIR])");
  }
  out.device = devices.empty() ? "sim:hdd" : devices[0];
  if (out.device.empty()) throw Error("empty device name");
  if (vm.count("output")) {
    out.output = vm["output"].as<std::string>();
    if (out.output.empty() || out.output == "-") {
      throw Error("zcav profile writes a directory: give -o DIR (not '" + out.output + "')");
    }
  }
  if (vm.count("full") && vm.count("quick")) throw Error("give --full or --quick, not both");
  if (vm.count("full")) out.profile_mode = CliOptions::ProfileMode::kFull;
  if (vm.count("quick")) out.profile_mode = CliOptions::ProfileMode::kQuick;
  if (vm.count("-b")) ParseClassicBlock(vm["-b"].as<std::string>(), out.sweep);
  if (vm.count("-c")) {
    out.sweep.passes = ParseCount32(vm["-c"].as<std::string>(), "-c passes");
    out.passes_given = true;
  }
  if (vm.count("label")) {
    out.labels = vm["label"].as<std::vector<std::string>>();
    if (out.labels.size() > 1) throw Error("zcav profile takes one --label");
  }
  out.quiet = vm.count("quiet") > 0;
  ParseZoneOptions(vm, out);
}

}  // namespace

CliOptions ParseCommandLine(int argc, const char* const* argv) {
  CliOptions out;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (int i = 0; i < argc; ++i) out.command_line += (i ? " " : "") + std::string(argv[i]);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    out.command = CliOptions::Command::kHelp;
    out.help_text = kTopHelp;
    return out;
  }
  if (args[0] == "--version" || args[0] == "-V") {
    out.command = CliOptions::Command::kVersion;
    return out;
  }
  if (args[0] == "access" || args[0] == "burst") {
    const bool access = args[0] == "access";
    args.erase(args.begin());
    ParseProbe(args, access, out);
    return out;
  }
  if (args[0] == "zones") {
    args.erase(args.begin());
    ParseZones(args, out);
    return out;
  }
  if (args[0] == "plot") {
    args.erase(args.begin());
    ParsePlot(args, out);
    return out;
  }
  if (args[0] == "report") {
    args.erase(args.begin());
    ParseReport(args, out);
    return out;
  }
  if (args[0] == "profile") {
    args.erase(args.begin());
    ParseProfileCommand(args, out);
    return out;
  }
  if (args[0] == "sweep") {
    args.erase(args.begin());
  } else if (args[0].rfind("--", 0) == 0 && args[0] != "--") {
    // A long option before any command: modern options belong to a command.
    throw Error("unknown option '" + args[0] + "' (commands: profile, sweep, zones, plot, report; see 'zcav --help')");
  }
  // Anything else is the classic zcav command line: flags and a file name.
  ParseSweep(args, out);
  return out;
}

}  // namespace zcav
