// Step origin: is a step between two zones a property of the position (a
// media zone: at the same place in every pass) or of the elapsed time (a
// cache running out, a host hiccup, thermal throttling: it moves between
// passes or is missing from some)? Answered from the curves of the
// individual passes of a sweep.
//
// ClassifySteps and ApplyStepOrigins are pure functions over values; the
// per-pass curves come from pipeline/pass_curves.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "zcav/analysis/zone_detector.h"

namespace zcav {

// Blocks either side of a candidate edge whose median is a level.
inline constexpr std::size_t kStepWindowBlocks = 32;
// The least tolerance for a step's position in a pass, in blocks.
inline constexpr std::size_t kStepToleranceBlocks = 3;

// For each step of `analysis` (between zones k-1 and k, k >= 1, in order),
// decides its origin from `passes`, one curve per pass in pass order, each in
// position order over the blocks of the (median) curve `analysis` came from.
// A block a pass did not read may be absent from its curve or have a rate of
// 0 (or NaN); it is ignored.
//
// In each pass the step is looked for around the median curve's edge
// (zones[k].start_bytes), from the middle of zone k-1 to the middle of zone
// k and at most tolerance + 4 x kStepWindowBlocks blocks away: the pass's
// level on either side of each candidate edge is the median of up to
// kStepWindowBlocks blocks within the two zones (robust to outliers and
// single noisy blocks); the pass's step is where that change is largest in
// the step's direction, placed by least absolute deviations. The pass shows
// the step when it changes in the same direction by roughly the same amount
// (between half and twice the median curve's log change, or within the
// pass's noise), standing out of its noise (3 standard errors), and its edge lies within the
// tolerance of the median's: max(kStepToleranceBlocks, 1 % of the curve's blocks). A pass
// too noisy to show the median's change there (under 3 standard errors) does not vote.
//
// Result: one Step per step of `analysis` (Step::zone = k), with
//   kPosition  the passes (at least 2) show the step there, all of them or
//              all but at most a third (one odd pass among 3 to 5 is that
//              pass's hiccup);
//   kTime      more than a third of the passes (of two, either) have no such
//              step, or have it elsewhere;
//   kUnknown   fewer than 2 passes have data on both sides of the step.
// pass_offsets_bytes holds, per pass, the offset of the first block after
// the pass's edge when it changes the same way by roughly the same amount
// somewhere in the searched range (even outside the tolerance), else -1; it
// is empty when passes.size() < 2. A pass without blocks on both sides of
// the step does not vote (its offset is -1).
// Time O(steps x passes x (tolerance + window) x window); never throws except
// std::bad_alloc.
std::vector<Step> ClassifySteps(const ZoneAnalysis& analysis, const std::vector<Curve>& passes);

// Stores `steps` (from ClassifySteps over the same analysis) in
// analysis.steps and merges away every zone whose step is kTime with
// MergeZonesAt over `median` (which recomputes the zone figures, the curve
// type and the description). The steps of kind kTime are kept in
// analysis.steps afterwards, as the record that a time-dependent change was
// seen: their `zone` is then the zone the step now lies inside (the merged
// one). REQUIRES: `analysis` came from DetectZones over `median`, and
// `steps` from ClassifySteps(analysis, ...) before any merge.
void ApplyStepOrigins(const Curve& median, std::vector<Step> steps, ZoneAnalysis& analysis);

// Whether `analysis` records a step that followed the elapsed time (one of
// analysis.steps has origin kTime).
bool HasTimeSteps(const ZoneAnalysis& analysis);

}  // namespace zcav
