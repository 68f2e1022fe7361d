// StampWrite, CheckSector: see write_stamp.h.
#include "zcav/device/write_stamp.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstring>
#include <random>

namespace zcav {
namespace {

constexpr std::size_t kTagBytes = sizeof(kWritePatternTag) - 1;  // 32, without the NUL
constexpr std::size_t kRunAt = kTagBytes;                        // [32, 40)
constexpr std::size_t kOffsetAt = kRunAt + 8;                    // [40, 48)
constexpr std::size_t kIndexAt = kOffsetAt + 8;                  // [48, 56)
constexpr std::size_t kHeaderBytes = kOffsetAt + 8;              // 48: what a restamp rewrites
constexpr std::size_t kBodyAt = kIndexAt + 8;                    // [56, 512)
constexpr std::size_t kBodyBytes = kStampSectorBytes - kBodyAt;
constexpr std::size_t kBodies = 256;

// The 256 bodies, one after the other: splitmix64 from a fixed seed, the
// same every run (what matters is that they do not compress).
const std::array<std::byte, kBodies * kBodyBytes>& Bodies() {
  static const auto bodies = [] {
    std::array<std::byte, kBodies * kBodyBytes> b{};
    std::uint64_t state = 0x7a636176'77726974;       // "zcavwrit"
    for (std::size_t i = 0; i < b.size(); i += 8) {  // 456 bodies' bytes: a multiple of 8
      state += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      z ^= z >> 31;
      std::memcpy(b.data() + i, &z, 8);
    }
    return b;
  }();
  return bodies;
}

const std::byte* Body(std::uint64_t index) { return Bodies().data() + index * kBodyBytes; }

void PutU64(std::byte* to, std::uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(to, &v, 8);
  } else {
    for (int i = 0; i < 8; ++i) to[i] = static_cast<std::byte>(v >> (8 * i));
  }
}

std::uint64_t GetU64(const std::byte* from) {
  if constexpr (std::endian::native == std::endian::little) {
    std::uint64_t v;
    std::memcpy(&v, from, 8);
    return v;
  }
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<std::uint64_t>(from[i]);
  return v;
}

// The stamp of the sector at buffer[at], written for offset_bytes + at,
// cut at the buffer's end: all of it, or (`offset_only`) the offset.
void PutStamp(std::span<std::byte> buffer, std::size_t at, std::uint64_t offset_bytes,
              std::uint64_t run_id, bool offset_only) {
  std::byte* sector = buffer.data() + at;
  const std::size_t room = std::min(kStampSectorBytes, buffer.size() - at);
  if (offset_only && room >= kHeaderBytes) {
    PutU64(sector + kOffsetAt, offset_bytes + at);
    return;
  }
  std::array<std::byte, kStampSectorBytes> whole;
  const std::uint64_t index = (at / kStampSectorBytes) % kBodies;
  std::memcpy(whole.data(), kWritePatternTag, kTagBytes);
  PutU64(whole.data() + kRunAt, run_id);
  PutU64(whole.data() + kOffsetAt, offset_bytes + at);
  PutU64(whole.data() + kIndexAt, index);
  std::memcpy(whole.data() + kBodyAt, Body(index), kBodyBytes);
  std::memcpy(sector, whole.data(), room);
}

}  // namespace

void StampWrite(std::span<std::byte> buffer, std::uint64_t offset_bytes, std::uint64_t run_id,
                StampMemo& memo) {
  assert(offset_bytes % kStampSectorBytes == 0);
  const bool offset_only = memo.run_id == run_id && memo.bytes >= buffer.size();
  for (std::size_t at = 0; at < buffer.size(); at += kStampSectorBytes) {
    PutStamp(buffer, at, offset_bytes, run_id, offset_only);
  }
  if (!offset_only) memo = {buffer.size(), run_id};
}

void StampWrite(std::span<std::byte> buffer, std::uint64_t offset_bytes, std::uint64_t run_id) {
  StampMemo memo;
  StampWrite(buffer, offset_bytes, run_id, memo);
}

std::uint64_t NewStampRunId() {
  std::random_device device;
  for (;;) {
    const std::uint64_t id = (std::uint64_t{device()} << 32) ^ device();
    if (id != 0) return id;
  }
}

SectorCheck CheckSector(std::span<const std::byte> sector, std::uint64_t offset_bytes,
                        std::uint64_t run_id) {
  assert(sector.size() == kStampSectorBytes && offset_bytes % kStampSectorBytes == 0);
  if (std::all_of(sector.begin(), sector.end(), [&](std::byte b) { return b == sector[0]; }) &&
      (sector[0] == std::byte{0} || sector[0] == std::byte{0xff})) {
    return {SectorState::kBlank, 0};
  }
  const std::uint64_t source = GetU64(sector.data() + kOffsetAt);
  const std::uint64_t index = GetU64(sector.data() + kIndexAt);
  const bool stamped = std::memcmp(sector.data(), kWritePatternTag, kTagBytes) == 0 &&
                       source % kStampSectorBytes == 0 && index < kBodies &&
                       std::memcmp(sector.data() + kBodyAt, Body(index), kBodyBytes) == 0;
  if (!stamped) return {SectorState::kGarbage, 0};
  if (GetU64(sector.data() + kRunAt) != run_id) return {SectorState::kStale, source};
  if (source != offset_bytes) return {SectorState::kMoved, source};
  return {SectorState::kGood, offset_bytes};
}

std::optional<StampHeader> ReadStampHeader(std::span<const std::byte> sector) {
  if (sector.size() < kHeaderBytes ||
      std::memcmp(sector.data(), kWritePatternTag, kTagBytes) != 0) {
    return std::nullopt;
  }
  return StampHeader{GetU64(sector.data() + kRunAt), GetU64(sector.data() + kOffsetAt)};
}

}  // namespace zcav
