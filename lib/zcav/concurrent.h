// Several devices read at the same time: one sweep per device, each on its
// own thread, and what they reach together — the aggregate rate over time
// and whether they share a ceiling (one bus, one controller, the system), as
// Coker measured with two IDE disks on one channel and on two.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "zcav/clock.h"
#include "zcav/device.h"
#include "zcav/sample.h"
#include "zcav/sample_sink.h"

namespace zcav {

struct ConcurrentJob {
  std::unique_ptr<Device> device;  // closed by the job's thread when its sweep ends
  RunInfo run;                     // run.plan from PlanSweep(device->info(), ...)
  Clock* clock = nullptr;          // not owned; used by this job's thread only
  SampleSink* sink = nullptr;      // not owned; called from this job's thread only
};

// Runs every job's sweep at the same time, one thread each, and returns the
// results in job order. Each device is destroyed by its own thread as soon as
// its sweep ends (a simulated device then leaves its shared bus, and a real
// one is closed), so jobs[i].device is null afterwards. Sinks must not share
// state across jobs without their own locking. A *stop_requested seen true
// stops every sweep after its current chunk (as RunSweep).
// REQUIRES: every job has a device, a clock and a sink.
std::vector<SweepResult> RunConcurrentSweeps(std::vector<ConcurrentJob>& jobs,
                                             const std::atomic<bool>* stop_requested = nullptr);

// One timed block read on a clock's time line.
struct TimedRead {
  std::chrono::nanoseconds start{0};
  std::chrono::nanoseconds end{0};
  std::uint64_t bytes = 0;
};

// Records every sample's place on the time line (for AggregateTimelines).
// Memory: 24 bytes per block read.
class TimelineSink final : public SampleSink {
 public:
  void OnSample(const Sample& s) override {
    reads_.push_back({s.started_at, s.started_at + s.elapsed, s.length_bytes});
  }
  const std::vector<TimedRead>& reads() const { return reads_; }

 private:
  std::vector<TimedRead> reads_;
};

// The rate of each device and of all together in one slice of time.
struct AggregatePoint {
  double time_s = 0;                   // slice middle, seconds since the first read began
  double total_mb_per_s = 0;           // 10^6 B/s, all devices
  std::vector<double> device_mb_per_s; // per device, in input order
};

struct Aggregate {
  // Evenly spaced slices from the first read's start to the last read's end.
  std::vector<AggregatePoint> points;
  double wall_seconds = 0;     // first start to last end
  // While every device was being read (from the latest first start to the
  // earliest last end): the bytes read in it over its length, all devices
  // together and each. A read straddling the window counts pro rata. When
  // the window is empty (a device finished before another began) these are
  // each device's bytes over the whole wall time.
  double overlap_seconds = 0;
  double aggregate_mb_per_s = 0;
  std::vector<double> device_mb_per_s;
  double peak_mb_per_s = 0;    // the highest slice total
};

// Merges the devices' time lines (same clock epoch). `slices` > 0.
// Pure; devices with no reads count as 0 MB/s and do not shrink the window.
Aggregate AggregateTimelines(const std::vector<std::vector<TimedRead>>& timelines,
                             std::size_t slices = 200);

struct SharedCeiling {
  // true: together they reach clearly less than the sum of their rates
  // alone; false: about the sum; nullopt: no alone figures to compare with.
  std::optional<bool> shared;
  double sum_alone_mb_per_s = 0;  // 0 when unknown
  double share = 0;               // together / sum alone; 0 when unknown
  std::string reason;             // one or two plain sentences with the numbers
};

// Compares the together figures with each device read alone (avg MB/s of
// its own sweep, in the same order; empty = not measured). Shared when the
// aggregate is below 85 % of the sum alone: run-to-run spread of one device
// is well under 10 %, and two devices halving one bus give 50 %.
SharedCeiling JudgeSharedCeiling(const std::vector<double>& alone_mb_per_s,
                                 const Aggregate& together,
                                 const std::vector<std::string>& names);

}  // namespace zcav
