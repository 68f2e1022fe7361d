// zcav sweep DEV1 DEV2 ...: several devices read at the same time, one
// thread each (lib/zcav/measure/concurrent.h), optionally each alone first.
//
// Files (with -o DIR): DIR/NAME.EXT per device (the format's usual
// extension: .dat, .csv, .json), DIR/NAME.alone.EXT with --alone-and-together,
// DIR/aggregate.dat (the rate of each device and of all together over time)
// and DIR/aggregate.json (the figures and the shared-ceiling judgement).
// With classic `-l LOG -f DEV` pairs each device's result goes to its LOG
// and the aggregate figures to stderr only.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include "app.h"
#include "app_util.h"
#include "zcav/base/clock.h"
#include "zcav/measure/concurrent.h"
#include "zcav/device/device.h"
#include "zcav/base/error.h"
#include "zcav/device/sim_device.h"
#include "zcav/measure/sweep.h"
#include "zcav/analysis/transport.h"
#include "zcav/base/units.h"
#include "zcav/version.h"
#include "zcav/io/writers.h"
#include "zcav/io/zone_report.h"

namespace zcav {
namespace {

const char* Extension(OutputFormat format) {
  switch (format) {
    case OutputFormat::kCsv: return ".csv";
    case OutputFormat::kJson: return ".json";
    case OutputFormat::kRaw: break;
  }
  return ".dat";
}

// File names for the devices: PlotNameFor, made unique with -2, -3...
std::vector<std::string> UniqueNames(const std::vector<std::string>& devices) {
  std::vector<std::string> names;
  std::set<std::string> used;
  for (const std::string& d : devices) {
    const std::string base = PlotNameFor(d);
    std::string name = base;
    for (int k = 2; !used.insert(name).second; ++k) name = base + "-" + std::to_string(k);
    names.push_back(name);
  }
  return names;
}

// The progress of several sweeps on one line: each device's share done and
// the total rate since the previous line. Called from the sweeps' threads.
// On a TTY the line is rewritten at most every 0.5 s; elsewhere a plain line
// every 10 s.
class SeveralProgress {
 public:
  SeveralProgress(std::ostream& err, std::vector<std::string> names)
      : err_(err), names_(std::move(names)), done_(names_.size(), 0), total_(names_.size(), 1),
        tty_(isatty(STDERR_FILENO) == 1) {}

  void Total(std::size_t lane, std::uint64_t bytes) {
    std::lock_guard lock(mutex_);
    total_[lane] = std::max<std::uint64_t>(bytes, 1);
  }
  void Add(std::size_t lane, std::uint64_t bytes) {
    std::lock_guard lock(mutex_);
    done_[lane] += bytes;
    bytes_since_ += bytes;
    const auto now = clock_.Now();
    if (last_.count() == 0) last_ = now;
    const auto every = tty_ ? std::chrono::milliseconds(500) : std::chrono::milliseconds(10000);
    if (now - last_ < every) return;
    std::string line = "zcav:";
    for (std::size_t i = 0; i < names_.size(); ++i) {
      line += " " + names_[i] + " " +
              Num(100.0 * static_cast<double>(done_[i]) / static_cast<double>(total_[i]), 1) + "%";
    }
    const double seconds = static_cast<double>((now - last_).count()) * 1e-9;
    line += "  together " + Num(static_cast<double>(bytes_since_) / seconds / kMB, 1) + " MB/s";
    err_ << (tty_ ? "\r" + line + "\x1b[K" : line + "\n") << std::flush;
    printed_ = true;
    last_ = now;
    bytes_since_ = 0;
  }
  // Ends a rewritten line.
  void Finish() {
    std::lock_guard lock(mutex_);
    if (tty_ && printed_) err_ << "\n";
  }

 private:
  std::ostream& err_;
  std::vector<std::string> names_;
  std::vector<std::uint64_t> done_, total_;
  bool tty_;
  SteadyClock clock_;
  std::mutex mutex_;
  std::chrono::nanoseconds last_{0};
  std::uint64_t bytes_since_ = 0;
  bool printed_ = false;
};

// One lane's events into the shared progress line.
class LaneProgressSink final : public SampleSink {
 public:
  LaneProgressSink(SeveralProgress& shared, std::size_t lane) : shared_(shared), lane_(lane) {}
  void OnStart(const RunInfo& run) override {
    std::uint64_t bytes = 0;
    for (std::uint64_t b = 0; b < run.plan.block_count; ++b) bytes += run.plan.BlockLength(b);
    shared_.Total(lane_, bytes * run.plan.passes);
  }
  void OnSample(const Sample& s) override { shared_.Add(lane_, s.length_bytes); }

 private:
  SeveralProgress& shared_;
  std::size_t lane_;
};

// One device's sweep: its clock, device, sinks and output file.
struct Lane {
  std::string device_name;
  std::string file_name;  // short name for files and messages
  VirtualClock virtual_clock;
  SteadyClock steady_clock;
  std::unique_ptr<Device> device;
  RunInfo run;
  std::unique_ptr<OutputFile> file;
  std::unique_ptr<SampleSink> writer;
  TimelineSink timeline;
  CurveSink curve;
  std::unique_ptr<LaneProgressSink> progress;  // together only, unless quiet
  std::unique_ptr<TeeSink> tee;
  std::unique_ptr<ZoneDetectingSink> zones;
  SweepResult result;

  Clock& clock() {
    return IsSimulatedName(device_name) ? static_cast<Clock&>(virtual_clock)
                                        : static_cast<Clock&>(steady_clock);
  }
};

// Opens the device (on `buses`) and plans the sweep. Throws Error.
void Open(const CliOptions& options, Lane& lane, SimBusSet& buses) {
  lane.device = OpenDevice(lane.device_name, lane.virtual_clock, &buses);
  lane.run.device = lane.device->info();
  lane.run.plan = PlanSweep(lane.run.device, options.sweep);
  lane.run.version = ZCAV_VERSION;
  lane.run.command_line = options.command_line;
  lane.run.start_time_utc = UtcNow();
}

// Creates the output file and the sinks. Throws Error.
void CreateOutput(const CliOptions& options, Lane& lane, const std::string& output) {
  lane.file = std::make_unique<OutputFile>(output, options.devices);
  lane.writer = MakeWriter(options.format, lane.file->stream(), lane.file->seekable());
  std::vector<SampleSink*> sinks{lane.writer.get(), &lane.timeline, &lane.curve};
  if (lane.progress) sinks.push_back(lane.progress.get());
  lane.tee = std::make_unique<TeeSink>(sinks);
  const Transport transport = options.bus.empty() ? TransportFromDevice(lane.run.device)
                                                  : TransportFromName(options.bus);
  const Media media = options.media_given ? options.media : GuessMedia(lane.device_name);
  lane.zones = std::make_unique<ZoneDetectingSink>(*lane.tee, options.zones, media, transport);
}

SampleSink& SinkOf(const CliOptions& options, Lane& lane) {
  return options.detect_zones ? static_cast<SampleSink&>(*lane.zones) : *lane.tee;
}

std::string Mb(double v) { return Num(v, 1) + " MB/s"; }

PlotInput PlotInputOf(const CliOptions& options, const Lane& lane, std::size_t index) {
  PlotInput input;
  Profile& p = input.profile;
  p.source = lane.device_name;
  p.format = "sweep";
  p.device_path = lane.run.device.path;
  p.device_bytes = lane.run.device.size_bytes;
  p.block_bytes = lane.run.plan.block_bytes;
  p.passes = lane.run.plan.passes;
  p.points = lane.curve.points;
  p.device_model = lane.run.device.model;
  p.avg_mb_per_s = lane.result.avg_mb_per_s;
  input.media = options.media_given ? options.media : GuessMedia(lane.device_name);
  input.label = index < options.labels.size() ? options.labels[index] : lane.file_name;
  return input;
}

// Refuses mixing simulated and real devices (different clocks), a device
// given twice, and an output directory that is a file.
void CheckSeveral(const CliOptions& options, bool classic_logs) {
  std::size_t simulated = 0;
  std::set<std::string> seen;
  for (const std::string& d : options.devices) {
    if (IsSimulatedName(d)) ++simulated;
    if (!IsSimulatedName(d) && !seen.insert(d).second) {
      throw Error("device " + d + " given twice: each device can be read once at a time");
    }
  }
  if (simulated != 0 && simulated != options.devices.size()) {
    throw Error("cannot read simulated and real devices together (simulated time is not real "
                "time): give only sim: devices or only real ones");
  }
  if (!classic_logs) {
    struct stat st {};
    if (::stat(options.output.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      throw Error("output " + options.output +
                  " is not a directory: with several devices -o names a directory for one "
                  "result per device and the aggregate");
    }
  }
}

}  // namespace

int RunSeveralSweepsCommand(const CliOptions& options, std::ostream& err,
                            const std::atomic<bool>& stop_requested) {
  for (const auto& w : options.warnings) err << "zcav: warning: " << w << "\n";
  const bool classic_logs = !options.outputs.empty();
  CheckSeveral(options, classic_logs);
  const std::vector<std::string> names = UniqueNames(options.devices);
  const std::size_t n = options.devices.size();
  const std::filesystem::path dir(classic_logs ? std::string() : options.output);
  const auto output_for = [&](std::size_t i, bool alone) {
    if (classic_logs) {
      return alone ? options.outputs[i] + ".alone" : options.outputs[i];
    }
    return (dir / (names[i] + (alone ? ".alone" : "") + Extension(options.format))).string();
  };

  // Every device is opened and every file created before the first read,
  // so bad input fails with nothing measured.
  std::vector<std::unique_ptr<Lane>> together;
  SimBusSet buses;
  for (std::size_t i = 0; i < n; ++i) {
    together.push_back(std::make_unique<Lane>());
    together[i]->device_name = options.devices[i];
    together[i]->file_name = names[i];
    Open(options, *together[i], buses);
  }
  if (!classic_logs) std::filesystem::create_directories(dir);
  SeveralProgress progress(err, names);
  for (std::size_t i = 0; i < n; ++i) {
    if (!options.quiet) together[i]->progress = std::make_unique<LaneProgressSink>(progress, i);
    CreateOutput(options, *together[i], output_for(i, false));
  }

  // Alone first: each device by itself (a bus of its own).
  std::vector<double> alone_mb_per_s;
  std::vector<std::unique_ptr<Lane>> alone;
  bool stopped = false;
  if (options.alone_and_together) {
    for (std::size_t i = 0; i < n && !stopped; ++i) {
      SimBusSet own_buses;
      auto lane = std::make_unique<Lane>();
      lane->device_name = options.devices[i];
      lane->file_name = names[i];
      // The device is already open for the together run: a second handle.
      Open(options, *lane, own_buses);
      CreateOutput(options, *lane, output_for(i, true));
      if (!options.quiet) err << "zcav: reading " << lane->device_name << " alone\n";
      lane->result = RunSweep(*lane->device, lane->run, lane->clock(), SinkOf(options, *lane),
                              &stop_requested);
      lane->device.reset();
      lane->file->Commit(lane->result.partial());
      alone_mb_per_s.push_back(lane->result.avg_mb_per_s);
      if (!options.quiet) {
        err << "zcav: alone: " << lane->file_name << " " << Mb(lane->result.avg_mb_per_s) << "\n";
      }
      stopped = lane->result.partial();
      alone.push_back(std::move(lane));
    }
  }

  std::vector<SweepResult> results(n);
  if (!stopped) {
    if (!options.quiet) err << "zcav: reading " << n << " devices together, one thread each\n";
    std::vector<ConcurrentJob> jobs;
    for (auto& lane : together) {
      jobs.push_back({std::move(lane->device), lane->run, &lane->clock(), &SinkOf(options, *lane)});
    }
    results = RunConcurrentSweeps(jobs, &stop_requested);
    progress.Finish();
  }
  for (std::size_t i = 0; i < n; ++i) {
    together[i]->result = results[i];
    // Not read at all (interrupted while reading alone): no file.
    if (!stopped) together[i]->file->Commit(results[i].partial());
  }
  if (!options.alone_and_together || alone.size() != n || stopped) alone_mb_per_s.clear();

  // The aggregate.
  std::vector<std::vector<TimedRead>> timelines;
  for (const auto& lane : together) timelines.push_back(lane->timeline.reads());
  const Aggregate aggregate = AggregateTimelines(timelines);
  const auto run_of = [](const Lane& lane) {
    DeviceRun run;
    run.name = lane.file_name;
    run.avg_mb_per_s = lane.result.avg_mb_per_s;
    for (const CurvePoint& p : lane.curve.points) {
      run.block_mb_per_s.push_back(p.mb_per_s);
      run.block_bytes.push_back(p.length_bytes);
    }
    return run;
  };
  std::vector<DeviceRun> alone_runs, together_runs;
  if (!alone_mb_per_s.empty()) {
    for (const auto& lane : alone) alone_runs.push_back(run_of(*lane));
  }
  for (const auto& lane : together) together_runs.push_back(run_of(*lane));
  const SharedCeiling ceiling = JudgeSharedCeiling(alone_runs, together_runs, aggregate);

  if (!classic_logs) {
    OutputFile dat((dir / "aggregate.dat").string(), options.devices);
    std::ostream& o = dat.stream();
    o << "# zcav " << ZCAV_VERSION << ": " << n << " devices read together, one thread each\n";
    for (std::size_t i = 0; i < n; ++i) {
      o << "# device " << i + 1 << ": " << options.devices[i] << " (" << names[i] << ")\n";
    }
    o << "# rates in MB/s (MB = 10^6 B), per slice of " << Num(aggregate.wall_seconds / 200, 3)
      << " s; time from the first read\n# time_s total_mb_per_s";
    for (std::size_t i = 0; i < n; ++i) o << " " << names[i] << "_mb_per_s";
    o << "\n";
    for (const AggregatePoint& p : aggregate.points) {
      o << Num(p.time_s, 4) << " " << Num(p.total_mb_per_s, 3);
      for (double v : p.device_mb_per_s) o << " " << Num(v, 3);
      o << "\n";
    }
    dat.Commit();

    Json devices = Json::array();
    for (std::size_t i = 0; i < n; ++i) {
      Json d = {{"path", options.devices[i]},
                {"name", names[i]},
                {"alone_mb_per_s", nullptr},
                {"together_mb_per_s", Finite(aggregate.device_mb_per_s[i])},
                {"avg_mb_per_s", Finite(together[i]->result.avg_mb_per_s)},
                {"status", together[i]->result.StatusText()}};
      if (!alone_mb_per_s.empty()) d["alone_mb_per_s"] = Finite(alone_mb_per_s[i]);
      devices.push_back(d);
    }
    Json timeline = Json::array();
    for (const AggregatePoint& p : aggregate.points) {
      Json rates = Json::array();
      for (double v : p.device_mb_per_s) rates.push_back(Finite(v));
      timeline.push_back({{"time_s", Finite(p.time_s)},
                          {"total_mb_per_s", Finite(p.total_mb_per_s)},
                          {"device_mb_per_s", rates}});
    }
    Json doc = {{"zcav_version", ZCAV_VERSION},
                {"units", "MB = 10^6 bytes"},
                {"devices", devices},
                {"together",
                 {{"aggregate_mb_per_s", Finite(aggregate.aggregate_mb_per_s)},
                  {"peak_mb_per_s", Finite(aggregate.peak_mb_per_s)},
                  {"wall_seconds", Finite(aggregate.wall_seconds)},
                  {"high_mb_per_s", Finite(aggregate.high_mb_per_s)},
                  {"overlap_seconds", Finite(aggregate.overlap_seconds)}}},
                {"alone", nullptr},
                {"ceiling", {{"shared", nullptr}, {"reason", ceiling.reason}}},
                {"timeline", timeline}};
    if (!alone_mb_per_s.empty()) doc["alone"] = {{"sum_mb_per_s", Finite(ceiling.sum_alone_mb_per_s)}};
    if (ceiling.shared) {
      doc["ceiling"]["shared"] = *ceiling.shared;
      doc["ceiling"]["share_of_alone"] = Finite(ceiling.share);
      Json slowed = Json::array();
      for (double v : ceiling.slowed_share) slowed.push_back(Finite(v));
      doc["ceiling"]["slowed_share"] = slowed;
    }
    OutputFile json((dir / "aggregate.json").string(), options.devices);
    json.stream() << Dump(doc);
    json.Commit();
  }

  if (!options.plot_dir.empty()) {
    std::vector<PlotInput> inputs;
    for (std::size_t i = 0; i < n; ++i) {
      if (together[i]->curve.points.empty()) continue;
      if (alone.size() == n && !alone[i]->curve.points.empty()) {
        PlotInput input = PlotInputOf(options, *alone[i], i);
        input.concurrent = together[i]->curve.points;
        inputs.push_back(std::move(input));
      } else {
        inputs.push_back(PlotInputOf(options, *together[i], i));
      }
    }
    if (!inputs.empty()) {
      const bool both = alone.size() == n && inputs.size() == n;
      const std::string name = both ? "together" : "comparison";
      WriteAndRender(both ? PlotKind::kConcurrent : PlotKind::kComparison, inputs, options.plot_dir,
                     name, {name + ".png", name + ".svg"}, options.quiet, err);
    }
  }

  // The summary, in the style of the zone table: always (it is the result).
  err << "zcav: together:";
  for (std::size_t i = 0; i < n; ++i) {
    err << (i ? "," : "") << " " << names[i] << " " << Mb(aggregate.device_mb_per_s[i]);
  }
  err << "; all together " << Mb(aggregate.aggregate_mb_per_s) << " (peak "
      << Mb(aggregate.peak_mb_per_s) << ") over " << Num(aggregate.overlap_seconds, 1)
      << " s of " << Num(aggregate.wall_seconds, 1) << " s; MB = 10^6 B\n";
  err << "zcav: " << ceiling.reason << "\n";
  if (!classic_logs && !options.quiet) {
    err << "zcav: wrote " << n << " results, aggregate.dat and aggregate.json to " << dir.string()
        << "\n";
  }

  int code = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const SweepResult& r = together[i]->result;
    if (stopped || r.status == SweepStatus::kInterrupted) {
      code = 130;
    } else if (r.status == SweepStatus::kReadError) {
      err << "zcav: read error at offset " << r.error_offset_bytes << " bytes ("
          << FormatBytes(r.error_offset_bytes) << ") of " << options.devices[i] << ": "
          << r.error.message() << "; stopped there, data before it kept (marked partial)\n";
      if (code == 0) code = 1;
    }
  }
  for (const auto& lane : alone) {
    if (lane->result.status == SweepStatus::kReadError && code == 0) code = 1;
  }
  if (code == 130) err << "zcav: interrupted: partial results written (marked partial)\n";
  return code;
}

}  // namespace zcav
