// Reading saved results back: see data_reader.h for the formats. This file
// holds what the readers share (the input read line by line, the text
// helpers), format detection and the entry points; each format's reader is
// in its own file beside its writer (raw_reader.cc, csv_reader.cc,
// json_reader.cc, events_reader.cc, classic_reader.cc), the rows they make
// and their reduction to points in reader_rows.cc, all declared in
// reader_internal.h.
//
// Every format is first turned into rows (offset, length, rate, passes behind
// the row); rows of the same offset (a pass printed more than once, runs
// concatenated into one file) are then reduced to their median. zcav's own
// formats are read as a stream (line by line; JSON through the parser's
// callback), and their rows become points as they come while the offsets
// rise (RowReducer): a 20 M-block file never sits in memory as text or rows.
//
// zcav's own formats carry exact byte offsets (raw: 9 decimals of GiB, about
// one byte). Classic zcav logs need inference (classic_reader.cc).
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
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/format/json_keys.h"
#include "zcav/format/reader_internal.h"
#include "zcav/format/verify_format.h"

namespace zcav {

namespace reader {

namespace {

constexpr std::size_t kQuoteMax = 80;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

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

// A header value; "unknown" (what the writers print for a missing fact) is empty.
std::string KnownText(std::string_view value) {
  value = Trim(value);
  return value == "unknown" ? std::string() : std::string(value);
}

Input::Input(std::string source, std::istream& in)
    : source_(std::move(source)), line_(kMaxLineBytes + 1) {
  start_ = in.tellg();
  if (start_ == std::streampos(-1)) {
    copy_ = std::make_unique<std::istringstream>(CopyLines(in));
    start_ = 0;
  }
  in_ = copy_ ? copy_.get() : &in;
}

bool Input::Next(std::string_view& line, std::size_t& number) {
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

std::istream& Input::Restart() {
  in_->clear();
  in_->seekg(start_);
  if (!*in_)
    throw Error(source_ + ": read failed (cannot go back to its start)", ErrorKind::kRuntime);
  number_ = 0;
  return *in_;
}

void Input::Fail(std::size_t number, const std::string& what) const {
  throw Error(source_ + ":" + std::to_string(number) + ": " + what, ErrorKind::kBadInput);
}

void Input::FailFile(const std::string& what) const {
  throw Error(source_ + ": " + what, ErrorKind::kBadInput);
}

void Input::TooLong(std::size_t number) const {
  Fail(number, "a line longer than " + std::to_string(kMaxLineBytes >> 20) +
                   " MiB (not a zcav or classic zcav result)");
}

std::string Input::CopyLines(std::istream& in) const {
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

// A rate (or another non-negative measurement) from a token.
double NonNegative(const Input& in, std::size_t line, const std::string& name,
                   std::string_view token) {
  const std::optional<double> v = ToDouble(token);
  if (!v || std::isnan(*v)) in.Fail(line, name + " " + Quote(token) + " is not a number");
  if (std::isinf(*v)) in.Fail(line, name + " " + Quote(token) + " is infinite");
  if (*v < 0) in.Fail(line, name + " " + Quote(token) + " is negative");
  return *v;
}

// The classic table header: "#block K/s time" (1.03) or
// "#block offset (GiB), MiB/s, time" (1.9x, 2.00). Empty when not one.
std::optional<Format> ClassicHeader(std::string_view line) {
  if (!StartsWith(line, "#block")) return std::nullopt;
  if (line.find("K/s") != std::string_view::npos) return Format::kBonnie103;
  if (line.find("GiB") != std::string_view::npos) return Format::kBonnie19x;
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Format detection and the entry points.

namespace {

// The start of every line of a zcav events file (events_writer.h).
constexpr std::string_view kEventsLineStart = "{\"event\":";

constexpr std::string_view kCsvHeaderStart = "offset_bytes,length_bytes,mb_per_s";
// The first of a zcav CSV file's comment lines (csv_writer.cc).
constexpr std::string_view kCsvCommentStart = "# zcav-csv ";

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

}  // namespace reader

SavedResult ParseProfile(std::istream& in, const std::string& source) {
  reader::Input input(source, in);
  SavedResult profile;
  profile.source = source;
  const reader::Format format = reader::Detect(input);
  for (const reader::FormatParser& parser : reader::kFormatParsers) {
    if (parser.format != format) continue;
    profile.format = parser.name;
    parser.parse(input, profile);
  }
  if (profile.chunk_bytes == 0 && profile.plan) profile.chunk_bytes = profile.plan->chunk_bytes;
  if (profile.adaptive) profile.passes = 1;  // a probe's "passes" are its reads
  reader::CleanProfileText(profile);
  return profile;
}

SavedResult ReadProfile(const std::string& path, std::uint64_t max_bytes) {
  if (path == "-") return ParseProfile(std::cin, "-");
  std::ifstream in = reader::OpenDataFile(path, max_bytes);
  return ParseProfile(in, path);
}

SavedResult ReadRandomAccess(const std::string& path) {
  std::ifstream stream = reader::OpenDataFile(path);
  reader::Input in(path, stream);
  SavedResult profile;
  profile.source = path;
  profile.format = "zcav-json";
  const char* const none =
      "no random access results (a JSON result of zcav access --sizes or zcav profile has them)";
  if (reader::Detect(in) != reader::Format::kZcavJson) in.FailFile(none);
  reader::ParseZcavRandomAccess(in, profile);
  if (profile.random_access.empty()) in.FailFile(none);
  profile.points.clear();
  reader::CleanProfileText(profile);
  return profile;
}

SavedResult ReadVerify(const std::string& path) {
  std::ifstream stream = reader::OpenDataFile(path, kMaxVerifyFileBytes);
  const std::string text{std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
  const reader::Json root = reader::Json::parse(text, nullptr, false);
  const auto verify = root.is_object() ? root.find(json_keys::kVerify) : root.end();
  if (verify == root.end() || !verify->is_object()) {
    throw Error(path + ": no verify result (zcav verify --format json writes one)",
                ErrorKind::kBadInput);
  }
  SavedResult profile;
  profile.source = path;
  profile.format = "zcav-json";
  if (const auto dev = root.find(json_keys::kDevice); dev != root.end() && dev->is_object()) {
    reader::ReadJsonDevice(*dev, profile);
  }
  profile.verify = ParseVerifyJson(verify->dump(), path);
  profile.device_bytes = profile.verify->claimed_bytes;
  reader::CleanProfileText(profile);
  return profile;
}

}  // namespace zcav
