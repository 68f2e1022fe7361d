// Random access by transfer size and queue depth: for every (size, depth)
// cell, `depth` requests of `size` bytes at uniformly random size-aligned
// offsets are kept in flight for a time (a closed loop: each completion is
// replaced at once, as fio's randread with iodepth does), and the cell gives
// IOPS, MB/s and the latency of every request (mean, p50, p99, max). The
// profile of an SSD that the seeds' tools (CrystalDiskMark, fio, HD Tune's
// random access test) draw: small random reads at depth 1 are the latency,
// at depth 32 what the controller's parallelism adds.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/base/clock.h"
#include "zcav/device/device.h"

namespace zcav {

struct RandomAccessOptions {
  // Transfer sizes, bytes (each rounded up to the device's sector size).
  // Default: 4 KiB, 64 KiB, 1 MiB.
  std::vector<std::uint64_t> sizes = {4096, 65536, 1048576};
  // Requests kept in flight. Default: 1, 4, 32.
  std::vector<std::uint32_t> depths = {1, 4, 32};
  // How long each cell runs (by the Clock), after which no request is
  // started and those in flight are waited for. Default: 1 s.
  std::chrono::nanoseconds cell_time = std::chrono::seconds(1);
  // Writes instead of reads (the device opened with OpenDeviceForWrite; the
  // write pattern of device.h). Default: false.
  bool write = false;
  // Seed of the std::mt19937_64 choosing the offsets. Default: 1.
  std::uint64_t seed = 1;
};

struct RandomAccessCell {
  std::uint64_t size_bytes = 0;    // per request, after rounding to the sector
  std::uint32_t queue_depth = 0;   // asked
  std::uint32_t engine_depth = 0;  // in flight at most (1 where the engine reads one at a time)
  std::uint64_t ops = 0;           // requests completed
  double seconds = 0;              // from the first request to the last completion
  double iops = 0;                 // ops / seconds
  double mb_per_s = 0;             // ops x size_bytes / seconds / 10^6
  // Latency of the requests (submitted to completed), milliseconds; p50 and
  // p99 are nearest-rank percentiles.
  double mean_ms = 0, p50_ms = 0, p99_ms = 0, max_ms = 0;
};

struct RandomAccessResult {
  std::vector<RandomAccessCell> cells;  // sizes outer, depths inner, in the order given
  std::string engine;     // how requests were issued (ReadQueue::engine): "io_uring", "pwrite", ...
  std::error_code error;  // the failed request that ended the test, if any
  std::uint64_t error_offset_bytes = 0;
  bool interrupted = false;  // *stop was set: the cells so far are kept
};

// Runs every cell on `device`, timed by `clock`. A failed request ends the
// test (error set, the complete cells kept). Never throws for I/O; throws
// Error(kBadInput) when a size is 0 or larger than the device or a depth is
// 0, std::bad_alloc, and Error(kRuntime) when a queue cannot be set up.
RandomAccessResult MeasureRandomAccess(Device& device, Clock& clock,
                                       const RandomAccessOptions& options,
                                       const std::atomic<bool>* stop = nullptr);

}  // namespace zcav
