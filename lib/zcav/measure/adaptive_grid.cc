// The adaptive sampler's grid (adaptive_internal.h AdaptiveRun, its first
// steps): the coarse grid read in an order that never reads two neighbours
// one after the other, its probes read while the device's speed changed
// resolved by their neighbours, the steps the finder sees in it and its
// noise, a noisy grid read again, and its spikes read again.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "zcav/base/stats.h"
#include "zcav/measure/adaptive_internal.h"

namespace zcav::adaptive {
namespace {

// Rounds of finding the grid's spikes and reading them again.
constexpr std::uint32_t kSpikeRounds = 3;
// The grid is read a second time where its smallest step is under this
// many of its noise sigmas.
constexpr double kNoisyStepSigmas = 5;
constexpr std::uint64_t kNoisyGridShare = 512;

// Grid probes read while the device's speed changed (ProbeBook::Unresolved):
// each whose nearest grid probes read at a known drift either side agree
// (within kMinChange: one zone) takes the drift (before or after the
// change) that puts it nearer their level; a probe resolved so serves its
// neighbours next, until no more can be. The others (beside a step, or at
// an end of the range) are returned, to be read again. (The nearest known
// probe on one side alone is no guide: a whole zone's grid probes can be
// read within one change, and the nearest known one is then in the next
// zone.)
std::vector<std::uint64_t> ResolveByNeighbours(ProbeBook& book,
                                               const std::vector<std::uint64_t>& slots) {
  std::map<std::uint64_t, double> known;  // slot: rate
  std::vector<std::uint64_t> open;
  for (const std::uint64_t k : slots) {
    if (const AdaptiveProbe* p = book.Find(k)) {
      if (book.Unresolved(k)) {
        open.push_back(k);
      } else {
        known.emplace(k, p->mb_per_s);
      }
    }
  }
  for (bool progress = true; progress && !open.empty();) {
    progress = false;
    std::erase_if(open, [&](std::uint64_t k) {
      const auto right = known.lower_bound(k);
      if (right == known.begin() || right == known.end()) return false;
      const double left_rate = std::prev(right)->second, right_rate = right->second;
      if (std::abs(std::log(left_rate / right_rate)) > kMinChange) return false;
      const double level = std::sqrt(left_rate * right_rate);
      const auto [before, after] = *book.Unresolved(k);
      book.Resolve(k, std::abs(std::log(before / level)) <= std::abs(std::log(after / level)));
      known.emplace(k, book.Find(k)->mb_per_s);
      progress = true;
      return true;
    });
  }
  return open;
}

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

// The smallest of `steps` (in log). REQUIRES: not empty.
double SmallestStep(const std::vector<AdaptiveStep>& steps) {
  double smallest = std::numeric_limits<double>::infinity();
  for (const AdaptiveStep& s : steps) {
    smallest = std::min(smallest, std::abs(std::log(s.left_mb_per_s / s.right_mb_per_s)));
  }
  return smallest;
}

// The grid probes (indexes into `grid`) off both their neighbours the same
// way, by more than `limit` (in log) each: an end probe off its one
// neighbour, where that neighbour agrees with the next.
std::vector<std::size_t> GridSpikes(const std::vector<AdaptiveProbe>& grid, double limit) {
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

}  // namespace

void AdaptiveRun::CollectGrid() {
  grid_.clear();
  grid_read_.clear();
  for (const std::uint64_t k : grid_slots_) {
    if (const AdaptiveProbe* p = book_.Find(k)) {
      grid_.push_back(*p);
      grid_read_.push_back(k);
    }
  }
}

void AdaptiveRun::Redrift() {
  sampler_.CloseReference();
  sampler_.Redrift();
  (void)drift_.TakeChange();
}

void AdaptiveRun::ReadGrid() {
  const std::uint64_t count = std::min<std::uint64_t>(options_.grid_probes, slots_);
  r_.grid_probes = static_cast<std::uint32_t>(count);
  grid_slots_.resize(count);
  for (std::uint64_t i = 0; i < count; ++i) grid_slots_[i] = i * (slots_ - 1) / (count - 1);
  std::size_t grid_done = 0;
  // Untimed, in the middle of a grid gap away from the first grid probe
  // read (slot 0): a sleeping disk spun up, an engine's threads started.
  if (count >= 3) reader_.WarmUp((grid_slots_[1] + grid_slots_[2]) / 2);
  // The reference: a block no grid probe reads, away from the warm-up.
  if (count >= 3 && grid_slots_[count - 1] - grid_slots_[count - 2] >= 2) {
    drift_.SetReference((grid_slots_[count - 2] + grid_slots_[count - 1]) / 2);
  }
  for (const std::uint64_t i : GridOrder(count)) {
    if (!reader_.Going()) break;
    if (reader_.OverBudget()) {
      // Not even the grid: the probes read so far (spread over the whole
      // range by the grid's order) still give the edges, at their spacing.
      r_.budget_hit = true;
      break;
    }
    if (!sampler_.ReadMore(grid_slots_[i])) continue;  // unreadable: the grid goes on without it
    reader_.Report(AdaptiveProgress::Phase::kGrid, ++grid_done, count);
  }
  Redrift();
}

// Grid probes read while the device's speed changed (their drift is either
// side of the change, not known where within it) take the drift their grid
// neighbours decide (ResolveByNeighbours); the others are read again.
void AdaptiveRun::ResolveGridSuspects() {
  const std::vector<std::uint64_t> again = ResolveByNeighbours(book_, grid_slots_);
  for (const std::uint64_t k : again) {
    if (!reader_.Going() || reader_.OverBudget() || !reader_.MayReadAgain()) break;
    sampler_.ReadMore(k);
  }
  if (!again.empty()) Redrift();
  CollectGrid();
}

// The steps the finder sees in the grid (a grid the budget cut short still
// gives its steps: they stay open, at the width of the probes either side),
// the noise, and the reads' agreement window.
void AdaptiveRun::FindSteps() {
  if (reader_.Going() && grid_.size() >= 3) steps_ = find_steps_(grid_);
  r_.noise_rel = NoiseLog(grid_, steps_);
  book_.SetAgreement(kSpikeSigmas * r_.noise_rel);
}

// A noisy grid (its smallest step under kNoisyStepSigmas of the noise:
// steps as small may be lost in it, as 1.7 % ones under 2 % noise
// correlated at 0.5 were on 13 of 50 seeds of a 20 TB disk) is read once
// more, in the grid's order, where that is cheap (the grid under
// 1/kNoisyGridShare of the range): each probe's rate the median of its two
// reads, the noise's variance halved.
void AdaptiveRun::ReadNoisyGridAgain() {
  if (!reader_.Going() || r_.budget_hit || options_.max_reads <= 1 || steps_.empty() ||
      SmallestStep(steps_) >= kNoisyStepSigmas * r_.noise_rel ||
      grid_read_.size() * probe_ * kNoisyGridShare > r_.range_bytes) {
    return;
  }
  const std::vector<std::uint64_t> again = grid_read_;
  for (const std::uint64_t i : GridOrder(again.size())) {
    if (!reader_.Going()) break;
    if (reader_.OverBudget()) {
      r_.budget_hit = true;
      break;
    }
    if (!reader_.MayReadAgain()) break;
    sampler_.ReadMore(again[i]);
  }
  Redrift();
  CollectGrid();
  FindSteps();
}

// Grid probes off both their neighbours the same way (a stall of the
// reader or the host, not a zone: a zone spans at least 3 grid probes) are
// read again, in turns, until two of their reads agree or they have
// max_reads: AgreedRate of their reads is kept. A re-read only refines a
// probe's rate; then the steps and the noise are found again.
void AdaptiveRun::ReadSpikesAgain() {
  if (!reader_.Going() || r_.budget_hit || grid_.size() < 3 || options_.max_reads <= 1) return;
  const auto settled = [&](std::uint64_t k) {
    const std::vector<double> reads = book_.Reads(k);
    if (reads.size() >= options_.max_reads) return true;
    for (std::size_t a = 0; a < reads.size(); ++a) {
      for (std::size_t b = a + 1; b < reads.size(); ++b) {
        if (std::abs(std::log(reads[a] / reads[b])) < kSpikeSigmas * r_.noise_rel) return true;
      }
    }
    return false;
  };
  // A probe read again can unmask its neighbour (two stalled probes side
  // by side look like a step): the spikes are found again after each
  // round, each probe re-read in one round only.
  std::set<std::uint64_t> checked;
  // A probe off by less than half the smallest step the grid shows stays
  // closer to its own level than to any other: it can neither make a step
  // nor send a bisection the wrong way, and is not read again (a host's
  // slow moments put a few grid probes 1-2 % off; the steps are 10 %).
  const double spike_log =
      std::max(kSpikeSigmas * r_.noise_rel, steps_.empty() ? 0.0 : SmallestStep(steps_) / 2);
  for (std::uint32_t round = 0; round < kSpikeRounds && reader_.Going() && !r_.budget_hit;
       ++round) {
    std::vector<std::uint64_t> spikes;
    for (const std::size_t i : GridSpikes(grid_, spike_log)) {
      if (!checked.contains(grid_read_[i])) spikes.push_back(grid_read_[i]);
    }
    if (spikes.empty()) break;
    checked.insert(spikes.begin(), spikes.end());
    while (!spikes.empty() && reader_.Going()) {
      if (reader_.OverBudget()) {
        r_.budget_hit = true;
        break;
      }
      if (!reader_.MayReadAgain()) break;  // (they keep the reads they have)
      std::vector<std::uint64_t> failed;   // unreadable now: kept as read before
      for (const std::uint64_t k : spikes) {
        if (spikes.size() == 1) reader_.Divert(k, slots_);
        if (!reader_.Going()) break;
        if (!sampler_.ReadMore(k)) failed.push_back(k);
      }
      std::erase_if(spikes, [&](std::uint64_t k) {
        return settled(k) || std::find(failed.begin(), failed.end(), k) != failed.end();
      });
    }
    sampler_.CloseReference();
    sampler_.Redrift();
    CollectGrid();
  }
  if (reader_.Going() && grid_.size() >= 3) steps_ = find_steps_(grid_);
  r_.noise_rel = NoiseLog(grid_, steps_);
}

}  // namespace zcav::adaptive
