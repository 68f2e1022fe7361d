// SimStorage and the fake keys: see sim_storage.h.
#include "zcav/device/sim_storage.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>
#include <optional>
#include <sstream>

#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/write_stamp.h"

namespace zcav {
namespace {

constexpr std::size_t kPageBytes = 4096;
// dedup: how many distinct pages the controller remembers (4 GiB of them).
constexpr std::size_t kMaxPages = std::size_t{1} << 20;

std::uint64_t Mix(std::uint64_t z) {  // splitmix64's finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A cheap 64-bit hash of a page: its 8-byte words folded one after the other.
std::uint64_t HashPage(std::span<const std::byte> page) {
  std::uint64_t h = page.size();
  std::size_t at = 0;
  for (; at + 8 <= page.size(); at += 8) {
    std::uint64_t w;
    std::memcpy(&w, page.data() + at, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
  }
  for (; at < page.size(); ++at) h = (h ^ static_cast<std::uint64_t>(page[at])) * 0x100000001b3ULL;
  return Mix(h);
}

// Garbage: what a lost range or foreign data reads back as, the same bytes
// for the same physical offset every time.
void FillGarbage(std::span<std::byte> buffer, std::uint64_t at) {
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    const std::uint64_t pos = at + i;
    buffer[i] = static_cast<std::byte>(Mix(pos >> 3 ^ 0x6761726261676521ULL) >> (8 * (pos & 7)));
  }
}

// The stamps of run `run_id` for offsets from source_bytes on, which need
// not start a sector.
void FillStamps(std::span<std::byte> buffer, std::uint64_t source_bytes, std::uint64_t run_id) {
  const std::size_t skew = source_bytes % kStampSectorBytes;
  if (skew != 0) {
    std::array<std::byte, kStampSectorBytes> sector;
    StampWrite(sector, source_bytes - skew, run_id);
    const std::size_t n = std::min(kStampSectorBytes - skew, buffer.size());
    std::memcpy(buffer.data(), sector.data() + skew, n);
    buffer = buffer.subspan(n);
    source_bytes += n;
  }
  if (!buffer.empty()) StampWrite(buffer, source_bytes, run_id);
}

std::span<const std::byte> SectorAt(std::span<const std::byte> data, std::size_t at) {
  return data.subspan(at, std::min(kStampSectorBytes, data.size() - at));
}

bool IsZero(std::span<const std::byte> sector) {
  return std::all_of(sector.begin(), sector.end(), [](std::byte b) { return b == std::byte{0}; });
}

// "START-END[:zero|:garbage]"
SimFakes::Lost ParseLost(const std::string& item) {
  const auto bad = [&] {
    return Error("invalid sim: lose '" + item +
                     "': not START-END[:zero|:garbage] (sizes, e.g. lose=1G-1028M:garbage)",
                 ErrorKind::kBadInput);
  };
  std::string range = item;
  SimFakes::Lost lost;
  const std::size_t colon = item.find(':');
  if (colon != std::string::npos) {
    const std::string how = item.substr(colon + 1);
    if (how != "zero" && how != "garbage") throw bad();
    lost.garbage = how == "garbage";
    range = item.substr(0, colon);
  }
  const std::size_t dash = range.find('-');
  if (dash == std::string::npos) throw bad();
  lost.start_bytes = ParseSize(range.substr(0, dash), "sim: lose start", true);
  lost.end_bytes = ParseSize(range.substr(dash + 1), "sim: lose end");
  if (lost.start_bytes >= lost.end_bytes) throw bad();
  return lost;
}

}  // namespace

bool ApplySimFakeKey(SimFakes& fakes, const std::string& key, const std::string& value) {
  if (key == "real") {
    fakes.real_bytes = RoundDown(ParseSize(value, "sim: real"), kStampSectorBytes);
    if (fakes.real_bytes == 0) {
      throw Error("invalid sim: real '" + value + "': below one sector", ErrorKind::kBadInput);
    }
  } else if (key == "fake") {
    if (value != "wrap" && value != "drop") {
      throw Error("invalid sim: fake '" + value + "' (choose wrap or drop)", ErrorKind::kBadInput);
    }
    fakes.beyond = value == "wrap" ? SimFakes::Beyond::kWrap : SimFakes::Beyond::kDrop;
  } else if (key == "lose") {
    std::stringstream ss(value);
    std::string item;
    while (std::getline(ss, item, ',')) fakes.lost.push_back(ParseLost(item));
    if (fakes.lost.empty()) throw Error("invalid sim: lose: empty", ErrorKind::kBadInput);
  } else if (key == "dedup") {
    if (value != "on" && value != "off" && value != "1" && value != "0") {
      throw Error("invalid sim: dedup '" + value + "' (choose on or off)", ErrorKind::kBadInput);
    }
    fakes.dedup = value == "on" || value == "1";
  } else {
    return false;
  }
  return true;
}

void CheckSimFakes(const SimFakes& fakes, std::uint64_t size_bytes) {
  if (fakes.real_bytes > size_bytes) {
    throw Error("invalid sim: real is above the size the device claims (size=)",
                ErrorKind::kBadInput);
  }
  if (fakes.beyond && fakes.real_bytes == 0) {
    throw Error("invalid sim: fake= without real=SIZE (give the real capacity)",
                ErrorKind::kBadInput);
  }
  for (const SimFakes::Lost& lost : fakes.lost) {
    if (lost.end_bytes > size_bytes) {
      throw Error("invalid sim: lose: a range beyond the device's end", ErrorKind::kBadInput);
    }
  }
}

void SimStorage::Write(std::uint64_t offset_bytes, std::span<const std::byte> data) {
  ever_written_ = true;
  const std::uint64_t real = fakes_.real_bytes;
  std::size_t done = 0;
  while (done < data.size()) {
    const std::uint64_t logical = offset_bytes + done;
    std::uint64_t at = logical;
    std::uint64_t room = data.size() - done;
    if (real > 0) {
      if (logical >= real && fakes_.beyond == SimFakes::Beyond::kDrop) return;
      at = logical % real;
      room = std::min(room, real - at);
    }
    Record(at, data.subspan(done, room));
    Lose(at, at + room);
    done += room;
  }
}

void SimStorage::Read(std::uint64_t offset_bytes, std::span<std::byte> buffer) const {
  if (!ever_written_) return;
  const std::uint64_t real = fakes_.real_bytes;
  std::size_t done = 0;
  while (done < buffer.size()) {
    const std::uint64_t logical = offset_bytes + done;
    std::uint64_t at = logical;
    std::uint64_t room = buffer.size() - done;
    if (real > 0) {
      if (logical >= real && fakes_.beyond == SimFakes::Beyond::kDrop) {
        std::fill(buffer.begin() + done, buffer.end(), std::byte{0});
        return;
      }
      at = logical % real;
      room = std::min(room, real - at);
    }
    ReadPhysical(at, buffer.subspan(done, room));
    done += room;
  }
}

void SimStorage::Clear() {
  extents_.clear();
  pages_.clear();
}

std::uint64_t SimStorage::NewBytes(std::span<const std::byte> data) {
  if (!fakes_.dedup) return data.size();
  std::uint64_t fresh = 0;
  for (std::size_t at = 0; at < data.size(); at += kPageBytes) {
    const auto page = data.subspan(at, std::min(kPageBytes, data.size() - at));
    const std::uint64_t h = HashPage(page);
    if (pages_.count(h) != 0) continue;
    fresh += page.size();
    if (pages_.size() < kMaxPages) pages_.insert(h);
  }
  return fresh;
}

void SimStorage::Record(std::uint64_t at, std::span<const std::byte> data) {
  std::size_t p = 0;
  while (p < data.size()) {
    const std::size_t start = p;
    const std::optional<StampHeader> first = ReadStampHeader(SectorAt(data, p));
    p += SectorAt(data, p).size();
    if (first && first->offset_bytes % kStampSectorBytes == 0) {
      // Extend while the sectors continue the first one's run and offsets.
      while (p < data.size()) {
        const std::optional<StampHeader> next = ReadStampHeader(SectorAt(data, p));
        if (!next || next->run_id != first->run_id ||
            next->offset_bytes != first->offset_bytes + (p - start)) {
          break;
        }
        p += SectorAt(data, p).size();
      }
      Assign(at + start, {at + p, Kind::kStamped, first->run_id, first->offset_bytes});
    } else if (IsZero(SectorAt(data, start))) {
      // Zeros read back as zeros: the same as never written.
      while (p < data.size() && IsZero(SectorAt(data, p))) p += SectorAt(data, p).size();
      Erase(at + start, at + p);
    } else {
      while (p < data.size() && !ReadStampHeader(SectorAt(data, p)) && !IsZero(SectorAt(data, p))) {
        p += SectorAt(data, p).size();
      }
      Assign(at + start, {at + p, Kind::kGarbage, 0, 0});
    }
  }
}

bool SimStorage::Continues(std::uint64_t a_start, const Extent& a, std::uint64_t b_start,
                           const Extent& b) {
  if (a.end != b_start || a.kind != b.kind) return false;
  return a.kind == Kind::kGarbage ||
         (b.run_id == a.run_id && b.source_bytes - a.source_bytes == b_start - a_start);
}

void SimStorage::Assign(std::uint64_t start, Extent e) {
  Erase(start, e.end);
  const auto next = extents_.lower_bound(start);
  auto it = extents_.end();
  if (next != extents_.begin() &&
      Continues(std::prev(next)->first, std::prev(next)->second, start, e)) {
    it = std::prev(next);
    it->second.end = e.end;
  } else {
    it = extents_.emplace_hint(next, start, e);
  }
  if (next != extents_.end() && Continues(it->first, it->second, next->first, next->second)) {
    it->second.end = next->second.end;
    extents_.erase(next);
  }
}

void SimStorage::Erase(std::uint64_t start, std::uint64_t end) {
  auto it = extents_.upper_bound(start);
  if (it != extents_.begin()) {
    const auto prev = std::prev(it);
    if (prev->second.end > start) {
      if (prev->second.end > end) {  // its tail lies beyond: keep it
        Extent tail = prev->second;
        tail.source_bytes += end - prev->first;
        extents_.emplace_hint(it, end, tail);
      }
      if (prev->first < start) {
        prev->second.end = start;
      } else {
        extents_.erase(prev);
      }
    }
  }
  it = extents_.lower_bound(start);
  while (it != extents_.end() && it->first < end) {
    if (it->second.end > end) {
      Extent tail = it->second;
      tail.source_bytes += end - it->first;
      extents_.emplace(end, tail);
    }
    it = extents_.erase(it);
  }
}

void SimStorage::Lose(std::uint64_t start, std::uint64_t end) {
  for (const SimFakes::Lost& lost : fakes_.lost) {
    const std::uint64_t lo = std::max(start, lost.start_bytes);
    const std::uint64_t hi = std::min(end, lost.end_bytes);
    if (lo >= hi) continue;
    if (lost.garbage) {
      Assign(lo, {hi, Kind::kGarbage, 0, 0});
    } else {
      Erase(lo, hi);
    }
  }
}

void SimStorage::ReadPhysical(std::uint64_t at, std::span<std::byte> buffer) const {
  const std::uint64_t end = at + buffer.size();
  auto it = extents_.upper_bound(at);
  if (it != extents_.begin() && std::prev(it)->second.end > at) --it;
  std::uint64_t pos = at;
  while (pos < end) {
    const std::uint64_t next = it == extents_.end() ? end : std::min(end, it->first);
    if (next > pos) {  // never written (or lost): zeros
      std::fill(buffer.begin() + (pos - at), buffer.begin() + (next - at), std::byte{0});
      pos = next;
      continue;
    }
    const std::uint64_t hi = std::min(end, it->second.end);
    const auto piece = buffer.subspan(pos - at, hi - pos);
    if (it->second.kind == Kind::kStamped) {
      FillStamps(piece, it->second.source_bytes + (pos - it->first), it->second.run_id);
    } else {
      FillGarbage(piece, pos);
    }
    pos = hi;
    ++it;
  }
}

}  // namespace zcav
