// Plots, inside: the access-time plots (PlotKind::kAccess, a scatter of
// access time against position, and kHistogram): their data file and the
// histogram's bar width. The frame they share with the other plots of
// several inputs is FillMulti (comparison.cc).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/report/plot/plot_internal.h"

namespace zcav::plot_detail {

std::string AccessData(const PlotInput& input) {
  std::uint64_t end = CurveEnd(input.profile.points);
  for (const AccessSample& a : input.access) end = std::max(end, a.offset_bytes + 1);
  const std::uint64_t device = DeviceBytes(input.profile, end);
  std::string s = "# zcav plot data: access times of " + GpComment(input.label) + "\n";
  s += "# Units: GB = 10^9 B, ms = milliseconds; one line per timed read.\n";
  s += "# device size: " + std::to_string(device) + " bytes (" + FormatFixed(Gb(device), 3) +
       " GB)\n";
  s += "# position_gb position_pct access_ms\n";
  for (const AccessSample& a : input.access) {
    const auto at = static_cast<double>(a.offset_bytes);
    s += FormatFixed(at / kGB, 6) + ' ' + FormatFixed(Percent(at, device), 4) + ' ' +
         FormatFixed(a.ms, 3) + '\n';
  }
  return s;
}

double HistogramBinMs(const std::vector<PlotInput>& inputs) {
  double top = 0;
  for (const PlotInput& in : inputs) {
    for (const AccessSample& a : in.access) top = std::max(top, a.ms);
  }
  if (top <= 0) return 1;
  const double raw = top / 40;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double step : {1.0, 2.0, 5.0}) {
    if (step * decade >= raw) return step * decade;
  }
  return 10 * decade;
}

}  // namespace zcav::plot_detail
