// WriteUndoLog: see write_undo.h.
#include "zcav/measure/write_undo.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <span>
#include <utility>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/units.h"
#include "zcav/measure/read_checks.h"

namespace zcav {
namespace {

// Reads and writes go through an aligned buffer of at most this size.
constexpr std::uint64_t kIoBytes = 1 << 20;

// The parts of [start, end) that `covered` does not hold, in order.
std::vector<std::pair<std::uint64_t, std::uint64_t>> Uncovered(
    const std::map<std::uint64_t, std::uint64_t>& covered, std::uint64_t start, std::uint64_t end) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> gaps;
  auto it = covered.upper_bound(start);
  if (it != covered.begin() && std::prev(it)->second > start) --it;
  std::uint64_t at = start;
  for (; it != covered.end() && it->first < end; ++it) {
    if (it->first > at) gaps.emplace_back(at, it->first);
    at = std::max(at, it->second);
  }
  if (at < end) gaps.emplace_back(at, end);
  return gaps;
}

// Adds [start, end) to `covered`, merging with its neighbours.
void Cover(std::map<std::uint64_t, std::uint64_t>& covered, std::uint64_t start,
           std::uint64_t end) {
  auto it = covered.lower_bound(start);
  if (it != covered.begin() && std::prev(it)->second >= start) {
    --it;
    start = it->first;
  }
  while (it != covered.end() && it->first <= end) {
    end = std::max(end, it->second);
    it = covered.erase(it);
  }
  covered.emplace(start, end);
}

}  // namespace

std::error_code WriteUndoLog::Save(Device& device, std::uint64_t offset_bytes,
                                   std::uint64_t bytes) {
  const std::uint32_t sector = device.info().sector_bytes;
  AlignedBuffer buffer(std::min(bytes, kIoBytes), DirectIoAlignment(sector));
  for (const auto& [start, end] : Uncovered(covered_, offset_bytes, offset_bytes + bytes)) {
    if (saved_bytes_ + (end - start) > limit_bytes_) {
      return std::make_error_code(std::errc::not_enough_memory);
    }
    Saved s{start, std::vector<std::byte>(end - start)};
    for (std::uint64_t at = start; at < end; at += kIoBytes) {
      const std::uint64_t n = std::min(kIoBytes, end - at);
      const std::span<std::byte> b = buffer.span(n);
      // A device never written may leave the buffer as it is: zeros then.
      std::memset(b.data(), 0, n);
      if (const std::error_code ec = device.ReadAt(at, b)) return ec;
      std::memcpy(s.data.data() + (at - start), b.data(), n);
    }
    saved_bytes_ += end - start;
    saved_.push_back(std::move(s));
    Cover(covered_, start, end);
  }
  return {};
}

WriteUndoLog::RestoreReport WriteUndoLog::Restore(Device& device) {
  RestoreReport report;
  AlignedBuffer buffer(kIoBytes, DirectIoAlignment(device.info().sector_bytes));
  bool gone = false;
  for (auto it = saved_.rbegin(); it != saved_.rend() && !gone; ++it) {
    const std::uint64_t end = it->offset_bytes + it->data.size();
    for (std::uint64_t at = it->offset_bytes; at < end && !gone; at += kIoBytes) {
      const std::uint64_t n = std::min(kIoBytes, end - at);
      const std::span<std::byte> b = buffer.span(n);
      std::memcpy(b.data(), it->data.data() + (at - it->offset_bytes), n);
      const std::error_code ec = device.WriteAt(at, b);
      if (!ec) {
        report.restored_bytes += n;
        continue;
      }
      report.failures.push_back("writing back " + ExactBinarySize(n) + " at " + FormatBytes(at) +
                                " failed: " + ec.message());
      gone = IsDeviceGone(ec);
    }
  }
  if (gone) {
    report.failures.push_back(
        "the device is gone: " + ExactBinarySize(saved_bytes_ - report.restored_bytes) +
        " of saved data not written back");
  }
  saved_.clear();
  covered_.clear();
  saved_bytes_ = 0;
  return report;
}

}  // namespace zcav
