// Burst (buffered) read rate: the start of the device read again and again,
// so that a drive with a cache answers from it and the figure is the rate of
// the interface (bus, bridge, link) rather than of the media — the "buffered
// read" test of HD Tune and AIDA32.
//
// The device is read as given (O_DIRECT for PosixDevice): the page cache is
// not involved, only the drive's own cache. On a device without a cache (an
// SSD, a file on a fast filesystem, a simulated model with cache=0) the
// result simply equals the outer-zone rate less one access time per
// repetition (the jump back to offset 0): sim:ssd gives 504 MB/s of 530,
// sim:hdd?cache=0 about 38 of 60. The verdict must read it so.
#pragma once

#include <atomic>
#include <cstdint>
#include <system_error>

#include "zcav/base/clock.h"
#include "zcav/base/units.h"
#include "zcav/device/device.h"

namespace zcav {

struct BurstOptions {
  // Bytes at the start of the device read each repetition, rounded up to the
  // chunk size; smaller than a typical drive cache. Default: 512 KiB.
  std::uint64_t region_bytes = 512 * kKiB;
  // Bytes per read call, rounded up to the sector. Default: 64 KiB.
  std::uint64_t chunk_bytes = 64 * kKiB;
  // Timed reads of the whole region. Default: 200.
  std::uint32_t repetitions = 200;
};

struct BurstResult {
  // Rates (10^6 B/s) of single repetitions (min, max) and of all timed bytes
  // over all timed time (avg). All 0 when no repetition completed.
  double min_mb_per_s = 0, avg_mb_per_s = 0, max_mb_per_s = 0;
  double cpu_percent = 0;                // this process's user+sys time / wall time
  std::uint32_t repetitions = 0;         // timed repetitions completed
  std::error_code error;                 // the read error that stopped the test, if any
  std::uint64_t error_offset_bytes = 0;  // where it happened (when error)
  bool interrupted = false;              // stopped by *stop
};

// Reads [0, region) twice untimed (to fill the drive's cache; some drives,
// and the sim: models, keep only data asked for more than once), then times
// options.repetitions reads of the whole region in chunks into one aligned
// buffer, each repetition timed on the Clock. Stops at the first read error
// (error set, repetitions so far kept) or, after the current chunk, when
// *stop becomes true (interrupted; a cut-short repetition is not counted).
// Never throws for I/O; throws std::bad_alloc if the buffer cannot be
// allocated and Error(kBadInput) for a zero region, chunk or repetition
// count, a chunk larger than the region, or a region larger than the device.
BurstResult MeasureBurst(Device& device, Clock& clock, const BurstOptions& options,
                         const std::atomic<bool>* stop = nullptr);

}  // namespace zcav
