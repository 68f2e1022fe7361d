#include "app.h"
#include "app_util.h"
#include "write_confirm.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "zcav/measure/access.h"
#include "zcav/measure/burst.h"
#include "zcav/base/clock.h"
#include "zcav/device/device.h"
#include "zcav/measure/estimate.h"
#include "zcav/base/error.h"
#include "zcav/measure/progress.h"
#include "zcav/measure/sample_sink.h"
#include "zcav/base/units.h"
#include "zcav/io/data_reader.h"
#include "zcav/io/plot.h"
#include "zcav/io/report.h"
#include "zcav/io/resume.h"
#include "zcav/analysis/step_origin.h"
#include "zcav/io/pass_curves.h"
#include "zcav/analysis/transport.h"
#include "zcav/io/zone_report.h"

namespace zcav {
namespace {

// A resumed sweep reads in the shape its partial run recorded, where the
// command line leaves it open (the default block follows a rate estimate,
// which differs from run to run).
void KeepRecordedShape(const Profile& partial, SweepOptions& options) {
  if (!partial.plan) return;
  if (options.block_bytes == 0) options.block_bytes = partial.plan->block_bytes;
  if (options.chunk_bytes == 0) options.chunk_bytes = partial.plan->chunk_bytes;
  if (options.queue_depth == 0 && partial.plan->engine == "io_uring") {
    options.queue_depth = partial.plan->queue_depth;
  }
}

// Says what a user should know before the sweep starts (O_DIRECT refused,
// the device's and the plan's notes) and, for a write sweep, asks for
// consent (write_confirm.h; throws Error when it is not given).
void SayBeforeSweep(const CliOptions& options, const RunInfo& run, std::ostream& err) {
  if (!run.device.direct_io) {
    err << "zcav: warning: O_DIRECT refused for " << run.device.path
        << ": reading through the page cache, dropped before each pass; results may include "
           "page-cache effects (use a block device or a file system that supports O_DIRECT)\n";
  }
  if (!options.quiet) {
    for (const auto& n : run.device.notes) err << "zcav: note: " << n << "\n";
    for (const auto& n : run.plan.notes) err << "zcav: note: " << n << "\n";
  }
  if (options.sweep.write) {
    ConfirmWrite(run.device, options.device,
                 isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1, std::cin, err);
  }
}

// --resume: the partial result must belong to this sweep (checked before
// anything is written or read). Nothing without --resume.
std::optional<ResumePoint> ResumeFrom(const CliOptions& options,
                                      const std::optional<Profile>& partial, const RunInfo& run,
                                      std::ostream& err) {
  if (options.resume_file.empty()) return std::nullopt;
  std::optional<ResumePoint> resume = PrepareResume(*partial, run.plan, run.device);
  if (!options.quiet) {
    err << "zcav: resuming " << options.resume_file << ": " << resume->samples.size()
        << " samples kept, going on at pass " << resume->pass + 1 << ", block "
        << resume->block << " of " << run.plan.block_count << "\n";
  }
  return resume;
}

// The result file options.output names; none for "-" (stdout).
std::unique_ptr<OutputFile> OpenResultFile(const CliOptions& options) {
  if (options.output == "-") return nullptr;
  std::vector<std::string> inputs{options.device};
  if (!options.resume_file.empty()) inputs.push_back(options.resume_file);
  return std::make_unique<OutputFile>(options.output, inputs);
}

// Draws the sweep's curve (`points`, with `zones`) into options.plot_dir.
void PlotSweep(const CliOptions& options, const RunInfo& run, const SweepResult& result,
               Curve points, Media media, ZoneAnalysis zones, std::ostream& err) {
  PlotInput input;
  Profile& p = input.profile;
  p = SweepProfile(options.device, "sweep", run, result, std::move(points));
  p.unreadable = result.unreadable;
  p.slow_regions = result.slow_regions;
  input.media = media;
  input.zones = std::move(zones);
  input.label = !options.labels.empty() ? options.labels.front()
                : !p.device_model.empty() ? DefaultPlotLabel(p)
                                          : options.device;
  const std::string name = PlotNameFor(options.device);
  WriteAndRender(PlotKind::kFalloff, {input}, options.plot_dir, name,
                 {name + ".png", name + ".svg"}, options.quiet, err);
}

}  // namespace

int RunSweepCommand(const CliOptions& options, std::ostream& out, std::ostream& err,
                    const std::atomic<bool>& stop_requested) {
  if (options.devices.size() > 1) return RunSeveralSweepsCommand(options, err, stop_requested);
  for (const auto& w : options.warnings) err << "zcav: warning: " << w << "\n";
  OpenedDevice d;
  if (options.sweep.write) {
    d.OpenForWrite(options.device, options.create_bytes);
  } else {
    d.Open(options.device);
  }
  const DeviceInfo info = d.device().info();
  // The default block size follows a short estimate of the start's rate
  // (WithStartRate); a resumed sweep keeps the shape its partial run had.
  std::optional<Profile> partial;
  SweepOptions sweep_options = options.sweep;
  if (!options.resume_file.empty()) {
    partial = ReadProfile(options.resume_file);
    KeepRecordedShape(*partial, sweep_options);
  } else {
    sweep_options = WithStartRate(d.device(), d.clock(), sweep_options, &stop_requested);
  }
  const RunInfo run = NewRunInfo(info, PlanSweep(info, sweep_options), options.command_line);
  SayBeforeSweep(options, run, err);

  const std::optional<ResumePoint> resume = ResumeFrom(options, partial, run, err);
  const std::unique_ptr<OutputFile> file = OpenResultFile(options);
  std::ostream& result_stream = file ? file->stream() : out;
  const std::unique_ptr<SampleSink> writer =
      MakeWriter(options.format, result_stream, file != nullptr && file->seekable());
  std::vector<SampleSink*> sinks{writer.get()};
  std::unique_ptr<ProgressSink> progress;
  if (!options.quiet) {
    // Progress is paced in real time, also for a simulated device.
    progress = std::make_unique<ProgressSink>(err, d.steady_clock(), isatty(STDERR_FILENO) == 1);
    sinks.push_back(progress.get());
  }
  CurveSink curve;
  if (!options.plot_dir.empty()) sinks.push_back(&curve);
  ResultTee tee(sinks);
  const Media media = options.media_given ? options.media : GuessMedia(options.device);
  const Transport transport =
      options.bus.empty() ? TransportFromDevice(run.device) : TransportFromName(options.bus);
  // With 2+ passes, steps that follow the time, not the position, are merged
  // away before the writers see the zones (step_origin.h).
  PassCurveSink origins(tee);
  ZoneOptions zone_options = options.zones;
  zone_options.blur_blocks = BlockTimingOf(run.plan).blur_blocks();
  ZoneDetectingSink zones(origins, zone_options, media, transport);
  SampleSink& sink = options.detect_zones ? static_cast<SampleSink&>(zones) : tee;
  const SweepResult result =
      RunSweep(d.device(), run, d.clock(), sink, &stop_requested, resume ? &*resume : nullptr);
  if (file) file->Commit(result.partial());
  // The partial result this run completed is not needed any more.
  if (file && !result.partial() && options.resume_file == options.output + ".partial") {
    std::remove(options.resume_file.c_str());
  }
  if (options.detect_zones && !options.quiet && result.blocks_measured > 0) {
    err << FormatZoneTable(origins.analysis(), origins.context());
  }
  if (!options.plot_dir.empty() && !curve.points.empty()) {
    PlotSweep(options, run, result, std::move(curve.points), media,
              options.detect_zones ? origins.analysis() : ZoneAnalysis{}, err);
  }
  return SweepExitCode(result, run, file ? file->final_path() : std::string("stdout"), err);
}

}  // namespace zcav

namespace zcav {

int RunZonesCommand(const CliOptions& options, std::ostream& out) {
  // Read and analyse every file first: a bad file fails before any output.
  std::vector<std::pair<ZoneAnalysis, ZoneReportContext>> results;
  for (const std::string& path : options.files) {
    const Profile profile = ReadProfile(path);
    ZoneReportContext context;
    context.source = profile.device_path.empty() ? path : path + " (" + profile.device_path + ")";
    context.device_bytes = profile.device_bytes;
    context.media = options.media_given ? options.media : GuessMedia(profile.device_path);
    context.notes = profile.notes;
    ZoneOptions zone_options = options.zones;
    zone_options.blur_blocks = profile.blur_blocks;
    zone_options.non_rotational = zone_options.non_rotational || KnownNotToRotate(RecordedDevice(profile));
    ZoneAnalysis analysis = DetectZones(profile.points, zone_options, context.media != Media::kNone);
    // A saved multi-pass sweep keeps its samples: position or time, as the
    // sweep itself told (step_origin.h).
    if (profile.plan && profile.plan->passes >= 2 && !profile.samples.empty() &&
        analysis.zones.size() >= 2) {
      const std::vector<Curve> passes = PassCurvesFromSamples(*profile.plan, profile.samples);
      ApplyStepOrigins(Curve(profile.points), ClassifySteps(analysis, passes), analysis);
    }
    // The link: --bus, else what the file recorded (zcav's own outputs).
    if (!options.bus.empty()) {
      context.transport = TransportFromName(options.bus);
    } else if (!profile.transport.empty() || !profile.link.empty()) {
      DeviceInfo recorded;
      recorded.transport = profile.transport;
      recorded.link = profile.link;
      context.transport = TransportFromDevice(recorded);
    }
    if (context.transport) context.verdict = VerdictFor(analysis, *context.transport);
    results.emplace_back(std::move(analysis), std::move(context));
  }
  std::string text;
  if (options.zones_format == "json") {
    text = results.size() == 1 ? "" : "[\n";
    for (std::size_t i = 0; i < results.size(); ++i) {
      std::string obj = ZoneAnalysisJson(results[i].first, results[i].second);
      // Name the source first: {"source":"...", ...the analysis...}
      Json doc = Json::object();
      doc["source"] = results[i].second.source;
      doc.update(Json::parse(obj));
      text += doc.dump(-1, ' ', false, Json::error_handler_t::replace);
      text += i + 1 < results.size() ? ",\n" : "\n";
    }
    if (results.size() != 1) text += "]\n";
  } else if (options.zones_format == "csv") {
    for (std::size_t i = 0; i < results.size(); ++i) {
      text += FormatZoneCsv(results[i].first, results[i].second, i == 0, results.size() > 1);
    }
  } else {
    for (std::size_t i = 0; i < results.size(); ++i) {
      text += (i ? "\n" : "") + FormatZoneTable(results[i].first, results[i].second);
    }
  }
  if (options.output == "-") {
    out << text << std::flush;
  } else {
    OutputFile file(options.output, options.files);
    file.stream() << text;
    file.Commit();
  }
  return 0;
}

}  // namespace zcav

namespace zcav {

int RunPlotCommand(const CliOptions& options, std::ostream& err) {
  // Read every file first: a missing or malformed file fails before anything
  // is written.
  std::vector<PlotInput> inputs;
  for (std::size_t i = 0; i < options.files.size(); ++i) {
    const std::string label = i < options.labels.size() ? options.labels[i] : std::string();
    inputs.push_back(
        LoadPlotInput(options.files[i], label, options.zones, options.media_given, options.media));
  }
  std::filesystem::path image;
  if (options.output != "-") {
    image = options.output;
  } else {
    const std::filesystem::path first(options.files.front());
    const std::string suffix =
        options.plot_kind == PlotKind::kFalloff ? "" : std::string("-") + PlotKindName(options.plot_kind);
    image = first.parent_path() / (first.stem().string() + suffix + ".png");
  }
  const std::string dir = image.parent_path().empty() ? "." : image.parent_path().string();
  WriteAndRender(options.plot_kind, inputs, dir, image.stem().string(),
                 {image.filename().string()}, options.quiet, err);
  return 0;
}

}  // namespace zcav

namespace zcav {

int RunReportCommand(const CliOptions& options, std::ostream& err) {
  // The report's format and every file are checked before anything is written.
  ReportFormatForPath(options.output);
  std::vector<PlotInput> runs;
  for (std::size_t i = 0; i < options.files.size(); ++i) {
    const std::string label = i < options.labels.size() ? options.labels[i] : std::string();
    runs.push_back(
        LoadPlotInput(options.files[i], label, options.zones, options.media_given, options.media));
  }
  const ReportFiles files = WriteReport(runs, options.output);
  for (const std::string& note : files.notes) err << "zcav: warning: " << note << "\n";
  if (!options.quiet) {
    err << "zcav: wrote " << files.report_path;
    if (!files.plot_paths.empty()) err << " and " << files.plot_paths.size() << " plot files beside it";
    err << "\n";
  }
  return 0;
}

}  // namespace zcav

namespace zcav {
namespace {

void WriteResult(const CliOptions& options, std::ostream& out, const std::string& text) {
  if (options.output == "-") {
    out << text << std::flush;
    return;
  }
  OutputFile file(options.output, std::vector<std::string>{options.device});
  file.stream() << text;
  file.Commit();
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

}  // namespace

int RunAccessCommand(const CliOptions& options, std::ostream& out, std::ostream& err,
                     const std::atomic<bool>& stop_requested) {
  OpenedDevice d;
  d.Open(options.device);
  const AccessResult r = MeasureAccess(d.device(), d.clock(), options.access, &stop_requested);
  std::string text;
  if (options.zones_format == "json") {
    Json samples = Json::array();
    for (const AccessReading& x : r.samples) {
      samples.push_back({{"offset_bytes", x.offset_bytes},
                         {"distance_bytes", x.distance_bytes},
                         {"ms", Finite(x.ms)}});
    }
    const Json doc = {
        {"device", DeviceJson(d.device().info())},
        {"access",
         {{"read_bytes", RoundUp(options.access.read_bytes, d.device().info().sector_bytes)},
          {"count", r.samples.size()},
          {"mean_ms", Finite(r.mean_ms)},
          {"median_ms", Finite(r.median_ms)},
          {"p95_ms", Finite(r.p95_ms)},
          {"min_ms", Finite(r.min_ms)},
          {"max_ms", Finite(r.max_ms)},
          {"cpu_percent", Finite(r.cpu_percent)},
          {"samples", samples}}},
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
  WriteResult(options, out, text);
  return ProbeExit(r.error, r.error_offset_bytes, r.interrupted, options.device, err);
}

int RunBurstCommand(const CliOptions& options, std::ostream& out, std::ostream& err,
                    const std::atomic<bool>& stop_requested) {
  OpenedDevice d;
  d.Open(options.device);
  if (options.burst.region_bytes > d.device().info().size_bytes) {
    throw Error("burst region " + FormatBytes(options.burst.region_bytes) + " is larger than " +
                options.device);
  }
  const BurstResult r = MeasureBurst(d.device(), d.clock(), options.burst, &stop_requested);
  std::string text;
  if (options.zones_format == "json") {
    const Json doc = {{"device", DeviceJson(d.device().info())},
                      {"burst",
                       {{"region_bytes", options.burst.region_bytes},
                        {"repetitions", r.repetitions},
                        {"min_mb_per_s", Finite(r.min_mb_per_s)},
                        {"avg_mb_per_s", Finite(r.avg_mb_per_s)},
                        {"max_mb_per_s", Finite(r.max_mb_per_s)},
                        {"cpu_percent", Finite(r.cpu_percent)}}},
                      {"partial", r.error || r.interrupted}};
    text = Dump(doc);
  } else {
    text = "burst rate of " + d.device().info().path + ": the first " +
           FormatBytes(options.burst.region_bytes) + " read " + std::to_string(r.repetitions) +
           " times\nmin " + Num(r.min_mb_per_s, 2) + "  avg " + Num(r.avg_mb_per_s, 2) + "  max " +
           Num(r.max_mb_per_s, 2) + " MB/s (MB = 10^6 B; " + Num(r.cpu_percent, 1) + "% cpu)\n";
  }
  WriteResult(options, out, text);
  return ProbeExit(r.error, r.error_offset_bytes, r.interrupted, options.device, err);
}

}  // namespace zcav
