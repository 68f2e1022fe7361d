// Plots, inside: the surface map (PlotKind::kMap): one result's blocks as a
// grid of cells coloured by their slowest chunk's latency class
// (BuildSurfaceMap, surface_map.h).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/report/plot/plot_internal.h"
#include "zcav/report/surface_map.h"

namespace zcav::plot_detail {

namespace {

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

}  // namespace

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

}  // namespace zcav::plot_detail
