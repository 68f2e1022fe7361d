// zcav profile [DEVICE] [-o DIR]: the one command most people should run.
//
// Steps, in this order, each stopping at once on SIGINT/SIGTERM:
//   1. Estimate (unless --full or --quick): read the start of the device
//      sequentially, 256 MiB or 2 s of clock time whichever comes first (one
//      untimed chunk before it), and multiply out passes x the full plan's
//      bytes / that rate (estimate.h). Above one hour the sweep is adaptive
//      (measure/adaptive.h: a coarse grid of probes, then each level change
//      bisected; its cost grows with the zones, not the size) and a note
//      says so and how long the full sweep would take. A hard disk starts in its fastest
//      zone, so the estimate is a lower bound: a disk estimated at 50 min may
//      take 70 in full and is still swept in full. Simulated devices decide
//      the same way from their virtual clock (sim:hdd: 250 GB at 60 MB/s is
//      about 1.2 h, so adaptive). A failed estimate (read error) sweeps in
//      full. --quick reads an evenly spaced tenth (SweepOptions.quick),
//      --adaptive samples adaptively, --full reads every block.
//   2. Burst rate (burst.h), before the sweep so that the sweep's verdict can
//      weigh it: the verdict in the raw file, the JSON and zones.txt is the
//      same one, VerdictFor(zones, transport, burst).
//   3. Access time (access.h).
//   4. The sweep (full, quick or adaptive), with the progress line unless --quiet;
//      NAME.dat is written as blocks arrive, zones detected at the end.
// Then DIR gets profile.json, zones.txt, the plots and the reports, and
// stderr the summary. stdout stays empty: everything is in DIR, and the
// summary (also DIR/summary.txt) is for a person, on stderr with the notes.
//
// A read error in a step is data: the step stops, the others still run, and
// everything is written, marked partial; exit 1 (also when the sweep gives up
// at --max-errors unreadable ranges; a --max-time stop is exit 0). With
// --expect, a run below the expectations exits kExitBelowExpectations. An interrupt skips what is
// left, writes what was measured, marked partial; exit 130. Bad input (a bad
// option or device, a DIR that is a file) is refused before DIR is created.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../app_util.h"
#include "../live.h"
#include "../options.h"
#include "../output_space.h"
#include "commands.h"
#include "zcav/analysis/adaptive_steps.h"
#include "zcav/analysis/step_origin.h"
#include "zcav/analysis/transport.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/device/device.h"
#include "zcav/format/profile_json.h"
#include "zcav/format/result_size.h"
#include "zcav/format/writers.h"
#include "zcav/format/zone_table.h"
#include "zcav/measure/access.h"
#include "zcav/measure/adaptive.h"
#include "zcav/measure/burst.h"
#include "zcav/measure/estimate.h"
#include "zcav/measure/progress.h"
#include "zcav/measure/random_access.h"
#include "zcav/measure/sample_sink.h"
#include "zcav/measure/sweep.h"
#include "zcav/pipeline/health_sink.h"
#include "zcav/pipeline/pass_curves.h"
#include "zcav/pipeline/result_recorder.h"
#include "zcav/pipeline/sweep_chain.h"
#include "zcav/report/plot.h"
#include "zcav/report/report.h"
#include "zcav/report/surface_map.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

struct ProfileCommandOptions : RunFlags, ZoneFlags, GateFlags, EventsFlags {
  std::string device = "sim:hdd";  // DEVICE. Default: sim:hdd
  // -o DIR. Default "-": zcav-profile-NAME in the current directory.
  std::string output = "-";
  // kAuto: adaptive when a full sweep would take over 1 h, else full.
  enum class ProfileMode { kAuto, kFull, kQuick, kAdaptive };
  ProfileMode profile_mode = ProfileMode::kAuto;  // --full, --quick, --adaptive. Default: kAuto
  SweepOptions sweep;  // -b (block and chunk size), -c (passes); see sweep.h
  // -c N given; otherwise a device read in full in a few seconds is read over
  // 3 passes (ChoosePasses). Default: false
  bool passes_given = false;
  std::vector<std::string>
      labels;          // --label: the plot and report title. Default: device model or name
  bool quiet = false;  // -q: no progress, notes or summary on stderr. Default: false
  bool live = false;   // --live: the sweep's curve drawn while measured (live.h)
};
using ProfileMode = ProfileCommandOptions::ProfileMode;

constexpr const char* kProfileHelp = R"(Usage: zcav profile [DEVICE] [-o DIR] [options]

The one command most people should run. Measures DEVICE (default: the simulated
disk sim:hdd) and writes everything into DIR: the burst rate, the average access
time, a sweep (adaptive when a full one would take over an hour: a grid of
probes, then every zone edge bisected, from about 1 % of a large disk; an
estimate from reading the first 256 MiB or 2 s says so; --full reads every
block, --quick an evenly spaced tenth), its zones
and the bus-or-media verdict, plots and reports. Files in DIR: profile.json (all
of it; 'zcav zones|plot|report DIR/profile.json' read it), NAME.dat (the classic
raw data), zones.txt, NAME.png/.svg (falloff), NAME-access.png/.svg (access
times) and NAME-map.png/.svg (surface map: every block in its chunk latency
class, MHDD/Victoria style) with their .gp scripts and data, report.html,
report.md (with report-1.png... beside it), summary.txt. Every file is written
under a temporary name and renamed. The summary (with the health conclusion:
good, suspect or failing, and SMART before and after where smartctl can read
it) goes to stderr; stdout stays empty. Units: MB = 10^6 B, GB = 10^9 B.
Before reading, DIR's file system must hold the files (about 1 MB plus the sweep's
data): else exit 2. If a file cannot be written anyway, profile.json is kept (in
DIR if it was written there, else in $TMPDIR or /tmp) and stderr says where.
Exit codes: 0 done, 1 read error or --max-errors gave up (what was measured is
written, marked partial), 2 bad input (nothing written; also: too little space in
DIR's file system), 4 a file could not be written (profile.json kept, stderr says
where; wins over 1, 5 and 130), 5 below the --expect expectations (one line each
on stderr), 130 interrupted (written so far, marked partial). --max-errors and
--max-time limit the sweep step; a --max-time stop is exit 0 (marked partial)
unless expectations fail.

)";
const CommandSyntax kSyntax{"profile", "device", kProfileHelp};

// --help's options (the zone flags are added by ParseThenRun).
po::options_description DescribeProfile() {
  po::options_description desc = OptionsWithHelp();
  desc.add_options()("output,o", po::value<std::string>()->value_name("DIR"),
                     "the directory for the results (created; an existing one is reused, its files "
                     "replaced; {host}, {serial}, {model}, {date}... in DIR are replaced, as for "
                     "zcav sweep -o) (default: zcav-profile-NAME in the current directory)")(
      "full", "read every block, however long it takes")(
      "quick", "read an evenly spaced tenth of the surface, however short a full sweep is")(
      "adaptive",
      "sample adaptively however short a full sweep is: a coarse grid of probes, then each "
      "level change bisected down to one probe (the default when a full sweep would take over "
      "1 h; as zcav sweep --adaptive)")(
      ",b", po::value<std::string>()->value_name("MiB[:chunkMiB]"),
      "block size [and chunk size] in MiB, as for zcav sweep (default: as zcav sweep's "
      "--block-size)")(",c", po::value<std::string>()->value_name("N"),
                       "passes of the sweep (default 1; 3 when a full pass takes under 20 s)")(
      "label", po::value<std::vector<std::string>>()->value_name("TEXT"),
      "the plot and report title (default: the device model, or the device name)")(
      "quiet,q", "no progress, notes or summary on stderr (the summary is in DIR/summary.txt)")(
      "live",
      "draw the sweep's curve while it is measured: in a gnuplot window when there is a "
      "display, else in the terminal (ignored, with a note, when stderr is not a terminal)");
  desc.add(GateFlagsDescription());
  desc.add(EventsFlagsDescription());
  return desc;
}

// The options of a parsed command line. Throws Error(kBadInput).
ProfileCommandOptions ReadProfile(const po::variables_map& vm) {
  ProfileCommandOptions out;
  const std::vector<std::string> devices = Positionals(vm, "device");
  if (devices.size() > 1) {
    throw Error("one device at a time, got " + std::to_string(devices.size()) +
                    " (usage: zcav profile [DEVICE] [-o DIR])",
                ErrorKind::kBadInput);
  }
  out.device = devices.empty() ? "sim:hdd" : devices[0];
  if (out.device.empty()) throw Error("empty device name", ErrorKind::kBadInput);
  if (vm.count("output")) {
    out.output = vm["output"].as<std::string>();
    if (out.output.empty() || out.output == "-") {
      throw Error("zcav profile writes a directory: give -o DIR (not '" + out.output + "')",
                  ErrorKind::kBadInput);
    }
  }
  if (vm.count("full") + vm.count("quick") + vm.count("adaptive") > 1)
    throw Error("give one of --full, --quick and --adaptive", ErrorKind::kBadInput);
  if (vm.count("full")) out.profile_mode = ProfileMode::kFull;
  if (vm.count("quick")) out.profile_mode = ProfileMode::kQuick;
  if (vm.count("adaptive")) out.profile_mode = ProfileMode::kAdaptive;
  if (vm.count("-b")) ParseClassicBlock(vm["-b"].as<std::string>(), out.sweep);
  if (vm.count("-c")) {
    out.sweep.passes = ParseCount32(vm["-c"].as<std::string>(), "-c passes");
    out.passes_given = true;
  }
  if (vm.count("label")) {
    out.labels = vm["label"].as<std::vector<std::string>>();
    if (out.labels.size() > 1) throw Error("zcav profile takes one --label", ErrorKind::kBadInput);
  }
  out.quiet = vm.count("quiet") > 0;
  out.live = vm.count("live") > 0;
  ParseGateFlags(vm, out, out.sweep);
  ParseEventsFlags(vm, out);
  return out;
}

// A full sweep estimated above this is sampled adaptively (unless --full or
// --quick).
constexpr double kAdaptiveAboveSeconds = 3600;
// A full pass estimated at or below this is read kShortDevicePasses times
// (unless -c N).
constexpr double kShortPassSeconds = 20;
constexpr std::uint32_t kShortDevicePasses = 3;

// "512 KiB", "8 MiB", "1.50 GiB": sizes in a sentence.
std::string ShortBytes(std::uint64_t bytes) {
  if (bytes < kMiB && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  if (bytes < kGiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return FormatBytes(bytes);
}

// "1.2 h", "35 min", "40 s", "0.4 s".
std::string Duration(double seconds) {
  if (seconds >= 3600) return Num(seconds / 3600, 1) + " h";
  if (seconds >= 60) return Num(seconds / 60, 0) + " min";
  if (seconds < 10) return Num(seconds, 1) + " s";  // never "about 0 s"
  return Num(seconds, 0) + " s";
}

// Throws Error(kBadInput) unless the existing directory `dir` is the
// effective user's own and no one else may write in it (mode without g+w,
// o+w), the link too when `dir` is a symlink: zcav, often root, writes its
// files there, and whoever else can write in it could plant or swap them.
void CheckDirIsOurs(const std::string& dir) {
  const auto refuse = [&](const std::string& why) {
    throw Error("refusing output directory " + dir + ": " + why +
                    "; give a new name (zcav creates it) or a directory of your own that only "
                    "you can write in",
                ErrorKind::kBadInput);
  };
  struct stat link {};
  if (::lstat(dir.c_str(), &link) == 0 && S_ISLNK(link.st_mode) && link.st_uid != ::geteuid()) {
    refuse("a symlink owned by uid " + std::to_string(link.st_uid));
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return;  // the caller says why
  if (st.st_uid != ::geteuid()) {
    refuse("owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
           std::to_string(::geteuid()) + " running zcav");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    refuse(std::string("writable by others (mode ") + mode + ")");
  }
}

// Checks that `dir` can be the output directory: an existing directory, or
// a name whose parent directory exists. Throws Error(kBadInput) otherwise.
// Creates nothing.
void CheckOutputDir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      throw Error(
          "output directory " + dir + " exists and is not a directory: choose another -o DIR",
          ErrorKind::kBadInput);
    }
    CheckDirIsOurs(dir);
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      throw Error("cannot write into " + dir + ": " + std::strerror(errno), ErrorKind::kBadInput);
    }
    return;
  }
  if (errno != ENOENT)
    throw Error("output directory " + dir + ": " + std::strerror(errno), ErrorKind::kBadInput);
  fs::path parent = fs::path(dir).parent_path();
  if (parent.empty()) parent = ".";
  std::error_code ec;
  if (!fs::is_directory(parent, ec)) {
    throw Error("cannot create " + dir + ": directory " + parent.string() + " does not exist",
                ErrorKind::kBadInput);
  }
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    throw Error("cannot create " + dir + " in " + parent.string() + ": " + std::strerror(errno),
                ErrorKind::kBadInput);
  }
}

// Creates `dir` (0755 & ~umask), or checks again the one someone made
// meanwhile (CheckDirIsOurs).
void CreateOutputDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0) {
    if (errno != EEXIST) {
      throw Error("cannot create directory " + dir + ": " + std::strerror(errno),
                  ErrorKind::kRuntime);
    }
    CheckDirIsOurs(dir);
  }
}

// The sweep's members profile.json leaves out: its status, partial flag and
// error (the profile's say it; "sweep" keeps the sweep's own), and the
// transport and verdict, decided again with the burst rate.
const std::vector<std::string> kReplacedSweepMembers = {"status", "partial", "error", "transport",
                                                        "verdict"};

// "failing — 2 unreadable ranges ...; 1 slow region ...".
std::string HealthText(const HealthReport& h) {
  std::string text = HealthVerdictName(h.health.verdict);
  for (std::size_t i = 0; i < h.health.reasons.size(); ++i) {
    text += (i == 0 ? " — " : "; ") + h.health.reasons[i];
  }
  return text;
}

// The SMART line of the summary: what grew during the run, or why SMART
// could not be read.
std::string SmartText(const HealthReport& h) {
  if (!h.smart_before.available) {
    return h.smart_before.note.empty() ? "not read" : h.smart_before.note;
  }
  std::string text = h.smart_before.protocol + (h.smart_before.passed == false ? ", FAILED" : "");
  if (h.smart_before.temperature_c) text += ", " + Num(*h.smart_before.temperature_c, 0) + " C";
  if (h.smart_before.power_on_hours) {
    text += ", " + std::to_string(*h.smart_before.power_on_hours) + " power-on hours";
  }
  if (!h.smart_after.available) return text + "; after the run: " + h.smart_after.note;
  if (h.smart_increases.empty()) return text + "; no counter grew during the run";
  text += "; grew during the run:";
  for (const SmartChange& c : h.smart_increases) {
    text += " " + c.field + " " + std::to_string(c.before) + " -> " + std::to_string(c.after);
  }
  return text;
}

std::string TransportText(const Transport& t) {
  std::string text = !t.link.empty() ? t.link : t.kind == "unknown" ? "link unknown" : t.kind;
  if (t.ceiling_mb_per_s > 0) {
    text += ", practical ceiling " + Num(t.ceiling_mb_per_s, 0) + " MB/s";
  } else {
    text += ", ceiling unknown (state the bus with --bus)";
  }
  return text;
}

// One `zcav profile` run: what its steps share (leveldb's CompactionState
// beside DoCompactionWork). ProfileCommand calls the steps in order; each
// reads what the ones before it left.
class ProfileRun {
 public:
  ProfileRun(const ProfileCommandOptions& options, std::ostream& err, const std::atomic<bool>& stop)
      : options_(options), err_(err), stop_(stop) {}

  // --- Everything that can be refused, before anything is read or written.
  // Throws Error(kBadInput).
  void CheckInput() {
    device_.Open(options_.device);
    info_ = device_.device().info();
    transport_ =
        options_.bus.empty() ? TransportFromDevice(info_) : TransportFromName(options_.bus);
    media_ = options_.media_given ? options_.media : GuessMedia(options_.device);
    full_options_ = options_.sweep;
    full_options_.quick = false;
    quick_options_ = options_.sweep;
    quick_options_.quick = true;
    full_plan_ = PlanSweep(info_, full_options_);
    quick_plan_ = PlanSweep(info_, quick_options_);
    access_options_ = AccessOptions{};
    if (RoundUp(access_options_.read_bytes, info_.sector_bytes) > info_.size_bytes) {
      throw Error(options_.device + " (" + FormatBytes(info_.size_bytes) +
                      ") is too small to profile: the access test reads " +
                      ShortBytes(access_options_.read_bytes),
                  ErrorKind::kBadInput);
    }
    burst_options_ = BurstOptions{};
    if (burst_options_.region_bytes > info_.size_bytes) {
      // A small device: the burst reads all of it.
      burst_options_.region_bytes = RoundDown(info_.size_bytes, info_.sector_bytes);
    }
    burst_options_.chunk_bytes = std::min(burst_options_.chunk_bytes, burst_options_.region_bytes);
    name_ = PlotNameFor(options_.device);
    dir_ =
        options_.output == "-" ? "zcav-profile-" + name_ : ExpandOutputName(options_.output, info_);
    CheckOutputDir(dir_);
    data_name_ = name_ + ".dat";
    // The full plan has the most blocks; without the start's rate, at
    // least as many as with it.
    CheckOutputSpace(dir_, EstimateProfileBytes(full_plan_, access_options_.samples),
                     "the profile's files");
  }

  // --- Measure.
  void CreateDir() {
    CreateOutputDir(dir_);
    if (!options_.quiet) {
      for (const auto& n : info_.notes) err_ << "zcav: note: " << n << "\n";
    }
    if (!info_.direct_io) {
      err_ << "zcav: warning: O_DIRECT refused for " << info_.path
           << ": reading through the page cache; results may include page-cache effects (use a "
              "block device or a file system that supports O_DIRECT)\n";
    }
  }

  // 1. Full, quick or adaptive; the block size and the passes; says what
  // is planned.
  void ChooseSweep() {
    DecideSampling();
    FollowStartRate();
    PlanAdaptiveSweep();
    ChoosePasses();
    if (!options_.quiet) {
      err_ << "zcav: profiling " << info_.path << ": burst rate, access time, random reads, then ";
      if (adaptive_) {
        err_ << "an adaptive sweep (a grid of " << adaptive_->grid_probes << " probes of "
             << ShortBytes(adaptive_->probe_bytes) << ", then each zone edge bisected)";
      } else {
        err_ << "a " << (sampling_ == Sampling::kQuick ? "quick" : "full") << " sweep of "
             << plan().block_count << " blocks"
             << (full_seconds_ > 0 && sampling_ == Sampling::kFull
                     ? " (about " + Duration(full_seconds_) + ")"
                     : "");
      }
      err_ << "; results into " << dir_ << "/\n";
      for (const auto& n : plan().notes) err_ << "zcav: note: " << n << "\n";
      if (!passes_reason_.empty()) err_ << "zcav: note: " << passes_reason_ << "\n";
    }
  }

  // 2. Burst, 3. access.
  void MeasureBurstAndAccess() {
    burst_ = MeasureBurst(device_.device(), device_.clock(), burst_options_, &stop_);
    burst_mb_per_s_ =
        burst_.repetitions > 0 ? std::optional<double>(burst_.avg_mb_per_s) : std::nullopt;
    access_ = MeasureAccess(device_.device(), device_.clock(), access_options_, &stop_);
    // A small random-access set: 4 KiB and 1 MiB at depth 1 and 32 (the
    // sizes that fit the device), half a second each.
    random_options_.sizes.clear();
    for (const std::uint64_t size : {std::uint64_t{4096}, kMiB}) {
      if (RoundUp(size, info_.sector_bytes) <= info_.size_bytes)
        random_options_.sizes.push_back(size);
    }
    random_options_.depths = {1, 32};
    random_options_.cell_time = std::chrono::milliseconds(500);
    if (!access_.error && !stop_.load()) {
      random_ = MeasureRandomAccess(device_.device(), device_.clock(), random_options_, &stop_);
    }
  }

  // 4. The sweep: NAME.dat as blocks arrive, the JSON document in memory.
  void Sweep();

  // --- The overall status: the first read error, else an interrupt.
  void DecideStatus() {
    if (estimate_) NoteStep("duration estimate", estimate_->error, estimate_->error_offset_bytes);
    NoteStep("burst test", burst_.error, burst_.error_offset_bytes);
    NoteStep("access test", access_.error, access_.error_offset_bytes);
    NoteStep("random access test", random_.error, random_.error_offset_bytes);
    NoteStep("sweep", sweep_.error, sweep_.error_offset_bytes);
    interrupted_ = stop_.load() || sweep_.status == SweepStatus::kInterrupted ||
                   burst_.interrupted || access_.interrupted || random_.interrupted ||
                   (estimate_ && estimate_->interrupted);
    if (!read_error_ && interrupted_) status_ = "partial: interrupted";
    // --max-errors gave up: a failure like a read error; --max-time: partial
    // but not a failure.
    if (!read_error_ && !interrupted_ && sweep_.status == SweepStatus::kTooManyErrors) {
      gave_up_ = true;
      status_ = sweep_.StatusText();
    }
    if (!read_error_ && !interrupted_ && !gave_up_ && sweep_.status == SweepStatus::kTimeLimit) {
      status_ = sweep_.StatusText();
    }
    partial_ = read_error_ || interrupted_ || sweep_.partial();
  }

  // --- profile.json: the sweep's own document plus the other measurements.
  void WriteProfileJson();
  // --- zones.txt, the plots, the reports.
  void WriteZonesPlotsAndReports();
  // --- The summary: DIR/summary.txt, and on stderr unless quiet.
  void WriteSummary();

  // --- Writing failed (no space, an I/O error): `failure` says what failed,
  // e.g. "writing DIR/zones.txt failed: No space left on device". The first
  // one is kept; the steps after it write nothing more into DIR.
  void NoteWriteFailure(const std::string& failure) {
    if (failure_.empty()) failure_ = failure;
  }
  bool write_failed() const { return !failure_.empty(); }
  // After a write failure: profile.json, the file that holds everything,
  // stays in DIR when it was written there, else is written from memory
  // elsewhere (KeepElsewhere; stdout as the last resort). Says so in one
  // line; returns kExitKeptElsewhere.
  int KeepProfileJson(std::ostream& out);
  // The sweep's events also go to `sink` (not owned; --events), when not null.
  void set_events(ResultSink* sink) { events_ = sink; }

  // Says how the run ended; returns the exit code (app.h).
  int ExitCode() {
    if (read_error_) {
      err_ << "zcav: " << status_.substr(std::string("partial: ").size())
           << "; what was measured is in " << dir_ << "/ (marked partial)\n";
      return 1;
    }
    if (interrupted_) {
      err_ << "zcav: interrupted: what was measured is in " << dir_ << "/ (marked partial)\n";
      return 130;
    }
    if (gave_up_ || sweep_.status == SweepStatus::kTimeLimit) {
      err_ << "zcav: " << status_.substr(std::string("partial: ").size())
           << "; what was measured is in " << dir_ << "/ (marked partial)\n";
      if (gave_up_) return 1;
    }
    if (options_.expectations.empty()) return 0;
    ExpectationFigures figures = FiguresOf(sweep_);
    figures.health_verdict = HealthVerdictName(health_.health.verdict);
    return JudgeExpectations(options_, figures, err_);
  }

 private:
  void DecideSampling();
  void FollowStartRate();
  void PlanAdaptiveSweep();
  void ChoosePasses();
  std::vector<std::pair<std::string, std::string>> ProfileMembers() const;
  void NoteWriteFailure(const std::string& path, int error_number, const std::string& message) {
    NoteWriteFailure("writing " + path + " failed: " + FailureReason(error_number, message));
  }
  void PlotAndReport(bool gnuplot);
  void SummarizeMeasurements(std::ostream& s) const;
  void SummarizeCaches(std::ostream& s) const;

  const SweepPlan& plan() const {
    return sampling_ == Sampling::kQuick      ? quick_plan_
           : sampling_ == Sampling::kAdaptive ? adaptive_plan_
                                              : full_plan_;
  }
  std::string InDir(const std::string& file) const { return (fs::path(dir_) / file).string(); }
  // The bytes the burst test reads.
  std::uint64_t BurstRegionBytes() const {
    return RoundUp(burst_options_.region_bytes,
                   RoundUp(burst_options_.chunk_bytes, info_.sector_bytes));
  }
  // Makes `step`'s read error the run's status unless an earlier step had one.
  void NoteStep(const char* step, const std::error_code& error, std::uint64_t offset) {
    if (!error || read_error_) return;
    read_error_ = true;
    status_ = std::string("partial: read error in the ") + step + " at offset " +
              std::to_string(offset) + " bytes: " + error.message();
  }

  const ProfileCommandOptions& options_;
  std::ostream& err_;
  ResultSink* events_ = nullptr;  // --events: the sweep's events, or null
  const std::atomic<bool>& stop_;
  // What CheckInput settles.
  OpenedDevice device_;
  DeviceInfo info_;
  Transport transport_;
  Media media_ = Media::kNone;
  SweepOptions full_options_, quick_options_;
  SweepPlan full_plan_, quick_plan_, adaptive_plan_;
  AccessOptions access_options_;
  BurstOptions burst_options_;
  std::string name_, dir_, data_name_;
  // What ChooseSweep settles.
  std::optional<StartRate> estimate_;
  double full_seconds_ = 0;
  enum class Sampling { kFull, kQuick, kAdaptive };
  Sampling sampling_ = Sampling::kFull;
  std::optional<AdaptiveOptions> adaptive_;  // kAdaptive: the probes' shape (FollowStartRate)
  std::string sampling_reason_, passes_reason_;
  // What was measured.
  BurstResult burst_;
  std::optional<double> burst_mb_per_s_;
  AccessResult access_;
  RandomAccessOptions random_options_;
  RandomAccessResult random_;
  RunInfo run_;
  std::optional<AdaptiveResult> adaptive_result_;  // kAdaptive: the edges and zones
  // The sweep's writers and chain: its curve (for the plots and reports) and
  // recorder (the sweep's events, for profile.json when DIR fails).
  std::unique_ptr<SweepChain> chain_;
  std::unique_ptr<AtomicFile> json_file_;  // none once writing it failed
  SweepResult sweep_;
  ZoneAnalysis analysis_;
  ZoneReportContext context_;
  Verdict verdict_;
  HealthReport health_;  // the sweep's HealthSink: verdict, SMART, temperatures
  // What DecideStatus settles.
  std::string status_ = "complete";
  bool read_error_ = false;
  bool interrupted_ = false;
  bool gave_up_ = false;  // the sweep gave up (--max-errors)
  bool partial_ = false;
  bool json_written_ = false;  // profile.json is in DIR
  std::string failure_;        // the first write failure (NoteWriteFailure)
  // What was written into DIR, and the warnings to give about it.
  std::vector<std::string> wrote_;
  std::vector<std::string> notes_;
};

void ProfileRun::DecideSampling() {
  if (options_.profile_mode == ProfileMode::kFull) {
    sampling_reason_ = "--full";
    return;
  }
  if (options_.profile_mode == ProfileMode::kQuick) {
    sampling_ = Sampling::kQuick;
    sampling_reason_ = "--quick";
    return;
  }
  if (options_.profile_mode == ProfileMode::kAdaptive) {
    sampling_ = Sampling::kAdaptive;
    sampling_reason_ = "--adaptive";
    return;
  }
  StartRateOptions estimate_options;
  estimate_options.start_bytes = full_plan_.start_bytes;
  estimate_options.chunk_bytes = full_plan_.chunk_bytes;
  estimate_options.queue_depth = full_plan_.queue_depth;  // the rate the sweep will see
  estimate_ = MeasureStartRate(device_.device(), device_.clock(), estimate_options, &stop_);
  full_seconds_ = EstimateSweepSeconds(full_plan_, estimate_->mb_per_s);
  const std::string basis = ShortBytes(estimate_->bytes) + " at the start read at " +
                            Num(estimate_->mb_per_s, 1) + " MB/s";
  if (estimate_->mb_per_s <= 0) {
    sampling_reason_ = "full: the duration could not be estimated";
  } else if (full_seconds_ > kAdaptiveAboveSeconds) {
    sampling_ = Sampling::kAdaptive;
    sampling_reason_ = "adaptive: a full sweep would take about " + Duration(full_seconds_) + " (" +
                       basis + "), over 1 h";
    if (!options_.quiet) {
      err_ << "zcav: note: full sweep would take about " << Duration(full_seconds_)
           << "; run with --full to read every block (sampling adaptively now: a grid of probes, "
              "then each zone edge bisected; estimated from "
           << basis << ")\n";
    }
  } else {
    sampling_reason_ = "full: about " + Duration(full_seconds_) + " (" + basis + ")";
  }
}

// The default block size follows the start's rate (PlanSweep): the
// estimate above, or a short one (WithStartRate) with --full or --quick.
void ProfileRun::FollowStartRate() {
  if (options_.sweep.block_bytes != 0 || info_.read_engine == "sim") return;
  const double rate = !estimate_
                          ? WithStartRate(device_.device(), device_.clock(), options_.sweep, &stop_)
                                .expected_mb_per_s
                      : estimate_->error || estimate_->interrupted ? 0
                                                                   : estimate_->mb_per_s;
  full_options_.expected_mb_per_s = rate;
  quick_options_.expected_mb_per_s = rate;
  full_plan_ = PlanSweep(info_, full_options_);
  quick_plan_ = PlanSweep(info_, quick_options_);
}

// An adaptive sweep's probes: PlanAdaptive over the full plan's range at
// the start's rate (-b: the probe and its reads; --max-time: its time
// budget, the edges still open then keep their width), planned as a
// one-pass sweep of probe-sized blocks (the engine and depth it reads them
// with).
void ProfileRun::PlanAdaptiveSweep() {
  if (sampling_ != Sampling::kAdaptive) return;
  adaptive_ = PlanAdaptive(AdaptiveRequest{.start_bytes = full_plan_.start_bytes,
                                           .end_bytes = full_plan_.end_bytes,
                                           .sector_bytes = info_.sector_bytes,
                                           .expected_mb_per_s = full_options_.expected_mb_per_s,
                                           .max_chunk_bytes = full_plan_.chunk_bytes,
                                           .probe_bytes = options_.sweep.block_bytes,
                                           .chunk_bytes = options_.sweep.chunk_bytes,
                                           // --max-time: the sampling's time budget
                                           .budget_time = options_.sweep.max_time});
  SweepOptions probes = full_options_;
  probes.block_bytes = adaptive_->probe_bytes;
  probes.chunk_bytes = adaptive_->chunk_bytes;
  probes.passes = 1;
  adaptive_plan_ = PlanSweep(info_, probes);
  if (options_.passes_given && options_.sweep.passes > 1) {
    passes_reason_ = "-c " + std::to_string(options_.sweep.passes) +
                     " does not apply to adaptive sampling: each probe is read once (a marginal "
                     "one up to 3 times)";
  }
}

// A device read in full within kShortPassSeconds gets kShortDevicePasses
// passes unless -c says otherwise: a sweep of a few seconds is a few dozen
// blocks, and one slowdown of the machine (another process's I/O, a
// host's flush) over a handful of them reads as a zone of its own. The
// blocks' medians keep a slowdown of one pass out, and steps that move
// between passes are merged away (step_origin.h).
void ProfileRun::ChoosePasses() {
  if (!options_.passes_given && sampling_ == Sampling::kFull && estimate_ &&
      estimate_->mb_per_s > 0 && full_seconds_ <= kShortPassSeconds) {
    full_options_.passes = kShortDevicePasses;
    full_plan_ = PlanSweep(info_, full_options_);
    passes_reason_ = std::to_string(kShortDevicePasses) + " passes: one takes about " +
                     Duration(full_seconds_) + ", under " + Duration(kShortPassSeconds) +
                     " (the median of each block keeps a passing slowdown out of the zones)";
    full_seconds_ *= kShortDevicePasses;
  }
}

void ProfileRun::Sweep() {
  run_ = NewRunInfo(info_, plan(), options_.command_line);
  AtomicFile raw_file(InDir(data_name_), std::vector<std::string>{options_.device});
  // profile.json is the sweep's JSON, written as blocks arrive (a sweep of
  // 20 M blocks is gigabytes of JSON: never held in memory), completed with
  // the profile's members at the end (JsonDocumentWriter).
  json_file_ = std::make_unique<AtomicFile>(InDir("profile.json"),
                                            std::vector<std::string>{options_.device});
  // A failed write does not end the sweep: the events are kept in memory
  // for profile.json (KeepProfileJson).
  SweepChainSpec spec;
  spec.writers = {{OutputFormat::kRaw, &raw_file.stream(), raw_file.seekable()},
                  {OutputFormat::kJson, &json_file_->stream(), false, /*json_document=*/true}};
  spec.record = true;
  spec.keep_curve = true;
  if (options_.live && adaptive_) {
    // The live view draws a sweep's blocks as they come; an adaptive run
    // has its probes only once the sampling is done.
    notes_.push_back("--live: the sweep was adaptive (its probes come all at the end): not drawn");
  } else if (options_.live) {
    spec.live = MakeLiveView(options_.labels.empty() ? options_.device : options_.labels.front(),
                             device_.steady_clock(), options_.zones, media_ != Media::kNone, err_);
  }
  if (events_ != nullptr) spec.observers.push_back(events_);
  const bool tty = isatty(STDERR_FILENO) == 1;
  if (adaptive_ && !options_.quiet) {
    adaptive_->progress =
        AdaptiveProgressLine(err_, tty, adaptive_plan_.end_bytes - adaptive_plan_.start_bytes);
  } else if (!options_.quiet && !DrawsInTerminal(spec.live.get())) {
    spec.progress_out = &err_;
    spec.progress_clock = &device_.steady_clock();
    spec.progress_tty = tty;
  }
  // With 2+ passes, steps that follow the time, not the position, are merged
  // away before the writers see the zones (step_origin.h).
  spec.zones = options_.zones;
  spec.zones.blur_blocks = BlockTimingOf(plan()).blur_blocks();
  spec.media = media_;
  spec.transport = transport_;
  spec.burst_mb_per_s = burst_mb_per_s_;
  spec.health = HealthSourcesFor(device_.device(), /*smart=*/true);
  chain_ = std::make_unique<SweepChain>(std::move(spec));
  if (adaptive_) {
    sweep_ = chain_->RunAdaptive(device_.device(), run_, device_.clock(), *adaptive_, &stop_);
    if (!options_.quiet && tty) err_ << "\n";  // below the progress line
    adaptive_result_ = chain_->zones()->adaptive();
  } else {
    sweep_ = chain_->Run(device_.device(), run_, device_.clock(), &stop_);
  }
  if (DrawsInTerminal(chain_->live())) err_ << "\n";  // below the chart
  health_ = chain_->health()->report();
  const WriteGuard& raw_guard = chain_->guard(0);
  const WriteGuard& json_guard = chain_->guard(1);
  if (raw_guard.failed()) {
    NoteWriteFailure(InDir(data_name_), raw_guard.error_number(), raw_guard.message());
  } else {
    try {
      raw_file.Commit();
    } catch (const Error& e) {
      NoteWriteFailure(InDir(data_name_), raw_file.error_number(), e.what());
    }
  }
  if (json_guard.failed()) {
    NoteWriteFailure(InDir("profile.json"), json_guard.error_number(), json_guard.message());
    json_file_.reset();
  }
  analysis_ = chain_->analysis();
  context_ = chain_->context();
  verdict_ = context_.verdict ? *context_.verdict
                              : VerdictFor(analysis_, transport_, burst_mb_per_s_, std::nullopt,
                                           context_.caches);
}

void ProfileRun::WriteProfileJson() {
  if (!json_file_) return;  // writing it failed during the sweep
  try {
    json_file_->Put(chain_->json_document(1).Closing(ProfileMembers(), kReplacedSweepMembers));
    json_file_->Commit();
    json_written_ = true;
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kRuntime) throw;
    NoteWriteFailure(InDir("profile.json"), json_file_->error_number(), e.what());
    json_file_.reset();
  }
}

int ProfileRun::KeepProfileJson(std::ostream& out) {
  // A read error or an interrupt too: said in the same line.
  const std::string marked = partial_ ? " (marked partial: " + status_ + ")" : "";
  if (json_written_) {
    err_ << "zcav: " << failure_ << "; the measured data is kept in " << InDir("profile.json")
         << marked << "\n";
    return kExitKeptElsewhere;
  }
  const ResultWrite write = [&](std::ostream& stream, bool) {
    // The sweep's JSON again, from memory, then the profile's closing part.
    stream << chain_->recorder().JsonDocument(ProfileMembers(), kReplacedSweepMembers);
    stream.flush();
    if (!stream) throw Error("writing profile.json failed", ErrorKind::kRuntime);
  };
  const std::string kept = KeepElsewhere(InDir("profile.json"), "", write, out, false);
  err_ << "zcav: " << failure_;
  if (kept.empty()) {
    err_ << "; nothing could be kept ($TMPDIR, /tmp and stdout failed too): the measured data "
            "is lost\n";
  } else {
    err_ << "; the measured data is kept in " << kept << " (profile.json)" << marked << "\n";
  }
  return kExitKeptElsewhere;
}

// profile.json's end after the sweep's blocks: `sweep_closing`, the sweep's
// members after "blocks", merged with the profile's.
// profile.json's members after the sweep's (each replacing a sweep member of
// its name), as JSON text.
std::vector<std::pair<std::string, std::string>> ProfileRun::ProfileMembers() const {
  const ProfileSampling sampling = {
      .sampling = sampling_ == Sampling::kQuick      ? "quick"
                  : sampling_ == Sampling::kAdaptive ? "adaptive"
                                                     : "full",
      .why = sampling_reason_,
      .adaptive_above_seconds = kAdaptiveAboveSeconds,
      .passes = plan().passes,
      .passes_why = passes_reason_.empty() ? std::string(options_.passes_given ? "-c" : "default")
                                           : passes_reason_,
      .estimate = estimate_,
      .full_sweep_seconds = full_seconds_};
  return ProfileJsonMembers(
      {.transport = transport_,
       .verdict = verdict_,
       .sweep = sweep_,
       .plan = plan(),
       .access = access_,
       .access_read_bytes = RoundUp(access_options_.read_bytes, info_.sector_bytes),
       .random_access = random_,
       .random_options = random_options_,
       .burst = burst_,
       .burst_region_bytes = BurstRegionBytes(),
       .sampling = sampling,
       .status = status_,
       .partial = partial_});
}

void ProfileRun::WriteZonesPlotsAndReports() {
  ZoneReportContext context = context_;
  context.transport = transport_;
  context.verdict = verdict_;
  WriteFileAtomically(InDir("zones.txt"),
                      sweep_.blocks_measured > 0 ? FormatZoneTable(analysis_, context)
                                                 : "no blocks measured: no zones\n",
                      {options_.device});
  wrote_ = {"profile.json", data_name_, "zones.txt"};
  const bool gnuplot = GnuplotAvailable();
  if (sweep_.blocks_measured > 0) {
    PlotAndReport(gnuplot);
  } else {
    notes_.push_back("no blocks were measured: no plots and no report");
  }
}

void ProfileRun::PlotAndReport(bool gnuplot) {
  // What `zcav plot|report DIR/profile.json` would read back, from memory.
  PlotInput input;
  SavedResult& p = input.profile;
  p = SweepProfile(InDir("profile.json"), "zcav-json", run_, sweep_,
                   std::move(chain_->curve().points));
  p.adaptive = adaptive_result_;
  if (!access_.samples.empty()) p.access_mean_ms = access_.mean_ms;
  for (const AccessReading& x : access_.samples) p.access_samples.push_back({x.offset_bytes, x.ms});
  p.burst_mb_per_s = burst_mb_per_s_;
  p.random_access = random_.cells;
  p.random_access_mode = "read";
  p.verdict = VerdictKindName(verdict_.kind);
  p.verdict_reason = verdict_.reason;
  if (partial_) p.notes.push_back("the run's status: " + status_);
  // The read errors and chunk latencies, as profile.json records them: the
  // surface map and the reports' latency table.
  if (p.unreadable.empty()) p.unreadable = sweep_.unreadable;
  if (p.slow_regions.empty()) p.slow_regions = sweep_.slow_regions;
  if (p.latency_classes.empty()) {
    for (const PassSummary& pass : sweep_.passes) p.latency_classes.push_back(pass.latency);
  }
  if (p.worst_chunk_ms.empty()) p.worst_chunk_ms = std::move(chain_->curve().worst_chunk_ms);
  if (p.chunk_bytes == 0) p.chunk_bytes = run_.plan.chunk_bytes;
  if (!p.plan) p.plan = run_.plan;
  p.health_verdict = HealthVerdictName(health_.health.verdict);
  p.health_reasons = health_.health.reasons;
  for (const SmartChange& c : health_.smart_increases) {
    p.smart_increases.push_back(c.field + " " + std::to_string(c.before) + " -> " +
                                std::to_string(c.after));
  }
  if (health_.smart_requested && !health_.smart_before.available) {
    p.smart_note = health_.smart_before.note;
  }
  p.temperatures = health_.temperatures;
  input.media = media_;
  input.zones = analysis_;
  input.access = p.access_samples;
  input.label = !options_.labels.empty()  ? options_.labels.front()
                : !p.device_model.empty() ? DefaultPlotLabel(p)
                                          : options_.device;
  const auto plot = [&](PlotKind kind, const std::string& plot_name) {
    const PlotFiles files =
        WritePlot(kind, {input}, dir_, plot_name, {plot_name + ".png", plot_name + ".svg"});
    if (gnuplot) RenderPlot(files);
    wrote_.push_back(plot_name + (gnuplot ? ".png" : ".gp"));
  };
  plot(PlotKind::kFalloff, name_);
  if (!input.access.empty()) plot(PlotKind::kAccess, name_ + "-access");
  if (HasLatencyData(p)) plot(PlotKind::kMap, name_ + "-map");
  const bool random = std::any_of(p.random_access.begin(), p.random_access.end(),
                                  [](const RandomAccessCell& c) { return c.iops > 0; });
  if (random) plot(PlotKind::kRandom, name_ + "-random");
  for (const char* report : {"report.html", "report.md"}) {
    const ReportFiles files = WriteReport({input}, InDir(report));
    wrote_.push_back(report);
    (void)files;  // its notes say gnuplot is missing, said once below
  }
  if (!gnuplot) {
    notes_.push_back(
        "gnuplot (with the pngcairo and svg terminals) is not installed: wrote the "
        ".gp scripts and their data in " +
        dir_ +
        " but no images, and the reports "
        "without plots; install gnuplot and run 'gnuplot FILE.gp' there to draw them");
  }
}

void ProfileRun::WriteSummary() {
  std::ostringstream s;
  s << "Device:        " << info_.path;
  if (!info_.model.empty()) s << "  " << info_.model;
  const double size = static_cast<double>(info_.size_bytes);
  s << " (" << (size >= kGB ? Num(size / kGB, 1) + " GB" : Num(size / kMB, 1) + " MB") << "), "
    << TransportText(transport_) << "\n";
  s << "Drive:         serial " << (info_.serial.empty() ? "unknown" : info_.serial)
    << ", firmware " << (info_.firmware.empty() ? "unknown" : info_.firmware);
  if (!info_.wwn.empty()) s << ", WWN " << info_.wwn;
  s << "; measured on " << (run_.host.empty() ? "an unknown host" : run_.host) << "\n";
  SummarizeMeasurements(s);
  s << "Zones:         ";
  if (analysis_.zones.empty()) {
    s << "none";
  } else if (analysis_.zones.size() == 1) {
    s << "1 zone (" << CurveTypeName(analysis_.type) << ") at "
      << Num(analysis_.zones.front().mb_per_s, 1) << " MB/s";
  } else {
    s << analysis_.zones.size() << " zones (" << CurveTypeName(analysis_.type) << "), "
      << Num(analysis_.zones.front().mb_per_s, 1) << " -> "
      << Num(analysis_.zones.back().mb_per_s, 1) << " MB/s (" << Num(analysis_.outer_inner_ratio, 2)
      << ":1)";
  }
  s << "\n";
  s << "Verdict:       " << VerdictKindName(verdict_.kind) << " — " << verdict_.reason << "\n";
  s << "Health:        " << HealthText(health_) << "\n";
  s << "SMART:         " << SmartText(health_) << "\n";
  s << "Wrote:         " << dir_ << "/ (";
  wrote_.push_back("summary.txt");
  for (std::size_t i = 0; i < wrote_.size(); ++i) s << (i ? ", " : "") << wrote_[i];
  s << ")\n";
  WriteFileAtomically(InDir("summary.txt"), s.str(), {options_.device});
  for (const std::string& note : notes_) err_ << "zcav: warning: " << note << "\n";
  if (!options_.quiet) err_ << s.str();
}

// The summary's lines on the passes and the page cache (caches.h): each
// pass's rate when there are several, and what the page cache held.
void ProfileRun::SummarizeCaches(std::ostream& s) const {
  const CacheFinding& f = context_.caches;
  std::vector<std::string> rates;
  for (const PassSummary& p : sweep_.passes) {
    if (p.complete) rates.push_back(Num(p.mb_per_s, 1));
  }
  if (rates.size() >= 2) {
    s << "Passes:        " << Join(rates) << " MB/s (" << PassTrendName(f.trend);
    if (f.storage_pass != 0) s << "; pass " << f.storage_pass << " measures the storage";
    s << "; the avg above is bytes / read time over all passes, the zones the median per block)\n";
  }
  if (!info_.page_cache_file.empty()) {
    const auto pct = [](std::optional<double> share) {
      return share ? Num(100 * *share, 0) + " %" : std::string("unknown");
    };
    s << "Page cache:    " << CleanText(info_.page_cache_file, kMaxIdentityBytes)
      << " (the reads pass through it): "
      << pct(sweep_.passes.empty() ? std::nullopt : sweep_.passes.front().cached_share)
      << " cached at the start, " << pct(sweep_.cached_share_at_end) << " at the end";
    if (!f.ram_passes.empty()) {
      s << "; "
        << (f.ram_passes.front() == 1 ? "the sweep measured RAM, not the storage"
                                      : "later passes read RAM");
    }
    s << "\n";
  }
}

// The summary's lines for the sweep, the access time and the burst rate.
void ProfileRun::SummarizeMeasurements(std::ostream& s) const {
  s << "Linear read:   ";
  if (sweep_.blocks_measured > 0) {
    s << "min " << Num(sweep_.min_mb_per_s, 1) << "  avg " << Num(sweep_.avg_mb_per_s, 1)
      << "  max " << Num(sweep_.max_mb_per_s, 1) << " MB/s  (" << Num(sweep_.cpu_percent, 1)
      << "% CPU; MB = 10^6 B)";
  } else {
    s << "not measured";
  }
  if (adaptive_result_) {
    s << "  [adaptive: " << sweep_.blocks_measured << " probes, "
      << Num(100.0 * static_cast<double>(adaptive_result_->bytes_read) /
                 static_cast<double>(std::max<std::uint64_t>(1, adaptive_result_->range_bytes)),
             2)
      << " % of the surface read]";
  } else if (plan().quick) {
    s << "  [quick: every 10th block]";
  } else if (plan().passes > 1) {
    s << "  [" << plan().passes << " passes]";
  }
  if (sweep_.partial()) s << "  [" << sweep_.StatusText() << "]";
  s << "\n";
  SummarizeCaches(s);
  s << "Access time:   ";
  if (!access_.samples.empty()) {
    s << FormatMilliseconds(access_.mean_ms) << " mean, " << FormatMilliseconds(access_.median_ms)
      << " median, " << FormatMilliseconds(access_.p95_ms) << " p95 (" << access_.samples.size()
      << " random " << ShortBytes(RoundUp(access_options_.read_bytes, info_.sector_bytes))
      << " reads)";
  } else {
    s << "not measured";
  }
  if (access_.error)
    s << "  [stopped by a read error at offset " << access_.error_offset_bytes << "]";
  s << "\n";
  if (!random_.cells.empty()) {
    s << "Random reads:  ";
    std::uint64_t size = 0;
    for (const RandomAccessCell& c : random_.cells) {
      if (c.size_bytes != size) {
        s << (size == 0 ? "" : "; ") << ShortBytes(c.size_bytes) << " ";
        size = c.size_bytes;
      } else {
        s << ", ";
      }
      s << Num(c.iops, 0) << " IOPS (" << Num(c.mb_per_s, 1) << " MB/s) at depth " << c.queue_depth;
    }
    s << "\n";
  }
  s << "Burst rate:    ";
  if (burst_mb_per_s_) {
    s << Num(*burst_mb_per_s_, 1) << " MB/s (the first " << ShortBytes(BurstRegionBytes()) << ", "
      << burst_.repetitions << " times)";
    // The verdict's rule: more than 10 % below the fastest zone, the burst
    // test's reads (one at a time) wait on latency, not on the interface.
    const double peak =
        analysis_.zones.empty()
            ? 0
            : analysis_.zones[std::min(analysis_.fastest_zone, analysis_.zones.size() - 1)]
                  .mb_per_s;
    if (peak > 0 && *burst_mb_per_s_ < 0.9 * peak) {
      s << "  [" << Num(*burst_mb_per_s_ / peak, 2) << "x the sustained peak: reads of "
        << ShortBytes(RoundUp(burst_options_.chunk_bytes, info_.sector_bytes))
        << " one at a time measure latency, not the interface]";
    }
  } else {
    s << "not measured";
  }
  if (burst_.error)
    s << "  [stopped by a read error at offset " << burst_.error_offset_bytes << "]";
  s << "\n";
}

int RunProfile(const ProfileCommandOptions& options, const Invocation& inv) {
  std::ostream& err = inv.err;  // stdout stays empty: the results are files
  const std::atomic<bool>& stop = inv.stop;
  for (const auto& w : options.warnings) err << "zcav: warning: " << w << "\n";
  ProfileRun run(options, err, stop);
  run.CheckInput();
  // stdout is otherwise empty: --events - may use it.
  EventsOutput events(options.events, inv.out, {options.device});
  run.set_events(events.sink());
  run.CreateDir();
  run.ChooseSweep();
  run.MeasureBurstAndAccess();
  run.Sweep();
  run.DecideStatus();
  run.WriteProfileJson();
  if (!run.write_failed()) {
    try {
      run.WriteZonesPlotsAndReports();
      run.WriteSummary();
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kRuntime) throw;
      run.NoteWriteFailure(e.what());
    }
  }
  // Kept elsewhere (4) wins over a read error (1) and an interrupt (130):
  // what was measured is not where the user looks for it.
  const int code = run.write_failed() ? run.KeepProfileJson(inv.out) : run.ExitCode();
  events.Exit(code, err);
  return code;
}

}  // namespace

int ProfileCommand(const Invocation& inv) {
  return ParseThenRun(inv, kSyntax, DescribeProfile, ReadProfile, RunProfile);
}

}  // namespace zcav
