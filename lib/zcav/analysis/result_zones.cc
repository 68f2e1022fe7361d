// The zones and device facts of a saved result: see result_zones.h.
#include "zcav/analysis/result_zones.h"

#include "zcav/analysis/adaptive_steps.h"

namespace zcav {

DeviceInfo RecordedDevice(const SavedResult& profile) {
  DeviceInfo info;
  info.path = profile.device_path;
  info.size_bytes = profile.device_bytes;
  info.transport = profile.transport;
  info.rotational = profile.rotational;
  info.storage_transport = profile.storage_transport;
  info.storage_rotational = profile.storage_rotational;
  return info;
}

Curve ZoneCurve(const SavedResult& profile) {
  if (!profile.adaptive) return profile.points;
  const AdaptiveResult& a = *profile.adaptive;
  return AdaptiveCurve(profile.points, a.edges, a.start_bytes, a.start_bytes + a.range_bytes,
                       a.grid_probes);
}

ZoneAnalysis ResultZones(const SavedResult& profile, const ZoneOptions& options, bool optical) {
  if (!profile.adaptive) return DetectZones(profile.points, options, optical);
  return AdaptiveZones(ZoneCurve(profile), profile.adaptive->edges, options, optical);
}

}  // namespace zcav
