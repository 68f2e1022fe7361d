#include "zcav/analysis/fleet.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "zcav/base/stats.h"
#include "zcav/base/text.h"

namespace zcav {
namespace {

constexpr double kNoData = std::numeric_limits<double>::quiet_NaN();

// The q-quantile (0..1) of `values` by linear interpolation; sorts them.
// REQUIRES: !values.empty().
double Quantile(std::vector<double>& values, double q) {
  std::sort(values.begin(), values.end());
  const double at = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (at - static_cast<double>(lo));
}

std::optional<double> MedianOf(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  return MedianInPlace(values);
}

std::string Percent(double share) { return FormatFixed(share * 100, 0) + " %"; }

// The group's reference curves and the medians of its other figures.
void BuildReference(const std::vector<FleetDrive>& drives, FleetGroup& g) {
  g.has_reference = g.drives.size() >= kFleetMinDrives;
  std::vector<double> values;
  for (std::size_t b = 0; b < kFleetBins; ++b) {
    values.clear();
    for (const std::size_t d : g.drives) {
      if (!std::isnan(drives[d].bins[b])) values.push_back(drives[d].bins[b]);
    }
    if (values.empty()) {
      g.median[b] = g.p10[b] = g.p90[b] = kNoData;
      continue;
    }
    g.p10[b] = Quantile(values, 0.1);
    g.p90[b] = Quantile(values, 0.9);
    g.median[b] = Quantile(values, 0.5);
  }
  std::vector<double> access, burst, slow;
  for (const std::size_t d : g.drives) {
    if (drives[d].access_mean_ms) access.push_back(*drives[d].access_mean_ms);
    if (drives[d].burst_mb_per_s) burst.push_back(*drives[d].burst_mb_per_s);
    slow.push_back(static_cast<double>(drives[d].slow_regions));
  }
  g.access_median_ms = MedianOf(access);
  g.burst_median_mb_per_s = MedianOf(burst);
  g.slow_regions_median = MedianOf(slow).value_or(0);
}

// Per bin, the robust spread of the group's drives around the median, as a
// share of it (1.4826 x the median absolute deviation of the ratios).
FleetCurve RelativeSpread(const std::vector<FleetDrive>& drives, const FleetGroup& g) {
  FleetCurve spread{};
  std::vector<double> dev;
  for (std::size_t b = 0; b < kFleetBins; ++b) {
    dev.clear();
    for (const std::size_t d : g.drives) {
      const double r = drives[d].bins[b];
      if (!std::isnan(r) && g.median[b] > 0) dev.push_back(std::abs(r / g.median[b] - 1));
    }
    spread[b] = dev.empty() ? 0.0 : kMadToSigma * MedianInPlace(dev);
  }
  return spread;
}

// The stretch of bins where `drive` is most below the median (see the header).
std::optional<FleetRegion> WorstRegion(const FleetDrive& drive, const FleetGroup& g,
                                       const FleetCurve& spread) {
  std::array<double, kFleetBins> ratio{};
  std::array<bool, kFleetBins> below{};
  for (std::size_t b = 0; b < kFleetBins; ++b) {
    const double r = drive.bins[b];
    ratio[b] = std::isnan(r) || !(g.median[b] > 0) ? 1.0 : r / g.median[b];
    below[b] = ratio[b] < 1 - std::max(kFleetMinDeficit, 4.0 * spread[b]);
  }
  std::optional<FleetRegion> best;
  double best_deficit = 0;
  for (std::size_t b = 0; b < kFleetBins;) {
    if (!below[b]) {
      ++b;
      continue;
    }
    std::size_t end = b + 1;  // one past the stretch's last bin below
    while (end < kFleetBins && (below[end] || (end + 1 < kFleetBins && below[end + 1]))) {
      end += below[end] ? 1 : 2;
    }
    double deficit = 0;
    double sum = 0;
    for (std::size_t i = b; i < end; ++i) {
      deficit += 1 - ratio[i];
      sum += ratio[i];
    }
    if (end - b >= kFleetMinRegionBins && deficit > best_deficit) {
      best_deficit = deficit;
      best = FleetRegion{static_cast<double>(b), static_cast<double>(end),
                         sum / static_cast<double>(end - b)};
    }
    b = end;
  }
  return best;
}

// The drive's time-weighted average rate over the median's, over the bins
// both have; none without such bins.
std::optional<double> OverallRatio(const FleetDrive& drive, const FleetGroup& g) {
  double median_time = 0;
  double drive_time = 0;
  for (std::size_t b = 0; b < kFleetBins; ++b) {
    if (std::isnan(drive.bins[b]) || !(drive.bins[b] > 0) || !(g.median[b] > 0)) continue;
    median_time += 1.0 / g.median[b];
    drive_time += 1.0 / drive.bins[b];
  }
  if (drive_time <= 0) return std::nullopt;
  return median_time / drive_time;
}

// Drive d scored against the reference `g` (its group, or its siblings
// without it) with `spread`; `sibling_count` for the reasons' text.
FleetScore Score(const std::vector<FleetDrive>& drives, std::size_t d, const FleetGroup& g,
                 std::size_t group, const FleetCurve& spread, std::size_t sibling_count) {
  const FleetDrive& drive = drives[d];
  FleetScore s;
  s.group = group;
  const std::string siblings = "its " + std::to_string(sibling_count) + " siblings";
  if (g.has_reference) {
    s.ratio = OverallRatio(drive, g);
    s.worst_region = WorstRegion(drive, g, spread);
    if (s.worst_region) {
      const FleetRegion& r = *s.worst_region;
      s.reasons.push_back(Percent(1 - r.ratio) + " below " + siblings + " between " +
                          FormatFixed(r.start_percent, 0) + " and " +
                          FormatFixed(r.end_percent, 0) + " % of the surface");
    }
    if (s.ratio && *s.ratio < 1 - kFleetMinOverallDeficit) {
      s.reasons.push_back(Percent(1 - *s.ratio) + " slower than " + siblings + " overall");
    }
    if (drive.access_mean_ms && g.access_median_ms &&
        *drive.access_mean_ms > 1.5 * *g.access_median_ms) {
      s.reasons.push_back("access time " + FormatFixed(*drive.access_mean_ms, 1) + " ms, " +
                          siblings + " " + FormatFixed(*g.access_median_ms, 1) + " ms (median)");
    }
    if (drive.burst_mb_per_s && g.burst_median_mb_per_s &&
        *drive.burst_mb_per_s < *g.burst_median_mb_per_s * 2 / 3) {
      s.reasons.push_back("burst rate " + FormatFixed(*drive.burst_mb_per_s, 1) + " MB/s, " +
                          siblings + " " + FormatFixed(*g.burst_median_mb_per_s, 1) +
                          " MB/s (median)");
    }
  }
  if (drive.unreadable_ranges > 0) {
    s.reasons.push_back(std::to_string(drive.unreadable_ranges) + " unreadable range" +
                        (drive.unreadable_ranges == 1 ? "" : "s"));
  }
  if (drive.slow_regions > 0 &&
      static_cast<double>(drive.slow_regions) > 2 * g.slow_regions_median) {
    s.reasons.push_back(std::to_string(drive.slow_regions) + " slow region" +
                        (drive.slow_regions == 1 ? "" : "s") + " (median of the group " +
                        FormatFixed(g.slow_regions_median, 0) + ")");
  }
  if (drive.health == "suspect" || drive.health == "failing") {
    s.reasons.push_back("health " + drive.health);
  }
  s.flagged = !s.reasons.empty();
  return s;
}

double Severity(const FleetScore& s) {
  double worst = s.ratio.value_or(1);
  if (s.worst_region) worst = std::min(worst, s.worst_region->ratio);
  return worst;
}

}  // namespace

FleetCurve FleetBins(const Curve& curve, std::uint64_t size_bytes) {
  FleetCurve bins;
  bins.fill(kNoData);
  if (curve.empty()) return bins;
  double size = static_cast<double>(size_bytes);
  if (size_bytes == 0) {
    const CurvePoint last = curve.back();
    size = static_cast<double>(last.offset_bytes + last.length_bytes);
  }
  if (!(size > 0)) return bins;
  std::vector<double> middle;  // % of the surface, per block
  middle.reserve(curve.size());
  std::vector<std::vector<double>> in_bin(kFleetBins);
  for (const CurvePoint p : curve) {
    const double at =
        (static_cast<double>(p.offset_bytes) + static_cast<double>(p.length_bytes) / 2) / size *
        static_cast<double>(kFleetBins);
    middle.push_back(at);
    if (at >= 0 && at < static_cast<double>(kFleetBins)) {
      in_bin[static_cast<std::size_t>(at)].push_back(p.mb_per_s);
    }
  }
  for (std::size_t b = 0; b < kFleetBins; ++b) {
    if (!in_bin[b].empty()) {
      bins[b] = MedianInPlace(in_bin[b]);
      continue;
    }
    const double centre = static_cast<double>(b) + 0.5;
    const auto next = std::lower_bound(middle.begin(), middle.end(), centre);
    std::size_t nearest = curve.size();
    double distance = 2.0;  // within two bins
    if (next != middle.end() && *next - centre <= distance) {
      nearest = static_cast<std::size_t>(next - middle.begin());
      distance = *next - centre;
    }
    if (next != middle.begin() && centre - *(next - 1) <= distance) {
      nearest = static_cast<std::size_t>(next - middle.begin()) - 1;
    }
    if (nearest < curve.size()) bins[b] = curve[nearest].mb_per_s;
  }
  return bins;
}

std::vector<std::string> KeepNewestPerDrive(std::vector<FleetDrive>& drives) {
  const auto known = [](const std::string& id) { return !id.empty() && id != "unknown"; };
  // The drives by their identity, in input order.
  std::map<std::string, std::vector<std::size_t>> same;
  for (std::size_t d = 0; d < drives.size(); ++d) {
    const FleetDrive& drive = drives[d];
    if (known(drive.wwn)) {
      same["wwn " + drive.wwn].push_back(d);
    } else if (known(drive.serial)) {
      same["serial " + drive.serial].push_back(d);
    }
  }
  std::vector<std::string> warnings;
  std::vector<bool> dropped(drives.size(), false);
  for (const auto& [id, list] : same) {
    if (list.size() < 2) continue;
    std::size_t newest = list.front();
    for (const std::size_t d : list) {
      // ISO 8601 UTC times order as text; an unrecorded time is the oldest.
      if (drives[d].started_utc > drives[newest].started_utc) newest = d;
    }
    std::vector<std::string> others;
    for (const std::size_t d : list) {
      if (d == newest) continue;
      dropped[d] = true;
      others.push_back(drives[d].source);
    }
    const FleetDrive& kept = drives[newest];
    warnings.push_back(
        std::to_string(list.size()) + " results of the drive with " + id + ": kept " + kept.source +
        (kept.started_utc.empty() ? "" : " (started " + kept.started_utc + ")") + ", dropped " +
        Join(others, ", ") + " (one drive counts once, not as its own sibling)");
  }
  std::vector<FleetDrive> kept;
  for (std::size_t d = 0; d < drives.size(); ++d) {
    if (!dropped[d]) kept.push_back(std::move(drives[d]));
  }
  drives = std::move(kept);
  return warnings;
}

std::string FleetGroupKey(const FleetDrive& drive) {
  if (!drive.model.empty()) {
    return drive.model + (drive.firmware.empty() ? "" : " (firmware " + drive.firmware + ")");
  }
  return "unknown model, " +
         (drive.size_bytes > 0 ? std::to_string(drive.size_bytes) + " bytes" : "unknown size");
}

FleetAnalysis AnalyzeFleet(const std::vector<FleetDrive>& drives) {
  FleetAnalysis a;
  std::map<std::string, std::size_t> by_key;
  std::vector<std::size_t> group_of(drives.size());
  for (std::size_t d = 0; d < drives.size(); ++d) {
    const std::string key = FleetGroupKey(drives[d]);
    auto [it, added] = by_key.emplace(key, a.groups.size());
    if (added) {
      FleetGroup g;
      g.key = key;
      g.model = drives[d].model;
      g.firmware = drives[d].firmware;
      g.size_bytes = drives[d].size_bytes;
      a.groups.push_back(std::move(g));
    }
    a.groups[it->second].drives.push_back(d);
    group_of[d] = it->second;
  }
  std::vector<FleetCurve> spreads;
  for (FleetGroup& g : a.groups) {
    BuildReference(drives, g);
    spreads.push_back(RelativeSpread(drives, g));
  }
  for (std::size_t d = 0; d < drives.size(); ++d) {
    const std::size_t g = group_of[d];
    const FleetGroup& group = a.groups[g];
    const std::size_t n = group.drives.size();
    if (n > kFleetMinDrives && n <= kFleetLeaveOneOutMax) {
      FleetGroup siblings = group;
      std::erase(siblings.drives, d);
      BuildReference(drives, siblings);
      a.scores.push_back(Score(drives, d, siblings, g, RelativeSpread(drives, siblings), n - 1));
    } else {
      a.scores.push_back(Score(drives, d, group, g, spreads[g], n - 1));
    }
  }
  a.order.resize(drives.size());
  for (std::size_t d = 0; d < drives.size(); ++d) a.order[d] = d;
  std::stable_sort(a.order.begin(), a.order.end(), [&](std::size_t x, std::size_t y) {
    const FleetScore& sx = a.scores[x];
    const FleetScore& sy = a.scores[y];
    if (sx.flagged != sy.flagged) return sx.flagged;
    return Severity(sx) < Severity(sy);
  });
  return a;
}

}  // namespace zcav
