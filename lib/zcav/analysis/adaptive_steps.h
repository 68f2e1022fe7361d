// Where an adaptive sampler's grid changes level (measure/adaptive.h): the
// zone detector's segmentation of the grid's probes, as steps to bisect.
// Pure.
#pragma once

#include <vector>

#include "zcav/analysis/zone_detector.h"
#include "zcav/measure/adaptive.h"

namespace zcav {

// The grid's probes (in position order) as a curve, segmented by
// DetectZones with `options`: a step between the last probe of each zone
// and the first of the next, at the two zones' medians. None for a flat
// curve (one zone) and for a smooth one (cav, pcav: a slope, no edges).
std::vector<AdaptiveStep> GridSteps(const std::vector<AdaptiveProbe>& grid,
                                    const ZoneOptions& options);

}  // namespace zcav
