// Reading zcav JSON documents (json_writer.cc), streamed: each object of
// "blocks" becomes a row as soon as it is parsed, members no reader looks at
// are dropped as they come, and the rest of the document is read member by
// member. The member readers shared with the events reader are declared in
// reader_internal.h.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zcav/format/adaptive_format.h"
#include "zcav/format/json_keys.h"
#include "zcav/format/reader_internal.h"

namespace zcav::reader {

namespace {

namespace keys = json_keys;

// A JSON line longer than kMaxLineBytes, on line `line`: thrown from inside
// the parser (by JsonPosition) to stop it before it holds more.
struct LineTooLong {
  std::size_t line = 0;
};

// The member names zcav's JSON reader looks at, at any depth (a document's,
// a block's, an adaptive result's): every other member is dropped as it is
// parsed, never kept, so a file of junk members costs no memory. Sorted, for
// binary_search (and packed by hand: clang-format would put one a line).
// clang-format off
constexpr std::string_view kKnownJsonMembers[] = {
    "access", "adaptive", "after", "at_bytes", "avg_mb_per_s", "before", "block", "block_bytes",
    "block_count", "blocks", "blur_blocks", "bounded_by_budget", "budget_hit", "burst",
    "bytes_read", "card_grades", "card_type", "cells", "celsius", "chunk_bytes", "chunks",
    "complete", "cpu_percent", "current", "device", "done", "downgraded", "driver", "edges",
    "end_bytes", "engine", "engine_depth", "errno", "errors", "event", "expected_ms", "field",
    "firmware", "grid_probes", "health", "host", "identity", "increases", "inferred", "iops",
    "kind", "largest_drift", "latency_classes", "left_mb_per_s", "length_bytes", "limit_mb_per_s",
    "link", "link_detail", "max", "max_limit_mb_per_s", "max_mb_per_s", "max_ms", "max_width",
    "mb_per_s", "mean_ms", "min_mb_per_s", "mode", "model", "ms", "noise_rel", "note",
    "offset_bytes", "ops", "options", "p50_ms", "p99_ms", "page_cache_file", "page_cache_share",
    "page_cache_share_at_end", "partial", "pass", "pass_end", "passes", "path", "probe_bytes",
    "probes", "queue_depth", "quick", "random_access", "range_bytes", "range_start_bytes", "reason",
    "reasons", "reference_reads", "right_mb_per_s", "rotational", "sample", "samples", "seconds",
    "serial", "size_bytes", "skip", "slow_region", "slow_regions", "smart", "speed_class", "start",
    "start_bytes", "started", "status", "storage_rotational", "storage_transport", "summary",
    "temperatures", "timing", "transport", "uncertainty_bytes", "unreadable", "unreadable_bytes",
    "unreadable_chunks", "vendor", "verdict", "warmup", "width", "worst_chunk_ms", "write", "wwn",
};
// clang-format on
static_assert(std::is_sorted(std::begin(kKnownJsonMembers), std::end(kKnownJsonMembers)));

bool KnownJsonMember(std::string_view name) {
  return std::binary_search(std::begin(kKnownJsonMembers), std::end(kKnownJsonMembers), name);
}

// At most this many values (numbers, strings, objects, arrays) are kept from
// a zcav JSON document outside its "blocks" and "samples" (those two are
// read as they are parsed and not kept). zcav's own files have a few
// thousand (a profile's random reads, temperatures, ranges); a document with
// more is refused as not a result, before it takes more than ~100 MB.
constexpr std::size_t kMaxJsonKeptValues = std::size_t{1} << 20;

// Where the JSON parser is in the file: the bytes it has taken, the line
// it is on, and where the last few newlines were (a parse error names a byte
// at most a couple of bytes back).
struct JsonPosition {
  std::uint64_t bytes = 0;
  std::size_t line = 1;
  std::array<std::uint64_t, 4> newlines{};  // byte positions of the last ones, a ring
  std::size_t newline_count = 0;
  std::size_t column = 0;  // bytes since the last newline

  // Throws LineTooLong past kMaxLineBytes without a newline.
  void Take(char c) {
    if (c == '\n') {
      newlines[newline_count++ % newlines.size()] = bytes;
      ++line;
      column = 0;
    } else if (++column > kMaxLineBytes) {
      throw LineTooLong{line};
    }
    ++bytes;
  }
  // The line of byte `at` (0-based), when at most a few bytes back.
  std::size_t LineOf(std::uint64_t at) const {
    std::size_t line_of = line;
    for (std::size_t k = 0; k < std::min(newline_count, newlines.size()); ++k) {
      if (newlines[k] >= at) --line_of;
    }
    return line_of;
  }
};

// A char iterator over a stream that keeps a JsonPosition up to date, so the
// parser's callback knows the line of each block object.
class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;

  CountingIterator() = default;  // the end of the stream
  CountingIterator(std::istream& in, JsonPosition* position) : it_(in), position_(position) {}
  char operator*() const { return *it_; }
  CountingIterator& operator++() {
    position_->Take(*it_);
    ++it_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  friend bool operator==(const CountingIterator& a, const CountingIterator& b) {
    return a.it_ == b.it_;
  }
  friend bool operator!=(const CountingIterator& a, const CountingIterator& b) { return !(a == b); }

 private:
  std::istreambuf_iterator<char> it_;
  JsonPosition* position_ = nullptr;
};

// Streams the document: each object of "blocks" becomes a row (and is
// dropped) as soon as it is parsed, so memory does not grow with the blocks;
// the rest is kept for the members ParseZcavJson reads.
class JsonBlockStream {
 public:
  JsonBlockStream(const Input& in, RowReducer& rows) : in_(in), rows_(rows) {}

  // The document without its blocks' objects, its "samples" triples and
  // members no reader looks at (KnownJsonMember). Throws for a syntax error,
  // a number too large, a bad block or sample, a line over kMaxLineBytes or
  // more than kMaxJsonKeptValues values kept, naming the line.
  Json Parse(std::istream& stream) {
    const Json::parser_callback_t callback = [this](int depth, Json::parse_event_t event,
                                                    Json& parsed) {
      return OnEvent(depth, event, parsed);
    };
    try {
      return Json::parse(CountingIterator(stream, &position_), CountingIterator(), callback);
    } catch (const LineTooLong& e) {
      in_.TooLong(e.line);
    } catch (const Json::parse_error& e) {
      const std::size_t error_line = position_.LineOf(e.byte > 0 ? e.byte - 1 : 0);
      const std::string what = e.what();
      if (what.find("unexpected end of input") != std::string::npos) {
        in_.Fail(error_line, "the JSON ends early (a truncated file: was the run killed?)");
      }
      const std::size_t colon = what.find(": ", what.find("parse error"));
      in_.Fail(error_line,
               "invalid JSON: " + (colon == std::string::npos ? what : what.substr(colon + 2)));
    } catch (const Json::exception& e) {
      // Not a syntax error: a number too large ("number overflow parsing
      // '1e999'"); the counting iterator knows how far the parser got.
      const std::string what = e.what();
      const std::size_t bracket = what.find("] ");
      in_.Fail(position_.line,
               "invalid JSON: " + (bracket == std::string::npos ? what : what.substr(bracket + 2)));
    }
  }

  // The samples of a top-level "samples" array, as parsed.
  std::vector<Sample> TakeSamples() { return std::move(samples_); }
  bool has_samples() const { return has_samples_; }

 private:
  // The parser's callback: false drops what was parsed.
  bool OnEvent(int depth, Json::parse_event_t event, Json& parsed) {
    using E = Json::parse_event_t;
    const std::size_t line = position_.line;
    if (dropping_depth_ >= 0) {
      if (depth > dropping_depth_) return false;  // inside a dropped member's value
      dropping_depth_ = -1;
    }
    if (event == E::key) {
      const bool known = KnownJsonMember(parsed.get_ref<const std::string&>());
      if (depth == 1) {
        in_blocks_ = parsed == keys::kBlocks;
        in_samples_ = parsed == keys::kSamples;
      }
      dropped_key_ = !known;
      return known;
    }
    if (dropped_key_) {
      // The value of a dropped member: a plain value is stored nowhere (its
      // key was dropped); a container is not built, nor anything inside it.
      dropped_key_ = false;
      if (event == E::value) return true;
      dropping_depth_ = depth;
      return false;
    }
    if (depth == 1 && event == E::array_start) {
      blocks_array_ = in_blocks_;
      samples_array_ = in_samples_;
      has_samples_ = has_samples_ || in_samples_;
    } else if (depth == 1 && event == E::array_end) {
      blocks_array_ = false;
      samples_array_ = false;
    } else if ((blocks_array_ || samples_array_) && depth == 2) {
      if (event == E::object_start || event == E::array_start) {
        block_line_ = line;
        kept_before_element_ = kept_;
        return true;
      }
      if (event == E::object_end || event == E::value || event == E::array_end) {
        if (blocks_array_) AddBlock(parsed, event == E::object_end ? block_line_ : line);
        if (samples_array_) AddSample(parsed);
        kept_ = kept_before_element_;
        return false;  // parsed: not kept
      }
    }
    if (event == E::value || event == E::object_end || event == E::array_end) {
      if (++kept_ > kMaxJsonKeptValues) {
        in_.Fail(line, "more than " + std::to_string(kMaxJsonKeptValues) +
                           " values besides the blocks and samples (not a zcav result)");
      }
    }
    return true;
  }

  void AddBlock(const Json& block, std::size_t at) {
    const std::size_t i = block_index_++;
    const std::optional<Row> row = JsonBlockRow(in_, block, i, at);
    if (!row) return;
    order_.Add(in_, at > 0 ? at : 1, row->offset_bytes, std::to_string(row->offset_bytes));
    rows_.Add(*row);
  }

  // One [pass (from 1), block, elapsed_ns] of "samples".
  void AddSample(const Json& x) {
    const std::size_t i = samples_.size();
    if (!x.is_array() || x.size() != 3 || !x[0].is_number_unsigned() ||
        x[0].get<std::uint64_t>() == 0 || !x[1].is_number_unsigned() ||
        !x[2].is_number_unsigned()) {
      in_.FailFile("samples[" + std::to_string(i) +
                   "]: expected [pass (from 1), block, elapsed_ns]");
    }
    Sample sample;
    sample.pass = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(x[0].get<std::uint64_t>() - 1, 1u << 20));
    sample.block_index = x[1].get<std::uint64_t>();
    sample.elapsed = std::chrono::nanoseconds(
        static_cast<std::int64_t>(std::min<std::uint64_t>(x[2].get<std::uint64_t>(), 1ULL << 62)));
    samples_.push_back(sample);
  }

  const Input& in_;
  RowReducer& rows_;
  PassOrder order_{/*equal_allowed=*/false};
  JsonPosition position_;
  bool in_blocks_ = false;      // the last top-level key was "blocks"
  bool blocks_array_ = false;   // inside its array
  bool in_samples_ = false;     // the last top-level key was "samples"
  bool samples_array_ = false;  // inside its array
  bool has_samples_ = false;    // a top-level "samples" array was read
  bool dropped_key_ = false;    // the last key was dropped: its value goes too
  int dropping_depth_ = -1;     // >= 0: inside a dropped container started at this depth
  std::size_t block_index_ = 0;
  std::size_t block_line_ = 0;  // where the current block object started
  std::vector<Sample> samples_;
  std::size_t kept_ = 0;  // values kept so far (kMaxJsonKeptValues)
  std::size_t kept_before_element_ = 0;
};

// A member of `object` that is a whole number; 0 when it is missing or not
// one.
std::uint64_t JsonCount(const Json& object, const char* name) {
  const auto it = object.find(name);
  return it != object.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

// device.link_detail (json_writer.cc LinkDetailJson): its texts as data,
// its rates only where they are finite and positive.
LinkState ReadJsonLink(const Json& l) {
  const auto text = [&](const char* name) {
    const auto it = l.find(name);
    return it != l.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const auto rate = [&](const char* name) { return JsonNonNegative(l, name).value_or(0.0); };
  const auto count = [&](const char* name) {
    const std::uint64_t n = JsonCount(l, name);
    return n <= 64 ? static_cast<unsigned>(n) : 0U;
  };
  LinkState s;
  s.transport = text(keys::kTransport);
  s.current = text(keys::kCurrent);
  s.max = text(keys::kMax);
  s.width = count(keys::kWidth);
  s.max_width = count(keys::kMaxWidth);
  s.driver = text(keys::kDriver);
  s.card_type = text(keys::kCardType);
  s.speed_class = text(keys::kSpeedClass);
  s.card_grades = text(keys::kCardGrades);
  const auto d = l.find(keys::kDowngraded);
  s.downgraded = d != l.end() && d->is_boolean() && d->get<bool>();
  s.reason = text(keys::kReason);
  s.limit_mb_per_s = rate(keys::kLimitMbPerS);
  s.max_limit_mb_per_s = rate(keys::kMaxLimitMbPerS);
  return s;
}

// "random_access" {mode, cells: [{size_bytes, queue_depth, engine_depth,
// iops, mb_per_s, mean_ms, p50_ms, p99_ms, max_ms, ...}]}, when present.
void ReadJsonRandomAccess(const Input& in, const Json& root, SavedResult& profile) {
  const auto ra = root.find(keys::kRandomAccess);
  if (ra == root.end() || !ra->is_object()) return;
  if (const auto mode = ra->find(keys::kMode); mode != ra->end() && mode->is_string()) {
    profile.random_access_mode = mode->get<std::string>();
  }
  const auto cells = ra->find(keys::kCells);
  if (cells == ra->end() || !cells->is_array()) in.FailFile("random_access has no cells array");
  for (std::size_t i = 0; i < cells->size(); ++i) {
    const Json& c = (*cells)[i];
    const auto fail = [&](const char* what) {
      in.FailFile("random_access.cells[" + std::to_string(i) + "]: " + what);
    };
    if (!c.is_object()) fail("is not an object");
    RandomAccessCell cell;
    cell.size_bytes = JsonCount(c, keys::kSizeBytes);
    const std::uint64_t depth = JsonCount(c, keys::kQueueDepth);
    if (cell.size_bytes == 0 || depth == 0 || depth > 1u << 20) {
      fail("needs a whole size_bytes and queue_depth above 0");
    }
    cell.queue_depth = static_cast<std::uint32_t>(depth);
    cell.engine_depth = static_cast<std::uint32_t>(
        std::clamp<std::uint64_t>(JsonCount(c, keys::kEngineDepth), 1, depth));
    cell.ops = JsonCount(c, keys::kOps);
    const std::optional<double> iops = JsonNonNegative(c, keys::kIops);
    const std::optional<double> mean = JsonNonNegative(c, keys::kMeanMs);
    if (!iops || !mean) fail("needs iops and mean_ms, numbers of at least 0");
    cell.iops = *iops;
    cell.mean_ms = *mean;
    cell.seconds = JsonNonNegative(c, keys::kSeconds).value_or(0);
    cell.mb_per_s = JsonNonNegative(c, keys::kMbPerS).value_or(0);
    cell.p50_ms = JsonNonNegative(c, keys::kP50Ms).value_or(0);
    cell.p99_ms = JsonNonNegative(c, keys::kP99Ms).value_or(0);
    cell.max_ms = JsonNonNegative(c, keys::kMaxMs).value_or(0);
    profile.random_access.push_back(cell);
  }
}

// zcav profile's measurements besides the sweep (all optional): "access",
// "burst", "verdict" and "random_access".
void ReadJsonProfileMeasurements(const Input& in, const Json& root, SavedResult& profile) {
  ReadJsonRandomAccess(in, root, profile);
  if (const auto a = root.find(keys::kAdaptive); a != root.end()) {
    profile.adaptive = ParseAdaptiveJson(a->dump(), in.source());
  }
  if (const auto acc = root.find(keys::kAccess); acc != root.end() && acc->is_object()) {
    profile.access_mean_ms = JsonNonNegative(*acc, keys::kMeanMs);
    if (const auto samples = acc->find(keys::kSamples);
        samples != acc->end() && samples->is_array()) {
      for (std::size_t i = 0; i < samples->size(); ++i) {
        const Json& sample = (*samples)[i];
        const auto offset = sample.is_object() ? sample.find(keys::kOffsetBytes) : sample.end();
        const std::optional<double> ms =
            sample.is_object() ? JsonNonNegative(sample, keys::kMs) : std::nullopt;
        if (offset == sample.end() || !offset->is_number_unsigned() || !ms) {
          in.FailFile("access.samples[" + std::to_string(i) +
                      "]: needs a whole offset_bytes and a number ms of at least 0");
        }
        profile.access_samples.push_back({offset->get<std::uint64_t>(), *ms});
      }
    }
  }
  if (const auto burst = root.find(keys::kBurst); burst != root.end() && burst->is_object()) {
    profile.burst_mb_per_s = JsonNonNegative(*burst, keys::kAvgMbPerS);
  }
  if (const auto verdict = root.find(keys::kVerdict);
      verdict != root.end() && verdict->is_object()) {
    const auto kind = verdict->find(keys::kKind);
    const auto reason = verdict->find(keys::kReason);
    if (kind != verdict->end() && kind->is_string()) profile.verdict = kind->get<std::string>();
    if (reason != verdict->end() && reason->is_string()) {
      profile.verdict_reason = reason->get<std::string>();
    }
  }
}

// Calls add(item, offset, length) for each item of the top-level array
// `name` of ranges (none when it is missing or null); throws for an item
// without a whole offset_bytes and a positive whole length_bytes.
template <typename Add>
void ForEachJsonRange(const Input& in, const Json& root, const char* name, Add add) {
  const auto list = root.find(name);
  if (list == root.end() || list->is_null()) return;
  if (!list->is_array()) in.FailFile(std::string(name) + " is not an array");
  for (std::size_t i = 0; i < list->size(); ++i) {
    const Json& item = (*list)[i];
    const auto offset = item.is_object() ? item.find(keys::kOffsetBytes) : item.end();
    const auto length = item.is_object() ? item.find(keys::kLengthBytes) : item.end();
    if (offset == item.end() || length == item.end() || !offset->is_number_unsigned() ||
        !length->is_number_unsigned() || length->get<std::uint64_t>() == 0) {
      in.FailFile(std::string(name) + "[" + std::to_string(i) +
                  "]: needs whole offset_bytes and a positive whole length_bytes");
    }
    add(item, offset->get<std::uint64_t>(), length->get<std::uint64_t>());
  }
}

// What the caches.h judgement needs: each complete pass's rate and page-
// cache share ("passes"), the share at the end ("summary").
void ReadJsonCaches(const Json& root, SavedResult& profile) {
  const auto share = [](const Json& obj, const char* name) -> std::optional<double> {
    const auto it = obj.find(name);
    if (it == obj.end() || !it->is_number()) return std::nullopt;
    const double v = it->get<double>();
    return v >= 0 && v <= 1 ? std::optional<double>(v) : std::nullopt;
  };
  if (const auto passes = root.find(keys::kPasses); passes != root.end() && passes->is_array()) {
    for (const Json& pass : *passes) {
      if (!pass.is_object()) continue;
      const auto complete = pass.find(keys::kComplete);
      const auto rate = pass.find(keys::kMbPerS);
      if (complete == pass.end() || *complete != true || rate == pass.end() || !rate->is_number() ||
          !std::isfinite(rate->get<double>()) || rate->get<double>() <= 0) {
        continue;
      }
      profile.caches.pass_mb_per_s.push_back(rate->get<double>());
      profile.caches.pass_cached_share.push_back(share(pass, keys::kPageCacheShare));
    }
  }
  if (const auto sum = root.find(keys::kSummary); sum != root.end() && sum->is_object()) {
    profile.caches.cached_share_at_end = share(*sum, keys::kPageCacheShareAtEnd);
  }
}

// "temperatures" [{seconds, offset_bytes, celsius, pass}] (json_writer.cc),
// when present; readings without a number for the time or the temperature
// are skipped.
void ReadJsonTemperatures(const Json& root, SavedResult& profile) {
  const auto temps = root.find(keys::kTemperatures);
  if (temps == root.end() || !temps->is_array()) return;
  for (const Json& t : *temps) {
    if (!t.is_object()) continue;
    const std::optional<double> seconds = JsonNonNegative(t, keys::kSeconds);
    const auto c = t.find(keys::kCelsius);
    if (!seconds || c == t.end() || !c->is_number() || !std::isfinite(c->get<double>())) continue;
    TemperatureReading r;
    r.seconds = *seconds;
    r.celsius = c->get<double>();
    r.offset_bytes = JsonCount(t, keys::kOffsetBytes);
    r.pass = static_cast<std::uint32_t>(
        std::clamp<std::uint64_t>(JsonCount(t, keys::kPass), 1, 1u << 20) - 1);
    profile.temperatures.push_back(r);
  }
}

}  // namespace

// One object of "blocks", the i-th (from 0), which starts on line `at` (0 =
// unknown): a row, or nothing for a block with no clean read.
std::optional<Row> JsonBlockRow(const Input& in, const Json& block, std::size_t i, std::size_t at) {
  auto fail = [&](const std::string& what) {
    const std::string where = "blocks[" + std::to_string(i) + "]: ";
    if (at > 0) in.Fail(at, where + what);
    in.FailFile(where + what);
  };
  if (!block.is_object()) fail("is not an object");
  auto whole = [&](const char* name, bool required, std::uint64_t fallback) {
    const auto it = block.find(name);
    if (it == block.end()) {
      if (required) fail(std::string("has no ") + name);
      return fallback;
    }
    if (!it->is_number_unsigned()) fail(std::string(name) + " is not a whole number");
    return it->get<std::uint64_t>();
  };
  Row row;
  row.offset_bytes = whole(keys::kOffsetBytes, true, 0);
  row.length_bytes = whole(keys::kLengthBytes, true, 0);
  if (row.length_bytes == 0) fail("length_bytes is 0");
  row.passes = whole(keys::kPasses, false, 1);
  if (row.passes == 0) {
    // No clean read (zcav writes null rates and the unreadable bytes).
    const auto rate = block.find(keys::kMbPerS);
    if (rate != block.end() && rate->is_null() && whole(keys::kUnreadableBytes, false, 0) > 0) {
      return std::nullopt;
    }
    fail("passes is 0");
  }
  const auto rate = block.find(keys::kMbPerS);
  if (rate == block.end()) fail("has no mb_per_s");
  if (!rate->is_number()) fail("mb_per_s is not a number");
  row.mb_per_s = rate->get<double>();
  if (row.mb_per_s < 0) fail("mb_per_s is negative");
  // The spread across passes is optional (older files, hand-made input).
  const auto lo = block.find(keys::kMinMbPerS);
  const auto hi = block.find(keys::kMaxMbPerS);
  if (lo != block.end() && hi != block.end() && lo->is_number() && hi->is_number() &&
      lo->get<double>() >= 0 && hi->get<double>() >= lo->get<double>()) {
    row.min_mb_per_s = lo->get<double>();
    row.max_mb_per_s = hi->get<double>();
  }
  if (const auto worst = block.find(keys::kWorstChunkMs);
      worst != block.end() && worst->is_number() && worst->get<double>() > 0 &&
      std::isfinite(worst->get<double>())) {
    row.worst_chunk_ms = static_cast<float>(std::min(worst->get<double>(), 1e9));
  }
  return row;
}

// A member of `object` that is a finite number of at least 0; empty when it
// is missing or not one.
std::optional<double> JsonNonNegative(const Json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

// "device": the path, size and what the device said about itself.
void ReadJsonDevice(const Json& dev, SavedResult& profile) {
  if (const auto p = dev.find(keys::kPath); p != dev.end() && p->is_string()) {
    profile.device_path = p->get<std::string>();
  }
  if (const auto s = dev.find(keys::kSizeBytes); s != dev.end() && s->is_number_unsigned()) {
    profile.device_bytes = s->get<std::uint64_t>();
  }
  auto device_text = [&](const char* name) {
    const auto it = dev.find(name);
    return it != dev.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  profile.device_vendor = device_text(keys::kVendor);
  profile.device_model = device_text(keys::kModel);
  profile.transport = device_text(keys::kTransport);
  profile.link = device_text(keys::kLink);
  profile.storage_transport = device_text(keys::kStorageTransport);
  profile.caches.page_cache_file = device_text(keys::kPageCacheFile);
  if (const auto l = dev.find(keys::kLinkDetail); l != dev.end() && l->is_object()) {
    profile.link_state = ReadJsonLink(*l);
  }
  auto device_flag = [&](const char* name) -> std::optional<bool> {
    const auto it = dev.find(name);
    return it != dev.end() && it->is_boolean() ? std::optional<bool>(it->get<bool>())
                                               : std::nullopt;
  };
  profile.rotational = device_flag(keys::kRotational);
  profile.storage_rotational = device_flag(keys::kStorageRotational);
  if (const auto id = dev.find(keys::kIdentity); id != dev.end() && id->is_object()) {
    const auto text = [&](const char* name) {
      const auto it = id->find(name);
      return it != id->end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    profile.device_serial = text(keys::kSerial);
    profile.device_wwn = text(keys::kWwn);
    profile.device_firmware = text(keys::kFirmware);
    profile.host = text(keys::kHost);
    profile.started_utc = text(keys::kStarted);
  }
}

// "options": the sweep's plan and its timing.
void ReadJsonOptions(const Json& opt, SavedResult& profile) {
  if (const auto b = opt.find(keys::kBlockBytes); b != opt.end() && b->is_number_unsigned()) {
    profile.block_bytes = b->get<std::uint64_t>();
  }
  const auto whole = [&](const char* name) -> std::uint64_t {
    const auto it = opt.find(name);
    return it != opt.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
  };
  const auto flag = [&](const char* name) {
    const auto it = opt.find(name);
    return it != opt.end() && it->is_boolean() && it->get<bool>();
  };
  SweepPlan plan;
  plan.start_bytes = whole(keys::kStartBytes);
  plan.end_bytes = whole(keys::kEndBytes);
  plan.block_bytes = whole(keys::kBlockBytes);
  plan.chunk_bytes = whole(keys::kChunkBytes);
  plan.passes = static_cast<std::uint32_t>(std::min<std::uint64_t>(whole(keys::kPasses), 1u << 20));
  plan.skip = static_cast<std::uint32_t>(std::min<std::uint64_t>(whole(keys::kSkip), 1u << 30));
  plan.quick = flag(keys::kQuick);
  plan.warmup = flag(keys::kWarmup);
  plan.block_count = whole(keys::kBlockCount);
  if (const auto e = opt.find(keys::kEngine); e != opt.end() && e->is_string()) {
    plan.engine = e->get<std::string>();
  }
  if (const auto m = opt.find(keys::kMode); m != opt.end() && *m == "write") plan.write = true;
  if (const std::uint64_t depth = whole(keys::kQueueDepth); depth != 0) {
    plan.queue_depth = static_cast<std::uint32_t>(std::min<std::uint64_t>(depth, 1u << 20));
  }
  profile.plan = plan;
  // Files before "timing" was recorded: unknown, taken as sharp (0).
  if (const auto t = opt.find(keys::kTiming); t != opt.end() && t->is_object()) {
    if (const auto b = t->find(keys::kBlurBlocks); b != t->end() && b->is_number()) {
      const double v = b->get<double>();
      if (std::isfinite(v) && v >= 0 && v <= kMaxBlurBlocks) profile.blur_blocks = v;
    }
  }
}

// Unreadable ranges and slow regions (zcav's own sweeps).
void ReadJsonRanges(const Input& in, const Json& root, SavedResult& profile) {
  ForEachJsonRange(
      in, root, keys::kErrors, [&](const Json& item, std::uint64_t offset, std::uint64_t length) {
        UnreadableRange r{offset, length, 0, 0, false};
        if (const auto e = item.find(keys::kErrno); e != item.end() && e->is_number_integer()) {
          r.errno_value = e->get<int>();
        }
        if (const auto b = item.find(keys::kBoundedByBudget); b != item.end() && b->is_boolean()) {
          r.bounded_by_budget = b->get<bool>();
        }
        profile.unreadable.push_back(r);
      });
  ForEachJsonRange(in, root, keys::kSlowRegions,
                   [&](const Json& item, std::uint64_t offset, std::uint64_t length) {
                     SlowRegion r{offset, length, 0, JsonNonNegative(item, keys::kMs).value_or(0),
                                  JsonNonNegative(item, keys::kExpectedMs).value_or(0)};
                     profile.slow_regions.push_back(r);
                   });
}

// Each pass's "chunk_bytes", "latency_classes" and "unreadable_chunks"
// (json_writer.cc), when present; a pass without them is skipped.
void ReadJsonLatency(const Json& passes, SavedResult& profile) {
  for (const Json& pass : passes) {
    if (!pass.is_object()) continue;
    const auto classes = pass.find(keys::kLatencyClasses);
    if (classes == pass.end() || !classes->is_array()) continue;
    LatencyClasses c;
    c.chunk_bytes = JsonCount(pass, keys::kChunkBytes);
    c.unreadable_chunks = JsonCount(pass, keys::kUnreadableChunks);
    for (std::size_t i = 0; i < c.chunks.size() && i < classes->size(); ++i) {
      if ((*classes)[i].is_object()) c.chunks[i] = JsonCount((*classes)[i], keys::kChunks);
    }
    profile.latency_classes.push_back(c);
    if (profile.chunk_bytes == 0) profile.chunk_bytes = c.chunk_bytes;
  }
}

// "health" {verdict, reasons} and "smart" {before {note}, increases}
// (json_writer.cc), when present.
void ReadJsonHealth(const Json& root, SavedResult& profile) {
  if (const auto h = root.find(keys::kHealth); h != root.end() && h->is_object()) {
    if (const auto v = h->find(keys::kVerdict); v != h->end() && v->is_string()) {
      profile.health_verdict = v->get<std::string>();
    }
    if (const auto rs = h->find(keys::kReasons); rs != h->end() && rs->is_array()) {
      for (const Json& r : *rs) {
        if (r.is_string()) profile.health_reasons.push_back(r.get<std::string>());
      }
    }
  }
  const auto smart = root.find(keys::kSmart);
  if (smart == root.end() || !smart->is_object()) return;
  if (const auto before = smart->find(keys::kBefore);
      before != smart->end() && before->is_object()) {
    if (const auto note = before->find(keys::kNote); note != before->end() && note->is_string()) {
      profile.smart_note = note->get<std::string>();
    }
  }
  if (const auto inc = smart->find(keys::kIncreases); inc != smart->end() && inc->is_array()) {
    for (const Json& c : *inc) {
      if (!c.is_object() || !c.contains(keys::kField) || !c[keys::kField].is_string()) continue;
      profile.smart_increases.push_back(c[keys::kField].get<std::string>() + " " +
                                        std::to_string(JsonCount(c, keys::kBefore)) + " -> " +
                                        std::to_string(JsonCount(c, keys::kAfter)));
    }
  }
}

void ParseZcavJson(Input& in, SavedResult& profile) {
  std::istream& stream = in.Restart();
  RowReducer rows(profile);
  JsonBlockStream parser(in, rows);
  const Json root = parser.Parse(stream);
  if (!root.is_object()) in.FailFile("not a zcav JSON file (the top level is not an object)");
  const auto blocks = root.find(keys::kBlocks);
  if (blocks == root.end() || !blocks->is_array()) {
    in.FailFile("not a zcav JSON file (no \"blocks\" array)");
  }
  if (const auto dev = root.find(keys::kDevice); dev != root.end() && dev->is_object()) {
    ReadJsonDevice(*dev, profile);
  }
  if (const auto sum = root.find(keys::kSummary); sum != root.end() && sum->is_object()) {
    profile.avg_mb_per_s = JsonNonNegative(*sum, keys::kAvgMbPerS);
    profile.cpu_percent = JsonNonNegative(*sum, keys::kCpuPercent);
  }
  if (const auto opt = root.find(keys::kOptions); opt != root.end() && opt->is_object()) {
    ReadJsonOptions(*opt, profile);
  }
  if (const auto st = root.find(keys::kStatus); st != root.end() && st->is_string()) {
    profile.status = st->get<std::string>();
  }
  if (parser.has_samples()) profile.samples = parser.TakeSamples();
  ReadJsonProfileMeasurements(in, root, profile);
  ReadJsonRanges(in, root, profile);
  if (const auto passes = root.find(keys::kPasses); passes != root.end() && passes->is_array()) {
    ReadJsonLatency(*passes, profile);
  }
  ReadJsonCaches(root, profile);
  ReadJsonHealth(root, profile);
  ReadJsonTemperatures(root, profile);

  if (rows.empty()) in.FailFile("no data rows (the run measured no blocks?)");
  rows.Finish();
  if (profile.block_bytes == 0) {
    for (const CurvePoint& p : profile.points) {
      profile.block_bytes = std::max(profile.block_bytes, p.length_bytes);
    }
  }
  if (const auto partial = root.find(keys::kPartial); partial != root.end() && *partial == true) {
    const auto status = root.find(keys::kStatus);
    profile.notes.push_back("the run's status: " + (status != root.end() && status->is_string()
                                                        ? status->get<std::string>()
                                                        : "partial"));
  }
}

void ParseZcavRandomAccess(Input& in, SavedResult& profile) {
  RowReducer rows(profile);  // a profile's blocks, not needed here
  const Json root = JsonBlockStream(in, rows).Parse(in.Restart());
  if (!root.is_object()) in.FailFile("not a zcav JSON file (the top level is not an object)");
  if (const auto dev = root.find(keys::kDevice); dev != root.end() && dev->is_object()) {
    ReadJsonDevice(*dev, profile);
  }
  ReadJsonRandomAccess(in, root, profile);
}

}  // namespace zcav::reader
