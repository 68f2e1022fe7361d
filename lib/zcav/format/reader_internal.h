// What the readers of saved results share (internal to lib/zcav/format/, not
// a public header): the input file read line by line, the text helpers, the
// rows every format is turned into and their reduction to points
// (reader_rows.cc), format detection's names, each format's parser, and the
// JSON members the zcav JSON and events readers both read.
//
// Where each part lives: data_reader.cc (Input, the text helpers, detection,
// ParseProfile and the other entry points), reader_rows.cc (PassOrder,
// ReduceRows, RowReducer), raw_reader.cc, csv_reader.cc, json_reader.cc,
// events_reader.cc and classic_reader.cc (one format each).
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zcav/format/data_reader.h"
#include "zcav/result/saved_result.h"

namespace zcav::reader {

using Json = nlohmann::json;

// Offsets beyond 2^63 bytes (8 EiB) are refused: no device is that large, and
// index × step arithmetic stays clear of overflow.
inline constexpr double kMaxOffsetBytes = 9.2e18;
// A recorded blur above this is damage, not a read shape (256 reads in
// flight of 2^20 blocks' worth would be absurd).
inline constexpr double kMaxBlurBlocks = 1e9;

// ---------------------------------------------------------------------------
// Text helpers (data_reader.cc).

// `text` in quotes for a message, cut to a sensible length, with control and
// non-ASCII bytes escaped (a binary file must not garble the terminal).
std::string Quote(std::string_view text);

bool StartsWith(std::string_view s, std::string_view prefix);

// The words of `s`, split at blanks (space, tab, CR, VT, FF).
std::vector<std::string_view> Words(std::string_view s);

// The KEY=VALUE words of `s`, in order; other words are skipped.
std::vector<std::pair<std::string_view, std::string_view>> KeyValues(std::string_view s);

// The whole of `s` as a number; empty when `s` is empty or has anything else.
std::optional<double> ToDouble(std::string_view s);
std::optional<std::uint64_t> ToUint(std::string_view s);

// "N MiB" when `bytes` is whole MiB, else "N bytes".
std::string MibText(std::uint64_t bytes);

// The median of `values` (the mean of the middle two for an even count).
// REQUIRES: `values` is not empty.
double Median(std::vector<double> values);

// A header value; "unknown" (what the writers print for a missing fact) is empty.
std::string KnownText(std::string_view value);

// ---------------------------------------------------------------------------
// The input (data_reader.cc).

// The file, read line by line (never held whole: a 20 M-block result is
// gigabytes of text), and its name for messages. Detection reads the first
// lines, then the parser reads the file again from its start: a stream that
// cannot seek (a pipe) is first copied into memory. A line longer than
// kMaxLineBytes is bad input, found without holding more than that of it.
class Input {
 public:
  // Reads `in` (not owned; it must outlive this Input); `source` names it
  // in messages. Throws as Next does while copying a stream that cannot seek.
  Input(std::string source, std::istream& in);
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  // The next line, trimmed and without its '\n' (the first without a UTF-8
  // byte order mark), and its number (from 1); false at the end of the file.
  // `line` stays valid until the next call. Throws Error(kRuntime) when
  // reading fails, Error(kBadInput) for a line over kMaxLineBytes.
  bool Next(std::string_view& line, std::size_t& number);
  // The stream from the file's start (for Next, or a parser of its own).
  // Throws Error(kRuntime) when it cannot go back.
  std::istream& Restart();

  // Throw Error(kBadInput): "SOURCE:LINE: what", "SOURCE: what", and the
  // message for a line over kMaxLineBytes on line `number`.
  [[noreturn]] void Fail(std::size_t number, const std::string& what) const;
  [[noreturn]] void FailFile(const std::string& what) const;
  [[noreturn]] void TooLong(std::size_t number) const;
  const std::string& source() const { return source_; }

 private:
  // All of `in` (a pipe), refusing a line over kMaxLineBytes as it comes.
  std::string CopyLines(std::istream& in) const;

  std::string source_;
  std::istream* in_ = nullptr;
  std::unique_ptr<std::istringstream> copy_;  // a stream that cannot seek, copied
  std::streampos start_;
  std::vector<char> line_;  // the current line: at most kMaxLineBytes and its '\0'
  std::size_t number_ = 0;  // lines read since the start
};

// A rate (or another non-negative measurement) from a token; throws
// in.Fail(line, ...) naming `name` when it is not a finite number >= 0.
double NonNegative(const Input& in, std::size_t line, const std::string& name,
                   std::string_view token);

// ---------------------------------------------------------------------------
// Rows and their reduction to points (reader_rows.cc).

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

  // Returns true when the row starts a new pass. Throws for a step backwards
  // (in.Fail on `line`; `shown` is the offset as the file prints it).
  bool Add(const Input& in, std::size_t line, std::uint64_t key, const std::string& shown);

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
void ReduceRows(const std::vector<Row>& rows, SavedResult& profile);

// Makes the points of `profile` from rows given one at a time, as ReduceRows
// does. Rows in strictly increasing offset order (one pass: zcav's own
// files) become points as they come, keeping nothing per row but a
// run-length list of their pass counts; at the first row out of that order
// the points so far turn back into rows, and every row is kept and merged by
// ReduceRows at the end.
class RowReducer {
 public:
  // `profile` (not owned) receives the points; it must outlive this.
  explicit RowReducer(SavedResult& profile) : profile_(profile) {}

  // Rows as counted so far.
  bool empty() const { return rows_.empty() && profile_.points.empty(); }

  void Add(const Row& row);

  // Sets profile.passes and adds ReduceRows' notes; worst_chunk_ms stays
  // only when some row had one.
  void Finish();

 private:
  SavedResult& profile_;
  bool merging_ = false;
  bool any_worst_ = false;
  std::uint64_t last_offset_ = 0;
  std::vector<std::pair<std::size_t, std::uint64_t>> passes_;  // (first point, passes)
  std::vector<Row> rows_;                                      // when merging
};

// ---------------------------------------------------------------------------
// Formats and their parsers.

enum class Format { kZcavRaw, kZcavCsv, kZcavJson, kZcavEvents, kBonnie103, kBonnie19x };

// The classic table header: "#block K/s time" (1.03) or
// "#block offset (GiB), MiB/s, time" (1.9x, 2.00). Empty when not one.
// (data_reader.cc: detection and the classic reader both look for it.)
std::optional<Format> ClassicHeader(std::string_view line);

// Each parser reads `in` from its start (after detection) into `profile`:
// its points, block size, passes, notes and what else the format records.
// Throws through `in` (Error(kBadInput) naming the line) for malformed input.
void ParseZcavRaw(Input& in, SavedResult& profile);     // raw_reader.cc
void ParseZcavCsv(Input& in, SavedResult& profile);     // csv_reader.cc
void ParseZcavJson(Input& in, SavedResult& profile);    // json_reader.cc
void ParseZcavEvents(Input& in, SavedResult& profile);  // events_reader.cc
void ParseBonnie103(Input& in, SavedResult& profile);   // classic_reader.cc
void ParseBonnie19x(Input& in, SavedResult& profile);   // classic_reader.cc

// The device and "random_access" members of a zcav JSON document into
// `profile` (its blocks are parsed and left in profile.points: the caller
// drops them). Throws as ParseZcavJson does. (json_reader.cc)
void ParseZcavRandomAccess(Input& in, SavedResult& profile);

// ---------------------------------------------------------------------------
// JSON members the zcav JSON and events readers share (json_reader.cc).

// One object of "blocks" (or a "block" event), the i-th (from 0), which
// starts on line `at` (0 = unknown): a row, or nothing for a block with no
// clean read. Throws naming "blocks[i]" for a malformed one.
std::optional<Row> JsonBlockRow(const Input& in, const Json& block, std::size_t i, std::size_t at);

// A member of `object` that is a finite number of at least 0; empty when it
// is missing or not one.
std::optional<double> JsonNonNegative(const Json& object, const char* name);

// "device": the path, size and what the device said about itself.
void ReadJsonDevice(const Json& dev, SavedResult& profile);

// "options": the sweep's plan and its timing.
void ReadJsonOptions(const Json& opt, SavedResult& profile);

// Unreadable ranges ("errors") and "slow_regions" of `root`; throws for an
// item without a whole offset_bytes and a positive whole length_bytes.
void ReadJsonRanges(const Input& in, const Json& root, SavedResult& profile);

// Each pass's "chunk_bytes", "latency_classes" and "unreadable_chunks"
// (json_writer.cc), when present; a pass without them is skipped.
void ReadJsonLatency(const Json& passes, SavedResult& profile);

// "health" {verdict, reasons} and "smart" {before {note}, increases}
// (json_writer.cc), when present.
void ReadJsonHealth(const Json& root, SavedResult& profile);

}  // namespace zcav::reader
