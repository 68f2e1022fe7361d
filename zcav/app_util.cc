#include "app_util.h"

#include <sys/utsname.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <system_error>
#include <thread>

#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/device/posix/drive_temperature.h"
#include "zcav/measure/smart.h"
#include "zcav/version.h"

namespace zcav {

double Finite(double v) { return std::isfinite(v) ? v : 0.0; }

std::string Dump(const Json& doc) {
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string UtcNow() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string ExpandOutputName(const std::string& pattern, const DeviceInfo& device) {
  if (pattern.find('{') == std::string::npos) return pattern;
  // A value is one name within a path component: a device's own answer may
  // be "..", "/", or 50,000 bytes long. At most 200 bytes of it, so that the
  // component with the template's own text and the temporary name's suffix
  // (".tmp.PID", atomic_file.h) still fits NAME_MAX (255).
  constexpr std::size_t kMaxValueBytes = 200;
  const auto safe = [](const std::string& value) {
    if (value.empty()) return std::string("unknown");
    std::string out;
    for (const char c : value.substr(0, kMaxValueBytes)) {
      const bool keep =
          std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '_';
      out += keep ? c : '_';
    }
    if (out.find_first_not_of('.') == std::string::npos) return std::string("_");  // ".", ".."
    return out;
  };
  struct utsname names {};
  const std::string host = ::uname(&names) == 0 ? names.nodename : "";
  const std::string now = UtcNow();  // 2026-12-03T02:30:52Z
  const std::string time = now.substr(11, 2) + now.substr(14, 2) + now.substr(17, 2);
  std::string out;
  for (std::size_t i = 0; i < pattern.size();) {
    if (pattern[i] != '{') {
      out += pattern[i++];
      continue;
    }
    const std::size_t close = pattern.find('}', i);
    if (close == std::string::npos) {
      throw Error("output name '" + pattern + "': '{' without '}'", ErrorKind::kBadInput);
    }
    const std::string key = pattern.substr(i + 1, close - i - 1);
    if (key == "host") {
      out += safe(host);
    } else if (key == "serial") {
      out += safe(device.serial);
    } else if (key == "model") {
      out += safe(device.model);
    } else if (key == "wwn") {
      out += safe(device.wwn);
    } else if (key == "device") {
      out += safe(std::filesystem::path(device.path).filename().string());
    } else if (key == "date") {
      out += now.substr(0, 10);
    } else if (key == "time") {
      out += time;
    } else {
      throw Error("output name '" + pattern + "': unknown {" + key +
                      "} (use {host}, {serial}, {model}, {wwn}, {device}, {date} or {time})",
                  ErrorKind::kBadInput);
    }
    i = close + 1;
  }
  return out;
}

bool OpenedDevice::Idle(std::chrono::nanoseconds d, const std::atomic<bool>& stop) {
  if (simulated_) {
    virtual_clock_.Advance(d);
    return !stop.load();
  }
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
    if (stop.load()) return false;
    std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(
        until - std::chrono::steady_clock::now(), std::chrono::milliseconds(100)));
  }
  return !stop.load();
}

void OpenedDevice::Open(const std::string& name, SimBusSet* buses) {
  device_ = OpenDevice(name, virtual_clock_, buses);
  simulated_ = IsSimulatedName(name);
}

void OpenedDevice::OpenForWrite(const std::string& name, std::optional<NewTestFile> new_file,
                                bool allow_in_use) {
  device_ = OpenDeviceForWrite(name, new_file, virtual_clock_, allow_in_use);
  simulated_ = IsSimulatedName(name);
}

HealthSources HealthSourcesFor(Device& device, bool smart) {
  const DeviceInfo& info = device.info();
  HealthSources sources;
  const std::string path = info.path;
  if (smart) {
    if (info.kind == "sim") {
      sources.smart = [] {
        SmartSnapshot s;
        s.note = "a simulated device has no SMART data";
        return s;
      };
    } else {
      sources.smart = [path] { return ReadSmart(path); };
    }
  }
  if (info.kind == "sim" && device.TemperatureC()) {
    sources.temperature = [&device] { return device.TemperatureC(); };
    sources.temperature_source = "simulated";
    sources.temperature_every = std::chrono::seconds(5);
  }
  if (info.kind != "block") return sources;
  std::error_code ec;
  const std::string block = std::filesystem::canonical(path, ec).filename().string();
  if (!ec && ReadDriveTemperatureC(block)) {
    sources.temperature = [block] { return ReadDriveTemperatureC(block); };
    sources.temperature_source = "hwmon";
    sources.temperature_every = std::chrono::seconds(60);
  } else if (smart) {
    sources.temperature = [path]() -> std::optional<double> {
      return ReadSmart(path).temperature_c;
    };
    sources.temperature_source = "smartctl";
    sources.temperature_every = std::chrono::minutes(5);
  }
  return sources;
}

void SayHealth(const HealthReport& report, std::ostream& err) {
  err << "zcav: health: " << HealthVerdictName(report.health.verdict);
  for (std::size_t i = 0; i < report.health.reasons.size(); ++i) {
    err << (i == 0 ? ": " : "; ") << report.health.reasons[i];
  }
  err << "\n";
  if (report.smart_requested && !report.smart_before.available) {
    err << "zcav: note: SMART: " << report.smart_before.note << "\n";
  }
}

RunInfo NewRunInfo(const DeviceInfo& device, const SweepPlan& plan,
                   const std::string& command_line) {
  RunInfo run;
  run.device = device;
  run.plan = plan;
  run.version = ZCAV_VERSION;
  run.command_line = command_line;
  run.start_time_utc = UtcNow();
  struct utsname names {};
  if (::uname(&names) == 0) {
    run.host = names.nodename;
    run.kernel = std::string(names.sysname) + " " + names.release;
  }
  return run;
}

SavedResult SweepProfile(const std::string& source, const std::string& format, const RunInfo& run,
                         const SweepResult& result, Curve points) {
  SavedResult p;
  p.source = source;
  p.format = format;
  p.device_path = run.device.path;
  p.device_bytes = run.device.size_bytes;
  p.block_bytes = run.plan.block_bytes;
  p.passes = run.plan.passes;
  p.points = std::move(points);
  p.device_vendor = run.device.vendor;
  p.device_model = run.device.model;
  p.device_serial = run.device.serial;
  p.device_wwn = run.device.wwn;
  p.device_firmware = run.device.firmware;
  p.host = run.host;
  p.transport = run.device.transport;
  p.link = run.device.link;
  p.avg_mb_per_s = result.avg_mb_per_s;
  p.cpu_percent = result.cpu_percent;
  return p;
}

std::string PlotNameFor(const std::string& device) {
  std::string name = std::filesystem::path(device).filename().string();
  if (name.empty()) name = device;
  for (char& c : name) {
    const bool plain =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    if (!plain) c = '-';
  }
  return name.empty() ? "zcav" : name;
}

void WriteAndRender(PlotKind kind, const std::vector<PlotInput>& inputs, const std::string& dir,
                    const std::string& name, const std::vector<std::string>& images, bool quiet,
                    std::ostream& err) {
  const PlotFiles files = WritePlot(kind, inputs, dir, name, images);
  if (!GnuplotAvailable()) {
    err << "zcav: warning: gnuplot (with the pngcairo and svg terminals) is not installed: "
           "wrote "
        << files.script_path << " and its data; install gnuplot and run 'cd "
        << (dir.empty() ? "." : dir) << " && gnuplot " << name << ".gp' to draw the images\n";
    return;
  }
  RenderPlot(files);
  if (!quiet) {
    for (const std::string& image : files.image_paths) err << "zcav: wrote " << image << "\n";
    err << "zcav: gnuplot script " << files.script_path << " (edit it, then run 'gnuplot " << name
        << ".gp' in its directory)\n";
  }
}

namespace {

// The first five of `regions` on `err` as " OFFSET+LENGTH...", each followed
// by what `describe` adds, and " ..." when there are more.
template <class Region, class Describe>
void SayFirstFive(std::ostream& err, const std::vector<Region>& regions, Describe describe) {
  std::size_t shown = 0;
  for (const Region& r : regions) {
    if (shown++ == 5) {
      err << " ...";
      break;
    }
    err << (shown > 1 ? "," : "") << " " << r.offset_bytes << "+" << r.length_bytes;
    describe(r);
  }
}

}  // namespace

int SweepExitCode(const SweepResult& result, const RunInfo& run, const std::string& where,
                  std::ostream& err) {
  const std::string& device = run.device.path;
  if (!result.unreadable.empty()) {
    err << "zcav: " << device << ": " << result.unreadable.size() << " unreadable region"
        << (result.unreadable.size() == 1 ? "" : "s") << ", "
        << FormatBytes(result.UnreadableBytes()) << ":";
    SayFirstFive(err, result.unreadable, [&](const UnreadableRange& r) {
      err << " (" << std::strerror(r.errno_value) << (r.bounded_by_budget ? ", bounded" : "")
          << ")";
    });
    err << "; read around them, their blocks are left out of the zone statistics\n";
  }
  if (!result.slow_regions.empty()) {
    err << "zcav: " << device << ": " << result.slow_regions.size() << " slow region"
        << (result.slow_regions.size() == 1 ? "" : "s") << " (far slower than the chunks before):";
    SayFirstFive(err, result.slow_regions, [&](const SlowRegion& r) {
      err << " in " << Num(r.ms, 0) << " ms (expected " << Num(r.expected_ms, 1) << " ms)";
    });
    err << "\n";
  }
  switch (result.status) {
    case SweepStatus::kComplete:
      return result.unreadable.empty() ? 0 : 1;
    case SweepStatus::kTimeLimit:
      err << "zcav: " << result.StatusText().substr(std::string("partial: ").size()) << ": "
          << result.blocks_measured << " of " << run.plan.block_count
          << " blocks measured, written to " << where << " (marked partial)\n";
      return result.unreadable.empty() ? 0 : 1;
    case SweepStatus::kTooManyErrors:
      err << "zcav: " << result.StatusText().substr(std::string("partial: ").size())
          << " at offset " << result.error_offset_bytes << " bytes of " << device << "; "
          << result.blocks_measured << " blocks measured before it written to " << where
          << " (marked partial)\n";
      return 1;
    case SweepStatus::kInterrupted:
      err << "zcav: interrupted: " << result.blocks_measured << " of " << run.plan.block_count
          << " blocks measured, written to " << where << " (marked partial)\n";
      return 130;
    case SweepStatus::kReadError:
      err << "zcav: read error at offset " << result.error_offset_bytes << " bytes ("
          << FormatBytes(result.error_offset_bytes) << ") of " << device << ": "
          << result.error.message() << "; stopped there (--stop-on-error), "
          << result.blocks_measured << " blocks measured before it written to " << where
          << " (marked partial)\n";
      return 1;
    case SweepStatus::kWriteError:
      err << "zcav: write error at offset " << result.error_offset_bytes << " bytes ("
          << FormatBytes(result.error_offset_bytes) << ") of " << device << ": "
          << result.error.message() << "; stopped there, " << result.blocks_measured
          << " blocks measured before it written to " << where << " (marked partial)\n";
      return 1;
    case SweepStatus::kDeviceGone:
      err << "zcav: " << device << " went away at offset " << result.error_offset_bytes
          << " bytes (" << FormatBytes(result.error_offset_bytes) << "): " << result.error.message()
          << "; " << result.blocks_measured << " blocks measured before it written to " << where
          << " (marked partial)\n";
      return 3;
  }
  return 1;
}

std::string Num(double v, int decimals) { return FormatFixed(v, decimals); }

void WriteWholeResult(const std::string& output, const std::vector<std::string>& inputs,
                      const std::string& text, std::ostream& out) {
  if (output == "-") {
    out << text << std::flush;
    return;
  }
  WriteFileAtomically(output, text, inputs);
}

EventsOutput::EventsOutput(const std::string& path, std::ostream& out,
                           const std::vector<std::string>& inputs)
    : path_(path) {
  if (path.empty()) return;
  std::ostream* stream = &out;
  if (path != "-") {
    try {
      file_ = std::make_unique<AtomicFile>(path, inputs);
      file_->PlaceNow();
    } catch (const Error& e) {
      throw Error(std::string("--events: ") + e.what(), e.kind());
    }
    stream = &file_->stream();
  }
  writer_ = MakeEventsWriter(*stream);
  guard_ = std::make_unique<WriteGuard>(*writer_);
}

EventsOutput::~EventsOutput() = default;

ResultSink* EventsOutput::sink() { return guard_.get(); }

void EventsOutput::Exit(int exit_code, std::ostream& err) {
  if (!writer_) return;
  if (!guard_->failed()) {
    try {
      writer_->OnExit(exit_code);
    } catch (const Error&) {
      err << "zcav: warning: writing the events to " << (path_ == "-" ? "stdout" : path_)
          << " failed: the done event is missing\n";
      return;
    }
    return;
  }
  err << "zcav: warning: writing the events to " << (path_ == "-" ? "stdout" : path_) << " failed ("
      << guard_->message() << "): the events stop there\n";
}

}  // namespace zcav
