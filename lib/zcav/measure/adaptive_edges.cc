// The adaptive sampler's edges (adaptive_internal.h AdaptiveRun, its last
// steps): a bracket for each step of the grid, bisected in turns down to
// one probe, checked and verified, undone after a change of the device's
// speed, placed again where all its probes disagree least (Settle), and
// the zones between the edges.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "zcav/base/stats.h"
#include "zcav/measure/adaptive_internal.h"

namespace zcav::adaptive {
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

// A bracket's moves are undone after a change of the device's speed (see
// adaptive_internal.h Change) at most this many times.
constexpr std::uint32_t kMaxUndos = 4;

// Bisections again where an edge, placed by all its probes once the drift
// is known (Settle), lies between probes that are not neighbours.
constexpr std::uint32_t kSettlePasses = 2;

// A grid probe beside an edge closer to its own level than to the other by
// fewer than this many noise sigmas (in log) starts the bisection one grid
// probe further out.
constexpr double kBracketSigmas = 4;

// The edge between levels `left` and `right` placed where the probes read
// around it (`read`: slot and rate, in slot order, from the bracket as it
// began) disagree least with it: each probe on the wrong side of it costs
// how much closer (in log) it is to that side's level. A bisection follows
// single reads, and a stall of one sends it the wrong way for good; the
// probes it read (and those its verifications re-read) still show where
// the edge is. Ties keep the bisection's bracket [lo, hi]; else the
// leftmost. Sets lo and hi to the probes either side of the edge (not
// always neighbours: the edge is then as wide as their gap). A probe whose
// reads came out far outside both levels (beyond the nearer by more than
// `far_off`, in log) votes for neither: on a busy host a slow spell can
// outlast all of a probe's reads, and such a probe, the slower level's by
// proximity alone, had put edges 15 MiB off with +-1 MiB claimed.
void Settle(std::vector<std::pair<std::uint64_t, double>> read, double left, double right,
            double far_off, std::uint64_t& lo, std::uint64_t& hi) {
  std::erase_if(read, [&](const std::pair<std::uint64_t, double>& r) {
    return std::min(std::abs(std::log(r.second / left)), std::abs(std::log(r.second / right))) >
           far_off;
  });
  if (read.size() < 2) return;
  // vote > 0: closer to the left level.
  std::vector<double> vote;
  for (const auto& [slot, rate] : read) {
    vote.push_back(std::abs(std::log(rate / right)) - std::abs(std::log(rate / left)));
  }
  // (No probe left for one side: nothing places the edge; the bisection's
  // bracket stands.)
  if (std::none_of(vote.begin(), vote.end(), [](double v) { return v > 0; }) ||
      std::none_of(vote.begin(), vote.end(), [](double v) { return v < 0; })) {
    return;
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

// Whether `rate` is nearer b's left level than its right one (in log).
bool CloserLeft(double rate, const Bracket& b) {
  return std::abs(std::log(rate / b.left)) <= std::abs(std::log(rate / b.right));
}

}  // namespace

// A bracket for each step between two grid probes. Levels within
// kSameLevelSigmas of the noise of each other are none: an edge between
// them would be dropped once bisected (Zones); its reads are saved (a grid
// probe or two read off their level split a zone).
//
// The bisection starts between the two grid probes the finder names, or
// one grid probe further out on a side whose grid probe is not clearly on
// its side (within kBracketSigmas of the noise of being closer to the
// other level). A converged edge whose re-read probe changes side reopens
// to one grid probe further out on that side (lo0, hi0): a grid probe read
// on the wrong side must not put an edge a grid gap off with a one-probe
// uncertainty. The next edge is at least a zone (3 grid probes) away.
void AdaptiveRun::OpenBrackets() {
  const auto slot_of = [&](std::size_t g) {
    return (grid_[g].offset_bytes - r_.start_bytes) / probe_;
  };
  const auto unclear = [&](std::size_t g, double own, double other) {
    const double rate = grid_[g].mb_per_s;
    return std::abs(std::log(rate / other)) - std::abs(std::log(rate / own)) <
           kBracketSigmas * r_.noise_rel;
  };
  for (const AdaptiveStep& step : steps_) {
    if (step.left >= step.right || step.right >= grid_.size()) continue;
    if (std::abs(std::log(step.left_mb_per_s / step.right_mb_per_s)) <
        kSameLevelSigmas * r_.noise_rel) {
      continue;
    }
    const std::size_t outer_left = step.left > 0 ? step.left - 1 : 0;
    const std::size_t outer_right = std::min(step.right + 1, grid_.size() - 1);
    const bool widen_left = unclear(step.left, step.left_mb_per_s, step.right_mb_per_s);
    const bool widen_right = unclear(step.right, step.right_mb_per_s, step.left_mb_per_s);
    const std::uint64_t lo = slot_of(widen_left ? outer_left : step.left);
    const std::uint64_t hi = slot_of(widen_right ? outer_right : step.right);
    open_.push_back(Bracket{.lo = lo,
                            .hi = hi,
                            .left = step.left_mb_per_s,
                            .right = step.right_mb_per_s,
                            .pending = std::nullopt,
                            .done = hi - lo <= 1,
                            .lo0 = slot_of(outer_left),
                            .hi0 = slot_of(outer_right),
                            .lo_start = lo,
                            .hi_start = hi,
                            .verify = {},
                            .checks = 0,
                            .reopens = 0,
                            .moves = {},
                            .undos = 0});
    if (open_.back().done) ++finished_;
  }
}

bool AdaptiveRun::Unsettled(std::uint64_t k, const AdaptiveProbe& p, const Bracket& b) const {
  const double to_left = std::abs(std::log(p.mb_per_s / b.left));
  const double to_right = std::abs(std::log(p.mb_per_s / b.right));
  if (std::abs(to_left - to_right) < 2 * r_.noise_rel) return true;
  // Far outside both levels: read again.
  if (std::min(to_left, to_right) > FarOff(b)) return true;
  // Reads that disagree on its side (a hiccup in one of two reads would
  // pull their median, the mean, to the wrong side: a third read decides).
  const std::vector<double> reads = book_.Reads(k);
  return std::any_of(reads.begin(), reads.end(),
                     [&](double x) { return CloserLeft(x, b) != CloserLeft(reads[0], b); });
}

// The device's speed changed since the reference's read before: the moves
// made on the reads since then whose side the drift decides (the read on
// one side at the drift before the change, on the other at the drift after
// it) are undone, each with the moves after it (their probes are read again
// as the bisection comes back to them).
bool AdaptiveRun::UndoMoves(const Change& change, const Bracket& current) {
  bool undone = false;
  for (Bracket& x : open_) {
    const auto first = std::find_if(x.moves.begin(), x.moves.end(), [&](const Bracket::Move& m) {
      return m.seq > change.after_seq &&
             CloserLeft(m.raw / change.before, x) != CloserLeft(m.raw / change.after, x);
    });
    // (At most kMaxUndos times a bracket: a drift that changes with every
    // reference read must not keep it open for good.)
    if (first == x.moves.end() || x.undos >= kMaxUndos) continue;
    ++x.undos;
    x.lo = first->lo;
    x.hi = first->hi;
    x.moves.erase(first, x.moves.end());
    x.pending.reset();
    x.verify.clear();
    x.checks = 0;
    if (x.done) {
      x.done = false;
      --finished_;
    }
    undone = undone || &x == &current;
  }
  return undone;
}

void AdaptiveRun::Move(Bracket& b, std::uint64_t k, const AdaptiveProbe& p) {
  const bool left_side = CloserLeft(p.mb_per_s, b);
  b.moves.push_back({.seq = book_.Seq(), .lo = b.lo, .hi = b.hi, .raw = book_.LastRaw(k)});
  if (b.verify.empty() || k != b.verify.back()) {
    (left_side ? b.lo : b.hi) = k;
    return;
  }
  // Converged: the probe beside the edge read again. One that changed side
  // was a hiccup that sent the bisection the wrong way: the bracket reopens
  // from it to where it began on that side. A reopened bracket is verified
  // again once it converges (up to kMaxReopens times: a second stall must
  // not leave it misled).
  b.verify.pop_back();
  // (Not past where the bracket began: a probe there that changed side
  // leaves the edge to Settle.)
  const bool reopen =
      (k == b.lo && !left_side && b.lo0 < b.lo) || (k == b.hi && left_side && b.hi < b.hi0);
  if (!reopen) return;
  if (k == b.lo) {
    b.hi = b.lo;
    b.lo = b.lo0;
  } else {
    b.lo = b.hi;
    b.hi = b.hi0;
  }
  b.verify.clear();
  if (++b.reopens <= kMaxReopens) b.checks = 0;
}

void AdaptiveRun::Converged(Bracket& b) {
  if (b.checks >= kEdgeChecks) {
    b.done = true;
    ++finished_;
    return;
  }
  ++b.checks;
  // The probe on the slower level's side: a stall (the common hiccup: reads
  // are slowed far more often than sped up) makes a probe of the faster
  // level read as the slower one, and ends the bisection on it. (A burst
  // far off both levels is read again.)
  b.verify = {b.right < b.left ? b.hi : b.lo};
  // The probe on the faster level's side too where it reads off that level
  // by more than kSpikeSigmas of the noise: a burst (the reads that waited
  // behind a stall, served at once from the device's read-ahead) made a
  // probe of the slower level read about as the faster one.
  const std::uint64_t faster = b.right < b.left ? b.lo : b.hi;
  if (const AdaptiveProbe* f = book_.Find(faster);
      f != nullptr &&
      std::abs(std::log(f->mb_per_s / std::max(b.left, b.right))) > kSpikeSigmas * r_.noise_rel) {
    b.verify.push_back(faster);
  }
  // A grid probe the bisection never moved from, read once: a burst (or a
  // stall) there ends the search on it, every probe the bisection read
  // agreeing with the other side.
  for (const std::uint64_t side : {b.lo, b.hi}) {
    if ((side == b.lo_start || side == b.hi_start) &&
        std::find(b.verify.begin(), b.verify.end(), side) == b.verify.end() &&
        book_.Reads(side).size() == 1) {
      b.verify.push_back(side);
    }
  }
}

void AdaptiveRun::KeepRead(Bracket& b, std::uint64_t k, const AdaptiveProbe& p) {
  b.pending.reset();
  if (!b.verify.empty() && k == b.verify.back()) {
    // (Its verification as read before: the bracket stays converged.)
    b.verify.clear();
    b.checks = kEdgeChecks;
  } else {
    Move(b, k, p);
  }
  if (b.hi - b.lo <= 1 && b.verify.empty()) Converged(b);
}

// The brackets bisected in turns, one read per open bracket per round, so
// that two reads in a row are at different edges (far apart: no read-ahead
// between them); a marginal probe is read again in the next round. With
// one bracket left open, a read elsewhere (Divert) separates its probes.
void AdaptiveRun::Bisect() {
  while (finished_ < open_.size() && reader_.Going() && !r_.budget_hit) {
    for (Bracket& b : open_) {
      if (b.done || !reader_.Going()) continue;
      if (reader_.OverBudget()) {
        r_.budget_hit = true;
        break;
      }
      const std::uint64_t k = b.pending           ? *b.pending
                              : !b.verify.empty() ? b.verify.back()
                                                  : b.lo + (b.hi - b.lo) / 2;
      if (const AdaptiveProbe* known = book_.Find(k); known != nullptr && !reader_.MayReadAgain()) {
        KeepRead(b, k, *known);
        continue;
      }
      if (finished_ + 1 == open_.size()) reader_.Divert(k, slots_);
      const AdaptiveProbe* p = sampler_.ReadMore(k);
      const std::optional<Change> change = drift_.TakeChange();
      const bool undone = change && UndoMoves(*change, b);
      if (p == nullptr) {
        if (!b.done) {
          b.done = true;  // unreadable there: the edge keeps its width
          ++finished_;
        }
        continue;
      }
      reader_.Report(AdaptiveProgress::Phase::kRefine, finished_, open_.size());
      if (undone) continue;
      if (Unsettled(k, *p, b) && p->reads < std::max<std::uint32_t>(1, options_.max_reads) &&
          reader_.MayReadAgain()) {
        b.pending = k;
        continue;
      }
      b.pending.reset();
      Move(b, k, *p);
      if (b.hi - b.lo <= 1 && b.verify.empty()) Converged(b);
    }
  }
}

// Bisected, then each edge placed again where all its probes, each read
// divided by the drift the reference showed around it (known only now for
// the last ones), disagree least (Settle): an edge whose probes either side
// are no longer neighbours is bisected again between them (a bisection
// that followed reads of a slow period, or a burst), at most kSettlePasses
// times.
void AdaptiveRun::BisectAndSettle() {
  for (std::uint32_t pass = 0;; ++pass) {
    Bisect();
    sampler_.CloseReference();
    const double reframed = sampler_.Reframe();
    bool again = false;
    for (Bracket& b : open_) {
      b.left *= reframed;
      b.right *= reframed;
      std::uint64_t lo = b.lo, hi = b.hi;
      Settle(book_.ReadIn(b.lo0, b.hi0), b.left, b.right, FarOff(b), lo, hi);
      if (pass < kSettlePasses && hi > lo + 1 && b.done && reader_.Going() && !r_.budget_hit &&
          reader_.MayReadAgain()) {
        b.lo = lo;
        b.hi = hi;
        b.done = false;
        b.pending.reset();
        b.verify.clear();
        b.checks = 0;
        b.moves.clear();
        --finished_;
        again = true;
      }
    }
    if (!again) break;
  }
}

// Each bracket's edge, settled, midway between the probes either side
// (neighbouring slots, unless Settle moved it), within half their gap and
// a probe (the probe that straddles it joined the closer side); and every
// probe read.
void AdaptiveRun::Edges() {
  for (Bracket& b : open_) {
    Settle(book_.ReadIn(b.lo0, b.hi0), b.left, b.right, FarOff(b), b.lo, b.hi);
    if (b.hi <= b.lo) b.hi = b.lo + 1;
    AdaptiveEdge e;
    e.at_bytes = r_.start_bytes + (b.lo + 1 + (b.hi - b.lo - 1) / 2) * probe_;
    e.uncertainty_bytes = (b.hi - b.lo - 1) * probe_ / 2 + probe_;
    e.left_mb_per_s = b.left;
    e.right_mb_per_s = b.right;
    r_.edges.push_back(e);
  }
  std::sort(r_.edges.begin(), r_.edges.end(),
            [](const AdaptiveEdge& a, const AdaptiveEdge& b) { return a.at_bytes < b.at_bytes; });
  r_.probes = book_.Probes();
}

double AdaptiveRun::MedianIn(std::uint64_t from, std::uint64_t to, std::uint32_t& inside) const {
  std::vector<double> rates;
  for (const AdaptiveProbe& p : r_.probes) {
    if (p.offset_bytes >= from && p.offset_bytes + p.length_bytes <= to) {
      rates.push_back(p.mb_per_s);
    }
  }
  inside = static_cast<std::uint32_t>(rates.size());
  return rates.empty() ? 0.0 : MedianInPlace(rates);
}

// The zones between the edges: the median of the probes wholly inside. An
// edge whose two sides, once bisected, read within kSameLevelSigmas of the
// noise of each other, or with fewer than kMinZoneProbes probes on a side,
// was a grid probe read off its level, not a step: it is dropped (its
// zones merge), one at a time, the thinnest side first, then the closest
// levels.
void AdaptiveRun::Zones() {
  const std::uint64_t start = r_.start_bytes;
  while (!r_.edges.empty()) {
    std::size_t weakest = r_.edges.size();
    double weakest_log = kSameLevelSigmas * r_.noise_rel;
    for (std::size_t i = 0; i < r_.edges.size(); ++i) {
      const std::uint64_t from = i == 0 ? start : r_.edges[i - 1].at_bytes;
      const std::uint64_t to = i + 1 < r_.edges.size() ? r_.edges[i + 1].at_bytes : end_;
      std::uint32_t nl = 0, nr = 0;
      const double left = MedianIn(from, r_.edges[i].at_bytes, nl);
      const double right = MedianIn(r_.edges[i].at_bytes, to, nr);
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
    if (weakest == r_.edges.size()) break;
    r_.edges.erase(r_.edges.begin() + static_cast<std::ptrdiff_t>(weakest));
  }
  std::vector<std::uint64_t> bounds{start};
  for (const AdaptiveEdge& e : r_.edges) bounds.push_back(e.at_bytes);
  bounds.push_back(end_);
  for (std::size_t z = 0; z + 1 < bounds.size(); ++z) {
    AdaptiveZone zone;
    zone.start_bytes = bounds[z];
    zone.end_bytes = bounds[z + 1];
    zone.mb_per_s = MedianIn(zone.start_bytes, zone.end_bytes, zone.probes);
    if (zone.probes == 0) {
      // No probe inside: the level of the edge beside it (none: nothing read).
      zone.mb_per_s = z < r_.edges.size() ? r_.edges[z].left_mb_per_s
                      : r_.edges.empty()  ? 0
                                          : r_.edges.back().right_mb_per_s;
    }
    r_.zones.push_back(zone);
  }
}

}  // namespace zcav::adaptive
