// The zones and device facts of a saved result (result/saved_result.h).
#pragma once

#include "zcav/analysis/zone_detector.h"
#include "zcav/device/device_info.h"
#include "zcav/result/saved_result.h"

namespace zcav {

// The curve the zone detector reads for `profile`: its points, or for an
// adaptive result its probes stretched to the edges (AdaptiveCurve): what
// `zcav zones`, the plots, the report and merge analyse.
Curve ZoneCurve(const SavedResult& profile);
// The zones of `profile`: DetectZones over its points, or for an adaptive
// result AdaptiveZones over ZoneCurve (the sampler's edges, one
// segmentation). `options` and `optical` as DetectZones's.
ZoneAnalysis ResultZones(const SavedResult& profile, const ZoneOptions& options, bool optical);

// The device facts a profile recorded, as a DeviceInfo (path, size,
// transport, rotational flags; the rest default): for KnownNotToRotate.
DeviceInfo RecordedDevice(const SavedResult& profile);

}  // namespace zcav
