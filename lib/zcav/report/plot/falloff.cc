// Plots, inside: the falloff plot (PlotKind::kFalloff): one result's read
// rate against position, its min-max band, zones and their jitter band,
// outliers, dips, off-scale blocks, unreadable and slow regions, the drive
// temperature and, on optical media, an X-speed axis.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "zcav/analysis/write_cache.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/format/zone_table.h"
#include "zcav/report/plot/plot_internal.h"

namespace zcav::plot_detail {

namespace {

// At most this many zone labels: more overlap into an unreadable smear (the
// issue's 275 labels); the zone table lists every zone.
constexpr std::size_t kMaxZoneLabels = 20;
// A zone label's box as a share of the plot area (about 880 x 440 pixels):
// a character of the 8-point label font is about 5.5 pixels wide, a line
// about 11 high ("Z12 1234.5 MB/s" is some 85 x 11 pixels).
constexpr double kLabelCharShare = 5.5 / 880;
constexpr double kLabelHeightShare = 11.0 / 440;
// A zone's jitter band (p5-p95) is drawn when the widest is at least this
// share of the y axis: 2 % is about 9 pixels of the 600-pixel image's plot
// area; a narrower band hides under the curve (2 px) and the zone line
// (3 px) and would only add a legend entry to a clean staircase.
constexpr double kMinJitterBandShare = 0.02;

// Slow regions merged across passes (a region found in every pass is one
// place): sorted, overlapping or adjacent ones joined.
struct SlowPlace {
  std::uint64_t offset_bytes = 0;
  std::uint64_t end_bytes = 0;
  std::uint32_t found = 0;  // regions merged here (one per pass that found it)
  double max_ms = 0;
};

std::vector<SlowPlace> SlowPlaces(const std::vector<SlowRegion>& regions) {
  std::vector<SlowRegion> sorted = regions;
  std::sort(sorted.begin(), sorted.end(), [](const SlowRegion& a, const SlowRegion& b) {
    return a.offset_bytes < b.offset_bytes;
  });
  std::vector<SlowPlace> places;
  for (const SlowRegion& r : sorted) {
    const std::uint64_t end = r.offset_bytes + r.length_bytes;
    if (places.empty() || r.offset_bytes > places.back().end_bytes) {
      places.push_back({r.offset_bytes, end, 0, 0});
    }
    SlowPlace& p = places.back();
    p.end_bytes = std::max(p.end_bytes, end);
    ++p.found;
    p.max_ms = std::max(p.max_ms, r.ms);
  }
  return places;
}

// Zone i's label (from 0): "Z1 60.0 MB/s", and its X speed on optical media.
std::string ZoneLabel(const Zone& z, std::size_t i, Media media) {
  std::string label = "Z" + std::to_string(i + 1) + " " + FormatFixed(z.mb_per_s, 1) + " MB/s";
  if (media != Media::kNone) label += " " + FormatFixed(z.mb_per_s / OneXMbPerS(media), 1) + "x";
  return label;
}

// Which zones get a label: at most kMaxZoneLabels, chosen so that none
// covers another: the fastest and the slowest (the range a reader looks
// for), then the longest (the levels that cover most of the device), each
// only where its label's box (its characters x kLabelCharShare wide,
// kLabelHeightShare high, centred on the zone's middle, on an axis up to
// `axis_top`) is clear of those chosen before. A staircase of a few zones
// gets every label; short zones side by side at close levels (a virtual
// disk's stretches) do not write over each other.
std::vector<bool> LabelledZones(const ZoneAnalysis& a, double axis_top, Media media) {
  const std::size_t n = a.zones.size();
  std::vector<bool> labelled(n, false);
  if (n == 0) return labelled;
  const double x0 = static_cast<double>(a.zones.front().start_bytes);
  const double width = std::max(1.0, static_cast<double>(a.zones.back().end_bytes) - x0);
  const double height = axis_top > 0 ? axis_top : 1;
  const auto x = [&](std::size_t i) {
    const Zone& z = a.zones[i];
    return (static_cast<double>(z.start_bytes) + static_cast<double>(z.end_bytes)) / 2 - x0;
  };
  const auto length = [&](std::size_t i) { return a.zones[i].end_bytes - a.zones[i].start_bytes; };
  const auto chars = [&](std::size_t i) {
    return static_cast<double>(ZoneLabel(a.zones[i], i, media).size());
  };
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t p, std::size_t q) { return length(p) > length(q); });
  order.insert(order.begin(), {a.fastest_zone, a.slowest_zone});
  std::vector<std::size_t> chosen;
  for (std::size_t i : order) {
    if (chosen.size() >= kMaxZoneLabels) break;
    if (i >= n || labelled[i]) continue;
    const bool clear = std::none_of(chosen.begin(), chosen.end(), [&](std::size_t j) {
      return std::abs(x(i) - x(j)) / width < (chars(i) + chars(j)) / 2 * kLabelCharShare &&
             std::abs(a.zones[i].mb_per_s - a.zones[j].mb_per_s) / height < kLabelHeightShare;
    });
    if (!clear) continue;
    labelled[i] = true;
    chosen.push_back(i);
  }
  return labelled;
}

// The falloff plot's zones: NAME.zones.dat (every zone; at most
// kMaxZoneLabels labelled, see LabelledZones) and, when the analysis knows
// the jitter and its band is visible on an axis up to `axis_top`,
// NAME.jitter.dat (each zone's p5-p95 band).
void FillFalloffZones(const std::vector<PlotInput>& inputs, const fs::path& dir,
                      const std::string& name, std::uint64_t device, double axis_top,
                      std::map<std::string, std::string>& v, std::set<std::string>& flags,
                      PlotFiles& files) {
  const PlotInput& in = inputs.front();
  const ZoneAnalysis& a = in.zones;
  if (a.zones.empty() || !DrawsLevels(a.type)) return;
  const std::vector<bool> labelled = LabelledZones(a, axis_top, in.media);
  const auto labels = static_cast<std::size_t>(std::count(labelled.begin(), labelled.end(), true));
  flags.insert("zones");
  v["zones_data"] = name + ".zones.dat";
  v["zones_title"] =
      in.profile.adaptive ? "zone levels inferred between the probes" : "detected zones (median)";
  if (labels < a.zones.size()) {
    v["zones_title"] +=
        ": " + std::to_string(a.zones.size()) + " zones, " + std::to_string(labels) + " labelled";
  }
  std::string s = "# zcav plot data: detected zones of " + GpComment(in.label) + "\n";
  s += "# Units: GB = 10^9 B, MB/s = 10^6 B/s.\n";
  if (labels < a.zones.size()) {
    s += "# " + std::to_string(a.zones.size()) + " zones, " + std::to_string(labels) +
         " labelled (the fastest, the slowest, then the longest whose labels do not overlap); "
         "the others have an empty label.\n";
  }
  s += "# start_gb end_gb start_pct end_pct median_mb_per_s label\n";
  for (std::size_t i = 0; i < a.zones.size(); ++i) {
    const Zone& z = a.zones[i];
    const std::string label = labelled[i] ? ZoneLabel(z, i, in.media) : std::string();
    s += FormatFixed(Gb(z.start_bytes), 6) + ' ' + FormatFixed(Gb(z.end_bytes), 6) + ' ' +
         FormatFixed(Percent(static_cast<double>(z.start_bytes), device), 4) + ' ' +
         FormatFixed(Percent(static_cast<double>(z.end_bytes), device), 4) + ' ' +
         FormatFixed(z.mb_per_s, 3) + " \"" + label + "\"\n";
  }
  WriteText(dir / v["zones_data"], s, inputs);
  files.data_paths.push_back((dir / v["zones_data"]).string());

  if (!HasJitter(a)) return;
  const double lo = a.texture.jitter_p5_rel;
  const double hi = a.texture.jitter_p95_rel;
  double widest = 0;
  for (const Zone& z : a.zones) widest = std::max(widest, z.mb_per_s * (hi - lo));
  if (widest < kMinJitterBandShare * axis_top) return;
  flags.insert("jitter");
  v["jitter_data"] = name + ".jitter.dat";
  v["jitter_title"] = "jitter p5-p95 (" + FormatFixed((lo - 1) * 100, 1) + " % / +" +
                      FormatFixed((hi - 1) * 100, 1) + " %)";
  s = "# zcav plot data: jitter of " + GpComment(in.label) +
      ": the band of each zone's blocks from the "
      "5th to the 95th percentile (zone median x " +
      FormatFixed(lo, 4) + " .. x " + FormatFixed(hi, 4) + ")\n";
  s += "# Units: GB = 10^9 B, MB/s = 10^6 B/s; one line per zone.\n";
  s += "# start_gb end_gb p5_mb_per_s p95_mb_per_s\n";
  for (const Zone& z : a.zones) {
    s += FormatFixed(Gb(z.start_bytes), 6) + ' ' + FormatFixed(Gb(z.end_bytes), 6) + ' ' +
         FormatFixed(z.mb_per_s * lo, 3) + ' ' + FormatFixed(z.mb_per_s * hi, 3) + '\n';
  }
  WriteText(dir / v["jitter_data"], s, inputs);
  files.data_paths.push_back((dir / v["jitter_data"]).string());
}

// The falloff plot's marked blocks: NAME.outliers.dat, NAME.dips.dat (the
// analysis' dip blocks) and NAME.offscale.dat (blocks above the axis, drawn
// on its top edge).
void FillFalloffMarks(const std::vector<PlotInput>& inputs, const fs::path& dir,
                      const std::string& name, std::uint64_t device, double axis_top,
                      std::map<std::string, std::string>& v, std::set<std::string>& flags,
                      PlotFiles& files) {
  const PlotInput& in = inputs.front();
  const Curve& points = in.profile.points;
  if (!in.zones.outliers.empty()) {
    flags.insert("outliers");
    v["outliers_data"] = name + ".outliers.dat";
    std::string s = "# zcav plot data: outliers (blocks far off their neighbours) of " +
                    GpComment(in.label) + "\n";
    s += "# Units: GB = 10^9 B, MB/s = 10^6 B/s.\n";
    s += "# position_gb position_pct mb_per_s\n";
    for (const Outlier& o : in.zones.outliers) {
      const double at =
          o.block < points.size() ? Middle(points[o.block]) : static_cast<double>(o.offset_bytes);
      s += FormatFixed(at / kGB, 6) + ' ' + FormatFixed(Percent(at, device), 4) + ' ' +
           FormatFixed(o.mb_per_s, 3) + '\n';
    }
    WriteText(dir / v["outliers_data"], s, inputs);
    files.data_paths.push_back((dir / v["outliers_data"]).string());
  }
  const std::string lines_are =
      "; one line per block, or per bucket of consecutive blocks (as in the curve data) when "
      "there are more than " +
      std::to_string(kMaxCurveLines) + ".\n";
  if (!in.zones.dip_blocks.empty()) {
    flags.insert("dips");
    v["dips_data"] = name + ".dips.dat";
    v["dips_title"] = "dips (" + Blocks(in.zones.dip_blocks.size()) + ")";
    std::string s =
        "# zcav plot data: blocks in recurring short dips of " + GpComment(in.label) + "\n";
    s += "# Units: GB = 10^9 B, MB/s = 10^6 B/s" + lines_are;
    s += "# position_gb position_pct lowest_mb_per_s blocks\n";
    s += MarkLines(points, in.zones.dip_blocks, device, false, "");
    WriteText(dir / v["dips_data"], s, inputs);
    files.data_paths.push_back((dir / v["dips_data"]).string());
  }
  const std::vector<std::uint64_t> off = OffScaleBlocks(points, axis_top);
  if (!off.empty()) {
    double max = 0;
    for (std::uint64_t b : off) max = std::max(max, points.mb_per_s(b));
    flags.insert("offscale");
    flags.insert("marks");
    v["offscale_data"] = name + ".offscale.dat";
    v["offscale_title"] = OffScaleTitle(off.size(), max);
    std::string s = "# zcav plot data: blocks above the top of the y axis (" +
                    FormatFixed(axis_top, 1) + " MB/s) of " + GpComment(in.label) +
                    ", drawn on its edge\n";
    s += "# Units: GB = 10^9 B, MB/s = 10^6 B/s" + lines_are;
    s += "# position_gb position_pct highest_mb_per_s blocks\n";
    s += MarkLines(points, off, device, true, "");
    WriteText(dir / v["offscale_data"], s, inputs);
    files.data_paths.push_back((dir / v["offscale_data"]).string());
  }
}

// The falloff plot's read errors: NAME.unreadable.dat (shaded) and
// NAME.slow.dat (marked on the top edge).
void FillFalloffErrors(const std::vector<PlotInput>& inputs, const fs::path& dir,
                       const std::string& name, std::uint64_t device,
                       std::map<std::string, std::string>& v, std::set<std::string>& flags,
                       PlotFiles& files) {
  const PlotInput& in = inputs.front();
  if (!in.profile.unreadable.empty() || !in.profile.slow_regions.empty()) flags.insert("marks");
  if (!in.profile.unreadable.empty()) {
    flags.insert("unreadable");
    v["unreadable_data"] = name + ".unreadable.dat";
    v["unreadable_title"] = "unreadable (" + Regions(in.profile.unreadable.size()) + ")";
    WriteText(dir / v["unreadable_data"], UnreadableData({&in}, false), inputs);
    files.data_paths.push_back((dir / v["unreadable_data"]).string());
  }
  if (!in.profile.slow_regions.empty()) {
    const std::vector<SlowPlace> places = SlowPlaces(in.profile.slow_regions);
    flags.insert("slow");
    v["slow_data"] = name + ".slow.dat";
    v["slow_title"] = "slow (" + Regions(places.size()) + ")";
    std::string s =
        "# zcav plot data: slow regions (read far slower than the chunks before "
        "them) of " +
        GpComment(in.label) + ", merged across passes\n";
    s += "# Units: GB = 10^9 B, % of the device's size, ms = milliseconds; one line per place.\n";
    s += "# start_gb end_gb start_pct end_pct times_found max_ms\n";
    for (const SlowPlace& p : places) {
      s += FormatFixed(Gb(p.offset_bytes), 9) + ' ' + FormatFixed(Gb(p.end_bytes), 9) + ' ' +
           FormatFixed(Percent(static_cast<double>(p.offset_bytes), device), 6) + ' ' +
           FormatFixed(Percent(static_cast<double>(p.end_bytes), device), 6) + ' ' +
           std::to_string(p.found) + ' ' + FormatFixed(p.max_ms, 1) + '\n';
    }
    WriteText(dir / v["slow_data"], s, inputs);
    files.data_paths.push_back((dir / v["slow_data"]).string());
  }
}

// The falloff plot's temperature trace: NAME.temperature.dat, drawn on the
// right axis (not for optical media, whose right axis is the X speed).
void FillFalloffTemperature(const std::vector<PlotInput>& inputs, const fs::path& dir,
                            const std::string& name, std::uint64_t device,
                            std::map<std::string, std::string>& v, std::set<std::string>& flags,
                            PlotFiles& files) {
  const PlotInput& in = inputs.front();
  const std::vector<TemperatureReading>& temps = in.profile.temperatures;
  if (temps.empty() || in.media != Media::kNone) return;
  flags.insert("temperature");
  v["temperature_data"] = name + ".temperature.dat";
  double lo = temps.front().celsius, hi = lo;
  std::string s =
      "# zcav plot data: drive temperature while " + GpComment(in.label) + " was read\n";
  s += "# Units: GB = 10^9 B, % of the device's size, degrees C, seconds since the first read.\n";
  s += "# position_gb position_pct celsius pass seconds\n";
  for (std::size_t i = 0; i < temps.size(); ++i) {
    const TemperatureReading& t = temps[i];
    if (i > 0 && t.pass != temps[i - 1].pass) s += '\n';  // a new line for each pass
    s += FormatFixed(Gb(t.offset_bytes), 9) + ' ' +
         FormatFixed(Percent(static_cast<double>(t.offset_bytes), device), 6) + ' ' +
         FormatFixed(t.celsius, 1) + ' ' + std::to_string(t.pass + 1) + ' ' +
         FormatFixed(t.seconds, 1) + '\n';
    lo = std::min(lo, t.celsius);
    hi = std::max(hi, t.celsius);
  }
  // Whole 5 C steps around the readings, at least 10 C apart.
  const double t_min = std::floor(lo / 5) * 5 - 5;
  const double t_max = std::max(std::ceil(hi / 5) * 5 + 5, t_min + 10);
  v["t_min"] = FormatFixed(t_min, 0);
  v["t_max"] = FormatFixed(t_max, 0);
  v["temperature_title"] =
      "drive temperature (" + FormatFixed(lo, 0) + "-" + FormatFixed(hi, 0) + " C, right axis)";
  WriteText(dir / v["temperature_data"], s, inputs);
  files.data_paths.push_back((dir / v["temperature_data"]).string());
}

}  // namespace

void FillFalloff(const std::vector<PlotInput>& inputs, const fs::path& dir, const std::string& name,
                 std::map<std::string, std::string>& v, std::set<std::string>& flags,
                 PlotFiles& files) {
  const PlotInput& in = inputs.front();
  const Curve& points = in.profile.points;
  const std::uint64_t end = CurveEnd(points);
  const std::uint64_t device = DeviceBytes(in.profile, end);
  v["data"] = name + ".curve.dat";
  WriteText(dir / v["data"], CurveData(points, in.profile, "read rate of " + in.label), inputs);
  files.data_paths.push_back((dir / v["data"]).string());
  v["device_gb"] = FormatFixed(Gb(device), 6);
  v["x_min"] = FormatFixed(Gb(points.front().offset_bytes), 6);
  v["x_max"] = FormatFixed(Gb(end), 6);
  const bool band = HasSpread(points) && in.profile.passes > 1;
  if (band) flags.insert("band");
  const double bulk_top =
      std::max(CurveBulkTop(points, band, DrawnZones(in.zones)), LevelsTop(in.zones));
  const double axis_top = RateAxisTop(MaxRate(points), bulk_top);
  v["y_max"] = YMax(axis_top);
  v["band_top"] = BandTop(axis_top);
  const bool write = in.profile.plan && in.profile.plan->write;
  v["curve_title"] = in.profile.passes > 1
                         ? "median of " + std::to_string(in.profile.passes) + " passes"
                         : std::string(write ? "write rate per block" : "read rate per block");
  // An adaptive run: its probes are points (all it read); the zone levels
  // between them are drawn as the zones, inferred.
  v["curve_style"] = "lines lw 2";
  if (const std::optional<AdaptiveResult>& a = in.profile.adaptive) {
    v["curve_style"] = "points pt 7 ps 0.6";
    v["curve_title"] =
        "probes read: " + std::to_string(points.size()) + ", " +
        FormatFixed(100.0 * static_cast<double>(a->bytes_read) /
                        static_cast<double>(std::max<std::uint64_t>(1, a->range_bytes)),
                    3) +
        " % of the range";
  }
  const bool optical = in.media != Media::kNone;
  if (optical) {
    flags.insert("optical");
    v["one_x"] = OneXText(in.media);
    v["media"] = MediaName(in.media);
  }
  // A write sweep: its position is the data written, its cliff is marked.
  v["xlabel"] = write ? "data written (GB, 10^9 B)" : "position (GB, 10^9 B)";
  v["ylabel"] = write ? "write rate (MB/s, 10^6 B/s)" : "read rate (MB/s, 10^6 B/s)";
  if (write && !in.zones.zones.empty()) {
    if (const auto cache = AnalyzeWriteCache(in.zones, in.profile.plan->start_bytes)) {
      flags.insert("cliff");
      const double at = Gb(cache->phases.front().end_bytes);
      v["cliff_gb"] = FormatFixed(at, 6);
      v["cliff_label"] = GpQuoted("write cache ends: " + CacheGbText(cache->size_bytes) + " at " +
                                  FormatFixed(cache->in_cache_mb_per_s, 0) + " MB/s, then " +
                                  FormatFixed(cache->after_cache_mb_per_s, 0) + " MB/s");
    }
  }

  // Two title lines: who, then what the curve shows.
  std::string detail;
  if (!in.zones.description.empty() && in.zones.description != "no data") {
    detail = in.zones.description;
  }
  const double avg = AverageMbPerS(in.profile);
  if (avg > 0) {
    detail +=
        (detail.empty() ? "" : ", ") + std::string("average ") + FormatFixed(avg, 1) + " MB/s";
    if (optical) detail += " = " + FormatFixed(avg / OneXMbPerS(in.media), 1) + "x";
  }
  v["title"] = GpQuoted(in.label) + (detail.empty() ? "" : "' . \"\\n\" . '" + GpQuoted(detail));
  if (optical) {
    // About 8 labelled steps of a 1-2-5 series on the X-speed axis.
    const double raw = axis_top / OneXMbPerS(in.media) / 8;
    const double decade = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-9))));
    double step = 10 * decade;
    for (double m : {1.0, 2.0, 5.0}) {
      if (m * decade >= raw) {
        step = m * decade;
        break;
      }
    }
    v["x_step"] = FormatFixed(step, step < 1 ? 1 : 0);
  }
  FillFalloffZones(inputs, dir, name, device, axis_top, v, flags, files);
  FillFalloffMarks(inputs, dir, name, device, axis_top, v, flags, files);
  FillFalloffErrors(inputs, dir, name, device, v, flags, files);
  FillFalloffTemperature(inputs, dir, name, device, v, flags, files);
}

}  // namespace zcav::plot_detail
