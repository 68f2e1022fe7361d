// Zone detector, its words: the names of curve types and step origins, and
// the plain sentence that describes a curve's shape.
// In: an analysis with its type and summary figures (6.). Out: text only;
// no figure is computed here.
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "zcav/analysis/zones/stages.h"
#include "zcav/base/enum_names.h"
#include "zcav/base/text.h"

namespace zcav::zones {
namespace {

std::string FormatRate(double mb_per_s) {
  const double a = std::fabs(mb_per_s);
  return FormatFixed(mb_per_s, a < 10 ? 2 : (a < 1000 ? 1 : 0));
}

}  // namespace

void Describe(std::size_t n, const SmoothFit& smooth, ZoneAnalysis& out) {
  const std::vector<Zone>& zs = out.zones;
  const std::string count = std::to_string(zs.size()) + " zones";
  const std::string first = FormatRate(zs.front().mb_per_s);
  const std::string last = FormatRate(zs.back().mb_per_s);
  const std::string ratio = FormatFixed(out.outer_inner_ratio, 2) + ":1";
  switch (out.type) {
    case CurveType::kFlat:
    case CurveType::kClv:
      out.description =
          "flat at " + first + " MB/s" + (out.type == CurveType::kClv ? " (CLV)" : " (one level)");
      break;
    case CurveType::kZoned:
      out.description =
          count +
          (out.alternating ? " alternating between levels (per-head zoning), overall" : "") +
          " falling from " + first + " to " + last + " MB/s (" + ratio + ")";
      break;
    case CurveType::kClipped:
      out.description =
          "clipped: flat ceiling at " + first + " MB/s over the first " +
          FormatFixed(100.0 * static_cast<double>(zs[0].end_block) / static_cast<double>(n), 0) +
          " %, then " + std::to_string(zs.size() - 1) + " zones falling to " + last +
          " MB/s (something slower than the disk caps its outer zones)";
      break;
    case CurveType::kCav:
      out.description = "CAV: rising smoothly from " + FormatRate(out.fit_start_mb_per_s) + " to " +
                        FormatRate(out.fit_end_mb_per_s) +
                        " MB/s (rate squared linear in position, R^2 " +
                        FormatFixed(out.fit_r2, 3) + ")";
      break;
    case CurveType::kPcav:
      out.description =
          "P-CAV: rising from " + FormatRate(out.fit_start_mb_per_s) + " to " +
          FormatRate(out.fit_end_mb_per_s) + " MB/s over the first " +
          FormatFixed(100.0 * static_cast<double>(smooth.knee) / static_cast<double>(n), 0) +
          " %, then flat";
      break;
    case CurveType::kZclv:
      out.description = count + " rising from " + first + " to " + last + " MB/s (zoned CLV)";
      break;
    case CurveType::kTiered:
      out.description =
          "tiered: " + first + " MB/s over the first " +
          FormatFixed(100.0 * static_cast<double>(zs[0].end_block) / static_cast<double>(n), 0) +
          " %, then " + last + " MB/s (a fast region, e.g. a cache, then the device's own rate)";
      break;
    case CurveType::kFlatDips:
      out.description = "flat at " + FormatRate(zs[out.fastest_zone].mb_per_s) + " MB/s with " +
                        std::to_string(out.texture.dip_count) + " short dips";
      break;
    case CurveType::kOther:
      out.description = count + (out.alternating ? " alternating between levels" : "") + " from " +
                        first + " to " + last + " MB/s, neither steadily falling nor rising";
      break;
  }
}

std::string DescribeResolution(std::size_t k) {
  return " (timed over groups of " + std::to_string(k) +
         " blocks: one block's time is not meaningful on its own here)";
}

std::string DescribeBands(double amplitude_rel, std::size_t period) {
  return ", under bands alternating by " + FormatFixed(100 * amplitude_rel, 1) + " % every " +
         std::to_string(period / 2) + " blocks or so";
}

}  // namespace zcav::zones

namespace zcav {

const char* CurveTypeName(CurveType type) {
  static constexpr EnumName<CurveType> kNames[] = {
      {CurveType::kZoned, "zoned"},     {CurveType::kFlat, "flat"},
      {CurveType::kClipped, "clipped"}, {CurveType::kCav, "cav"},
      {CurveType::kPcav, "pcav"},       {CurveType::kZclv, "zclv"},
      {CurveType::kClv, "clv"},         {CurveType::kOther, "other"},
      {CurveType::kTiered, "tiered"},   {CurveType::kFlatDips, "flat-dips"},
  };
  return NameOf(type, kNames, "other");
}

const char* StepOriginName(StepOrigin origin) {
  static constexpr EnumName<StepOrigin> kNames[] = {
      {StepOrigin::kUnknown, "unknown"},
      {StepOrigin::kPosition, "position"},
      {StepOrigin::kTime, "time"},
  };
  return NameOf(origin, kNames, "unknown");
}

}  // namespace zcav
