// Longer than 1,200 lines: it holds several modules that issue 38 splits apart.
// Reading saved results back: see data_reader.h for the formats.
//
// Every format is first turned into rows (offset, length, rate, passes behind
// the row); rows of the same offset (a pass printed more than once, runs
// concatenated into one file) are then reduced to their median. zcav's own
// formats are read as a stream (line by line; JSON through the parser's
// callback), and their rows become points as they come while the offsets
// rise (RowReducer): a 20 M-block file never sits in memory as text or rows.
//
// zcav's own formats carry exact byte offsets (raw: 9 decimals of GiB, about
// one byte). Classic zcav logs need inference, done here once:
//   1.03  offsets are exact MiB; the block size is the step between rows;
//         rates are KiB/s (int-truncated), "++++" rows are recomputed from
//         their time (microseconds).
//   1.9x  offsets are printed to 0.01 GiB (10.24 MiB), so they are only used
//         to find the row grid: the block size comes from rate × time of the
//         timed rows (whole MiB), the step between rows is a whole number of
//         blocks (zcav -s), and each row's offset is index × step when every
//         printed offset lies within its rounding of that grid. "++++" rows
//         (a block read in under a second) are recomputed from the time
//         column, which has 1 ms resolution.
#include "zcav/format/data_reader.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "zcav/analysis/adaptive_steps.h"
#include "zcav/base/error.h"
#include "zcav/base/stats.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/format/adaptive_format.h"

namespace zcav {

namespace {

// The end of the note on blocks with fewer passes than the rest.
constexpr const char* kFewerPassesNote = " passes behind them (an interrupted or partial run)";

using Json = nlohmann::json;

// Offsets beyond 2^63 bytes (8 EiB) are refused: no device is that large, and
// index × step arithmetic stays clear of overflow.
constexpr double kMaxOffsetBytes = 9.2e18;
// Classic block sizes are an int of MiB; anything beyond 2^31 MiB is garbage.
constexpr double kMaxBlockMib = 2147483647.0;
// A recorded blur above this is damage, not a read shape (256 reads in
// flight of 2^20 blocks' worth would be absurd).
constexpr double kMaxBlurBlocks = 1e9;

// A classic 1.9x offset is printf("%.2f") of a float: within half a
// hundredth of a GiB of the true position, plus float rounding (2^-24 relative).
double PrintedGibToleranceMib(double mib) { return 0.005 * 1024.0 * (1 + 1e-9) + mib * 1.2e-7; }

constexpr std::size_t kQuoteMax = 80;

// `text` in quotes for a message, cut to a sensible length, with control and
// non-ASCII bytes escaped (a binary file must not garble the terminal).
std::string Quote(std::string_view text) {
  std::string out = "'";
  for (char c : text.substr(0, kQuoteMax)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else if (c == '\t') {
      out += ' ';
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    }
  }
  if (text.size() > kQuoteMax) out += "...";
  return out + "'";
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::vector<std::string_view> Words(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    const std::size_t start = i;
    while (i < s.size() && !IsSpace(s[i])) ++i;
    if (i > start) words.push_back(s.substr(start, i - start));
  }
  return words;
}

// The KEY=VALUE words of `s`, in order; other words are skipped.
std::vector<std::pair<std::string_view, std::string_view>> KeyValues(std::string_view s) {
  std::vector<std::pair<std::string_view, std::string_view>> pairs;
  for (std::string_view word : Words(s)) {
    const std::size_t eq = word.find('=');
    if (eq != std::string_view::npos) pairs.emplace_back(word.substr(0, eq), word.substr(eq + 1));
  }
  return pairs;
}

std::optional<double> ToDouble(std::string_view s) {
  double value = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (s.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> ToUint(std::string_view s) {
  std::uint64_t value = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (s.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::string MibText(std::uint64_t bytes) {
  if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

double Median(std::vector<double> values) {
  const std::size_t n = values.size();
  std::sort(values.begin(), values.end());
  // Halves first: the sum of two rates near DBL_MAX is infinite.
  return n % 2 == 1 ? values[n / 2] : values[n / 2 - 1] / 2 + values[n / 2] / 2;
}

// The file, read line by line (never held whole: a 20 M-block result is
// gigabytes of text), and its name for messages. Detection reads the first
// lines, then the parser reads the file again from its start: a stream that
// cannot seek (a pipe) is first copied into memory. A line longer than
// kMaxLineBytes is bad input, found without holding more than that of it.
class Input {
 public:
  Input(std::string source, std::istream& in)
      : source_(std::move(source)), line_(kMaxLineBytes + 1) {
    start_ = in.tellg();
    if (start_ == std::streampos(-1)) {
      copy_ = std::make_unique<std::istringstream>(CopyLines(in));
      start_ = 0;
    }
    in_ = copy_ ? copy_.get() : &in;
  }
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  // The next line, trimmed and without its '\n' (the first without a UTF-8
  // byte order mark), and its number (from 1); false at the end of the file.
  // `line` stays valid until the next call.
  bool Next(std::string_view& line, std::size_t& number) {
    in_->getline(line_.data(), static_cast<std::streamsize>(line_.size()));
    const auto got = static_cast<std::size_t>(in_->gcount());
    if (in_->bad()) throw Error(source_ + ": read failed", ErrorKind::kRuntime);
    if (in_->fail()) {
      if (got == 0) return false;  // the end of the file
      TooLong(number_ + 1);        // kMaxLineBytes taken and no end of line
    }
    // gcount counts the '\n' taken, except on a last line without one.
    std::string_view text(line_.data(), in_->eof() ? got : got - 1);
    if (number_ == 0 && StartsWith(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
    number = ++number_;
    line = Trim(text);
    return true;
  }
  // The stream from the file's start (for Next, or a parser of its own).
  std::istream& Restart() {
    in_->clear();
    in_->seekg(start_);
    if (!*in_)
      throw Error(source_ + ": read failed (cannot go back to its start)", ErrorKind::kRuntime);
    number_ = 0;
    return *in_;
  }

  [[noreturn]] void Fail(std::size_t number, const std::string& what) const {
    throw Error(source_ + ":" + std::to_string(number) + ": " + what, ErrorKind::kBadInput);
  }
  [[noreturn]] void FailFile(const std::string& what) const {
    throw Error(source_ + ": " + what, ErrorKind::kBadInput);
  }
  [[noreturn]] void TooLong(std::size_t number) const {
    Fail(number, "a line longer than " + std::to_string(kMaxLineBytes >> 20) +
                     " MiB (not a zcav or classic zcav result)");
  }
  const std::string& source() const { return source_; }

 private:
  // All of `in` (a pipe), refusing a line over kMaxLineBytes as it comes.
  std::string CopyLines(std::istream& in) const {
    std::string text;
    std::array<char, 64 * 1024> chunk{};
    std::size_t run = 0;  // bytes since the last '\n'
    std::size_t lines = 1;
    while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
      const std::string_view got(chunk.data(), static_cast<std::size_t>(in.gcount()));
      for (std::size_t at = 0; at < got.size();) {
        const std::size_t newline = got.find('\n', at);
        run += (newline == std::string_view::npos ? got.size() : newline) - at;
        if (run > kMaxLineBytes) TooLong(lines);
        if (newline == std::string_view::npos) break;
        run = 0;
        ++lines;
        at = newline + 1;
      }
      text.append(got);
    }
    if (in.bad()) throw Error(source_ + ": read failed", ErrorKind::kRuntime);
    return text;
  }

  std::string source_;
  std::istream* in_ = nullptr;
  std::unique_ptr<std::istringstream> copy_;  // a stream that cannot seek, copied
  std::streampos start_;
  std::vector<char> line_;  // the current line: at most kMaxLineBytes and its '\0'
  std::size_t number_ = 0;  // lines read since the start
};

// A rate (or another non-negative measurement) from a token.
double NonNegative(const Input& in, std::size_t line, const std::string& name,
                   std::string_view token) {
  const std::optional<double> v = ToDouble(token);
  if (!v || std::isnan(*v)) in.Fail(line, name + " " + Quote(token) + " is not a number");
  if (std::isinf(*v)) in.Fail(line, name + " " + Quote(token) + " is infinite");
  if (*v < 0) in.Fail(line, name + " " + Quote(token) + " is negative");
  return *v;
}

// One measured block as the file gives it.
struct Row {
  std::uint64_t offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  double mb_per_s = 0;
  std::uint64_t passes = 1;  // passes behind this row
  // Spread across the row's passes, when the file gives it; 0 = unknown.
  double min_mb_per_s = 0;
  double max_mb_per_s = 0;
  // The block's slowest chunk (ms), when the file gives it; 0 = unknown.
  float worst_chunk_ms = 0;
};

// Offsets must go forward within a pass. A pass restarts after a table header
// (StartTable) or when an offset returns to the table's first offset (classic
// zcav run again with its output appended, or several runs concatenated).
// Keys are exact integers in the file's own unit; `equal_allowed` for formats
// whose printed offsets may repeat (1.9x: 0.01 GiB, blocks can be smaller).
class PassOrder {
 public:
  explicit PassOrder(bool equal_allowed) : equal_allowed_(equal_allowed) {}

  void StartTable() { started_ = false; }

  // Returns true when the row starts a new pass. Throws for a step backwards.
  bool Add(const Input& in, std::size_t line, std::uint64_t key, const std::string& shown) {
    bool new_pass = false;
    if (!started_) {
      started_ = true;
      first_ = key;
      first_shown_ = shown;
      new_pass = true;
    } else if (key < last_ || (key == last_ && !equal_allowed_)) {
      if (key != first_) {
        in.Fail(
            line,
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

 private:
  bool equal_allowed_;
  bool started_ = false;
  std::uint64_t first_ = 0;
  std::uint64_t last_ = 0;
  std::string first_shown_;
  std::string last_shown_;
};

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

// Makes the points of `profile` from rows given one at a time, as ReduceRows
// does. Rows in strictly increasing offset order (one pass: zcav's own
// files) become points as they come, keeping nothing per row but a
// run-length list of their pass counts; at the first row out of that order
// the points so far turn back into rows, and every row is kept and merged by
// ReduceRows at the end.
class RowReducer {
 public:
  explicit RowReducer(SavedResult& profile) : profile_(profile) {}

  // Rows as counted so far.
  bool empty() const { return rows_.empty() && profile_.points.empty(); }

  void Add(const Row& row) {
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

  // Sets profile.passes and adds ReduceRows' notes; worst_chunk_ms stays
  // only when some row had one.
  void Finish() {
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
      const std::size_t end =
          k + 1 < passes_.size() ? passes_[k + 1].first : profile_.points.size();
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

 private:
  SavedResult& profile_;
  bool merging_ = false;
  bool any_worst_ = false;
  std::uint64_t last_offset_ = 0;
  std::vector<std::pair<std::size_t, std::uint64_t>> passes_;  // (first point, passes)
  std::vector<Row> rows_;                                      // when merging
};

// ---------------------------------------------------------------------------
// Format detection.

enum class Format { kZcavRaw, kZcavCsv, kZcavJson, kZcavEvents, kBonnie103, kBonnie19x };

// The start of every line of a zcav events file (events_writer.h).
constexpr std::string_view kEventsLineStart = "{\"event\":";

constexpr std::string_view kCsvHeaderStart = "offset_bytes,length_bytes,mb_per_s";
// The first of a zcav CSV file's comment lines (csv_writer.cc).
constexpr std::string_view kCsvCommentStart = "# zcav-csv ";

// The classic table header: "#block K/s time" (1.03) or
// "#block offset (GiB), MiB/s, time" (1.9x, 2.00). Empty when not one.
std::optional<Format> ClassicHeader(std::string_view line) {
  if (!StartsWith(line, "#block")) return std::nullopt;
  if (line.find("K/s") != std::string_view::npos) return Format::kBonnie103;
  if (line.find("GiB") != std::string_view::npos) return Format::kBonnie19x;
  return std::nullopt;
}

// Reads the first lines; the next read starts at the file's start again.
Format Detect(Input& in) {
  std::string_view line;
  std::size_t n = 0;
  bool found = false;
  while (!found && in.Next(line, n)) found = !line.empty();
  if (!found) in.FailFile("empty file (no data)");
  const std::string head(line);
  std::optional<Format> format;
  if (StartsWith(head, kEventsLineStart))
    format = Format::kZcavEvents;
  else if (head.front() == '{')
    format = Format::kZcavJson;
  else if (StartsWith(head, "# zcav "))
    format = Format::kZcavRaw;
  else if (StartsWith(head, kCsvHeaderStart) || StartsWith(head, kCsvCommentStart))
    format = Format::kZcavCsv;
  // Classic logs: comment lines ("# Read ...", "# Finished loop ...",
  // "#loops: N") until the table header.
  for (bool more = true; !format && more; more = in.Next(line, n)) {
    if (line.empty()) continue;
    if (line.front() != '#') break;
    format = ClassicHeader(line);
  }
  in.Restart();
  if (!format) {
    in.FailFile("not a zcav or classic zcav data file (first line: " + Quote(head) + ")");
  }
  return *format;
}

// ---------------------------------------------------------------------------
// Classic zcav logs (bonnie++ 1.03 and 1.9x/2.00).

struct ClassicRow {
  std::size_t pass = 0;          // which pass (table or repeat) the row belongs to
  std::uint64_t offset_mib = 0;  // 1.03: exact
  double offset_gib = 0;         // 1.9x: as printed, rounded to 0.01 GiB
  std::optional<double> rate;    // KiB/s (1.03) or MiB/s (1.9x); empty for "++++"
  double seconds = 0;
  std::uint64_t loops = 1;  // classic "#loops: N" of the row's table
  std::size_t line = 0;     // the row's line, for messages
};

struct ClassicLog {
  std::vector<ClassicRow> rows;
  std::size_t pass_count = 0;
  std::uint64_t max_loops = 1;
};

ClassicLog ReadClassicRows(Input& in, Format layout) {
  const bool v19 = layout == Format::kBonnie19x;
  ClassicLog log;
  PassOrder order(/*equal_allowed=*/v19);
  std::uint64_t pending_loops = 1;
  std::uint64_t table_loops = 1;
  std::string_view line;
  std::size_t n = 0;
  while (in.Next(line, n)) {
    if (line.empty()) continue;
    if (StartsWith(line, "#loops:")) {
      std::string_view count = Trim(line.substr(7));
      count = Trim(count.substr(0, count.find(',')));
      const std::optional<std::uint64_t> loops = ToUint(count);
      if (!loops || *loops == 0) {
        in.Fail(n, "'#loops:' needs a positive whole number, got " + Quote(count));
      }
      pending_loops = *loops;
      continue;
    }
    if (const std::optional<Format> header = ClassicHeader(line)) {
      if (*header != layout) {
        in.Fail(n, "a " + std::string(v19 ? "1.03" : "1.9x") + " table header in a " +
                       (v19 ? "1.9x" : "1.03") +
                       " log (files of different zcav versions concatenated?)");
      }
      table_loops = pending_loops;
      pending_loops = 1;
      order.StartTable();
      continue;
    }
    // A data row, or a commented "++++" row ("#0.10 ++++ 0.049"); other
    // '#' lines are comments.
    const bool commented = line.front() == '#';
    const std::vector<std::string_view> words = Words(commented ? line.substr(1) : line);
    if (commented && (words.size() != 3 || words[1] != "++++")) continue;
    if (words.size() != 3) {
      in.Fail(n, "expected 3 numbers (offset, rate, time), got " + Quote(line));
    }
    ClassicRow row;
    row.loops = table_loops;
    row.line = n;
    std::uint64_t key = 0;
    std::string shown;
    if (v19) {
      const std::optional<double> gib = ToDouble(words[0]);
      if (!gib || !std::isfinite(*gib) || *gib < 0) {
        in.Fail(n, "offset " + Quote(words[0]) + " is not a non-negative number of GiB");
      }
      if (*gib * static_cast<double>(kGiB) > kMaxOffsetBytes) {
        in.Fail(n, "offset " + Quote(words[0]) + " GiB is out of range");
      }
      row.offset_gib = *gib;
      key = static_cast<std::uint64_t>(std::llround(*gib * 100));
      shown = std::string(words[0]) + " GiB";
    } else {
      const std::optional<std::uint64_t> mib = ToUint(words[0]);
      if (!mib) in.Fail(n, "offset " + Quote(words[0]) + " is not a whole number of MiB");
      if (static_cast<double>(*mib) * static_cast<double>(kMiB) > kMaxOffsetBytes) {
        in.Fail(n, "offset " + Quote(words[0]) + " MiB is out of range");
      }
      row.offset_mib = *mib;
      key = *mib;
      shown = std::string(words[0]) + " MiB";
    }
    if (words[1] != "++++") {
      row.rate = NonNegative(in, n, v19 ? "rate (MiB/s)" : "rate (KiB/s)", words[1]);
    }
    row.seconds = NonNegative(in, n, "time (s)", words[2]);
    if (order.Add(in, n, key, shown) && !log.rows.empty()) ++log.pass_count;
    row.pass = log.pass_count;
    log.max_loops = std::max(log.max_loops, row.loops);
    log.rows.push_back(row);
  }
  if (log.rows.empty()) in.FailFile("no data rows (only comments and headers)");
  ++log.pass_count;
  return log;
}

// The rows of a classic log at `offsets_bytes` with their rates in MB/s
// (`rate_unit_bytes`: KiB for 1.03, MiB for 1.9x), "++++" rates recomputed
// from the time; adds the notes both layouts share. Rows whose time is 0 are
// left out; a rate that is not a finite number of MB/s throws. REQUIRES:
// profile.block_bytes is set.
std::vector<Row> ClassicRates(const Input& in, const ClassicLog& log, SavedResult& profile,
                              std::uint64_t rate_unit_bytes, const std::string& time_resolution,
                              const std::vector<std::uint64_t>& offsets_bytes) {
  std::vector<Row> rows;
  std::size_t recomputed = 0;
  std::size_t untimed = 0;
  for (std::size_t i = 0; i < log.rows.size(); ++i) {
    const ClassicRow& c = log.rows[i];
    Row row{.offset_bytes = offsets_bytes[i],
            .length_bytes = profile.block_bytes,
            .mb_per_s = 0,
            .passes = c.loops};
    if (c.rate) {
      row.mb_per_s = *c.rate * static_cast<double>(rate_unit_bytes) / kMB;
    } else if (c.seconds > 0) {
      row.mb_per_s = static_cast<double>(profile.block_bytes) / c.seconds / kMB;
      ++recomputed;
    } else {
      ++untimed;
      continue;
    }
    // A finite rate times its unit, or a block over a denormal time, can
    // still overflow (fuzz_bonnie103, fuzz_bonnie19x).
    if (!std::isfinite(row.mb_per_s)) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.3g", c.seconds);
      in.Fail(c.line, c.rate ? std::string("the rate is out of range (over 10^300 MB/s)")
                             : std::string("'++++' time ") + seconds +
                                   " s is too small: the rate it gives is infinite");
    }
    rows.push_back(row);
  }
  if (recomputed > 0) {
    profile.notes.push_back(std::to_string(recomputed) +
                            " '++++' rates recomputed from the time column and the " +
                            MibText(profile.block_bytes) + " block size" + time_resolution);
  }
  if (untimed > 0) {
    profile.notes.push_back(std::to_string(untimed) +
                            " '++++' rows with time 0 left out (too fast to time)");
  }
  if (log.max_loops > 1) {
    profile.notes.push_back(
        "each row is classic zcav's average over its loops (the mean of the middle third of "
        "the times), not a median");
  }
  return rows;
}

void FinishClassic103(const Input& in, const ClassicLog& log, SavedResult& profile) {
  // The offsets are exact MiB: the step between rows is the block size.
  std::vector<double> steps;
  for (std::size_t i = 1; i < log.rows.size(); ++i) {
    const ClassicRow& a = log.rows[i - 1];
    const ClassicRow& b = log.rows[i];
    if (a.pass == b.pass) steps.push_back(static_cast<double>(b.offset_mib - a.offset_mib));
  }
  std::uint64_t block_mib = 0;
  if (!steps.empty()) {
    block_mib = static_cast<std::uint64_t>(std::llround(Median(steps)));
  } else {
    // One row per pass: rate × time is the block (KiB/s × s = KiB).
    std::vector<double> sizes;
    for (const ClassicRow& c : log.rows) {
      if (c.rate) sizes.push_back(*c.rate * c.seconds / static_cast<double>(kKiB));
    }
    if (!sizes.empty()) {
      const double median = std::round(Median(sizes));
      if (median >= 1 && median <= kMaxBlockMib) block_mib = static_cast<std::uint64_t>(median);
    }
  }
  if (block_mib == 0 || static_cast<double>(block_mib) > kMaxBlockMib) {
    in.FailFile("cannot infer the block size (one offset and no usable rate × time)");
  }
  profile.block_bytes = block_mib * kMiB;
  std::vector<std::uint64_t> offsets;
  for (const ClassicRow& c : log.rows) offsets.push_back(c.offset_mib * kMiB);
  const std::vector<Row> rows = ClassicRates(in, log, profile, kKiB, "", offsets);
  if (rows.empty()) in.FailFile("no row has a usable rate (every row is '++++' with time 0)");
  ReduceRows(rows, profile);
}

// The first row index of one pass when its printed offsets fit
// (first + j) × step_mib, each within its rounding; nothing when none fits.
// Prefers 0 (runs start at the beginning) when it fits.
std::optional<std::uint64_t> FitPass(const std::vector<double>& gib, double step_mib) {
  double lo = 0;
  double hi = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < gib.size(); ++j) {
    const double mib = gib[j] * 1024.0;
    const double tol = PrintedGibToleranceMib(mib);
    lo = std::max(lo, (mib - tol) / step_mib - static_cast<double>(j));
    hi = std::min(hi, (mib + tol) / step_mib - static_cast<double>(j));
  }
  const double first = std::ceil(lo);
  if (first > hi) return std::nullopt;
  if (first == 0) return 0;
  const double pick = std::clamp(std::round((lo + hi) / 2), first, std::floor(hi));
  return static_cast<std::uint64_t>(pick);
}

// Block size: a timed row's rate × time is its block in MiB (rate printed
// with 2 decimals, time with 3); classic zcav blocks are whole MiB. 0 when
// no row is timed.
std::uint64_t Classic19xBlockMib(const Input& in, const ClassicLog& log) {
  std::vector<double> sizes;
  for (const ClassicRow& c : log.rows) {
    if (c.rate) sizes.push_back(*c.rate * c.seconds);
  }
  if (sizes.empty()) return 0;
  const double median = std::round(Median(sizes));
  if (median < 1 || median > kMaxBlockMib) {
    in.FailFile("cannot infer the block size: rate × time gives " + FormatFixed(median, 0) +
                " MiB, not a usable block size");
  }
  return static_cast<std::uint64_t>(median);
}

// The row grid of a 1.9x log: the printed offsets of each pass, the step
// between rows that fits them all, and where each pass starts on it.
class Classic19xGrid {
 public:
  explicit Classic19xGrid(const ClassicLog& log)
      : passes_(log.pass_count), first_index_(log.pass_count, 0) {
    for (const ClassicRow& c : log.rows) passes_[c.pass].push_back(c.offset_gib);
    longest_ = &*std::max_element(passes_.begin(), passes_.end(),
                                  [](const std::vector<double>& a, const std::vector<double>& b) {
                                    return a.size() < b.size();
                                  });
  }

  // The step between rows: a whole number of blocks (zcav -s skips blocks),
  // or when no row is timed (`block_mib` 0) a whole number of MiB, near the
  // average printed step, such that every pass fits its grid. Throws when
  // there is neither a block size nor a step to look for.
  void FindStep(const Input& in, std::uint64_t block_mib) {
    const std::size_t n = longest_->size();
    if (n >= 2) {
      const double estimate = EstimatedStepMib();
      const double tol =
          2 * PrintedGibToleranceMib(longest_->back() * 1024.0) / static_cast<double>(n - 1);
      const double unit = block_mib > 0 ? static_cast<double>(block_mib) : 1.0;
      const double k_lo = std::max(1.0, std::ceil((estimate - tol) / unit));
      const double k_hi = std::floor((estimate + tol) / unit);
      // Candidates nearest the estimate first; the first that fits wins.
      std::vector<double> candidates;
      for (double k = k_lo; k <= k_hi && candidates.size() < 100000; ++k) {
        candidates.push_back(k * unit);
      }
      std::stable_sort(candidates.begin(), candidates.end(), [&](double a, double b) {
        return std::abs(a - estimate) < std::abs(b - estimate);
      });
      for (double step : candidates) {
        if (Fits(static_cast<std::uint64_t>(step))) {
          step_mib_ = static_cast<std::uint64_t>(step);
          break;
        }
      }
    } else if (block_mib > 0) {
      step_mib_ = Fits(block_mib) ? block_mib : 0;
    } else {
      in.FailFile(
          "cannot infer the block size: every row is '++++' and no pass has two rows to give the "
          "offset step");
    }
    if (step_mib_ > 0) Fits(step_mib_);  // first_index_ for the chosen step
  }

  // The step FindStep chose; 0 when none fits.
  std::uint64_t step_mib() const { return step_mib_; }

  // The average printed step of the longest pass, in MiB. REQUIRES: it has
  // two rows or more.
  double EstimatedStepMib() const {
    const std::size_t n = longest_->size();
    return (longest_->back() - longest_->front()) * 1024.0 / static_cast<double>(n - 1);
  }

  // Each row's offset as its index on the grid of step_mib(). REQUIRES:
  // step_mib() > 0.
  std::vector<std::uint64_t> Offsets(const ClassicLog& log) const {
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint64_t> index_in_pass(passes_.size(), 0);
    for (const ClassicRow& c : log.rows) {
      offsets.push_back((first_index_[c.pass] + index_in_pass[c.pass]++) * step_mib_ * kMiB);
    }
    return offsets;
  }

 private:
  // Whether every pass fits the grid of `step` MiB; sets first_index_ when so.
  bool Fits(std::uint64_t step) {
    if (!FitPass(*longest_, static_cast<double>(step))) return false;  // fails fast
    for (std::size_t p = 0; p < passes_.size(); ++p) {
      const std::optional<std::uint64_t> first = FitPass(passes_[p], static_cast<double>(step));
      if (!first) return false;
      first_index_[p] = *first;
    }
    return true;
  }

  std::vector<std::vector<double>> passes_;       // the printed offsets (GiB) of each pass
  const std::vector<double>* longest_ = nullptr;  // the pass with the most rows
  std::uint64_t step_mib_ = 0;
  std::vector<std::uint64_t> first_index_;  // of each pass, on step_mib_'s grid after FindStep
};

// The block size in MiB from rate × time (`block_mib`), else from the step
// of `grid`, else estimated from the offsets; notes where it came from.
std::uint64_t Classic19xSettleBlock(std::uint64_t block_mib, const Classic19xGrid& grid,
                                    SavedResult& profile) {
  if (block_mib > 0) {
    profile.notes.push_back("block size " + MibText(block_mib * kMiB) +
                            " inferred from rate × time");
  } else if (grid.step_mib() > 0) {
    block_mib = grid.step_mib();
    profile.notes.push_back("every row is '++++': block size " + MibText(block_mib * kMiB) +
                            " inferred from the offset step; positions are only known to "
                            "0.01 GiB");
  } else {
    // No timed row and no grid: the average printed step, to the MiB.
    const double estimate = grid.EstimatedStepMib();
    block_mib = static_cast<std::uint64_t>(std::max(1.0, std::round(estimate)));
    profile.notes.push_back("every row is '++++': block size " + MibText(block_mib * kMiB) +
                            " estimated from the offsets; positions are only known to 0.01 GiB");
  }
  return block_mib;
}

// Rows not evenly spaced (edited, or passes of different grids): the
// printed positions, on the block grid when the grid is coarser than the
// printing.
std::vector<std::uint64_t> Classic19xPrintedOffsets(const ClassicLog& log, std::uint64_t block_mib,
                                                    SavedResult& profile) {
  std::vector<std::uint64_t> offsets;
  const bool snap = static_cast<double>(block_mib) > 2 * PrintedGibToleranceMib(0);
  for (const ClassicRow& c : log.rows) {
    const double mib = c.offset_gib * 1024.0;
    const auto unit = snap ? block_mib : 1;
    offsets.push_back(static_cast<std::uint64_t>(std::llround(mib / static_cast<double>(unit))) *
                      unit * kMiB);
  }
  profile.notes.push_back(
      std::string("the rows are not evenly spaced: offsets are the printed values, only known "
                  "to 0.01 GiB, rounded to ") +
      (snap ? "the " + MibText(block_mib * kMiB) + " block grid" : "the MiB"));
  return offsets;
}

void FinishClassic19x(const Input& in, const ClassicLog& log, SavedResult& profile) {
  std::uint64_t block_mib = Classic19xBlockMib(in, log);
  Classic19xGrid grid(log);
  grid.FindStep(in, block_mib);
  block_mib = Classic19xSettleBlock(block_mib, grid, profile);
  profile.block_bytes = block_mib * kMiB;

  std::vector<std::uint64_t> offsets;
  if (const std::uint64_t step_mib = grid.step_mib(); step_mib > 0) {
    offsets = grid.Offsets(log);
    profile.notes.push_back("offsets computed as row index × " + MibText(step_mib * kMiB) +
                            ": the file prints them rounded to 0.01 GiB");
    if (step_mib != block_mib) {
      profile.notes.push_back("rows are " + MibText(step_mib * kMiB) + " apart with " +
                              MibText(block_mib * kMiB) + " blocks (classic zcav -s " +
                              std::to_string(step_mib / block_mib) + ")");
    }
  } else {
    offsets = Classic19xPrintedOffsets(log, block_mib, profile);
  }
  const std::vector<Row> rows =
      ClassicRates(in, log, profile, kMiB, " (the time has 1 ms resolution)", offsets);
  if (rows.empty()) in.FailFile("no row has a usable rate (every row is '++++' with time 0)");
  ReduceRows(rows, profile);
}

// ---------------------------------------------------------------------------
// zcav raw (raw_writer.cc).

// A header value; "unknown" (what the writers print for a missing fact) is empty.
std::string KnownText(std::string_view value) {
  value = Trim(value);
  return value == "unknown" ? std::string() : std::string(value);
}

// "# summary: min A max B avg C MB/s (...), N bytes in S s of reading, wall W
// s, cpu P%": the average rate and the CPU share. Unparsable values are left
// unset (the summary is informative, not data).
void ParseRawSummary(std::string_view text, SavedResult& profile) {
  const std::vector<std::string_view> w = Words(text);
  for (std::size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] == "avg") {
      if (const std::optional<double> v = ToDouble(w[i + 1]); v && std::isfinite(*v) && *v >= 0) {
        profile.avg_mb_per_s = *v;
      }
    } else if (w[i] == "cpu") {
      std::string_view pct = w[i + 1];
      if (!pct.empty() && pct.back() == '%') pct.remove_suffix(1);
      if (const std::optional<double> v = ToDouble(pct); v && std::isfinite(*v) && *v >= 0) {
        profile.cpu_percent = *v;
      }
    }
  }
}

std::uint64_t HeaderNumber(const Input& in, std::size_t line, std::string_view name,
                           std::string_view value) {
  const std::optional<std::uint64_t> v = ToUint(value);
  if (!v) in.Fail(line, std::string(name) + " " + Quote(value) + " is not a whole number");
  return *v;
}

// "offset_bytes=X length_bytes=Y errno=E (text) pass=P [bounded]".
UnreadableRange RawUnreadable(const Input& in, std::size_t n, std::string_view text) {
  UnreadableRange r;
  bool offset = false, length = false;
  for (std::string_view word : Words(text)) {
    const std::size_t eq = word.find('=');
    if (word == "bounded") r.bounded_by_budget = true;
    if (eq == std::string_view::npos) continue;
    const std::string_view key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "offset_bytes") r.offset_bytes = HeaderNumber(in, n, key, value), offset = true;
    if (key == "length_bytes") r.length_bytes = HeaderNumber(in, n, key, value), length = true;
    if (key == "errno") r.errno_value = static_cast<int>(HeaderNumber(in, n, key, value) & 0xffff);
    if (key == "pass") {
      const std::uint64_t pass = HeaderNumber(in, n, key, value);
      r.pass =
          pass > 0 ? static_cast<std::uint32_t>(std::min<std::uint64_t>(pass - 1, 1u << 30)) : 0;
    }
  }
  if (!offset || !length || r.length_bytes == 0) {
    in.Fail(n, "an unreadable line needs offset_bytes and a positive length_bytes");
  }
  return r;
}

// "offset_bytes=X length_bytes=Y ms=M expected_ms=E pass=P".
SlowRegion RawSlow(const Input& in, std::size_t n, std::string_view text) {
  SlowRegion r;
  bool offset = false, length = false;
  for (const auto& [key, value] : KeyValues(text)) {
    if (key == "offset_bytes") r.offset_bytes = HeaderNumber(in, n, key, value), offset = true;
    if (key == "length_bytes") r.length_bytes = HeaderNumber(in, n, key, value), length = true;
    if (key == "ms") r.ms = NonNegative(in, n, "ms", value);
    if (key == "expected_ms") r.expected_ms = NonNegative(in, n, "expected_ms", value);
  }
  if (!offset || !length || r.length_bytes == 0) {
    in.Fail(n, "a slow line needs offset_bytes and a positive length_bytes");
  }
  return r;
}

// ParseZcavRaw's state: what the comment lines said so far (options,
// status, unreadable ranges), and the data rows becoming points.
class RawParser {
 public:
  RawParser(Input& in, SavedResult& profile) : in_(in), profile_(profile), rows_(profile) {}

  void Run() {
    std::string_view line;
    std::size_t n = 0;
    while (in_.Next(line, n)) {
      if (line.empty()) continue;
      if (line.front() == '#') {
        CommentLine(line, n);
      } else {
        DataRow(line, n);
      }
    }
    Finish();
  }

 private:
  void CommentLine(std::string_view line, std::size_t n) {
    if (StartsWith(line, "# zcav ")) {
      order_.StartTable();  // the start of a file (several may be concatenated)
    } else if (DeviceLine(line, n)) {
      // taken
    } else if (StartsWith(line, "# final unreadable: offset_bytes=")) {
      final_unreadable_.push_back(RawUnreadable(in_, n, line.substr(20)));
    } else if (StartsWith(line, "# unreadable: offset_bytes=")) {
      inline_unreadable_.push_back(RawUnreadable(in_, n, line.substr(14)));
    } else if (StartsWith(line, "# slow: offset_bytes=")) {
      profile_.slow_regions.push_back(RawSlow(in_, n, line.substr(8)));
    } else if (StartsWith(line, "# options:")) {
      OptionsLine(line.substr(10), n);
    } else if (StartsWith(line, "# timing:")) {
      TimingLine(line.substr(9), n);
    } else if (StartsWith(line, "# sample: ")) {
      SampleLine(line.substr(10), n);
    } else if (StartsWith(line, "# latency: pass=")) {
      LatencyLine(line.substr(11), n);
    } else if (StartsWith(line, "# temperature: ")) {
      TemperatureLine(line.substr(15), n);
    } else if (StartsWith(line, "# adaptive: ")) {
      profile_.adaptive =
          ParseAdaptiveJson(std::string(line.substr(12)), in_.source() + ":" + std::to_string(n));
    }
  }

  // The lines about the device and the run (size, path, status, identity,
  // summary); false for any other line.
  bool DeviceLine(std::string_view line, std::size_t n) {
    if (StartsWith(line, "# size_bytes:")) {
      profile_.device_bytes = HeaderNumber(in_, n, "size_bytes", Trim(line.substr(13)));
    } else if (StartsWith(line, "# device:")) {
      const std::string_view path = Trim(line.substr(9));
      profile_.device_path = path == "unknown" ? "" : std::string(path);
    } else if (StartsWith(line, "# status:")) {
      status_ = Trim(line.substr(9));
    } else if (StartsWith(line, "# vendor:")) {
      profile_.device_vendor = KnownText(line.substr(9));
    } else if (StartsWith(line, "# model:")) {
      profile_.device_model = KnownText(line.substr(8));
    } else if (StartsWith(line, "# serial:")) {
      profile_.device_serial = KnownText(line.substr(9));
    } else if (StartsWith(line, "# wwn:")) {
      profile_.device_wwn = KnownText(line.substr(6));
    } else if (StartsWith(line, "# firmware:")) {
      profile_.device_firmware = KnownText(line.substr(11));
    } else if (StartsWith(line, "# host:")) {
      profile_.host = KnownText(line.substr(7));
    } else if (StartsWith(line, "# started:")) {
      profile_.started_utc = KnownText(line.substr(10));
    } else if (StartsWith(line, "# transport:")) {
      profile_.transport = KnownText(line.substr(12));
    } else if (StartsWith(line, "# rotational:")) {
      const std::string_view r = Trim(line.substr(13));
      if (r == "yes" || r == "no") profile_.rotational = r == "yes";
    } else if (StartsWith(line, "# storage:")) {
      // "# storage: TRANSPORT, rotational yes|no|unknown"
      const std::string_view text = Trim(line.substr(10));
      const std::size_t comma = text.find(',');
      profile_.storage_transport = std::string(Trim(text.substr(0, comma)));
      if (comma != std::string_view::npos) {
        const std::string_view r = Trim(text.substr(comma + 1));
        if (r == "rotational yes" || r == "rotational no") {
          profile_.storage_rotational = r == "rotational yes";
        }
      }
    } else if (StartsWith(line, "# link:")) {
      profile_.link = KnownText(line.substr(7));
    } else if (StartsWith(line, "# mode: write")) {
      plan_.write = true;
    } else if (StartsWith(line, "# summary:")) {
      ParseRawSummary(line.substr(10), profile_);
    } else if (StartsWith(line, "# health: ")) {
      profile_.health_verdict = std::string(Trim(line.substr(10)));
    } else if (StartsWith(line, "# health reason: ")) {
      profile_.health_reasons.emplace_back(Trim(line.substr(17)));
    } else if (StartsWith(line, "# smart increase: ")) {
      profile_.smart_increases.emplace_back(Trim(line.substr(18)));
    } else if (StartsWith(line, "# smart before: unavailable (")) {
      const std::string_view note = Trim(line.substr(29));
      profile_.smart_note =
          std::string(note.substr(0, note.size() - (note.ends_with(')') ? 1 : 0)));
    } else {
      return false;
    }
    return true;
  }

  // "# options: key=value ...": the sweep's plan.
  void OptionsLine(std::string_view text, std::size_t n) {
    for (const auto& [key, value] : KeyValues(text)) {
      if (key == "block_bytes") block_ = HeaderNumber(in_, n, key, value);
      if (key == "start_bytes") start_ = HeaderNumber(in_, n, key, value);
      if (key == "end_bytes") end_ = HeaderNumber(in_, n, key, value);
      if (key == "chunk_bytes") plan_.chunk_bytes = HeaderNumber(in_, n, key, value);
      if (key == "passes") {
        plan_.passes = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(HeaderNumber(in_, n, key, value), 1u << 20));
      }
      if (key == "skip") {
        plan_.skip = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(HeaderNumber(in_, n, key, value), 1u << 30));
      }
      if (key == "blocks") {
        plan_.block_count = HeaderNumber(in_, n, key, value);
        // One point per block: room for them all at once (within reason:
        // a damaged count must not reserve gigabytes: 2^25 points, 256 MiB,
        // more than a 20 TB disk in 1 MiB blocks; found by fuzz_raw).
        if (profile_.points.empty()) {
          profile_.points.reserve(static_cast<std::size_t>(
              std::min<std::uint64_t>(plan_.block_count, std::uint64_t{1} << 25)));
        }
      }
      if (key == "quick") plan_.quick = value == "yes";
      if (key == "warmup") plan_.warmup = value == "yes";
      if (key == "engine") plan_.engine = std::string(value);
      if (key == "queue_depth") {
        plan_.queue_depth = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(HeaderNumber(in_, n, key, value), 1u << 20));
      }
    }
    has_options_ = true;
  }

  // "# temperature: seconds=S offset_bytes=N celsius=C pass=P source=..."
  // (pass: 1-based; absent in files before it was recorded).
  void TemperatureLine(std::string_view text, std::size_t n) {
    TemperatureReading t;
    for (const auto& [key, value] : KeyValues(text)) {
      if (key == "seconds" || key == "celsius") {
        const std::optional<double> v = ToDouble(value);
        if (!v || !std::isfinite(*v) || (key == "seconds" && *v < 0)) {
          in_.Fail(n, std::string(key) + " " + Quote(value) + " is not a number");
        }
        (key == "seconds" ? t.seconds : t.celsius) = *v;
      } else if (key == "offset_bytes") {
        t.offset_bytes = HeaderNumber(in_, n, key, value);
      } else if (key == "pass") {
        const std::uint64_t pass = HeaderNumber(in_, n, key, value);
        t.pass = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(pass, 1, 1u << 20) - 1);
      }
    }
    profile_.temperatures.push_back(t);
  }

  // "# timing: blur_blocks=B".
  void TimingLine(std::string_view text, std::size_t n) {
    for (std::string_view word : Words(text)) {
      const std::size_t eq = word.find('=');
      if (eq == std::string_view::npos || word.substr(0, eq) != "blur_blocks") continue;
      const std::optional<double> v = ToDouble(word.substr(eq + 1));
      if (!v || !std::isfinite(*v) || *v < 0 || *v > kMaxBlurBlocks) {
        in_.Fail(n, "blur_blocks " + Quote(word.substr(eq + 1)) +
                        " is not a number of blocks (0 or more)");
      }
      profile_.blur_blocks = *v;
    }
  }

  // "# sample: pass=P block=B offset_bytes=X length_bytes=Y elapsed_ns=T".
  void SampleLine(std::string_view text, std::size_t n) {
    Sample x;
    for (const auto& [key, value] : KeyValues(text)) {
      const std::uint64_t v = HeaderNumber(in_, n, key, value);
      if (key == "pass") {
        x.pass = static_cast<std::uint32_t>(std::min<std::uint64_t>(v, 1u << 20) - (v > 0 ? 1 : 0));
      }
      if (key == "block") x.block_index = v;
      if (key == "offset_bytes") x.offset_bytes = v;
      if (key == "length_bytes") x.length_bytes = v;
      if (key == "elapsed_ns") {
        x.elapsed = std::chrono::nanoseconds(
            static_cast<std::int64_t>(std::min<std::uint64_t>(v, 1ULL << 62)));
      }
    }
    profile_.samples.push_back(x);
  }

  // "# latency: pass=P chunk_bytes=N below_5ms=N ... unreadable=N": one
  // pass's chunks by latency class (the "total" line is their sum).
  void LatencyLine(std::string_view text, std::size_t n) {
    LatencyClasses c;
    for (const auto& [key, value] : KeyValues(text)) {
      if (key == "pass") continue;
      const std::uint64_t v = HeaderNumber(in_, n, key, value);
      if (key == "chunk_bytes") c.chunk_bytes = v;
      if (key == LatencyClassKey(LatencyClass::kUnreadable)) c.unreadable_chunks = v;
      for (std::size_t i = 0; i < c.chunks.size(); ++i) {
        if (key == LatencyClassKey(static_cast<LatencyClass>(i))) c.chunks[i] = v;
      }
    }
    profile_.latency_classes.push_back(c);
    if (profile_.chunk_bytes == 0) profile_.chunk_bytes = c.chunk_bytes;
  }

  // A data row: "offset GiB, MiB/s, seconds, MB/s, min, max, stddev MB/s, passes".
  void DataRow(std::string_view line, std::size_t n) {
    const std::vector<std::string_view> w = Words(line);
    if (w.size() != 8) {
      in_.Fail(n,
               "expected 8 numbers (offset GiB, MiB/s, seconds, MB/s, min, max, stddev MB/s, "
               "passes), got " +
                   Quote(line));
    }
    const std::optional<double> gib = ToDouble(w[0]);
    if (!gib || !std::isfinite(*gib) || *gib < 0) {
      in_.Fail(n, "offset " + Quote(w[0]) + " is not a non-negative number of GiB");
    }
    const double bytes = *gib * static_cast<double>(kGiB);
    if (bytes > kMaxOffsetBytes) in_.Fail(n, "offset " + Quote(w[0]) + " GiB is out of range");
    NonNegative(in_, n, "rate (MiB/s)", w[1]);
    NonNegative(in_, n, "time (s)", w[2]);
    const double mb_per_s = NonNegative(in_, n, "rate (MB/s)", w[3]);
    const double min_mb_per_s = NonNegative(in_, n, "min rate (MB/s)", w[4]);
    const double max_mb_per_s = NonNegative(in_, n, "max rate (MB/s)", w[5]);
    NonNegative(in_, n, "stddev (MB/s)", w[6]);
    const std::optional<std::uint64_t> passes = ToUint(w[7]);
    if (!passes || *passes == 0) {
      in_.Fail(n, "passes " + Quote(w[7]) + " is not a positive whole number");
    }
    const std::uint64_t snapped = SnapOffset(bytes);
    order_.Add(in_, n, snapped, std::string(w[0]) + " GiB");
    rows_.Add(Row{.offset_bytes = snapped,
                  .length_bytes = 0,
                  .mb_per_s = mb_per_s,
                  .passes = *passes,
                  .min_mb_per_s = min_mb_per_s,
                  .max_mb_per_s = max_mb_per_s});
  }

  // 9 decimals of GiB are about one byte: round to the block grid (or at
  // least to 512-byte sectors) to get the exact offset back.
  std::uint64_t SnapOffset(double bytes) const {
    auto offset = static_cast<std::uint64_t>(std::llround(bytes));
    const std::uint64_t sector = 512;
    std::uint64_t snapped = (offset + sector / 2) / sector * sector;
    if (block_ > 0 && offset + sector >= start_) {
      const double k =
          std::round((bytes - static_cast<double>(start_)) / static_cast<double>(block_));
      const std::uint64_t grid = start_ + static_cast<std::uint64_t>(std::max(0.0, k)) * block_;
      if ((grid > offset ? grid - offset : offset - grid) <= sector) snapped = grid;
    }
    return snapped;
  }

  // After the last line: the points, the plan, the status and the ranges.
  void Finish() {
    if (rows_.empty()) in_.FailFile("no data rows (the run measured no blocks?)");
    rows_.Finish();
    if (has_options_) {
      plan_.block_bytes = block_;
      plan_.start_bytes = start_;
      plan_.end_bytes = end_;
      profile_.plan = plan_;
    }
    profile_.status = status_;
    // The footer's merged list when the run finished; else the ones found.
    profile_.unreadable = final_unreadable_.empty() ? inline_unreadable_ : final_unreadable_;
    std::sort(profile_.unreadable.begin(), profile_.unreadable.end(),
              [](const auto& a, const auto& b) { return a.offset_bytes < b.offset_bytes; });

    const Curve& points = profile_.points;
    if (block_ == 0 && points.size() >= 2) {
      std::vector<double> steps;
      for (std::size_t i = 1; i < points.size(); ++i) {
        steps.push_back(static_cast<double>(points.offset_bytes(i) - points.offset_bytes(i - 1)));
      }
      block_ = static_cast<std::uint64_t>(Median(steps));
      profile_.notes.push_back("no options line: block size " + MibText(block_) +
                               " inferred from the offsets");
    }
    profile_.block_bytes = block_;
    SizePoints();
    if (status_.empty() || StartsWith(status_, "running")) {
      profile_.notes.push_back("no final status line: the run was killed, or is still running");
    } else if (status_ != "complete") {
      profile_.notes.push_back("the run's status: " + status_);
    }
  }

  // The lengths (the file gives none): a block, up to the next block and
  // the end of the range. The curve is copied with them.
  void SizePoints() {
    const Curve& points = profile_.points;
    const std::uint64_t limit = end_ > 0 ? end_ : profile_.device_bytes;
    Curve sized;
    sized.reserve(points.size());
    std::optional<CurvePoint> previous;
    const auto add = [&](CurvePoint p, std::optional<std::uint64_t> next_offset) {
      std::uint64_t length = block_;
      if (next_offset) length = std::min(length, *next_offset - p.offset_bytes);
      if (limit > p.offset_bytes) length = std::min(length, limit - p.offset_bytes);
      p.length_bytes = length;
      sized.push_back(p);
    };
    for (const CurvePoint& p : points) {
      if (previous) add(*previous, p.offset_bytes);
      previous = p;
    }
    if (previous) add(*previous, std::nullopt);
    profile_.points = std::move(sized);
  }

  Input& in_;
  SavedResult& profile_;
  std::vector<UnreadableRange> final_unreadable_, inline_unreadable_;
  SweepPlan plan_;
  bool has_options_ = false;
  std::uint64_t block_ = 0;  // the options' block_bytes, start_bytes and end_bytes
  std::uint64_t start_ = 0;
  std::uint64_t end_ = 0;
  std::string status_;
  RowReducer rows_;
  PassOrder order_{/*equal_allowed=*/false};
};

void ParseZcavRaw(Input& in, SavedResult& profile) { RawParser(in, profile).Run(); }

// ---------------------------------------------------------------------------
// zcav CSV (csv_writer.cc).

std::vector<std::string_view> SplitCommas(std::string_view line) {
  std::vector<std::string_view> fields;
  while (true) {
    const std::size_t comma = line.find(',');
    fields.push_back(Trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return fields;
}

// "# key: value", a comment line before the header (csv_writer.cc): the
// drive's identity and the run's.
void CsvComment(std::string_view line, SavedResult& profile) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || line.size() < 2) return;
  const std::string_view key = Trim(line.substr(1, colon - 1));
  const std::string value = KnownText(line.substr(colon + 1));
  if (key == "device") profile.device_path = value;
  if (key == "model") profile.device_model = value;
  if (key == "serial") profile.device_serial = value;
  if (key == "wwn") profile.device_wwn = value;
  if (key == "firmware") profile.device_firmware = value;
  if (key == "host") profile.host = value;
  if (key == "started") profile.started_utc = value;
  if (key == "chunk_bytes") {
    const std::optional<std::uint64_t> v = ToUint(Trim(line.substr(colon + 1)));
    if (v) profile.chunk_bytes = *v;
  }
  if (key == "size_bytes") {
    const std::optional<std::uint64_t> v = ToUint(Trim(line.substr(colon + 1)));
    if (v) profile.device_bytes = *v;
  }
}

void ParseZcavCsv(Input& in, SavedResult& profile) {
  std::size_t header_line = 0;
  std::string_view line;
  std::size_t n = 0;
  while (header_line == 0 && in.Next(line, n)) {
    if (line.empty()) continue;
    if (line.front() == '#') {
      CsvComment(line, profile);
      continue;
    }
    header_line = n;
  }
  if (header_line == 0) in.FailFile("no CSV header row after the comment lines");
  const std::string header(line);
  const std::vector<std::string_view> names = SplitCommas(header);
  auto column = [&](std::string_view name) -> std::optional<std::size_t> {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return std::nullopt;
    return static_cast<std::size_t>(it - names.begin());
  };
  auto required = [&](std::string_view name) {
    const std::optional<std::size_t> col = column(name);
    if (!col) in.Fail(header_line, "the CSV header has no '" + std::string(name) + "' column");
    return *col;
  };
  const std::size_t offset_col = required("offset_bytes");
  const std::size_t length_col = required("length_bytes");
  const std::size_t rate_col = required("mb_per_s");
  const std::optional<std::size_t> passes_col = column("passes");
  const std::optional<std::size_t> min_col = column("min_mb_per_s");
  const std::optional<std::size_t> max_col = column("max_mb_per_s");
  const std::optional<std::size_t> unreadable_col = column("unreadable_bytes");
  const std::optional<std::size_t> worst_col = column("worst_chunk_ms");

  RowReducer rows(profile);
  PassOrder order(/*equal_allowed=*/false);
  while (in.Next(line, n)) {
    if (line.empty() || line.front() == '#') continue;
    if (line == header) {  // concatenated files
      order.StartTable();
      continue;
    }
    const std::vector<std::string_view> f = SplitCommas(line);
    if (f.size() != names.size()) {
      in.Fail(n, "expected " + std::to_string(names.size()) + " comma-separated fields, got " +
                     std::to_string(f.size()) + ": " + Quote(line));
    }
    const std::optional<std::uint64_t> offset = ToUint(f[offset_col]);
    if (!offset) in.Fail(n, "offset_bytes " + Quote(f[offset_col]) + " is not a whole number");
    const std::optional<std::uint64_t> length = ToUint(f[length_col]);
    if (!length || *length == 0) {
      in.Fail(n, "length_bytes " + Quote(f[length_col]) + " is not a positive whole number");
    }
    Row row{.offset_bytes = *offset,
            .length_bytes = *length,
            .mb_per_s = NonNegative(in, n, "mb_per_s", f[rate_col]),
            .passes = 1};
    if (passes_col && unreadable_col && f[*passes_col] == "0") {
      // A block with no clean read: no rate. It must say what was unreadable.
      const std::optional<std::uint64_t> bad = ToUint(f[*unreadable_col]);
      if (!bad || *bad == 0) in.Fail(n, "passes 0 without unreadable_bytes: no rate to read");
      continue;
    }
    if (passes_col) {
      const std::optional<std::uint64_t> passes = ToUint(f[*passes_col]);
      if (!passes || *passes == 0) {
        in.Fail(n, "passes " + Quote(f[*passes_col]) + " is not a positive whole number");
      }
      row.passes = *passes;
    }
    if (min_col && max_col) {
      row.min_mb_per_s = NonNegative(in, n, "min_mb_per_s", f[*min_col]);
      row.max_mb_per_s = NonNegative(in, n, "max_mb_per_s", f[*max_col]);
    }
    if (worst_col) {
      row.worst_chunk_ms =
          static_cast<float>(std::min(NonNegative(in, n, "worst_chunk_ms", f[*worst_col]), 1e9));
    }
    order.Add(in, n, *offset, std::string(f[offset_col]));
    rows.Add(row);
  }
  if (rows.empty()) in.FailFile("no data rows (the run measured no blocks?)");
  rows.Finish();
  for (const CurvePoint& p : profile.points) {
    profile.block_bytes = std::max(profile.block_bytes, p.length_bytes);
  }
}

// ---------------------------------------------------------------------------
// zcav JSON (json_writer.cc).

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
  row.offset_bytes = whole("offset_bytes", true, 0);
  row.length_bytes = whole("length_bytes", true, 0);
  if (row.length_bytes == 0) fail("length_bytes is 0");
  row.passes = whole("passes", false, 1);
  if (row.passes == 0) {
    // No clean read (zcav writes null rates and the unreadable bytes).
    const auto rate = block.find("mb_per_s");
    if (rate != block.end() && rate->is_null() && whole("unreadable_bytes", false, 0) > 0) {
      return std::nullopt;
    }
    fail("passes is 0");
  }
  const auto rate = block.find("mb_per_s");
  if (rate == block.end()) fail("has no mb_per_s");
  if (!rate->is_number()) fail("mb_per_s is not a number");
  row.mb_per_s = rate->get<double>();
  if (row.mb_per_s < 0) fail("mb_per_s is negative");
  // The spread across passes is optional (older files, hand-made input).
  const auto lo = block.find("min_mb_per_s");
  const auto hi = block.find("max_mb_per_s");
  if (lo != block.end() && hi != block.end() && lo->is_number() && hi->is_number() &&
      lo->get<double>() >= 0 && hi->get<double>() >= lo->get<double>()) {
    row.min_mb_per_s = lo->get<double>();
    row.max_mb_per_s = hi->get<double>();
  }
  if (const auto worst = block.find("worst_chunk_ms"); worst != block.end() && worst->is_number() &&
                                                       worst->get<double>() > 0 &&
                                                       std::isfinite(worst->get<double>())) {
    row.worst_chunk_ms = static_cast<float>(std::min(worst->get<double>(), 1e9));
  }
  return row;
}

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
        in_blocks_ = parsed == "blocks";
        in_samples_ = parsed == "samples";
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

// A member of `object` that is a finite number of at least 0; empty when it
// is missing or not one.
std::optional<double> JsonNonNegative(const Json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  return v;
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
  s.transport = text("transport");
  s.current = text("current");
  s.max = text("max");
  s.width = count("width");
  s.max_width = count("max_width");
  s.driver = text("driver");
  s.card_type = text("card_type");
  s.speed_class = text("speed_class");
  s.card_grades = text("card_grades");
  const auto d = l.find("downgraded");
  s.downgraded = d != l.end() && d->is_boolean() && d->get<bool>();
  s.reason = text("reason");
  s.limit_mb_per_s = rate("limit_mb_per_s");
  s.max_limit_mb_per_s = rate("max_limit_mb_per_s");
  return s;
}

// "device": the path, size and what the device said about itself.
void ReadJsonDevice(const Json& dev, SavedResult& profile) {
  if (const auto p = dev.find("path"); p != dev.end() && p->is_string()) {
    profile.device_path = p->get<std::string>();
  }
  if (const auto s = dev.find("size_bytes"); s != dev.end() && s->is_number_unsigned()) {
    profile.device_bytes = s->get<std::uint64_t>();
  }
  auto device_text = [&](const char* name) {
    const auto it = dev.find(name);
    return it != dev.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  profile.device_vendor = device_text("vendor");
  profile.device_model = device_text("model");
  profile.transport = device_text("transport");
  profile.link = device_text("link");
  profile.storage_transport = device_text("storage_transport");
  profile.caches.page_cache_file = device_text("page_cache_file");
  if (const auto l = dev.find("link_detail"); l != dev.end() && l->is_object()) {
    profile.link_state = ReadJsonLink(*l);
  }
  auto device_flag = [&](const char* name) -> std::optional<bool> {
    const auto it = dev.find(name);
    return it != dev.end() && it->is_boolean() ? std::optional<bool>(it->get<bool>())
                                               : std::nullopt;
  };
  profile.rotational = device_flag("rotational");
  profile.storage_rotational = device_flag("storage_rotational");
  if (const auto id = dev.find("identity"); id != dev.end() && id->is_object()) {
    const auto text = [&](const char* name) {
      const auto it = id->find(name);
      return it != id->end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    profile.device_serial = text("serial");
    profile.device_wwn = text("wwn");
    profile.device_firmware = text("firmware");
    profile.host = text("host");
    profile.started_utc = text("started");
  }
}

// "options": the sweep's plan and its timing.
void ReadJsonOptions(const Json& opt, SavedResult& profile) {
  if (const auto b = opt.find("block_bytes"); b != opt.end() && b->is_number_unsigned()) {
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
  plan.start_bytes = whole("start_bytes");
  plan.end_bytes = whole("end_bytes");
  plan.block_bytes = whole("block_bytes");
  plan.chunk_bytes = whole("chunk_bytes");
  plan.passes = static_cast<std::uint32_t>(std::min<std::uint64_t>(whole("passes"), 1u << 20));
  plan.skip = static_cast<std::uint32_t>(std::min<std::uint64_t>(whole("skip"), 1u << 30));
  plan.quick = flag("quick");
  plan.warmup = flag("warmup");
  plan.block_count = whole("block_count");
  if (const auto e = opt.find("engine"); e != opt.end() && e->is_string()) {
    plan.engine = e->get<std::string>();
  }
  if (const auto m = opt.find("mode"); m != opt.end() && *m == "write") plan.write = true;
  if (const std::uint64_t depth = whole("queue_depth"); depth != 0) {
    plan.queue_depth = static_cast<std::uint32_t>(std::min<std::uint64_t>(depth, 1u << 20));
  }
  profile.plan = plan;
  // Files before "timing" was recorded: unknown, taken as sharp (0).
  if (const auto t = opt.find("timing"); t != opt.end() && t->is_object()) {
    if (const auto b = t->find("blur_blocks"); b != t->end() && b->is_number()) {
      const double v = b->get<double>();
      if (std::isfinite(v) && v >= 0 && v <= kMaxBlurBlocks) profile.blur_blocks = v;
    }
  }
}

// "random_access" {mode, cells: [{size_bytes, queue_depth, engine_depth,
// iops, mb_per_s, mean_ms, p50_ms, p99_ms, max_ms, ...}]}, when present.
void ReadJsonRandomAccess(const Input& in, const Json& root, SavedResult& profile) {
  const auto ra = root.find("random_access");
  if (ra == root.end() || !ra->is_object()) return;
  if (const auto mode = ra->find("mode"); mode != ra->end() && mode->is_string()) {
    profile.random_access_mode = mode->get<std::string>();
  }
  const auto cells = ra->find("cells");
  if (cells == ra->end() || !cells->is_array()) in.FailFile("random_access has no cells array");
  for (std::size_t i = 0; i < cells->size(); ++i) {
    const Json& c = (*cells)[i];
    const auto fail = [&](const char* what) {
      in.FailFile("random_access.cells[" + std::to_string(i) + "]: " + what);
    };
    if (!c.is_object()) fail("is not an object");
    RandomAccessCell cell;
    cell.size_bytes = JsonCount(c, "size_bytes");
    const std::uint64_t depth = JsonCount(c, "queue_depth");
    if (cell.size_bytes == 0 || depth == 0 || depth > 1u << 20) {
      fail("needs a whole size_bytes and queue_depth above 0");
    }
    cell.queue_depth = static_cast<std::uint32_t>(depth);
    cell.engine_depth = static_cast<std::uint32_t>(
        std::clamp<std::uint64_t>(JsonCount(c, "engine_depth"), 1, depth));
    cell.ops = JsonCount(c, "ops");
    const std::optional<double> iops = JsonNonNegative(c, "iops");
    const std::optional<double> mean = JsonNonNegative(c, "mean_ms");
    if (!iops || !mean) fail("needs iops and mean_ms, numbers of at least 0");
    cell.iops = *iops;
    cell.mean_ms = *mean;
    cell.seconds = JsonNonNegative(c, "seconds").value_or(0);
    cell.mb_per_s = JsonNonNegative(c, "mb_per_s").value_or(0);
    cell.p50_ms = JsonNonNegative(c, "p50_ms").value_or(0);
    cell.p99_ms = JsonNonNegative(c, "p99_ms").value_or(0);
    cell.max_ms = JsonNonNegative(c, "max_ms").value_or(0);
    profile.random_access.push_back(cell);
  }
}

// zcav profile's measurements besides the sweep (all optional): "access",
// "burst", "verdict" and "random_access".
void ReadJsonProfileMeasurements(const Input& in, const Json& root, SavedResult& profile) {
  ReadJsonRandomAccess(in, root, profile);
  if (const auto a = root.find("adaptive"); a != root.end()) {
    profile.adaptive = ParseAdaptiveJson(a->dump(), in.source());
  }
  if (const auto acc = root.find("access"); acc != root.end() && acc->is_object()) {
    profile.access_mean_ms = JsonNonNegative(*acc, "mean_ms");
    if (const auto samples = acc->find("samples"); samples != acc->end() && samples->is_array()) {
      for (std::size_t i = 0; i < samples->size(); ++i) {
        const Json& sample = (*samples)[i];
        const auto offset = sample.is_object() ? sample.find("offset_bytes") : sample.end();
        const std::optional<double> ms =
            sample.is_object() ? JsonNonNegative(sample, "ms") : std::nullopt;
        if (offset == sample.end() || !offset->is_number_unsigned() || !ms) {
          in.FailFile("access.samples[" + std::to_string(i) +
                      "]: needs a whole offset_bytes and a number ms of at least 0");
        }
        profile.access_samples.push_back({offset->get<std::uint64_t>(), *ms});
      }
    }
  }
  if (const auto burst = root.find("burst"); burst != root.end() && burst->is_object()) {
    profile.burst_mb_per_s = JsonNonNegative(*burst, "avg_mb_per_s");
  }
  if (const auto verdict = root.find("verdict"); verdict != root.end() && verdict->is_object()) {
    const auto kind = verdict->find("kind");
    const auto reason = verdict->find("reason");
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
    const auto offset = item.is_object() ? item.find("offset_bytes") : item.end();
    const auto length = item.is_object() ? item.find("length_bytes") : item.end();
    if (offset == item.end() || length == item.end() || !offset->is_number_unsigned() ||
        !length->is_number_unsigned() || length->get<std::uint64_t>() == 0) {
      in.FailFile(std::string(name) + "[" + std::to_string(i) +
                  "]: needs whole offset_bytes and a positive whole length_bytes");
    }
    add(item, offset->get<std::uint64_t>(), length->get<std::uint64_t>());
  }
}

// Unreadable ranges and slow regions (zcav's own sweeps).
void ReadJsonRanges(const Input& in, const Json& root, SavedResult& profile) {
  ForEachJsonRange(
      in, root, "errors", [&](const Json& item, std::uint64_t offset, std::uint64_t length) {
        UnreadableRange r{offset, length, 0, 0, false};
        if (const auto e = item.find("errno"); e != item.end() && e->is_number_integer()) {
          r.errno_value = e->get<int>();
        }
        if (const auto b = item.find("bounded_by_budget"); b != item.end() && b->is_boolean()) {
          r.bounded_by_budget = b->get<bool>();
        }
        profile.unreadable.push_back(r);
      });
  ForEachJsonRange(in, root, "slow_regions",
                   [&](const Json& item, std::uint64_t offset, std::uint64_t length) {
                     SlowRegion r{offset, length, 0, JsonNonNegative(item, "ms").value_or(0),
                                  JsonNonNegative(item, "expected_ms").value_or(0)};
                     profile.slow_regions.push_back(r);
                   });
}

// Each pass's "chunk_bytes", "latency_classes" and "unreadable_chunks"
// (json_writer.cc), when present; a pass without them is skipped.
void ReadJsonLatency(const Json& passes, SavedResult& profile) {
  for (const Json& pass : passes) {
    if (!pass.is_object()) continue;
    const auto classes = pass.find("latency_classes");
    if (classes == pass.end() || !classes->is_array()) continue;
    LatencyClasses c;
    c.chunk_bytes = JsonCount(pass, "chunk_bytes");
    c.unreadable_chunks = JsonCount(pass, "unreadable_chunks");
    for (std::size_t i = 0; i < c.chunks.size() && i < classes->size(); ++i) {
      if ((*classes)[i].is_object()) c.chunks[i] = JsonCount((*classes)[i], "chunks");
    }
    profile.latency_classes.push_back(c);
    if (profile.chunk_bytes == 0) profile.chunk_bytes = c.chunk_bytes;
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
  if (const auto passes = root.find("passes"); passes != root.end() && passes->is_array()) {
    for (const Json& pass : *passes) {
      if (!pass.is_object()) continue;
      const auto complete = pass.find("complete");
      const auto rate = pass.find("mb_per_s");
      if (complete == pass.end() || *complete != true || rate == pass.end() || !rate->is_number() ||
          !std::isfinite(rate->get<double>()) || rate->get<double>() <= 0) {
        continue;
      }
      profile.caches.pass_mb_per_s.push_back(rate->get<double>());
      profile.caches.pass_cached_share.push_back(share(pass, "page_cache_share"));
    }
  }
  if (const auto sum = root.find("summary"); sum != root.end() && sum->is_object()) {
    profile.caches.cached_share_at_end = share(*sum, "page_cache_share_at_end");
  }
}

// "health" {verdict, reasons} and "smart" {before {note}, increases}
// (json_writer.cc), when present.
void ReadJsonHealth(const Json& root, SavedResult& profile) {
  if (const auto h = root.find("health"); h != root.end() && h->is_object()) {
    if (const auto v = h->find("verdict"); v != h->end() && v->is_string()) {
      profile.health_verdict = v->get<std::string>();
    }
    if (const auto rs = h->find("reasons"); rs != h->end() && rs->is_array()) {
      for (const Json& r : *rs) {
        if (r.is_string()) profile.health_reasons.push_back(r.get<std::string>());
      }
    }
  }
  const auto smart = root.find("smart");
  if (smart == root.end() || !smart->is_object()) return;
  if (const auto before = smart->find("before"); before != smart->end() && before->is_object()) {
    if (const auto note = before->find("note"); note != before->end() && note->is_string()) {
      profile.smart_note = note->get<std::string>();
    }
  }
  if (const auto inc = smart->find("increases"); inc != smart->end() && inc->is_array()) {
    for (const Json& c : *inc) {
      if (!c.is_object() || !c.contains("field") || !c["field"].is_string()) continue;
      profile.smart_increases.push_back(c["field"].get<std::string>() + " " +
                                        std::to_string(JsonCount(c, "before")) + " -> " +
                                        std::to_string(JsonCount(c, "after")));
    }
  }
}

// "temperatures" [{seconds, offset_bytes, celsius, pass}] (json_writer.cc),
// when present; readings without a number for the time or the temperature
// are skipped.
void ReadJsonTemperatures(const Json& root, SavedResult& profile) {
  const auto temps = root.find("temperatures");
  if (temps == root.end() || !temps->is_array()) return;
  for (const Json& t : *temps) {
    if (!t.is_object()) continue;
    const std::optional<double> seconds = JsonNonNegative(t, "seconds");
    const auto c = t.find("celsius");
    if (!seconds || c == t.end() || !c->is_number() || !std::isfinite(c->get<double>())) continue;
    TemperatureReading r;
    r.seconds = *seconds;
    r.celsius = c->get<double>();
    r.offset_bytes = JsonCount(t, "offset_bytes");
    r.pass = static_cast<std::uint32_t>(
        std::clamp<std::uint64_t>(JsonCount(t, "pass"), 1, 1u << 20) - 1);
    profile.temperatures.push_back(r);
  }
}

void ParseZcavJson(Input& in, SavedResult& profile) {
  std::istream& stream = in.Restart();
  RowReducer rows(profile);
  JsonBlockStream parser(in, rows);
  const Json root = parser.Parse(stream);
  if (!root.is_object()) in.FailFile("not a zcav JSON file (the top level is not an object)");
  const auto blocks = root.find("blocks");
  if (blocks == root.end() || !blocks->is_array()) {
    in.FailFile("not a zcav JSON file (no \"blocks\" array)");
  }
  if (const auto dev = root.find("device"); dev != root.end() && dev->is_object()) {
    ReadJsonDevice(*dev, profile);
  }
  if (const auto sum = root.find("summary"); sum != root.end() && sum->is_object()) {
    profile.avg_mb_per_s = JsonNonNegative(*sum, "avg_mb_per_s");
    profile.cpu_percent = JsonNonNegative(*sum, "cpu_percent");
  }
  if (const auto opt = root.find("options"); opt != root.end() && opt->is_object()) {
    ReadJsonOptions(*opt, profile);
  }
  if (const auto st = root.find("status"); st != root.end() && st->is_string()) {
    profile.status = st->get<std::string>();
  }
  if (parser.has_samples()) profile.samples = parser.TakeSamples();
  ReadJsonProfileMeasurements(in, root, profile);
  ReadJsonRanges(in, root, profile);
  if (const auto passes = root.find("passes"); passes != root.end() && passes->is_array()) {
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
  if (const auto partial = root.find("partial"); partial != root.end() && *partial == true) {
    const auto status = root.find("status");
    profile.notes.push_back("the run's status: " + (status != root.end() && status->is_string()
                                                        ? status->get<std::string>()
                                                        : "partial"));
  }
}

// ---------------------------------------------------------------------------
// zcav events (events_writer.h): one JSON object per line. The events are
// gathered into the members a zcav JSON document has, and read as those are.

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

void ParseBonnie103(Input& in, SavedResult& profile) {
  FinishClassic103(in, ReadClassicRows(in, Format::kBonnie103), profile);
}

void ParseBonnie19x(Input& in, SavedResult& profile) {
  FinishClassic19x(in, ReadClassicRows(in, Format::kBonnie19x), profile);
}

// Each format: its name (SavedResult::format) and its parser.
struct FormatParser {
  Format format;
  const char* name;
  void (*parse)(Input& in, SavedResult& profile);
};

constexpr FormatParser kFormatParsers[] = {
    {Format::kZcavRaw, "zcav-raw", ParseZcavRaw},
    {Format::kZcavCsv, "zcav-csv", ParseZcavCsv},
    {Format::kZcavJson, "zcav-json", ParseZcavJson},
    {Format::kZcavEvents, "zcav-events", ParseZcavEvents},
    {Format::kBonnie103, "bonnie-1.03", ParseBonnie103},
    {Format::kBonnie19x, "bonnie-1.9x", ParseBonnie19x},
};

}  // namespace

namespace {

// Every text the file gave as data (CleanText): no control character, at
// most kMaxIdentityBytes for an identity and kMaxNoteBytes for free text.
void CleanProfileText(SavedResult& p) {
  for (std::string* identity : {&p.device_path,
                                &p.device_vendor,
                                &p.device_model,
                                &p.device_serial,
                                &p.device_wwn,
                                &p.device_firmware,
                                &p.host,
                                &p.started_utc,
                                &p.transport,
                                &p.storage_transport,
                                &p.link,
                                &p.verdict,
                                &p.random_access_mode,
                                &p.health_verdict,
                                &p.status,
                                &p.caches.page_cache_file,
                                &p.link_state.transport,
                                &p.link_state.current,
                                &p.link_state.max,
                                &p.link_state.driver,
                                &p.link_state.card_type,
                                &p.link_state.speed_class,
                                &p.link_state.card_grades}) {
    *identity = CleanText(*identity, kMaxIdentityBytes);
  }
  p.verdict_reason = CleanText(p.verdict_reason, kMaxNoteBytes);
  p.link_state.reason = CleanText(p.link_state.reason, kMaxNoteBytes);
  p.smart_note = CleanText(p.smart_note, kMaxNoteBytes);
  for (auto* list : {&p.health_reasons, &p.smart_increases, &p.notes}) {
    for (std::string& text : *list) text = CleanText(text, kMaxNoteBytes);
  }
  if (p.plan) p.plan->engine = CleanText(p.plan->engine, kMaxIdentityBytes);
}

}  // namespace

SavedResult ParseProfile(std::istream& in, const std::string& source) {
  Input input(source, in);
  SavedResult profile;
  profile.source = source;
  const Format format = Detect(input);
  for (const FormatParser& parser : kFormatParsers) {
    if (parser.format != format) continue;
    profile.format = parser.name;
    parser.parse(input, profile);
  }
  if (profile.chunk_bytes == 0 && profile.plan) profile.chunk_bytes = profile.plan->chunk_bytes;
  if (profile.adaptive) profile.passes = 1;  // a probe's "passes" are its reads
  CleanProfileText(profile);
  return profile;
}

namespace {

// `path` opened for reading; throws Error(kBadInput) for a directory,
// another file that is not a regular file (a FIFO, a device, a socket: "-"
// is the way to read a stream), a file larger than `max_bytes` (0 = no cap)
// or one that cannot be opened.
std::ifstream OpenDataFile(const std::string& path, std::uint64_t max_bytes = 0) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(status)) {
    throw Error(path + ": is a directory, not a data file", ErrorKind::kBadInput);
  }
  if (!ec && !std::filesystem::is_regular_file(status)) {
    throw Error(path +
                    ": not a regular file (a device, FIFO or socket); to read a stream, "
                    "give - and redirect it to stdin",
                ErrorKind::kBadInput);
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw Error(path + ": cannot open" +
                    (err != 0 ? ": " + std::generic_category().message(err) : std::string()),
                ErrorKind::kBadInput);
  }
  // The size of what was opened (not of what the name may point to by now).
  if (max_bytes > 0) {
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    in.seekg(0);
    if (size > 0 && static_cast<std::uint64_t>(size) > max_bytes) {
      throw Error(path + ": " + std::to_string(size >> 20) + " MiB, larger than the " +
                      std::to_string(max_bytes >> 20) + " MiB a result may be here",
                  ErrorKind::kBadInput);
    }
  }
  return in;
}

}  // namespace

SavedResult ReadProfile(const std::string& path, std::uint64_t max_bytes) {
  if (path == "-") return ParseProfile(std::cin, "-");
  std::ifstream in = OpenDataFile(path, max_bytes);
  return ParseProfile(in, path);
}

SavedResult ReadRandomAccess(const std::string& path) {
  std::ifstream stream = OpenDataFile(path);
  Input in(path, stream);
  SavedResult profile;
  profile.source = path;
  profile.format = "zcav-json";
  const char* const none =
      "no random access results (a JSON result of zcav access --sizes or zcav profile has them)";
  if (Detect(in) != Format::kZcavJson) in.FailFile(none);
  RowReducer rows(profile);  // a profile's blocks, not needed here
  const Json root = JsonBlockStream(in, rows).Parse(in.Restart());
  if (!root.is_object()) in.FailFile("not a zcav JSON file (the top level is not an object)");
  if (const auto dev = root.find("device"); dev != root.end() && dev->is_object()) {
    ReadJsonDevice(*dev, profile);
  }
  ReadJsonRandomAccess(in, root, profile);
  if (profile.random_access.empty()) in.FailFile(none);
  profile.points.clear();
  CleanProfileText(profile);
  return profile;
}

}  // namespace zcav
