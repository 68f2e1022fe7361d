// Reading zcav events files (events_writer.h): one JSON object per line. The
// events are gathered into the members a zcav JSON document has, and read as
// those are (the member readers of json_reader.cc); a cut last line is
// skipped with a note, a file without its "done" event is a partial run.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zcav/base/stats.h"
#include "zcav/format/reader_internal.h"

namespace zcav::reader {

namespace {

// The reads of one block in the passes before the last ("sample" events).
struct BlockSamples {
  std::uint64_t length_bytes = 0;
  std::vector<double> mb_per_s;
};

// One "sample" event into `samples` (by offset); a sample without a time
// (rate 0) says nothing and is skipped.
void AddEventSample(const Input& in, std::size_t at, const Json& e,
                    std::map<std::uint64_t, BlockSamples>& samples) {
  const auto whole = [&](const char* name) {
    const auto it = e.find(name);
    if (it == e.end() || !it->is_number_unsigned()) {
      in.Fail(at, std::string("sample: ") + name + " is missing or not a whole number");
    }
    return it->get<std::uint64_t>();
  };
  const std::uint64_t offset = whole("offset_bytes");
  const std::uint64_t length = whole("length_bytes");
  if (length == 0) in.Fail(at, "sample: length_bytes is 0");
  const auto rate = e.find("mb_per_s");
  if (rate == e.end() || !rate->is_number() || rate->get<double>() < 0) {
    in.Fail(at, "sample: mb_per_s is missing or not a number of at least 0");
  }
  if (rate->get<double>() == 0) return;
  BlockSamples& block = samples[offset];
  block.length_bytes = std::max(block.length_bytes, length);
  block.mb_per_s.push_back(rate->get<double>());
}

// The block rows of an events file in offset order: each block event as it
// is, and for a block with samples but no block event (the run ended before
// its last pass) the median of its samples.
void AddEventRows(std::vector<Row> blocks, std::map<std::uint64_t, BlockSamples> samples,
                  RowReducer& rows) {
  for (const Row& b : blocks) samples.erase(b.offset_bytes);
  auto next_block = blocks.begin();
  for (auto& [offset, block] : samples) {
    for (; next_block != blocks.end() && next_block->offset_bytes < offset; ++next_block) {
      rows.Add(*next_block);
    }
    const auto [lo, hi] = std::minmax_element(block.mb_per_s.begin(), block.mb_per_s.end());
    Row row{.offset_bytes = offset,
            .length_bytes = block.length_bytes,
            .passes = block.mb_per_s.size(),
            .min_mb_per_s = *lo,
            .max_mb_per_s = *hi};
    row.mb_per_s = MedianInPlace(block.mb_per_s);
    rows.Add(row);
  }
  for (; next_block != blocks.end(); ++next_block) rows.Add(*next_block);
}

}  // namespace

void ParseZcavEvents(Input& in, SavedResult& profile) {
  in.Restart();
  RowReducer rows(profile);
  PassOrder order(/*equal_allowed=*/false);
  std::vector<Row> block_rows;
  std::map<std::uint64_t, BlockSamples> samples;
  Json root = Json::object();
  Json errors = Json::array();
  Json slow = Json::array();
  Json passes = Json::array();
  const Json* done = nullptr;
  Json done_event;
  std::size_t blocks = 0;
  // A line that did not parse: fine only as the last line (a run killed
  // while writing it).
  std::size_t cut_line = 0;
  std::string_view line;
  std::size_t n = 0;
  while (in.Next(line, n)) {
    if (line.empty()) continue;
    if (cut_line != 0) in.Fail(cut_line, "invalid JSON in the middle of an events file");
    Json e = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
    if (e.is_discarded()) {
      cut_line = n;
      continue;
    }
    if (!e.is_object() || !e.contains("event") || !e["event"].is_string()) {
      in.Fail(n, "not a zcav event (no \"event\" name)");
    }
    const std::string name = e["event"].get<std::string>();
    if (name == "start") {
      if (const auto dev = e.find("device"); dev != e.end() && dev->is_object()) {
        ReadJsonDevice(*dev, profile);
      }
      if (const auto opt = e.find("options"); opt != e.end() && opt->is_object()) {
        ReadJsonOptions(*opt, profile);
      }
    } else if (name == "block") {
      const std::optional<Row> row = JsonBlockRow(in, e, blocks++, n);
      if (!row) continue;
      order.Add(in, n, row->offset_bytes, std::to_string(row->offset_bytes));
      block_rows.push_back(*row);
    } else if (name == "sample") {
      AddEventSample(in, n, e, samples);
    } else if (name == "unreadable") {
      errors.push_back(std::move(e));
    } else if (name == "slow_region") {
      slow.push_back(std::move(e));
    } else if (name == "pass_end") {
      passes.push_back(std::move(e));
    } else if (name == "health") {
      root["health"] = std::move(e);
    } else if (name == "done") {
      done_event = std::move(e);
      done = &done_event;
    }
    // Other events (pass_start, zones, and those of later versions) add
    // nothing the profile keeps: the zones are found again from the blocks.
  }
  root["errors"] = std::move(errors);
  root["slow_regions"] = std::move(slow);
  ReadJsonRanges(in, root, profile);
  ReadJsonLatency(passes, profile);
  ReadJsonHealth(root, profile);
  AddEventRows(std::move(block_rows), std::move(samples), rows);
  if (rows.empty()) in.FailFile("no block or sample events (the run measured no blocks?)");
  rows.Finish();
  if (profile.block_bytes == 0) {
    for (const CurvePoint& p : profile.points) {
      profile.block_bytes = std::max(profile.block_bytes, p.length_bytes);
    }
  }
  if (cut_line != 0) {
    profile.notes.push_back("line " + std::to_string(cut_line) +
                            " is cut off (the run was killed while writing it): skipped");
  }
  if (done == nullptr) {
    profile.status = "partial: cut off";
    profile.notes.push_back("the events end before the run's done event (was the run killed?): " +
                            std::to_string(profile.points.size()) + " blocks so far");
    return;
  }
  profile.avg_mb_per_s = JsonNonNegative(*done, "avg_mb_per_s");
  if (const auto st = done->find("status"); st != done->end() && st->is_string()) {
    profile.status = st->get<std::string>();
  }
  if (const auto partial = done->find("partial"); partial != done->end() && *partial == true) {
    profile.notes.push_back("the run's status: " + profile.status);
  }
}

}  // namespace zcav::reader
