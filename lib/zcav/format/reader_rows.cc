// The rows every reader turns its format into, and their reduction to points
// (reader_internal.h): the order of offsets within a pass, and rows of the
// same offset (a pass printed more than once, runs concatenated into one
// file) reduced to their median. zcav's own formats are read as a stream, and
// their rows become points as they come while the offsets rise (RowReducer):
// a 20 M-block file never sits in memory as rows.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "zcav/format/reader_internal.h"

namespace zcav::reader {

namespace {

// The end of the note on blocks with fewer passes than the rest.
constexpr const char* kFewerPassesNote = " passes behind them (an interrupted or partial run)";

}  // namespace

bool PassOrder::Add(const Input& in, std::size_t line, std::uint64_t key,
                    const std::string& shown) {
  bool new_pass = false;
  if (!started_) {
    started_ = true;
    first_ = key;
    first_shown_ = shown;
    new_pass = true;
  } else if (key < last_ || (key == last_ && !equal_allowed_)) {
    if (key != first_) {
      in.Fail(line,
              "offset " + shown +
                  (key == last_ ? " appears twice in a row"
                                : " goes backwards (the previous row is at " + last_shown_ + ")") +
                  "; a repeated pass must start again at the first offset, " + first_shown_);
    }
    new_pass = true;
  }
  last_ = key;
  last_shown_ = shown;
  return new_pass;
}

// Merges rows of the same offset into one point per block (median rate,
// passes summed) in offset order, and says so in the notes.
void ReduceRows(const std::vector<Row>& rows, SavedResult& profile) {
  std::map<std::uint64_t, std::vector<const Row*>> by_offset;
  for (const Row& r : rows) by_offset[r.offset_bytes].push_back(&r);
  std::uint64_t max_passes = 0;
  std::vector<std::uint64_t> passes_of;
  std::size_t repeated = 0;
  for (const auto& [offset, group] : by_offset) {
    std::vector<double> rates;
    std::uint64_t passes = 0;
    std::uint64_t length = 0;
    // The spread of a merged point covers every row's spread; rows without
    // one count with their own rate. Unknown (0) when no row has a spread.
    bool spread_known = false;
    double lo = std::numeric_limits<double>::infinity();
    double hi = 0;
    for (const Row* r : group) {
      rates.push_back(r->mb_per_s);
      passes += r->passes;
      length = std::max(length, r->length_bytes);
      const bool has_spread = r->max_mb_per_s > 0;
      spread_known = spread_known || has_spread;
      lo = std::min(lo, has_spread ? r->min_mb_per_s : r->mb_per_s);
      hi = std::max(hi, has_spread ? r->max_mb_per_s : r->mb_per_s);
    }
    if (group.size() > 1) ++repeated;
    profile.points.push_back(CurvePoint{.offset_bytes = offset,
                                        .length_bytes = length,
                                        .mb_per_s = Median(rates),
                                        .min_mb_per_s = spread_known ? lo : 0,
                                        .max_mb_per_s = spread_known ? hi : 0});
    passes_of.push_back(passes);
    max_passes = std::max(max_passes, passes);
  }
  profile.passes = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(max_passes, std::numeric_limits<std::uint32_t>::max()));
  if (repeated > 0) {
    profile.notes.push_back(std::to_string(repeated) + " of " +
                            std::to_string(profile.points.size()) +
                            " blocks appear more than once (several passes or concatenated "
                            "runs): each point is the median of its rows");
  }
  const auto fewer = static_cast<std::size_t>(std::count_if(
      passes_of.begin(), passes_of.end(), [&](std::uint64_t p) { return p < max_passes; }));
  // An adaptive run read each probe as often as it needed (its "passes" are
  // its reads): not a partial run. (Every reader knows the adaptive member
  // before it reduces its rows.)
  if (fewer > 0 && !profile.adaptive) {
    profile.notes.push_back(std::to_string(fewer) + " of " + std::to_string(passes_of.size()) +
                            " blocks have fewer than " + std::to_string(max_passes) +
                            kFewerPassesNote);
  }
}

void RowReducer::Add(const Row& row) {
  if (!merging_ && (profile_.points.empty() || row.offset_bytes > last_offset_)) {
    // What ReduceRows makes of a block with one row.
    const bool spread = row.max_mb_per_s > 0;
    profile_.points.push_back(CurvePoint{.offset_bytes = row.offset_bytes,
                                         .length_bytes = row.length_bytes,
                                         .mb_per_s = row.mb_per_s,
                                         .min_mb_per_s = spread ? row.min_mb_per_s : 0,
                                         .max_mb_per_s = spread ? row.max_mb_per_s : 0});
    if (passes_.empty() || passes_.back().second != row.passes) {
      passes_.emplace_back(profile_.points.size() - 1, row.passes);
    }
    profile_.worst_chunk_ms.push_back(row.worst_chunk_ms);
    any_worst_ = any_worst_ || row.worst_chunk_ms > 0;
    last_offset_ = row.offset_bytes;
    return;
  }
  if (!merging_) {
    merging_ = true;
    profile_.worst_chunk_ms = {};  // not kept for merged rows
    std::size_t run = 0;
    std::size_t i = 0;
    for (const CurvePoint& p : profile_.points) {
      while (run + 1 < passes_.size() && passes_[run + 1].first <= i) ++run;
      rows_.push_back(Row{.offset_bytes = p.offset_bytes,
                          .length_bytes = p.length_bytes,
                          .mb_per_s = p.mb_per_s,
                          .passes = passes_[run].second,
                          .min_mb_per_s = p.min_mb_per_s,
                          .max_mb_per_s = p.max_mb_per_s});
      ++i;
    }
    profile_.points = Curve();
    passes_.clear();
  }
  rows_.push_back(row);
}

void RowReducer::Finish() {
  if (!any_worst_) profile_.worst_chunk_ms = {};
  if (merging_) {
    ReduceRows(rows_, profile_);
    rows_ = {};
    return;
  }
  std::uint64_t max_passes = 0;
  for (const auto& [first, passes] : passes_) max_passes = std::max(max_passes, passes);
  std::size_t fewer = 0;
  for (std::size_t k = 0; k < passes_.size(); ++k) {
    const std::size_t end = k + 1 < passes_.size() ? passes_[k + 1].first : profile_.points.size();
    if (passes_[k].second < max_passes) fewer += end - passes_[k].first;
  }
  profile_.passes = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(max_passes, std::numeric_limits<std::uint32_t>::max()));
  if (fewer > 0 && !profile_.adaptive) {  // as ReduceRows
    profile_.notes.push_back(std::to_string(fewer) + " of " +
                             std::to_string(profile_.points.size()) + " blocks have fewer than " +
                             std::to_string(max_passes) + kFewerPassesNote);
  }
}

}  // namespace zcav::reader
