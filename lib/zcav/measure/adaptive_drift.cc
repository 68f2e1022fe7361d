// The adaptive sampler's drift reference (adaptive_internal.h
// DriftReference): one probe read again and again, its noise, the reads of
// it that give the drift, and the drift at any moment from them.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include "zcav/base/stats.h"
#include "zcav/measure/adaptive_internal.h"

namespace zcav::adaptive {
namespace {

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

}  // namespace

DriftReference::DriftReference(ProbeReader& reader, const AdaptiveOptions& options,
                               AdaptiveResult& result)
    : reader_(reader), options_(options), result_(result) {}

void DriftReference::SetReference(std::uint64_t k) {
  if (options_.reference_every == 0) return;
  reference_ = k;
  since_reference_ = options_.reference_every;
}

std::optional<SuspectReads> DriftReference::ReadDue(std::uint64_t seq) {
  if (references_.empty()) ReadReference(seq);
  if (!reference_) return std::nullopt;
  ReadReference(seq);
  const std::size_t n = references_.size();
  if (!reference_ || !newest_unsure_ || n < 3 ||
      !(std::abs(std::log(references_[n - 1].mb_per_s / references_[n - 2].mb_per_s)) >
        kMinChange)) {
    return std::nullopt;
  }
  const std::uint64_t before = references_[n - 2].seq;
  const std::uint64_t read_before = result_.bytes_read;
  ReadReference(seq);
  result_.reread_bytes += result_.bytes_read - read_before;
  // (Drifts either side the same, both within the dead zone: no change.
  // Before kMinReferences reads there is no drift yet, and no dead zone.)
  if (references_.size() == n + 1 && !newest_unsure_ && kept_[n - 1] &&
      (n + 1 < kMinReferences ||
       DriftOf(references_[n - 2].mb_per_s) != DriftOf(references_[n].mb_per_s))) {
    change_ = Change{.after_seq = before,
                     .before = DriftOf(references_[n - 2].mb_per_s),
                     .after = DriftOf(references_[n].mb_per_s)};
    return SuspectReads{.after_seq = before,
                        .before_mb_per_s = references_[n - 2].mb_per_s,
                        .after_mb_per_s = references_[n].mb_per_s};
  }
  return std::nullopt;
}

void DriftReference::Close(std::uint64_t seq) {
  if (reference_ && since_reference_ > 0 && reader_.Going()) ReadReference(seq);
}

void DriftReference::FixFrame() {
  if (!frame_log_ && references_.size() >= kMinReferences) frame_log_ = median_log_;
}

double DriftReference::ReleaseFrame() {
  const double before = frame_log_.value_or(median_log_);
  frame_log_.reset();
  return before;
}

void DriftReference::ReadReference(std::uint64_t seq) {
  since_reference_ = 0;
  const std::optional<Timed> read = reader_.ReadOnce(*reference_, false);
  if (!read) {
    reference_.reset();
    return;
  }
  if (!(read->mb_per_s > 0)) return;
  references_.push_back(*read);
  references_.back().seq = seq;
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

double DriftReference::Drift(std::chrono::nanoseconds at) const {
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

double DriftReference::DriftOfLog(double reference_log) const {
  const double drift_log = reference_log - frame_log_.value_or(median_log_);
  if (references_.size() < kMinReferences ||
      !(std::abs(drift_log) > std::max(kDriftSigmas * reference_noise_, kMinChange))) {
    return 1;
  }
  return std::exp(drift_log);
}

}  // namespace zcav::adaptive
