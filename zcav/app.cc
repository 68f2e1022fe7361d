#include "app.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "zcav/clock.h"
#include "zcav/device.h"
#include "zcav/error.h"
#include "zcav/progress.h"
#include "zcav/sample_sink.h"
#include "zcav/units.h"
#include "zcav/data_reader.h"
#include "zcav/zone_report.h"
#include "zcav/version.h"

namespace zcav {
namespace {

std::string UtcNow() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The result file: written under a temporary name beside the target and
// renamed once the sweep has finished, so the target is never half-written.
// A target that exists and is not a regular file (/dev/null, a FIFO, a
// terminal) is written directly: renaming over a device node would replace it.
class OutputFile {
 public:
  // Throws Error(kBadInput) when the target is a directory, is one of the
  // `inputs` (the device being read, the files analysed), or cannot be created.
  OutputFile(const std::string& target, const std::vector<std::string>& inputs)
      : target_(target), temp_(target + ".tmp." + std::to_string(getpid())) {
    struct stat out_st {};
    const bool exists = ::stat(target_.c_str(), &out_st) == 0;
    if (exists && S_ISDIR(out_st.st_mode)) {
      throw Error("output " + target_ + " is a directory");
    }
    for (const std::string& input : inputs) {
      struct stat in_st {};
      if (exists && ::stat(input.c_str(), &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
          in_st.st_ino == out_st.st_ino) {
        throw Error("output " + target_ + " is also an input (" + input +
                    "): choose another file");
      }
    }
    direct_ = exists && !S_ISREG(out_st.st_mode);
    const std::string& path = direct_ ? target_ : temp_;
    stream_.open(path, std::ios::out | std::ios::trunc | std::ios::binary);
    if (!stream_) {
      throw Error("cannot write " + target_ + ": " + std::strerror(errno));
    }
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile() {
    if (!committed_ && !direct_) {
      stream_.close();
      std::remove(temp_.c_str());
    }
  }
  std::ostream& stream() { return stream_; }
  // True when the writer may seek back in the stream (a regular file).
  bool seekable() const { return !direct_; }
  // Closes and renames into place. Throws Error(kRuntime) if writing failed.
  void Commit() {
    stream_.close();
    if (!stream_) throw Error("writing " + (direct_ ? target_ : temp_) + " failed", ErrorKind::kRuntime);
    if (!direct_ && std::rename(temp_.c_str(), target_.c_str()) != 0) {
      throw Error("rename " + temp_ + " to " + target_ + ": " + std::strerror(errno),
                  ErrorKind::kRuntime);
    }
    committed_ = true;
  }

 private:
  std::string target_;
  std::string temp_;
  std::fstream stream_;
  bool direct_ = false;
  bool committed_ = false;
};

}  // namespace

int RunSweepCommand(const CliOptions& options, std::ostream& out, std::ostream& err,
                    const std::atomic<bool>& stop_requested) {
  for (const auto& w : options.warnings) err << "zcav: warning: " << w << "\n";
  VirtualClock virtual_clock;
  SteadyClock steady_clock;
  const std::unique_ptr<Device> device = OpenDevice(options.device, virtual_clock);
  Clock& clock = IsSimulatedName(options.device) ? static_cast<Clock&>(virtual_clock)
                                                 : static_cast<Clock&>(steady_clock);
  RunInfo run;
  run.device = device->info();
  run.plan = PlanSweep(run.device, options.sweep);
  run.version = ZCAV_VERSION;
  run.command_line = options.command_line;
  run.start_time_utc = UtcNow();

  if (!run.device.direct_io) {
    err << "zcav: warning: O_DIRECT refused for " << run.device.path
        << ": reading through the page cache, dropped before each pass; results may include "
           "page-cache effects (use a block device or a file system that supports O_DIRECT)\n";
  }
  if (!options.quiet) {
    for (const auto& n : run.device.notes) err << "zcav: note: " << n << "\n";
    for (const auto& n : run.plan.notes) err << "zcav: note: " << n << "\n";
  }

  std::unique_ptr<OutputFile> file;
  if (options.output != "-") file = std::make_unique<OutputFile>(options.output, std::vector<std::string>{options.device});
  std::ostream& result_stream = file ? file->stream() : out;
  const std::unique_ptr<SampleSink> writer =
      MakeWriter(options.format, result_stream, file != nullptr && file->seekable());
  std::vector<SampleSink*> sinks{writer.get()};
  std::unique_ptr<ProgressSink> progress;
  if (!options.quiet) {
    // Progress is paced in real time, also for a simulated device.
    progress = std::make_unique<ProgressSink>(err, steady_clock, isatty(STDERR_FILENO) == 1);
    sinks.push_back(progress.get());
  }
  TeeSink tee(sinks);
  const Media media = options.media_given ? options.media : GuessMedia(options.device);
  ZoneDetectingSink zones(tee, options.zones, media);
  SampleSink& sink = options.detect_zones ? static_cast<SampleSink&>(zones) : tee;
  const SweepResult result = RunSweep(*device, run, clock, sink, &stop_requested);
  if (file) file->Commit();
  if (options.detect_zones && !options.quiet && result.blocks_measured > 0) {
    err << FormatZoneTable(zones.analysis(), zones.context());
  }

  const std::string where = options.output == "-" ? "stdout" : options.output;
  switch (result.status) {
    case SweepStatus::kComplete:
      return 0;
    case SweepStatus::kInterrupted:
      err << "zcav: interrupted: " << result.blocks_measured << " of " << run.plan.block_count
          << " blocks measured, written to " << where << " (marked partial)\n";
      return 130;
    case SweepStatus::kReadError:
      err << "zcav: read error at offset " << result.error_offset_bytes << " bytes ("
          << FormatBytes(result.error_offset_bytes) << ") of " << run.device.path << ": "
          << result.error.message() << "; stopped there, " << result.blocks_measured
          << " blocks measured before it written to " << where << " (marked partial)\n";
      return 1;
  }
  return 1;
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
    ZoneAnalysis analysis = DetectZones(profile.points, options.zones, context.media != Media::kNone);
    results.emplace_back(std::move(analysis), std::move(context));
  }
  std::string text;
  if (options.zones_format == "json") {
    text = results.size() == 1 ? "" : "[\n";
    for (std::size_t i = 0; i < results.size(); ++i) {
      std::string obj = ZoneAnalysisJson(results[i].first, results[i].second);
      // Name the source first: {"source":"...", ...the analysis...}
      std::string source;
      for (const char ch : results[i].second.source) {
        if (ch == '"' || ch == '\\') source += '\\';
        source += ch;
      }
      text += "{\"source\":\"" + source + "\"," + obj.substr(1);
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
