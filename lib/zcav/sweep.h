// The sweep engine: reads a device in fixed-size blocks over several passes
// and times every block.
//
// Each block is read in chunks through the device's ReadQueue (device.h):
// with io_uring, up to queue_depth chunks are in flight at once, and the
// queue is kept full across block boundaries so a fast device never idles
// between blocks; one at a time otherwise. A block's time runs from its
// first chunk's submission (or, when the previous block was still being
// read then, from the moment that block finished) to its last chunk's
// completion, on the Clock (monotonic for real devices, virtual for
// simulated ones): consecutive blocks' times add up to the pass's reading
// time, and at queue depth 1 it is simply first submission to last
// completion. Passes are pass-major, like classic zcav: the whole range,
// then again.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>

#include "zcav/clock.h"
#include "zcav/device.h"
#include "zcav/sample.h"
#include "zcav/sample_sink.h"

namespace zcav {

struct ResumePoint;  // resume.h

// How chunks are read (SweepOptions::engine).
enum class ReadEngineChoice {
  kAuto,     // the device's own: io_uring where available, else pread
  kIoUring,  // io_uring, or Error when the device cannot use it
  kPread,    // one pread at a time (queue depth 1), as classic zcav
};

struct SweepOptions {
  // Block size in bytes. 0 = about 1000 blocks over the range (rounded to the
  // chunk size above 1 MiB, to the sector below). Default: 0.
  std::uint64_t block_bytes = 0;
  // Bytes per read call. 0 = the device's preferred read
  // (DeviceInfo::default_chunk_bytes: 1 MiB, up to 4 MiB for fast devices)
  // if it divides the block, else the largest power of two of at least
  // 1 MiB below it that does; min(1 MiB, block) for blocks of less than
  // 2 MiB. Default: 0.
  std::uint64_t chunk_bytes = 0;
  // Times the range is read. Default: 1.
  std::uint32_t passes = 1;
  // First byte of the range. Default: 0.
  std::uint64_t start_bytes = 0;
  // End of the range (exclusive); nullopt = end of device. Default: nullopt.
  std::optional<std::uint64_t> end_bytes;
  // Read every skip-th block (classic zcav -s). Default: 1 (every block).
  std::uint32_t skip = 1;
  // Quick mode: an evenly spaced ~1/10 of the surface: with an automatic block
  // size, 10000 slots of which every 10th is read (about 1000 points); with a
  // given block size, every 10th block. Default: false.
  bool quick = false;
  // Read one untimed chunk at the start before timing (spin-up, first seek).
  // Default: true.
  bool warmup = true;
  // End the sweep at the first read error (classic zcav behaviour) instead
  // of mapping the unreadable range and going on. Default: false.
  bool stop_on_error = false;
  // A chunk is slow when it takes more than slow_factor times what the
  // median rate of the preceding chunks predicts (and at least 250 ms).
  // 0 = no slow-region detection. Default: 10.
  double slow_factor = 10;
  // Reads in flight at once (io_uring). 0 = the device's class default
  // (DeviceInfo::default_queue_depth: 2 rotational, 16 SSD/NVMe, 64 MiB in
  // flight virtual, 4 unknown, 1 without io_uring). At most kMaxQueueDepth. Default: 0.
  std::uint32_t queue_depth = 0;
  // Default: kAuto.
  ReadEngineChoice engine = ReadEngineChoice::kAuto;
  // Write mode (zcav sweep --write): every chunk is written (pwrite of the
  // FillWritePattern bytes, device.h) instead of read, timed the same way:
  // the sequential write rate by position. Destroys the data in the range.
  // REQUIRES: a device opened with OpenDeviceForWrite. Default: false.
  bool write = false;
};

inline constexpr std::uint32_t kMaxQueueDepth = 256;

// Resolves `options` against `device`: default block and chunk sizes,
// rounding to the sector size (with notes), range checks, the read engine
// and queue depth (plan.engine "io_uring", "pread", "sim" or, writing,
// "pwrite"; a depth the engine cannot give is noted and set to 1).
// Throws Error(kBadInput): range beyond the end of the device or reversed or
// empty, block larger than the range, chunk larger than the block, zero
// passes or skip, skip with quick, queue depth 0 or above kMaxQueueDepth,
// --engine io_uring where io_uring is unavailable, pread with a depth > 1.
SweepPlan PlanSweep(const DeviceInfo& device, const SweepOptions& options);

// Runs `plan` on `device`, reporting to `sink`. Stops after the current chunk
// once *stop_requested becomes true (status kInterrupted).
//
// Read errors are data. A chunk that fails is retried once; if it fails
// again the device is asked whether it is still there (Device::CheckPresent)
// and, if it is, the chunk is bisected to bound its unreadable sectors
// (its first and last unreadable sectors by binary search, then readable
// runs inside by halving; at most 72 reads and 60 s of clock time per chunk:
// past that budget, or when the chunk is unreadable at both edges, the
// unresolved pieces are reported whole, flagged bounded_by_budget). Each
// range goes to sink.OnUnreadable() and result.unreadable, and the sweep
// goes on with the next chunk. A block with an error in a pass has no sample
// in that pass (its time is not the media's). With plan.stop_on_error the
// first failing chunk ends the sweep instead (status kReadError, with that
// offset). ENODEV, ENXIO, ENOMEDIUM, ENOTCONN (a FUSE server gone) and
// ESTALE (and CheckPresent() saying so) end it
// with status kDeviceGone: everything measured before is kept.
//
// Write mode (plan.write): chunks are written instead of read. A failing
// write is not retried or bisected: it ends the sweep (status kWriteError
// with its offset, or kDeviceGone), everything measured before is kept.
//
// Slow chunks (see SweepOptions::slow_factor) are merged into slow regions,
// reported through sink.OnSlowRegion() and result.slow_regions.
//
// Never throws for I/O; throws std::bad_alloc if the buffer cannot be
// allocated, Error when the io_uring queue cannot be set up. Memory:
// queue_depth + 1 chunk buffers plus passes floats per block.
//
// With `resume` (resume.h, from PrepareResume for this plan), the partial
// run's samples, unreadable ranges and slow regions are replayed to `sink`
// first (so the output holds them), and reading goes on at resume->pass,
// resume->block, after an untimed warm-up read there.
SweepResult RunSweep(Device& device, const RunInfo& run, Clock& clock, SampleSink& sink,
                     const std::atomic<bool>* stop_requested = nullptr,
                     const ResumePoint* resume = nullptr);

}  // namespace zcav
