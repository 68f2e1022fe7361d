// RequestTimeline: see request_timeline.h.
//
// The bytes transferred by time t on the time line, B(t), are piecewise
// linear (each entry's bytes spread evenly over its duration), so the bytes
// inside the window [t, t + W), B(t + W) - B(t), are piecewise linear in t
// and lowest where t or t + W is an entry's edge. Both kinds are evaluated
// as soon as the time line reaches them: the window that begins at an
// entry's start once the line is W past it (its end then lies in the newest
// entry), and the window that ends at the line's end after every Add (its
// start found by a pointer that only moves forward). An entry is dropped
// once no window that is still to come can begin in it.
#include "zcav/measure/request_timeline.h"

#include <algorithm>
#include <cassert>

#include "zcav/base/units.h"

namespace zcav {

namespace {

// The ring's first size (entries); it doubles when a window holds more.
constexpr std::size_t kFirstRingEntries = 256;
// A window that begins inside a request is placed at the bytes done by
// then, rounded down to this (the smallest sector).
constexpr std::uint64_t kPositionBytes = 512;

bool Lower(const LowestWindow& a, const std::optional<LowestWindow>& b) {
  return !b || a.mb_per_s < b->mb_per_s;
}

}  // namespace

std::optional<LowestWindow> RequestSummary::LowestFrom(std::size_t first) const {
  std::optional<LowestWindow> lowest;
  for (std::size_t i = first; i < parts.size(); ++i) {
    if (parts[i].lowest && Lower(*parts[i].lowest, lowest)) lowest = parts[i].lowest;
  }
  return lowest;
}

std::size_t RequestSummary::FirstPartFrom(std::uint64_t offset_bytes) const {
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].pass != parts.front().pass || parts[i].first_offset_bytes >= offset_bytes) {
      return i;
    }
  }
  return parts.size();
}

std::chrono::nanoseconds RequestSummary::TimeFrom(std::size_t first) const {
  return first < parts.size() ? time - parts[first].begins_at : std::chrono::nanoseconds{0};
}

RequestTimeline::RequestTimeline(std::chrono::nanoseconds window)
    : window_(window.count()),
      merge_below_(window.count() / kWindowResolution),
      mb_per_s_per_byte_(1 / (kMB * static_cast<double>(window.count()) * 1e-9)) {
  assert(window_ > 0);
  summary_.window = window;
  ring_.resize(kFirstRingEntries);
}

void RequestTimeline::StartPart() {
  if (!summary_.parts.empty()) part_pending_ = true;
}

void RequestTimeline::Add(const TimedRequest& r, std::chrono::nanoseconds stall) {
  RequestSummary& s = summary_;
  const std::int64_t d = std::max<std::int64_t>(1, r.duration.count());
  if (!s.worst_stall || stall > s.worst_stall->duration) {
    s.worst_stall = WorstStall{r.offset_bytes, r.length_bytes, r.pass, r.started_at, stall};
  }
  const bool new_part = s.parts.empty() || part_pending_;
  if (new_part) {
    s.parts.push_back({r.offset_bytes, r.pass, std::chrono::nanoseconds{now_}, std::nullopt});
    part_pending_ = false;
  }
  Entry* last = tail_ > head_ ? &At(tail_ - 1) : nullptr;
  if (!new_part && last != nullptr && last->d + d <= merge_below_ && last->pass == r.pass &&
      last->offset_bytes + last->bytes == r.offset_bytes) {
    last->d += d;
    last->bytes += r.length_bytes;
    last->bytes_per_ns = static_cast<double>(last->bytes) / static_cast<double>(last->d);
  } else {
    Push({now_, d, s.bytes, r.length_bytes, r.offset_bytes, r.started_at.count(), r.pass,
          static_cast<std::uint32_t>(s.parts.size() - 1),
          static_cast<double>(r.length_bytes) / static_cast<double>(d)});
  }
  now_ += d;
  s.bytes += r.length_bytes;
  s.time = std::chrono::nanoseconds{now_};
  ++s.requests;
  EvaluateWindows();
}

void RequestTimeline::Push(const Entry& e) {
  if (tail_ - head_ == ring_.size()) {
    std::vector<Entry> grown(ring_.size() * 2);
    for (std::uint64_t i = head_; i < tail_; ++i) grown[i & (grown.size() - 1)] = At(i);
    ring_.swap(grown);
  }
  At(tail_++) = e;
}

void RequestTimeline::Offer(const Entry& at, std::int64_t into, double bytes) {
  bytes = std::max(0.0, bytes);
  const double mb_per_s = bytes * mb_per_s_per_byte_;
  std::optional<LowestWindow>& lowest = summary_.parts[at.part].lowest;
  if (lowest && !(mb_per_s < lowest->mb_per_s)) return;  // the first of equals stays
  const auto done = static_cast<std::uint64_t>(at.bytes_per_ns * static_cast<double>(into));
  lowest = LowestWindow{mb_per_s, static_cast<std::uint64_t>(bytes + 0.5),
                        at.offset_bytes + done / kPositionBytes * kPositionBytes, at.pass,
                        std::chrono::nanoseconds{at.started_at + into}};
}

void RequestTimeline::EvaluateWindows() {
  const Entry& newest = At(tail_ - 1);
  // Windows that begin where an entry begins and end inside the newest one
  // (each window's end passed the previous end of the line, so it lies there).
  while (starts_ < tail_) {
    const Entry& first = At(starts_);
    const std::int64_t end = first.t0 + window_;
    if (end > now_) break;
    const double into_newest = newest.bytes_per_ns * static_cast<double>(end - newest.t0);
    Offer(first, 0, static_cast<double>(newest.bytes_before - first.bytes_before) + into_newest);
    ++starts_;
  }
  // The window that ends where the line ends.
  const std::int64_t start = now_ - window_;
  if (start >= 0) {
    while (At(ends_).t0 + At(ends_).d <= start) ++ends_;
    const Entry& at = At(ends_);
    const std::int64_t into = start - at.t0;
    const double done_before = at.bytes_per_ns * static_cast<double>(into);
    Offer(at, into, static_cast<double>(summary_.bytes - at.bytes_before) - done_before);
  }
  head_ = std::max(head_, std::min(starts_, ends_));
}

RequestSummary SummarizeRequests(std::span<const TimedRequest> requests,
                                 std::chrono::nanoseconds window) {
  RequestTimeline timeline(window);
  for (const TimedRequest& r : requests) timeline.Add(r);
  return timeline.Summary();
}

}  // namespace zcav
