// Longer than 1,200 lines: it holds several modules that issue 38 splits apart.
// Plots: see plot.h.
//
// Each script is a template from plots/*.gp (embedded by CMake as
// plot_templates.h) with a few values filled in. The template language is
// kept tiny so the templates stay plain gnuplot a person can read:
//   {{name}}     replaced by a value (file names, title, ranges, ...);
//   {{?flag}}    at the start of a line: the line is kept only when the flag
//                is set (the min-max band, zones, outliers, an X-speed axis);
//   #%           at the start of a line: a note about the template, dropped.
// A plot element line that ends in ", \" and is followed by a blank line
// loses the ", \" (its optional successors were dropped).
//
// Rendering goes through the one gnuplot seam (gnuplot.h), which runs
// gnuplot on a copy of the script and data in a private directory and hands
// the images back; they are then written into place: the script is the
// single description of the plot, and a failed render leaves no partial
// image. Every string a script holds comes through GpQuote or GpComment, and
// every file name it names is IsSafeFileName (checked in WritePlot).
#include "zcav/report/plot.h"

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "zcav/analysis/result_zones.h"
#include "zcav/analysis/write_cache.h"
#include "zcav/base/atomic_file.h"
#include "zcav/base/enum_names.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/plot_templates.h"
#include "zcav/report/surface_map.h"

namespace zcav {

namespace {

namespace fs = std::filesystem;

// Image size in pixels, both PNG and SVG.
constexpr int kWidthPx = 1000;
constexpr int kHeightPx = 600;
// A curve's data file has at most this many lines (two per pixel column):
// longer curves are drawn from buckets of consecutive blocks (see CurveData).
constexpr std::size_t kMaxCurveLines = 2 * static_cast<std::size_t>(kWidthPx);

// Room above the highest point for the zone labels and the key.
constexpr double kHeadroom = 1.15;

// The rate axis (see RateAxisTop): it spans every block unless the highest
// is more than kOffScaleTolerance times the top of the bulk of the data; then
// it spans the bulk and the blocks above are drawn on its top edge. 1.5: a
// spike half again as fast as everything else still fits (the plot keeps its
// look, the bulk keeps two thirds of the height); a few blurred blocks at 20x
// the device's rate (the 3000 MB/s on a 140 MB/s device) do not
// squash the curve into the bottom twentieth.
constexpr double kOffScaleTolerance = 1.5;
// The bulk's top ignores the highest 1 % of blocks, and anything above
// Tukey's far-out fence (P75 + 3 x IQR, Tukey 1977), which also holds when
// more than 1 % of the blocks are wild (a flat 36 MB/s FUSE device read
// 2-3 % of its blocks at 100-210 MB/s).
constexpr double kBulkQuantile = 0.99;
constexpr double kFenceIqrs = 3.0;
// The bulk's quantiles are read from at most this many blocks, evenly spaced
// (a 20 M-block curve: 2^20 of them, as good for an axis and 8 MiB of memory).
constexpr std::size_t kMaxRobustSamples = std::size_t{1} << 20;
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

const char* TemplateOf(PlotKind kind) {
  switch (kind) {
    case PlotKind::kFalloff:
      return plot_templates::kFalloff;
    case PlotKind::kComparison:
      return plot_templates::kComparison;
    case PlotKind::kAccess:
      return plot_templates::kAccess;
    case PlotKind::kHistogram:
      return plot_templates::kHistogram;
    case PlotKind::kConcurrent:
      return plot_templates::kConcurrent;
    case PlotKind::kMap:
      return plot_templates::kMap;
    case PlotKind::kRandom:
      return plot_templates::kRandom;
  }
  return plot_templates::kFalloff;
}

// The inside of GpQuote, for values placed inside quotes in a template.
std::string GpQuoted(const std::string& text) {
  const std::string q = GpQuote(text);
  return q.substr(1, q.size() - 2);
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Fills a template (see the top of this file).
std::string Expand(std::string_view tmpl, const std::map<std::string, std::string>& values,
                   const std::set<std::string>& flags) {
  std::vector<std::string> lines;
  while (!tmpl.empty()) {
    const std::size_t nl = tmpl.find('\n');
    std::string line(tmpl.substr(0, nl));
    tmpl.remove_prefix(nl == std::string_view::npos ? tmpl.size() : nl + 1);
    if (line.rfind("#%", 0) == 0) continue;
    if (line.rfind("{{?", 0) == 0) {
      const std::size_t close = line.find("}}");
      assert(close != std::string::npos);
      if (flags.count(line.substr(3, close - 3)) == 0) continue;
      line.erase(0, close + 2);
    }
    std::string out;
    std::size_t pos = 0;
    while (true) {
      const std::size_t open = line.find("{{", pos);
      if (open == std::string::npos) break;
      const std::size_t close = line.find("}}", open);
      assert(close != std::string::npos);
      const auto it = values.find(line.substr(open + 2, close - open - 2));
      assert(it != values.end());
      out += line.substr(pos, open - pos) + (it == values.end() ? "" : it->second);
      pos = close + 2;
    }
    out += line.substr(pos);
    lines.push_back(out);
  }
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string& line = lines[i];
    const bool last_element = i + 1 == lines.size() || lines[i + 1].empty();
    if (last_element && EndsWith(line, ", \\")) line.resize(line.size() - 3);
    text += line + "\n";
  }
  // Values that are several lines (the output commands) may leave runs of
  // blank lines: keep at most one.
  std::string squeezed;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && squeezed.size() >= 2 && squeezed[squeezed.size() - 1] == '\n' &&
        squeezed[squeezed.size() - 2] == '\n') {
      continue;
    }
    squeezed += text[i];
  }
  return squeezed;
}

std::string Basename(const std::string& path) { return fs::path(path).filename().string(); }

double Gb(std::uint64_t bytes) { return static_cast<double>(bytes) / kGB; }

// The size the "% of device" axis refers to: the device when known, else the
// end of the data.
std::uint64_t DeviceBytes(const SavedResult& profile, std::uint64_t data_end) {
  return profile.device_bytes > 0 ? profile.device_bytes : std::max<std::uint64_t>(data_end, 1);
}

std::uint64_t CurveEnd(const Curve& points) {
  std::uint64_t end = 0;
  for (const CurvePoint& p : points) end = std::max(end, p.offset_bytes + p.length_bytes);
  return end;
}

double Middle(const CurvePoint& p) {
  return static_cast<double>(p.offset_bytes) + static_cast<double>(p.length_bytes) / 2;
}

double Percent(double bytes, std::uint64_t device_bytes) {
  return bytes / static_cast<double>(device_bytes) * 100;
}

bool HasSpread(const Curve& points) {
  return std::any_of(points.begin(), points.end(),
                     [](const CurvePoint& p) { return p.max_mb_per_s > 0; });
}

double MaxRate(const Curve& points) {
  double top = 0;
  for (const CurvePoint& p : points) top = std::max({top, p.mb_per_s, p.max_mb_per_s});
  return top;
}

// "Y max" of a rate axis whose top is `axis_top_mb_per_s` (RateAxisTop);
// "*" (gnuplot scales it) when there is no rate above 0.
std::string YMax(double axis_top_mb_per_s) {
  return axis_top_mb_per_s > 0 ? FormatFixed(axis_top_mb_per_s, 1) : "*";
}

// The height of the shaded bands (unreadable ranges) and of the marks on the
// top edge: the top of the y axis (YMax), or 1 when the axis scales itself.
std::string BandTop(double axis_top_mb_per_s) {
  return axis_top_mb_per_s > 0 ? YMax(axis_top_mb_per_s) : "1";
}

// The q-quantile (nearest rank) of `values`, reordering them. REQUIRES:
// !values.empty(), 0 <= q <= 1.
double Quantile(std::vector<double>& values, double q) {
  assert(!values.empty());
  const auto rank =
      static_cast<std::ptrdiff_t>(std::lround(q * static_cast<double>(values.size() - 1)));
  std::nth_element(values.begin(), values.begin() + rank, values.end());
  return values[static_cast<std::size_t>(rank)];
}

// The top of the bulk of `values` (see kBulkQuantile); 0 for none.
double BulkTop(std::vector<double> values) {
  if (values.empty()) return 0;
  const double p25 = Quantile(values, 0.25);
  const double p75 = Quantile(values, 0.75);
  const double fence = p75 + kFenceIqrs * (p75 - p25);
  return std::min(Quantile(values, kBulkQuantile), fence);
}

// The top of the bulk of a curve: of its blocks' rates and, with `band`, of
// the highest rate each block had across passes (the min-max band). With
// zones, each block is measured against its zone's median (a wild block is
// wild next to its neighbours, and a staircase's spread of levels would
// widen the fence: 5 blocks at 3000 MB/s on a 140..65 MB/s staircase would
// set the axis at 270), and the top is the fastest zone's median times the
// bulk's top ratio; without zones, the rates themselves.
double CurveBulkTop(const Curve& points, bool band, const std::vector<Zone>& zones) {
  const std::size_t stride =
      std::max<std::size_t>(1, (points.size() + kMaxRobustSamples - 1) / kMaxRobustSamples);
  double fastest = 0;
  for (const Zone& z : zones) fastest = std::max(fastest, z.mb_per_s);
  const bool relative = fastest > 0;
  std::vector<double> rates;
  std::vector<double> highs;
  rates.reserve(points.size() / stride + 1);
  std::size_t zone = 0;
  for (std::size_t i = 0; i < points.size(); i += stride) {
    while (relative && zone + 1 < zones.size() && i >= zones[zone].end_block) ++zone;
    const double level = relative && zones[zone].mb_per_s > 0 ? zones[zone].mb_per_s : 1;
    const CurvePoint p = points[i];
    rates.push_back(p.mb_per_s / level);
    if (band) highs.push_back((p.max_mb_per_s > 0 ? p.max_mb_per_s : p.mb_per_s) / level);
  }
  const double top = std::max(BulkTop(std::move(rates)), BulkTop(std::move(highs)));
  return relative ? top * fastest : top;
}

// True when a curve's zones are plateaus, drawn as levels; a smooth fit's
// (cav, pcav) "zones" are its fitted segments and are described in the title.
bool DrawsLevels(CurveType type) {
  switch (type) {
    case CurveType::kCav:
    case CurveType::kPcav:
      return false;
    case CurveType::kZoned:
    case CurveType::kFlat:
    case CurveType::kClipped:
    case CurveType::kZclv:
    case CurveType::kClv:
    case CurveType::kOther:
    case CurveType::kTiered:
    case CurveType::kFlatDips:
      return true;
  }
  return true;
}

// True when the analysis knows the curve's jitter (its p5-p95 band is drawn).
bool HasJitter(const ZoneAnalysis& zones) {
  return !zones.zones.empty() && DrawsLevels(zones.type) &&
         (zones.texture.jitter_p5_rel < 1 || zones.texture.jitter_p95_rel > 1);
}

// The zones drawn as levels (none for a smooth fit: its segments' medians
// are not levels of the curve).
const std::vector<Zone>& DrawnZones(const ZoneAnalysis& zones) {
  static const std::vector<Zone> kNone;
  return DrawsLevels(zones.type) ? zones.zones : kNone;
}

// The highest level the plot draws for `zones`, which the axis always spans:
// every zone's median (and the top of its jitter band), or a smooth fit's
// ends.
double LevelsTop(const ZoneAnalysis& zones) {
  double top = std::max(zones.fit_start_mb_per_s, zones.fit_end_mb_per_s);
  const double jitter = HasJitter(zones) ? std::max(1.0, zones.texture.jitter_p95_rel) : 1.0;
  for (const Zone& z : zones.zones) top = std::max(top, z.mb_per_s * jitter);
  return top;
}

// The top of a rate axis: every block fits (a little above the highest, so
// the labels and the key fit) unless the highest, `full_top_mb_per_s`, is
// more than kOffScaleTolerance times `bulk_top_mb_per_s`; then a little above
// the bulk, and the blocks above are off scale (OffScaleBlocks). Rounded as
// the script writes it (YMax), so the script's axis and the off-scale marks
// agree. 0 when no rate is above 0.
double RateAxisTop(double full_top_mb_per_s, double bulk_top_mb_per_s) {
  const bool robust =
      bulk_top_mb_per_s > 0 && full_top_mb_per_s > bulk_top_mb_per_s * kOffScaleTolerance;
  const double top = (robust ? bulk_top_mb_per_s : full_top_mb_per_s) * kHeadroom;
  return top > 0 ? std::strtod(FormatFixed(top, 1).c_str(), nullptr) : 0;
}

// Indices of the blocks whose rate is above `axis_top_mb_per_s` (none when
// the axis scales itself).
std::vector<std::uint64_t> OffScaleBlocks(const Curve& points, double axis_top_mb_per_s) {
  std::vector<std::uint64_t> blocks;
  if (axis_top_mb_per_s <= 0) return blocks;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points.mb_per_s(i) > axis_top_mb_per_s) blocks.push_back(i);
  }
  return blocks;
}

// "1 block", "3 blocks".
std::string Blocks(std::size_t n) { return std::to_string(n) + (n == 1 ? " block" : " blocks"); }

// The legend of the off-scale marks: "3 blocks off scale (max 3000.0 MB/s)".
std::string OffScaleTitle(std::size_t count, double max_mb_per_s) {
  return Blocks(count) + " off scale (max " + FormatFixed(max_mb_per_s, 1) + " MB/s)";
}

// Blocks drawn as marks (off-scale blocks, dips): the text of their data
// file's lines, one per block when there are at most kMaxCurveLines of them,
// else one per bucket of the curve's grid (CurveData's buckets) that holds
// any: `prefix` (the input's number in a comparison, or empty), the middle
// of the marked blocks, their highest (`highest`) or lowest rate, and how
// many blocks the line stands for.
std::string MarkLines(const Curve& points, const std::vector<std::uint64_t>& blocks,
                      std::uint64_t device, bool highest, const std::string& prefix) {
  const std::size_t per_line =
      blocks.size() <= kMaxCurveLines
          ? 1
          : std::max<std::size_t>(1, (points.size() + kMaxCurveLines - 1) / kMaxCurveLines);
  std::string s;
  std::size_t i = 0;
  while (i < blocks.size()) {
    if (blocks[i] >= points.size()) {
      ++i;
      continue;
    }
    const std::uint64_t bucket = blocks[i] / per_line;
    const CurvePoint first = points[blocks[i]];
    CurvePoint last = first;
    double rate = first.mb_per_s;
    std::size_t count = 0;
    for (; i < blocks.size() && blocks[i] < points.size() && blocks[i] / per_line == bucket; ++i) {
      last = points[blocks[i]];
      rate = highest ? std::max(rate, last.mb_per_s) : std::min(rate, last.mb_per_s);
      ++count;
    }
    const double mid = count == 1 ? Middle(first)
                                  : (static_cast<double>(first.offset_bytes) +
                                     static_cast<double>(last.offset_bytes + last.length_bytes)) /
                                        2;
    s += prefix + FormatFixed(mid / kGB, 6) + ' ' + FormatFixed(Percent(mid, device), 4) + ' ' +
         FormatFixed(rate, 3) + ' ' + std::to_string(count) + '\n';
  }
  return s;
}

// True when an unreadable range lies in the gap between two consecutive
// points: the blocks between them had no clean read.
bool UnreadableBetween(const std::vector<UnreadableRange>& ranges, const CurvePoint& before,
                       const CurvePoint& after) {
  const std::uint64_t gap_start = before.offset_bytes + before.length_bytes;
  if (after.offset_bytes <= gap_start) return false;
  return std::any_of(ranges.begin(), ranges.end(), [&](const UnreadableRange& r) {
    return r.offset_bytes < after.offset_bytes && r.offset_bytes + r.length_bytes > gap_start;
  });
}

// "1 region", "3 regions".
std::string Regions(std::size_t n) { return std::to_string(n) + (n == 1 ? " region" : " regions"); }

// The curve's data file text (columns in the templates' comments). A blank
// line where unreadable blocks are missing breaks the line there (gnuplot
// draws no segment across a blank line); skipped blocks (--quick, --skip)
// leave no blank line. A curve of more than kMaxCurveLines blocks is written
// as buckets of ceil(N / kMaxCurveLines) consecutive blocks (never across
// such a gap), one line each at the middle of the bucket's range: the median
// of the blocks' rates, the lowest minimum and the highest maximum (a
// block's own rate where it has no spread). One block per bucket is the
// block itself.
std::string CurveData(const Curve& points, const SavedResult& profile, const std::string& what) {
  const std::uint64_t device = DeviceBytes(profile, CurveEnd(points));
  const std::size_t per_line =
      std::max<std::size_t>(1, (points.size() + kMaxCurveLines - 1) / kMaxCurveLines);
  std::string s = "# zcav plot data: " + GpComment(what) + "\n";
  if (per_line == 1) {
    s += "# Units: GB = 10^9 B, MB/s = 10^6 B/s; one line per block, at the block's middle.\n";
  } else {
    s += "# Units: GB = 10^9 B, MB/s = 10^6 B/s; one line per " + std::to_string(per_line) +
         " consecutive blocks (of " + std::to_string(points.size()) +
         "), at their middle: the median of their rates, the lowest min, the highest max.\n";
  }
  s += "# device size: " + std::to_string(device) + " bytes (" + FormatFixed(Gb(device), 3) +
       " GB)\n";
  s += "# position_gb position_pct median_mb_per_s min_mb_per_s max_mb_per_s\n";
  if (!profile.unreadable.empty()) {
    s += "# A blank line: blocks missing here had no clean read (unreadable sectors).\n";
  }
  std::vector<double> rates;
  rates.reserve(per_line);
  std::uint64_t first_offset = 0, end = 0;
  double lo = 0, hi = 0;
  const auto flush = [&] {
    if (rates.empty()) return;
    const double mid =
        static_cast<double>(first_offset) + static_cast<double>(end - first_offset) / 2;
    const auto middle = rates.begin() + static_cast<std::ptrdiff_t>(rates.size() / 2);
    std::nth_element(rates.begin(), middle, rates.end());
    const double median =
        rates.size() % 2 == 1 ? *middle : (*std::max_element(rates.begin(), middle) + *middle) / 2;
    s += FormatFixed(mid / kGB, 6) + ' ' + FormatFixed(Percent(mid, device), 4) + ' ' +
         FormatFixed(median, 3) + ' ' + FormatFixed(lo, 3) + ' ' + FormatFixed(hi, 3) + '\n';
    rates.clear();
  };
  CurvePoint previous;
  bool first = true;
  for (const CurvePoint& p : points) {
    if (!first && UnreadableBetween(profile.unreadable, previous, p)) {
      flush();
      s += '\n';
    }
    const bool spread = p.max_mb_per_s > 0;
    const double p_lo = spread ? p.min_mb_per_s : p.mb_per_s;
    const double p_hi = spread ? p.max_mb_per_s : p.mb_per_s;
    if (rates.empty()) {
      first_offset = p.offset_bytes;
      lo = p_lo;
      hi = p_hi;
    }
    rates.push_back(p.mb_per_s);
    lo = std::min(lo, p_lo);
    hi = std::max(hi, p_hi);
    end = p.offset_bytes + p.length_bytes;
    if (rates.size() == per_line) flush();
    previous = p;
    first = false;
  }
  flush();
  return s;
}

// The unreadable ranges' data file text: one line per range, in GB and in %
// of the device (see the templates' comments). `numbered`: the ranges of
// several inputs, each line starting with its input's number (from 1).
std::string UnreadableData(const std::vector<const PlotInput*>& inputs, bool numbered) {
  std::string s =
      "# zcav plot data: unreadable ranges (sectors that failed to read after a "
      "retry)";
  s += numbered ? " of each input\n" : " of " + GpComment(inputs.front()->label) + "\n";
  s += "# Units: GB = 10^9 B, % of the device's size; one line per range.\n";
  s += numbered ? "# input start_gb end_gb start_pct end_pct length_bytes errno\n"
                : "# start_gb end_gb start_pct end_pct length_bytes errno\n";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const SavedResult& profile = inputs[i]->profile;
    std::uint64_t end = CurveEnd(profile.points);
    for (const UnreadableRange& r : profile.unreadable) {
      end = std::max(end, r.offset_bytes + r.length_bytes);
    }
    const std::uint64_t device = DeviceBytes(profile, end);
    for (const UnreadableRange& r : profile.unreadable) {
      const std::uint64_t r_end = r.offset_bytes + r.length_bytes;
      if (numbered) s += std::to_string(i + 1) + ' ';
      s += FormatFixed(Gb(r.offset_bytes), 9) + ' ' + FormatFixed(Gb(r_end), 9) + ' ' +
           FormatFixed(Percent(static_cast<double>(r.offset_bytes), device), 6) + ' ' +
           FormatFixed(Percent(static_cast<double>(r_end), device), 6) + ' ' +
           std::to_string(r.length_bytes) + ' ' + std::to_string(r.errno_value) + '\n';
    }
  }
  return s;
}

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

double OneXMbPerS(Media media) { return OneXBytesPerS(media) / kMB; }

std::string OneXText(Media media) { return FormatFixed(OneXMbPerS(media), 4); }

// Average rate: the run's own (bytes / read time) when the file has it, else
// the length-weighted mean of the curve (the same thing for one pass).
double AverageMbPerS(const SavedResult& profile) {
  if (profile.avg_mb_per_s && *profile.avg_mb_per_s > 0) return *profile.avg_mb_per_s;
  double bytes = 0;
  double seconds = 0;
  for (const CurvePoint& p : profile.points) {
    if (p.mb_per_s <= 0) continue;
    bytes += static_cast<double>(p.length_bytes);
    seconds += static_cast<double>(p.length_bytes) / (p.mb_per_s * kMB);
  }
  return seconds > 0 ? bytes / seconds / kMB : 0;
}

// One bar of the histogram: about 40 bars over the range, on a 1-2-5 step.
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

// Output commands: the first image before the plot command, the others
// re-plotted after it.

// Writes `text` to `path` (via a temporary name), refusing to replace one of
// `inputs`' source files.
void WriteText(const fs::path& path, const std::string& text,
               const std::vector<PlotInput>& inputs) {
  for (const PlotInput& in : inputs) {
    std::error_code ec;
    if (!in.profile.source.empty() && fs::equivalent(path, in.profile.source, ec)) {
      throw Error("plot file " + path.string() + " would replace the input " + in.profile.source +
                      ": choose another image name (-o)",
                  ErrorKind::kBadInput);
    }
  }
  WriteFileAtomically(path.string(), text);
}

// Labels as given, made unique by the file name when two are equal (the same
// disk model over two buses).
std::vector<std::string> UniqueLabels(const std::vector<PlotInput>& inputs) {
  std::vector<std::string> labels;
  for (const PlotInput& in : inputs) labels.push_back(in.label);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto same = std::count(labels.begin(), labels.end(), labels[i]);
    if (same > 1) {
      const std::string original = labels[i];
      for (std::size_t j = 0; j < labels.size(); ++j) {
        if (labels[j] == original) {
          labels[j] = original + " (" + Basename(inputs[j].profile.source) + ")";
        }
      }
    }
  }
  return labels;
}

std::string Joined(const std::vector<std::string>& labels) {
  if (labels.size() > 3) return std::to_string(labels.size()) + " results";
  std::string s;
  for (std::size_t i = 0; i < labels.size(); ++i) s += (i ? " vs " : "") + labels[i];
  return s;
}

// A common optical media of all inputs, else kNone.
Media CommonMedia(const std::vector<PlotInput>& inputs) {
  const Media first = inputs.front().media;
  for (const PlotInput& in : inputs) {
    if (in.media != first) return Media::kNone;
  }
  return first;
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

// The falloff plot's values and data files.
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

// The comparison's blocks above its y axis (`axis_top`), every input's in
// one file NAME.offscale.dat, each line starting with its input's number.
void FillComparisonOffScale(const std::vector<PlotInput>& inputs,
                            const std::vector<std::string>& labels, const fs::path& dir,
                            const std::string& name, double axis_top,
                            std::map<std::string, std::string>& v, std::set<std::string>& flags,
                            PlotFiles& files) {
  std::string lines;
  std::size_t count = 0;
  double max = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Curve& points = inputs[i].profile.points;
    const std::vector<std::uint64_t> off = OffScaleBlocks(points, axis_top);
    if (off.empty()) continue;
    for (std::uint64_t b : off) max = std::max(max, points.mb_per_s(b));
    count += off.size();
    lines += MarkLines(points, off, DeviceBytes(inputs[i].profile, CurveEnd(points)), true,
                       std::to_string(i + 1) + ' ');
  }
  if (count == 0) return;
  flags.insert("offscale");
  v["offscale_data"] = name + ".offscale.dat";
  v["offscale_title"] = OffScaleTitle(count, max);
  std::string s = "# zcav plot data: blocks above the top of the y axis (" +
                  FormatFixed(axis_top, 1) + " MB/s) of " + Joined(labels) +
                  ", drawn on its edge in their input's colour\n";
  s += "# Units: GB = 10^9 B, % of the input's device, MB/s = 10^6 B/s; one line per block, or "
       "per bucket of consecutive blocks (as in the curve data) when an input has more than " +
       std::to_string(kMaxCurveLines) + ".\n";
  s += "# input position_gb position_pct highest_mb_per_s blocks\n";
  WriteText(dir / v["offscale_data"], s + lines, inputs);
  files.data_paths.push_back((dir / v["offscale_data"]).string());
}

// Values of the multi-input plots: one data file per input (two for
// concurrent), the array assignments, the title.
void FillMulti(PlotKind kind, const std::vector<PlotInput>& inputs, const fs::path& dir,
               const std::string& name, std::map<std::string, std::string>& v,
               std::set<std::string>& flags, PlotFiles& files) {
  const std::vector<std::string> labels = UniqueLabels(inputs);
  std::string assignments;
  double top = 0;
  double bulk_top = 0;  // comparison: the bulk of every input (RateAxisTop)
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const PlotInput& in = inputs[i];
    const std::string n = std::to_string(i + 1);
    const std::string base = name + "-" + n;
    std::string line;
    if (kind == PlotKind::kConcurrent) {
      WriteText(dir / (base + ".alone.dat"),
                CurveData(in.profile.points, in.profile, "read rate of " + labels[i] + ", alone"),
                inputs);
      WriteText(dir / (base + ".together.dat"),
                CurveData(in.concurrent, in.profile,
                          "read rate of " + labels[i] + " while the other devices were read"),
                inputs);
      files.data_paths.push_back((dir / (base + ".alone.dat")).string());
      files.data_paths.push_back((dir / (base + ".together.dat")).string());
      line = "alone[" + n + "] = " + GpQuote(base + ".alone.dat") + "; together[" + n +
             "] = " + GpQuote(base + ".together.dat") + "; ";
      top = std::max({top, MaxRate(in.profile.points), MaxRate(in.concurrent)});
    } else {
      const bool access = kind == PlotKind::kAccess || kind == PlotKind::kHistogram;
      const std::string file = base + (access ? ".access.dat" : ".curve.dat");
      WriteText(dir / file,
                access ? AccessData(in)
                       : CurveData(in.profile.points, in.profile, "read rate of " + labels[i]),
                inputs);
      files.data_paths.push_back((dir / file).string());
      line = "data[" + n + "] = " + GpQuote(file) + "; ";
      top = std::max(top, MaxRate(in.profile.points));
      if (kind == PlotKind::kComparison) {
        bulk_top = std::max({bulk_top, CurveBulkTop(in.profile.points, false, DrawnZones(in.zones)),
                             LevelsTop(in.zones)});
      }
    }
    assignments += line + "label[" + n + "] = " + GpQuote(labels[i]) + "\n";
  }
  if (!assignments.empty()) assignments.pop_back();
  v["inputs"] = assignments;
  v["count"] = std::to_string(inputs.size());
  const double axis_top = RateAxisTop(top, bulk_top);
  v["y_max"] = YMax(axis_top);
  v["band_top"] = BandTop(axis_top);
  if (kind == PlotKind::kComparison) {
    FillComparisonOffScale(inputs, labels, dir, name, axis_top, v, flags, files);
  }
  // The comparison shades every input's unreadable ranges (in % of its
  // device), in one colour: the broken curve says whose they are.
  std::size_t unreadable = 0;
  for (const PlotInput& in : inputs) unreadable += in.profile.unreadable.size();
  if (kind == PlotKind::kComparison && unreadable > 0) {
    std::vector<const PlotInput*> all;
    for (const PlotInput& in : inputs) all.push_back(&in);
    flags.insert("unreadable");
    v["unreadable_data"] = name + ".unreadable.dat";
    v["unreadable_title"] = "unreadable (" + Regions(unreadable) + ")";
    WriteText(dir / v["unreadable_data"], UnreadableData(all, true), inputs);
    files.data_paths.push_back((dir / v["unreadable_data"]).string());
  }
  if (kind == PlotKind::kComparison) {
    const bool layers = flags.count("unreadable") > 0 || flags.count("offscale") > 0;
    flags.insert(layers ? "layers" : "one_layer");
    if (layers) flags.insert("marks");
  }
  std::string title;
  switch (kind) {
    case PlotKind::kComparison: {
      title = "Read rate by position: " + Joined(labels);
      const Media media = CommonMedia(inputs);
      if (media != Media::kNone) {
        flags.insert("optical");
        v["one_x"] = OneXText(media);
        v["media"] = MediaName(media);
        std::string averages;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
          averages += (i ? ", " : "") +
                      FormatFixed(AverageMbPerS(inputs[i].profile) / OneXMbPerS(media), 1) + "x";
        }
        title += " (average " + averages + ")";
      }
      break;
    }
    case PlotKind::kAccess:
      title = "Access time by position: " + Joined(labels);
      break;
    case PlotKind::kHistogram: {
      title = "Access time histogram: " + Joined(labels);
      v["bin_ms"] = FormatFixed(HistogramBinMs(inputs), 3);
      break;
    }
    case PlotKind::kConcurrent:
      title = "Read alone and together: " + Joined(labels);
      break;
    case PlotKind::kFalloff:
    case PlotKind::kMap:
    case PlotKind::kRandom:
      break;
  }
  v["title"] = GpQuoted(title);
}

// One input's random access cells as NAME-I.random.dat: a block per queue
// depth in `depths` the input has (two blank lines apart), a line per size.
std::string RandomData(const PlotInput& input, const std::string& label,
                       const std::vector<std::uint32_t>& depths) {
  const SavedResult& p = input.profile;
  std::string s = "# zcav plot data: random " +
                  (p.random_access_mode.empty() ? std::string("reads")
                                                : GpComment(p.random_access_mode) + "s") +
                  " of " + GpComment(label) + " by transfer size and queue depth\n";
  s += "# Units: MB = 10^6 B, ms = milliseconds; one block per queue depth, one line per size.\n";
  s += "# size_bytes queue_depth engine_depth iops mb_per_s mean_ms p50_ms p99_ms max_ms\n";
  bool first = true;
  for (const std::uint32_t depth : depths) {
    std::vector<RandomAccessCell> cells;
    for (const RandomAccessCell& c : p.random_access) {
      if (c.queue_depth == depth && c.iops > 0) cells.push_back(c);
    }
    if (cells.empty()) continue;
    std::sort(cells.begin(), cells.end(),
              [](const auto& a, const auto& b) { return a.size_bytes < b.size_bytes; });
    if (!first) s += "\n\n";
    first = false;
    for (const RandomAccessCell& c : cells) {
      s += std::to_string(c.size_bytes) + ' ' + std::to_string(c.queue_depth) + ' ' +
           std::to_string(c.engine_depth) + ' ' + FormatFixed(c.iops, 1) + ' ' +
           FormatFixed(c.mb_per_s, 3) + ' ' + FormatFixed(c.mean_ms, 4) + ' ' +
           FormatFixed(c.p50_ms, 4) + ' ' + FormatFixed(c.p99_ms, 4) + ' ' +
           FormatFixed(c.max_ms, 4) + '\n';
    }
  }
  return s;
}

// The random access plot: a line per (input, queue depth), coloured by the
// depth, dashed by the input; x the transfer size on a log2 axis.
void FillRandom(const std::vector<PlotInput>& inputs, const fs::path& dir, const std::string& name,
                std::map<std::string, std::string>& v, PlotFiles& files) {
  const std::vector<std::string> labels = UniqueLabels(inputs);
  std::set<std::uint32_t> all_depths;
  std::set<std::uint64_t> sizes;
  std::set<std::string> modes;
  for (const PlotInput& in : inputs) {
    for (const RandomAccessCell& c : in.profile.random_access) {
      if (c.iops <= 0) continue;
      all_depths.insert(c.queue_depth);
      sizes.insert(c.size_bytes);
    }
    modes.insert(in.profile.random_access_mode.empty() ? "read" : in.profile.random_access_mode);
  }
  const std::vector<std::uint32_t> depths(all_depths.begin(), all_depths.end());
  std::string lines;
  std::size_t k = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string file = name + "-" + std::to_string(i + 1) + ".random.dat";
    WriteText(dir / file, RandomData(inputs[i], labels[i], depths), inputs);
    files.data_paths.push_back((dir / file).string());
    std::size_t block = 0;
    for (std::size_t d = 0; d < depths.size(); ++d) {
      const RandomAccessCell* cell = nullptr;
      for (const RandomAccessCell& c : inputs[i].profile.random_access) {
        if (c.queue_depth == depths[d] && c.iops > 0) cell = &c;
      }
      if (cell == nullptr) continue;
      std::string title = "depth " + std::to_string(depths[d]);
      if (cell->engine_depth < cell->queue_depth) {
        title += " (engine kept " + std::to_string(cell->engine_depth) + ")";
      }
      if (inputs.size() > 1) title = labels[i] + ", " + title;
      const std::string n = std::to_string(++k);
      lines += "file[" + n + "] = " + GpQuote(file) + "; block[" + n +
               "] = " + std::to_string(block++) + "; title[" + n + "] = " + GpQuote(title) +
               "; colour[" + n + "] = " + std::to_string(d + 1) + "; dash[" + n +
               "] = " + std::to_string(i + 1) + "\n";
    }
  }
  if (!lines.empty()) lines.pop_back();
  v["lines"] = std::to_string(k);
  v["line_list"] = lines;
  std::string tics;
  for (const std::uint64_t size : sizes) {
    tics +=
        (tics.empty() ? "" : ", ") + GpQuote(ExactBinarySize(size)) + " " + std::to_string(size);
  }
  v["size_tics"] = tics;
  // Half an octave beyond the smallest and largest size.
  v["x_min"] = FormatFixed(static_cast<double>(*sizes.begin()) / 1.5, 1);
  v["x_max"] = FormatFixed(static_cast<double>(*sizes.rbegin()) * 1.5, 1);
  const std::string what = modes.size() > 1            ? "Random access"
                           : *modes.begin() == "write" ? "Random writes"
                                                       : "Random reads";
  v["title"] = GpQuoted(what + " by transfer size and queue depth: " + Joined(labels));
}

// The surface map's colours, class 0 (< 5 ms) .. 6 (unreadable): light to
// dark grey and green for the fast classes (a healthy disk's bulk, quiet),
// yellow and orange for < 150 and < 500 ms, dark magenta for >= 500 ms and
// bright red for unreadable, as MHDD, Victoria and HD Tune users read them.
constexpr std::array<const char*, 7> kMapColours{"0xd0d0d0", "0x9a9a9a", "0x4caf50", "0xffd600",
                                                 "0xff8c00", "0x9c1a6e", "0xff0000"};
// At most this many labelled rows on the y axes (about 22 pixels apart).
constexpr std::uint32_t kMaxRowLabels = 20;

// Decimals that tell apart positions `step_gb` apart (at least 0, at most 3).
int GbDecimals(double step_gb) {
  if (step_gb <= 0) return 3;
  return std::clamp(static_cast<int>(std::ceil(-std::log10(step_gb))) + 1, 0, 3);
}

// "'label' pos, 'label' pos": gnuplot tics with explicit labels.
std::string TicList(const std::vector<std::pair<std::string, double>>& tics) {
  std::string s;
  for (const auto& [label, at] : tics) {
    s += (s.empty() ? "" : ", ") + GpQuote(label) + " " + FormatFixed(at, 2);
  }
  return s;
}

// The map's legend entries: each class, its count, the chunk size in the
// key's title.
void FillMapKey(const SurfaceMap& m, std::map<std::string, std::string>& v) {
  std::string colours;
  for (const char* c : kMapColours) colours += (colours.empty() ? "" : ", ") + std::string(c);
  v["colours"] = colours;
  std::string labels;
  for (std::size_t i = 0; i < kMapColours.size(); ++i) {
    const auto c = static_cast<LatencyClass>(i);
    const std::uint64_t n =
        c == LatencyClass::kUnreadable ? m.counts.unreadable_chunks : m.counts.chunks[i];
    labels += (labels.empty() ? "" : "\n") + std::string("label[") + std::to_string(i + 1) +
              "] = " + GpQuote(std::string(LatencyClassLabel(c)) + ": " + std::to_string(n));
  }
  v["labels"] = labels;
  const std::string chunk = "chunk " + ChunkSizeText(m.chunk_bytes);
  v["key_title"] = GpQuoted(m.counts_are_chunks ? "chunks (" + chunk + ")"
                                                : "blocks (" + chunk + ", estimated)");
}

// The surface map's values and data file NAME.map.dat.
void FillMap(const std::vector<PlotInput>& inputs, const fs::path& dir, const std::string& name,
             std::map<std::string, std::string>& v, PlotFiles& files) {
  const PlotInput& in = inputs.front();
  const SurfaceMap m = BuildSurfaceMap(in.profile);
  const std::uint64_t device = std::max<std::uint64_t>(m.device_bytes, 1);
  const std::uint64_t row_bytes = m.stride_bytes * m.blocks_per_cell * m.columns;
  const std::uint64_t block_bytes = in.profile.plan && in.profile.plan->block_bytes
                                        ? in.profile.plan->block_bytes
                                    : in.profile.block_bytes ? in.profile.block_bytes
                                                             : m.stride_bytes;
  const bool all_estimated = m.rated_blocks > 0 && m.estimated_blocks == m.rated_blocks;
  std::string estimate;
  if (all_estimated) {
    estimate = "chunk times estimated from block rates";
  } else if (m.estimated_blocks > 0) {
    estimate = Blocks(m.estimated_blocks) + "' chunk times estimated from their rates";
  }
  v["data"] = name + ".map.dat";
  std::string s = "# zcav plot data: surface map of " + GpComment(in.label) + "\n";
  s += "# Units: GB = 10^9 B, % of the device's size (" + std::to_string(device) +
       " bytes), ms = milliseconds; one line per cell, row by row, left to right.\n";
  s += "# " + std::to_string(m.block_slots) + " blocks of " + ChunkSizeText(block_bytes) + ", " +
       std::to_string(m.blocks_per_cell) + (m.blocks_per_cell == 1 ? " block" : " blocks") +
       " per cell (a cell takes its slowest block), " + std::to_string(m.columns) + " columns, " +
       std::to_string(m.rows) + " rows; chunk " + ChunkSizeText(m.chunk_bytes) + ".\n";
  if (!estimate.empty()) s += "# " + estimate + " (chunk size / median rate).\n";
  s += "# class: 0 < 5 ms, 1 < 20 ms, 2 < 50 ms, 3 < 150 ms, 4 < 500 ms, 5 >= 500 ms, "
       "6 unreadable\n";
  s += "# column row class start_gb end_gb start_pct end_pct worst_ms blocks\n";
  for (const MapCell& c : m.cells) {
    s += std::to_string(c.column) + ' ' + std::to_string(c.row) + ' ' +
         std::to_string(static_cast<int>(c.latency)) + ' ' + FormatFixed(Gb(c.start_bytes), 6) +
         ' ' + FormatFixed(Gb(c.end_bytes), 6) + ' ' +
         FormatFixed(Percent(static_cast<double>(c.start_bytes), device), 4) + ' ' +
         FormatFixed(Percent(static_cast<double>(c.end_bytes), device), 4) + ' ' +
         FormatFixed(c.worst_ms, 3) + ' ' + std::to_string(c.blocks) + '\n';
  }
  WriteText(dir / v["data"], s, inputs);
  files.data_paths.push_back((dir / v["data"]).string());

  v["columns"] = std::to_string(m.columns);
  v["rows"] = std::to_string(m.rows);
  // A gap between cells while they are large enough to show it.
  v["gap"] = m.cells.size() > 2000 ? "0.04" : "0.08";
  const std::uint32_t every = (m.rows + kMaxRowLabels - 1) / kMaxRowLabels;
  const int decimals = GbDecimals(Gb(row_bytes * every));
  std::vector<std::pair<std::string, double>> gb, pct;
  for (std::uint32_t r = 0; r < m.rows; r += every) {
    const double start = static_cast<double>(m.first_bytes + r * row_bytes);
    gb.emplace_back(FormatFixed(start / kGB, decimals), r + 0.5);
    pct.emplace_back(FormatFixed(Percent(start, device), 1), r + 0.5);
  }
  v["ytics"] = TicList(gb);
  v["y2tics"] = TicList(pct);
  std::vector<std::pair<std::string, double>> x;
  const int x_decimals = GbDecimals(Gb(row_bytes) / 4);
  for (int q = 0; q <= 4; ++q) {
    const double at = static_cast<double>(m.columns) * q / 4;
    x.emplace_back("+" + FormatFixed(Gb(row_bytes) * q / 4, x_decimals), at);
  }
  v["xtics"] = TicList(x);
  const std::uint64_t cell_bytes = m.stride_bytes * m.blocks_per_cell;
  v["xlabel"] = GpQuoted("GB from the row start; a cell = " +
                         (m.blocks_per_cell == 1 ? std::string("a block")
                                                 : std::to_string(m.blocks_per_cell) + " blocks") +
                         " (" + ChunkSizeText(cell_bytes) + "), a row " +
                         FormatFixed(Gb(row_bytes), x_decimals) + " GB");
  std::string detail =
      "surface map: slowest chunk per cell (chunk " + ChunkSizeText(m.chunk_bytes) + ")";
  if (!estimate.empty()) detail += ", " + estimate;
  v["title"] = GpQuoted(in.label) + "' . \"\\n\" . '" + GpQuoted(detail);
  FillMapKey(m, v);
}

void CheckInputs(PlotKind kind, const std::vector<PlotInput>& inputs) {
  if (inputs.empty()) throw Error("nothing to plot (no input)", ErrorKind::kBadInput);
  if ((kind == PlotKind::kFalloff || kind == PlotKind::kMap) && inputs.size() > 1) {
    throw Error(std::string("a ") + PlotKindName(kind) + " plot shows one result, " +
                    std::to_string(inputs.size()) + " given (" +
                    (kind == PlotKind::kMap ? "plot each on its own" : "use --kind comparison") +
                    ")",
                ErrorKind::kBadInput);
  }
  for (const PlotInput& in : inputs) {
    const std::string who = in.label.empty() ? in.profile.source : in.label;
    const bool access = kind == PlotKind::kAccess || kind == PlotKind::kHistogram;
    if (access && in.access.empty()) {
      throw Error(who +
                      ": no access-time samples to plot (this result has only a throughput "
                      "curve; use --kind falloff or comparison)",
                  ErrorKind::kBadInput);
    }
    if (kind == PlotKind::kMap && in.profile.points.empty() && in.profile.unreadable.empty()) {
      throw Error(who + ": no blocks to map", ErrorKind::kBadInput);
    }
    if (kind == PlotKind::kMap && in.profile.adaptive) {
      throw Error(who +
                      ": an adaptive result has no surface map: it read probes, not the surface "
                      "(sweep without --adaptive for one)",
                  ErrorKind::kBadInput);
    }
    if (kind == PlotKind::kRandom) {
      const bool any = std::any_of(in.profile.random_access.begin(), in.profile.random_access.end(),
                                   [](const RandomAccessCell& c) { return c.iops > 0; });
      if (!any) {
        throw Error(who +
                        ": no random access results to plot (measure them with zcav access "
                        "--sizes or zcav profile)",
                    ErrorKind::kBadInput);
      }
      continue;
    }
    if (!access && kind != PlotKind::kMap && in.profile.points.empty()) {
      throw Error(who + ": no data points to plot", ErrorKind::kBadInput);
    }
    if (kind == PlotKind::kConcurrent && in.concurrent.empty()) {
      throw Error(who + ": no concurrent run to plot (use --kind falloff or comparison)",
                  ErrorKind::kBadInput);
    }
  }
}

}  // namespace

namespace {

constexpr EnumName<PlotKind> kPlotKindNames[] = {
    {PlotKind::kFalloff, "falloff"},       {PlotKind::kComparison, "comparison"},
    {PlotKind::kAccess, "access"},         {PlotKind::kHistogram, "histogram"},
    {PlotKind::kConcurrent, "concurrent"}, {PlotKind::kMap, "map"},
    {PlotKind::kRandom, "random"},
};

}  // namespace

const char* PlotKindName(PlotKind kind) { return NameOf(kind, kPlotKindNames, "falloff"); }

PlotKind ParsePlotKind(const std::string& text) {
  if (const std::optional<PlotKind> kind = ValueOf(text, kPlotKindNames)) return *kind;
  throw Error("unknown plot kind '" + text +
                  "' (use falloff, comparison, access, histogram, concurrent, map or random)",
              ErrorKind::kBadInput);
}

std::string DefaultPlotLabel(const SavedResult& profile) {
  if (!profile.device_model.empty()) {
    return profile.transport.empty() ? profile.device_model
                                     : profile.device_model + " (" + profile.transport + ")";
  }
  return Basename(profile.source);
}

PlotInput LoadPlotInput(const std::string& path, const std::string& label,
                        const ZoneOptions& options, bool media_given, Media media) {
  PlotInput input;
  input.profile = ReadProfile(path);
  input.media = media_given ? media : GuessMedia(input.profile.device_path);
  // What the file recorded: how blurred its blocks are, whether the device rotates.
  ZoneOptions recorded = options;
  if (recorded.blur_blocks <= 0) recorded.blur_blocks = input.profile.blur_blocks;
  recorded.non_rotational =
      recorded.non_rotational || KnownNotToRotate(RecordedDevice(input.profile));
  input.zones = ResultZones(input.profile, recorded, input.media != Media::kNone);
  input.label = label.empty() ? DefaultPlotLabel(input.profile) : label;
  input.access = input.profile.access_samples;
  return input;
}

PlotInput LoadRandomPlotInput(const std::string& path, const std::string& label) {
  PlotInput input;
  input.profile = ReadRandomAccess(path);
  input.label = label.empty() ? DefaultPlotLabel(input.profile) : label;
  return input;
}

PlotFiles WritePlot(PlotKind kind, const std::vector<PlotInput>& inputs, const std::string& dir,
                    const std::string& name, const std::vector<std::string>& images) {
  if (!IsSafeFileName(name)) {
    throw Error("invalid plot name '" + GpComment(name) +
                    "' (a file name without a directory, of A-Z a-z 0-9 . _ -)",
                ErrorKind::kBadInput);
  }
  std::vector<std::string> outputs =
      images.empty() ? std::vector<std::string>{name + ".png"} : images;
  for (const std::string& image : outputs) {
    if (!EndsWith(image, ".png") && !EndsWith(image, ".svg")) {
      throw Error("image " + image + ": the name must end in .png or .svg", ErrorKind::kBadInput);
    }
    if (!IsSafeFileName(image)) {
      throw Error(
          "image '" + GpComment(image) + "': a file name without a directory, of A-Z a-z 0-9 . _ -",
          ErrorKind::kBadInput);
    }
  }
  CheckInputs(kind, inputs);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create directory " + dir + ": " + ec.message(), ErrorKind::kRuntime);

  PlotFiles files;
  const fs::path d(dir);
  files.script_path = (d / (name + ".gp")).string();
  std::map<std::string, std::string> values;
  std::set<std::string> flags;
  values["script"] = name + ".gp";
  if (kind == PlotKind::kFalloff) {
    FillFalloff(inputs, d, name, values, flags, files);
  } else if (kind == PlotKind::kMap) {
    FillMap(inputs, d, name, values, files);
  } else if (kind == PlotKind::kRandom) {
    FillRandom(inputs, d, name, values, files);
  } else {
    FillMulti(kind, inputs, d, name, values, flags, files);
  }
  std::string first =
      "# Images: the terminal follows the extension (pngcairo for .png, svg "
      "for .svg).\n";
  first += GnuplotTerminal(outputs.front()) + "\nset output " + GpQuote(outputs.front());
  std::string more;
  for (std::size_t i = 1; i < outputs.size(); ++i) {
    more += GnuplotTerminal(outputs[i]) + "\nset output " + GpQuote(outputs[i]) + "\nreplot\n";
  }
  more += "unset output";
  values["output"] = first;
  values["more_outputs"] = more;
  // A template that draws several plots per image (multiplot) loops over
  // the images itself: their terminals and names as gnuplot arrays.
  std::string image_list;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    image_list += (i ? "\n" : "") + std::string("terminal[") + n +
                  "] = " + GpQuote(GnuplotTerminal(outputs[i])) + "; image[" + n +
                  "] = " + GpQuote(outputs[i]);
  }
  values["images"] = std::to_string(outputs.size());
  values["image_list"] = image_list;
  for (const std::string& image : outputs) files.image_paths.push_back((d / image).string());
  WriteText(files.script_path, Expand(TemplateOf(kind), values, flags), inputs);
  return files;
}

std::string GnuplotTerminal(const std::string& image) {
  const std::string size = " size " + std::to_string(kWidthPx) + "," + std::to_string(kHeightPx);
  if (EndsWith(image, ".svg")) {
    return "set terminal svg" + size + " font 'sans,10' background rgb 'white'";
  }
  return "set terminal pngcairo" + size + " font 'sans,10'";
}

bool GnuplotAvailable() { return CanDrawImages(CurrentGnuplot()); }

namespace {

// A directory made by mkdtemp, removed with its contents on destruction.
class TempDir {
 public:
  explicit TempDir(const fs::path& pattern_prefix) {
    std::string pattern = pattern_prefix.string() + "XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw Error("cannot create a temporary directory " + pattern + ": " +
                      std::generic_category().message(errno),
                  ErrorKind::kRuntime);
    }
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string FileName(const std::string& path) { return fs::path(path).filename().string(); }

// The directory holding the script (and its data), and the images drawn.
std::vector<std::string> RenderImages(const PlotFiles& files) {
  const fs::path script(files.script_path);
  const std::string dir = script.parent_path().empty() ? "." : script.parent_path().string();
  std::vector<std::string> data;
  for (const std::string& path : files.data_paths) {
    assert(fs::path(path).parent_path() == script.parent_path());
    data.push_back(FileName(path));
  }
  std::vector<std::string> images;
  for (const std::string& path : files.image_paths) images.push_back(FileName(path));
  return CurrentGnuplot().Render(dir, script.filename().string(), data, images);
}

}  // namespace

void RenderPlot(const PlotFiles& files) {
  const std::vector<std::string> drawn = RenderImages(files);
  for (std::size_t i = 0; i < files.image_paths.size(); ++i) {
    WriteFileAtomically(files.image_paths[i], drawn[i]);
  }
}

std::string RenderSvg(PlotKind kind, const std::vector<PlotInput>& inputs) {
  return RenderSvgWith(
      [&](const std::string& dir) { return WritePlot(kind, inputs, dir, "plot", {"plot.svg"}); });
}

std::string RenderSvgWith(const std::function<PlotFiles(const std::string& dir)>& write) {
  if (!GnuplotAvailable()) {
    throw Error("gnuplot (with the svg terminal) is not installed: cannot draw the plot",
                ErrorKind::kRuntime);
  }
  const TempDir dir(fs::temp_directory_path() / "zcav-plot-");
  const PlotFiles files = write(dir.path().string());
  return RenderImages(files).front();
}

}  // namespace zcav
