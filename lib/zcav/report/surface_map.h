// The surface map: a saved result's blocks as a grid of cells in position
// order (left to right, top to bottom, as HD Tune's Error Scan and
// Victoria's grid), each cell in the latency class of its slowest chunk
// (sample.h: < 5, < 20, < 50, < 150, < 500, >= 500 ms, unreadable). Pure
// computation over a SavedResult; plot.h draws it (PlotKind::kMap) and report.h
// tabulates the classes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "zcav/format/data_reader.h"
#include "zcav/measure/sample.h"

namespace zcav {

// At most this many cells: more blocks are grouped (SurfaceMapOptions).
inline constexpr std::size_t kMaxMapCells = 4000;

// One cell: `blocks` consecutive block slots of the sweep's grid.
struct MapCell {
  std::uint32_t column = 0;  // 0-based, left to right
  std::uint32_t row = 0;     // 0-based, top to bottom
  std::uint64_t start_bytes = 0;
  std::uint64_t end_bytes = 0;  // exclusive: the end of its last block
  std::uint64_t blocks = 0;     // block slots in the cell
  // The worst of its blocks' classes; kUnreadable when a block had no clean
  // read or an unreadable range overlaps [start_bytes, end_bytes).
  LatencyClass latency = LatencyClass::kBelow5;
  double worst_ms = 0;  // its slowest clean chunk, ms (0 when none was read cleanly)
};

struct SurfaceMap {
  std::vector<MapCell> cells;  // position order: row by row, each left to right
  std::uint32_t columns = 0;
  std::uint32_t rows = 0;
  std::uint64_t block_slots = 0;  // blocks of the grid (missing ones included)
  std::uint64_t blocks_per_cell = 1;
  std::uint64_t stride_bytes = 0;  // from one block's start to the next (block x skip)
  std::uint64_t first_bytes = 0;   // where the first cell starts
  std::uint64_t device_bytes = 0;  // SavedResult.device_bytes, else the end of the data
  // The chunk size the classes are for: SavedResult.chunk_bytes, else the
  // recorded plan's, else the block size (each block one chunk).
  std::uint64_t chunk_bytes = 0;
  // Blocks whose chunk time was estimated from their median rate
  // (chunk_bytes / rate) because the result has no worst_chunk_ms for them
  // (raw, CSV and classic files; resumed blocks), and the blocks with a rate.
  std::uint64_t estimated_blocks = 0;
  std::uint64_t rated_blocks = 0;
  // Chunks by class: SavedResult.latency_classes summed over the passes when the
  // result has them (counts_are_chunks), else the grid's blocks by class
  // (a block with no clean read or touching an unreadable range: unreadable).
  LatencyClasses counts;
  bool counts_are_chunks = false;
};

// The grid of `profile`. Block slots: the recorded plan's grid (start, block
// x skip) when there is one, else the curve's (the first point's offset and
// the smallest step between points), reaching from the first to the last
// point or unreadable range; slots with no point are blocks with no clean
// read. More than `max_cells` slots are grouped, ceil(slots / max_cells)
// consecutive ones per cell. Columns: about sqrt(1.5 x cells) (a plot area
// half again as wide as tall), rows = ceil(cells / columns).
// A block's chunk time: SavedResult.worst_chunk_ms when it has one above 0 for
// it (parallel to points), else chunk_bytes / its median rate (0 MB/s:
// >= 500 ms). An empty profile (no points, no unreadable range) gives no
// cells. REQUIRES: max_cells > 0.
SurfaceMap BuildSurfaceMap(const SavedResult& profile, std::size_t max_cells = kMaxMapCells);

// True when the result recorded latency data (classes or per-block worst
// chunks): what the reports' map and latency table need. Never for an
// adaptive result: it read probes, not the surface, and a map would draw
// the surface between them as blocks with no clean read.
bool HasLatencyData(const SavedResult& profile);

// "1 MiB", "128 KiB", "1.5 MiB", "4096 B": a chunk size for legends.
std::string ChunkSizeText(std::uint64_t bytes);

}  // namespace zcav
