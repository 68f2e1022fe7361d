// The sweep engine: reads a device in fixed-size blocks over several passes
// and times every block.
//
// Each block is read in chunks (one ReadAt per chunk) into one aligned buffer;
// a block's time runs from before its first chunk to after its last, on the
// Clock (monotonic for real devices, virtual for simulated ones). Passes are
// pass-major, like classic zcav: the whole range, then again.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>

#include "zcav/clock.h"
#include "zcav/device.h"
#include "zcav/sample.h"
#include "zcav/sample_sink.h"

namespace zcav {

struct SweepOptions {
  // Block size in bytes. 0 = about 1000 blocks over the range (rounded to the
  // chunk size above 1 MiB, to the sector below). Default: 0.
  std::uint64_t block_bytes = 0;
  // Bytes per read call. 0 = min(1 MiB, block). Default: 0.
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
};

// Resolves `options` against `device`: default block and chunk sizes,
// rounding to the sector size (with notes), range checks.
// Throws Error(kBadInput): range beyond the end of the device or reversed or
// empty, block larger than the range, chunk larger than the block, zero
// passes or skip, skip with quick.
SweepPlan PlanSweep(const DeviceInfo& device, const SweepOptions& options);

// Runs `plan` on `device`, reporting to `sink`. Stops after the current chunk
// once *stop_requested becomes true (status kInterrupted), and at the first
// read error (status kReadError, with the failing chunk's offset). Never
// throws for I/O; throws std::bad_alloc if the buffer cannot be allocated.
// Memory: one block buffer plus passes floats per block.
SweepResult RunSweep(Device& device, const RunInfo& run, Clock& clock, SampleSink& sink,
                     const std::atomic<bool>* stop_requested = nullptr);

}  // namespace zcav
