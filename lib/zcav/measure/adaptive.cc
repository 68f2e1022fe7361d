// Longer than 1,200 lines: it holds several modules that issue 38 splits apart.
#include "zcav/measure/adaptive.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <utility>

#include "zcav/base/error.h"
#include "zcav/base/stats.h"
#include "zcav/base/units.h"
#include "zcav/measure/read_checks.h"
#include "zcav/measure/sample_sink.h"

namespace zcav {
namespace {

// A converged edge has the probe beside it on the slower level's side read
// once more (and, where it changes side, the bracket reopened) this many
// times.
constexpr std::uint32_t kEdgeChecks = 1;

// A bracket reopened by a verification is verified again when it converges,
// up to this many reopenings.
constexpr std::uint32_t kMaxReopens = 2;

// Two sides of a bisected edge closer than this many noise sigmas (in log)
// are one level: the edge is dropped.
constexpr double kSameLevelSigmas = 2;

// An edge with fewer probes than this wholly on one side of it (up to the
// next edge) is dropped.
constexpr std::uint32_t kMinZoneProbes = 3;

// A grid probe off both its neighbours the same way by more than this many
// noise sigmas (in log) each is read again; so is a probe whose reads
// differ by more.
constexpr double kSpikeSigmas = 3;

// A bracket's moves are undone after a change of the device's speed (see
// Sampler::Change) at most this many times.
constexpr std::uint32_t kMaxUndos = 4;

// Bisections again where an edge, placed by all its probes once the drift
// is known (Settle), lies between probes that are not neighbours.
constexpr std::uint32_t kSettlePasses = 2;

// Rounds of finding the grid's spikes and reading them again.
constexpr std::uint32_t kSpikeRounds = 3;
// The grid is read a second time where its smallest step is under this
// many of its noise sigmas.
constexpr double kNoisyStepSigmas = 5;
constexpr std::uint64_t kNoisyGridShare = 512;

// A grid probe beside an edge closer to its own level than to the other by
// fewer than this many noise sigmas (in log) starts the bisection one grid
// probe further out.
constexpr double kBracketSigmas = 4;

// The device's drift at a moment: the rate of the reference probe then
// (interpolated in log between its reads either side in time, a stalled
// read left out) over its usual rate. A stall slows a single read, a slow
// period of the host every read for a while. A drift within kDriftSigmas of
// the reference's own noise (the robust sigma of its successive changes),
// or found from fewer than kMinReferences reads, is none (1).
constexpr double kDriftSigmas = 2;
constexpr std::size_t kMinReferences = 4;
// The reference's noise is the robust sigma of its successive changes, from
// this many of them on (a stall puts two changes far off; the median
// deviation needs more than twice that).
constexpr std::size_t kMinNoiseChanges = 6;
// A change of the device's speed (the bisection's moves made on reads from
// its time undone, where the drift decides their side) is one of more than
// this (in log) between two reads of the reference.
constexpr double kMinChange = 0.02;

// The rate of one probe from its reads: the median of the largest group of
// reads within `log_window` (in log) of each other, the fastest such group
// on a tie. A stall slows one read (far more often than a burst speeds one
// up): once another read agrees with the rest it is left out, where the
// median of four reads is the mean of the middle two, pulled halfway to the
// stall. Reads that all agree give their median; reads none of which agree,
// the fastest (stalls are the common hiccup; a burst far off both levels is
// read again, and the bisection reads a probe whose reads disagree on its
// side a third time).
// `rates` is reordered. REQUIRES: not empty.
double AgreedRate(std::vector<double>& rates, double log_window) {
  std::sort(rates.begin(), rates.end());
  const double factor = std::exp(std::max(0.0, log_window));
  std::size_t best_from = 0, best_to = 0, to = 0;
  for (std::size_t from = 0; from < rates.size(); ++from) {
    to = std::max(to, from);
    while (to + 1 < rates.size() && rates[to + 1] <= rates[from] * factor) ++to;
    if (to - from >= best_to - best_from) {
      best_from = from;
      best_to = to;
    }
  }
  const std::size_t n = best_to - best_from + 1;
  // Three reads or more, none within the window of another, the fastest
  // over 2 kMinChange above the next: a burst (the reads that had waited
  // behind a stall, served at once), left out.
  if (n == 1 && rates.size() >= 3 &&
      rates.back() > rates[rates.size() - 2] * std::exp(2 * kMinChange)) {
    rates.pop_back();
    return AgreedRate(rates, log_window);
  }
  const std::size_t mid = best_from + n / 2;
  return n % 2 == 1 ? rates[mid] : (rates[mid - 1] + rates[mid]) / 2;
}

class Sampler {
 public:
  Sampler(Device& device, Clock& clock, const AdaptiveOptions& options,
          const std::atomic<bool>* stop, AdaptiveResult& result, std::uint64_t start,
          std::uint64_t probe, std::uint64_t chunk)
      : clock_(clock),
        options_(options),
        stop_(stop),
        result_(result),
        queue_(device.OpenReadQueue(std::max<std::uint32_t>(1, options.queue_depth), chunk)),
        completions_(queue_->depth()),
        at_(queue_->depth()),
        start_(start),
        probe_(probe),
        chunk_(chunk) {
    result_.engine = queue_->engine();
  }

  // Slot k is the reference probe from now on (Options::reference_every):
  // read before the next probe, then every reference_every probe reads.
  void SetReference(std::uint64_t k) {
    if (options_.reference_every == 0) return;
    reference_ = k;
    since_reference_ = options_.reference_every;
  }

  // False once the sampling must end: a read failed, or a stop was asked.
  bool Going() {
    if (StopRequested(stop_)) result_.interrupted = true;
    return !result_.error && !result_.interrupted;
  }
  bool OverBudget() const {
    return (options_.byte_budget != 0 && result_.bytes_read >= options_.byte_budget) ||
           (options_.time_budget.count() > 0 && clock_.Now() - began_ >= options_.time_budget);
  }

  // One timed read: its rate and when it was made (the middle of its time).
  struct Timed {
    double mb_per_s = 0;
    std::chrono::nanoseconds at{0};
    std::uint64_t seq = 0;  // probe reads before it (its own included)
    // Read while the device's speed changed (between two reads of the
    // reference that disagree): left out where its probe has other reads.
    // Its drift was the reference's before the change (its rate then:
    // `before`) or after it, or somewhere between, until Resolve picks one.
    bool suspect = false;
    double before = 0, after = 0;
    std::optional<double> resolved{};  // the reference's rate it was read at
  };

  // Slot k read once more, or nullopt when a read failed (recorded as
  // unreadable where `record` says so).
  std::optional<Timed> ReadOnce(std::uint64_t k, bool record = true) {
    const std::uint64_t offset = start_ + k * probe_;
    // The probe's first chunk alone, untimed (the seek, the head settling
    // and whatever the device had queued go with it), then the rest in one
    // stream of reads (the queue kept full, so the device never idles inside
    // it), timed from the first chunk's completion to the last: exactly the
    // bytes after the first chunk over exactly their time, however the
    // device interleaves the reads in flight.
    std::error_code ec = Read(offset, offset + chunk_);
    if (!ec) {
      const auto from = clock_.Now();
      ec = Read(offset + chunk_, offset + probe_);
      if (!ec) {
        const auto took = clock_.Now() - from;
        return Timed{.mb_per_s = MbPerS(probe_ - chunk_, took), .at = from + took / 2};
      }
    }
    if (!IsDeviceGone(ec)) {
      if (!record) return std::nullopt;
      // A bad sector is data: the probe is unreadable, the sampling goes on.
      result_.unreadable.push_back(UnreadableRange{.offset_bytes = offset,
                                                   .length_bytes = probe_,
                                                   .errno_value = ec.value(),
                                                   .bounded_by_budget = true});
    } else if (!result_.error) {
      result_.error = ec;
    }
    return std::nullopt;
  }

  // Slot k's probe read once more (its rate: AgreedRate of its reads so
  // far, each divided by the drift the reference showed until then), the
  // reference read first when it is due. Null when the read failed.
  const AdaptiveProbe* ReadMore(std::uint64_t k) {
    if (reference_ && since_reference_ >= options_.reference_every) ReferenceDue();
    Slot& slot = slots_[k];
    AdaptiveProbe& p = slot.probe;
    p.offset_bytes = start_ + k * probe_;
    p.length_bytes = probe_;
    const std::uint64_t before = result_.bytes_read;
    std::optional<Timed> read = ReadOnce(k);
    if (!slot.reads.empty()) result_.reread_bytes += result_.bytes_read - before;
    if (!read || !(read->mb_per_s > 0)) return nullptr;  // (no time measured: no rate)
    ++since_reference_;
    read->seq = ++seq_;
    slot.reads.push_back(*read);
    slot.rates.push_back(read->mb_per_s / Drift(read->at));
    p.reads = static_cast<std::uint32_t>(slot.rates.size());
    p.mb_per_s = Agreed(slot);
    return &p;
  }

  // Whether a probe already read may be read again (the options'
  // max_reread_share); once not, the result says so.
  bool MayReadAgain() {
    const std::uint64_t first = result_.bytes_read - result_.reread_bytes;
    if (static_cast<double>(result_.reread_bytes) <
        options_.max_reread_share * static_cast<double>(first)) {
      return true;
    }
    result_.reread_capped = true;
    return false;
  }

  // A change of the device's speed, seen by the reference (its read off the
  // one before, by kMinChange and kSpikeSigmas of its noise, and the read
  // right after agreeing): the probe reads after `after_seq` were made at
  // an unknown drift between `before` and `after`, and are suspect.
  struct Change {
    std::uint64_t after_seq = 0;
    double before = 1, after = 1;
  };
  // The change seen since the last call, if any.
  std::optional<Change> TakeChange() { return std::exchange(change_, std::nullopt); }
  // Probe reads so far (the seq of the last).
  std::uint64_t Seq() const { return seq_; }

  // Slot k, read once, while the device's speed changed: its rate at the
  // drift before the change and at the drift after it (nullopt: not so).
  std::optional<std::pair<double, double>> Unresolved(std::uint64_t k) const {
    const Slot& slot = slots_.at(k);
    if (slot.reads.size() != 1 || !slot.reads[0].suspect || slot.reads[0].resolved) {
      return std::nullopt;
    }
    const Timed& t = slot.reads[0];
    return std::pair{t.mb_per_s / DriftOf(t.before), t.mb_per_s / DriftOf(t.after)};
  }
  // Slot k's only read made at the drift before the change (or after it).
  void Resolve(std::uint64_t k, bool before) {
    Slot& slot = slots_.at(k);
    Timed& t = slot.reads[0];
    t.resolved = before ? t.before : t.after;
    t.suspect = false;
    slot.rates[0] = t.mb_per_s / DriftOf(*t.resolved);
    slot.probe.mb_per_s = Agreed(slot);
  }

  // Slot k's last read as timed (its rate not divided by any drift).
  double LastRaw(std::uint64_t k) const { return slots_.at(k).reads.back().mb_per_s; }

  // The reference read now, when any probe was read since its last read:
  // the drift of the last probes then follows from the reads either side
  // of them in time (Redrift).
  void CloseReference() {
    if (reference_ && since_reference_ > 0 && Going()) ReadReference();
  }

  // Every read's rate divided by the drift at its time, as all the
  // reference's reads so far show it (a read's drift came from the reads
  // before it alone when it was made): every probe's rate found again.
  // Sets the result's largest_drift.
  void Redrift() {
    if (!frame_log_ && references_.size() >= kMinReferences) frame_log_ = median_log_;
    result_.largest_drift = 1;
    for (auto& [k, slot] : slots_) {
      if (slot.reads.empty()) continue;
      for (std::size_t i = 0; i < slot.reads.size(); ++i) {
        const Timed& t = slot.reads[i];
        const double drift = t.resolved ? DriftOf(*t.resolved) : Drift(t.at);
        slot.rates[i] = slot.reads[i].mb_per_s / drift;
        if (std::abs(std::log(drift)) > std::abs(std::log(result_.largest_drift))) {
          result_.largest_drift = drift;
        }
      }
      slot.probe.mb_per_s = Agreed(slot);
    }
  }

  // Reads agree within `log_window` (in log) from now on: every probe's rate
  // is found again with it.
  void SetAgreement(double log_window) {
    agree_log_ = log_window;
    for (auto& [k, slot] : slots_) {
      if (!slot.rates.empty()) slot.probe.mb_per_s = Agreed(slot);
    }
  }

  // One untimed chunk at the far end of the range from slot k (the first
  // or the last slot): read between two probes near each other, so that
  // the second is not served from the read-ahead of the first.
  void Divert(std::uint64_t k, std::uint64_t slots) {
    const std::uint64_t far = k < slots / 2 ? slots - 1 : 0;
    const std::uint64_t offset = start_ + far * probe_ + probe_ - chunk_;
    if (const std::error_code ec = Read(offset, offset + chunk_); IsDeviceGone(ec)) {
      if (!result_.error) result_.error = ec;
    }
  }

  // Slot k's probe read untimed, its rate not kept: the device (and the
  // engine's workers) woken before the first timed probe.
  void WarmUp(std::uint64_t k) {
    const std::uint64_t offset = start_ + k * probe_;
    if (const std::error_code ec = Read(offset, offset + probe_); IsDeviceGone(ec)) {
      if (!result_.error) result_.error = ec;
    }
  }

  // Redrift with the drifts measured from the median of all the
  // reference's reads (not those of the grid's time alone): the factor every
  // probe's rate was multiplied by.
  double Reframe() {
    const double before = frame_log_.value_or(median_log_);
    frame_log_.reset();
    Redrift();
    return frame_log_ ? std::exp(*frame_log_ - before) : 1.0;
  }

  // Slot k's reads (each divided by its drift), in the order read (none:
  // not read).
  // Suspect reads left out where there are others.
  std::vector<double> Reads(std::uint64_t k) const {
    const Slot& slot = slots_.at(k);
    std::vector<double> out;
    for (std::size_t i = 0; i < slot.rates.size(); ++i) {
      if (!slot.reads[i].suspect || AllSuspect(slot)) out.push_back(slot.rates[i]);
    }
    return out;
  }

  // The probe of slot k, when it was read.
  const AdaptiveProbe* Find(std::uint64_t k) const {
    const auto it = slots_.find(k);
    return it == slots_.end() || it->second.probe.mb_per_s <= 0 ? nullptr : &it->second.probe;
  }
  // The slots in [lo, hi] whose probe was read, in order, with its rate.
  std::vector<std::pair<std::uint64_t, double>> ReadIn(std::uint64_t lo, std::uint64_t hi) const {
    std::vector<std::pair<std::uint64_t, double>> out;
    for (auto it = slots_.lower_bound(lo); it != slots_.end() && it->first <= hi; ++it) {
      if (it->second.probe.mb_per_s > 0) out.emplace_back(it->first, it->second.probe.mb_per_s);
    }
    return out;
  }
  // Every probe read, in position order.
  std::vector<AdaptiveProbe> Probes() const {
    std::vector<AdaptiveProbe> out;
    for (const auto& [k, slot] : slots_) {
      if (slot.probe.mb_per_s > 0) out.push_back(slot.probe);
    }
    return out;
  }

  void Report(AdaptiveProgress::Phase phase, std::size_t done, std::size_t total) const {
    if (options_.progress) options_.progress({phase, done, total, result_.bytes_read});
  }

 private:
  struct Slot {
    AdaptiveProbe probe;
    std::vector<Timed> reads;   // each read as timed, in the order read
    std::vector<double> rates;  // each read's rate divided by its drift
  };

  // The reference probe read once more (an unreadable one ends the
  // references: the probes keep the drift found so far).
  void ReadReference() {
    since_reference_ = 0;
    const std::optional<Timed> read = ReadOnce(*reference_, false);
    if (!read) {
      reference_.reset();
      return;
    }
    if (!(read->mb_per_s > 0)) return;
    references_.push_back(*read);
    references_.back().seq = seq_;
    ++result_.reference_reads;
    // The noise of the reference (the robust sigma of its successive
    // changes), which of its reads are kept, and the median of those.
    std::vector<double> logs;
    for (const Timed& t : references_) logs.push_back(std::log(t.mb_per_s));
    std::vector<double> changes;
    for (std::size_t i = 1; i < logs.size(); ++i) changes.push_back(logs[i] - logs[i - 1]);
    // (From fewer than kMinNoiseChanges changes, one stall (two of them
    // far off) or a change of speed among them would pass for noise: until
    // then the noise is a third of kMinChange, and a read more than
    // kMinChange off the one before is off.)
    if (changes.size() >= kMinNoiseChanges) {
      const double median = MedianInPlace(changes);
      for (double& c : changes) c = std::abs(c - median);
      reference_noise_ = kMadToSigma * MedianInPlace(changes) / std::sqrt(2.0);
    } else {
      reference_noise_ = kMinChange / kSpikeSigmas;
    }
    const double limit = kSpikeSigmas * reference_noise_;
    const std::size_t n = logs.size();
    kept_.assign(n, true);
    for (std::size_t i = 0; n >= 2 && i + 1 < n; ++i) {
      kept_[i] = (i > 0 && std::abs(logs[i] - logs[i - 1]) <= limit) ||
                 std::abs(logs[i] - logs[i + 1]) <= limit;
    }
    // The newest read off the one before: a stall or the start of a drift,
    // which the next read tells; until then the one before gives the drift
    // after it.
    newest_unsure_ = n >= 2 && std::abs(logs[n - 1] - logs[n - 2]) > limit;
    std::vector<double> kept_logs;
    for (std::size_t i = 0; i < n; ++i) {
      if (kept_[i]) kept_logs.push_back(logs[i]);
    }
    if (!kept_logs.empty()) median_log_ = MedianInPlace(kept_logs);
  }

  // The device's drift at time `at` (kDriftSigmas): a read's rate over its
  // rate at the reference's usual speed.
  double Drift(std::chrono::nanoseconds at) const {
    if (references_.size() < kMinReferences) return 1;
    // The kept reads either side of `at` (in time order already).
    const auto after =
        static_cast<std::size_t>(std::partition_point(references_.begin(), references_.end(),
                                                      [&](const Timed& t) { return t.at < at; }) -
                                 references_.begin());
    std::optional<std::size_t> before_i, after_i;
    for (std::size_t i = after; i-- > 0;) {
      if (kept_[i]) {
        before_i = i;
        break;
      }
    }
    for (std::size_t i = after; i < references_.size(); ++i) {
      if (kept_[i]) {
        after_i = i;
        break;
      }
    }
    if (!before_i && !after_i) return 1;
    if (!after_i && newest_unsure_ && *before_i + 1 == references_.size() && *before_i > 0) {
      --*before_i;
    }
    const auto log_at = [&](std::size_t i) { return std::log(references_[i].mb_per_s); };
    double drift_log = 0;
    if (before_i && after_i) {
      const Timed& a = references_[*before_i];
      const Timed& b = references_[*after_i];
      const double w = b.at > a.at ? static_cast<double>((at - a.at).count()) /
                                         static_cast<double>((b.at - a.at).count())
                                   : 0.0;
      drift_log = (1 - w) * log_at(*before_i) + w * log_at(*after_i);
    } else {
      drift_log = log_at(before_i ? *before_i : *after_i);
    }
    return DriftOfLog(drift_log);
  }

  // The drift when the reference reads at `mb_per_s` (kDriftSigmas).
  double DriftOf(double mb_per_s) const { return DriftOfLog(std::log(mb_per_s)); }
  double DriftOfLog(double reference_log) const {
    const double drift_log = reference_log - frame_log_.value_or(median_log_);
    if (references_.size() < kMinReferences ||
        !(std::abs(drift_log) > std::max(kDriftSigmas * reference_noise_, kMinChange))) {
      return 1;
    }
    return std::exp(drift_log);
  }

  // [from, to) through the queue, up to its depth in flight; the first
  // error (its offset in error_offset_bytes), or none.
  std::error_code Read(std::uint64_t from, std::uint64_t to) {
    std::vector<std::uint64_t>& at = at_;
    std::vector<std::uint32_t>& free_slots = free_slots_;
    free_slots.clear();
    for (std::uint32_t s = queue_->depth(); s > 0; --s) free_slots.push_back(s - 1);
    std::uint32_t in_flight = 0;
    std::uint64_t next = from;
    std::error_code failed;
    bool ok = true;
    while (ok && (next < to || in_flight > 0)) {
      while (ok && next < to && !free_slots.empty()) {
        const std::uint32_t s = free_slots.back();
        free_slots.pop_back();
        at[s] = next;
        queue_->Submit(s, next, std::min(chunk_, to - next));
        next += std::min(chunk_, to - next);
        ++in_flight;
      }
      const std::size_t n = queue_->Wait(completions_);
      for (std::size_t i = 0; i < n; ++i) {
        const ReadQueue::Completion& c = completions_[i];
        --in_flight;
        free_slots.push_back(c.slot);
        if (c.error && ok) {
          failed = c.error;
          result_.error_offset_bytes = at[c.slot];
          ok = false;
        } else if (!c.error) {
          result_.bytes_read += std::min(chunk_, to - at[c.slot]);
        }
      }
      if (!ok) {
        // Drain what is still in flight before the queue is used again.
        while (in_flight > 0) in_flight -= static_cast<std::uint32_t>(queue_->Wait(completions_));
      }
    }
    return failed;
  }

  Clock& clock_;
  const AdaptiveOptions& options_;
  const std::atomic<bool>* stop_;
  AdaptiveResult& result_;
  std::unique_ptr<ReadQueue> queue_;
  std::vector<ReadQueue::Completion> completions_;
  // Read()'s: each queue slot's offset, and the slots free.
  std::vector<std::uint64_t> at_;
  std::vector<std::uint32_t> free_slots_;
  static bool AllSuspect(const Slot& slot) {
    return std::all_of(slot.reads.begin(), slot.reads.end(),
                       [](const Timed& t) { return t.suspect; });
  }
  // AgreedRate of the slot's reads (suspect ones left out where there are
  // others).
  double Agreed(const Slot& slot) {
    sorted_.clear();
    const bool all_suspect = AllSuspect(slot);
    for (std::size_t i = 0; i < slot.rates.size(); ++i) {
      if (!slot.reads[i].suspect || all_suspect) sorted_.push_back(slot.rates[i]);
    }
    return AgreedRate(sorted_, agree_log_);
  }

  // The reference read when due: the first read twice, one after the other
  // (a stall slows one of them, a slow period both); a read off the one
  // before read again at once: agreeing with it, the device's speed changed
  // since the one before (the probes read in between are suspect, and
  // TakeChange says so), else it was a stall.
  void ReferenceDue() {
    if (references_.empty()) ReadReference();
    if (!reference_) return;
    ReadReference();
    const std::size_t n = references_.size();
    if (!reference_ || !newest_unsure_ || n < 3 ||
        !(std::abs(std::log(references_[n - 1].mb_per_s / references_[n - 2].mb_per_s)) >
          kMinChange)) {
      return;
    }
    const std::uint64_t before = references_[n - 2].seq;
    const std::uint64_t read_before = result_.bytes_read;
    ReadReference();
    result_.reread_bytes += result_.bytes_read - read_before;
    // (Drifts either side the same, both within the dead zone: no change.
    // Before kMinReferences reads there is no drift yet, and no dead zone.)
    if (references_.size() == n + 1 && !newest_unsure_ && kept_[n - 1] &&
        (n + 1 < kMinReferences ||
         DriftOf(references_[n - 2].mb_per_s) != DriftOf(references_[n].mb_per_s))) {
      change_ = Change{.after_seq = before,
                       .before = DriftOf(references_[n - 2].mb_per_s),
                       .after = DriftOf(references_[n].mb_per_s)};
      for (auto& [k, slot] : slots_) {
        for (Timed& t : slot.reads) {
          if (t.seq > before && !t.suspect) {
            t.suspect = true;
            t.before = references_[n - 2].mb_per_s;
            t.after = references_[n].mb_per_s;
          }
        }
      }
    }
  }

  std::vector<double> sorted_;  // Agreed()'s scratch
  double agree_log_ = 0;        // SetAgreement's window
  std::uint64_t start_, probe_, chunk_;
  std::chrono::nanoseconds began_ = clock_.Now();
  std::optional<std::uint64_t> reference_;  // the reference probe's slot
  std::uint32_t since_reference_ = 0;       // probe reads since its last read
  std::vector<Timed> references_;           // its reads, in time order
  // Which of them give the drift: those that agree (within kSpikeSigmas of
  // its noise) with a neighbour in time, not one off both (a stall, or the
  // burst of reads that had waited behind one; the first is read twice, the
  // one off the one before is read again at once). The newest is kept (see
  // newest_unsure_).
  std::vector<bool> kept_;
  bool newest_unsure_ = false;
  std::uint64_t seq_ = 0;         // probe reads so far
  std::optional<Change> change_;  // TakeChange's
  double median_log_ = 0;         // the median of their logs
  // The reference's speed that drifts are measured from (the log): the
  // median of its reads when the grid was read, fixed from then on so that
  // the levels found from the grid and the probes read later agree, and at
  // the end that of all its reads (Reframe).
  std::optional<double> frame_log_;
  double reference_noise_ = 0;  // their robust sigma (in log)
  std::map<std::uint64_t, Slot> slots_;
};

// Grid probes read while the device's speed changed (Sampler::Unresolved):
// each whose nearest grid probes read at a known drift either side agree
// (within kMinChange: one zone) takes the drift (before or after the
// change) that puts it nearer their level; a probe resolved so serves its
// neighbours next, until no more can be. The others (beside a step, or at
// an end of the range) are returned, to be read again. (The nearest known
// probe on one side alone is no guide: a whole zone's grid probes can be
// read within one change, and the nearest known one is then in the next
// zone.)
std::vector<std::uint64_t> ResolveByNeighbours(Sampler& sampler,
                                               const std::vector<std::uint64_t>& slots) {
  std::map<std::uint64_t, double> known;  // slot: rate
  std::vector<std::uint64_t> open;
  for (const std::uint64_t k : slots) {
    if (const AdaptiveProbe* p = sampler.Find(k)) {
      if (sampler.Unresolved(k)) {
        open.push_back(k);
      } else {
        known.emplace(k, p->mb_per_s);
      }
    }
  }
  for (bool progress = true; progress && !open.empty();) {
    progress = false;
    std::erase_if(open, [&](std::uint64_t k) {
      const auto right = known.lower_bound(k);
      if (right == known.begin() || right == known.end()) return false;
      const double left_rate = std::prev(right)->second, right_rate = right->second;
      if (std::abs(std::log(left_rate / right_rate)) > kMinChange) return false;
      const double level = std::sqrt(left_rate * right_rate);
      const auto [before, after] = *sampler.Unresolved(k);
      sampler.Resolve(k, std::abs(std::log(before / level)) <= std::abs(std::log(after / level)));
      known.emplace(k, sampler.Find(k)->mb_per_s);
      progress = true;
      return true;
    });
  }
  return open;
}

// The indexes 0..count-1 of the grid's probes in an order where no two read
// one after the other are neighbours: a stride coprime with the count, near
// a third of it.
std::vector<std::uint64_t> GridOrder(std::uint64_t count) {
  std::uint64_t stride = std::max<std::uint64_t>(1, count / 3);
  while (count > 1 && std::gcd(stride, count) != 1) ++stride;
  std::vector<std::uint64_t> order;
  for (std::uint64_t i = 0; i < count; ++i) order.push_back(i * stride % count);
  return order;
}

// The relative noise of one probe: the robust sigma of the grid's
// neighbour steps (in log) over sqrt(2), leaving out the pairs a level
// change lies between (`steps`: a dense staircase's steps would otherwise
// read as noise: 7 steps among 40 probes put it at 5 % for 1 %).
double NoiseLog(const std::vector<AdaptiveProbe>& grid, const std::vector<AdaptiveStep>& changes) {
  std::vector<bool> across(grid.size(), false);  // across[i]: a change between i - 1 and i
  for (const AdaptiveStep& c : changes) {
    for (std::size_t i = c.left + 1; i <= c.right && i < grid.size(); ++i) across[i] = true;
  }
  std::vector<double> steps;
  for (std::size_t i = 1; i < grid.size(); ++i) {
    if (!across[i] && grid[i].mb_per_s > 0 && grid[i - 1].mb_per_s > 0) {
      steps.push_back(std::log(grid[i].mb_per_s / grid[i - 1].mb_per_s));
    }
  }
  if (steps.empty()) return 0;
  std::vector<double> copy = steps;
  const double median = MedianInPlace(copy);
  for (double& s : steps) s = std::abs(s - median);
  return kMadToSigma * MedianInPlace(steps) / std::sqrt(2.0);
}

// The smallest of `steps` (in log). REQUIRES: not empty.
double SmallestStep(const std::vector<AdaptiveStep>& steps) {
  double smallest = std::numeric_limits<double>::infinity();
  for (const AdaptiveStep& s : steps) {
    smallest = std::min(smallest, std::abs(std::log(s.left_mb_per_s / s.right_mb_per_s)));
  }
  return smallest;
}

// The grid probes (indexes into `grid`) off both their neighbours the same
// way, by more than `limit` (in log) each: an end probe off its one
// neighbour, where that neighbour agrees with the next.
std::vector<std::size_t> GridSpikes(const std::vector<AdaptiveProbe>& grid, double limit) {
  const auto off = [&](std::size_t a, std::size_t b) {
    return std::log(grid[a].mb_per_s / grid[b].mb_per_s);
  };
  std::vector<std::size_t> out;
  const std::size_t n = grid.size();
  if (n < 3 || !(limit > 0)) return out;
  if (std::abs(off(0, 1)) > limit && std::abs(off(1, 2)) <= limit) out.push_back(0);
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const double l = off(i, i - 1), r = off(i, i + 1);
    if ((l > 0) == (r > 0) && std::min(std::abs(l), std::abs(r)) > limit) out.push_back(i);
  }
  if (std::abs(off(n - 1, n - 2)) > limit && std::abs(off(n - 2, n - 3)) <= limit) {
    out.push_back(n - 1);
  }
  return out;
}

// The edge between levels `left` and `right` placed where the probes read
// around it (`read`: slot and rate, in slot order, from the bracket as it
// began) disagree least with it: each probe on the wrong side of it costs
// how much closer (in log) it is to that side's level. A bisection follows
// single reads, and a stall of one sends it the wrong way for good; the
// probes it read (and those its verifications re-read) still show where
// the edge is. Ties keep the bisection's bracket [lo, hi]; else the
// leftmost. Sets lo and hi to the probes either side of the edge (not
// always neighbours: the edge is then as wide as their gap). A probe whose
// reads came out far outside both levels (beyond the nearer by more than
// `far_off`, in log) votes for neither: on a busy host a slow spell can
// outlast all of a probe's reads, and such a probe, the slower level's by
// proximity alone, had put edges 15 MiB off with +-1 MiB claimed.
void Settle(std::vector<std::pair<std::uint64_t, double>> read, double left, double right,
            double far_off, std::uint64_t& lo, std::uint64_t& hi) {
  std::erase_if(read, [&](const std::pair<std::uint64_t, double>& r) {
    return std::min(std::abs(std::log(r.second / left)), std::abs(std::log(r.second / right))) >
           far_off;
  });
  if (read.size() < 2) return;
  // vote > 0: closer to the left level.
  std::vector<double> vote;
  for (const auto& [slot, rate] : read) {
    vote.push_back(std::abs(std::log(rate / right)) - std::abs(std::log(rate / left)));
  }
  // (No probe left for one side: nothing places the edge; the bisection's
  // bracket stands.)
  if (std::none_of(vote.begin(), vote.end(), [](double v) { return v > 0; }) ||
      std::none_of(vote.begin(), vote.end(), [](double v) { return v < 0; })) {
    return;
  }
  // cost(j): the edge between read[j - 1] and read[j].
  double cost = 0;
  for (std::size_t i = 1; i < read.size(); ++i) cost += std::max(0.0, vote[i]);
  cost += std::max(0.0, -vote[0]);
  double best = cost;
  std::size_t best_j = 1;
  for (std::size_t j = 2; j < read.size(); ++j) {
    cost += std::max(0.0, -vote[j - 1]) - std::max(0.0, vote[j - 1]);
    const bool is_bisection = read[j - 1].first == lo && read[j].first == hi;
    if (cost < best - 1e-12 || (is_bisection && cost <= best + 1e-12)) {
      best = cost;
      best_j = j;
    }
  }
  lo = read[best_j - 1].first;
  hi = read[best_j].first;
}

// A step of the grid being bisected: the bracket [lo, hi] of slots (the
// last probe read at the left level, the first at the right one), and
// what its checks have done.
struct Bracket {
  std::uint64_t lo = 0, hi = 0;
  double left = 0, right = 0;
  std::optional<std::uint64_t> pending;  // a marginal probe to read again
  bool done = false;
  std::uint64_t lo0 = 0, hi0 = 0;            // where the bracket may reopen to
  std::uint64_t lo_start = 0, hi_start = 0;  // the bracket as it began
  std::vector<std::uint64_t> verify;         // converged: the probes to read once more
  std::uint32_t checks = 0;                  // verifications begun
  std::uint32_t reopens = 0;                 // brackets reopened by a verification
  // The bracket before each move, with the read that moved it (its seq).
  struct Move {
    std::uint64_t seq = 0, lo = 0, hi = 0;
    double raw = 0;  // the rate of the read that made it, as timed
  };
  std::vector<Move> moves;
  std::uint32_t undos = 0;  // times moves were undone
};

// Whether `rate` is nearer b's left level than its right one (in log).
bool CloserLeft(double rate, const Bracket& b) {
  return std::abs(std::log(rate / b.left)) <= std::abs(std::log(rate / b.right));
}

// One adaptive sampling, its state and its named steps (SampleAdaptively
// runs them in order): the grid, its suspect probes resolved, a noisy grid
// read again, its spikes read again, the steps bracketed, bisected and
// settled, then the edges and zones.
class AdaptiveRun {
 public:
  AdaptiveRun(Device& device, Clock& clock, const AdaptiveOptions& options,
              const AdaptiveStepFinder& find_steps, const std::atomic<bool>* stop,
              AdaptiveResult& r, std::uint64_t end, std::uint64_t probe, std::uint64_t chunk)
      : options_(options),
        find_steps_(find_steps),
        r_(r),
        end_(end),
        probe_(probe),
        slots_((end - r.start_bytes) / probe),
        sampler_(device, clock, options, stop, r, r.start_bytes, probe, chunk) {}

  void ReadGrid();
  void ResolveGridSuspects();
  void FindSteps();
  void ReadNoisyGridAgain();
  void ReadSpikesAgain();
  void OpenBrackets();
  void BisectAndSettle();
  void Edges();
  void Zones();

 private:
  // The grid's probes read (unreadable ones left out: the steps index the
  // probes read), and their slots.
  void CollectGrid();
  // The reference read when due, every probe's rate found again with the
  // drifts known now, and a change of speed seen meanwhile forgotten.
  void Redrift();
  // Every open bracket bisected, checked and verified until each is done.
  void Bisect();
  // A change of the device's speed (Sampler::TakeChange): the moves it
  // decided undone; whether one of `current`'s was.
  bool UndoMoves(const Sampler::Change& change, const Bracket& current);
  // Bracket b after slot k's probe `p` was read (its side).
  void Move(Bracket& b, std::uint64_t k, const AdaptiveProbe& p);
  // A converged bracket: its probes to read once more, or done.
  void Converged(Bracket& b);
  // Slot k's probe `p`, read before and not read again (AdaptiveOptions::max_reread_share),
  // taken as it is: a move, or the bracket's verification done.
  void KeepRead(Bracket& b, std::uint64_t k, const AdaptiveProbe& p);
  // Read again: a probe whose side is marginal, far off both levels, or
  // whose reads disagree on its side.
  bool Unsettled(std::uint64_t k, const AdaptiveProbe& p, const Bracket& b) const;
  // How far (in log) outside both of b's levels a rate is no longer
  // either's: beyond the nearer by more than half the step and
  // kSpikeSigmas of the noise (a stall, or a burst of reads that had
  // waited, not the media).
  double FarOff(const Bracket& b) const {
    return std::max(std::abs(std::log(b.left / b.right)) / 2, kSpikeSigmas * r_.noise_rel);
  }
  // The median of the probes wholly inside [from, to); their count in
  // `inside`.
  double MedianIn(std::uint64_t from, std::uint64_t to, std::uint32_t& inside) const;

  const AdaptiveOptions& options_;
  const AdaptiveStepFinder& find_steps_;
  AdaptiveResult& r_;
  const std::uint64_t end_, probe_, slots_;
  Sampler sampler_;
  std::vector<std::uint64_t> grid_slots_;  // the grid's slots, in position order
  std::vector<AdaptiveProbe> grid_;        // its probes read
  std::vector<std::uint64_t> grid_read_;   // their slots
  std::vector<AdaptiveStep> steps_;        // where the grid changes level
  std::vector<Bracket> open_;              // each step being bisected
  std::size_t finished_ = 0;               // brackets done
};

void AdaptiveRun::CollectGrid() {
  grid_.clear();
  grid_read_.clear();
  for (const std::uint64_t k : grid_slots_) {
    if (const AdaptiveProbe* p = sampler_.Find(k)) {
      grid_.push_back(*p);
      grid_read_.push_back(k);
    }
  }
}

void AdaptiveRun::Redrift() {
  sampler_.CloseReference();
  sampler_.Redrift();
  (void)sampler_.TakeChange();
}

void AdaptiveRun::ReadGrid() {
  const std::uint64_t count = std::min<std::uint64_t>(options_.grid_probes, slots_);
  r_.grid_probes = static_cast<std::uint32_t>(count);
  grid_slots_.resize(count);
  for (std::uint64_t i = 0; i < count; ++i) grid_slots_[i] = i * (slots_ - 1) / (count - 1);
  std::size_t grid_done = 0;
  // Untimed, in the middle of a grid gap away from the first grid probe
  // read (slot 0): a sleeping disk spun up, an engine's threads started.
  if (count >= 3) sampler_.WarmUp((grid_slots_[1] + grid_slots_[2]) / 2);
  // The reference: a block no grid probe reads, away from the warm-up.
  if (count >= 3 && grid_slots_[count - 1] - grid_slots_[count - 2] >= 2) {
    sampler_.SetReference((grid_slots_[count - 2] + grid_slots_[count - 1]) / 2);
  }
  for (const std::uint64_t i : GridOrder(count)) {
    if (!sampler_.Going()) break;
    if (sampler_.OverBudget()) {
      // Not even the grid: the probes read so far (spread over the whole
      // range by the grid's order) still give the edges, at their spacing.
      r_.budget_hit = true;
      break;
    }
    if (!sampler_.ReadMore(grid_slots_[i])) continue;  // unreadable: the grid goes on without it
    sampler_.Report(AdaptiveProgress::Phase::kGrid, ++grid_done, count);
  }
  Redrift();
}

// Grid probes read while the device's speed changed (their drift is either
// side of the change, not known where within it) take the drift their grid
// neighbours decide (ResolveByNeighbours); the others are read again.
void AdaptiveRun::ResolveGridSuspects() {
  const std::vector<std::uint64_t> again = ResolveByNeighbours(sampler_, grid_slots_);
  for (const std::uint64_t k : again) {
    if (!sampler_.Going() || sampler_.OverBudget() || !sampler_.MayReadAgain()) break;
    sampler_.ReadMore(k);
  }
  if (!again.empty()) Redrift();
  CollectGrid();
}

// The steps the finder sees in the grid (a grid the budget cut short still
// gives its steps: they stay open, at the width of the probes either side),
// the noise, and the reads' agreement window.
void AdaptiveRun::FindSteps() {
  if (sampler_.Going() && grid_.size() >= 3) steps_ = find_steps_(grid_);
  r_.noise_rel = NoiseLog(grid_, steps_);
  sampler_.SetAgreement(kSpikeSigmas * r_.noise_rel);
}

// A noisy grid (its smallest step under kNoisyStepSigmas of the noise:
// steps as small may be lost in it, as 1.7 % ones under 2 % noise
// correlated at 0.5 were on 13 of 50 seeds of a 20 TB disk) is read once
// more, in the grid's order, where that is cheap (the grid under
// 1/kNoisyGridShare of the range): each probe's rate the median of its two
// reads, the noise's variance halved.
void AdaptiveRun::ReadNoisyGridAgain() {
  if (!sampler_.Going() || r_.budget_hit || options_.max_reads <= 1 || steps_.empty() ||
      SmallestStep(steps_) >= kNoisyStepSigmas * r_.noise_rel ||
      grid_read_.size() * probe_ * kNoisyGridShare > r_.range_bytes) {
    return;
  }
  const std::vector<std::uint64_t> again = grid_read_;
  for (const std::uint64_t i : GridOrder(again.size())) {
    if (!sampler_.Going()) break;
    if (sampler_.OverBudget()) {
      r_.budget_hit = true;
      break;
    }
    if (!sampler_.MayReadAgain()) break;
    sampler_.ReadMore(again[i]);
  }
  Redrift();
  CollectGrid();
  FindSteps();
}

// Grid probes off both their neighbours the same way (a stall of the
// reader or the host, not a zone: a zone spans at least 3 grid probes) are
// read again, in turns, until two of their reads agree or they have
// max_reads: AgreedRate of their reads is kept. A re-read only refines a
// probe's rate; then the steps and the noise are found again.
void AdaptiveRun::ReadSpikesAgain() {
  if (!sampler_.Going() || r_.budget_hit || grid_.size() < 3 || options_.max_reads <= 1) return;
  const auto settled = [&](std::uint64_t k) {
    const std::vector<double> reads = sampler_.Reads(k);
    if (reads.size() >= options_.max_reads) return true;
    for (std::size_t a = 0; a < reads.size(); ++a) {
      for (std::size_t b = a + 1; b < reads.size(); ++b) {
        if (std::abs(std::log(reads[a] / reads[b])) < kSpikeSigmas * r_.noise_rel) return true;
      }
    }
    return false;
  };
  // A probe read again can unmask its neighbour (two stalled probes side
  // by side look like a step): the spikes are found again after each
  // round, each probe re-read in one round only.
  std::set<std::uint64_t> checked;
  // A probe off by less than half the smallest step the grid shows stays
  // closer to its own level than to any other: it can neither make a step
  // nor send a bisection the wrong way, and is not read again (a host's
  // slow moments put a few grid probes 1-2 % off; the steps are 10 %).
  const double spike_log =
      std::max(kSpikeSigmas * r_.noise_rel, steps_.empty() ? 0.0 : SmallestStep(steps_) / 2);
  for (std::uint32_t round = 0; round < kSpikeRounds && sampler_.Going() && !r_.budget_hit;
       ++round) {
    std::vector<std::uint64_t> spikes;
    for (const std::size_t i : GridSpikes(grid_, spike_log)) {
      if (!checked.contains(grid_read_[i])) spikes.push_back(grid_read_[i]);
    }
    if (spikes.empty()) break;
    checked.insert(spikes.begin(), spikes.end());
    while (!spikes.empty() && sampler_.Going()) {
      if (sampler_.OverBudget()) {
        r_.budget_hit = true;
        break;
      }
      if (!sampler_.MayReadAgain()) break;  // (they keep the reads they have)
      std::vector<std::uint64_t> failed;    // unreadable now: kept as read before
      for (const std::uint64_t k : spikes) {
        if (spikes.size() == 1) sampler_.Divert(k, slots_);
        if (!sampler_.Going()) break;
        if (!sampler_.ReadMore(k)) failed.push_back(k);
      }
      std::erase_if(spikes, [&](std::uint64_t k) {
        return settled(k) || std::find(failed.begin(), failed.end(), k) != failed.end();
      });
    }
    sampler_.CloseReference();
    sampler_.Redrift();
    CollectGrid();
  }
  if (sampler_.Going() && grid_.size() >= 3) steps_ = find_steps_(grid_);
  r_.noise_rel = NoiseLog(grid_, steps_);
}

// A bracket for each step between two grid probes. Levels within
// kSameLevelSigmas of the noise of each other are none: an edge between
// them would be dropped once bisected (Zones); its reads are saved (a grid
// probe or two read off their level split a zone).
//
// The bisection starts between the two grid probes the finder names, or
// one grid probe further out on a side whose grid probe is not clearly on
// its side (within kBracketSigmas of the noise of being closer to the
// other level). A converged edge whose re-read probe changes side reopens
// to one grid probe further out on that side (lo0, hi0): a grid probe read
// on the wrong side must not put an edge a grid gap off with a one-probe
// uncertainty. The next edge is at least a zone (3 grid probes) away.
void AdaptiveRun::OpenBrackets() {
  const auto slot_of = [&](std::size_t g) {
    return (grid_[g].offset_bytes - r_.start_bytes) / probe_;
  };
  const auto unclear = [&](std::size_t g, double own, double other) {
    const double rate = grid_[g].mb_per_s;
    return std::abs(std::log(rate / other)) - std::abs(std::log(rate / own)) <
           kBracketSigmas * r_.noise_rel;
  };
  for (const AdaptiveStep& step : steps_) {
    if (step.left >= step.right || step.right >= grid_.size()) continue;
    if (std::abs(std::log(step.left_mb_per_s / step.right_mb_per_s)) <
        kSameLevelSigmas * r_.noise_rel) {
      continue;
    }
    const std::size_t outer_left = step.left > 0 ? step.left - 1 : 0;
    const std::size_t outer_right = std::min(step.right + 1, grid_.size() - 1);
    const bool widen_left = unclear(step.left, step.left_mb_per_s, step.right_mb_per_s);
    const bool widen_right = unclear(step.right, step.right_mb_per_s, step.left_mb_per_s);
    const std::uint64_t lo = slot_of(widen_left ? outer_left : step.left);
    const std::uint64_t hi = slot_of(widen_right ? outer_right : step.right);
    open_.push_back(Bracket{.lo = lo,
                            .hi = hi,
                            .left = step.left_mb_per_s,
                            .right = step.right_mb_per_s,
                            .pending = std::nullopt,
                            .done = hi - lo <= 1,
                            .lo0 = slot_of(outer_left),
                            .hi0 = slot_of(outer_right),
                            .lo_start = lo,
                            .hi_start = hi,
                            .verify = {},
                            .checks = 0,
                            .reopens = 0,
                            .moves = {},
                            .undos = 0});
    if (open_.back().done) ++finished_;
  }
}

bool AdaptiveRun::Unsettled(std::uint64_t k, const AdaptiveProbe& p, const Bracket& b) const {
  const double to_left = std::abs(std::log(p.mb_per_s / b.left));
  const double to_right = std::abs(std::log(p.mb_per_s / b.right));
  if (std::abs(to_left - to_right) < 2 * r_.noise_rel) return true;
  // Far outside both levels: read again.
  if (std::min(to_left, to_right) > FarOff(b)) return true;
  // Reads that disagree on its side (a hiccup in one of two reads would
  // pull their median, the mean, to the wrong side: a third read decides).
  const std::vector<double> reads = sampler_.Reads(k);
  return std::any_of(reads.begin(), reads.end(),
                     [&](double x) { return CloserLeft(x, b) != CloserLeft(reads[0], b); });
}

// The device's speed changed since the reference's read before: the moves
// made on the reads since then whose side the drift decides (the read on
// one side at the drift before the change, on the other at the drift after
// it) are undone, each with the moves after it (their probes are read again
// as the bisection comes back to them).
bool AdaptiveRun::UndoMoves(const Sampler::Change& change, const Bracket& current) {
  bool undone = false;
  for (Bracket& x : open_) {
    const auto first = std::find_if(x.moves.begin(), x.moves.end(), [&](const Bracket::Move& m) {
      return m.seq > change.after_seq &&
             CloserLeft(m.raw / change.before, x) != CloserLeft(m.raw / change.after, x);
    });
    // (At most kMaxUndos times a bracket: a drift that changes with every
    // reference read must not keep it open for good.)
    if (first == x.moves.end() || x.undos >= kMaxUndos) continue;
    ++x.undos;
    x.lo = first->lo;
    x.hi = first->hi;
    x.moves.erase(first, x.moves.end());
    x.pending.reset();
    x.verify.clear();
    x.checks = 0;
    if (x.done) {
      x.done = false;
      --finished_;
    }
    undone = undone || &x == &current;
  }
  return undone;
}

void AdaptiveRun::Move(Bracket& b, std::uint64_t k, const AdaptiveProbe& p) {
  const bool left_side = CloserLeft(p.mb_per_s, b);
  b.moves.push_back({.seq = sampler_.Seq(), .lo = b.lo, .hi = b.hi, .raw = sampler_.LastRaw(k)});
  if (b.verify.empty() || k != b.verify.back()) {
    (left_side ? b.lo : b.hi) = k;
    return;
  }
  // Converged: the probe beside the edge read again. One that changed side
  // was a hiccup that sent the bisection the wrong way: the bracket reopens
  // from it to where it began on that side. A reopened bracket is verified
  // again once it converges (up to kMaxReopens times: a second stall must
  // not leave it misled).
  b.verify.pop_back();
  // (Not past where the bracket began: a probe there that changed side
  // leaves the edge to Settle.)
  const bool reopen =
      (k == b.lo && !left_side && b.lo0 < b.lo) || (k == b.hi && left_side && b.hi < b.hi0);
  if (!reopen) return;
  if (k == b.lo) {
    b.hi = b.lo;
    b.lo = b.lo0;
  } else {
    b.lo = b.hi;
    b.hi = b.hi0;
  }
  b.verify.clear();
  if (++b.reopens <= kMaxReopens) b.checks = 0;
}

void AdaptiveRun::Converged(Bracket& b) {
  if (b.checks >= kEdgeChecks) {
    b.done = true;
    ++finished_;
    return;
  }
  ++b.checks;
  // The probe on the slower level's side: a stall (the common hiccup: reads
  // are slowed far more often than sped up) makes a probe of the faster
  // level read as the slower one, and ends the bisection on it. (A burst
  // far off both levels is read again.)
  b.verify = {b.right < b.left ? b.hi : b.lo};
  // The probe on the faster level's side too where it reads off that level
  // by more than kSpikeSigmas of the noise: a burst (the reads that waited
  // behind a stall, served at once from the device's read-ahead) made a
  // probe of the slower level read about as the faster one.
  const std::uint64_t faster = b.right < b.left ? b.lo : b.hi;
  if (const AdaptiveProbe* f = sampler_.Find(faster);
      f != nullptr &&
      std::abs(std::log(f->mb_per_s / std::max(b.left, b.right))) > kSpikeSigmas * r_.noise_rel) {
    b.verify.push_back(faster);
  }
  // A grid probe the bisection never moved from, read once: a burst (or a
  // stall) there ends the search on it, every probe the bisection read
  // agreeing with the other side.
  for (const std::uint64_t side : {b.lo, b.hi}) {
    if ((side == b.lo_start || side == b.hi_start) &&
        std::find(b.verify.begin(), b.verify.end(), side) == b.verify.end() &&
        sampler_.Reads(side).size() == 1) {
      b.verify.push_back(side);
    }
  }
}

void AdaptiveRun::KeepRead(Bracket& b, std::uint64_t k, const AdaptiveProbe& p) {
  b.pending.reset();
  if (!b.verify.empty() && k == b.verify.back()) {
    // (Its verification as read before: the bracket stays converged.)
    b.verify.clear();
    b.checks = kEdgeChecks;
  } else {
    Move(b, k, p);
  }
  if (b.hi - b.lo <= 1 && b.verify.empty()) Converged(b);
}

// The brackets bisected in turns, one read per open bracket per round, so
// that two reads in a row are at different edges (far apart: no read-ahead
// between them); a marginal probe is read again in the next round. With
// one bracket left open, a read elsewhere (Divert) separates its probes.
void AdaptiveRun::Bisect() {
  while (finished_ < open_.size() && sampler_.Going() && !r_.budget_hit) {
    for (Bracket& b : open_) {
      if (b.done || !sampler_.Going()) continue;
      if (sampler_.OverBudget()) {
        r_.budget_hit = true;
        break;
      }
      const std::uint64_t k = b.pending           ? *b.pending
                              : !b.verify.empty() ? b.verify.back()
                                                  : b.lo + (b.hi - b.lo) / 2;
      if (const AdaptiveProbe* known = sampler_.Find(k);
          known != nullptr && !sampler_.MayReadAgain()) {
        KeepRead(b, k, *known);
        continue;
      }
      if (finished_ + 1 == open_.size()) sampler_.Divert(k, slots_);
      const AdaptiveProbe* p = sampler_.ReadMore(k);
      const std::optional<Sampler::Change> change = sampler_.TakeChange();
      const bool undone = change && UndoMoves(*change, b);
      if (p == nullptr) {
        if (!b.done) {
          b.done = true;  // unreadable there: the edge keeps its width
          ++finished_;
        }
        continue;
      }
      sampler_.Report(AdaptiveProgress::Phase::kRefine, finished_, open_.size());
      if (undone) continue;
      if (Unsettled(k, *p, b) && p->reads < std::max<std::uint32_t>(1, options_.max_reads) &&
          sampler_.MayReadAgain()) {
        b.pending = k;
        continue;
      }
      b.pending.reset();
      Move(b, k, *p);
      if (b.hi - b.lo <= 1 && b.verify.empty()) Converged(b);
    }
  }
}

// Bisected, then each edge placed again where all its probes, each read
// divided by the drift the reference showed around it (known only now for
// the last ones), disagree least (Settle): an edge whose probes either side
// are no longer neighbours is bisected again between them (a bisection
// that followed reads of a slow period, or a burst), at most kSettlePasses
// times.
void AdaptiveRun::BisectAndSettle() {
  for (std::uint32_t pass = 0;; ++pass) {
    Bisect();
    sampler_.CloseReference();
    const double reframed = sampler_.Reframe();
    bool again = false;
    for (Bracket& b : open_) {
      b.left *= reframed;
      b.right *= reframed;
      std::uint64_t lo = b.lo, hi = b.hi;
      Settle(sampler_.ReadIn(b.lo0, b.hi0), b.left, b.right, FarOff(b), lo, hi);
      if (pass < kSettlePasses && hi > lo + 1 && b.done && sampler_.Going() && !r_.budget_hit &&
          sampler_.MayReadAgain()) {
        b.lo = lo;
        b.hi = hi;
        b.done = false;
        b.pending.reset();
        b.verify.clear();
        b.checks = 0;
        b.moves.clear();
        --finished_;
        again = true;
      }
    }
    if (!again) break;
  }
}

// Each bracket's edge, settled, midway between the probes either side
// (neighbouring slots, unless Settle moved it), within half their gap and
// a probe (the probe that straddles it joined the closer side); and every
// probe read.
void AdaptiveRun::Edges() {
  for (Bracket& b : open_) {
    Settle(sampler_.ReadIn(b.lo0, b.hi0), b.left, b.right, FarOff(b), b.lo, b.hi);
    if (b.hi <= b.lo) b.hi = b.lo + 1;
    AdaptiveEdge e;
    e.at_bytes = r_.start_bytes + (b.lo + 1 + (b.hi - b.lo - 1) / 2) * probe_;
    e.uncertainty_bytes = (b.hi - b.lo - 1) * probe_ / 2 + probe_;
    e.left_mb_per_s = b.left;
    e.right_mb_per_s = b.right;
    r_.edges.push_back(e);
  }
  std::sort(r_.edges.begin(), r_.edges.end(),
            [](const AdaptiveEdge& a, const AdaptiveEdge& b) { return a.at_bytes < b.at_bytes; });
  r_.probes = sampler_.Probes();
}

double AdaptiveRun::MedianIn(std::uint64_t from, std::uint64_t to, std::uint32_t& inside) const {
  std::vector<double> rates;
  for (const AdaptiveProbe& p : r_.probes) {
    if (p.offset_bytes >= from && p.offset_bytes + p.length_bytes <= to) {
      rates.push_back(p.mb_per_s);
    }
  }
  inside = static_cast<std::uint32_t>(rates.size());
  return rates.empty() ? 0.0 : MedianInPlace(rates);
}

// The zones between the edges: the median of the probes wholly inside. An
// edge whose two sides, once bisected, read within kSameLevelSigmas of the
// noise of each other, or with fewer than kMinZoneProbes probes on a side,
// was a grid probe read off its level, not a step: it is dropped (its
// zones merge), one at a time, the thinnest side first, then the closest
// levels.
void AdaptiveRun::Zones() {
  const std::uint64_t start = r_.start_bytes;
  while (!r_.edges.empty()) {
    std::size_t weakest = r_.edges.size();
    double weakest_log = kSameLevelSigmas * r_.noise_rel;
    for (std::size_t i = 0; i < r_.edges.size(); ++i) {
      const std::uint64_t from = i == 0 ? start : r_.edges[i - 1].at_bytes;
      const std::uint64_t to = i + 1 < r_.edges.size() ? r_.edges[i + 1].at_bytes : end_;
      std::uint32_t nl = 0, nr = 0;
      const double left = MedianIn(from, r_.edges[i].at_bytes, nl);
      const double right = MedianIn(r_.edges[i].at_bytes, to, nr);
      if (nl == 0 || nr == 0) continue;
      // A side of fewer than kMinZoneProbes probes is no zone (the grid's
      // spacing is below the narrowest zone, and a bisection adds probes on
      // both sides of a real edge): probes read off their level. Dropped
      // before any level difference.
      const double d = std::min(nl, nr) < kMinZoneProbes ? -1.0 : std::abs(std::log(left / right));
      if (d < weakest_log) {
        weakest_log = d;
        weakest = i;
      }
    }
    if (weakest == r_.edges.size()) break;
    r_.edges.erase(r_.edges.begin() + static_cast<std::ptrdiff_t>(weakest));
  }
  std::vector<std::uint64_t> bounds{start};
  for (const AdaptiveEdge& e : r_.edges) bounds.push_back(e.at_bytes);
  bounds.push_back(end_);
  for (std::size_t z = 0; z + 1 < bounds.size(); ++z) {
    AdaptiveZone zone;
    zone.start_bytes = bounds[z];
    zone.end_bytes = bounds[z + 1];
    zone.mb_per_s = MedianIn(zone.start_bytes, zone.end_bytes, zone.probes);
    if (zone.probes == 0) {
      // No probe inside: the level of the edge beside it (none: nothing read).
      zone.mb_per_s = z < r_.edges.size() ? r_.edges[z].left_mb_per_s
                      : r_.edges.empty()  ? 0
                                          : r_.edges.back().right_mb_per_s;
    }
    r_.zones.push_back(zone);
  }
}

}  // namespace

AdaptiveResult SampleAdaptively(Device& device, Clock& clock, const AdaptiveOptions& options,
                                const AdaptiveStepFinder& find_steps,
                                const std::atomic<bool>* stop) {
  const DeviceInfo& info = device.info();
  const std::uint64_t sector = info.sector_bytes;
  const std::uint64_t end = options.end_bytes.value_or(info.size_bytes);
  const std::uint64_t start = RoundUp(options.start_bytes, sector);
  if (options.probe_bytes < 2 * sector) {
    throw Error("adaptive probe of " + std::to_string(options.probe_bytes) +
                    " bytes: at least two sectors (" + std::to_string(2 * sector) + " bytes)",
                ErrorKind::kBadInput);
  }
  if (options.grid_probes < 3) {
    throw Error("adaptive grid of " + std::to_string(options.grid_probes) + " probes: at least 3",
                ErrorKind::kBadInput);
  }
  const std::uint64_t chunk = AdaptiveChunk(options.probe_bytes, options.chunk_bytes, sector);
  const std::uint64_t probe = AdaptiveProbeBytes(options.probe_bytes, options.chunk_bytes, sector);
  if (end > info.size_bytes || end <= start || (end - start) / probe < 3) {
    throw Error("adaptive sampling needs a range of at least three probes of " +
                    std::to_string(probe) + " bytes",
                ErrorKind::kBadInput);
  }
  AdaptiveResult r;
  r.start_bytes = start;
  r.range_bytes = end - start;
  r.probe_bytes = probe;
  AdaptiveRun run(device, clock, options, find_steps, stop, r, end, probe, chunk);
  run.ReadGrid();
  run.ResolveGridSuspects();
  run.FindSteps();
  run.ReadNoisyGridAgain();
  run.ReadSpikesAgain();
  run.OpenBrackets();
  run.BisectAndSettle();
  run.Edges();
  run.Zones();
  return r;
}

namespace {

// The probes' timed reading: one pass of them.
PassSummary ProbePass(const std::vector<AdaptiveProbe>& probes, std::uint64_t chunk_bytes) {
  PassSummary pass;
  pass.complete = true;
  double seconds = 0;
  for (const AdaptiveProbe& p : probes) {
    const std::uint64_t timed = p.length_bytes - std::min(p.length_bytes, chunk_bytes);
    pass.bytes += timed * p.reads;
    seconds += static_cast<double>(timed * p.reads) / (p.mb_per_s * 1e6);
  }
  pass.read_time = std::chrono::nanoseconds(static_cast<std::int64_t>(seconds * 1e9));
  pass.mb_per_s = MbPerS(pass.bytes, pass.read_time);
  return pass;
}

}  // namespace

SweepResult RunAdaptiveSweep(Device& device, const RunInfo& run, Clock& clock,
                             const AdaptiveOptions& options, const AdaptiveStepFinder& find_steps,
                             SampleSink& sink, const std::atomic<bool>* stop) {
  const auto wall_start = clock.Now();
  const auto cpu_start = clock.ProcessCpuTime();
  // The probes read as the sweep would read its blocks: its chunk and depth.
  AdaptiveOptions as_planned = options;
  as_planned.queue_depth = std::max<std::uint32_t>(1, run.plan.queue_depth);
  // (The share of the device's page-cache file cached as the probes begin
  // and end: Device::CachedShare.)
  const std::optional<double> cached_at_start = device.CachedShare();
  AdaptiveResult r = SampleAdaptively(device, clock, as_planned, find_steps, stop);
  sink.OnStart(run);
  SweepResult out;
  for (std::size_t i = 0; i < r.probes.size(); ++i) {
    const AdaptiveProbe& p = r.probes[i];
    BlockResult b;
    b.index = i;
    b.offset_bytes = p.offset_bytes;
    b.length_bytes = p.length_bytes;
    b.passes = p.reads;
    b.mb_per_s = b.mean_mb_per_s = b.min_mb_per_s = b.max_mb_per_s = p.mb_per_s;
    b.seconds = static_cast<double>(p.length_bytes) / (p.mb_per_s * 1e6);
    sink.OnBlock(b);
    out.min_mb_per_s = i == 0 ? p.mb_per_s : std::min(out.min_mb_per_s, p.mb_per_s);
    out.max_mb_per_s = std::max(out.max_mb_per_s, p.mb_per_s);
  }
  for (const UnreadableRange& u : r.unreadable) sink.OnUnreadable(u);
  PassSummary pass = ProbePass(r.probes, run.plan.chunk_bytes);
  pass.cached_share = cached_at_start;
  sink.OnPassDone(pass);
  out.passes.push_back(pass);
  out.blocks_measured = r.probes.size();
  out.bytes_read = pass.bytes;
  out.read_time = pass.read_time;
  out.avg_mb_per_s = pass.mb_per_s;
  out.unreadable = r.unreadable;
  if (r.error) {
    out.status = SweepStatus::kDeviceGone;
    out.error = r.error;
    out.error_offset_bytes = r.error_offset_bytes;
  } else if (r.interrupted) {
    out.status = SweepStatus::kInterrupted;
  }
  out.cached_share_at_end = device.CachedShare();
  r.probes.clear();
  sink.OnAdaptive(r);
  const auto wall = clock.Now() - wall_start;
  out.wall_seconds = static_cast<double>(wall.count()) * 1e-9;
  out.cpu_percent = CpuPercent(clock.ProcessCpuTime() - cpu_start, wall);
  sink.OnFinish(out);
  return out;
}

std::uint64_t AdaptiveChunk(std::uint64_t probe_bytes, std::uint64_t chunk_bytes,
                            std::uint64_t sector_bytes) {
  const std::uint64_t sector = std::max<std::uint64_t>(1, sector_bytes);
  return std::max(sector, std::min(chunk_bytes, probe_bytes / 2) / sector * sector);
}

std::uint64_t AdaptiveProbeBytes(std::uint64_t probe_bytes, std::uint64_t chunk_bytes,
                                 std::uint64_t sector_bytes) {
  const std::uint64_t chunk = AdaptiveChunk(probe_bytes, chunk_bytes, sector_bytes);
  return RoundUp(std::max(probe_bytes, 2 * std::max<std::uint64_t>(1, sector_bytes)), chunk);
}

AdaptiveOptions PlanAdaptive(const AdaptiveRequest& q) {
  constexpr std::uint64_t kMinProbe = kMiB;
  constexpr std::uint64_t kGridShare = 32;  // the grid reads at most 1/32 of the range
  constexpr std::uint64_t kMinGrid = 20;
  const std::uint64_t range = q.end_bytes > q.start_bytes ? q.end_bytes - q.start_bytes : 0;
  const std::uint64_t max_chunk = q.max_chunk_bytes > 0 ? q.max_chunk_bytes : kMiB;
  std::uint64_t probe = q.probe_bytes;
  std::uint64_t chunk = q.chunk_bytes;
  std::uint64_t grid = q.grid_probes;
  if (probe == 0) {
    const std::uint64_t target = q.expected_mb_per_s > 0
                                     ? static_cast<std::uint64_t>(q.expected_mb_per_s * 1e6 * 0.1)
                                     : 64 * kMiB;
    const std::uint64_t cap = range / (std::uint64_t{kDefaultGridProbes} * kGridShare);
    probe = std::max(std::min(target, cap), kMinProbe);
  }
  if (chunk == 0) chunk = std::min(max_chunk, probe / 4);
  probe = AdaptiveProbeBytes(probe, chunk, q.sector_bytes);
  if (grid == 0) {
    grid = std::clamp<std::uint64_t>(range / (probe * kGridShare),
                                     std::min<std::uint64_t>(kMinGrid, range / probe),
                                     kDefaultGridProbes);
  }
  const auto budget = static_cast<std::uint64_t>(q.budget_share * static_cast<double>(range));
  if (budget > 0 && q.probe_bytes == 0 && probe * grid > budget / 2) {
    probe = std::max<std::uint64_t>(kMinProbe, budget / 2 / grid);
    if (q.chunk_bytes == 0) chunk = std::min(chunk, probe / 4);
    probe = AdaptiveProbeBytes(probe, chunk, q.sector_bytes);
    if (q.grid_probes == 0 && probe * grid > budget / 2) {
      grid = std::max<std::uint64_t>(kMinGrid, budget / 2 / probe);
    }
  }
  AdaptiveOptions a;
  a.chunk_bytes = AdaptiveChunk(probe, chunk, q.sector_bytes);
  a.probe_bytes = probe;
  a.grid_probes = static_cast<std::uint32_t>(grid);
  a.start_bytes = q.start_bytes;
  a.end_bytes = q.end_bytes;
  a.byte_budget = budget;
  a.time_budget = q.budget_time;
  return a;
}

}  // namespace zcav
