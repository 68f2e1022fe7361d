#include "zcav/measure/access.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/error.h"
#include "zcav/base/stats.h"
#include "zcav/base/units.h"
#include "zcav/measure/read_checks.h"

namespace zcav {

double NearestRankPercentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  // Nearest rank: the smallest value with at least p % of the values at or below it.
  const auto rank =
      static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

AccessResult MeasureAccess(Device& device, Clock& clock, const AccessOptions& options,
                           const std::atomic<bool>* stop) {
  const DeviceInfo& info = device.info();
  const std::uint32_t sector = info.sector_bytes;
  RequireSomeBytes({{options.read_bytes, "access read size"}});
  const std::uint64_t length = RoundUp(options.read_bytes, sector);
  RequireFitsDevice(length, info, "access read size");
  AlignedBuffer buffer(length, DirectIoAlignment(sector));
  // Positions are whole sectors in [0, last]: every read lies inside the device.
  const std::uint64_t last_sector = (info.size_bytes - length) / sector;
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<std::uint64_t> pick(0, last_sector);

  AccessResult result;
  result.samples.reserve(options.samples);
  const CpuMeter cpu(clock);
  const auto wall_start = cpu.wall_start();
  std::uint64_t previous = 0;
  for (std::uint32_t i = 0; i < options.samples; ++i) {
    if (StopRequested(stop)) {
      result.interrupted = true;
      break;
    }
    if (options.time_budget && clock.Now() - wall_start >= *options.time_budget) {
      result.interrupted = true;
      break;
    }
    const std::uint64_t offset = pick(rng) * sector;
    const auto t0 = clock.Now();
    if (auto ec = device.ReadAt(offset, buffer.span(length))) {
      result.error = ec;
      result.error_offset_bytes = offset;
      break;
    }
    const auto elapsed = clock.Now() - t0;
    AccessReading r;
    r.offset_bytes = offset;
    r.distance_bytes = i == 0 ? 0 : (offset > previous ? offset - previous : previous - offset);
    r.ms = static_cast<double>(elapsed.count()) * 1e-6;
    result.samples.push_back(r);
    previous = offset;
  }

  std::vector<double> ms;
  ms.reserve(result.samples.size());
  for (const AccessReading& r : result.samples) ms.push_back(r.ms);
  const RateStats s = Summarize(ms);
  result.min_ms = s.min;
  result.mean_ms = s.mean;
  result.median_ms = s.median;
  result.max_ms = s.max;
  result.p95_ms = NearestRankPercentile(std::move(ms), 95);
  result.cpu_percent = cpu.Percent();
  return result;
}

}  // namespace zcav
