// Plots, inside: the random access plot (PlotKind::kRandom): IOPS and
// latency against the transfer size, a line per queue depth and input.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/report/plot/plot_internal.h"

namespace zcav::plot_detail {

namespace {

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

}  // namespace

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

}  // namespace zcav::plot_detail
