// The surface map: see surface_map.h.
#include "zcav/report/surface_map.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>

#include "zcav/base/text.h"
#include "zcav/base/units.h"

namespace zcav {
namespace {

// Column counts the grid rounds up to, so the x axis reads in round steps.
constexpr std::array<std::uint32_t, 16> kNiceColumns{1,  2,  4,  5,  8,  10, 16,  20,
                                                     25, 32, 40, 50, 64, 80, 100, 128};
// The plot area is about half again as wide as it is tall (plot/map.cc:
// 1000 x 600 pixels, the key on the right): sqrt(1.5 x cells) columns keep
// the cells about square.
constexpr double kAspect = 1.5;

std::uint32_t ColumnsFor(std::size_t cells) {
  const double ideal = std::ceil(std::sqrt(kAspect * static_cast<double>(cells)));
  std::uint32_t columns = kNiceColumns.back();
  for (const std::uint32_t c : kNiceColumns) {
    if (c >= ideal) {
      columns = c;
      break;
    }
  }
  return static_cast<std::uint32_t>(
      std::min<std::size_t>(std::max<std::uint32_t>(columns, 1), std::max<std::size_t>(cells, 1)));
}

LatencyClass Worse(LatencyClass a, LatencyClass b) { return a > b ? a : b; }

// The block grid a result's points sit on.
struct Grid {
  std::uint64_t origin = 0;      // where slot 0 starts
  std::uint64_t stride = 1;      // bytes from one slot to the next
  std::uint64_t block = 1;       // a slot's length (the last may be shorter)
  std::uint64_t first_slot = 0;  // the first slot with data
  std::uint64_t slots = 0;       // slots from the first to the last with data
  std::uint64_t end = 0;         // the end of the data (exclusive)
};

Grid GridOf(const SavedResult& p) {
  Grid g;
  const Curve& points = p.points;
  std::uint64_t data_start = UINT64_MAX;
  std::uint64_t data_end = 0;
  if (!points.empty()) {
    data_start = points.front().offset_bytes;
    const CurvePoint last = points[points.size() - 1];
    data_end = last.offset_bytes + last.length_bytes;
  }
  for (const UnreadableRange& r : p.unreadable) {
    data_start = std::min(data_start, r.offset_bytes);
    data_end = std::max(data_end, r.offset_bytes + r.length_bytes);
  }
  if (p.plan && p.plan->block_bytes > 0) {
    g.block = p.plan->block_bytes;
    g.stride = p.plan->block_bytes * std::max<std::uint32_t>(1, p.plan->skip);
    g.origin = p.plan->start_bytes;
  } else {
    g.block = p.block_bytes > 0 ? p.block_bytes : 0;
    if (g.block == 0) g.block = !points.empty() ? points[0].length_bytes : data_end - data_start;
    std::uint64_t step = 0;
    for (std::size_t i = 1; i < points.size(); ++i) {
      const std::uint64_t d = points[i].offset_bytes - points[i - 1].offset_bytes;
      if (d > 0 && (step == 0 || d < step)) step = d;
    }
    g.stride = step > 0 ? step : g.block;
    g.origin = !points.empty() ? points.front().offset_bytes : data_start;
  }
  g.block = std::max<std::uint64_t>(g.block, 1);
  g.stride = std::max<std::uint64_t>(g.stride, 1);
  if (data_start < g.origin) {
    // An unreadable range before the first point: the grid reaches back to it.
    const std::uint64_t back = (g.origin - data_start + g.stride - 1) / g.stride;
    g.origin -= std::min(back, g.origin / g.stride) * g.stride;
  }
  g.end = data_end;
  const auto slot = [&](std::uint64_t at) {
    return at < g.origin ? 0 : (at - g.origin) / g.stride;
  };
  g.first_slot = slot(data_start);
  g.slots = data_end > data_start ? slot(data_end - 1) - g.first_slot + 1 : 0;
  return g;
}

}  // namespace

SurfaceMap BuildSurfaceMap(const SavedResult& profile, std::size_t max_cells) {
  assert(max_cells > 0);
  SurfaceMap m;
  const Curve& points = profile.points;
  if (points.empty() && profile.unreadable.empty()) return m;
  const Grid g = GridOf(profile);
  if (g.slots == 0) return m;
  m.block_slots = g.slots;
  m.stride_bytes = g.stride;
  m.blocks_per_cell = (g.slots + max_cells - 1) / max_cells;
  m.first_bytes = g.origin + g.first_slot * g.stride;
  m.device_bytes = profile.device_bytes > 0 ? profile.device_bytes : g.end;
  m.chunk_bytes = profile.chunk_bytes > 0                     ? profile.chunk_bytes
                  : profile.plan && profile.plan->chunk_bytes ? profile.plan->chunk_bytes
                                                              : g.block;
  const std::size_t cell_count = (g.slots + m.blocks_per_cell - 1) / m.blocks_per_cell;
  m.columns = ColumnsFor(cell_count);
  m.rows = static_cast<std::uint32_t>((cell_count + m.columns - 1) / m.columns);
  m.cells.resize(cell_count);
  std::vector<std::uint64_t> present(cell_count, 0);
  for (std::size_t c = 0; c < cell_count; ++c) {
    MapCell& cell = m.cells[c];
    cell.column = static_cast<std::uint32_t>(c % m.columns);
    cell.row = static_cast<std::uint32_t>(c / m.columns);
    const std::uint64_t first = g.first_slot + c * m.blocks_per_cell;
    cell.blocks = std::min<std::uint64_t>(m.blocks_per_cell, g.first_slot + g.slots - first);
    cell.start_bytes = g.origin + first * g.stride;
    const std::uint64_t last_start = g.origin + (first + cell.blocks - 1) * g.stride;
    cell.end_bytes = std::min(last_start + g.block, std::max(g.end, last_start + 1));
  }
  const auto cell_of = [&](std::uint64_t at) -> std::size_t {
    const std::uint64_t slot = at < g.origin ? 0 : (at - g.origin) / g.stride;
    const std::uint64_t rel = slot < g.first_slot ? 0 : slot - g.first_slot;
    return static_cast<std::size_t>(
        std::min<std::uint64_t>(rel / m.blocks_per_cell, cell_count - 1));
  };
  const bool recorded = profile.worst_chunk_ms.size() == points.size();
  const std::vector<UnreadableRange>& bad = profile.unreadable;
  LatencyClasses by_block;
  by_block.chunk_bytes = m.chunk_bytes;
  std::size_t next_bad = 0;  // the first range that may touch the current block
  for (std::size_t i = 0; i < points.size(); ++i) {
    const CurvePoint p = points[i];
    double ms = recorded ? static_cast<double>(profile.worst_chunk_ms[i]) : 0;
    if (ms <= 0) {
      ++m.estimated_blocks;
      const std::uint64_t chunk = std::min(m.chunk_bytes, p.length_bytes);
      ms = p.mb_per_s > 0 ? static_cast<double>(chunk) / (p.mb_per_s * kMB) * 1000
                          : kLatencyBoundsMs.back();
    }
    ++m.rated_blocks;
    const std::uint64_t end = p.offset_bytes + p.length_bytes;
    while (next_bad < bad.size() &&
           bad[next_bad].offset_bytes + bad[next_bad].length_bytes <= p.offset_bytes) {
      ++next_bad;
    }
    const bool touched = next_bad < bad.size() && bad[next_bad].offset_bytes < end;
    const LatencyClass c = touched ? LatencyClass::kUnreadable : LatencyClassOf(ms);
    if (c == LatencyClass::kUnreadable) {
      ++by_block.unreadable_chunks;
    } else {
      ++by_block.chunks[static_cast<std::size_t>(c)];
    }
    const std::size_t at = cell_of(p.offset_bytes);
    MapCell& cell = m.cells[at];
    ++present[at];
    cell.latency = Worse(cell.latency, c);
    cell.worst_ms = std::max(cell.worst_ms, ms);
  }
  for (std::size_t c = 0; c < cell_count; ++c) {
    if (present[c] < m.cells[c].blocks) m.cells[c].latency = LatencyClass::kUnreadable;
  }
  for (const UnreadableRange& r : bad) {
    if (r.length_bytes == 0) continue;
    for (std::size_t c = cell_of(r.offset_bytes); c <= cell_of(r.offset_bytes + r.length_bytes - 1);
         ++c) {
      m.cells[c].latency = LatencyClass::kUnreadable;
    }
  }
  // Slots with no point: blocks with no clean read.
  by_block.unreadable_chunks += g.slots - std::min<std::uint64_t>(g.slots, m.rated_blocks);
  if (!profile.latency_classes.empty()) {
    for (const LatencyClasses& pass : profile.latency_classes) m.counts.Add(pass);
    if (m.counts.chunk_bytes == 0) m.counts.chunk_bytes = m.chunk_bytes;
    m.counts_are_chunks = true;
  } else {
    m.counts = by_block;
  }
  return m;
}

bool HasLatencyData(const SavedResult& profile) {
  if (profile.adaptive) return false;  // probes, not the surface
  return !profile.latency_classes.empty() || !profile.worst_chunk_ms.empty();
}

std::string ChunkSizeText(std::uint64_t bytes) {
  static constexpr std::array<const char*, 4> kUnits{"KiB", "MiB", "GiB", "TiB"};
  if (bytes < kKiB) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes) / kKiB;
  std::size_t u = 0;
  while (v >= 1024 && u + 1 < kUnits.size()) {
    v /= 1024;
    ++u;
  }
  const bool whole = std::floor(v) == v;
  return FormatFixed(v, whole ? 0 : 1) + " " + kUnits[u];
}

}  // namespace zcav
