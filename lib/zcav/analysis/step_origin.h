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
// decides from `passes` (one curve per pass, in pass order, over the blocks of
// the median curve `analysis` came from; a block absent or of rate 0 or NaN is
// ignored) whether it follows the position (kPosition), the elapsed time
// (kTime) or cannot tell (kUnknown): one Step per step (Step::zone = k), with
// each pass's offset of its step or -1. Never throws except std::bad_alloc.
// Specification: docs/step-origin.md#step-origin
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
