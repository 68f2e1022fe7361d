// Values that flow from the sweep to its sinks.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/device.h"

namespace zcav {

// A sweep resolved against a device: every size is a multiple of the sector.
// Block i (0-based, among measured blocks) starts at
// start_bytes + i * skip * block_bytes and is min(block_bytes, end - offset)
// long: the trailing partial block is measured.
struct SweepPlan {
  std::uint64_t start_bytes = 0;
  std::uint64_t end_bytes = 0;   // exclusive
  std::uint64_t block_bytes = 0;
  std::uint64_t chunk_bytes = 0; // one read call per chunk
  std::uint32_t passes = 1;
  std::uint32_t skip = 1;        // every skip-th block is read
  bool quick = false;
  bool warmup = true;
  std::uint64_t block_count = 0; // measured blocks
  std::vector<std::string> notes;  // rounding and defaults the user should know

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
};

// One block read once (one pass).
struct Sample {
  std::uint32_t pass = 0;            // 0-based
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
  std::uint32_t passes = 0;       // samples behind the figures (count)
  double mb_per_s = 0;            // median across passes
  double mean_mb_per_s = 0;
  double min_mb_per_s = 0;
  double max_mb_per_s = 0;
  double stddev_mb_per_s = 0;     // sample standard deviation; 0 for one pass
  double seconds = 0;             // length / median rate: the classic "time" column
};

struct PassSummary {
  std::uint32_t pass = 0;         // 0-based
  std::uint64_t bytes = 0;        // bytes read in timed blocks
  std::chrono::nanoseconds read_time{0};
  double mb_per_s = 0;            // bytes / read_time
  bool complete = false;
};

enum class SweepStatus { kComplete, kInterrupted, kReadError };

struct SweepResult {
  SweepStatus status = SweepStatus::kComplete;
  // For kReadError: where and what. Until the reliability work lands a read
  // error ends the sweep (never as "end of device").
  std::uint64_t error_offset_bytes = 0;
  std::error_code error;
  std::uint64_t blocks_measured = 0;  // blocks with at least one sample
  std::uint64_t bytes_read = 0;       // timed bytes over all passes
  std::chrono::nanoseconds read_time{0};
  double min_mb_per_s = 0;            // over block medians
  double max_mb_per_s = 0;
  double avg_mb_per_s = 0;            // bytes_read / read_time (not a mean of rates)
  double wall_seconds = 0;            // whole sweep, warm-up included
  double cpu_percent = 0;             // process user+sys as % of wall
  std::optional<double> system_busy_percent;  // whole system, all CPUs (/proc/stat)
  std::optional<std::uint64_t> storage_read_bytes;  // from the Clock, when known
  std::vector<PassSummary> passes;

  bool partial() const { return status != SweepStatus::kComplete; }
  std::string StatusText() const;     // "complete", "partial: interrupted", ...
};

}  // namespace zcav
