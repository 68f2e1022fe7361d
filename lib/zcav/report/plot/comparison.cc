// Plots, inside: the plots of several results (PlotKind::kComparison,
// kAccess, kHistogram, kConcurrent). FillMulti writes a data file per input
// (two for concurrent: alone and together) and the arrays the templates loop
// over; the comparison, read rate against % of each device, adds its
// off-scale blocks, unreadable ranges and an X-speed axis on common optical
// media.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "zcav/base/text.h"
#include "zcav/format/zone_table.h"
#include "zcav/report/plot/plot_internal.h"

namespace zcav::plot_detail {

namespace {

// A common optical media of all inputs, else kNone.
Media CommonMedia(const std::vector<PlotInput>& inputs) {
  const Media first = inputs.front().media;
  for (const PlotInput& in : inputs) {
    if (in.media != first) return Media::kNone;
  }
  return first;
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

}  // namespace

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
    case PlotKind::kVerify:
      break;
  }
  v["title"] = GpQuoted(title);
}

}  // namespace zcav::plot_detail
