// Pieces the CLI commands share: the device opened with its clock, the run's
// record, a result written whole, the curve kept for plots and the profile
// made of it, file names made from device names, rendering, JSON and number
// text.
// Private to the zcav executable (not part of the library).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "zcav/base/atomic_file.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/device/device.h"
#include "zcav/format/data_reader.h"
#include "zcav/format/events_writer.h"
#include "zcav/measure/access.h"
#include "zcav/measure/burst.h"
#include "zcav/measure/random_access.h"
#include "zcav/measure/sample_sink.h"
#include "zcav/pipeline/health_sink.h"
#include "zcav/pipeline/result_recorder.h"
#include "zcav/report/plot.h"

namespace zcav {

using Json = nlohmann::ordered_json;  // keeps keys in the order written

// 0 for NaN and infinities (JSON has no such numbers).
double Finite(double v);
// One JSON document and a newline; invalid UTF-8 (from file names) replaced.
std::string Dump(const Json& doc);
// Now as ISO 8601 UTC, e.g. "2026-11-29T22:30:50Z".
std::string UtcNow();
// FormatFixed (base/text.h): v with `decimals` decimals, "0" for NaN and infinities.
std::string Num(double v, int decimals);
// Says on `err` how a sweep of `device` ended (unreadable and slow regions,
// interruption, read error, device gone; results written to `where`) and
// returns the exit code: 0 complete and every byte read; 1 complete with
// unreadable regions, or stopped at a read error (--stop-on-error) or a
// write error (write mode), or gave up (--max-errors); 3 the
// device went away; 130 interrupted. A time limit (--max-time) counts as
// complete: 0, or 1 with unreadable regions.
int SweepExitCode(const SweepResult& result, const RunInfo& run, const std::string& where,
                  std::ostream& err);

// A device opened from a user-given name, and the clock that times it: the
// virtual clock a simulated device ("sim:...") advances, else the steady
// clock. Not copyable: the device refers to the virtual clock.
class OpenedDevice {
 public:
  OpenedDevice() = default;
  OpenedDevice(const OpenedDevice&) = delete;
  OpenedDevice& operator=(const OpenedDevice&) = delete;

  // Opens `name` with OpenDevice (device.h), on `buses` when given. Throws
  // Error(kBadInput) as OpenDevice does.
  void Open(const std::string& name, SimBusSet* buses = nullptr);
  // Opens `name` for a write sweep with OpenDeviceForWrite (device.h);
  // `allow_in_use`: --force-in-use. Throws Error(kBadInput) as
  // OpenDeviceForWrite does. REQUIRES: the user's consent to destroy the data.
  void OpenForWrite(const std::string& name, std::optional<NewTestFile> new_file,
                    bool allow_in_use = false);

  // The device. REQUIRES: opened, not taken or closed.
  Device& device() { return *device_; }
  // Waits `d` with the device idle: the virtual clock moves on for a
  // simulated device, real time passes for a real one (in steps of at most
  // 100 ms, so that `stop` ends it early). False when stopped.
  bool Idle(std::chrono::nanoseconds d, const std::atomic<bool>& stop);
  // Hands the device over (a concurrent sweep owns it); clock() stays valid.
  std::unique_ptr<Device> TakeDevice() { return std::move(device_); }
  // Closes the device; clock() stays valid.
  void Close() { device_.reset(); }
  // The clock that times the device's reads. REQUIRES: opened.
  Clock& clock() {
    return simulated_ ? static_cast<Clock&>(virtual_clock_) : static_cast<Clock&>(steady_clock_);
  }
  // Real time, also for a simulated device: what paces a progress line.
  SteadyClock& steady_clock() { return steady_clock_; }

 private:
  VirtualClock virtual_clock_;
  SteadyClock steady_clock_;
  std::unique_ptr<Device> device_;
  bool simulated_ = false;
};

// Where a sweep of `device` gets the drive's own figures (health_sink.h):
// SMART (when `smart`) through smartctl; for a simulated device a snapshot
// whose note says it has none. The temperature from hwmon when the kernel
// has it for the block device (every 60 s of clock time), else, with
// `smart`, from smartctl every 5 minutes; a simulated drive that models
// its temperature (Device::TemperatureC) every 5 s. `device` must outlive
// the sources.
HealthSources HealthSourcesFor(Device& device, bool smart);

// "zcav: health: VERDICT: reason; reason" and, when SMART was asked for but
// could not be read, "zcav: note: SMART: why", on `err`.
void SayHealth(const HealthReport& report, std::ostream& err);

// An output name with the drive's identity filled in, so results from a
// fleet land in one directory without clashes: {host} (uname nodename),
// {serial}, {model}, {wwn}, {device} (the device path's last part), {date}
// (UTC YYYY-MM-DD) and {time} (UTC HHMMSS) are replaced; each value keeps
// only letters, digits, '.', '-' and '_' (others become '_'; an unknown
// value is "unknown"; one made only of dots, as "..", is "_"), at most
// 200 bytes of it (room in NAME_MAX, 255, for the rest of the name and
// the temporary name's suffix). A name without '{' is returned as it is. Throws
// Error(kBadInput) for an unknown {key} or an unclosed brace, naming the
// keys.
std::string ExpandOutputName(const std::string& pattern, const DeviceInfo& device);

// The record of a run that starts now: `device`, `plan`, this zcav's version,
// `command_line`, the start time (UtcNow), and the host and kernel (uname).
RunInfo NewRunInfo(const DeviceInfo& device, const SweepPlan& plan,
                   const std::string& command_line);

// A sweep's result as the plots and reports take it: the device facts of
// `run` (path, size, vendor, model, serial, WWN, firmware, host, transport,
// link), its plan's block size
// and passes, the curve `points`, and the average rate and CPU share of
// `result`; `source` and `format` as a reader would set them. The unreadable
// and slow regions are the caller's to add (not every command draws them).
SavedResult SweepProfile(const std::string& source, const std::string& format, const RunInfo& run,
                         const SweepResult& result, Curve points);

// A file name made from a device name: "/dev/sdb" -> "sdb", "sim:hdd?size=2T"
// -> "sim-hdd-size-2T".
std::string PlotNameFor(const std::string& device);
// Writes the plot, renders it when gnuplot is there, says what was written
// (unless quiet) or how to render later. Throws Error as WritePlot/RenderPlot.
void WriteAndRender(PlotKind kind, const std::vector<PlotInput>& inputs, const std::string& dir,
                    const std::string& name, const std::vector<std::string>& images, bool quiet,
                    std::ostream& err);

// Writes `text` whole to `output` (an AtomicFile, renamed into place), or to
// `out` for "-". Throws Error as AtomicFile does (`inputs`: the files read).
void WriteWholeResult(const std::string& output, const std::vector<std::string>& inputs,
                      const std::string& text, std::ostream& out);

// The --events stream of one run (format/events_writer.h): none for an empty
// `path`, `out` (stdout) for "-", else the file `path`, checked as -o is
// (AtomicFile: not a device, not one of `inputs`), created under a random
// temporary name and renamed into place now, then written as the run goes
// (a run killed mid-way leaves every line written so far). A failed write
// (a full disk, a closed pipe) does not stop the run: the events stop and
// Exit says so on `err`. Throws Error(kBadInput) when the file cannot be
// opened or is refused.
class EventsOutput {
 public:
  EventsOutput(const std::string& path, std::ostream& out,
               const std::vector<std::string>& inputs = {});
  ~EventsOutput();
  EventsOutput(const EventsOutput&) = delete;
  EventsOutput& operator=(const EventsOutput&) = delete;
  // The sink to add to the run's sinks; null when there are no events.
  ResultSink* sink();
  // The "done" event with the command's exit code (nothing without events);
  // says on `err` when the events could not be written.
  void Exit(int exit_code, std::ostream& err);

 private:
  std::string path_;
  std::unique_ptr<AtomicFile> file_;
  std::unique_ptr<EventsWriter> writer_;
  std::unique_ptr<WriteGuard> guard_;
};

}  // namespace zcav
