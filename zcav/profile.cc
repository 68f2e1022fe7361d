// zcav profile [DEVICE] [-o DIR]: the one command most people should run.
//
// Steps, in this order, each stopping at once on SIGINT/SIGTERM:
//   1. Estimate (unless --full or --quick): read the start of the device
//      sequentially, 256 MiB or 2 s of clock time whichever comes first (one
//      untimed chunk before it), and multiply out passes x the full plan's
//      bytes / that rate (estimate.h). Above one hour the sweep is quick (an
//      evenly spaced tenth, SweepOptions.quick) and a note says so and how
//      long the full sweep would take. A hard disk starts in its fastest
//      zone, so the estimate is a lower bound: a disk estimated at 50 min may
//      take 70 in full and is still swept in full. Simulated devices decide
//      the same way from their virtual clock (sim:hdd: 250 GB at 60 MB/s is
//      about 1.2 h, so quick). A failed estimate (read error) sweeps in full.
//   2. Burst rate (burst.h), before the sweep so that the sweep's verdict can
//      weigh it: the verdict in the raw file, the JSON and zones.txt is the
//      same one, VerdictFor(zones, transport, burst).
//   3. Access time (access.h).
//   4. The sweep (full or quick), with the progress line unless --quiet;
//      NAME.dat is written as blocks arrive, zones detected at the end.
// Then DIR gets profile.json, zones.txt, the plots and the reports, and
// stderr the summary. stdout stays empty: everything is in DIR, and the
// summary (also DIR/summary.txt) is for a person, on stderr with the notes.
//
// A read error in a step is data: the step stops, the others still run, and
// everything is written, marked partial; exit 1. An interrupt skips what is
// left, writes what was measured, marked partial; exit 130. Bad input (a bad
// option or device, a DIR that is a file) is refused before DIR is created.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app.h"
#include "app_util.h"
#include "zcav/measure/access.h"
#include "zcav/measure/burst.h"
#include "zcav/base/clock.h"
#include "zcav/device/device.h"
#include "zcav/base/error.h"
#include "zcav/measure/estimate.h"
#include "zcav/io/plot.h"
#include "zcav/measure/progress.h"
#include "zcav/io/report.h"
#include "zcav/measure/sample_sink.h"
#include "zcav/analysis/step_origin.h"
#include "zcav/measure/sweep.h"
#include "zcav/analysis/transport.h"
#include "zcav/base/units.h"
#include "zcav/version.h"
#include "zcav/io/writers.h"
#include "zcav/io/zone_report.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

// A full sweep estimated above this is read quick (unless --full).
constexpr double kQuickAboveSeconds = 3600;
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

// "1.2 h", "35 min", "40 s".
std::string Duration(double seconds) {
  if (seconds >= 3600) return Num(seconds / 3600, 1) + " h";
  if (seconds >= 60) return Num(seconds / 60, 0) + " min";
  return Num(seconds, 0) + " s";
}

// Checks that `dir` can be the output directory: an existing directory, or
// a name whose parent directory exists. Throws Error(kBadInput) otherwise.
// Creates nothing.
void CheckOutputDir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      throw Error("output directory " + dir +
                  " exists and is not a directory: choose another -o DIR");
    }
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      throw Error("cannot write into " + dir + ": " + std::strerror(errno));
    }
    return;
  }
  if (errno != ENOENT) throw Error("output directory " + dir + ": " + std::strerror(errno));
  fs::path parent = fs::path(dir).parent_path();
  if (parent.empty()) parent = ".";
  std::error_code ec;
  if (!fs::is_directory(parent, ec)) {
    throw Error("cannot create " + dir + ": directory " + parent.string() + " does not exist");
  }
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    throw Error("cannot create " + dir + " in " + parent.string() + ": " + std::strerror(errno));
  }
}

void CreateOutputDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    throw Error("cannot create directory " + dir + ": " + std::strerror(errno));
  }
}

// Forwards every event to the JSON writer and notes where its stream stood
// when the sweep finished: the end of the last block, where the writer's
// closing part begins.
class BlocksEndSink final : public SampleSink {
 public:
  BlocksEndSink(SampleSink& json_writer, std::ostream& stream)
      : inner_(json_writer), stream_(stream) {}
  void OnStart(const RunInfo& run) override { inner_.OnStart(run); }
  void OnSample(const Sample& x) override { inner_.OnSample(x); }
  void OnBlock(const BlockResult& x) override { inner_.OnBlock(x); }
  void OnPassDone(const PassSummary& x) override { inner_.OnPassDone(x); }
  void OnUnreadable(const UnreadableRange& x) override { inner_.OnUnreadable(x); }
  void OnSlowRegion(const SlowRegion& x) override { inner_.OnSlowRegion(x); }
  void OnZones(const ZoneAnalysis& a, const ZoneReportContext& c) override { inner_.OnZones(a, c); }
  void OnFinish(const SweepResult& r) override {
    stream_.flush();
    const std::streampos at = stream_.tellp();
    if (at == std::streampos(-1)) throw Error("writing profile.json failed", ErrorKind::kRuntime);
    blocks_end_ = static_cast<std::uint64_t>(at);
    inner_.OnFinish(r);
  }
  // Valid after OnFinish.
  std::uint64_t blocks_end() const { return blocks_end_; }

 private:
  SampleSink& inner_;
  std::ostream& stream_;
  std::uint64_t blocks_end_ = 0;
};

// Writes `text` to `path` atomically (temporary name, renamed).
void WriteFileAtomically(const std::string& path, const std::string& text,
                         const std::string& device) {
  OutputFile file(path, std::vector<std::string>{device});
  file.stream() << text;
  file.Commit();
}

Json ErrorJson(const std::error_code& error, std::uint64_t offset_bytes) {
  return {{"offset_bytes", offset_bytes}, {"message", error.message()}};
}

Json TransportJson(const Transport& t) {
  return {{"kind", t.kind},
          {"link", t.link},
          {"ceiling_mb_per_s", t.ceiling_mb_per_s > 0 ? Json(t.ceiling_mb_per_s) : Json(nullptr)},
          {"theoretical_mb_per_s",
           t.theoretical_mb_per_s > 0 ? Json(t.theoretical_mb_per_s) : Json(nullptr)},
          {"source", t.source}};
}

Json VerdictJson(const Verdict& v) {
  Json j = {{"kind", VerdictKindName(v.kind)}, {"reason", v.reason}};
  if (v.kind == VerdictKind::kBusCapped) {
    j["capped_share"] = Finite(v.capped_share);
    j["uncapped_estimate_mb_per_s"] = Finite(v.uncapped_estimate_mb_per_s);
  }
  return j;
}

// What one step ended as, for the JSON and the exit code.
std::string StepStatus(const std::error_code& error, std::uint64_t offset, bool interrupted) {
  if (error)
    return "partial: read error at offset " + std::to_string(offset) + " bytes: " + error.message();
  return interrupted ? "partial: interrupted" : "complete";
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

}  // namespace

int RunProfileCommand(const CliOptions& options, std::ostream& out, std::ostream& err,
                      const std::atomic<bool>& stop) {
  (void)out;  // stdout stays empty: the results are files, the summary is on stderr
  for (const auto& w : options.warnings) err << "zcav: warning: " << w << "\n";

  // --- Everything that can be refused, before anything is read or written.
  VirtualClock virtual_clock;
  SteadyClock steady_clock;
  const std::unique_ptr<Device> device = OpenDevice(options.device, virtual_clock);
  Clock& clock = IsSimulatedName(options.device) ? static_cast<Clock&>(virtual_clock)
                                                 : static_cast<Clock&>(steady_clock);
  const DeviceInfo info = device->info();
  const Transport transport =
      options.bus.empty() ? TransportFromDevice(info) : TransportFromName(options.bus);
  const Media media = options.media_given ? options.media : GuessMedia(options.device);
  SweepOptions full_options = options.sweep;
  full_options.quick = false;
  SweepOptions quick_options = options.sweep;
  quick_options.quick = true;
  SweepPlan full_plan = PlanSweep(info, full_options);
  SweepPlan quick_plan = PlanSweep(info, quick_options);
  AccessOptions access_options = options.access;
  if (RoundUp(access_options.read_bytes, info.sector_bytes) > info.size_bytes) {
    throw Error(options.device + " (" + FormatBytes(info.size_bytes) +
                ") is too small to profile: the access test reads " +
                ShortBytes(access_options.read_bytes));
  }
  BurstOptions burst_options = options.burst;
  if (burst_options.region_bytes > info.size_bytes) {
    // A small device: the burst reads all of it.
    burst_options.region_bytes = RoundDown(info.size_bytes, info.sector_bytes);
  }
  burst_options.chunk_bytes = std::min(burst_options.chunk_bytes, burst_options.region_bytes);
  const std::string name = PlotNameFor(options.device);
  const std::string dir = options.output == "-" ? "zcav-profile-" + name : options.output;
  CheckOutputDir(dir);
  const std::string data_name = name + ".dat";
  const fs::path d(dir);
  const auto in_dir = [&](const std::string& file) { return (d / file).string(); };

  // --- Measure.
  CreateOutputDir(dir);
  if (!options.quiet) {
    for (const auto& n : info.notes) err << "zcav: note: " << n << "\n";
  }
  if (!info.direct_io) {
    err << "zcav: warning: O_DIRECT refused for " << info.path
        << ": reading through the page cache; results may include page-cache effects (use a "
           "block device or a file system that supports O_DIRECT)\n";
  }

  // 1. Full or quick.
  std::optional<StartRate> estimate;
  double full_seconds = 0;
  bool quick = false;
  std::string quick_reason;
  if (options.profile_mode == CliOptions::ProfileMode::kFull) {
    quick_reason = "--full";
  } else if (options.profile_mode == CliOptions::ProfileMode::kQuick) {
    quick = true;
    quick_reason = "--quick";
  } else {
    StartRateOptions estimate_options;
    estimate_options.start_bytes = full_plan.start_bytes;
    estimate_options.chunk_bytes = full_plan.chunk_bytes;
    estimate_options.queue_depth = full_plan.queue_depth;  // the rate the sweep will see
    estimate = MeasureStartRate(*device, clock, estimate_options, &stop);
    full_seconds = EstimateSweepSeconds(full_plan, estimate->mb_per_s);
    quick = full_seconds > kQuickAboveSeconds;
    const std::string basis = ShortBytes(estimate->bytes) + " at the start read at " +
                              Num(estimate->mb_per_s, 1) + " MB/s";
    if (estimate->mb_per_s <= 0) {
      quick_reason = "full: the duration could not be estimated";
    } else if (quick) {
      quick_reason = "quick: a full sweep would take about " + Duration(full_seconds) + " (" +
                     basis + "), over 1 h";
      if (!options.quiet) {
        err << "zcav: note: full sweep would take about " << Duration(full_seconds)
            << "; run with --full to read every block (reading an evenly spaced tenth now; "
               "estimated from "
            << basis << ")\n";
      }
    } else {
      quick_reason = "full: about " + Duration(full_seconds) + " (" + basis + ")";
    }
  }
  // The default block size follows the start's rate (PlanSweep): the
  // estimate above, or a short one (WithStartRate) with --full or --quick.
  if (options.sweep.block_bytes == 0 && info.read_engine != "sim") {
    const double rate =
        !estimate ? WithStartRate(*device, clock, options.sweep, &stop).expected_mb_per_s
        : estimate->error || estimate->interrupted ? 0
                                                   : estimate->mb_per_s;
    full_options.expected_mb_per_s = rate;
    quick_options.expected_mb_per_s = rate;
    full_plan = PlanSweep(info, full_options);
    quick_plan = PlanSweep(info, quick_options);
  }
  // A device read in full within kShortPassSeconds gets kShortDevicePasses
  // passes unless -c says otherwise: a sweep of a few seconds is a few dozen
  // blocks, and one slowdown of the machine (another process's I/O, a
  // host's flush) over a handful of them reads as a zone of its own. The
  // blocks' medians keep a slowdown of one pass out, and steps that move
  // between passes are merged away (step_origin.h).
  std::string passes_reason;
  if (!options.passes_given && !quick && estimate && estimate->mb_per_s > 0 &&
      full_seconds <= kShortPassSeconds) {
    full_options.passes = kShortDevicePasses;
    full_plan = PlanSweep(info, full_options);
    passes_reason = std::to_string(kShortDevicePasses) + " passes: one takes about " +
                    Duration(full_seconds) + ", under " + Duration(kShortPassSeconds) +
                    " (the median of each block keeps a passing slowdown out of the zones)";
    full_seconds *= kShortDevicePasses;
  }
  const SweepPlan& plan = quick ? quick_plan : full_plan;
  if (!options.quiet) {
    err << "zcav: profiling " << info.path << ": burst rate, access time, then a "
        << (quick ? "quick" : "full") << " sweep of " << plan.block_count << " blocks"
        << (full_seconds > 0 && !quick ? " (about " + Duration(full_seconds) + ")" : "")
        << "; results into " << dir << "/\n";
    for (const auto& n : plan.notes) err << "zcav: note: " << n << "\n";
    if (!passes_reason.empty()) err << "zcav: note: " << passes_reason << "\n";
  }

  // 2. Burst, 3. access.
  const BurstResult burst = MeasureBurst(*device, clock, burst_options, &stop);
  const std::optional<double> burst_mb_per_s =
      burst.repetitions > 0 ? std::optional<double>(burst.avg_mb_per_s) : std::nullopt;
  const AccessResult access = MeasureAccess(*device, clock, access_options, &stop);

  // 4. The sweep: NAME.dat as blocks arrive, the JSON document in memory.
  RunInfo run;
  run.device = info;
  run.plan = plan;
  run.version = ZCAV_VERSION;
  run.command_line = options.command_line;
  run.start_time_utc = UtcNow();
  OutputFile raw_file(in_dir(data_name), std::vector<std::string>{options.device});
  const std::unique_ptr<SampleSink> raw_writer =
      MakeWriter(OutputFormat::kRaw, raw_file.stream(), raw_file.seekable());
  // profile.json starts as the sweep's JSON, written as blocks arrive (a
  // sweep of 20 M blocks is gigabytes of JSON: never held in memory); its
  // closing part is replaced by the profile's at the end. A target that
  // cannot be cut (not a regular file) gets the text from memory.
  OutputFile json_file(in_dir("profile.json"), std::vector<std::string>{options.device});
  std::ostringstream json_text;
  std::ostream& json_stream = json_file.seekable() ? json_file.stream() : json_text;
  const std::unique_ptr<SampleSink> json_writer = MakeWriter(OutputFormat::kJson, json_stream, false);
  BlocksEndSink json_sink(*json_writer, json_stream);
  CurveSink curve;  // for the plots and reports
  std::vector<SampleSink*> sinks{raw_writer.get(), &json_sink, &curve};
  std::unique_ptr<ProgressSink> progress;
  if (!options.quiet) {
    progress = std::make_unique<ProgressSink>(err, steady_clock, isatty(STDERR_FILENO) == 1);
    sinks.push_back(progress.get());
  }
  TeeSink tee(sinks);
  // With 2+ passes, steps that follow the time, not the position, are merged
  // away before the writers see the zones (step_origin.h).
  PassCurveSink origins(tee, burst_mb_per_s);
  ZoneOptions zone_options = options.zones;
  zone_options.blur_blocks = BlockTimingOf(plan).blur_blocks();
  ZoneDetectingSink zones(origins, zone_options, media, transport, burst_mb_per_s);
  const SweepResult sweep = RunSweep(*device, run, clock, zones, &stop);
  raw_file.Commit();
  const ZoneAnalysis& analysis = origins.analysis();
  const Verdict verdict = origins.context().verdict ? *origins.context().verdict
                                                    : VerdictFor(analysis, transport, burst_mb_per_s);

  // --- The overall status: the first read error, else an interrupt.
  std::string status = "complete";
  bool read_error = false;
  const auto note_step = [&](const char* step, const std::error_code& error, std::uint64_t offset) {
    if (!error || read_error) return;
    read_error = true;
    status = std::string("partial: read error in the ") + step + " at offset " +
             std::to_string(offset) + " bytes: " + error.message();
  };
  if (estimate) note_step("duration estimate", estimate->error, estimate->error_offset_bytes);
  note_step("burst test", burst.error, burst.error_offset_bytes);
  note_step("access test", access.error, access.error_offset_bytes);
  note_step("sweep", sweep.error, sweep.error_offset_bytes);
  const bool interrupted = stop.load() || sweep.status == SweepStatus::kInterrupted ||
                           burst.interrupted || access.interrupted ||
                           (estimate && estimate->interrupted);
  if (!read_error && interrupted) status = "partial: interrupted";
  const bool partial = read_error || interrupted;

  // --- profile.json: the sweep's own document plus the other measurements.
  // The sweep's members after "blocks" (its closing part, cut off the file):
  // "blocks":[ before it gives them back as a JSON object.
  const std::uint64_t blocks_end = json_sink.blocks_end();
  std::string closing;
  if (json_file.seekable()) {
    closing = json_file.CutAt(blocks_end);
  } else {
    const std::string text = json_text.str();
    json_file.stream() << text.substr(0, blocks_end);
    closing = text.substr(blocks_end);
  }
  Json sweep_doc = Json::parse("{\"blocks\":[" + closing);
  Json doc = Json::object();
  for (auto it = sweep_doc.begin(); it != sweep_doc.end(); ++it) {
    if (it.key() == "blocks" || it.key() == "status" || it.key() == "partial" ||
        it.key() == "error" || it.key() == "transport" || it.key() == "verdict") {
      continue;
    }
    doc[it.key()] = it.value();
  }
  doc["transport"] = TransportJson(transport);
  doc["verdict"] = VerdictJson(verdict);
  doc["sweep"] = {
      {"status", sweep.StatusText()},
      {"partial", sweep.partial()},
      {"quick", plan.quick},
      {"passes", plan.passes},
      {"block_bytes", plan.block_bytes},
      {"blocks_planned", plan.block_count},
      {"blocks", sweep.blocks_measured},
      {"min_mb_per_s", Finite(sweep.min_mb_per_s)},
      {"avg_mb_per_s", Finite(sweep.avg_mb_per_s)},
      {"max_mb_per_s", Finite(sweep.max_mb_per_s)},
      {"cpu_percent", Finite(sweep.cpu_percent)},
      {"system_busy_percent",
       sweep.system_busy_percent ? Json(Finite(*sweep.system_busy_percent)) : Json(nullptr)},
      {"bytes_read", sweep.bytes_read},
      {"wall_seconds", Finite(sweep.wall_seconds)}};
  if (sweep.error) doc["sweep"]["error"] = ErrorJson(sweep.error, sweep.error_offset_bytes);
  Json samples = Json::array();
  for (const AccessReading& x : access.samples) {
    samples.push_back({{"offset_bytes", x.offset_bytes},
                       {"distance_bytes", x.distance_bytes},
                       {"ms", Finite(x.ms)}});
  }
  doc["access"] = {
      {"status", StepStatus(access.error, access.error_offset_bytes, access.interrupted)},
      {"read_bytes", RoundUp(access_options.read_bytes, info.sector_bytes)},
      {"count", access.samples.size()},
      {"mean_ms", Finite(access.mean_ms)},
      {"median_ms", Finite(access.median_ms)},
      {"p95_ms", Finite(access.p95_ms)},
      {"min_ms", Finite(access.min_ms)},
      {"max_ms", Finite(access.max_ms)},
      {"cpu_percent", Finite(access.cpu_percent)},
      {"samples", samples}};
  if (access.error) doc["access"]["error"] = ErrorJson(access.error, access.error_offset_bytes);
  doc["burst"] = {{"status", StepStatus(burst.error, burst.error_offset_bytes, burst.interrupted)},
                  {"region_bytes", RoundUp(burst_options.region_bytes,
                                           RoundUp(burst_options.chunk_bytes, info.sector_bytes))},
                  {"repetitions", burst.repetitions},
                  {"min_mb_per_s", Finite(burst.min_mb_per_s)},
                  {"avg_mb_per_s", Finite(burst.avg_mb_per_s)},
                  {"max_mb_per_s", Finite(burst.max_mb_per_s)},
                  {"cpu_percent", Finite(burst.cpu_percent)}};
  if (burst.error) doc["burst"]["error"] = ErrorJson(burst.error, burst.error_offset_bytes);
  Json estimate_json = nullptr;
  if (estimate) {
    estimate_json = {{"bytes", estimate->bytes},
                     {"seconds", static_cast<double>(estimate->time.count()) / 1e9},
                     {"mb_per_s", Finite(estimate->mb_per_s)},
                     {"full_sweep_seconds", Finite(full_seconds)}};
    if (estimate->error)
      estimate_json["error"] = ErrorJson(estimate->error, estimate->error_offset_bytes);
  }
  doc["profile"] = {{"quick", quick},
                    {"why", quick_reason},
                    {"quick_above_seconds", kQuickAboveSeconds},
                    {"passes", plan.passes},
                    {"passes_why", passes_reason.empty()
                                       ? std::string(options.passes_given ? "-c" : "default")
                                       : passes_reason},
                    {"estimate", estimate_json}};
  doc["status"] = status;
  doc["partial"] = partial;
  // The blocks' array is open at the end of the file: close it, then the
  // members one a line.
  std::string end = "\n]";
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    end += ",\n" + Json(it.key()).dump(-1, ' ', false, Json::error_handler_t::replace) + ":" +
           it.value().dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  end += "}\n";
  json_file.stream() << end;
  json_file.Commit();

  // --- zones.txt, the plots, the reports.
  ZoneReportContext context = origins.context();
  context.transport = transport;
  context.verdict = verdict;
  WriteFileAtomically(in_dir("zones.txt"),
                      sweep.blocks_measured > 0 ? FormatZoneTable(analysis, context)
                                                : "no blocks measured: no zones\n",
                      options.device);
  std::vector<std::string> wrote = {"profile.json", data_name, "zones.txt"};
  std::vector<std::string> notes;
  const bool gnuplot = GnuplotAvailable();
  if (sweep.blocks_measured > 0) {
    // What `zcav plot|report DIR/profile.json` would read back, from memory.
    PlotInput input;
    Profile& p = input.profile;
    p.source = in_dir("profile.json");
    p.format = "zcav-json";
    p.device_path = info.path;
    p.device_bytes = info.size_bytes;
    p.block_bytes = plan.block_bytes;
    p.passes = plan.passes;
    p.points = std::move(curve.points);
    p.device_vendor = info.vendor;
    p.device_model = info.model;
    p.transport = info.transport;
    p.link = info.link;
    p.avg_mb_per_s = sweep.avg_mb_per_s;
    p.cpu_percent = sweep.cpu_percent;
    if (!access.samples.empty()) p.access_mean_ms = access.mean_ms;
    for (const AccessReading& x : access.samples)
      p.access_samples.push_back({x.offset_bytes, x.ms});
    p.burst_mb_per_s = burst_mb_per_s;
    p.verdict = VerdictKindName(verdict.kind);
    p.verdict_reason = verdict.reason;
    if (partial) p.notes.push_back("the run's status: " + status);
    input.media = media;
    input.zones = analysis;
    input.access = p.access_samples;
    input.label = !options.labels.empty()   ? options.labels.front()
                  : !p.device_model.empty() ? DefaultPlotLabel(p)
                                            : options.device;
    const auto plot = [&](PlotKind kind, const std::string& plot_name) {
      const PlotFiles files =
          WritePlot(kind, {input}, dir, plot_name, {plot_name + ".png", plot_name + ".svg"});
      if (gnuplot) RenderPlot(files);
      wrote.push_back(plot_name + (gnuplot ? ".png" : ".gp"));
    };
    plot(PlotKind::kFalloff, name);
    if (!input.access.empty()) plot(PlotKind::kAccess, name + "-access");
    for (const char* report : {"report.html", "report.md"}) {
      const ReportFiles files = WriteReport({input}, in_dir(report));
      wrote.push_back(report);
      (void)files;  // its notes say gnuplot is missing, said once below
    }
    if (!gnuplot) {
      notes.push_back(
          "gnuplot (with the pngcairo and svg terminals) is not installed: wrote the "
          ".gp scripts and their data in " +
          dir +
          " but no images, and the reports "
          "without plots; install gnuplot and run 'gnuplot FILE.gp' there to draw them");
    }
  } else {
    notes.push_back("no blocks were measured: no plots and no report");
  }

  // --- The summary.
  std::ostringstream s;
  s << "Device:        " << info.path;
  if (!info.model.empty()) s << "  " << info.model;
  const double size = static_cast<double>(info.size_bytes);
  s << " (" << (size >= kGB ? Num(size / kGB, 1) + " GB" : Num(size / kMB, 1) + " MB") << "), "
    << TransportText(transport) << "\n";
  s << "Linear read:   ";
  if (sweep.blocks_measured > 0) {
    s << "min " << Num(sweep.min_mb_per_s, 1) << "  avg " << Num(sweep.avg_mb_per_s, 1) << "  max "
      << Num(sweep.max_mb_per_s, 1) << " MB/s  (" << Num(sweep.cpu_percent, 1)
      << "% CPU; MB = 10^6 B)";
  } else {
    s << "not measured";
  }
  if (plan.quick) {
    s << "  [quick: every 10th block]";
  } else if (plan.passes > 1) {
    s << "  [" << plan.passes << " passes]";
  }
  if (sweep.partial()) s << "  [" << sweep.StatusText() << "]";
  s << "\n";
  s << "Access time:   ";
  if (!access.samples.empty()) {
    s << Num(access.mean_ms, 1) << " ms mean, " << Num(access.median_ms, 1) << " median, "
      << Num(access.p95_ms, 1) << " p95 (" << access.samples.size() << " random "
      << ShortBytes(RoundUp(access_options.read_bytes, info.sector_bytes)) << " reads)";
  } else {
    s << "not measured";
  }
  if (access.error)
    s << "  [stopped by a read error at offset " << access.error_offset_bytes << "]";
  s << "\n";
  s << "Burst rate:    ";
  if (burst_mb_per_s) {
    s << Num(*burst_mb_per_s, 1) << " MB/s (the first "
      << ShortBytes(doc["burst"]["region_bytes"].get<std::uint64_t>()) << ", " << burst.repetitions
      << " times)";
  } else {
    s << "not measured";
  }
  if (burst.error) s << "  [stopped by a read error at offset " << burst.error_offset_bytes << "]";
  s << "\n";
  s << "Zones:         ";
  if (analysis.zones.empty()) {
    s << "none";
  } else if (analysis.zones.size() == 1) {
    s << "1 zone (" << CurveTypeName(analysis.type) << ") at "
      << Num(analysis.zones.front().mb_per_s, 1) << " MB/s";
  } else {
    s << analysis.zones.size() << " zones (" << CurveTypeName(analysis.type) << "), "
      << Num(analysis.zones.front().mb_per_s, 1) << " -> " << Num(analysis.zones.back().mb_per_s, 1)
      << " MB/s (" << Num(analysis.outer_inner_ratio, 2) << ":1)";
  }
  s << "\n";
  s << "Verdict:       " << VerdictKindName(verdict.kind) << " — " << verdict.reason << "\n";
  s << "Wrote:         " << dir << "/ (";
  wrote.push_back("summary.txt");
  for (std::size_t i = 0; i < wrote.size(); ++i) s << (i ? ", " : "") << wrote[i];
  s << ")\n";
  WriteFileAtomically(in_dir("summary.txt"), s.str(), options.device);
  for (const std::string& note : notes) err << "zcav: warning: " << note << "\n";
  if (!options.quiet) err << s.str();

  if (read_error) {
    err << "zcav: " << status.substr(std::string("partial: ").size())
        << "; what was measured is in " << dir << "/ (marked partial)\n";
    return 1;
  }
  if (interrupted) {
    err << "zcav: interrupted: what was measured is in " << dir << "/ (marked partial)\n";
    return 130;
  }
  return 0;
}

}  // namespace zcav
