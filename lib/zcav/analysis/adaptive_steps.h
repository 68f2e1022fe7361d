// Adaptive sampling's analysis (measure/adaptive.h): where the grid changes
// level (the zone detector's segmentation of the grid's probes, as steps to
// bisect), and the curve the zone detector reads for an adaptive result.
// Pure.
#pragma once

#include <cstdint>
#include <vector>

#include "zcav/analysis/zone_detector.h"
#include "zcav/measure/adaptive.h"

namespace zcav {

// The grid's probes (in position order) as a curve, segmented by
// DetectZones with `options`: a step between the last probe of each zone
// and the first of the next, at the two zones' medians. None for a flat
// curve (one zone) and for a smooth one (cav, pcav: a slope, no edges).
// `optical`: as DetectZones's.
std::vector<AdaptiveStep> GridSteps(const std::vector<AdaptiveProbe>& grid,
                                    const ZoneOptions& options, bool optical = false);

// The probes of an adaptive result (position order, as read) as the curve
// the zone detector reads: probes closer than half a grid gap (of
// `grid_probes` over the range) to the one before, with no edge between
// them, made one point (their median rate: a bisection's cluster must not
// weigh as much as a zone, the detector weighs points), then each point
// stretched over its share of the range [start_bytes, end_bytes): to the
// edge between it and its neighbour where one of `edges` lies between
// them, else to the midpoint. The zones' bytes,
// edges and shares are then the surface's, while every rate is a probe's
// own: nothing between the probes is presented as measured (the result's
// probes stay the data; this curve is for the analysis). Empty for no
// probes. REQUIRES: probes sorted by offset, inside the range.
Curve AdaptiveCurve(const Curve& probes, const std::vector<AdaptiveEdge>& edges,
                    std::uint64_t start_bytes, std::uint64_t end_bytes, std::uint32_t grid_probes);

// The zones of an adaptive result: DetectZones over `curve` (AdaptiveCurve's
// over the result's probes) for the curve's type, outliers, texture and a
// smooth fit, with the zones cut at the sampler's `edges` and nowhere else
// (ZonesAt): one segmentation, the bisected edges', not a second one over
// the probes. A smooth curve (cav, pcav) keeps the detector's fit. `options`
// and `optical` as DetectZones's.
ZoneAnalysis AdaptiveZones(const Curve& curve, const std::vector<AdaptiveEdge>& edges,
                           const ZoneOptions& options, bool optical = false);

}  // namespace zcav
