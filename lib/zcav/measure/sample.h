// Values that flow from the sweep to its sinks.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/device/device_info.h"
#include "zcav/measure/request_timeline.h"

namespace zcav {

// A sweep resolved against a device: every size is a multiple of the sector.
// Block i (0-based, among measured blocks) starts at
// start_bytes + i * skip * block_bytes and is min(block_bytes, end - offset)
// long: the trailing partial block is measured.
struct SweepPlan {
  std::uint64_t start_bytes = 0;
  std::uint64_t end_bytes = 0;  // exclusive
  std::uint64_t block_bytes = 0;
  std::uint64_t chunk_bytes = 0;  // one read call per chunk
  std::uint32_t passes = 1;
  std::uint32_t skip = 1;  // every skip-th block is read
  bool quick = false;
  bool warmup = true;
  bool stop_on_error = false;      // end at the first read error instead of mapping it
  bool write = false;              // write the range (destroying its data) instead of reading it
  double slow_factor = 10;         // a chunk this many times slower than its neighbours is slow
  std::string engine = "pread";    // "io_uring", "pread", "sim" or "pwrite" (write mode)
  std::uint32_t queue_depth = 1;   // chunks in flight at once
  std::uint64_t block_count = 0;   // measured blocks
  std::vector<std::string> notes;  // rounding and defaults the user should know

  // Give up once this many unreadable ranges are found (--max-errors); 0 = never.
  std::uint64_t max_errors = 0;
  // Stop once this much clock time has passed (--max-time); 0 = never.
  std::chrono::nanoseconds max_time{0};
  // The window of the sustained rate (SweepResult::requests). Not recorded
  // in the outputs' options: the result's "sustained" names it.
  std::chrono::nanoseconds sustained_window{std::chrono::seconds(10)};

  std::uint64_t BlockOffset(std::uint64_t index) const {
    return start_bytes + index * skip * block_bytes;
  }
  std::uint64_t BlockLength(std::uint64_t index) const {
    const std::uint64_t offset = BlockOffset(index);
    return end_bytes - offset < block_bytes ? end_bytes - offset : block_bytes;
  }
};

// Everything a writer puts in its header.
struct RunInfo {
  DeviceInfo device;
  SweepPlan plan;
  std::string version;         // zcav version
  std::string command_line;    // as typed, for the record
  std::string start_time_utc;  // ISO 8601, e.g. "2026-11-29T22:30:50Z"
  std::string host;            // the machine that ran it (uname nodename); "" = not known
  std::string kernel;  // its kernel (uname sysname and release), e.g. "Linux 6.1.0-18-amd64"
};

// One block read once (one pass).
struct Sample {
  std::uint32_t pass = 0;  // 0-based
  std::uint64_t block_index = 0;
  std::uint64_t offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  std::chrono::nanoseconds elapsed{0};
  // Clock::Now() when the block's first chunk was issued: places the sample
  // on the clock's time line (devices read together share it).
  std::chrono::nanoseconds started_at{0};
};

// A block's statistics across passes, final once its last pass is read (or
// the sweep stopped). Rates in MB/s (10^6 B/s).
struct BlockResult {
  std::uint64_t index = 0;
  std::uint64_t offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  std::uint32_t passes = 0;  // samples behind the figures (count)
  double mb_per_s = 0;       // median across passes
  double mean_mb_per_s = 0;
  double min_mb_per_s = 0;
  double max_mb_per_s = 0;
  double stddev_mb_per_s = 0;  // sample standard deviation; 0 for one pass
  double seconds = 0;          // length / median rate: the classic "time" column
  // The block's slowest clean chunk over all passes, ms (LatencyClasses'
  // chunk time): the surface map's cell. 0 = not known (a resumed block).
  double worst_chunk_ms = 0;
  // Bytes of the block inside unreadable ranges. Passes that met an error
  // give no sample: passes == 0 means no clean read of the block at all
  // (the rates are then 0 and mean nothing).
  std::uint64_t unreadable_bytes = 0;
};

// A range that could not be read (after one retry), bounded by bisection.
struct UnreadableRange {
  std::uint64_t offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  int errno_value = 0;     // e.g. EIO
  std::uint32_t pass = 0;  // the pass that found it (0-based)
  // True when the bisection budget ran out before the range was resolved to
  // single sectors: readable sectors may lie inside it.
  bool bounded_by_budget = false;
};

// Chunks read far slower than their neighbours (a failing disk retrying and
// reallocating), merged when adjacent. Not zones and not outliers: a slow
// region is a few chunks at a time scale of their own.
struct SlowRegion {
  std::uint64_t offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  std::uint32_t pass = 0;  // 0-based
  double ms = 0;           // time the region's chunks took
  double expected_ms = 0;  // what the neighbours' median rate would take
};

// Chunk latency classes as MHDD and Victoria users know them: a chunk's time
// (one read call of SweepPlan::chunk_bytes; at a queue depth above 1, its
// share of the interval its batch completed in) is below 5, 20, 50, 150 or
// 500 ms, or 500 ms and more; a chunk that held unreadable sectors is counted
// apart. The classes depend on the chunk size: MHDD's are for 256 sectors
// (128 KiB), zcav's default chunk is 1 MiB, so every outputs states it.
enum class LatencyClass : std::uint8_t {
  kBelow5,
  kBelow20,
  kBelow50,
  kBelow150,
  kBelow500,
  kAtLeast500,
  kUnreadable,
};
// The upper bounds (exclusive) of the first five classes, in ms.
inline constexpr std::array<double, 5> kLatencyBoundsMs{5, 20, 50, 150, 500};
// The class of a chunk read cleanly in `ms` milliseconds.
LatencyClass LatencyClassOf(double ms);
// "< 5 ms", ..., ">= 500 ms", "unreadable".
const char* LatencyClassLabel(LatencyClass c);
// "below_5ms", ..., "at_least_500ms", "unreadable": the keys of the raw
// format's "# latency:" lines.
const char* LatencyClassKey(LatencyClass c);

// Chunks counted by class (one pass, or a sum over passes).
struct LatencyClasses {
  std::uint64_t chunk_bytes = 0;  // the chunk size the classes are for
  // Clean chunks by class, kBelow5 .. kAtLeast500.
  std::array<std::uint64_t, 6> chunks{};
  std::uint64_t unreadable_chunks = 0;  // chunks that held unreadable sectors

  void Add(double ms) { ++chunks[static_cast<std::size_t>(LatencyClassOf(ms))]; }
  void Add(const LatencyClasses& other);
  // Every chunk counted, unreadable included.
  std::uint64_t Total() const;
};

struct PassSummary {
  std::uint32_t pass = 0;   // 0-based
  std::uint64_t bytes = 0;  // bytes read in timed blocks
  std::chrono::nanoseconds read_time{0};
  double mb_per_s = 0;  // bytes / read_time
  bool complete = false;
  // The share (0..1) of the device's page_cache_file (device_info.h) in the
  // page cache when the pass started: 1 = the pass read RAM. nullopt: the
  // reads bypass the page cache, or not known.
  std::optional<double> cached_share;
  // The pass's chunks by latency class. A resumed pass counts the chunks read
  // after the resume only (the partial run kept block times, not chunk times).
  LatencyClasses latency;
};

// kReadError: stopped at the first read error (stop_on_error).
// kDeviceGone: the device went away or shrank (ENODEV, ENXIO, ENOMEDIUM, a
// truncated file): nothing more can be read.
// kWriteError: a write sweep stopped at its first failing write.
// kTooManyErrors: gave up once plan.max_errors unreadable ranges were found
// (a dying disk; --max-errors).
// kTimeLimit: stopped once plan.max_time had passed (--max-time): what was
// read is a complete measurement of less of the range.
enum class SweepStatus {
  kComplete,
  kInterrupted,
  kReadError,
  kDeviceGone,
  kWriteError,
  kTooManyErrors,
  kTimeLimit,
};

struct SweepResult {
  SweepStatus status = SweepStatus::kComplete;
  // For kReadError, kWriteError and kDeviceGone: where and what.
  std::uint64_t error_offset_bytes = 0;
  std::error_code error;
  // For kTooManyErrors and kTimeLimit: the limit reached (the plan's
  // max_errors, max_time), for StatusText.
  std::uint64_t max_errors = 0;
  std::chrono::nanoseconds max_time{0};
  // Unreadable ranges (sorted, merged across passes) and slow regions (in
  // the order found).
  std::vector<UnreadableRange> unreadable;
  std::vector<SlowRegion> slow_regions;
  std::uint64_t UnreadableBytes() const;
  std::uint64_t blocks_measured = 0;  // blocks with at least one sample
  std::uint64_t bytes_read = 0;       // timed bytes over all passes
  std::chrono::nanoseconds read_time{0};
  double min_mb_per_s = 0;  // over block medians
  double max_mb_per_s = 0;
  double avg_mb_per_s = 0;                          // bytes_read / read_time (not a mean of rates)
  double wall_seconds = 0;                          // whole sweep, warm-up included
  double cpu_percent = 0;                           // process user+sys as % of wall
  std::optional<double> system_busy_percent;        // whole system, all CPUs (/proc/stat)
  std::optional<std::uint64_t> storage_read_bytes;  // from the Clock, when known
  std::vector<PassSummary> passes;
  // As PassSummary::cached_share, when the sweep ended.
  std::optional<double> cached_share_at_end;
  // The passes' latency classes added up.
  LatencyClasses LatencyTotals() const;
  // Every clean chunk's read or write call, timed (request_timeline.h): the
  // worst stall and the lowest rate over plan.sustained_window, a write
  // sweep's first pass in parts of whole blocks (so that the part after its
  // write cache can be chosen: analysis/sustained.h). Chunks read before a
  // resume are not in it; an adaptive sweep leaves it empty (requests 0).
  RequestSummary requests;

  bool partial() const { return status != SweepStatus::kComplete; }
  // "complete", "partial: interrupted", "partial: gave up after 2 unreadable
  // ranges (--max-errors)", "partial: time limit of 10m reached (--max-time)", ...
  std::string StatusText() const;
};

}  // namespace zcav
