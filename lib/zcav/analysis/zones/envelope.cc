// Zone detector, alternating bands (5.): a curve whose zones alternate
// between two levels (multi-head or serpentine layouts) is described by the
// envelope a person sees, the bands becoming texture.
// In: a finished analysis (steps 1 to 6) of an alternating curve. Out: the
// analysis of the envelope, the bands' amplitude and period as texture.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "zcav/analysis/zones/stages.h"
#include "zcav/base/stats.h"

namespace zcav::zones {
// Alternating bands (see 5.): the zones a person sees are the envelope's.
// The bands' amplitude (median relative step between neighbours) and period
// (median length of a neighbouring pair, in points) become texture, and the
// zones are found again on groups of one period each (a fast and a slow
// band, whatever the phase), mapped back to the curve's points.
void ZonesOfEnvelope(const Curve& curve, const ZoneOptions& options, bool optical,
                     ZoneAnalysis& out) {
  const std::vector<Zone>& zs = out.zones;
  if (!out.alternating || zs.size() < kZoneTuning.alternating_min_zones) return;
  std::vector<double> steps, pairs;
  for (std::size_t k = 0; k + 1 < zs.size(); ++k) {
    const double hi = std::max(zs[k].mb_per_s, zs[k + 1].mb_per_s);
    if (hi > 0) steps.push_back(std::fabs(zs[k].mb_per_s - zs[k + 1].mb_per_s) / hi);
    pairs.push_back(static_cast<double>(zs[k + 1].end_block - zs[k].first_block));
  }
  const std::size_t period = static_cast<std::size_t>(std::lround(MedianInPlace(pairs)));
  if (period < 2 || curve.size() / period < kZoneTuning.min_envelope_points) return;
  ZoneAnalysis envelope = DetectPoints(GroupPoints(curve, period), options, optical);
  if (envelope.alternating) return;
  const std::size_t n = curve.size();
  for (Zone& z : envelope.zones) {
    z.first_block = std::min(n, z.first_block * period);
    z.end_block = std::min(n, z.end_block * period);
  }
  envelope.outliers = std::move(out.outliers);
  envelope.dip_blocks = std::move(out.dip_blocks);
  envelope.burst_blocks = std::move(out.burst_blocks);
  envelope.texture.banded = true;
  envelope.texture.band_amplitude_rel = steps.empty() ? 0 : MedianInPlace(steps);
  envelope.texture.band_period_blocks = static_cast<double>(period);
  envelope.description += DescribeBands(envelope.texture.band_amplitude_rel, period);
  out = std::move(envelope);
}

}  // namespace zcav::zones
