// zcav verify's JSON, text and fix: see verify_format.h.
#include "zcav/format/verify_format.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/format/json_keys.h"

namespace zcav {

namespace {

namespace keys = json_keys;
using Json = nlohmann::ordered_json;

constexpr std::size_t kMaxItems = 10'000'000;

const char* LostAsName(SectorState s) {
  switch (s) {
    case SectorState::kStale:
      return "stale";
    case SectorState::kBlank:
      return "blank";
    default:
      return "garbage";
  }
}

std::string Hex64(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

Json RangeValue(const VerifyRange& x) {
  Json j = {{keys::kStartBytes, x.start_bytes},
            {keys::kEndBytes, x.end_bytes},
            {keys::kState, VerifyStateName(x.state)}};
  if (x.state == VerifyState::kWrapped) j[keys::kSourceBytes] = x.source_bytes;
  if (x.state == VerifyState::kLost) j[keys::kLostAs] = LostAsName(x.lost_as);
  return j;
}

Json FixValue(const VerifyResult& r, const std::string& device) {
  Json fix = Json::object();
  const std::string command = PartitionCommand(r, device);
  if (!command.empty()) fix[keys::kPartitionCommand] = command;
  if (!BadBlocksList(r).empty()) fix[keys::kBadBlocksBytes] = kBadBlocksBlockBytes;
  return fix;
}

// Reading back: every failure is one line naming the file.
class Reader {
 public:
  explicit Reader(const std::string& where) : where_(where) {}
  [[noreturn]] void Fail(const std::string& what) const {
    throw Error(where_ + ": verify: " + what, ErrorKind::kBadInput);
  }
  std::uint64_t Count(const Json& o, const char* key) const {
    const auto it = o.find(key);
    if (it == o.end() || !it->is_number_unsigned()) Fail(std::string("needs a whole ") + key);
    return it->get<std::uint64_t>();
  }
  double Rate(const Json& o, const char* key) const {
    const auto it = o.find(key);
    if (it == o.end() || !it->is_number() || !(it->get<double>() >= 0) ||
        !(it->get<double>() < 1e12)) {
      Fail(std::string("needs a number ") + key + " of at least 0");
    }
    return it->get<double>();
  }
  const Json& Array(const Json& o, const char* key) const {
    const auto it = o.find(key);
    if (it == o.end() || !it->is_array()) Fail(std::string("needs an array ") + key);
    if (it->size() > kMaxItems) Fail(std::string("too many ") + key);
    return *it;
  }

 private:
  const std::string& where_;
};

VerifyState StateOf(const Reader& in, const std::string& name) {
  for (const VerifyState s :
       {VerifyState::kGood, VerifyState::kWrapped, VerifyState::kLost, VerifyState::kUnreadable}) {
    if (name == VerifyStateName(s)) return s;
  }
  in.Fail("unknown range state (good, wrapped, lost or unreadable)");
}

SectorState LostAsOf(const std::string& name) {
  if (name == "stale") return SectorState::kStale;
  if (name == "blank") return SectorState::kBlank;
  return SectorState::kGarbage;
}

std::string Mib(std::uint64_t bytes) {
  return FormatFixed(static_cast<double>(bytes) / static_cast<double>(kMiB), 1) + " MiB";
}

std::string RangeLine(const VerifyRange& x) {
  std::string line =
      "  " + Mib(x.start_bytes) + " to " + Mib(x.end_bytes) + "  " + VerifyStateName(x.state);
  if (x.state == VerifyState::kWrapped) {
    line += ": reads the data written for " + Mib(x.source_bytes) + " on";
  } else if (x.state == VerifyState::kLost) {
    line += std::string(" (") + LostAsName(x.lost_as) + ")";
  }
  return line + "\n";
}

// Mean rate of the blocks that have one (MB/s).
double MeanRate(const VerifyResult& r, bool write) {
  double sum = 0;
  std::size_t n = 0;
  for (const VerifyBlock& b : r.blocks) {
    const double v = write ? b.write_mb_per_s : b.read_mb_per_s;
    if (v > 0) {
      sum += v;
      ++n;
    }
  }
  return n == 0 ? 0 : sum / static_cast<double>(n);
}

// The notes and, for a fake, the partition command to offer (full and quick).
std::string NotesAndFixText(const VerifyResult& r, const std::string& device) {
  std::string t;
  for (const std::string& note : r.notes) t += "note: " + TerminalText(note) + "\n";
  const std::string command = PartitionCommand(r, device);
  if (!command.empty()) {
    t += "to use only what holds data, one partition of " +
         FormatBytes(r.usable_bytes / kMiB * kMiB) +
         " (an MBR label; printed, not run; it destroys what is on the device):\n  " +
         TerminalText(command) + "\n";
  }
  return t;
}

}  // namespace

std::string ShellQuote(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("/._-+:,=").find(c) != std::string_view::npos;
  });
  if (plain) return text;
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string PartitionCommand(const VerifyResult& r, const std::string& device) {
  if (r.verdict != VerifyVerdict::kFakeCapacity || r.interrupted) return "";
  const std::uint64_t end_mib = r.usable_bytes / kMiB;
  if (end_mib < 2) return "";
  return "parted --script " + ShellQuote(device) + " mklabel msdos mkpart primary 1MiB " +
         std::to_string(end_mib) + "MiB";
}

std::string BadBlocksList(const VerifyResult& r) {
  const std::uint64_t limit =
      r.verdict == VerifyVerdict::kFakeCapacity ? r.usable_bytes : r.claimed_bytes;
  std::string out;
  std::uint64_t next = 0;  // the first block not listed yet
  for (const VerifyRange& x : r.ranges) {
    if (x.state != VerifyState::kLost && x.state != VerifyState::kUnreadable) continue;
    if (x.start_bytes >= limit) break;
    const std::uint64_t first = std::max(next, x.start_bytes / kBadBlocksBlockBytes);
    const std::uint64_t end =
        (std::min(x.end_bytes, limit) + kBadBlocksBlockBytes - 1) / kBadBlocksBlockBytes;
    for (std::uint64_t b = first; b < end; ++b) out += std::to_string(b) + "\n";
    next = std::max(next, end);
  }
  return out;
}

std::string VerifyJsonText(const VerifyResult& r, const std::string& device) {
  Json ranges = Json::array();
  for (const VerifyRange& x : r.ranges) ranges.push_back(RangeValue(x));
  Json blocks = Json::array();
  for (const VerifyBlock& b : r.blocks) {
    blocks.push_back({{keys::kOffsetBytes, b.offset_bytes},
                      {keys::kLengthBytes, b.length_bytes},
                      {keys::kWriteMbPerS, std::isfinite(b.write_mb_per_s) ? b.write_mb_per_s : 0},
                      {keys::kReadMbPerS, std::isfinite(b.read_mb_per_s) ? b.read_mb_per_s : 0}});
  }
  const Json j = {{keys::kVerdict, VerifyVerdictName(r.verdict)},
                  {keys::kClaimedBytes, r.claimed_bytes},
                  {keys::kUsableBytes, r.usable_bytes},
                  {keys::kRunId, Hex64(r.run_id)},
                  {keys::kChunkBytes, r.chunk_bytes},
                  {keys::kBlockBytes, r.block_bytes},
                  {keys::kWrittenBytes, r.written_bytes},
                  {keys::kReadBytes, r.read_bytes},
                  {keys::kWriteDoneBytes, r.write_done_bytes},
                  {keys::kReadDoneBytes, r.read_done_bytes},
                  {keys::kInterrupted, r.interrupted},
                  {keys::kDeviceGone, r.device_gone},
                  {keys::kRanges, std::move(ranges)},
                  {keys::kBlocks, std::move(blocks)},
                  {keys::kNotes, r.notes},
                  {keys::kFix, FixValue(r, device)}};
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

VerifyResult ParseVerifyJson(const std::string& text, const std::string& where) {
  const Reader in(where);
  const Json o = Json::parse(text, nullptr, false);
  if (!o.is_object()) in.Fail("not a JSON object");
  VerifyResult r;
  const auto id = o.find(keys::kRunId);
  if (id == o.end() || !id->is_string() || id->get<std::string>().size() != 16 ||
      id->get<std::string>().find_first_not_of("0123456789abcdef") != std::string::npos) {
    in.Fail("needs run_id, 16 hex digits");
  }
  r.run_id = std::stoull(id->get<std::string>(), nullptr, 16);
  r.claimed_bytes = in.Count(o, keys::kClaimedBytes);
  r.usable_bytes = in.Count(o, keys::kUsableBytes);
  r.chunk_bytes = in.Count(o, keys::kChunkBytes);
  r.block_bytes = in.Count(o, keys::kBlockBytes);
  r.written_bytes = in.Count(o, keys::kWrittenBytes);
  r.read_bytes = in.Count(o, keys::kReadBytes);
  r.write_done_bytes = in.Count(o, keys::kWriteDoneBytes);
  r.read_done_bytes = in.Count(o, keys::kReadDoneBytes);
  const auto interrupted = o.find(keys::kInterrupted);
  r.interrupted = interrupted != o.end() && interrupted->is_boolean() && interrupted->get<bool>();
  const auto gone = o.find(keys::kDeviceGone);
  r.device_gone = gone != o.end() && gone->is_boolean() && gone->get<bool>();
  for (const Json& x : in.Array(o, keys::kRanges)) {
    if (!x.is_object()) in.Fail("a range is not an object");
    VerifyRange range;
    range.start_bytes = in.Count(x, keys::kStartBytes);
    range.end_bytes = in.Count(x, keys::kEndBytes);
    const auto state = x.find(keys::kState);
    if (state == x.end() || !state->is_string()) in.Fail("a range needs a state");
    range.state = StateOf(in, state->get<std::string>());
    if (range.state == VerifyState::kWrapped) range.source_bytes = in.Count(x, keys::kSourceBytes);
    if (const auto lost = x.find(keys::kLostAs); lost != x.end() && lost->is_string()) {
      range.lost_as = LostAsOf(lost->get<std::string>());
    }
    r.ranges.push_back(range);
  }
  for (const Json& b : in.Array(o, keys::kBlocks)) {
    if (!b.is_object()) in.Fail("a block is not an object");
    r.blocks.push_back({in.Count(b, keys::kOffsetBytes), in.Count(b, keys::kLengthBytes),
                        in.Rate(b, keys::kWriteMbPerS), in.Rate(b, keys::kReadMbPerS)});
  }
  for (const Json& n : in.Array(o, keys::kNotes)) {
    if (!n.is_string()) in.Fail("a note is not text");
    r.notes.push_back(CleanText(n.get<std::string>(), 1000));
  }
  JudgeVerify(r);
  return r;
}

namespace {

// After the verdict of a run that ended early: why.
std::string SoFar(const VerifyResult& r) {
  if (r.device_gone) return " so far (the device went away)";
  return r.interrupted ? " so far (interrupted)" : "";
}

}  // namespace

std::string VerifyReportText(const VerifyResult& r, const std::string& device,
                             std::size_t max_ranges) {
  const std::string who = TerminalText(device);
  std::string t = "verify of " + who + ", " + FormatBytes(r.claimed_bytes) +
                  " claimed: " + VerifyVerdictName(r.verdict) + SoFar(r) + "\n";
  t += "usable from the start: " + FormatBytes(r.usable_bytes) + "\n";
  t += "ranges (MiB = 2^20 B):\n";
  for (std::size_t i = 0; i < r.ranges.size() && i < max_ranges; ++i) t += RangeLine(r.ranges[i]);
  if (r.ranges.size() > max_ranges) {
    t += "  ... " + std::to_string(r.ranges.size() - max_ranges) +
         " more ranges (all in the JSON result: --format json)\n";
  }
  t += "written " + FormatBytes(r.written_bytes) + " at " + FormatFixed(MeanRate(r, true), 1) +
       " MB/s, read back " + FormatBytes(r.read_bytes) + " at " +
       FormatFixed(MeanRate(r, false), 1) + " MB/s (mean of the blocks; MB = 10^6 B)\n";
  return t + NotesAndFixText(r, device);
}

std::string VerifyWriteFiguresText(const VerifyWriteFigures& f) {
  std::string t;
  if (f.worst_stall) {
    const WorstStall& w = *f.worst_stall;
    t += "worst write stall: " +
         FormatFixed(std::chrono::duration<double, std::milli>(w.duration).count(), 1) + " ms at " +
         Mib(w.offset_bytes) + ", " +
         FormatFixed(std::chrono::duration<double>(w.started_at).count(), 1) + " s into the run\n";
  }
  if (f.sustained && f.sustained->lowest) {
    const SustainedFigure& s = *f.sustained;
    t += "sustained write: " + FormatFixed(s.lowest->mb_per_s, 1) + " MB/s, the lowest over " +
         FormatFixed(std::chrono::duration<double>(s.window).count(), 0) + " s, from " +
         Mib(s.lowest->offset_bytes) +
         (s.after_write_cache ? " (after the write cache, which ends at " + Mib(s.from_bytes) + ")"
                              : std::string()) +
         "\n";
    if (f.card) t += CardPromiseSentence(*f.card, s.lowest->mb_per_s) + "\n";
  }
  return t;
}

std::string CardPromiseJsonText(const VerifyWriteFigures& f) {
  if (!f.card || !f.sustained || !f.sustained->lowest) return "null";
  const double rate = f.sustained->lowest->mb_per_s;
  const Json j = {{keys::kGrade, f.card->grade},
                  {keys::kMbPerS, f.card->mb_per_s},
                  {keys::kSustainedMbPerS, std::isfinite(rate) ? rate : 0.0},
                  {keys::kMet, rate >= f.card->mb_per_s}};
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string QuickVerifyJsonText(const QuickVerifyResult& r) {
  const Json j = {{keys::kGoodBytes, r.good_bytes},
                  {keys::kBadBytes, r.bad_bytes},
                  {keys::kPrecision, std::isfinite(r.precision) ? r.precision : 1.0},
                  {keys::kWrapPeriodBytes, r.wrap_period_bytes},
                  {keys::kProbes, r.probes},
                  {keys::kProbeBytes, r.probe_bytes},
                  {keys::kRounds, r.rounds},
                  {keys::kFlushBytes, r.flush_bytes},
                  {keys::kSeconds, std::chrono::duration<double>(r.elapsed).count()},
                  {keys::kKeptData, r.kept_data},
                  {keys::kSavedBytes, r.saved_bytes},
                  {keys::kRestored, r.restored}};
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string QuickVerifyReportText(const QuickVerifyResult& q, const std::string& device) {
  const VerifyResult& r = q.verify;
  std::string t = "quick check of " + TerminalText(device) + ", " + FormatBytes(r.claimed_bytes) +
                  " claimed: spot checks, not every sector\n";
  t += "wrote " + FormatBytes(r.written_bytes) + " (" + std::to_string(q.probes) + " probes of " +
       std::to_string(q.probe_bytes) + " B and a " + FormatBytes(q.flush_bytes) +
       " cache flush per round, " + std::to_string(q.rounds) + " round" +
       (q.rounds == 1 ? "" : "s") + "), read " + FormatBytes(r.read_bytes) + ", " +
       FormatFixed(std::chrono::duration<double>(q.elapsed).count(), 1) + " s\n";
  t += std::string("verdict: ") + VerifyVerdictName(r.verdict) + SoFar(r);
  if (q.wrap_period_bytes != 0) t += " (wraps every " + FormatBytes(q.wrap_period_bytes) + ")";
  t += "\nusable from the start: " + FormatBytes(r.usable_bytes) + "\n";
  if (r.verdict != VerifyVerdict::kGenuine) {
    t += "known within: good up to " + Mib(q.good_bytes) + ", bad from " + Mib(q.bad_bytes) + " (" +
         FormatFixed(100.0 * q.precision, 2) + " % of it uncertain)\n";
  }
  if (q.kept_data) {
    t += q.restored
             ? "kept and wrote back " + FormatBytes(q.saved_bytes) + " of the device's data\n"
             : "NOT all of the device's data was written back (see the notes)\n";
  }
  return t + NotesAndFixText(r, device);
}

}  // namespace zcav
