// Zone detector, steps 4. and 4c.: merging of adjacent segments too alike
// to be zones, and of the excursions the curve comes back from.
// In: the segment ends of 3. and their prefix sums. Out: the ends that
// survive (4.), and without the excursions' edges (4c.).
//
//  4. Merging. Steps fit a slow droop inside a zone (up to 1 %) or a smooth
//     curve by several small steps. Adjacent segments are merged, smallest
//     relative difference first, recomputing the merged segment's statistics
//     each time (a 1 % droop cut into 17 pieces becomes one zone), until no
//     pair qualifies. A pair merges when its means differ
//       a. by less than 0.5 %: half the smallest zone step the issue names
//          (1 %); the 0.74 % step of the Quantum Atlas III survives. A
//          segment too short for the line fit of d. (under 5 blocks) is
//          measured by its median here: one slow block among three moves a
//          mean, not a level (a FUSE file's 120, 118, 119.7 MB/s after a
//          zone at 120.0 is that zone);
//       b. (removed: under 3 standard errors; it changed no zone table of
//          any corpus, docs/zone-detector.md)
//       c. or by less than 1.5 % and less than sqrt(beta) + 2 standard
//          errors: a small step must clear the penalty with a margin, because
//          the segmentation picks the strongest-looking split of a drooping
//          zone, whose z is inflated by that choice (about 2 standard errors
//          for the few dozen independent positions a zone offers);
//       d. or by less than 1.5 % and the two segments' least-squares lines
//          meet at the boundary, within 0.5 % or within 3 times the end-point
//          error of two line fits (2 sigma sqrt(1/La + 1/Lb)): a droop cut in
//          two has no jump between its pieces, a step of >= 1 % does, even
//          between drooping zones. (With many blocks and little noise the
//          pieces of a droop are significant steps for a. to c., and only
//          this test sees that the curve is continuous.)
//       e. or, on a device known not to rotate, by less than the jitter a
//          person sees (3 robust sigmas around the local level, >= 5 %) and
//          by less than twice c.'s evidence: no platter makes small steps
//          there ("would it survive twice the noise?").
//     The sensitivity multiplies the relative thresholds (0.5 %, 1.5 %) and,
//     by its square root, the standard-error one (d.); c. gets it
//     through beta.
// 4c. After 1b., an excursion left (a segment of at most 5 % of the curve, at most half
//     as long as either neighbour, whose neighbours agree: a host's hiccup) is merged with its
//     neighbours: a zone is a level the curve stays at, not one it comes back from.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <queue>
#include <vector>

#include "zcav/analysis/zones/stages.h"

namespace zcav::zones {
namespace {

struct Segment {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t prev = 0;  // index in the segment list; kNone at the ends
  std::size_t next = 0;
  unsigned version = 0;
  bool alive = true;
};

// Relative difference of the means of two adjacent segments, or a negative
// value when they should not merge (see 4. above).
double MergeScore(const MergeContext& ctx, const Segment& a, const Segment& b) {
  const double na = static_cast<double>(a.end - a.begin);
  const double nb = static_cast<double>(b.end - b.begin);
  const double ma = ctx.sums.Mean(a.begin, a.end);
  const double mb = ctx.sums.Mean(b.begin, b.end);
  // Log units: a difference is a relative difference.
  const double rel = std::fabs(ma - mb) * ctx.sigma;
  const double se_factor = std::sqrt(1 / na + 1 / nb);
  const double z = std::fabs(ma - mb) / se_factor;                    // standard errors
  if (rel < kZoneTuning.merge_rel_low * ctx.sensitivity) return rel;  // a.
  if (StageRuns(Stage::kMergeShortMedian) &&
      std::min(na, nb) < kZoneTuning.min_line_fit_blocks) {  // a., short
    const double level_a =
        na < kZoneTuning.min_line_fit_blocks ? ctx.sums.Median(a.begin, a.end) : ma;
    const double level_b =
        nb < kZoneTuning.min_line_fit_blocks ? ctx.sums.Median(b.begin, b.end) : mb;
    const double robust_rel = std::fabs(level_a - level_b) * ctx.sigma;
    if (robust_rel < kZoneTuning.merge_rel_low * ctx.sensitivity) return robust_rel;
  }
  if (StageRuns(Stage::kMergeVisible) && rel < ctx.visible_rel * ctx.sensitivity &&
      z < 2 * (std::sqrt(ctx.beta) + kZoneTuning.small_step_margin)) {  // e.
    return rel;
  }
  if (rel >= kZoneTuning.merge_rel_high * ctx.sensitivity) return -1;
  if (StageRuns(Stage::kMergeMargin) && z < std::sqrt(ctx.beta) + kZoneTuning.small_step_margin)
    return rel;  // c.
  if (StageRuns(Stage::kMergeLines) && na >= kZoneTuning.min_line_fit_blocks &&
      nb >= kZoneTuning.min_line_fit_blocks) {  // d.
    const double end_a = ctx.sums.LineAt(a.begin, a.end, na - 0.5);
    const double start_b = ctx.sums.LineAt(b.begin, b.end, -0.5);
    const double jump = std::fabs(start_b - end_a);  // sigma units
    const double jump_noise = 2 * se_factor;         // end-point error of two lines
    if (jump < std::max(kZoneTuning.merge_rel_low * ctx.sensitivity / ctx.sigma,
                        kZoneTuning.jump_noises * std::sqrt(ctx.sensitivity) * jump_noise)) {
      return rel;
    }
  }
  return -1;
}

// The segment ends inside "hiccups" (see 4c. above): two neighbouring
// segments, each at most 5 % of the curve and together at most half as long
// as either of their outer neighbours, one below and one above the level the
// outer neighbours share (within max(1.5 %, 30 % of the larger excursion)).
// Returns the three cuts of each (its start, middle and end) for removal.
std::vector<std::size_t> HiccupCuts(const PrefixSums& sums, double unit,
                                    const std::vector<std::size_t>& ends, std::size_t n) {
  std::vector<std::size_t> cuts;
  const std::size_t max_len = std::max<std::size_t>(
      1, static_cast<std::size_t>(kZoneTuning.max_excursion_fraction * static_cast<double>(n)));
  for (std::size_t k = 1; k + 2 < ends.size(); ++k) {
    const std::size_t b0 = k >= 2 ? ends[k - 2] : 0, b = ends[k - 1], m = ends[k], e = ends[k + 1],
                      e1 = ends[k + 2];
    if (m - b > max_len || e - m > max_len || 2 * (e - b) > b - b0 || 2 * (e - b) > e1 - e)
      continue;
    const double left = sums.Mean(b0, b) * unit, right = sums.Mean(e, e1) * unit;
    const double first = sums.Mean(b, m) * unit, second = sums.Mean(m, e) * unit;
    const double level = (left + right) / 2;
    if (!((first - level) * (second - level) < 0)) continue;  // one below, one above
    const double size = std::max(std::fabs(first - level), std::fabs(second - level));
    if (std::fabs(left - right) >
        std::max(kZoneTuning.merge_rel_high, kZoneTuning.excursion_level_match * size))
      continue;
    cuts.insert(cuts.end(), {b, m, e});
    ++k;  // the next pair starts after this one
  }
  return cuts;
}

}  // namespace

std::vector<std::size_t> MergeSegments(const MergeContext& ctx,
                                       const std::vector<std::size_t>& ends) {
  std::vector<Segment> segs(ends.size());
  for (std::size_t k = 0; k < ends.size(); ++k) {
    segs[k].begin = k == 0 ? 0 : ends[k - 1];
    segs[k].end = ends[k];
    segs[k].prev = k == 0 ? kNone : k - 1;
    segs[k].next = k + 1 == ends.size() ? kNone : k + 1;
  }
  struct Candidate {
    double score;
    std::size_t left;
    unsigned left_version;
    std::size_t right;
    unsigned right_version;
    bool operator>(const Candidate& o) const {
      return score != o.score ? score > o.score : left > o.left;
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> heap;
  auto consider = [&](std::size_t left) {
    if (left == kNone || segs[left].next == kNone) return;
    const std::size_t right = segs[left].next;
    const double score = MergeScore(ctx, segs[left], segs[right]);
    if (score >= 0) heap.push({score, left, segs[left].version, right, segs[right].version});
  };
  for (std::size_t k = 0; k + 1 < segs.size(); ++k) consider(k);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    Segment& a = segs[c.left];
    Segment& b = segs[c.right];
    if (!a.alive || !b.alive || a.version != c.left_version || b.version != c.right_version ||
        a.next != c.right) {
      continue;
    }
    a.end = b.end;
    a.next = b.next;
    if (b.next != kNone) segs[b.next].prev = c.left;
    b.alive = false;
    ++a.version;
    consider(a.prev);
    consider(c.left);
  }
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k != kNone; k = segs[k].next) out.push_back(segs[k].end);
  return out;
}

// 4c. What is left of short excursions the curve comes back from (a host's
// hiccup of a few blocks, too shallow for texture) is no zone either: the
// segments either side and the excursion become one.
void ZoneFinder::MergeExcursions() {
  std::vector<std::size_t>& ends = ends_;
  const std::vector<Excursion> left_over = StageRuns(Stage::kExcursionMerge)
                                               ? FindExcursions(sums_, seg_sigma_, ends, n_)
                                               : std::vector<Excursion>{};
  for (const Excursion& x : left_over) {
    ends.erase(std::remove_if(ends.begin(), ends.end(),
                              [&x](std::size_t e) { return e == x.begin || e == x.end; }),
               ends.end());
  }
  // The same for a hiccup and its payback: two short segments, one below and
  // one above the level their longer neighbours share.
  if (!StageRuns(Stage::kHiccupCuts)) return;
  for (const std::size_t cut : HiccupCuts(sums_, seg_sigma_, ends, n_)) {
    ends.erase(std::remove(ends.begin(), ends.end(), cut), ends.end());
  }
}

}  // namespace zcav::zones
