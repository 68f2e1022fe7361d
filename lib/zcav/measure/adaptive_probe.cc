// The adaptive sampler's probe I/O (adaptive_internal.h ProbeReader): a
// probe read in chunks through the device's read queue and timed, the
// untimed reads around the probes, and the bounds on reading.
#include <algorithm>
#include <chrono>
#include <optional>
#include <system_error>

#include "zcav/base/units.h"
#include "zcav/measure/adaptive_internal.h"
#include "zcav/measure/read_checks.h"

namespace zcav::adaptive {

ProbeReader::ProbeReader(Device& device, Clock& clock, const AdaptiveOptions& options,
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

bool ProbeReader::Going() {
  if (StopRequested(stop_)) result_.interrupted = true;
  return !result_.error && !result_.interrupted;
}

bool ProbeReader::OverBudget() const {
  return (options_.byte_budget != 0 && result_.bytes_read >= options_.byte_budget) ||
         (options_.time_budget.count() > 0 && clock_.Now() - began_ >= options_.time_budget);
}

bool ProbeReader::MayReadAgain() {
  const std::uint64_t first = result_.bytes_read - result_.reread_bytes;
  if (static_cast<double>(result_.reread_bytes) <
      options_.max_reread_share * static_cast<double>(first)) {
    return true;
  }
  result_.reread_capped = true;
  return false;
}

std::optional<Timed> ProbeReader::ReadOnce(std::uint64_t k, bool record) {
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

void ProbeReader::Divert(std::uint64_t k, std::uint64_t slots) {
  const std::uint64_t far = k < slots / 2 ? slots - 1 : 0;
  const std::uint64_t offset = start_ + far * probe_ + probe_ - chunk_;
  if (const std::error_code ec = Read(offset, offset + chunk_); IsDeviceGone(ec)) {
    if (!result_.error) result_.error = ec;
  }
}

void ProbeReader::WarmUp(std::uint64_t k) {
  const std::uint64_t offset = start_ + k * probe_;
  if (const std::error_code ec = Read(offset, offset + probe_); IsDeviceGone(ec)) {
    if (!result_.error) result_.error = ec;
  }
}

void ProbeReader::Report(AdaptiveProgress::Phase phase, std::size_t done, std::size_t total) const {
  if (options_.progress) options_.progress({phase, done, total, result_.bytes_read});
}

std::error_code ProbeReader::Read(std::uint64_t from, std::uint64_t to) {
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

}  // namespace zcav::adaptive
