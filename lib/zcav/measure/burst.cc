#include "zcav/measure/burst.h"

#include <algorithm>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/error.h"

namespace zcav {

BurstResult MeasureBurst(Device& device, Clock& clock, const BurstOptions& options,
                         const std::atomic<bool>* stop) {
  const DeviceInfo& info = device.info();
  const std::uint32_t sector = info.sector_bytes;
  if (options.region_bytes == 0) {
    throw Error("invalid burst region size 0: must be at least one sector", ErrorKind::kBadInput);
  }
  if (options.chunk_bytes == 0) {
    throw Error("invalid burst chunk size 0: must be at least one sector", ErrorKind::kBadInput);
  }
  if (options.repetitions == 0) {
    throw Error("invalid burst repetition count 0: must be at least 1", ErrorKind::kBadInput);
  }
  const std::uint64_t chunk = RoundUp(options.chunk_bytes, sector);
  if (chunk > RoundUp(options.region_bytes, sector)) {
    throw Error("burst chunk size " + FormatBytes(chunk) + " is larger than the region (" +
                    FormatBytes(options.region_bytes) + ")",
                ErrorKind::kBadInput);
  }
  const std::uint64_t region = RoundUp(options.region_bytes, chunk);
  if (region > info.size_bytes) {
    throw Error("burst region " + FormatBytes(region) + " is larger than " + info.path + " (" +
                    FormatBytes(info.size_bytes) + ")",
                ErrorKind::kBadInput);
  }
  AlignedBuffer buffer(chunk, DirectIoAlignment(sector));

  BurstResult result;
  const auto stopping = [&] { return stop != nullptr && stop->load(std::memory_order_relaxed); };
  // Reads the region once; false on an error (recorded) or a stop request.
  const auto read_region = [&]() -> bool {
    for (std::uint64_t pos = 0; pos < region; pos += chunk) {
      if (auto ec = device.ReadAt(pos, buffer.span(chunk))) {
        result.error = ec;
        result.error_offset_bytes = pos;
        return false;
      }
      if (stopping()) {
        result.interrupted = true;
        return false;
      }
    }
    return true;
  };

  const auto wall_start = clock.Now();
  const auto cpu_start = clock.ProcessCpuTime();
  std::chrono::nanoseconds total{0};
  // Untimed, twice: fills the drive's cache (a drive may keep only data
  // asked for more than once; sim: models do).
  if (read_region() && read_region()) {
    for (std::uint32_t rep = 0; rep < options.repetitions; ++rep) {
      const auto t0 = clock.Now();
      if (!read_region()) break;
      const auto elapsed = clock.Now() - t0;
      total += elapsed;
      const double rate = MbPerS(region, elapsed);
      if (result.repetitions == 0 || rate < result.min_mb_per_s) result.min_mb_per_s = rate;
      if (result.repetitions == 0 || rate > result.max_mb_per_s) result.max_mb_per_s = rate;
      ++result.repetitions;
    }
  }
  result.avg_mb_per_s = MbPerS(region * result.repetitions, total);
  const auto wall = clock.Now() - wall_start;
  result.cpu_percent = CpuPercent(clock.ProcessCpuTime() - cpu_start, wall);
  return result;
}

}  // namespace zcav
