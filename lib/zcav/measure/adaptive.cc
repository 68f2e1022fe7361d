#include "zcav/measure/adaptive.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/error.h"
#include "zcav/base/stats.h"
#include "zcav/base/units.h"
#include "zcav/measure/read_checks.h"

namespace zcav {
namespace {

class Sampler {
 public:
  Sampler(Device& device, Clock& clock, const AdaptiveOptions& options,
          const std::atomic<bool>* stop, AdaptiveResult& result, std::uint64_t start,
          std::uint64_t probe, std::uint64_t chunk)
      : device_(device),
        clock_(clock),
        options_(options),
        stop_(stop),
        result_(result),
        buffer_(chunk, DirectIoAlignment(device.info().sector_bytes)),
        start_(start),
        probe_(probe),
        chunk_(chunk) {}

  // False once the sampling must end: a read failed, or a stop was asked.
  bool Going() {
    if (StopRequested(stop_)) result_.interrupted = true;
    return !result_.error && !result_.interrupted;
  }
  bool OverBudget() const {
    return options_.byte_budget != 0 && result_.bytes_read >= options_.byte_budget;
  }

  // Slot k read once more: its rate, or nullopt when a read failed.
  std::optional<double> ReadOnce(std::uint64_t k) {
    const std::uint64_t offset = start_ + k * probe_;
    // Untimed: the seek, the head settling, the first chunk.
    if (!Read(offset, chunk_)) return std::nullopt;
    const auto t0 = clock_.Now();
    for (std::uint64_t at = offset + chunk_; at < offset + probe_; at += chunk_) {
      if (!Read(at, std::min(chunk_, offset + probe_ - at))) return std::nullopt;
    }
    return MbPerS(probe_ - chunk_, clock_.Now() - t0);
  }

  // Slot k's probe, read once, or again (up to max_reads, median) while its
  // side between levels `left` and `right` is marginal (noise_log: the noise
  // of one probe, in log). Null when a read failed.
  const AdaptiveProbe* Probe(std::uint64_t k, double left = 0, double right = 0,
                             double noise_log = 0) {
    AdaptiveProbe& p = probes_[k];
    p.offset_bytes = start_ + k * probe_;
    p.length_bytes = probe_;
    std::vector<double>& rates = reads_[k];
    const auto marginal = [&] {
      if (left <= 0 || right <= 0 || p.mb_per_s <= 0) return false;
      const double to_left = std::abs(std::log(p.mb_per_s / left));
      const double to_right = std::abs(std::log(p.mb_per_s / right));
      return std::abs(to_left - to_right) < 2 * noise_log;
    };
    do {
      const std::optional<double> rate = ReadOnce(k);
      if (!rate) return nullptr;
      rates.push_back(*rate);
      std::vector<double> copy = rates;
      p.mb_per_s = MedianInPlace(copy);
      p.reads = static_cast<std::uint32_t>(rates.size());
    } while (marginal() && rates.size() < std::max<std::uint32_t>(1, options_.max_reads) &&
             Going());
    return &p;
  }

  std::map<std::uint64_t, AdaptiveProbe>& probes() { return probes_; }

 private:
  bool Read(std::uint64_t offset, std::uint64_t length) {
    if (const std::error_code ec = device_.ReadAt(offset, buffer_.span(length))) {
      result_.error = ec;
      result_.error_offset_bytes = offset;
      return false;
    }
    result_.bytes_read += length;
    return true;
  }

  Device& device_;
  Clock& clock_;
  const AdaptiveOptions& options_;
  const std::atomic<bool>* stop_;
  AdaptiveResult& result_;
  AlignedBuffer buffer_;
  std::uint64_t start_, probe_, chunk_;
  std::map<std::uint64_t, AdaptiveProbe> probes_;  // by slot
  std::map<std::uint64_t, std::vector<double>> reads_;
};

// The grid's slots (count of them, evenly spread over `slots`), in an order
// where no two read one after the other are neighbours: a stride coprime
// with the count, near a third of it.
std::vector<std::uint64_t> GridOrder(std::uint64_t count) {
  std::uint64_t stride = std::max<std::uint64_t>(1, count / 3);
  while (count > 1 && std::gcd(stride, count) != 1) ++stride;
  std::vector<std::uint64_t> order;
  for (std::uint64_t i = 0; i < count; ++i) order.push_back(i * stride % count);
  return order;
}

// The relative noise of one probe: the robust sigma of the grid's
// neighbour steps (in log) over sqrt(2).
double NoiseLog(const std::vector<AdaptiveProbe>& grid) {
  std::vector<double> steps;
  for (std::size_t i = 1; i < grid.size(); ++i) {
    if (grid[i].mb_per_s > 0 && grid[i - 1].mb_per_s > 0) {
      steps.push_back(std::log(grid[i].mb_per_s / grid[i - 1].mb_per_s));
    }
  }
  if (steps.empty()) return 0;
  std::vector<double> copy = steps;
  const double median = MedianInPlace(copy);
  for (double& s : steps) s = std::abs(s - median);
  return kMadToSigma * MedianInPlace(steps) / std::sqrt(2.0);
}

}  // namespace

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
  // The chunk: at most half the probe (the first chunk is untimed), whole sectors.
  const std::uint64_t chunk = std::max<std::uint64_t>(
      sector, std::min(options.chunk_bytes, options.probe_bytes / 2) / sector * sector);
  const std::uint64_t probe = RoundUp(options.probe_bytes, chunk);
  if (end > info.size_bytes || end <= start || (end - start) / probe < 3) {
    throw Error("adaptive sampling needs a range of at least three probes of " +
                    std::to_string(probe) + " bytes",
                ErrorKind::kBadInput);
  }
  AdaptiveResult r;
  r.range_bytes = end - start;
  const std::uint64_t slots = (end - start) / probe;
  Sampler sampler(device, clock, options, stop, r, start, probe, chunk);

  // The grid.
  const std::uint64_t count = std::min<std::uint64_t>(options.grid_probes, slots);
  std::vector<std::uint64_t> grid_slots(count);
  for (std::uint64_t i = 0; i < count; ++i) grid_slots[i] = i * (slots - 1) / (count - 1);
  for (const std::uint64_t i : GridOrder(count)) {
    if (!sampler.Going() || !sampler.Probe(grid_slots[i])) break;
  }
  std::vector<AdaptiveProbe> grid;
  for (const std::uint64_t k : grid_slots) {
    const auto it = sampler.probes().find(k);
    if (it != sampler.probes().end() && it->second.mb_per_s > 0) grid.push_back(it->second);
  }
  r.noise_rel = NoiseLog(grid);

  // Each step bisected down to neighbouring slots.
  std::vector<AdaptiveStep> steps;
  if (sampler.Going() && grid.size() == count) steps = find_steps(grid);
  for (const AdaptiveStep& step : steps) {
    if (step.left >= step.right || step.right >= grid.size()) continue;
    std::uint64_t lo = grid_slots[step.left];
    std::uint64_t hi = grid_slots[step.right];
    const double left = step.left_mb_per_s, right = step.right_mb_per_s;
    while (hi - lo > 1 && sampler.Going()) {
      if (sampler.OverBudget()) {
        r.budget_hit = true;
        break;
      }
      const std::uint64_t mid = lo + (hi - lo) / 2;
      const AdaptiveProbe* p = sampler.Probe(mid, left, right, r.noise_rel);
      if (p == nullptr) break;
      const bool left_side =
          std::abs(std::log(p->mb_per_s / left)) <= std::abs(std::log(p->mb_per_s / right));
      (left_side ? lo : hi) = mid;
    }
    AdaptiveEdge e;
    // Neighbouring slots: the edge is at their boundary, within a probe
    // either way (the probe that straddles it joined the closer side).
    e.at_bytes = start + (lo + 1 + (hi - lo - 1) / 2) * probe;
    e.uncertainty_bytes = (hi - lo - 1) * probe / 2 + probe;
    e.left_mb_per_s = left;
    e.right_mb_per_s = right;
    r.edges.push_back(e);
  }
  std::sort(r.edges.begin(), r.edges.end(),
            [](const AdaptiveEdge& a, const AdaptiveEdge& b) { return a.at_bytes < b.at_bytes; });

  for (const auto& [slot, p] : sampler.probes()) {
    if (p.mb_per_s > 0) r.probes.push_back(p);
  }
  // The zones between the edges: the median of the probes wholly inside.
  std::vector<std::uint64_t> bounds{start};
  for (const AdaptiveEdge& e : r.edges) bounds.push_back(e.at_bytes);
  bounds.push_back(start + slots * probe);
  for (std::size_t z = 0; z + 1 < bounds.size(); ++z) {
    AdaptiveZone zone;
    zone.start_bytes = bounds[z];
    zone.end_bytes = bounds[z + 1];
    std::vector<double> rates;
    for (const AdaptiveProbe& p : r.probes) {
      if (p.offset_bytes >= zone.start_bytes && p.offset_bytes + p.length_bytes <= zone.end_bytes) {
        rates.push_back(p.mb_per_s);
      }
    }
    zone.probes = static_cast<std::uint32_t>(rates.size());
    if (!rates.empty()) {
      zone.mb_per_s = MedianInPlace(rates);
    } else {
      zone.mb_per_s = z < r.edges.size() ? r.edges[z].left_mb_per_s : r.edges.back().right_mb_per_s;
    }
    r.zones.push_back(zone);
  }
  return r;
}

}  // namespace zcav
