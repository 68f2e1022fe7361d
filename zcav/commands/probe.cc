// zcav access DEVICE and zcav burst DEVICE: the two probes of a drive's
// mechanics and cache, each as a table or JSON.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../app_util.h"
#include "../options.h"
#include "../write_confirm.h"
#include "commands.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/format/profile_json.h"
#include "zcav/format/writers.h"
#include "zcav/measure/access.h"
#include "zcav/measure/burst.h"
#include "zcav/measure/random_access.h"

namespace zcav {
namespace {

// What the two probes share.
struct ProbeFlags {
  std::string device;
  std::string output = "-";     // -o FILE; "-" = stdout. Default: "-"
  std::string format = "text";  // --format text or json. Default: text
  bool quiet = false;           // -q: no notes on stderr. Default: false
};
struct AccessCommandOptions : ProbeFlags {
  AccessOptions access;  // --samples, --read-size, --seed; see access.h
  // --sizes, --queue-depth, --cell-time: random access by size and depth
  // (random_access.h) instead of the access time. Default: not given
  std::optional<RandomAccessOptions> grid;
  // --write --destroy-data [--create-size SIZE]: random writes (grid only),
  // under the write test's rules (OpenDeviceForWrite, ConfirmWrite).
  bool destroy_data = false;
  bool force_in_use = false;  // --force-in-use: write a device others have open. Default: false
  std::optional<NewTestFile> new_file;
};
struct BurstCommandOptions : ProbeFlags {
  BurstOptions burst;  // --region, --chunk-size, --repetitions; see burst.h
};

po::options_description ProbeFlagsDescription() {
  po::options_description desc = OptionsWithHelp();
  desc.add_options()("output,o", po::value<std::string>()->value_name("FILE"),
                     "write the result to FILE ('-' = stdout, the default)")(
      "format", po::value<std::string>()->value_name("FMT"), "text (default) or json")(
      "quiet,q", "no notes on stderr");
  return desc;
}

// Parses the shared flags of `command` into `out`; false after printing the
// help (`about` and the options) on inv.out.
bool ParseProbeFlags(const Invocation& inv, const char* command, const char* about,
                     const po::options_description& desc, po::variables_map& vm, ProbeFlags& out) {
  const std::optional<po::variables_map> parsed =
      ParseOrHelp(inv, desc, "device", command,
                  "Usage: zcav " + std::string(command) + " DEVICE [options]\n\n" + about + "\n");
  if (!parsed) return false;
  vm = *parsed;
  const std::vector<std::string> devices = Positionals(vm, "device");
  if (devices.size() != 1) {
    throw Error(devices.empty()
                    ? std::string("no device given (usage: zcav ") + command + " DEVICE)"
                    : "one device at a time, got " + std::to_string(devices.size()),
                ErrorKind::kBadInput);
  }
  out.device = devices[0];
  out.output = OutputOrStdout(vm);
  out.format = vm.count("format") ? vm["format"].as<std::string>() : "text";
  if (out.format != "text" && out.format != "json") {
    throw Error("unknown format '" + out.format + "' (use text or json)", ErrorKind::kBadInput);
  }
  out.quiet = vm.count("quiet") > 0;
  return true;
}

std::vector<std::string> SplitList(const std::string& text, const std::string& what);

// --write, --destroy-data, --create-size of zcav access: random writes by
// size and depth only, and only with consent.
void ParseAccessWrite(const po::variables_map& vm, AccessCommandOptions& out) {
  const bool write = vm.count("write") > 0;
  out.destroy_data = vm.count("destroy-data") > 0;
  if (write && !out.grid) {
    throw Error(
        "--write measures random writes by size and depth: give --sizes (and --queue-depth); "
        "the access time is read only",
        ErrorKind::kBadInput);
  }
  if (write && !out.destroy_data) {
    throw Error(
        "--write overwrites the device at random places and destroys its data: add "
        "--destroy-data to go on",
        ErrorKind::kBadInput);
  }
  if (out.destroy_data && !write) {
    throw Error("--destroy-data goes with --write; without --write zcav only reads",
                ErrorKind::kBadInput);
  }
  out.force_in_use = vm.count("force-in-use") > 0;
  if (out.force_in_use && !write) {
    throw Error("--force-in-use goes with --write; without --write zcav only reads",
                ErrorKind::kBadInput);
  }
  if (vm.count("create-size")) {
    if (!write) {
      throw Error("--create-size goes with --write: it creates the file the test writes",
                  ErrorKind::kBadInput);
    }
    out.new_file = NewTestFile{ParseSize(vm["create-size"].as<std::string>(), "--create-size")};
  }
}

std::optional<AccessCommandOptions> ParseAccess(const Invocation& inv) {
  po::options_description desc = ProbeFlagsDescription();
  desc.add_options()("samples", po::value<std::string>()->value_name("N"),
                     "number of random reads (default 1000)")(
      "read-size", po::value<std::string>()->value_name("SIZE"),
      "bytes per read, rounded up to the sector (default 4k)")(
      "seed", po::value<std::string>()->value_name("N"),
      "seed of the random positions (default 1)")(
      "sizes", po::value<std::string>()->value_name("LIST"),
      "random access by transfer size and queue depth instead: the sizes, e.g. 4k,64k,1M "
      "(default 4k,64k,1M); IOPS, MB/s and latency mean/p50/p99/max per size and depth")(
      "queue-depth", po::value<std::string>()->value_name("LIST"),
      "with random access by size: the requests kept in flight, e.g. 1,4,32 (default 1,4,32)")(
      "cell-time", po::value<std::string>()->value_name("DURATION"),
      "with random access by size: how long each size and depth runs (default 1s)")(
      "write",
      "with --sizes: random WRITES instead of reads; overwrites the device at random places "
      "and DESTROYS ITS DATA. Needs --destroy-data, and on a terminal the device path typed "
      "to confirm; refused for a mounted device, swap, or one in use")(
      "destroy-data", "consent to --write destroying the data it overwrites")(
      "force-in-use",
      "with --write: write the block device even while other processes have it open")(
      "create-size", po::value<std::string>()->value_name("SIZE"),
      "with --write: create DEVICE as a new file of SIZE for the test (an existing file is "
      "refused), written with O_DIRECT");
  AccessCommandOptions out;
  po::variables_map vm;
  if (!ParseProbeFlags(inv, "access",
                       "Average access time: small O_DIRECT reads at uniformly random positions;\n"
                       "min/mean/median/p95/max ms and every sample (position, distance, ms).\n"
                       "With --sizes: random access by transfer size and queue depth (IOPS, MB/s,\n"
                       "latency); with --write --destroy-data, random writes (destroys data).\n",
                       desc, vm, out)) {
    return std::nullopt;
  }
  if (vm.count("samples"))
    out.access.samples = ParseCount32(vm["samples"].as<std::string>(), "sample count");
  if (vm.count("read-size"))
    out.access.read_bytes = ParseSize(vm["read-size"].as<std::string>(), "read size");
  if (vm.count("seed")) out.access.seed = ParseCount(vm["seed"].as<std::string>(), "seed");
  if (vm.count("sizes") || vm.count("queue-depth") || vm.count("cell-time")) {
    if (vm.count("samples") || vm.count("read-size")) {
      throw Error(
          "--samples and --read-size are for the access time; --sizes, --queue-depth "
          "and --cell-time measure random access by size and depth: give one or the other",
          ErrorKind::kBadInput);
    }
    RandomAccessOptions grid;
    grid.seed = out.access.seed;
    if (vm.count("sizes")) {
      grid.sizes.clear();
      for (const std::string& item : SplitList(vm["sizes"].as<std::string>(), "--sizes")) {
        grid.sizes.push_back(ParseSize(item, "--sizes"));
      }
    }
    if (vm.count("queue-depth")) {
      grid.depths.clear();
      for (const std::string& item :
           SplitList(vm["queue-depth"].as<std::string>(), "--queue-depth")) {
        const std::uint32_t depth = ParseCount32(item, "queue depth");
        if (depth == 0 || depth > 4096) {
          throw Error("--queue-depth: " + item + " is not from 1 to 4096", ErrorKind::kBadInput);
        }
        grid.depths.push_back(depth);
      }
    }
    if (vm.count("cell-time")) {
      grid.cell_time = ParseDuration(vm["cell-time"].as<std::string>(), "--cell-time");
    }
    grid.write = vm.count("write") > 0;
    out.grid = grid;
  }
  ParseAccessWrite(vm, out);
  return out;
}

// "4k,64k,1M" split at commas; an empty item is bad input.
std::vector<std::string> SplitList(const std::string& text, const std::string& what) {
  std::vector<std::string> items;
  for (const std::string_view item : SplitAt(text, ',')) {
    if (item.empty()) {
      throw Error(what + ": '" + text + "' has an empty item (give e.g. 4k,64k,1M)",
                  ErrorKind::kBadInput);
    }
    items.emplace_back(item);
  }
  return items;
}

std::optional<BurstCommandOptions> ParseBurst(const Invocation& inv) {
  po::options_description desc = ProbeFlagsDescription();
  desc.add_options()("region", po::value<std::string>()->value_name("SIZE"),
                     "bytes at the start of the device read again and again (default 512k)")(
      "chunk-size", po::value<std::string>()->value_name("SIZE"), "bytes per read (default 64k)")(
      "repetitions", po::value<std::string>()->value_name("N"),
      "timed reads of the region (default 200)");
  BurstCommandOptions out;
  po::variables_map vm;
  if (!ParseProbeFlags(
          inv, "burst",
          "Burst (buffered) rate: the first region of the device read again and again, so\n"
          "the drive answers from its cache and the figure is the interface's rate.\n"
          "On a device without a cache it is the outer rate less one seek per repetition.\n",
          desc, vm, out))
    return std::nullopt;
  if (vm.count("region"))
    out.burst.region_bytes = ParseSize(vm["region"].as<std::string>(), "region");
  if (vm.count("chunk-size"))
    out.burst.chunk_bytes = ParseSize(vm["chunk-size"].as<std::string>(), "chunk size");
  if (vm.count("repetitions"))
    out.burst.repetitions = ParseCount32(vm["repetitions"].as<std::string>(), "repetitions");
  if (out.burst.chunk_bytes > out.burst.region_bytes) {
    throw Error("chunk size is larger than the region", ErrorKind::kBadInput);
  }
  return out;
}

int ProbeExit(const std::error_code& error, std::uint64_t offset, bool interrupted,
              const std::string& device, std::ostream& err) {
  if (error) {
    err << "zcav: read error at offset " << offset << " bytes of " << device << ": "
        << error.message() << "; samples before it kept\n";
    return 1;
  }
  return interrupted ? 130 : 0;
}

// A size for the table: 512, 4k, 64k, 1M (binary).
std::string SizeLabel(std::uint64_t bytes) {
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + "M";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + "k";
  return std::to_string(bytes);
}

std::string RandomAccessTable(const RandomAccessResult& r, const RandomAccessOptions& o,
                              const std::string& path) {
  std::ostringstream t;
  t << "random " << (o.write ? "writes" : "reads") << " of " << path << " (" << r.engine << ", "
    << FormatFixed(std::chrono::duration<double>(o.cell_time).count(), 2)
    << " s per cell; MB = 10^6 B, sizes k = KiB, M = MiB)\n";
  t << "    size  depth         IOPS       MB/s    mean ms     p50 ms     p99 ms     max ms\n";
  bool capped = false;
  for (const RandomAccessCell& c : r.cells) {
    char line[160];
    std::snprintf(line, sizeof line, "%8s  %5u%s %12.0f %10.1f %10.3f %10.3f %10.3f %10.3f\n",
                  SizeLabel(c.size_bytes).c_str(), c.queue_depth,
                  c.engine_depth < c.queue_depth ? "*" : " ", c.iops, c.mb_per_s, c.mean_ms,
                  c.p50_ms, c.p99_ms, c.max_ms);
    t << line;
    capped = capped || c.engine_depth < c.queue_depth;
  }
  if (capped) t << "* " << r.engine << " keeps one request in flight at a time\n";
  return t.str();
}

int RunRandomAccess(const AccessCommandOptions& options, OpenedDevice& d, const Invocation& inv) {
  const RandomAccessOptions& o = *options.grid;
  const RandomAccessResult r = MeasureRandomAccess(d.device(), d.clock(), o, &inv.stop);
  std::string text;
  if (options.format == "json") {
    text = Dump({{"schema_version", kSchemaVersion},
                 {"device", Json::parse(ProbeDeviceJson(d.device().info()))},
                 {"random_access", Json::parse(RandomAccessJson(r, o))},
                 {"partial", r.error || r.interrupted}});
  } else {
    text = RandomAccessTable(r, o, d.device().info().path);
  }
  WriteWholeResult(options.output, {options.device}, text, inv.out);
  return ProbeExit(r.error, r.error_offset_bytes, r.interrupted, options.device, inv.err);
}

int RunAccess(const AccessCommandOptions& options, const Invocation& inv) {
  OpenedDevice d;
  if (options.grid && options.grid->write) {
    d.OpenForWrite(options.device, options.new_file, options.force_in_use);
    ConfirmWrite(d.device().info(), options.device,
                 isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1, options.force_in_use,
                 std::cin, inv.err);
  } else {
    d.Open(options.device);
  }
  if (options.grid) return RunRandomAccess(options, d, inv);
  const AccessResult r = MeasureAccess(d.device(), d.clock(), options.access, &inv.stop);
  std::string text;
  if (options.format == "json") {
    const Json doc = {
        {"schema_version", kSchemaVersion},
        {"device", Json::parse(ProbeDeviceJson(d.device().info()))},
        {"access", Json::parse(AccessFiguresJson(
                       r, RoundUp(options.access.read_bytes, d.device().info().sector_bytes)))},
        {"partial", r.error || r.interrupted}};
    text = Dump(doc);
  } else {
    text = "access time of " + d.device().info().path + ": " + std::to_string(r.samples.size()) +
           " random reads of " +
           std::to_string(RoundUp(options.access.read_bytes, d.device().info().sector_bytes)) +
           " bytes\nmin " + Num(r.min_ms, 3) + "  mean " + Num(r.mean_ms, 3) + "  median " +
           Num(r.median_ms, 3) + "  p95 " + Num(r.p95_ms, 3) + "  max " + Num(r.max_ms, 3) +
           " ms (" + Num(r.cpu_percent, 1) + "% cpu)\n";
  }
  WriteWholeResult(options.output, {options.device}, text, inv.out);
  return ProbeExit(r.error, r.error_offset_bytes, r.interrupted, options.device, inv.err);
}

int RunBurst(const BurstCommandOptions& options, const Invocation& inv) {
  OpenedDevice d;
  d.Open(options.device);
  if (options.burst.region_bytes > d.device().info().size_bytes) {
    throw Error("burst region " + FormatBytes(options.burst.region_bytes) + " is larger than " +
                    options.device,
                ErrorKind::kBadInput);
  }
  const BurstResult r = MeasureBurst(d.device(), d.clock(), options.burst, &inv.stop);
  std::string text;
  if (options.format == "json") {
    const Json doc = {{"schema_version", kSchemaVersion},
                      {"device", Json::parse(ProbeDeviceJson(d.device().info()))},
                      {"burst", Json::parse(BurstFiguresJson(r, options.burst.region_bytes))},
                      {"partial", r.error || r.interrupted}};
    text = Dump(doc);
  } else {
    text = "burst rate of " + d.device().info().path + ": the first " +
           FormatBytes(options.burst.region_bytes) + " read " + std::to_string(r.repetitions) +
           " times\nmin " + Num(r.min_mb_per_s, 2) + "  avg " + Num(r.avg_mb_per_s, 2) + "  max " +
           Num(r.max_mb_per_s, 2) + " MB/s (MB = 10^6 B; " + Num(r.cpu_percent, 1) + "% cpu)\n";
  }
  WriteWholeResult(options.output, {options.device}, text, inv.out);
  return ProbeExit(r.error, r.error_offset_bytes, r.interrupted, options.device, inv.err);
}

}  // namespace

int AccessCommand(const Invocation& inv) { return ParseThenRun(inv, ParseAccess, RunAccess); }
int BurstCommand(const Invocation& inv) { return ParseThenRun(inv, ParseBurst, RunBurst); }

}  // namespace zcav
