// The adaptive sampler's probe bookkeeping (adaptive_internal.h ProbeBook):
// the probes known so far, each one's reads (as timed and divided by their
// drift), and its rate from the reads that agree (AgreedRate).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "zcav/measure/adaptive_internal.h"

namespace zcav::adaptive {
namespace {

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

}  // namespace

bool ProbeBook::Prepare(std::uint64_t k, std::uint64_t offset_bytes, std::uint64_t length_bytes) {
  Slot& slot = slots_[k];
  AdaptiveProbe& p = slot.probe;
  p.offset_bytes = offset_bytes;
  p.length_bytes = length_bytes;
  return !slot.reads.empty();
}

const AdaptiveProbe* ProbeBook::Add(std::uint64_t k, Timed read) {
  Slot& slot = slots_.at(k);
  AdaptiveProbe& p = slot.probe;
  read.seq = ++seq_;
  slot.reads.push_back(read);
  slot.rates.push_back(read.mb_per_s / drift_.Drift(read.at));
  p.reads = static_cast<std::uint32_t>(slot.rates.size());
  p.mb_per_s = Agreed(slot);
  return &p;
}

void ProbeBook::MarkSuspect(const SuspectReads& s) {
  for (auto& [k, slot] : slots_) {
    for (Timed& t : slot.reads) {
      if (t.seq > s.after_seq && !t.suspect) {
        t.suspect = true;
        t.before = s.before_mb_per_s;
        t.after = s.after_mb_per_s;
      }
    }
  }
}

std::optional<std::pair<double, double>> ProbeBook::Unresolved(std::uint64_t k) const {
  const Slot& slot = slots_.at(k);
  if (slot.reads.size() != 1 || !slot.reads[0].suspect || slot.reads[0].resolved) {
    return std::nullopt;
  }
  const Timed& t = slot.reads[0];
  return std::pair{t.mb_per_s / drift_.DriftOf(t.before), t.mb_per_s / drift_.DriftOf(t.after)};
}

void ProbeBook::Resolve(std::uint64_t k, bool before) {
  Slot& slot = slots_.at(k);
  Timed& t = slot.reads[0];
  t.resolved = before ? t.before : t.after;
  t.suspect = false;
  slot.rates[0] = t.mb_per_s / drift_.DriftOf(*t.resolved);
  slot.probe.mb_per_s = Agreed(slot);
}

double ProbeBook::Redrift() {
  double largest_drift = 1;
  for (auto& [k, slot] : slots_) {
    if (slot.reads.empty()) continue;
    for (std::size_t i = 0; i < slot.reads.size(); ++i) {
      const Timed& t = slot.reads[i];
      const double drift = t.resolved ? drift_.DriftOf(*t.resolved) : drift_.Drift(t.at);
      slot.rates[i] = slot.reads[i].mb_per_s / drift;
      if (std::abs(std::log(drift)) > std::abs(std::log(largest_drift))) {
        largest_drift = drift;
      }
    }
    slot.probe.mb_per_s = Agreed(slot);
  }
  return largest_drift;
}

void ProbeBook::SetAgreement(double log_window) {
  agree_log_ = log_window;
  for (auto& [k, slot] : slots_) {
    if (!slot.rates.empty()) slot.probe.mb_per_s = Agreed(slot);
  }
}

std::vector<double> ProbeBook::Reads(std::uint64_t k) const {
  const Slot& slot = slots_.at(k);
  std::vector<double> out;
  for (std::size_t i = 0; i < slot.rates.size(); ++i) {
    if (!slot.reads[i].suspect || AllSuspect(slot)) out.push_back(slot.rates[i]);
  }
  return out;
}

const AdaptiveProbe* ProbeBook::Find(std::uint64_t k) const {
  const auto it = slots_.find(k);
  return it == slots_.end() || it->second.probe.mb_per_s <= 0 ? nullptr : &it->second.probe;
}

std::vector<std::pair<std::uint64_t, double>> ProbeBook::ReadIn(std::uint64_t lo,
                                                                std::uint64_t hi) const {
  std::vector<std::pair<std::uint64_t, double>> out;
  for (auto it = slots_.lower_bound(lo); it != slots_.end() && it->first <= hi; ++it) {
    if (it->second.probe.mb_per_s > 0) out.emplace_back(it->first, it->second.probe.mb_per_s);
  }
  return out;
}

std::vector<AdaptiveProbe> ProbeBook::Probes() const {
  std::vector<AdaptiveProbe> out;
  for (const auto& [k, slot] : slots_) {
    if (slot.probe.mb_per_s > 0) out.push_back(slot.probe);
  }
  return out;
}

bool ProbeBook::AllSuspect(const Slot& slot) {
  return std::all_of(slot.reads.begin(), slot.reads.end(),
                     [](const Timed& t) { return t.suspect; });
}

double ProbeBook::Agreed(const Slot& slot) {
  sorted_.clear();
  const bool all_suspect = AllSuspect(slot);
  for (std::size_t i = 0; i < slot.rates.size(); ++i) {
    if (!slot.reads[i].suspect || all_suspect) sorted_.push_back(slot.rates[i]);
  }
  return AgreedRate(sorted_, agree_log_);
}

}  // namespace zcav::adaptive
