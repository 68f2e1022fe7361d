// zcav sweep DEV1 DEV2 ...: several devices read at the same time, one
// thread each (lib/zcav/measure/concurrent.h), optionally each alone first.
//
// Files (with -o DIR): DIR/NAME.EXT per device (the format's usual
// extension: .dat, .csv, .json), DIR/NAME.alone.EXT with --alone-and-together,
// DIR/aggregate.dat (the rate of each device and of all together over time)
// and DIR/aggregate.json (the figures and the shared-ceiling judgement).
// With classic `-l LOG -f DEV` pairs each device's result goes to its LOG
// and the aggregate figures to stderr only. A result or aggregate that cannot
// be written (no space, an I/O error) is kept elsewhere (output_space.h) and
// the run ends with kExitKeptElsewhere.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include "../app_util.h"
#include "../output_space.h"
#include "sweep.h"
#include "zcav/analysis/transport.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/device.h"
#include "zcav/device/sim_device.h"
#include "zcav/format/result_size.h"
#include "zcav/format/writers.h"
#include "zcav/format/zone_table.h"
#include "zcav/measure/concurrent.h"
#include "zcav/measure/sweep.h"
#include "zcav/pipeline/sweep_chain.h"
#include "zcav/version.h"

namespace zcav {
namespace {

const char* Extension(OutputFormat format) {
  switch (format) {
    case OutputFormat::kCsv:
      return ".csv";
    case OutputFormat::kJson:
      return ".json";
    case OutputFormat::kRaw:
      break;
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

// One device's sweep: its clock, device, sinks and output file.
struct Lane {
  std::string device_name;
  std::string file_name;  // short name for files and messages
  OpenedDevice opened;
  RunInfo run;
  std::unique_ptr<AtomicFile> file;
  std::string output;  // where the result goes
  // Its sinks: a failed write does not end the sweeps: the result is kept
  // in memory and written elsewhere at the end (FinishResult).
  std::unique_ptr<SweepChain> chain;
  SweepResult result;
};

// Opens the device (on `buses`) and plans the sweep. Throws Error.
void Open(const SweepCommandOptions& options, Lane& lane, SimBusSet& buses) {
  lane.opened.Open(lane.device_name, &buses);
  const DeviceInfo info = lane.opened.device().info();
  lane.run = NewRunInfo(info, PlanSweep(info, options.sweep), options.command_line);
}

// Creates the output file and the sinks. Throws Error.
void CreateOutput(const SweepCommandOptions& options, Lane& lane, const std::string& output,
                  SeveralProgress* shared_progress = nullptr, std::size_t index = 0) {
  lane.output = output;
  lane.file = std::make_unique<AtomicFile>(output, options.devices);
  SweepChainSpec spec;
  spec.writers = {{options.format, &lane.file->stream(), lane.file->seekable()}};
  spec.record = true;
  spec.keep_curve = true;
  spec.timeline = true;
  spec.shared_progress = shared_progress;  // together only, unless quiet
  spec.shared_progress_lane = index;
  spec.transport =
      options.bus.empty() ? TransportFromDevice(lane.run.device) : TransportFromName(options.bus);
  spec.media = options.media_given ? options.media : GuessMedia(lane.device_name);
  spec.detect_zones = options.detect_zones;
  spec.pass_curves = false;
  spec.zones = options.zones;
  lane.chain = std::make_unique<SweepChain>(std::move(spec));
}

std::string Mb(double v) { return Num(v, 1) + " MB/s"; }

PlotInput PlotInputOf(const SweepCommandOptions& options, const Lane& lane, std::size_t index) {
  PlotInput input;
  input.profile =
      SweepProfile(lane.device_name, "sweep", lane.run, lane.result, lane.chain->curve().points);
  input.media = options.media_given ? options.media : GuessMedia(lane.device_name);
  input.label = index < options.labels.size() ? options.labels[index] : lane.file_name;
  return input;
}

// Refuses mixing simulated and real devices (different clocks), a device
// given twice, and an output directory that is a file.
void CheckSeveral(const SweepCommandOptions& options, bool classic_logs) {
  std::size_t simulated = 0;
  std::set<std::string> seen;
  for (const std::string& d : options.devices) {
    if (IsSimulatedName(d)) ++simulated;
    if (!IsSimulatedName(d) && !seen.insert(d).second) {
      throw Error("device " + d + " given twice: each device can be read once at a time",
                  ErrorKind::kBadInput);
    }
  }
  if (simulated != 0 && simulated != options.devices.size()) {
    throw Error(
        "cannot read simulated and real devices together (simulated time is not real "
        "time): give only sim: devices or only real ones",
        ErrorKind::kBadInput);
  }
  if (!classic_logs) {
    struct stat st {};
    if (::stat(options.output.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      throw Error("output " + options.output +
                      " is not a directory: with several devices -o names a directory for one "
                      "result per device and the aggregate",
                  ErrorKind::kBadInput);
    }
  }
}

// One `zcav sweep DEV1 DEV2 ...`: the lanes and what the steps share.
// RunSeveralSweeps calls the steps in order; each reads what the ones
// before it left.
class SeveralSweeps {
 public:
  // REQUIRES: CheckSeveral(options, ...) passed.
  SeveralSweeps(const SweepCommandOptions& options, std::ostream& out, std::ostream& err,
                const std::atomic<bool>& stop)
      : options_(options),
        out_(out),
        err_(err),
        stop_(stop),
        classic_logs_(!options.outputs.empty()),
        names_(UniqueNames(options.devices)),
        n_(options.devices.size()),
        dir_(classic_logs_ ? std::string() : options.output),
        progress_(err, names_, isatty(STDERR_FILENO) == 1) {}

  // Every device is opened and every file created before the first read,
  // so bad input fails with nothing measured. Throws Error.
  void OpenAll() {
    for (std::size_t i = 0; i < n_; ++i) {
      together_.push_back(std::make_unique<Lane>());
      together_[i]->device_name = options_.devices[i];
      together_[i]->file_name = names_[i];
      Open(options_, *together_[i], buses_);
    }
    CheckSpace();
    std::error_code ec;
    if (!classic_logs_ && !std::filesystem::create_directories(dir_, ec) && ec) {
      throw Error("cannot create directory " + dir_.string() + ": " + ec.message(),
                  KindOfPathError(ec.value()));
    }
    for (std::size_t i = 0; i < n_; ++i) {
      CreateOutput(options_, *together_[i], OutputFor(i, false),
                   options_.quiet ? nullptr : &progress_, i);
    }
  }

  // Before anything is read: each result (twice with --alone-and-together)
  // and the aggregate (about a line per block and device) must fit where it
  // goes (output_space.h). Throws Error(kBadInput).
  void CheckSpace() const {
    const std::uint64_t copies = options_.alone_and_together ? 2 : 1;
    std::uint64_t all_bytes = kResultFixedBytes;
    for (std::size_t i = 0; i < n_; ++i) {
      const SweepPlan& plan = together_[i]->run.plan;
      const std::uint64_t bytes = copies * EstimateResultBytes(options_.format, plan);
      if (classic_logs_) CheckOutputSpace(OutputFor(i, false), bytes, "the results");
      all_bytes += bytes + plan.block_count * 2 * kRawBlockLineBytes;
    }
    if (!classic_logs_) CheckOutputSpace(dir_.string(), all_bytes, "the results");
  }

  // Alone first (--alone-and-together): each device by itself (a bus of its
  // own), until one is cut short.
  void SweepAlone() {
    if (!options_.alone_and_together) return;
    for (std::size_t i = 0; i < n_ && !stopped_; ++i) {
      SimBusSet own_buses;
      auto lane = std::make_unique<Lane>();
      lane->device_name = options_.devices[i];
      lane->file_name = names_[i];
      // The device is already open for the together run: a second handle.
      Open(options_, *lane, own_buses);
      CreateOutput(options_, *lane, OutputFor(i, true));
      if (!options_.quiet) err_ << "zcav: reading " << lane->device_name << " alone\n";
      lane->result =
          lane->chain->Run(lane->opened.device(), lane->run, lane->opened.clock(), &stop_);
      lane->opened.Close();
      Finish(*lane);
      alone_mb_per_s_.push_back(lane->result.avg_mb_per_s);
      if (!options_.quiet) {
        err_ << "zcav: alone: " << lane->file_name << " " << Mb(lane->result.avg_mb_per_s) << "\n";
      }
      stopped_ = lane->result.partial();
      alone_.push_back(std::move(lane));
    }
  }

  // Then every device together, one thread each (not when stopped alone).
  void SweepTogether() {
    std::vector<SweepResult> results(n_);
    if (!stopped_) {
      if (!options_.quiet) err_ << "zcav: reading " << n_ << " devices together, one thread each\n";
      std::vector<ConcurrentJob> jobs;
      for (auto& lane : together_) {
        jobs.push_back(
            {lane->opened.TakeDevice(), lane->run, &lane->opened.clock(), &lane->chain->head()});
      }
      results = RunConcurrentSweeps(jobs, &stop_);
      progress_.Finish();
    }
    for (std::size_t i = 0; i < n_; ++i) {
      together_[i]->result = results[i];
      // Not read at all (interrupted while reading alone): no file.
      if (!stopped_) Finish(*together_[i]);
    }
    if (!options_.alone_and_together || alone_.size() != n_ || stopped_) alone_mb_per_s_.clear();
  }

  // The aggregate, and whether the devices share a ceiling.
  void Judge() {
    std::vector<std::vector<TimedRead>> timelines;
    for (const auto& lane : together_) timelines.push_back(lane->chain->timeline().reads());
    aggregate_ = AggregateTimelines(timelines);
    const auto run_of = [](const Lane& lane) {
      DeviceRun run;
      run.name = lane.file_name;
      run.avg_mb_per_s = lane.result.avg_mb_per_s;
      for (const CurvePoint& p : lane.chain->curve().points) {
        run.block_mb_per_s.push_back(p.mb_per_s);
        run.block_bytes.push_back(p.length_bytes);
      }
      return run;
    };
    std::vector<DeviceRun> alone_runs, together_runs;
    if (!alone_mb_per_s_.empty()) {
      for (const auto& lane : alone_) alone_runs.push_back(run_of(*lane));
    }
    for (const auto& lane : together_) together_runs.push_back(run_of(*lane));
    ceiling_ = JudgeSharedCeiling(alone_runs, together_runs, aggregate_);
  }

  // DIR/aggregate.dat and DIR/aggregate.json; nothing with classic -l logs.
  void WriteAggregate() {
    if (classic_logs_) return;
    WriteAggregateDat();
    WriteAggregateJson();
  }

  // The comparison (or, alone and together, the concurrent) plot.
  void Plot() {
    if (options_.plot_dir.empty()) return;
    std::vector<PlotInput> inputs;
    for (std::size_t i = 0; i < n_; ++i) {
      if (together_[i]->chain->curve().points.empty()) continue;
      if (alone_.size() == n_ && !alone_[i]->chain->curve().points.empty()) {
        PlotInput input = PlotInputOf(options_, *alone_[i], i);
        input.concurrent = together_[i]->chain->curve().points;
        inputs.push_back(std::move(input));
      } else {
        inputs.push_back(PlotInputOf(options_, *together_[i], i));
      }
    }
    if (!inputs.empty()) {
      const bool both = alone_.size() == n_ && inputs.size() == n_;
      const std::string name = both ? "together" : "comparison";
      WriteAndRender(both ? PlotKind::kConcurrent : PlotKind::kComparison, inputs,
                     options_.plot_dir, name, {name + ".png", name + ".svg"}, options_.quiet, err_);
    }
  }

  // The summary, in the style of the zone table: always (it is the result).
  void SaySummary() {
    err_ << "zcav: together:";
    for (std::size_t i = 0; i < n_; ++i) {
      err_ << (i ? "," : "") << " " << names_[i] << " " << Mb(aggregate_.device_mb_per_s[i]);
    }
    err_ << "; all together " << Mb(aggregate_.aggregate_mb_per_s) << " (peak "
         << Mb(aggregate_.peak_mb_per_s) << ") over " << Num(aggregate_.overlap_seconds, 1)
         << " s of " << Num(aggregate_.wall_seconds, 1) << " s; MB = 10^6 B\n";
    err_ << "zcav: " << ceiling_.reason << "\n";
    if (!classic_logs_ && !options_.quiet && kept_.empty()) {
      err_ << "zcav: wrote " << n_ << " results, aggregate.dat and aggregate.json to "
           << dir_.string() << "\n";
    }
  }

  // Says how the sweeps ended; returns 0, 1 after a read error or
  // --max-errors giving up, 130 when interrupted, kExitKeptElsewhere (over
  // all of them) when a result or aggregate had to be kept elsewhere.
  int ExitCode() {
    int code = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      const SweepResult& r = together_[i]->result;
      if (stopped_ || r.status == SweepStatus::kInterrupted) {
        code = 130;
      } else if (r.status == SweepStatus::kTooManyErrors) {
        err_ << "zcav: " << options_.devices[i] << ": "
             << r.StatusText().substr(std::string("partial: ").size())
             << ", data before it kept (marked partial)\n";
        if (code == 0) code = 1;
      } else if (r.status == SweepStatus::kReadError) {
        err_ << "zcav: read error at offset " << r.error_offset_bytes << " bytes ("
             << FormatBytes(r.error_offset_bytes) << ") of " << options_.devices[i] << ": "
             << r.error.message() << "; stopped there, data before it kept (marked partial)\n";
        if (code == 0) code = 1;
      }
    }
    for (const auto& lane : alone_) {
      const SweepStatus st = lane->result.status;
      if ((st == SweepStatus::kReadError || st == SweepStatus::kTooManyErrors) && code == 0) {
        code = 1;
      }
    }
    if (code == 130) err_ << "zcav: interrupted: partial results written (marked partial)\n";
    for (const Kept& k : kept_) SayKept(k.output, k.place.reason, k.place.where, err_);
    return kept_.empty() ? code : kExitKeptElsewhere;
  }

 private:
  // A result or aggregate written elsewhere than `output`.
  struct Kept {
    std::string output;
    ResultPlace place;
  };

  // Commits the lane's result; when writing it failed, keeps it elsewhere.
  void Finish(Lane& lane) {
    ResultPlace place = FinishResult(lane.output, options_.format, lane.file, lane.chain->guard(0),
                                     lane.chain->recorder(), lane.result.partial(), out_);
    if (place.failed) kept_.push_back({lane.output, std::move(place)});
  }

  // Writes `text` into `path`; when that fails (no space, an I/O error),
  // keeps it elsewhere.
  void WriteOrKeep(const std::filesystem::path& path, const std::string& text) {
    std::unique_ptr<AtomicFile> file;
    ResultPlace place{"", true, ""};
    try {
      file = std::make_unique<AtomicFile>(path.string(), options_.devices);
      file->Put(text);
      file->Commit();
      return;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kRuntime) throw;
      place.reason = FailureReason(file ? file->error_number() : 0, e.what());
    }
    file.reset();
    const ResultWrite write = [&](std::ostream& stream, bool) {
      stream << text;
      stream.flush();
      if (!stream) throw Error("cannot write", ErrorKind::kRuntime);
    };
    place.where = KeepElsewhere(path.string(), "", write, out_, false);
    kept_.push_back({path.string(), std::move(place)});
  }

  // Where device i's result goes (read alone or together).
  std::string OutputFor(std::size_t i, bool alone) const {
    if (classic_logs_) {
      return alone ? options_.outputs[i] + ".alone" : options_.outputs[i];
    }
    return (dir_ / (names_[i] + (alone ? ".alone" : "") + Extension(options_.format))).string();
  }

  void WriteAggregateDat() {
    std::ostringstream o;
    o << "# zcav " << ZCAV_VERSION << ": " << n_ << " devices read together, one thread each\n";
    for (std::size_t i = 0; i < n_; ++i) {
      o << "# device " << i + 1 << ": " << options_.devices[i] << " (" << names_[i] << ")\n";
    }
    o << "# rates in MB/s (MB = 10^6 B), per slice of " << Num(aggregate_.wall_seconds / 200, 3)
      << " s; time from the first read\n# time_s total_mb_per_s";
    for (std::size_t i = 0; i < n_; ++i) o << " " << names_[i] << "_mb_per_s";
    o << "\n";
    for (const AggregatePoint& p : aggregate_.points) {
      o << Num(p.time_s, 4) << " " << Num(p.total_mb_per_s, 3);
      for (double v : p.device_mb_per_s) o << " " << Num(v, 3);
      o << "\n";
    }
    WriteOrKeep(dir_ / "aggregate.dat", o.str());
  }

  void WriteAggregateJson() {
    Json devices = Json::array();
    for (std::size_t i = 0; i < n_; ++i) {
      Json d = {{"path", options_.devices[i]},
                {"name", names_[i]},
                {"alone_mb_per_s", nullptr},
                {"together_mb_per_s", Finite(aggregate_.device_mb_per_s[i])},
                {"avg_mb_per_s", Finite(together_[i]->result.avg_mb_per_s)},
                {"status", together_[i]->result.StatusText()}};
      if (!alone_mb_per_s_.empty()) d["alone_mb_per_s"] = Finite(alone_mb_per_s_[i]);
      devices.push_back(d);
    }
    Json timeline = Json::array();
    for (const AggregatePoint& p : aggregate_.points) {
      Json rates = Json::array();
      for (double v : p.device_mb_per_s) rates.push_back(Finite(v));
      timeline.push_back({{"time_s", Finite(p.time_s)},
                          {"total_mb_per_s", Finite(p.total_mb_per_s)},
                          {"device_mb_per_s", rates}});
    }
    Json doc = {{"schema_version", kSchemaVersion},
                {"zcav_version", ZCAV_VERSION},
                {"units", "MB = 10^6 bytes"},
                {"devices", devices},
                {"together",
                 {{"aggregate_mb_per_s", Finite(aggregate_.aggregate_mb_per_s)},
                  {"peak_mb_per_s", Finite(aggregate_.peak_mb_per_s)},
                  {"wall_seconds", Finite(aggregate_.wall_seconds)},
                  {"high_mb_per_s", Finite(aggregate_.high_mb_per_s)},
                  {"overlap_seconds", Finite(aggregate_.overlap_seconds)}}},
                {"alone", nullptr},
                {"ceiling", {{"shared", nullptr}, {"reason", ceiling_.reason}}},
                {"timeline", timeline}};
    if (!alone_mb_per_s_.empty()) {
      doc["alone"] = {{"sum_mb_per_s", Finite(ceiling_.sum_alone_mb_per_s)}};
    }
    if (ceiling_.shared) {
      doc["ceiling"]["shared"] = *ceiling_.shared;
      doc["ceiling"]["share_of_alone"] = Finite(ceiling_.share);
      Json slowed = Json::array();
      for (double v : ceiling_.slowed_share) slowed.push_back(Finite(v));
      doc["ceiling"]["slowed_share"] = slowed;
    }
    WriteOrKeep(dir_ / "aggregate.json", Dump(doc));
  }

  const SweepCommandOptions& options_;
  std::ostream& out_;  // stdout: the last place a result is kept
  std::ostream& err_;
  const std::atomic<bool>& stop_;
  const bool classic_logs_;
  const std::vector<std::string> names_;
  const std::size_t n_;
  const std::filesystem::path dir_;
  SimBusSet buses_;  // the together run's
  SeveralProgress progress_;
  std::vector<std::unique_ptr<Lane>> together_;
  std::vector<std::unique_ptr<Lane>> alone_;
  // Each device's rate alone; after SweepTogether empty unless all were read alone.
  std::vector<double> alone_mb_per_s_;
  bool stopped_ = false;  // a sweep alone was cut short
  std::vector<Kept> kept_;
  Aggregate aggregate_;
  SharedCeiling ceiling_;
};

}  // namespace

int RunSeveralSweeps(const SweepCommandOptions& options, std::ostream& out, std::ostream& err,
                     const std::atomic<bool>& stop_requested) {
  for (const auto& w : options.warnings) err << "zcav: warning: " << w << "\n";
  if (options.live) err << "zcav: note: --live ignored: it draws one device at a time\n";
  CheckSeveral(options, !options.outputs.empty());
  SeveralSweeps run(options, out, err, stop_requested);
  run.OpenAll();
  run.SweepAlone();
  run.SweepTogether();
  run.Judge();
  run.WriteAggregate();
  run.Plot();
  run.SaySummary();
  return run.ExitCode();
}

}  // namespace zcav
