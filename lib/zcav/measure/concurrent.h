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

#include "zcav/base/clock.h"
#include "zcav/device/device.h"
#include "zcav/measure/sample.h"
#include "zcav/measure/sample_sink.h"

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
  double time_s = 0;                    // slice middle, seconds since the first read began
  double total_mb_per_s = 0;            // 10^6 B/s, all devices
  std::vector<double> device_mb_per_s;  // per device, in input order
};

struct Aggregate {
  // Evenly spaced slices from the first read's start to the last read's end.
  std::vector<AggregatePoint> points;
  double wall_seconds = 0;  // first start to last end
  // While every device was being read (from the latest first start to the
  // earliest last end): the bytes read in it over its length, all devices
  // together and each. A read straddling the window counts pro rata. When
  // the window is empty (a device finished before another began) these are
  // each device's bytes over the whole wall time.
  double overlap_seconds = 0;
  double aggregate_mb_per_s = 0;
  std::vector<double> device_mb_per_s;
  double peak_mb_per_s = 0;  // the highest slice total
  // The 90th percentile of the slice totals inside the window: the level the
  // total holds under a shared ceiling (the peak is one noisy slice).
  double high_mb_per_s = 0;
};

// Merges the devices' time lines (same clock epoch). `slices` > 0.
// Pure; devices with no reads count as 0 MB/s and do not shrink the window.
Aggregate AggregateTimelines(const std::vector<std::vector<TimedRead>>& timelines,
                             std::size_t slices = 200);

struct SharedCeiling {
  // true: read together they are clearly slower than alone; false: about as
  // fast; nullopt: no alone figures to compare with.
  std::optional<bool> shared;
  double sum_alone_mb_per_s = 0;  // 0 when unknown
  double share = 0;               // together aggregate / sum alone; 0 when unknown
  // Per device: the fraction of its bytes read together at under 85 % of
  // its rate alone there (block by block); empty when unknown.
  std::vector<double> slowed_share;
  std::string reason;  // one or two plain sentences with the numbers
};

// One device's sweep, for the comparison.
struct DeviceRun {
  std::string name;
  double avg_mb_per_s = 0;                 // its sweep's bytes / read time
  std::vector<double> block_mb_per_s;      // per block, in block order
  std::vector<std::uint64_t> block_bytes;  // each block's length
};

// Compares the together run with each device read alone (same order and
// sweep plan; `alone` empty = not measured). A shared ceiling often binds on
// part of the surface only (two 60 -> 30 MB/s disks on an 80 MB/s bus are
// slowed over their outer half), so the comparison is block by block: a
// device is slowed where its together rate (running median of 5 blocks) is
// under 85 % of its rate alone on that block (one device's run-to-run spread
// is well under 10 %; two devices halving a bus give 50 %). Shared when some
// device is slowed over at least 10 % of its bytes, or the aggregate is under
// 85 % of the sum alone.
SharedCeiling JudgeSharedCeiling(const std::vector<DeviceRun>& alone,
                                 const std::vector<DeviceRun>& together,
                                 const Aggregate& aggregate);

}  // namespace zcav
