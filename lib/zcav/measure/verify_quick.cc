// RunQuickVerify: see verify_quick.h; the plan in verify_quick_plan.cc.
//
// Each round writes its probes (stamped with the round's own run id, so
// that data of an earlier round at a place cannot pass for this one's),
// then the cache flush, then reads back every probe of every round (a later
// write can destroy an earlier probe: that is how a wrap shows) and the
// window with the flush. Every sector read back is one of:
//   good: the data the last write there put;
//   shared: data of ours written for another place s: the two places share
//     storage, so the higher one is bad and |here - s| is a multiple of the
//     wrap's period;
//   lost: anything else where we wrote (zeros, stale data, garbage: the
//     write did not stay), or a read error (unreadable);
//   nothing: a place we never wrote holding data not ours.
// The lowest bad place and the highest good probe below it bracket the
// usable size; further rounds probe between them.
#include "zcav/measure/verify_quick.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/write_stamp.h"
#include "zcav/measure/read_checks.h"
#include "zcav/measure/write_undo.h"

namespace zcav {
namespace {

constexpr std::uint64_t kIoBytes = 1 << 20;

struct Finding {
  enum class Kind { kNothing, kGood, kShared, kLost };
  Kind kind = Kind::kNothing;
  std::uint64_t source_bytes = 0;             // kShared: where the data was written for
  SectorState lost_as = SectorState::kBlank;  // kLost
};

struct Probe {
  std::uint64_t offset_bytes = 0;
  std::uint32_t round = 0;  // the round that wrote it
  VerifyRange latest;       // what the last read-back found, the whole probe
};

// A probe that counts for the lower bound (below the lowest bad place):
// good, or holding the data of a higher place that shares its storage: the
// storage works, and the higher place is the bad one.
bool CountsGood(const Probe& p) {
  return p.latest.state == VerifyState::kGood ||
         (p.latest.state == VerifyState::kWrapped && p.latest.source_bytes > p.offset_bytes);
}

// Places found sharing storage, in classes (union-find over sector
// offsets): a place's data found at another joins the two. Of a class only
// the lowest place can be usable: the second lowest is bad, and the distance
// between the two is the wrap's period (a chain x, x + R, x + 2R... of a
// fake that wraps at R: each later write overwrote the one before, so what
// is found names the last, yet the two lowest are R apart).
class SharedPlaces {
 public:
  void Join(std::uint64_t a, std::uint64_t b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return;
    Class& ca = classes_[a];
    const Class cb = classes_[b];
    parent_[b] = a;
    classes_.erase(b);
    for (const std::uint64_t x : {cb.lowest, cb.second}) {
      if (x < ca.lowest) {
        ca.second = ca.lowest;
        ca.lowest = x;
      } else if (x < ca.second && x != ca.lowest) {
        ca.second = x;
      }
    }
  }
  // The lowest bad place and the smallest period; none: max and 0.
  std::uint64_t LowestBad() const {
    std::uint64_t bad = kNone;
    for (const auto& [root, c] : classes_) bad = std::min(bad, c.second);
    return bad;
  }
  std::uint64_t Period() const {
    std::uint64_t period = 0;
    for (const auto& [root, c] : classes_) {
      if (c.second == kNone) continue;
      const std::uint64_t d = c.second - c.lowest;
      period = period == 0 ? d : std::min(period, d);
    }
    return period;
  }
  bool empty() const { return parent_.empty(); }

 private:
  static constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  struct Class {
    std::uint64_t lowest = kNone;
    std::uint64_t second = kNone;
  };
  std::uint64_t Find(std::uint64_t x) {
    if (parent_.emplace(x, x).second) {
      classes_[x] = {x, kNone};
      return x;
    }
    for (;;) {
      std::uint64_t& up = parent_[x];
      if (up == x) return x;
      up = parent_[up];  // path halving
      x = up;
    }
  }
  std::unordered_map<std::uint64_t, std::uint64_t> parent_;
  std::unordered_map<std::uint64_t, Class> classes_;  // by root
};

// Sorts `ranges` and merges neighbours that continue each other.
std::vector<VerifyRange> Merge(std::vector<VerifyRange> ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const VerifyRange& a, const VerifyRange& b) {
    return a.start_bytes < b.start_bytes;
  });
  std::vector<VerifyRange> out;
  for (const VerifyRange& r : ranges) {
    if (!out.empty()) {
      VerifyRange& last = out.back();
      const bool continues =
          last.end_bytes == r.start_bytes && last.state == r.state &&
          (r.state != VerifyState::kWrapped ||
           last.source_bytes + (last.end_bytes - last.start_bytes) == r.source_bytes) &&
          (r.state != VerifyState::kLost || last.lost_as == r.lost_as);
      if (continues) {
        last.end_bytes = r.end_bytes;
        continue;
      }
    }
    out.push_back(r);
  }
  return out;
}

class QuickVerifier {
 public:
  QuickVerifier(Device& device, Clock& clock, const QuickVerifyOptions& o,
                const std::atomic<bool>* stop)
      : device_(device),
        clock_(clock),
        options_(o),
        stop_(stop),
        plan_(PlanQuickVerify(device.info(), o)),
        claimed_(device.info().size_bytes),
        end_(RoundDown(claimed_, plan_.probe_bytes)),
        flush_end_(plan_.flush_offset_bytes + plan_.flush_bytes),
        write_buffer_(kIoBytes, DirectIoAlignment(device.info().sector_bytes)),
        read_buffer_(kIoBytes, DirectIoAlignment(device.info().sector_bytes)) {
    if (o.keep_data && plan_.max_keep_bytes > o.keep_memory_bytes) {
      throw Error("--keep-data: the quick check may have to keep " +
                      ExactBinarySize(plan_.max_keep_bytes) +
                      " of the device's data in memory to write it back, more than the " +
                      ExactBinarySize(o.keep_memory_bytes) +
                      " allowed (allow more memory, or a smaller cache flush)",
                  ErrorKind::kBadInput);
    }
    if (o.keep_data) undo_ = std::make_unique<WriteUndoLog>(o.keep_memory_bytes);
    base_id_ = o.run_id != 0 ? o.run_id : NewStampRunId();
    if (base_id_ + o.max_rounds < base_id_) base_id_ -= o.max_rounds;  // no id wraps to 0
    result_.verify.run_id = base_id_;
    result_.verify.claimed_bytes = claimed_;
    result_.probe_bytes = plan_.probe_bytes;
    result_.flush_bytes = plan_.flush_bytes;
    result_.kept_data = o.keep_data;
  }

  QuickVerifyResult Run() {
    const auto start = clock_.Now();
    std::vector<std::uint64_t> next = plan_.probes;
    while (!next.empty() && round_ < options_.max_rounds) {
      ++round_;
      if (!WriteRound(next) || !ReadBack()) break;
      Assess();
      next = NextProbes();
    }
    result_.rounds = round_;
    if (undo_) Restore();
    Assess();
    Judge();
    result_.verify.ranges = Ranges();
    result_.elapsed = clock_.Now() - start;
    return std::move(result_);
  }

 private:
  enum class Wrote { kDone, kSkipped, kEnd };

  std::uint64_t RunId(std::uint32_t round) const { return base_id_ + round - 1; }
  bool IsOurs(std::uint64_t run_id) const {
    return run_id >= base_id_ && run_id - base_id_ < round_;
  }
  void Note(std::string text) { result_.verify.notes.push_back(std::move(text)); }

  bool Stopped() {
    if (!StopRequested(stop_)) return false;
    result_.verify.interrupted = true;
    return true;
  }

  // A device gone: noted; the run ends.
  bool Gone(const std::error_code& ec, const char* doing, std::uint64_t at) {
    if (!IsDeviceGone(ec)) return false;
    result_.verify.device_gone = true;
    result_.verify.interrupted = true;
    Note(std::string(doing) + " at " + FormatBytes(at) + ": " + ec.message() +
         ": the device is gone, the run ends there");
    return true;
  }

  // The round's probes, then its cache flush; false when the run must end.
  bool WriteRound(const std::vector<std::uint64_t>& offsets) {
    for (const std::uint64_t x : offsets) {
      if (Stopped()) return false;
      const Wrote w = Write(x, plan_.probe_bytes);
      if (w == Wrote::kEnd) return false;
      if (w == Wrote::kDone) {
        probes_[x] = Probe{x, round_, {}};
        ++result_.probes;
      }
    }
    unflushed_.clear();
    for (std::uint64_t at = plan_.flush_offset_bytes; at < flush_end_; at += kIoBytes) {
      if (Stopped()) return false;
      const Wrote w = Write(at, std::min(kIoBytes, flush_end_ - at));
      if (w == Wrote::kEnd) return false;
      if (w == Wrote::kSkipped) unflushed_.insert(at);
    }
    flush_round_ = round_;
    return true;
  }

  // Writes this round's stamps to [at, at + bytes), keeping what was there
  // first with keep_data (a place that cannot be read is not written).
  Wrote Write(std::uint64_t at, std::uint64_t bytes) {
    if (undo_) {
      const std::uint64_t before = undo_->saved_bytes();
      const std::error_code ec = undo_->Save(device_, at, bytes);
      result_.verify.read_bytes += undo_->saved_bytes() - before;
      if (Gone(ec, "reading to keep the data", at)) return Wrote::kEnd;
      if (ec) {
        Note("reading at " + FormatBytes(at) + " to keep its data failed: " + ec.message() +
             ": not written");
        RecordUnreadable(at, bytes);
        return Wrote::kSkipped;
      }
    }
    const std::span<std::byte> data = write_buffer_.span(bytes);
    StampWrite(data, at, RunId(round_));
    const std::error_code ec = device_.WriteAt(at, data);
    if (Gone(ec, "writing", at)) return Wrote::kEnd;
    if (ec) {
      Note("writing at " + FormatBytes(at) + " failed: " + ec.message());
    } else {
      result_.verify.written_bytes += bytes;
    }
    return Wrote::kDone;
  }

  // Reads every probe, then the window and the flush; false when the run ends.
  bool ReadBack() {
    for (auto& [offset, probe] : probes_) {
      if (Stopped() || !ReadProbe(probe)) return false;
    }
    return ReadWindow();
  }

  // Reads [at, at + into.size()) into `into`; the read's error.
  std::error_code Read(std::uint64_t at, std::span<std::byte> into) {
    std::memset(into.data(), 0, into.size());  // a sim never written leaves it as it is
    const std::error_code ec = device_.ReadAt(at, into);
    if (!ec) result_.verify.read_bytes += into.size();
    return ec;
  }

  bool ReadProbe(Probe& p) {
    const std::uint64_t l = plan_.probe_bytes;
    const std::span<std::byte> data = read_buffer_.span(l);
    const std::error_code ec = Read(p.offset_bytes, data);
    if (Gone(ec, "reading", p.offset_bytes)) return false;
    p.latest = {p.offset_bytes, p.offset_bytes + l, VerifyState::kGood, p.offset_bytes};
    if (ec) {
      p.latest.state = VerifyState::kUnreadable;
      p.latest.source_bytes = 0;
      RecordUnreadable(p.offset_bytes, l);
      return true;
    }
    bool all_good = true;  // so far
    for (std::uint64_t s = 0; s < l; s += kStampSectorBytes) {
      const std::uint64_t at = p.offset_bytes + s;
      const Finding f = Classify(data.subspan(s, kStampSectorBytes), at, p.round);
      Record(at, f);
      if (f.kind == Finding::Kind::kGood || !all_good) continue;
      all_good = false;
      if (f.kind == Finding::Kind::kShared) {
        p.latest.state = VerifyState::kWrapped;
        p.latest.source_bytes = f.source_bytes - s;  // the data continues from there
      } else {
        p.latest.state = VerifyState::kLost;
        p.latest.source_bytes = 0;
        p.latest.lost_as = f.lost_as;
      }
    }
    return true;
  }

  // The window and the flush, but the probes there: a place never written
  // holding data of ours is a wrap; the flush proves nothing good (the
  // cache may hold it) but can show a loss or a wrap.
  bool ReadWindow() {
    for (std::uint64_t at = 0; at < flush_end_; at += kIoBytes) {
      if (Stopped()) return false;
      const std::span<std::byte> data = read_buffer_.span(std::min(kIoBytes, flush_end_ - at));
      const std::error_code ec = Read(at, data);
      if (Gone(ec, "reading", at)) return false;
      if (ec) RecordUnreadable(at, data.size());
      for (std::uint64_t s = 0; s < data.size(); s += kStampSectorBytes) {
        const std::uint64_t pos = at + s;
        if (InProbe(pos)) continue;
        const std::uint64_t end = pos + kStampSectorBytes;
        if (ec) {
          finds_[pos] = {pos, end, VerifyState::kUnreadable};
          continue;
        }
        const Finding f = Classify(data.subspan(s, kStampSectorBytes), pos, FlushRound(pos));
        Record(pos, f);
        if (f.kind == Finding::Kind::kShared) {
          finds_[pos] = {pos, end, VerifyState::kWrapped, f.source_bytes};
        } else if (f.kind == Finding::Kind::kLost) {
          finds_[pos] = {pos, end, VerifyState::kLost, 0, f.lost_as};
        } else {
          finds_.erase(pos);
        }
      }
    }
    return true;
  }

  // The round whose flush `pos` holds; 0 for the window, or a flush chunk
  // not written.
  std::uint32_t FlushRound(std::uint64_t pos) const {
    if (pos < plan_.flush_offset_bytes) return 0;
    const std::uint64_t chunk =
        plan_.flush_offset_bytes + RoundDown(pos - plan_.flush_offset_bytes, kIoBytes);
    return unflushed_.count(chunk) != 0 ? 0 : flush_round_;
  }

  bool InProbe(std::uint64_t pos) const {
    auto it = probes_.upper_bound(pos);
    return it != probes_.begin() && pos < std::prev(it)->first + plan_.probe_bytes;
  }

  // What the sector read at `at` says; `expected` is the round that wrote
  // there last (0: none).
  Finding Classify(std::span<const std::byte> sector, std::uint64_t at,
                   std::uint32_t expected) const {
    SectorCheck c;
    if (expected != 0) {
      c = CheckSector(sector, at, RunId(expected));
      if (c.state == SectorState::kGood) return {Finding::Kind::kGood};
      if (c.state == SectorState::kMoved) return {Finding::Kind::kShared, c.source_bytes};
    }
    const std::optional<StampHeader> h = ReadStampHeader(sector);
    if (h && IsOurs(h->run_id)) {
      const SectorCheck o = CheckSector(sector, at, h->run_id);
      if (o.state == SectorState::kMoved) return {Finding::Kind::kShared, o.source_bytes};
      // This place's data of another round: the last write here did not stay.
      if (o.state == SectorState::kGood && expected != 0) {
        return {Finding::Kind::kLost, 0, SectorState::kStale};
      }
    }
    if (expected == 0) return {};
    return {Finding::Kind::kLost, 0, c.state};
  }

  void Record(std::uint64_t at, const Finding& f) {
    if (f.kind == Finding::Kind::kShared) {
      shared_.Join(at, f.source_bytes);
    } else if (f.kind == Finding::Kind::kLost) {
      min_bad_ = std::min(min_bad_, at);
      any_lost_ = true;
    }
  }

  void RecordUnreadable(std::uint64_t at, std::uint64_t bytes) {
    min_bad_ = std::min(min_bad_, at);
    if (!any_unreadable_) {
      Note("reading at " + FormatBytes(at) + " (" + ExactBinarySize(bytes) + ") failed");
    }
    any_unreadable_ = true;
  }

  // The bracket from what was found so far.
  void Assess() {
    period_ = shared_.Period();
    bad_ = std::min({min_bad_, shared_.LowestBad(), claimed_});
    good_ = 0;
    for (const auto& [offset, p] : probes_) {
      const std::uint64_t end = offset + plan_.probe_bytes;
      if (end <= bad_ && CountsGood(p)) good_ = std::max(good_, end);
    }
  }

  std::vector<std::uint64_t> NextProbes();
  void Restore();
  void Judge();
  std::vector<VerifyRange> Ranges() const;

  Device& device_;
  Clock& clock_;
  const QuickVerifyOptions options_;
  const std::atomic<bool>* stop_;
  const QuickVerifyPlan plan_;
  const std::uint64_t claimed_;
  const std::uint64_t end_;  // the probes' end: claimed, whole probes
  const std::uint64_t flush_end_;
  AlignedBuffer write_buffer_;
  AlignedBuffer read_buffer_;
  std::unique_ptr<WriteUndoLog> undo_;
  std::uint64_t base_id_ = 0;
  std::uint32_t round_ = 0;
  std::uint32_t flush_round_ = 0;      // the round whose flush the flush's places hold
  std::set<std::uint64_t> unflushed_;  // this round's flush chunks not written (keep_data)
  std::map<std::uint64_t, Probe> probes_;
  std::map<std::uint64_t, VerifyRange> finds_;  // bad sectors of the window and flush
  std::uint64_t min_bad_ = std::numeric_limits<std::uint64_t>::max();
  SharedPlaces shared_;
  std::uint64_t period_ = 0;
  bool any_lost_ = false;
  bool any_unreadable_ = false;
  std::uint64_t good_ = 0;
  std::uint64_t bad_ = 0;
  QuickVerifyResult result_;
};

// The next round's probes: spread between the bounds so that they come
// within the precision, and at a wrap's period, when the bounds are not
// close enough yet and the budget allows another round.
std::vector<std::uint64_t> QuickVerifier::NextProbes() {
  const double p = options_.precision;
  if (bad_ <= good_ || static_cast<double>(bad_ - good_) <= p * static_cast<double>(good_)) {
    return {};
  }
  const std::uint64_t l = plan_.probe_bytes;
  const std::uint64_t gap = bad_ - good_;
  std::uint64_t m = options_.max_round_probes;
  if (good_ > 0) {
    const double want = std::ceil(static_cast<double>(gap) / (p * static_cast<double>(good_)));
    m = std::min<std::uint64_t>(m, static_cast<std::uint64_t>(want));
  }
  std::vector<std::uint64_t> at;
  for (std::uint64_t i = 1; i <= m; ++i) at.push_back(RoundDown(good_ + gap / (m + 1) * i, l));
  if (period_ > good_ && period_ <= bad_ && RoundDown(period_, l) >= l) {
    at.push_back(RoundDown(period_, l) - l);
    at.push_back(RoundDown(period_, l));
  }
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  std::erase_if(at, [&](std::uint64_t x) {
    return x < good_ || x >= bad_ || x + l > end_ || probes_.count(x) != 0 ||
           (x + l > plan_.flush_offset_bytes && x < flush_end_);
  });
  const std::uint64_t next = at.size() * l + plan_.flush_bytes;
  const double budget = options_.max_write_share * static_cast<double>(good_);
  if (!at.empty() && static_cast<double>(result_.verify.written_bytes + next) > budget) {
    Note("stopped after round " + std::to_string(round_) + ": another would write more than " +
         std::to_string(std::lround(options_.max_write_share * 100)) +
         " % of the size proven good");
    return {};
  }
  return at;
}

void QuickVerifier::Restore() {
  result_.saved_bytes = undo_->saved_bytes();
  const WriteUndoLog::RestoreReport r = undo_->Restore(device_);
  result_.restored = r.failures.empty();
  for (const std::string& f : r.failures) Note("keep data: " + f);
}

void QuickVerifier::Judge() {
  VerifyResult& v = result_.verify;
  result_.good_bytes = good_;
  result_.bad_bytes = bad_;
  result_.precision = bad_ > 0 ? static_cast<double>(bad_ - good_) / static_cast<double>(bad_) : 0;
  result_.wrap_period_bytes = period_;
  if (period_ != 0) {
    v.verdict = VerifyVerdict::kFakeCapacity;
    v.usable_bytes = period_ >= good_ && period_ <= bad_ ? period_ : good_;
  } else if (bad_ < claimed_) {
    // Nothing good at or above the first bad place: a bad end.
    const bool bad_end = std::none_of(probes_.begin(), probes_.end(), [&](const auto& e) {
      return e.first >= bad_ && e.second.latest.state == VerifyState::kGood;
    });
    const bool fake = bad_end && IsFakeEnd(claimed_, bad_, any_lost_);
    v.verdict = fake        ? VerifyVerdict::kFakeCapacity
                : any_lost_ ? VerifyVerdict::kDataLoss
                            : VerifyVerdict::kUnreadable;
    v.usable_bytes = good_;
  } else {
    v.verdict = VerifyVerdict::kGenuine;
    v.usable_bytes = v.interrupted ? good_ : claimed_;
  }
  const std::string quick =
      "quick: spot checks, not every sector: " + std::to_string(result_.probes) + " probes of " +
      ExactBinarySize(plan_.probe_bytes) + ", at most " + ExactBinarySize(plan_.window_bytes) +
      " apart; a lost range narrower than that can lie between them "
      "unseen (the full verify checks every sector)";
  v.notes.insert(v.notes.begin(), quick);
}

std::vector<VerifyRange> QuickVerifier::Ranges() const {
  std::vector<VerifyRange> all;
  for (const auto& [offset, p] : probes_) {
    if (p.latest.end_bytes != 0) all.push_back(p.latest);
  }
  for (const auto& [pos, r] : finds_) all.push_back(r);
  return Merge(std::move(all));
}

}  // namespace

QuickVerifyResult RunQuickVerify(Device& device, Clock& clock, const QuickVerifyOptions& options,
                                 const std::atomic<bool>* stop) {
  return QuickVerifier(device, clock, options, stop).Run();
}

}  // namespace zcav
