#include "zcav/measure/adaptive.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <set>

#include "zcav/base/error.h"
#include "zcav/base/stats.h"
#include "zcav/base/units.h"
#include "zcav/measure/read_checks.h"
#include "zcav/measure/sample_sink.h"

namespace zcav {
namespace {

// A converged edge has the probe beside it on the slower level's side read
// once more (and, where it changes side, the bracket reopened) this many
// times.
constexpr std::uint32_t kEdgeChecks = 1;

// A bracket reopened by a verification is verified again when it converges,
// up to this many reopenings.
constexpr std::uint32_t kMaxReopens = 2;

// Two sides of a bisected edge closer than this many noise sigmas (in log)
// are one level: the edge is dropped.
constexpr double kSameLevelSigmas = 2;

// An edge with fewer probes than this wholly on one side of it (up to the
// next edge) is dropped.
constexpr std::uint32_t kMinZoneProbes = 3;

// A grid probe off both its neighbours the same way by more than this many
// noise sigmas (in log) each is read again; so is a probe whose reads
// differ by more.
constexpr double kSpikeSigmas = 3;

// Rounds of finding the grid's spikes and reading them again.
constexpr std::uint32_t kSpikeRounds = 3;

// A grid probe beside an edge closer to its own level than to the other by
// fewer than this many noise sigmas (in log) starts the bisection one grid
// probe further out.
constexpr double kBracketSigmas = 4;

// The rate of one probe from its reads: the median of the largest group of
// reads within `log_window` (in log) of each other, the fastest such group
// on a tie. A stall slows one read (far more often than a burst speeds one
// up): once another read agrees with the rest it is left out, where the
// median of four reads is the mean of the middle two, pulled halfway to the
// stall. Reads that all agree give their median; reads none of which agree,
// the fastest (stalls are the common hiccup; a burst far off both levels is
// read again, and the bisection reads a probe whose reads disagree on its
// side a third time).
// `rates` is reordered. REQUIRES: not empty.
double AgreedRate(std::vector<double>& rates, double log_window) {
  std::sort(rates.begin(), rates.end());
  const double factor = std::exp(std::max(0.0, log_window));
  std::size_t best_from = 0, best_to = 0, to = 0;
  for (std::size_t from = 0; from < rates.size(); ++from) {
    to = std::max(to, from);
    while (to + 1 < rates.size() && rates[to + 1] <= rates[from] * factor) ++to;
    if (to - from >= best_to - best_from) {
      best_from = from;
      best_to = to;
    }
  }
  const std::size_t n = best_to - best_from + 1;
  const std::size_t mid = best_from + n / 2;
  return n % 2 == 1 ? rates[mid] : (rates[mid - 1] + rates[mid]) / 2;
}

class Sampler {
 public:
  Sampler(Device& device, Clock& clock, const AdaptiveOptions& options,
          const std::atomic<bool>* stop, AdaptiveResult& result, std::uint64_t start,
          std::uint64_t probe, std::uint64_t chunk)
      : clock_(clock),
        options_(options),
        stop_(stop),
        result_(result),
        queue_(device.OpenReadQueue(std::max<std::uint32_t>(1, options.queue_depth), chunk)),
        completions_(queue_->depth()),
        at_(queue_->depth()),
        start_(start),
        probe_(probe),
        chunk_(chunk) {
    result_.engine = queue_->engine();
  }

  // False once the sampling must end: a read failed, or a stop was asked.
  bool Going() {
    if (StopRequested(stop_)) result_.interrupted = true;
    return !result_.error && !result_.interrupted;
  }
  bool OverBudget() const {
    return (options_.byte_budget != 0 && result_.bytes_read >= options_.byte_budget) ||
           (options_.time_budget.count() > 0 && clock_.Now() - began_ >= options_.time_budget);
  }

  // Slot k read once more: its rate, or nullopt when a read failed.
  std::optional<double> ReadOnce(std::uint64_t k) {
    const std::uint64_t offset = start_ + k * probe_;
    // The probe's first chunk alone, untimed (the seek, the head settling
    // and whatever the device had queued go with it), then the rest in one
    // stream of reads (the queue kept full, so the device never idles inside
    // it), timed from the first chunk's completion to the last: exactly the
    // bytes after the first chunk over exactly their time, however the
    // device interleaves the reads in flight.
    std::error_code ec = Read(offset, offset + chunk_);
    if (!ec) {
      const auto from = clock_.Now();
      ec = Read(offset + chunk_, offset + probe_);
      if (!ec) return MbPerS(probe_ - chunk_, clock_.Now() - from);
    }
    if (!IsDeviceGone(ec)) {
      // A bad sector is data: the probe is unreadable, the sampling goes on.
      result_.unreadable.push_back(UnreadableRange{.offset_bytes = offset,
                                                   .length_bytes = probe_,
                                                   .errno_value = ec.value(),
                                                   .bounded_by_budget = true});
    } else if (!result_.error) {
      result_.error = ec;
    }
    return std::nullopt;
  }

  // Slot k's probe read once more (its rate: AgreedRate of its reads so
  // far). Null when the read failed.
  const AdaptiveProbe* ReadMore(std::uint64_t k) {
    Slot& slot = slots_[k];
    AdaptiveProbe& p = slot.probe;
    p.offset_bytes = start_ + k * probe_;
    p.length_bytes = probe_;
    const std::optional<double> rate = ReadOnce(k);
    if (!rate || !(*rate > 0)) return nullptr;  // (no time measured: no rate)
    slot.rates.push_back(*rate);
    p.reads = static_cast<std::uint32_t>(slot.rates.size());
    p.mb_per_s = Agreed(slot.rates);
    return &p;
  }

  // Reads agree within `log_window` (in log) from now on: every probe's rate
  // is found again with it.
  void SetAgreement(double log_window) {
    agree_log_ = log_window;
    for (auto& [k, slot] : slots_) {
      if (!slot.rates.empty()) slot.probe.mb_per_s = Agreed(slot.rates);
    }
  }

  // One untimed chunk at the far end of the range from slot k (the first
  // or the last slot): read between two probes near each other, so that
  // the second is not served from the read-ahead of the first.
  void Divert(std::uint64_t k, std::uint64_t slots) {
    const std::uint64_t far = k < slots / 2 ? slots - 1 : 0;
    const std::uint64_t offset = start_ + far * probe_ + probe_ - chunk_;
    if (const std::error_code ec = Read(offset, offset + chunk_); IsDeviceGone(ec)) {
      if (!result_.error) result_.error = ec;
    }
  }

  // Slot k's probe read untimed, its rate not kept: the device (and the
  // engine's workers) woken before the first timed probe.
  void WarmUp(std::uint64_t k) {
    const std::uint64_t offset = start_ + k * probe_;
    if (const std::error_code ec = Read(offset, offset + probe_); IsDeviceGone(ec)) {
      if (!result_.error) result_.error = ec;
    }
  }

  // Slot k's reads, in the order read (none: not read).
  const std::vector<double>& Reads(std::uint64_t k) const { return slots_.at(k).rates; }

  // The probe of slot k, when it was read.
  const AdaptiveProbe* Find(std::uint64_t k) const {
    const auto it = slots_.find(k);
    return it == slots_.end() || it->second.probe.mb_per_s <= 0 ? nullptr : &it->second.probe;
  }
  // The slots in [lo, hi] whose probe was read, in order, with its rate.
  std::vector<std::pair<std::uint64_t, double>> ReadIn(std::uint64_t lo, std::uint64_t hi) const {
    std::vector<std::pair<std::uint64_t, double>> out;
    for (auto it = slots_.lower_bound(lo); it != slots_.end() && it->first <= hi; ++it) {
      if (it->second.probe.mb_per_s > 0) out.emplace_back(it->first, it->second.probe.mb_per_s);
    }
    return out;
  }
  // Every probe read, in position order.
  std::vector<AdaptiveProbe> Probes() const {
    std::vector<AdaptiveProbe> out;
    for (const auto& [k, slot] : slots_) {
      if (slot.probe.mb_per_s > 0) out.push_back(slot.probe);
    }
    return out;
  }

  void Report(AdaptiveProgress::Phase phase, std::size_t done, std::size_t total) const {
    if (options_.progress) options_.progress({phase, done, total, result_.bytes_read});
  }

 private:
  struct Slot {
    AdaptiveProbe probe;
    std::vector<double> rates;  // each read's rate, in the order read
  };

  // [from, to) through the queue, up to its depth in flight; the first
  // error (its offset in error_offset_bytes), or none.
  std::error_code Read(std::uint64_t from, std::uint64_t to) {
    std::vector<std::uint64_t>& at = at_;
    std::vector<std::uint32_t>& free_slots = free_slots_;
    free_slots.clear();
    for (std::uint32_t s = queue_->depth(); s > 0; --s) free_slots.push_back(s - 1);
    std::uint32_t in_flight = 0;
    std::uint64_t next = from;
    std::error_code failed;
    bool ok = true;
    while (ok && (next < to || in_flight > 0)) {
      while (ok && next < to && !free_slots.empty()) {
        const std::uint32_t s = free_slots.back();
        free_slots.pop_back();
        at[s] = next;
        queue_->Submit(s, next, std::min(chunk_, to - next));
        next += std::min(chunk_, to - next);
        ++in_flight;
      }
      const std::size_t n = queue_->Wait(completions_);
      for (std::size_t i = 0; i < n; ++i) {
        const ReadQueue::Completion& c = completions_[i];
        --in_flight;
        free_slots.push_back(c.slot);
        if (c.error && ok) {
          failed = c.error;
          result_.error_offset_bytes = at[c.slot];
          ok = false;
        } else if (!c.error) {
          result_.bytes_read += std::min(chunk_, to - at[c.slot]);
        }
      }
      if (!ok) {
        // Drain what is still in flight before the queue is used again.
        while (in_flight > 0) in_flight -= static_cast<std::uint32_t>(queue_->Wait(completions_));
      }
    }
    return failed;
  }

  Clock& clock_;
  const AdaptiveOptions& options_;
  const std::atomic<bool>* stop_;
  AdaptiveResult& result_;
  std::unique_ptr<ReadQueue> queue_;
  std::vector<ReadQueue::Completion> completions_;
  // Read()'s: each queue slot's offset, and the slots free.
  std::vector<std::uint64_t> at_;
  std::vector<std::uint32_t> free_slots_;
  double Agreed(const std::vector<double>& rates) {
    sorted_ = rates;
    return AgreedRate(sorted_, agree_log_);
  }

  std::vector<double> sorted_;  // Agreed()'s scratch
  double agree_log_ = 0;        // SetAgreement's window
  std::uint64_t start_, probe_, chunk_;
  std::chrono::nanoseconds began_ = clock_.Now();
  std::map<std::uint64_t, Slot> slots_;
};

// The indexes 0..count-1 of the grid's probes in an order where no two read
// one after the other are neighbours: a stride coprime with the count, near
// a third of it.
std::vector<std::uint64_t> GridOrder(std::uint64_t count) {
  std::uint64_t stride = std::max<std::uint64_t>(1, count / 3);
  while (count > 1 && std::gcd(stride, count) != 1) ++stride;
  std::vector<std::uint64_t> order;
  for (std::uint64_t i = 0; i < count; ++i) order.push_back(i * stride % count);
  return order;
}

// The relative noise of one probe: the robust sigma of the grid's
// neighbour steps (in log) over sqrt(2), leaving out the pairs a level
// change lies between (`steps`: a dense staircase's steps would otherwise
// read as noise: 7 steps among 40 probes put it at 5 % for 1 %).
double NoiseLog(const std::vector<AdaptiveProbe>& grid, const std::vector<AdaptiveStep>& changes) {
  std::vector<bool> across(grid.size(), false);  // across[i]: a change between i - 1 and i
  for (const AdaptiveStep& c : changes) {
    for (std::size_t i = c.left + 1; i <= c.right && i < grid.size(); ++i) across[i] = true;
  }
  std::vector<double> steps;
  for (std::size_t i = 1; i < grid.size(); ++i) {
    if (!across[i] && grid[i].mb_per_s > 0 && grid[i - 1].mb_per_s > 0) {
      steps.push_back(std::log(grid[i].mb_per_s / grid[i - 1].mb_per_s));
    }
  }
  if (steps.empty()) return 0;
  std::vector<double> copy = steps;
  const double median = MedianInPlace(copy);
  for (double& s : steps) s = std::abs(s - median);
  return kMadToSigma * MedianInPlace(steps) / std::sqrt(2.0);
}

// The grid probes (indexes into `grid`) off both their neighbours the same
// way, by more than kSpikeSigmas of the noise `noise_log` each: an end
// probe off its one neighbour, where that neighbour agrees with the next.
std::vector<std::size_t> GridSpikes(const std::vector<AdaptiveProbe>& grid, double noise_log) {
  const double limit = kSpikeSigmas * noise_log;
  const auto off = [&](std::size_t a, std::size_t b) {
    return std::log(grid[a].mb_per_s / grid[b].mb_per_s);
  };
  std::vector<std::size_t> out;
  const std::size_t n = grid.size();
  if (n < 3 || !(limit > 0)) return out;
  if (std::abs(off(0, 1)) > limit && std::abs(off(1, 2)) <= limit) out.push_back(0);
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const double l = off(i, i - 1), r = off(i, i + 1);
    if ((l > 0) == (r > 0) && std::min(std::abs(l), std::abs(r)) > limit) out.push_back(i);
  }
  if (std::abs(off(n - 1, n - 2)) > limit && std::abs(off(n - 2, n - 3)) <= limit) {
    out.push_back(n - 1);
  }
  return out;
}

// The edge between levels `left` and `right` placed where the probes read
// around it (`read`: slot and rate, in slot order, from the bracket as it
// began) disagree least with it: each probe on the wrong side of it costs
// how much closer (in log) it is to that side's level. A bisection follows
// single reads, and a stall of one sends it the wrong way for good; the
// probes it read (and those its verifications re-read) still show where
// the edge is. Ties keep the bisection's bracket [lo, hi]; else the
// leftmost. Sets lo and hi to the probes either side of the edge (not
// always neighbours: the edge is then as wide as their gap).
void Settle(const std::vector<std::pair<std::uint64_t, double>>& read, double left, double right,
            std::uint64_t& lo, std::uint64_t& hi) {
  if (read.size() < 2) return;
  // vote > 0: closer to the left level.
  std::vector<double> vote;
  for (const auto& [slot, rate] : read) {
    vote.push_back(std::abs(std::log(rate / right)) - std::abs(std::log(rate / left)));
  }
  // cost(j): the edge between read[j - 1] and read[j].
  double cost = 0;
  for (std::size_t i = 1; i < read.size(); ++i) cost += std::max(0.0, vote[i]);
  cost += std::max(0.0, -vote[0]);
  double best = cost;
  std::size_t best_j = 1;
  for (std::size_t j = 2; j < read.size(); ++j) {
    cost += std::max(0.0, -vote[j - 1]) - std::max(0.0, vote[j - 1]);
    const bool is_bisection = read[j - 1].first == lo && read[j].first == hi;
    if (cost < best - 1e-12 || (is_bisection && cost <= best + 1e-12)) {
      best = cost;
      best_j = j;
    }
  }
  lo = read[best_j - 1].first;
  hi = read[best_j].first;
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
  const std::uint64_t slots = (end - start) / probe;
  Sampler sampler(device, clock, options, stop, r, start, probe, chunk);

  // The grid.
  const std::uint64_t count = std::min<std::uint64_t>(options.grid_probes, slots);
  r.grid_probes = static_cast<std::uint32_t>(count);
  std::vector<std::uint64_t> grid_slots(count);
  for (std::uint64_t i = 0; i < count; ++i) grid_slots[i] = i * (slots - 1) / (count - 1);
  std::size_t grid_done = 0;
  // Untimed, in the middle of a grid gap away from the first grid probe
  // read (slot 0): a sleeping disk spun up, an engine's threads started.
  if (count >= 3) sampler.WarmUp((grid_slots[1] + grid_slots[2]) / 2);
  for (const std::uint64_t i : GridOrder(count)) {
    if (!sampler.Going()) break;
    if (sampler.OverBudget()) {
      // Not even the grid: the probes read so far (spread over the whole
      // range by the grid's order) still give the edges, at their spacing.
      r.budget_hit = true;
      break;
    }
    if (!sampler.ReadMore(grid_slots[i])) continue;  // unreadable: the grid goes on without it
    sampler.Report(AdaptiveProgress::Phase::kGrid, ++grid_done, count);
  }
  // (Unreadable grid probes are left out: the steps index the probes read.)
  std::vector<AdaptiveProbe> grid;
  std::vector<std::uint64_t> grid_read;  // their slots
  const auto collect_grid = [&] {
    grid.clear();
    grid_read.clear();
    for (const std::uint64_t k : grid_slots) {
      if (const AdaptiveProbe* p = sampler.Find(k)) {
        grid.push_back(*p);
        grid_read.push_back(k);
      }
    }
  };
  collect_grid();
  // Each step bisected down to neighbouring slots.
  std::vector<AdaptiveStep> steps;
  // A grid the budget cut short still gives its steps: they stay open, at
  // the width of the probes either side.
  if (sampler.Going() && grid.size() >= 3) steps = find_steps(grid);
  r.noise_rel = NoiseLog(grid, steps);
  sampler.SetAgreement(kSpikeSigmas * r.noise_rel);
  // Grid probes off both their neighbours the same way (a stall of the
  // reader or the host, not a zone: a zone spans at least 3 grid probes)
  // are read again, in turns, until two of their reads agree or they have
  // max_reads: AgreedRate of their reads is kept. A re-read only refines a probe's rate;
  // then the steps and the noise are found again.
  if (sampler.Going() && !r.budget_hit && grid.size() >= 3 && options.max_reads > 1) {
    const auto settled = [&](std::uint64_t k) {
      const std::vector<double>& reads = sampler.Reads(k);
      if (reads.size() >= options.max_reads) return true;
      for (std::size_t a = 0; a < reads.size(); ++a) {
        for (std::size_t b = a + 1; b < reads.size(); ++b) {
          if (std::abs(std::log(reads[a] / reads[b])) < kSpikeSigmas * r.noise_rel) return true;
        }
      }
      return false;
    };
    // A probe read again can unmask its neighbour (two stalled probes side
    // by side look like a step): the spikes are found again after each
    // round, each probe re-read in one round only.
    std::set<std::uint64_t> checked;
    for (std::uint32_t round = 0; round < kSpikeRounds && sampler.Going() && !r.budget_hit;
         ++round) {
      std::vector<std::uint64_t> spikes;
      for (const std::size_t i : GridSpikes(grid, r.noise_rel)) {
        if (!checked.contains(grid_read[i])) spikes.push_back(grid_read[i]);
      }
      if (spikes.empty()) break;
      checked.insert(spikes.begin(), spikes.end());
      while (!spikes.empty() && sampler.Going()) {
        if (sampler.OverBudget()) {
          r.budget_hit = true;
          break;
        }
        std::vector<std::uint64_t> failed;  // unreadable now: kept as read before
        for (const std::uint64_t k : spikes) {
          if (spikes.size() == 1) sampler.Divert(k, slots);
          if (!sampler.Going()) break;
          if (!sampler.ReadMore(k)) failed.push_back(k);
        }
        std::erase_if(spikes, [&](std::uint64_t k) {
          return settled(k) || std::find(failed.begin(), failed.end(), k) != failed.end();
        });
      }
      collect_grid();
    }
    if (sampler.Going() && grid.size() >= 3) steps = find_steps(grid);
    r.noise_rel = NoiseLog(grid, steps);
  }
  // The steps bisected in turns, one read per open step per round, so that
  // two reads in a row are at different edges (far apart: no read-ahead
  // between them); a marginal probe is read again in the next round. With
  // one step left open, a read elsewhere (Divert) separates its probes.
  struct Open {
    std::uint64_t lo = 0, hi = 0;
    double left = 0, right = 0;
    std::optional<std::uint64_t> pending;  // a marginal probe to read again
    bool done = false;
    std::uint64_t lo0 = 0, hi0 = 0;     // the bracket as it began
    std::vector<std::uint64_t> verify;  // converged: the probe to read once more
    std::uint32_t checks = 0;           // verifications begun
    std::uint32_t reopens = 0;          // brackets reopened by a verification
  };
  std::vector<Open> open;
  for (const AdaptiveStep& step : steps) {
    if (step.left >= step.right || step.right >= grid.size()) continue;
    // Levels within kSameLevelSigmas of the noise of each other: an edge
    // between them would be dropped once bisected (below); its reads are
    // saved (a grid probe or two read off their level split a zone).
    if (std::abs(std::log(step.left_mb_per_s / step.right_mb_per_s)) <
        kSameLevelSigmas * r.noise_rel) {
      continue;
    }
    // The bisection starts between the two grid probes the finder names,
    // or one grid probe further out on a side whose grid probe is not
    // clearly on its side (within kBracketSigmas of the noise of being
    // closer to the other level). A converged edge whose re-read probe
    // changes side reopens to one grid probe further out on that side
    // (lo0, hi0): a grid probe read on the wrong side must not put an edge
    // a grid gap off with a one-probe uncertainty. The next edge is at
    // least a zone (3 grid probes) away.
    const auto slot_of = [&](std::size_t g) { return (grid[g].offset_bytes - start) / probe; };
    const auto unclear = [&](std::size_t g, double own, double other) {
      const double rate = grid[g].mb_per_s;
      return std::abs(std::log(rate / other)) - std::abs(std::log(rate / own)) <
             kBracketSigmas * r.noise_rel;
    };
    const std::size_t outer_left = step.left > 0 ? step.left - 1 : 0;
    const std::size_t outer_right = std::min(step.right + 1, grid.size() - 1);
    const bool widen_left = unclear(step.left, step.left_mb_per_s, step.right_mb_per_s);
    const bool widen_right = unclear(step.right, step.right_mb_per_s, step.left_mb_per_s);
    open.push_back(Open{.lo = slot_of(widen_left ? outer_left : step.left),
                        .hi = slot_of(widen_right ? outer_right : step.right),
                        .left = step.left_mb_per_s,
                        .right = step.right_mb_per_s,
                        .pending = std::nullopt,
                        .done = false,
                        .lo0 = slot_of(outer_left),
                        .hi0 = slot_of(outer_right),
                        .verify = {},
                        .checks = 0,
                        .reopens = 0});
  }
  const auto closer_left = [](double rate, const Open& o) {
    return std::abs(std::log(rate / o.left)) <= std::abs(std::log(rate / o.right));
  };
  // Read again: a probe whose side is marginal, or one whose reads so far
  // disagree on its side (a hiccup in one of two reads would pull their
  // median, the mean, to the wrong side: a third read decides).
  const auto unsettled = [&](std::uint64_t k, const AdaptiveProbe& p, const Open& o) {
    const double to_left = std::abs(std::log(p.mb_per_s / o.left));
    const double to_right = std::abs(std::log(p.mb_per_s / o.right));
    if (std::abs(to_left - to_right) < 2 * r.noise_rel) return true;
    // Far outside both levels (beyond the nearer by more than half the
    // step, and kSpikeSigmas of the noise): a stall, or a burst of reads
    // that had waited, not the media.
    const double step = std::abs(std::log(o.left / o.right));
    if (std::min(to_left, to_right) > std::max(step / 2, kSpikeSigmas * r.noise_rel)) return true;
    const std::vector<double>& reads = sampler.Reads(k);
    return std::any_of(reads.begin(), reads.end(),
                       [&](double x) { return closer_left(x, o) != closer_left(reads[0], o); });
  };
  std::size_t finished = 0;
  for (Open& o : open) {
    if (o.hi - o.lo <= 1) {
      o.done = true;
      ++finished;
    }
  }
  while (finished < open.size() && sampler.Going() && !r.budget_hit) {
    for (Open& o : open) {
      if (o.done || !sampler.Going()) continue;
      if (sampler.OverBudget()) {
        r.budget_hit = true;
        break;
      }
      const std::uint64_t k = o.pending           ? *o.pending
                              : !o.verify.empty() ? o.verify.back()
                                                  : o.lo + (o.hi - o.lo) / 2;
      if (finished + 1 == open.size()) sampler.Divert(k, slots);
      const AdaptiveProbe* p = sampler.ReadMore(k);
      if (p == nullptr) {
        o.done = true;  // unreadable there: the edge keeps its width
        ++finished;
        continue;
      }
      sampler.Report(AdaptiveProgress::Phase::kRefine, finished, open.size());
      if (unsettled(k, *p, o) && p->reads < std::max<std::uint32_t>(1, options.max_reads)) {
        o.pending = k;
        continue;
      }
      o.pending.reset();
      const bool left_side = closer_left(p->mb_per_s, o);
      if (!o.verify.empty() && k == o.verify.back()) {
        // Converged: the probe beside the edge read again. One that changed
        // side was a hiccup that sent the bisection the wrong way: the
        // bracket reopens from it to where it began on that side.
        // A reopened bracket is verified again once it converges (up to
        // kMaxReopens times: a second stall must not leave it misled).
        o.verify.pop_back();
        // (Not past where the bracket began: a probe there that changed
        // side leaves the edge to Settle.)
        const bool reopen =
            (k == o.lo && !left_side && o.lo0 < o.lo) || (k == o.hi && left_side && o.hi < o.hi0);
        if (reopen) {
          if (k == o.lo) {
            o.hi = o.lo;
            o.lo = o.lo0;
          } else {
            o.lo = o.hi;
            o.hi = o.hi0;
          }
          o.verify.clear();
          if (++o.reopens <= kMaxReopens) o.checks = 0;
        }
      } else {
        (left_side ? o.lo : o.hi) = k;
      }
      if (o.hi - o.lo <= 1 && o.verify.empty()) {
        if (o.checks < kEdgeChecks) {
          ++o.checks;
          // The probe on the slower level's side: a stall (the common
          // hiccup: reads are slowed far more often than sped up) makes a
          // probe of the faster level read as the slower one, and ends the
          // bisection on it. (A burst far off both levels is read again.)
          o.verify = {o.right < o.left ? o.hi : o.lo};
        } else {
          o.done = true;
          ++finished;
        }
      }
    }
  }
  for (Open& o : open) {
    Settle(sampler.ReadIn(o.lo0, o.hi0), o.left, o.right, o.lo, o.hi);
    AdaptiveEdge e;
    // The edge is midway between the probes either side (neighbouring
    // slots, unless Settle moved it), within half their gap and a probe
    // (the probe that straddles it joined the closer side).
    if (o.hi <= o.lo) o.hi = o.lo + 1;
    e.at_bytes = start + (o.lo + 1 + (o.hi - o.lo - 1) / 2) * probe;
    e.uncertainty_bytes = (o.hi - o.lo - 1) * probe / 2 + probe;
    e.left_mb_per_s = o.left;
    e.right_mb_per_s = o.right;
    r.edges.push_back(e);
  }
  std::sort(r.edges.begin(), r.edges.end(),
            [](const AdaptiveEdge& a, const AdaptiveEdge& b) { return a.at_bytes < b.at_bytes; });

  r.probes = sampler.Probes();
  // The zones between the edges: the median of the probes wholly inside.
  // An edge whose two sides, once bisected, read within kSameLevelSigmas of
  // the noise of each other, or with fewer than kMinZoneProbes probes on a
  // side, was a grid probe read off its level, not a step: it is dropped
  // (its zones merge), one at a time, the thinnest side first, then the
  // closest levels.
  const auto median_in = [&](std::uint64_t from, std::uint64_t to, std::uint32_t& inside) {
    std::vector<double> rates;
    for (const AdaptiveProbe& p : r.probes) {
      if (p.offset_bytes >= from && p.offset_bytes + p.length_bytes <= to) {
        rates.push_back(p.mb_per_s);
      }
    }
    inside = static_cast<std::uint32_t>(rates.size());
    return rates.empty() ? 0.0 : MedianInPlace(rates);
  };
  while (!r.edges.empty()) {
    std::size_t weakest = r.edges.size();
    double weakest_log = kSameLevelSigmas * r.noise_rel;
    for (std::size_t i = 0; i < r.edges.size(); ++i) {
      const std::uint64_t from = i == 0 ? start : r.edges[i - 1].at_bytes;
      const std::uint64_t to = i + 1 < r.edges.size() ? r.edges[i + 1].at_bytes : end;
      std::uint32_t nl = 0, nr = 0;
      const double left = median_in(from, r.edges[i].at_bytes, nl);
      const double right = median_in(r.edges[i].at_bytes, to, nr);
      if (nl == 0 || nr == 0) continue;
      // A side of fewer than kMinZoneProbes probes is no zone (the grid's
      // spacing is below the narrowest zone, and a bisection adds probes on
      // both sides of a real edge): probes read off their level. Dropped
      // before any level difference.
      const double d = std::min(nl, nr) < kMinZoneProbes ? -1.0 : std::abs(std::log(left / right));
      if (d < weakest_log) {
        weakest_log = d;
        weakest = i;
      }
    }
    if (weakest == r.edges.size()) break;
    r.edges.erase(r.edges.begin() + static_cast<std::ptrdiff_t>(weakest));
  }
  std::vector<std::uint64_t> bounds{start};
  for (const AdaptiveEdge& e : r.edges) bounds.push_back(e.at_bytes);
  bounds.push_back(end);
  for (std::size_t z = 0; z + 1 < bounds.size(); ++z) {
    AdaptiveZone zone;
    zone.start_bytes = bounds[z];
    zone.end_bytes = bounds[z + 1];
    zone.mb_per_s = median_in(zone.start_bytes, zone.end_bytes, zone.probes);
    if (zone.probes == 0) {
      // No probe inside: the level of the edge beside it (none: nothing read).
      zone.mb_per_s = z < r.edges.size() ? r.edges[z].left_mb_per_s
                      : r.edges.empty()  ? 0
                                         : r.edges.back().right_mb_per_s;
    }
    r.zones.push_back(zone);
  }
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
  const PassSummary pass = ProbePass(r.probes, run.plan.chunk_bytes);
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
