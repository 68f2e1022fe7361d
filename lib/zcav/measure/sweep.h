// The sweep engine: reads a device in fixed-size blocks over several passes
// and times every block.
//
// Each block is read in chunks through the device's ReadQueue (device.h):
// with io_uring, up to queue_depth chunks are in flight at once; one at a
// time otherwise. When the bytes in flight fit in a block (every default
// shape: see PlanSweep), the queue is drained at each block boundary: a
// block's time is its own first submission to its own last completion, on
// the Clock (monotonic for real devices, virtual for simulated ones), and
// no other block's completions can move it. When a forced shape puts more
// than a block in flight, the queue is kept full across block boundaries
// and completions that arrive together share the time since the previous
// ones by their bytes: block times still add up to the pass's reading time,
// but a device that completes in bursts blurs them over up to
// BlockTimingOf(plan).blocks_spanned blocks. Passes are pass-major, like
// classic zcav: the whole range, then again.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>

#include "zcav/base/clock.h"
#include "zcav/device/device.h"
#include "zcav/measure/sample.h"
#include "zcav/measure/sample_sink.h"

namespace zcav {

struct ResumePoint;  // resume_point.h

// How chunks are read (SweepOptions::engine).
enum class ReadEngineChoice {
  kAuto,     // the device's own: io_uring where available, else pread
  kIoUring,  // io_uring, or Error(kBadInput) when the device cannot use it
  kPread,    // one pread at a time (queue depth 1), as classic zcav
};

struct SweepOptions {
  // Block size in bytes. 0 = chosen so that every block is timed on its own
  // and long enough to be timed (see PlanSweep): about 1000 blocks over the
  // range, but at least the bytes in flight and, when expected_mb_per_s is
  // known, at least kTargetBlockTime of reading, with at least
  // kMinDefaultBlocks blocks (rounded to the chunk size above 1 MiB, to the
  // sector below). Default: 0.
  std::uint64_t block_bytes = 0;
  // The device's read rate at the start of the range, MB/s (10^6 B/s), from
  // MeasureStartRate (estimate.h) at the planned read shape; used only for
  // the default block size. 0 = not known (the block follows the size).
  // Default: 0.
  double expected_mb_per_s = 0;
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
  // Give up on a dying disk once this many unreadable ranges are found
  // (status kTooManyErrors, --max-errors). 0 = never. Default: 0.
  std::uint64_t max_errors = 0;
  // Stop once this much clock time (the Clock RunSweep is given: virtual for
  // simulated devices) has passed since the sweep started (status kTimeLimit,
  // --max-time); what was measured is kept. 0 = no limit. Default: 0.
  std::chrono::nanoseconds max_time{0};
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
  // The window of the sustained rate: the lowest rate held over any window
  // this long of the requests' time (SweepResult::requests; --expect
  // sustained=RATE@WINDOW). Above 0. Default: 10 s.
  std::chrono::nanoseconds sustained_window{std::chrono::seconds(10)};
  // Write mode (zcav sweep --write): every chunk is written (pwrite of the
  // data stamped sector by sector, write_stamp.h) instead of read, timed the same way:
  // the sequential write rate by position. Destroys the data in the range.
  // REQUIRES: a device opened with OpenDeviceForWrite. Default: false.
  bool write = false;
};

inline constexpr std::uint32_t kMaxQueueDepth = 256;
// The default block size gives each block at least this much reading time at
// the expected rate, so that its rate is the device's, not the jitter of a
// few reads (see PlanSweep)...
inline constexpr std::chrono::milliseconds kTargetBlockTime{100};
// ...unless that leaves fewer than this many blocks: a curve needs points.
inline constexpr std::uint64_t kMinDefaultBlocks = 64;

// How sharp a plan's per-block times are (recorded in the outputs, and
// the zone detector's ZoneOptions::blur_blocks).
struct BlockTiming {
  // Bytes that can be in flight at once: queue_depth x chunk_bytes.
  std::uint64_t bytes_in_flight = 0;
  // bytes_in_flight / block_bytes: how many blocks' reads can be in flight
  // together (below 1: part of one block).
  double blocks_spanned = 0;
  // True when the queue is drained at every block boundary (the bytes in
  // flight fit in a block): each block's time is its own first submission to
  // its own last completion. False: the queue stays full across boundaries
  // and blocks share the time of completions that arrive together.
  bool drained_per_block = true;
  // What ZoneOptions::blur_blocks should be: blocks_spanned when the
  // blocks are not drained, else 0 (each block timed on its own).
  double blur_blocks() const { return drained_per_block ? 0 : blocks_spanned; }
};
// The timing of `plan` (a planned or a recorded one). Pure.
BlockTiming BlockTimingOf(const SweepPlan& plan);

// Resolves `options` against `device`: default block and chunk sizes,
// rounding to the sector size (with notes), range checks, the read engine
// and queue depth (plan.engine "io_uring", "pread", "sim" or, writing,
// "pwrite"; a depth the engine cannot give is noted and set to 1).
// The default shape (no block size or queue depth given) is always drained
// per block (BlockTimingOf): the default block holds at least the default
// bytes in flight, and where the range is too small for kMinDefaultBlocks
// such blocks the default depth is lowered to fit. A shape the user forces
// with more bytes in flight than a block gets a note on its blur.
// Throws Error(kBadInput): range beyond the end of the device or reversed or
// empty, block larger than the range, chunk larger than the block, zero
// passes or skip, skip with quick, queue depth 0 or above kMaxQueueDepth,
// --engine io_uring where io_uring is unavailable, pread with a depth > 1.
SweepPlan PlanSweep(const DeviceInfo& device, const SweepOptions& options);

// Runs `plan` on `device`, reporting to `sink`; stops after the current chunk
// once *stop_requested becomes true (status kInterrupted). Read errors are
// data: unreadable ranges go to sink.OnUnreadable() and result.unreadable and
// the sweep goes on, unless a limit of the plan or a device gone ends it;
// what was measured is kept. With `resume` (PrepareResume for this plan) the
// partial run is replayed to `sink` first. Never throws for I/O; throws
// std::bad_alloc, and Error(kRuntime) when the io_uring queue cannot be set up.
// Specification: docs/sweep.md#the-sweep
SweepResult RunSweep(Device& device, const RunInfo& run, Clock& clock, SampleSink& sink,
                     const std::atomic<bool>* stop_requested = nullptr,
                     const ResumePoint* resume = nullptr);

}  // namespace zcav
