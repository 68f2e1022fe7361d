// Adaptive sampling's entry points (measure/adaptive.h): SampleAdaptively
// runs one sampling's steps in order (adaptive_internal.h AdaptiveRun: the
// grid in adaptive_grid.cc, the edges in adaptive_edges.cc), RunAdaptiveSweep
// gives its result as a sweep's events, and the plan sizes its probes, chunks
// and grid.
#include "zcav/measure/adaptive.h"

#include <algorithm>
#include <string>

#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/measure/adaptive_internal.h"
#include "zcav/measure/sample_sink.h"

namespace zcav {

AdaptiveResult SampleAdaptively(Device& device, Clock& clock, const AdaptiveOptions& options,
                                const AdaptiveStepFinder& find_steps,
                                const std::atomic<bool>* stop) {
  const DeviceInfo& info = device.info();
  const std::uint64_t sector = info.sector_bytes;
  const std::uint64_t end = options.end_bytes.value_or(info.size_bytes);
  const std::uint64_t start = RoundUp(options.start_bytes, sector);
  if (options.probe_bytes < 2 * sector) {
    throw Error("adaptive probe of " + std::to_string(options.probe_bytes) +
                    " bytes: at least two sectors (" + std::to_string(2 * sector) + " bytes)",
                ErrorKind::kBadInput);
  }
  if (options.grid_probes < 3) {
    throw Error("adaptive grid of " + std::to_string(options.grid_probes) + " probes: at least 3",
                ErrorKind::kBadInput);
  }
  const std::uint64_t chunk = AdaptiveChunk(options.probe_bytes, options.chunk_bytes, sector);
  const std::uint64_t probe = AdaptiveProbeBytes(options.probe_bytes, options.chunk_bytes, sector);
  if (end > info.size_bytes || end <= start || (end - start) / probe < 3) {
    throw Error("adaptive sampling needs a range of at least three probes of " +
                    std::to_string(probe) + " bytes",
                ErrorKind::kBadInput);
  }
  AdaptiveResult r;
  r.start_bytes = start;
  r.range_bytes = end - start;
  r.probe_bytes = probe;
  adaptive::AdaptiveRun run(device, clock, options, find_steps, stop, r, end, probe, chunk);
  run.ReadGrid();
  run.ResolveGridSuspects();
  run.FindSteps();
  run.ReadNoisyGridAgain();
  run.ReadSpikesAgain();
  run.OpenBrackets();
  run.BisectAndSettle();
  run.Edges();
  run.Zones();
  return r;
}

namespace {

// The probes' timed reading: one pass of them.
PassSummary ProbePass(const std::vector<AdaptiveProbe>& probes, std::uint64_t chunk_bytes) {
  PassSummary pass;
  pass.complete = true;
  double seconds = 0;
  for (const AdaptiveProbe& p : probes) {
    const std::uint64_t timed = p.length_bytes - std::min(p.length_bytes, chunk_bytes);
    pass.bytes += timed * p.reads;
    seconds += static_cast<double>(timed * p.reads) / (p.mb_per_s * 1e6);
  }
  pass.read_time = std::chrono::nanoseconds(static_cast<std::int64_t>(seconds * 1e9));
  pass.mb_per_s = MbPerS(pass.bytes, pass.read_time);
  return pass;
}

}  // namespace

SweepResult RunAdaptiveSweep(Device& device, const RunInfo& run, Clock& clock,
                             const AdaptiveOptions& options, const AdaptiveStepFinder& find_steps,
                             SampleSink& sink, const std::atomic<bool>* stop) {
  const auto wall_start = clock.Now();
  const auto cpu_start = clock.ProcessCpuTime();
  // The probes read as the sweep would read its blocks: its chunk and depth.
  AdaptiveOptions as_planned = options;
  as_planned.queue_depth = std::max<std::uint32_t>(1, run.plan.queue_depth);
  // (The share of the device's page-cache file cached as the probes begin
  // and end: Device::CachedShare.)
  const std::optional<double> cached_at_start = device.CachedShare();
  AdaptiveResult r = SampleAdaptively(device, clock, as_planned, find_steps, stop);
  sink.OnStart(run);
  SweepResult out;
  for (std::size_t i = 0; i < r.probes.size(); ++i) {
    const AdaptiveProbe& p = r.probes[i];
    BlockResult b;
    b.index = i;
    b.offset_bytes = p.offset_bytes;
    b.length_bytes = p.length_bytes;
    b.passes = p.reads;
    b.mb_per_s = b.mean_mb_per_s = b.min_mb_per_s = b.max_mb_per_s = p.mb_per_s;
    b.seconds = static_cast<double>(p.length_bytes) / (p.mb_per_s * 1e6);
    sink.OnBlock(b);
    out.min_mb_per_s = i == 0 ? p.mb_per_s : std::min(out.min_mb_per_s, p.mb_per_s);
    out.max_mb_per_s = std::max(out.max_mb_per_s, p.mb_per_s);
  }
  for (const UnreadableRange& u : r.unreadable) sink.OnUnreadable(u);
  PassSummary pass = ProbePass(r.probes, run.plan.chunk_bytes);
  pass.cached_share = cached_at_start;
  sink.OnPassDone(pass);
  out.passes.push_back(pass);
  out.blocks_measured = r.probes.size();
  out.bytes_read = pass.bytes;
  out.read_time = pass.read_time;
  out.avg_mb_per_s = pass.mb_per_s;
  out.unreadable = r.unreadable;
  if (r.error) {
    out.status = SweepStatus::kDeviceGone;
    out.error = r.error;
    out.error_offset_bytes = r.error_offset_bytes;
  } else if (r.interrupted) {
    out.status = SweepStatus::kInterrupted;
  }
  out.cached_share_at_end = device.CachedShare();
  r.probes.clear();
  sink.OnAdaptive(r);
  const auto wall = clock.Now() - wall_start;
  out.wall_seconds = static_cast<double>(wall.count()) * 1e-9;
  out.cpu_percent = CpuPercent(clock.ProcessCpuTime() - cpu_start, wall);
  sink.OnFinish(out);
  return out;
}

std::uint64_t AdaptiveChunk(std::uint64_t probe_bytes, std::uint64_t chunk_bytes,
                            std::uint64_t sector_bytes) {
  const std::uint64_t sector = std::max<std::uint64_t>(1, sector_bytes);
  return std::max(sector, std::min(chunk_bytes, probe_bytes / 2) / sector * sector);
}

std::uint64_t AdaptiveProbeBytes(std::uint64_t probe_bytes, std::uint64_t chunk_bytes,
                                 std::uint64_t sector_bytes) {
  const std::uint64_t chunk = AdaptiveChunk(probe_bytes, chunk_bytes, sector_bytes);
  return RoundUp(std::max(probe_bytes, 2 * std::max<std::uint64_t>(1, sector_bytes)), chunk);
}

AdaptiveOptions PlanAdaptive(const AdaptiveRequest& q) {
  constexpr std::uint64_t kMinProbe = kMiB;
  constexpr std::uint64_t kGridShare = 32;  // the grid reads at most 1/32 of the range
  constexpr std::uint64_t kMinGrid = 20;
  const std::uint64_t range = q.end_bytes > q.start_bytes ? q.end_bytes - q.start_bytes : 0;
  const std::uint64_t max_chunk = q.max_chunk_bytes > 0 ? q.max_chunk_bytes : kMiB;
  std::uint64_t probe = q.probe_bytes;
  std::uint64_t chunk = q.chunk_bytes;
  std::uint64_t grid = q.grid_probes;
  if (probe == 0) {
    const std::uint64_t target = q.expected_mb_per_s > 0
                                     ? static_cast<std::uint64_t>(q.expected_mb_per_s * 1e6 * 0.1)
                                     : 64 * kMiB;
    const std::uint64_t cap = range / (std::uint64_t{kDefaultGridProbes} * kGridShare);
    probe = std::max(std::min(target, cap), kMinProbe);
  }
  if (chunk == 0) chunk = std::min(max_chunk, probe / 4);
  probe = AdaptiveProbeBytes(probe, chunk, q.sector_bytes);
  if (grid == 0) {
    grid = std::clamp<std::uint64_t>(range / (probe * kGridShare),
                                     std::min<std::uint64_t>(kMinGrid, range / probe),
                                     kDefaultGridProbes);
  }
  const auto budget = static_cast<std::uint64_t>(q.budget_share * static_cast<double>(range));
  if (budget > 0 && q.probe_bytes == 0 && probe * grid > budget / 2) {
    probe = std::max<std::uint64_t>(kMinProbe, budget / 2 / grid);
    if (q.chunk_bytes == 0) chunk = std::min(chunk, probe / 4);
    probe = AdaptiveProbeBytes(probe, chunk, q.sector_bytes);
    if (q.grid_probes == 0 && probe * grid > budget / 2) {
      grid = std::max<std::uint64_t>(kMinGrid, budget / 2 / probe);
    }
  }
  AdaptiveOptions a;
  a.chunk_bytes = AdaptiveChunk(probe, chunk, q.sector_bytes);
  a.probe_bytes = probe;
  a.grid_probes = static_cast<std::uint32_t>(grid);
  a.start_bytes = q.start_bytes;
  a.end_bytes = q.end_bytes;
  a.byte_budget = budget;
  a.time_budget = q.budget_time;
  return a;
}

}  // namespace zcav
