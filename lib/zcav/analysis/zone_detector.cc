// Zone detection: a robust noise scale, a Hampel outlier filter, exact
// penalised segmentation (the optimum PELT finds, computed by FPOP), merging
// of steps too small to be zones, and curve classification.
//
// Everything runs on log rates: noise on a throughput curve is roughly
// proportional to the rate (timing jitter), and a zone step is a relative
// step, so in log units the noise is the same across a 2:1 curve and every
// threshold below is a plain relative one (0.005 = 0.5 %).
//
// The steps, one file each in zones/ (what they share: zones/stages.h); each
// file opens with its step's method, references and the reasons for its
// thresholds:
//  1.  Noise scale of the log rates, and 1b. correlated noise: noise.cc
//  2.  Outliers (Hampel filter) and blocks read across a zone edge: outliers.cc
//  2b. Dips and bursts set aside as texture: texture.cc
//  3.  Segmentation (penalised, exact, by FPOP): segmentation.cc
//  4.  Merging of steps too small to be zones (and 4c., excursions): merging.cc
//  5.  Classification (steps, smooth cav/pcav fits, clipped, tiered):
//      classification.cc; alternating bands: envelope.cc
//  6.  Summary (zone statistics, shares of the peak): summary.cc; the
//      description: description.cc
//  7.  Long curves (over kMaxDetailPoints), on bucket medians: long_curves.cc
// Per-block rates that scatter like timing noise are first grouped
// (ZoneAnalysis::resolution_blocks): resolution.cc.
//
// ZoneFinder::Run below runs steps 1 to 5 on one curve in their order (1b.
// after 3. and 4., on the white-noise segmentation); DetectZones picks the
// resolution, runs them and step 6 (the long way over kMaxDetailPoints), and
// redoes them on the envelope of alternating bands.
#include "zcav/analysis/zone_detector.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "zcav/analysis/zones/stages.h"

namespace zcav {
namespace zones {

Found ZoneFinder::Run() && {
  TakeLogsAndNoise();
  SetAsideShortRuns();
  MarkOutliers();
  SegmentAndMerge();
  AllowForCorrelatedNoise();
  MergeExcursions();
  SummariseTexture();
  MakeZones();
  Classify();
  const bool smooth_type = out().type == CurveType::kCav || out().type == CurveType::kPcav;
  if (smooth_type) FitSmoothZones();
  out().zones = std::move(zones_);
  if (!smooth_type) MeasureJitter();
  return std::move(found_);
}

Found FindZones(const Curve& curve, const ZoneOptions& options, bool optical) {
  return ZoneFinder(curve, options, optical).Run();
}

ZoneAnalysis DetectPoints(const Curve& curve, const ZoneOptions& options, bool optical) {
  if (curve.size() > kMaxDetailPoints) return DetectZonesReduced(curve, options, optical);
  Found found = FindZones(curve, options, optical);
  Summarise(curve, found.smooth, found.out);
  return std::move(found.out);
}

}  // namespace zones

ZoneAnalysis DetectZones(const Curve& curve, const ZoneOptions& options, bool optical) {
  if (curve.empty()) {
    ZoneAnalysis out;
    out.description = "no data";
    return out;
  }
  const std::size_t k =
      curve.size() <= kMaxDetailPoints && zones::StageRuns(zones::Stage::kResolution)
          ? zones::Resolution(curve, options)
          : 1;
  if (k > 1) {
    // Zones on the groups; block indices back on the curve's blocks.
    ZoneAnalysis out = zones::DetectPoints(zones::GroupPoints(curve, k), options, optical);
    const std::size_t n = curve.size();
    for (Zone& z : out.zones) {
      z.first_block = std::min(n, z.first_block * k);
      z.end_block = std::min(n, z.end_block * k);
    }
    for (Outlier& o : out.outliers) o.block = std::min(n - 1, o.block * k);
    for (auto* list : {&out.dip_blocks, &out.burst_blocks}) {
      std::vector<std::uint64_t> blocks;
      for (const std::uint64_t g : *list) {
        for (std::uint64_t i = g * k; i < std::min<std::uint64_t>(n, (g + 1) * k); ++i)
          blocks.push_back(i);
      }
      *list = std::move(blocks);
    }
    out.min_zone_blocks *= k;
    out.resolution_blocks = k;
    out.description += zones::DescribeResolution(k);
    out.non_rotational = options.non_rotational;
    return out;
  }
  ZoneAnalysis out = zones::DetectPoints(curve, options, optical);
  if (zones::StageRuns(zones::Stage::kEnvelope))
    zones::ZonesOfEnvelope(curve, options, optical, out);
  out.non_rotational = options.non_rotational;
  return out;
}

namespace {

// The points an analysis left out of its zone statistics (outliers, dip
// blocks), marked as outliers; the rest normal.
std::vector<zones::Mark> LeftOutMarks(const Curve& curve, const ZoneAnalysis& analysis) {
  std::vector<zones::Mark> marks(curve.size(), zones::Mark::kNormal);
  for (const Outlier& o : analysis.outliers) {
    if (o.block < marks.size()) marks[o.block] = zones::Mark::kOutlier;
  }
  for (const std::uint64_t b : analysis.dip_blocks) {
    if (b < marks.size()) marks[b] = zones::Mark::kOutlier;
  }
  return marks;
}

}  // namespace

void MergeZonesAt(const Curve& curve, const std::vector<std::size_t>& steps,
                  ZoneAnalysis& analysis) {
  std::vector<Zone>& zs = analysis.zones;
  if (zs.size() < 2 || steps.empty() || curve.empty()) return;
  std::vector<bool> drop(zs.size(), false);
  for (const std::size_t k : steps) {
    if (k >= 1 && k < zs.size()) drop[k] = true;
  }
  const std::vector<zones::Mark> marks = LeftOutMarks(curve, analysis);
  std::vector<Zone> merged;
  std::vector<Step> kept_steps;
  std::vector<double> scratch;
  for (std::size_t k = 0; k < zs.size(); ++k) {
    for (const Step& st : analysis.steps) {
      if (k == 0 || st.zone != k || (drop[k] && st.origin != StepOrigin::kTime)) continue;
      kept_steps.push_back(st);
      // A merged step lies inside the zone before it; a kept one starts the next.
      kept_steps.back().zone = drop[k] ? merged.size() - 1 : merged.size();
      if (kept_steps.back().offset_bytes == 0) kept_steps.back().offset_bytes = zs[k].start_bytes;
    }
    if (k > 0 && drop[k]) {
      merged.back().end_block = zs[k].end_block;
      continue;
    }
    merged.push_back(zs[k]);
  }
  for (Zone& z : merged) z = zones::MakeZone(curve, marks, z.first_block, z.end_block, scratch);
  zs = std::move(merged);
  analysis.steps = std::move(kept_steps);
  const bool smooth_type = analysis.type == CurveType::kCav || analysis.type == CurveType::kPcav;
  if (!smooth_type && zs.size() == 1 && analysis.type != CurveType::kClv) {
    analysis.type = analysis.texture.dip_count > 0 ? CurveType::kFlatDips : CurveType::kFlat;
  }
  if (!smooth_type) zones::Summarise(curve, zones::SmoothFit{}, analysis);
}

void ZonesAt(const Curve& curve, const std::vector<std::size_t>& starts, bool optical,
             ZoneAnalysis& analysis) {
  if (curve.empty() || analysis.zones.empty() || analysis.type == CurveType::kCav ||
      analysis.type == CurveType::kPcav) {
    return;
  }
  const std::size_t n = curve.size();
  std::vector<std::size_t> cuts{0};
  for (const std::size_t k : starts) {
    if (k > cuts.back() && k < n) cuts.push_back(k);
  }
  cuts.push_back(n);
  const std::vector<zones::Mark> marks = LeftOutMarks(curve, analysis);
  std::vector<double> scratch;
  analysis.zones.clear();
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    analysis.zones.push_back(zones::MakeZone(curve, marks, cuts[k], cuts[k + 1], scratch));
  }
  analysis.steps.clear();
  const zones::StepType t = zones::TypeOfSteps(analysis.zones, n, optical, analysis.non_rotational,
                                               analysis.texture.dip_count > 0);
  analysis.alternating = t.alternating;
  analysis.type = t.type;
  zones::Summarise(curve, zones::SmoothFit{}, analysis);
}

ZoneAnalysis DetectZones(std::span<const CurvePoint> curve, const ZoneOptions& options,
                         bool optical) {
  return DetectZones(Curve(curve), options, optical);
}

}  // namespace zcav
