// Pieces the CLI commands share: the device opened with its clock, the run's
// record, the atomic output file, the curve kept for plots and the profile
// made of it, file names made from device names, rendering, JSON and number
// text.
// Private to the zcav executable (not part of the library).
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "zcav/base/clock.h"
#include "zcav/device/device.h"
#include "zcav/base/error.h"
#include "zcav/io/data_reader.h"
#include "zcav/io/plot.h"
#include "zcav/measure/access.h"
#include "zcav/measure/burst.h"
#include "zcav/measure/sample_sink.h"

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
// The device facts every probe's JSON carries.
Json DeviceJson(const DeviceInfo& dev);
// The figures of an access test (access.h) of `read_bytes` per read, every
// sample included, as `zcav access` and profile.json write them.
Json AccessFiguresJson(const AccessResult& r, std::uint64_t read_bytes);
// The figures of a burst test (burst.h) over `region_bytes`.
Json BurstFiguresJson(const BurstResult& r, std::uint64_t region_bytes);
// Says on `err` how a sweep of `device` ended (unreadable and slow regions,
// interruption, read error, device gone; results written to `where`) and
// returns the exit code: 0 complete and every byte read; 1 complete with
// unreadable regions, or stopped at a read error (--stop-on-error) or a
// write error (write mode); 3 the
// device went away; 130 interrupted.
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
  // Opens `name` for a write sweep with OpenDeviceForWrite (device.h).
  // Throws Error(kBadInput) as OpenDeviceForWrite does. REQUIRES: the
  // user's consent to destroy the data.
  void OpenForWrite(const std::string& name, std::optional<std::uint64_t> create_bytes);

  // The device. REQUIRES: opened, not taken or closed.
  Device& device() { return *device_; }
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

// The record of a run that starts now: `device`, `plan`, this zcav's version,
// `command_line` and the start time (UtcNow).
RunInfo NewRunInfo(const DeviceInfo& device, const SweepPlan& plan,
                   const std::string& command_line);

// A sweep's result as the plots and reports take it: the device facts of
// `run` (path, size, vendor, model, transport, link), its plan's block size
// and passes, the curve `points`, and the average rate and CPU share of
// `result`; `source` and `format` as a reader would set them. The unreadable
// and slow regions are the caller's to add (not every command draws them).
Profile SweepProfile(const std::string& source, const std::string& format, const RunInfo& run,
                     const SweepResult& result, Curve points);

// A file name made from a device name: "/dev/sdb" -> "sdb", "sim:hdd?size=2T"
// -> "sim-hdd-size-2T".
std::string PlotNameFor(const std::string& device);
// Writes the plot, renders it when gnuplot is there, says what was written
// (unless quiet) or how to render later. Throws Error as WritePlot/RenderPlot.
void WriteAndRender(PlotKind kind, const std::vector<PlotInput>& inputs, const std::string& dir,
                    const std::string& name, const std::vector<std::string>& images, bool quiet,
                    std::ostream& err);

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
  // With `partial` (an interrupted or cut-short run) the result is renamed to
  // TARGET.partial instead, and TARGET is left as it was: a partial result
  // keeps its own clearly named file (zcav sweep --resume continues it).
  void Commit(bool partial = false) {
    stream_.close();
    if (!stream_) throw Error("writing " + (direct_ ? target_ : temp_) + " failed", ErrorKind::kRuntime);
    final_ = direct_ || !partial ? target_ : target_ + ".partial";
    if (!direct_ && std::rename(temp_.c_str(), final_.c_str()) != 0) {
      throw Error("rename " + temp_ + " to " + final_ + ": " + std::strerror(errno),
                  ErrorKind::kRuntime);
    }
    committed_ = true;
  }
  // Where Commit() put the result.
  const std::string& final_path() const { return final_; }
  // Cuts what was written from byte `size` on and returns it; writing goes
  // on from there (a writer's closing part read back and replaced, without
  // holding the file in memory). REQUIRES: seekable(), size <= bytes
  // written. Throws Error(kRuntime) when the file cannot be read or cut.
  std::string CutAt(std::uint64_t size) {
    assert(seekable());
    stream_.close();
    const auto fail = [&](const std::string& what) {
      throw Error(what + " " + temp_ + ": " + std::strerror(errno), ErrorKind::kRuntime);
    };
    if (!stream_) fail("writing");
    std::string tail;
    {
      std::ifstream in(temp_, std::ios::binary);
      in.seekg(static_cast<std::streamoff>(size));
      std::ostringstream text;
      if (in && in.peek() != std::ifstream::traits_type::eof()) text << in.rdbuf();
      if (!in && !in.eof()) fail("reading back");
      tail = text.str();
    }
    if (::truncate(temp_.c_str(), static_cast<off_t>(size)) != 0) fail("cutting");
    stream_.open(temp_, std::ios::in | std::ios::out | std::ios::binary);
    stream_.seekp(0, std::ios::end);
    if (!stream_) fail("reopening");
    return tail;
  }

 private:
  std::string target_;
  std::string temp_;
  std::string final_;
  std::fstream stream_;
  bool direct_ = false;
  bool committed_ = false;
};

// Writes `text` whole to `output` (an OutputFile, renamed into place), or to
// `out` for "-". Throws Error as OutputFile does (`inputs`: the files read).
void WriteWholeResult(const std::string& output, const std::vector<std::string>& inputs,
                      const std::string& text, std::ostream& out);

// Keeps each block's figures for the plot drawn after the sweep, compactly
// (zone_detector.h: 8 bytes per block for one pass, 24 for several).
class CurveSink final : public SampleSink {
 public:
  void OnStart(const RunInfo&) override {}
  void OnSample(const Sample&) override {}
  void OnBlock(const BlockResult& b) override {
    if (b.passes == 0) return;  // no clean read: no rate to draw
    points.push_back({b.offset_bytes, b.length_bytes, b.mb_per_s, b.min_mb_per_s,
                      b.max_mb_per_s});
  }
  void OnPassDone(const PassSummary&) override {}
  void OnFinish(const SweepResult&) override {}

  Curve points;
};

}  // namespace zcav
