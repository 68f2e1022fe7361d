// zcav verify DEVICE --destroy-data: write every position with stamped
// data, read it all back and compare (measure/verify.h); the verdict, the
// usable size, the ranges, the write and read-back curve, and the fix.
#include "zcav/measure/verify.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "../app_util.h"
#include "../options.h"
#include "../write_confirm.h"
#include "commands.h"
#include "zcav/analysis/expectations.h"
#include "zcav/analysis/write_cache.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/format/data_reader.h"
#include "zcav/format/json_keys.h"
#include "zcav/format/profile_json.h"
#include "zcav/format/verify_format.h"
#include "zcav/format/writers.h"
#include "zcav/measure/sweep.h"
#include "zcav/measure/verify_quick.h"
#include "zcav/report/plot.h"

namespace zcav {
namespace {

struct VerifyCommandOptions {
  std::string device;
  std::string output = "-";             // -o FILE; "-" = stdout. Default: "-"
  std::string format = "text";          // --format text or json. Default: text
  std::string plot;                     // --plot IMAGE (.png/.svg). Default: none
  std::string badblocks;                // --badblocks FILE. Default: none
  std::string resume;                   // --resume FILE (a partial JSON result). Default: none
  bool quiet = false;                   // -q. Default: false
  bool force_in_use = false;            // --force-in-use. Default: false
  std::optional<NewTestFile> new_file;  // --create-size SIZE. Default: none
  VerifyOptions verify;                 // --chunk-size, --block-size
  Expectations expect;                  // --expect worst-stall=, sustained= only. Default: none
  bool quick = false;                   // --quick: spot checks (verify_quick.h). Default: false
  QuickVerifyOptions quick_options;     // --keep-data, --cache-flush
};

constexpr const char* kVerifyHelp = R"(Usage: zcav verify DEVICE --destroy-data [options]

Is this stick, card or SSD what it claims? Writes every position of DEVICE with
data stamped for its place and this run (unique per 512-byte sector, not
compressible, not deduplicable), reads it all back and compares. DESTROYS ALL
DATA on DEVICE. Says, per range: good, wrapped (reads data written for another
place: a fake that wraps around), lost (zeros, stale or garbage), unreadable;
the verdict (genuine, fake capacity, data loss, unreadable), the size usable
from the start, the write and read-back rate per position, and the fix: for a
fake the command that makes a partition of the usable size (printed, not run),
for lost places a badblocks list (--badblocks).
--quick finds the real size in minutes: stamped probes at spread places, a cache
flush, everything read back, the boundary searched to within 1 %, under 5 % of
the device written (spot checks: a small lost range can lie between probes);
--keep-data saves what each probe overwrites and writes it back at the end
(then --destroy-data is not needed; a crash before the write-back loses it).
Exit status: 0 genuine, 6 not genuine (fake capacity, data loss, unreadable),
5 genuine but below --expect,
130 interrupted (the partial result is written: --resume goes on), 2 bad input,
3 device gone, 1 an output could not be written.
Units: MB = 10^6 B, MiB = 2^20 B, GB = 10^9 B.

)";

po::options_description DescribeVerify() {
  po::options_description desc = OptionsWithHelp();
  desc.add_options()("destroy-data", "consent: the test overwrites every byte of DEVICE")(
      "quick", "spot checks and a search for the real size instead of every sector")(
      "keep-data",
      "with --quick: save what each probe overwrites and write it back at the end (refused "
      "when that needs more than 256 MiB of memory)")(
      "cache-flush", po::value<std::string>()->value_name("SIZE"),
      "with --quick: bytes written between the probes and their read-back, more than the "
      "device's write cache holds (default 16M)")(
      "output,o", po::value<std::string>()->value_name("FILE"),
      "write the result to FILE ('-' = stdout, the default)")(
      "format", po::value<std::string>()->value_name("FMT"),
      "text (default) or json (needed to --resume and to plot later)")(
      "plot", po::value<std::string>()->value_name("IMAGE"),
      "draw the write and read-back curve, bad ranges shaded, into IMAGE (.png or .svg); "
      "the gnuplot script and data go beside it")(
      "badblocks", po::value<std::string>()->value_name("FILE"),
      "write the lost and unreadable places as a badblocks list (4096-byte blocks, for "
      "mkfs.ext4 -l FILE)")(
      "resume", po::value<std::string>()->value_name("FILE"),
      "go on with the interrupted run whose JSON result is FILE (same device, same "
      "--chunk-size)")("chunk-size", po::value<std::string>()->value_name("SIZE"),
                       "bytes per write and read (default 1M)")(
      "block-size", po::value<std::string>()->value_name("SIZE"),
      "bytes per point of the curve, whole chunks (default: a read sweep's, about 1000 "
      "points, each at least the reads in flight and 100 ms of reading)")(
      "queue-depth", po::value<std::string>()->value_name("N"),
      "reads in flight in the read-back, 1-256 (default: as many bytes "
      "in flight as zcav sweep reads with); writes go one at a time, as "
      "a write sweep's")(
      "create-size", po::value<std::string>()->value_name("SIZE"),
      "create DEVICE as a new file of SIZE for the test (an existing file is refused)")(
      "force-in-use", "write the block device even while other processes have it open")(
      "expect", po::value<std::string>()->value_name("KEY=VALUE,..."),
      "gates on the write pass, for recorders: worst-stall=DURATION (the longest write, e.g. "
      "500ms) and sustained=RATE@WINDOW (the lowest rate over any WINDOW after the write "
      "cache, e.g. 30MB/s@10s); exit 5 when one is not met (6, not genuine, wins)")(
      "quiet,q", "no progress or notes on stderr");
  return desc;
}

VerifyCommandOptions ReadVerifyOptions(const po::variables_map& vm) {
  VerifyCommandOptions out;
  const std::vector<std::string> devices = Positionals(vm, "device");
  if (devices.size() != 1) {
    throw Error(devices.empty() ? "no device given (usage: zcav verify DEVICE --destroy-data)"
                                : "one device at a time, got " + std::to_string(devices.size()),
                ErrorKind::kBadInput);
  }
  out.device = devices[0];
  out.quick = vm.count("quick") > 0;
  out.quick_options.keep_data = vm.count("keep-data") > 0;
  if (out.quick_options.keep_data && !out.quick) {
    throw Error("--keep-data goes with --quick: a full verify writes every byte",
                ErrorKind::kBadInput);
  }
  if (vm.count("cache-flush")) {
    if (!out.quick) throw Error("--cache-flush goes with --quick", ErrorKind::kBadInput);
    out.quick_options.cache_flush_bytes =
        ParseSize(vm["cache-flush"].as<std::string>(), "--cache-flush", true);
  }
  if (vm.count("expect")) {
    out.expect = ParseExpectations(vm["expect"].as<std::string>());
    const Expectations& e = out.expect;
    if (e.min_mb_per_s || e.avg_mb_per_s || e.max_slow_regions || e.max_unreadable || e.health) {
      throw Error(
          "zcav verify --expect judges the write pass: worst-stall= and sustained= (what came "
          "back is the verdict)",
          ErrorKind::kBadInput);
    }
    if (e.sustained) out.verify.sustained_window = e.sustained->window;
  }
  if (out.quick) {
    for (const char* key :
         {"resume", "plot", "block-size", "chunk-size", "create-size", "expect"}) {
      if (vm.count(key)) {
        throw Error(std::string("--") + key +
                        " is for a full verify; --quick writes probes, not every chunk",
                    ErrorKind::kBadInput);
      }
    }
  }
  if (vm.count("destroy-data") == 0 && !out.quick_options.keep_data) {
    throw Error("verify writes every byte of " + out.device +
                    " and destroys its data: add --destroy-data to go on",
                ErrorKind::kBadInput);
  }
  out.output = OutputOrStdout(vm);
  out.format = vm.count("format") ? vm["format"].as<std::string>() : "text";
  if (out.format != "text" && out.format != "json") {
    throw Error("unknown format '" + out.format + "' (use text or json)", ErrorKind::kBadInput);
  }
  const auto name = [&](const char* key) {
    if (!vm.count(key)) return std::string();
    const std::string v = vm[key].as<std::string>();
    if (v.empty()) throw Error(std::string("empty --") + key + " file name", ErrorKind::kBadInput);
    return v;
  };
  out.plot = name("plot");
  if (!out.plot.empty() && !IsImageName(std::filesystem::path(out.plot).filename().string())) {
    throw Error("--plot '" + out.plot + "': the image name must end in .png or .svg",
                ErrorKind::kBadInput);
  }
  out.badblocks = name("badblocks");
  out.resume = name("resume");
  out.quiet = vm.count("quiet") > 0;
  out.force_in_use = vm.count("force-in-use") > 0;
  if (vm.count("create-size")) {
    if (!out.resume.empty()) {
      throw Error("--create-size makes a new file; --resume goes on with an old run",
                  ErrorKind::kBadInput);
    }
    out.new_file = NewTestFile{ParseSize(vm["create-size"].as<std::string>(), "--create-size")};
  }
  if (vm.count("chunk-size")) {
    out.verify.chunk_bytes = ParseSize(vm["chunk-size"].as<std::string>(), "--chunk-size");
    if (out.verify.chunk_bytes % kStampSectorBytes != 0 || out.verify.chunk_bytes > (1u << 30)) {
      throw Error("--chunk-size must be whole 512-byte sectors, at most 1 GiB",
                  ErrorKind::kBadInput);
    }
  }
  if (vm.count("block-size")) {
    out.verify.block_bytes = ParseSize(vm["block-size"].as<std::string>(), "--block-size");
  }
  if (vm.count("queue-depth")) {
    if (out.quick)
      throw Error("--queue-depth is for a full verify's read-back", ErrorKind::kBadInput);
    out.verify.queue_depth = ParseCount32(vm["queue-depth"].as<std::string>(), "queue depth");
    if (out.verify.queue_depth == 0 || out.verify.queue_depth > kMaxQueueDepth) {
      throw Error("invalid queue depth " + vm["queue-depth"].as<std::string>() + ": from 1 to " +
                      std::to_string(kMaxQueueDepth),
                  ErrorKind::kBadInput);
    }
  }
  return out;
}

// Progress on stderr: a line when a pass starts and every ~10 s of real time.
class Progress {
 public:
  Progress(std::ostream& err, std::uint64_t size, bool quiet)
      : err_(err), size_(size), quiet_(quiet) {}
  void operator()(bool writing, std::uint64_t done) {
    if (quiet_) return;
    const auto now = std::chrono::steady_clock::now();
    if (writing == writing_ && now - last_ < std::chrono::seconds(10) && done < size_) return;
    writing_ = writing;
    last_ = now;
    err_ << "zcav: verify: " << (writing ? "written " : "read back ") << FormatBytes(done) << " of "
         << FormatBytes(size_) << "\n";
  }

 private:
  std::ostream& err_;
  std::uint64_t size_;
  bool quiet_;
  std::optional<bool> writing_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// The write pass's worst stall and sustained rate after its write cache
// (the zones of its write curve show the cache), and a card's promise.
VerifyWriteFigures WriteFiguresOf(const VerifyResult& r, const DeviceInfo& device) {
  VerifyWriteFigures f;
  f.worst_stall = r.write_requests.worst_stall;
  Curve curve;
  for (const VerifyBlock& b : r.blocks) {
    if (b.write_mb_per_s > 0) curve.push_back({b.offset_bytes, b.length_bytes, b.write_mb_per_s});
  }
  std::optional<WriteCacheAnalysis> cache;
  if (curve.size() >= 2) cache = AnalyzeWriteCache(DetectZones(curve, ZoneOptions{}), 0);
  f.sustained = SustainedOf(r.write_requests, cache);
  f.card = CardPromiseOf(device.link_state);
  return f;
}

std::string ResultText(const VerifyCommandOptions& o, const VerifyResult& r,
                       const DeviceInfo& device, const VerifyWriteFigures& f) {
  if (o.format == "text") return VerifyReportText(r, o.device) + VerifyWriteFiguresText(f);
  Json verify = Json::parse(VerifyJsonText(r, o.device));
  verify[json_keys::kWorstStall] = Json::parse(WorstStallJsonText(r.write_requests));
  verify[json_keys::kSustained] = Json::parse(SustainedJsonText(f.sustained));
  verify[json_keys::kCardPromise] = Json::parse(CardPromiseJsonText(f));
  const Json doc = {{json_keys::kSchemaVersion, kSchemaVersion},
                    {json_keys::kDevice, Json::parse(ProbeDeviceJson(device))},
                    {json_keys::kVerify, std::move(verify)},
                    {json_keys::kPartial, r.interrupted}};
  return Dump(doc);
}

void WriteOutputs(const VerifyCommandOptions& o, const VerifyResult& r, const DeviceInfo& device,
                  const VerifyWriteFigures& f, const Invocation& inv) {
  const std::vector<std::string> inputs = {o.device};
  WriteWholeResult(o.output, inputs, ResultText(o, r, device, f), inv.out);
  if (!o.badblocks.empty() && !r.interrupted) {
    const std::string list = BadBlocksList(r);
    WriteWholeResult(o.badblocks, inputs, list, inv.out);
    if (!o.quiet && !list.empty()) {
      inv.err << "zcav: the lost and unreadable places as 4096-byte blocks: "
              << TerminalText(o.badblocks) << " (mkfs.ext4 -l "
              << TerminalText(ShellQuote(o.badblocks))
              << " ... makes a file system that avoids them; the numbers count from the start of "
                 "the device, so for a partition that starts at S bytes subtract S/4096)\n";
    }
  }
  if (!o.plot.empty()) {
    PlotInput input;
    input.profile.source = o.device;
    input.profile.device_path = device.path;
    input.profile.verify = r;
    input.label = device.model.empty() ? device.path : device.model;
    const std::filesystem::path image(o.plot);
    const std::string stem = SafeFileName(image.stem().string());
    const std::string dir = image.parent_path().empty() ? "." : image.parent_path().string();
    WriteAndRender(PlotKind::kVerify, {input}, dir, stem, {stem + image.extension().string()},
                   o.quiet, inv.err);
  }
}

int ExitCodeOf(const VerifyResult& r) {
  if (r.device_gone) return 3;
  if (r.interrupted) return 130;
  return r.verdict == VerifyVerdict::kGenuine ? 0 : kExitNotGenuine;
}

int ExitCodeOfQuick(const QuickVerifyResult& q) {
  if (q.kept_data && !q.restored) return 1;
  return ExitCodeOf(q.verify);
}

std::string QuickResultText(const VerifyCommandOptions& o, const QuickVerifyResult& q,
                            const DeviceInfo& device) {
  if (o.format == "text") return QuickVerifyReportText(q, o.device);
  const Json doc = {{json_keys::kSchemaVersion, kSchemaVersion},
                    {json_keys::kDevice, Json::parse(ProbeDeviceJson(device))},
                    {json_keys::kVerify, Json::parse(VerifyJsonText(q.verify, o.device))},
                    {json_keys::kQuick, Json::parse(QuickVerifyJsonText(q))},
                    {json_keys::kPartial, q.verify.interrupted}};
  return Dump(doc);
}

// --quick: the spot checks. With --keep-data nothing is destroyed when all
// goes well: no confirmation, the write refusals (mounted, in use) still hold.
int RunQuick(const VerifyCommandOptions& options, OpenedDevice& d, const Invocation& inv) {
  const DeviceInfo& info = d.device().info();
  if (options.quick_options.keep_data) {
    const QuickVerifyPlan plan = PlanQuickVerify(info, options.quick_options);
    if (!options.quiet) {
      inv.err << "zcav: --keep-data: writing at most " << FormatBytes(plan.max_write_bytes)
              << " of probes over " << TerminalText(options.device)
              << ", its data kept in memory and written back at the end (a crash or power "
                 "loss before that loses it)\n";
    }
  } else {
    ConfirmWrite(info, options.device, isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1,
                 options.force_in_use, std::cin, inv.err);
  }
  const QuickVerifyResult q =
      RunQuickVerify(d.device(), d.clock(), options.quick_options, &inv.stop);
  const std::vector<std::string> inputs = {options.device};
  WriteWholeResult(options.output, inputs, QuickResultText(options, q, info), inv.out);
  if (!options.badblocks.empty() && !q.verify.interrupted) {
    WriteWholeResult(options.badblocks, inputs, BadBlocksList(q.verify), inv.out);
  }
  if (!options.quiet && q.verify.verdict != VerifyVerdict::kGenuine) {
    inv.err << "zcav: " << TerminalText(options.device)
            << " is not genuine: " << VerifyVerdictName(q.verify.verdict) << "\n";
  }
  if (q.kept_data && !q.restored) {
    inv.err << "zcav: not all of the data --keep-data saved could be written back\n";
  }
  return ExitCodeOfQuick(q);
}

int RunVerifyCommand(const VerifyCommandOptions& options, const Invocation& inv) {
  std::optional<VerifyResult> saved;
  if (!options.resume.empty()) {
    SavedResult file = ReadVerify(options.resume);
    saved = std::move(*file.verify);
  }
  OpenedDevice d;
  d.OpenForWrite(options.device, options.new_file, options.force_in_use);
  if (options.quick) return RunQuick(options, d, inv);
  const DeviceInfo& info = d.device().info();
  if (saved) CheckVerifyResume(*saved, info.size_bytes, options.verify.chunk_bytes);
  ConfirmWrite(info, options.device, isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1,
               options.force_in_use, std::cin, inv.err);
  VerifyOptions o = options.verify;
  o.resume = saved ? &*saved : nullptr;
  Progress progress(inv.err, info.size_bytes, options.quiet);
  o.progress = [&progress](bool writing, std::uint64_t done) { progress(writing, done); };
  if (saved && !options.quiet) {
    inv.err << "zcav: resuming " << TerminalText(options.resume) << ": written "
            << FormatBytes(saved->write_done_bytes) << ", read back "
            << FormatBytes(saved->read_done_bytes) << "\n";
  }
  const VerifyResult r = RunVerify(d.device(), d.clock(), o, &inv.stop);
  const VerifyWriteFigures figures = WriteFiguresOf(r, info);
  WriteOutputs(options, r, info, figures, inv);
  if (!options.quiet) {
    if (r.interrupted) {
      inv.err << (r.device_gone ? "zcav: verify ended, the device went away; once it is back, "
                                : "zcav: verify interrupted; ")
              << (options.format == "json" && options.output != "-"
                      ? "go on with --resume " + TerminalText(ShellQuote(options.output))
                      : std::string("a run with --format json -o FILE can be resumed"))
              << "\n";
    } else if (r.verdict != VerifyVerdict::kGenuine) {
      inv.err << "zcav: " << TerminalText(options.device)
              << " is not genuine: " << VerifyVerdictName(r.verdict) << "\n";
    }
  }
  const int code = ExitCodeOf(r);
  if (code != 0 || options.expect.empty()) return code;
  ExpectationFigures gate;
  gate.blocks_measured = r.blocks.size();
  gate.worst_stall = figures.worst_stall;
  gate.sustained = figures.sustained;
  const std::vector<std::string> unmet = UnmetExpectations(options.expect, gate);
  for (const std::string& line : unmet) inv.err << "zcav: below expectations: " << line << "\n";
  return unmet.empty() ? 0 : kExitBelowExpectations;
}

}  // namespace

int VerifyCommand(const Invocation& inv) {
  static const CommandSyntax syntax{"verify", "device", kVerifyHelp};
  return ParseThenRun(inv, syntax, DescribeVerify, ReadVerifyOptions, RunVerifyCommand);
}

}  // namespace zcav
