// Estimating how long a sweep would take, before it starts: a short timed
// sequential read at the start of the device gives a rate, and the plan gives
// the bytes. `zcav profile` uses it to read quick when a full sweep would take
// more than an hour.
//
// The start of a hard disk is its fastest zone (inner zones read at half that
// rate or less), so the estimate is a lower bound there: a disk estimated at
// 1 h takes about 1.3-1.5 h in full. On a flat device (SSD, a bus-limited
// disk) it is close. An optical disc is read CAV, slowest at the start: the
// estimate is an upper bound.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <system_error>

#include "zcav/base/clock.h"
#include "zcav/base/units.h"
#include "zcav/device/device.h"
#include "zcav/measure/sample.h"
#include "zcav/measure/sweep.h"

namespace zcav {

struct StartRateOptions {
  // First byte read (the sweep's start). Default: 0.
  std::uint64_t start_bytes = 0;
  // Stop after this many timed bytes... Default: 256 MiB.
  std::uint64_t max_bytes = 256 * kMiB;
  // ...or once this much Clock time has passed, whichever comes first.
  // Default: 2 s.
  std::chrono::nanoseconds max_time = std::chrono::seconds(2);
  // Bytes per read call, rounded up to the sector. Default: 1 MiB.
  std::uint64_t chunk_bytes = kMiB;
  // Reads kept in flight (Device::OpenReadQueue), so that a device that is
  // fast only with several reads in flight is timed at the rate the sweep
  // will see; 1 = one ReadAt at a time. Default: 1.
  std::uint32_t queue_depth = 1;
};

struct StartRate {
  std::uint64_t bytes = 0;               // timed bytes read
  std::chrono::nanoseconds time{0};      // their Clock time
  double mb_per_s = 0;                   // bytes / time, 10^6 B/s; 0 when nothing was timed
  std::error_code error;                 // the read error that stopped it, if any
  std::uint64_t error_offset_bytes = 0;  // where (when error)
  bool interrupted = false;              // stopped by *stop
};

// Reads one untimed chunk at options.start_bytes (spin-up, first seek), then
// times sequential chunks after it until max_bytes or max_time is reached or
// the device ends, into one aligned buffer (with a queue_depth above 1: that
// many reads in flight through the device's read queue, the time running to
// the last completion); the last chunk is cut to the device's end. Stops at
// the first read error (error set, what was timed before it kept) and, after
// the current chunk, when *stop becomes true.
// Never throws for I/O; throws std::bad_alloc if the buffer cannot be
// allocated, Error(kRuntime) when a read queue cannot be set up, and Error(kBadInput)
// for a zero chunk or max_bytes or a start at or beyond the device's end.
StartRate MeasureStartRate(Device& device, Clock& clock, const StartRateOptions& options,
                           const std::atomic<bool>* stop = nullptr);

// The start-rate estimate that chooses a sweep's default block size
// (SweepOptions::expected_mb_per_s, PlanSweep): at `plan`'s start, with its
// reads in flight (queue depth and chunk), at most 256 MiB or 1/16 of the
// range and kBlockEstimateTime. Pure.
inline constexpr std::chrono::milliseconds kBlockEstimateTime{250};
StartRateOptions BlockEstimateOptions(const SweepPlan& plan);

// `options` with expected_mb_per_s measured on `device` (BlockEstimateOptions
// of the plan the options give without it), for the default block size.
// Unchanged, with nothing read, when the block size is given, for a write
// sweep, and for a simulated device (engine "sim": its noise is per block by
// construction, and its plans stay the same for every run). A failed or
// interrupted estimate leaves the rate 0 (the block then follows the size).
// Throws as PlanSweep (bad options) and MeasureStartRate.
SweepOptions WithStartRate(Device& device, Clock& clock, SweepOptions options,
                           const std::atomic<bool>* stop = nullptr);

// Bytes a sweep of `plan` reads in one pass (its blocks, the last one maybe
// shorter; skipped blocks not counted). Pure.
std::uint64_t PlanBytesPerPass(const SweepPlan& plan);

// Seconds a sweep of `plan` would take reading at `mb_per_s` (10^6 B/s):
// passes x PlanBytesPerPass / rate. 0 when the rate is not above 0. Pure.
double EstimateSweepSeconds(const SweepPlan& plan, double mb_per_s);

}  // namespace zcav
