// The data zcav writes (write_stamp.h): every sector tagged and stamped with
// the run and its place, no two sectors alike, a read-back told apart as
// good, moved, stale, blank or garbage.
#include "zcav/device/write_stamp.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <set>
#include <string>
#include <utility>

#include "zcav/base/aligned_buffer.h"

namespace zcav {
namespace {

constexpr std::size_t kSector = kStampSectorBytes;

std::string Text(std::span<const std::byte> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

}  // namespace

TEST_CASE("Every written sector starts with the tag and no two sectors of a run are alike",
          "[write_stamp]") {
  const std::size_t n = 512 * kSector;  // 512 sectors: the 256 bodies twice, the stamps never
  AlignedBuffer a(n, 4096);
  StampWrite(a.span(n), 64 * kSector, 42);
  const std::string text = Text(a.span(n));
  const std::string tag = kWritePatternTag;
  REQUIRE(tag.size() == 32);
  std::set<std::string> sectors;
  std::set<std::string> bodies;
  for (std::size_t at = 0; at < n; at += kSector) {
    CAPTURE(at);
    CHECK(text.compare(at, tag.size(), tag) == 0);
    sectors.insert(text.substr(at, kSector));
    bodies.insert(text.substr(at + 48, kSector - 48));
  }
  CHECK(sectors.size() == n / kSector);
  // The pseudo-random part: 256 different bodies, none of them a run of one byte.
  CHECK(bodies.size() == 256);
  for (const std::string& body : bodies) {
    CHECK(body.find_first_not_of(body[0]) != std::string::npos);
  }
}

TEST_CASE("A sector read back is good, moved, stale, blank or garbage", "[write_stamp]") {
  AlignedBuffer b(4 * kSector, 4096);
  StampWrite(b.span(4 * kSector), 1000 * kSector, 7);
  const auto sector = [&](std::size_t i) {
    return b.span(4 * kSector).subspan(i * kSector, kSector);
  };
  SectorCheck c = CheckSector(sector(1), 1001 * kSector, 7);
  CHECK(c.state == SectorState::kGood);
  CHECK(c.source_bytes == 1001 * kSector);
  // The same sector read back at another place: the device wraps there.
  c = CheckSector(sector(1), 5 * kSector, 7);
  CHECK(c.state == SectorState::kMoved);
  CHECK(c.source_bytes == 1001 * kSector);
  // Written by another run: this run's write never arrived.
  c = CheckSector(sector(1), 1001 * kSector, 8);
  CHECK(c.state == SectorState::kStale);
  CHECK(c.source_bytes == 1001 * kSector);
  // One flipped bit in the body, or in the offset, is garbage, not good.
  b.span(4 * kSector)[2 * kSector + 300] ^= std::byte{1};
  CHECK(CheckSector(sector(2), 1002 * kSector, 7).state == SectorState::kGarbage);
  b.span(4 * kSector)[3 * kSector + 40] ^= std::byte{0x02};
  CHECK(CheckSector(sector(3), 1003 * kSector, 7).state == SectorState::kGarbage);
  std::memset(sector(0).data(), 0, kSector);
  CHECK(CheckSector(sector(0), 1000 * kSector, 7).state == SectorState::kBlank);
  std::memset(sector(0).data(), 0xff, kSector);
  CHECK(CheckSector(sector(0), 1000 * kSector, 7).state == SectorState::kBlank);
  std::memset(sector(0).data(), 0x5a, kSector);
  CHECK(CheckSector(sector(0), 1000 * kSector, 7).state == SectorState::kGarbage);
}

TEST_CASE("A restamp rewrites the offsets only and gives the full stamp", "[write_stamp]") {
  const std::size_t n = 64 * 1024;
  AlignedBuffer reused(n, 4096), fresh(n, 4096);
  StampMemo memo;
  StampWrite(reused.span(n), 0, 9, memo);
  CHECK(memo.run_id == 9);
  CHECK(memo.bytes == n);
  // Any other offset (one not a multiple of the buffer too), and another run.
  for (const auto& [offset, run] : {std::pair<std::uint64_t, std::uint64_t>{3 * n, 9},
                                    {7 * kSector, 9},
                                    {0, 10},
                                    {5 * n, 10}}) {
    CAPTURE(offset, run);
    StampWrite(reused.span(n), offset, run, memo);
    StampWrite(fresh.span(n), offset, run);
    CHECK(std::memcmp(reused.span(n).data(), fresh.span(n).data(), n) == 0);
    CHECK(CheckSector(reused.span(n).subspan(kSector, kSector), offset + kSector, run).state ==
          SectorState::kGood);
  }
  CHECK(memo.run_id == 10);
  // A shorter last chunk gets the start of the stamps of its place.
  AlignedBuffer part(4096, 4096);
  StampWrite(part.span(1000), 5 * n, 10);
  CHECK(std::memcmp(part.span(1000).data(), fresh.span(n).data(), 1000) == 0);
}

TEST_CASE("Run ids are never 0 and differ run to run", "[write_stamp]") {
  const std::uint64_t a = NewStampRunId();
  const std::uint64_t b = NewStampRunId();
  CHECK(a != 0);
  CHECK(b != 0);
  CHECK(a != b);
}

}  // namespace zcav
