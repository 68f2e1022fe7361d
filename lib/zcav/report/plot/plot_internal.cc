// Plots, inside: the quoting, positions, legends and data files the kinds
// of plot share (see plot_internal.h).
#include "zcav/report/plot/plot_internal.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/base/atomic_file.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/format/zone_table.h"

namespace zcav::plot_detail {

namespace {

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

}  // namespace

std::string GpQuoted(const std::string& text) {
  const std::string q = GpQuote(text);
  return q.substr(1, q.size() - 2);
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string Basename(const std::string& path) { return fs::path(path).filename().string(); }

double Gb(std::uint64_t bytes) { return static_cast<double>(bytes) / kGB; }

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

std::string YMax(double axis_top_mb_per_s) {
  return axis_top_mb_per_s > 0 ? FormatFixed(axis_top_mb_per_s, 1) : "*";
}

std::string BandTop(double axis_top_mb_per_s) {
  return axis_top_mb_per_s > 0 ? YMax(axis_top_mb_per_s) : "1";
}

std::string Blocks(std::size_t n) { return std::to_string(n) + (n == 1 ? " block" : " blocks"); }

std::string Regions(std::size_t n) { return std::to_string(n) + (n == 1 ? " region" : " regions"); }

std::string OffScaleTitle(std::size_t count, double max_mb_per_s) {
  return Blocks(count) + " off scale (max " + FormatFixed(max_mb_per_s, 1) + " MB/s)";
}

double OneXMbPerS(Media media) { return OneXBytesPerS(media) / kMB; }

std::string OneXText(Media media) { return FormatFixed(OneXMbPerS(media), 4); }

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

}  // namespace zcav::plot_detail
