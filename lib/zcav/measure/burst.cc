#include "zcav/measure/burst.h"

#include <algorithm>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/error.h"
#include "zcav/measure/read_checks.h"

namespace zcav {

BurstResult MeasureBurst(Device& device, Clock& clock, const BurstOptions& options,
                         const std::atomic<bool>* stop) {
  const DeviceInfo& info = device.info();
  const std::uint32_t sector = info.sector_bytes;
  RequireSomeBytes(
      {{options.region_bytes, "burst region size"}, {options.chunk_bytes, "burst chunk size"}});
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
  RequireFitsDevice(region, info, "burst region");
  AlignedBuffer buffer(chunk, DirectIoAlignment(sector));

  BurstResult result;
  // Reads the region once; false on an error (recorded) or a stop request.
  const auto read_region = [&]() -> bool {
    for (std::uint64_t pos = 0; pos < region; pos += chunk) {
      if (auto ec = device.ReadAt(pos, buffer.span(chunk))) {
        result.error = ec;
        result.error_offset_bytes = pos;
        return false;
      }
      if (StopRequested(stop)) {
        result.interrupted = true;
        return false;
      }
    }
    return true;
  };

  const CpuMeter cpu(clock);
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
  result.cpu_percent = cpu.Percent();
  return result;
}

}  // namespace zcav
