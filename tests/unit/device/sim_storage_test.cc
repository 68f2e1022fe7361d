// Simulated devices keep what is written (sim_storage.h) and play fakes:
// a genuine device reads back good, a fake capacity wraps or drops, a lost
// range reads blank or garbage, a dedup controller writes repeated pages for
// free; the map stays small, a device never written reads as before, and
// zeros or foreign data written back read as they did.
#include "zcav/device/sim_storage.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/device.h"
#include "zcav/device/sim_device.h"
#include "zcav/device/write_stamp.h"

namespace zcav {
namespace {

constexpr std::uint64_t kRun = 0x1234'5678'9abc'def0ULL;
constexpr std::size_t kChunk = kMiB;

struct Sim {
  explicit Sim(const std::string& spec) : dev(MakeSimulatedDevice(ParseSimSpec(spec), clock)) {}
  VirtualClock clock;
  std::unique_ptr<Device> dev;
};

// Writes [0, size) in chunks of `chunk` stamped for run `run`, in order.
void WriteAll(Device& dev, std::uint64_t size, std::size_t chunk = kChunk,
              std::uint64_t run = kRun) {
  AlignedBuffer b(chunk, 4096);
  StampMemo memo;
  for (std::uint64_t at = 0; at < size; at += chunk) {
    StampWrite(b.span(chunk), at, run, memo);
    REQUIRE(!dev.WriteAt(at, b.span(chunk)));
  }
}

// The sectors of a read of `length` bytes at `at`, checked against run kRun.
std::vector<SectorCheck> ReadBack(Device& dev, std::uint64_t at, std::size_t length) {
  AlignedBuffer b(length, 4096);
  REQUIRE(!dev.ReadAt(at, b.span(length)));
  std::vector<SectorCheck> out;
  for (std::size_t s = 0; s < length; s += kStampSectorBytes) {
    out.push_back(CheckSector(b.span(length).subspan(s, kStampSectorBytes), at + s, kRun));
  }
  return out;
}

}  // namespace

TEST_CASE("A genuine simulated device reads back every sector good", "[sim_storage]") {
  Sim sim("sim:ssd?size=64M&noise=0");
  WriteAll(*sim.dev, 64 * kMiB);
  int good = 0;
  for (std::uint64_t at = 0; at < 64 * kMiB; at += 4 * kMiB) {
    for (const SectorCheck& c : ReadBack(*sim.dev, at, 4 * kMiB)) {
      good += c.state == SectorState::kGood;
    }
  }
  CHECK(good == 64 * kMiB / kStampSectorBytes);
  // Reads that start and end inside sectors fit together into good sectors.
  AlignedBuffer got(8192, 4096);
  const auto bytes = got.span(8192);
  REQUIRE(!sim.dev->ReadAt(10 * kMiB + 300, bytes.subspan(300, 5000)));
  REQUIRE(!sim.dev->ReadAt(10 * kMiB, bytes.subspan(0, 300)));
  for (std::size_t s = 0; s + kStampSectorBytes <= 5300; s += kStampSectorBytes) {
    CAPTURE(s);
    CHECK(CheckSector(bytes.subspan(s, kStampSectorBytes), 10 * kMiB + s, kRun).state ==
          SectorState::kGood);
  }
}

TEST_CASE("A fake that wraps at 1 GiB claiming 8 GiB reads the last data written there",
          "[sim_storage]") {
  Sim sim("sim:ssd?size=8G&real=1G&noise=0");
  WriteAll(*sim.dev, 8 * kGiB);
  // Physical x mod 1 GiB last held what was written for 7 GiB + (x mod 1 GiB).
  std::vector<std::uint64_t> samples = {3 * kGiB - 128 * 1024, 7 * kGiB - 128 * 1024,
                                        8 * kGiB - 256 * 1024};
  for (std::uint64_t at = 0; at < 8 * kGiB; at += 320 * kMiB + 64 * 1024) samples.push_back(at);
  for (const std::uint64_t at : samples) {
    CAPTURE(at);
    const std::vector<SectorCheck> checks = ReadBack(*sim.dev, at, 256 * 1024);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < checks.size(); ++i) {
      const std::uint64_t x = at + i * kStampSectorBytes;
      const SectorCheck want = x < 7 * kGiB ? SectorCheck{SectorState::kMoved, 7 * kGiB + x % kGiB}
                                            : SectorCheck{SectorState::kGood, x};
      wrong += checks[i].state != want.state || checks[i].source_bytes != want.source_bytes;
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("A fake that drops writes beyond its real size reads blank there", "[sim_storage]") {
  Sim sim("sim:ssd?size=4G&real=1G&fake=drop&noise=0");
  WriteAll(*sim.dev, 4 * kGiB);
  for (const std::uint64_t at : {std::uint64_t{0}, kGiB - 128 * 1024, kGiB, 3 * kGiB}) {
    CAPTURE(at);
    const std::vector<SectorCheck> checks = ReadBack(*sim.dev, at, 256 * 1024);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < checks.size(); ++i) {
      const bool beyond = at + i * kStampSectorBytes >= kGiB;
      wrong += checks[i].state != (beyond ? SectorState::kBlank : SectorState::kGood);
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("A lost range reads back blank or garbage, exactly there", "[sim_storage]") {
  for (const bool garbage : {false, true}) {
    CAPTURE(garbage);
    Sim sim(std::string("sim:ssd?size=64M&noise=0&lose=16M-20M") + (garbage ? ":garbage" : ""));
    WriteAll(*sim.dev, 64 * kMiB);
    const std::vector<SectorCheck> checks = ReadBack(*sim.dev, 0, 64 * kMiB);
    std::size_t lost = 0;
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < checks.size(); ++i) {
      const std::uint64_t x = i * kStampSectorBytes;
      const bool in = x >= 16 * kMiB && x < 20 * kMiB;
      lost += in;
      const SectorState want = !in       ? SectorState::kGood
                               : garbage ? SectorState::kGarbage
                                         : SectorState::kBlank;
      wrong += checks[i].state != want;
    }
    CHECK(wrong == 0);
    CHECK(lost == 4 * kMiB / kStampSectorBytes);
  }
}

TEST_CASE("A dedup controller writes repeated pages for free, zcav's stamps at full cost",
          "[sim_storage]") {
  const auto write_time = [](const std::string& spec, bool stamped) {
    Sim sim(spec);
    AlignedBuffer b(kChunk, 4096);
    std::memset(b.span(b.size()).data(), 0x5a, kChunk);  // 256 identical pages
    StampMemo memo;
    for (std::uint64_t at = 0; at < 64 * kMiB; at += kChunk) {
      if (stamped) StampWrite(b.span(kChunk), at, kRun, memo);
      REQUIRE(!sim.dev->WriteAt(at, b.span(kChunk)));
    }
    return sim.clock.Now();
  };
  const auto dedup_same = write_time("sim:ssd?size=1G&noise=0&dedup=on", false);
  const auto dedup_stamped = write_time("sim:ssd?size=1G&noise=0&dedup=on", true);
  const auto plain_same = write_time("sim:ssd?size=1G&noise=0", false);
  // One page of 16384 costs; the stamps cost what any data costs without dedup.
  CHECK(dedup_same * 1000 < dedup_stamped);
  CHECK(dedup_stamped == plain_same);
  CHECK(dedup_same.count() > 0);
}

TEST_CASE("The map of a device written in order holds a handful of ranges", "[sim_storage]") {
  SimStorage genuine{SimFakes{}};
  AlignedBuffer b(kChunk, 4096);
  StampMemo memo;
  for (std::uint64_t at = 0; at < 64 * kGiB; at += kChunk) {
    StampWrite(b.span(kChunk), at, kRun, memo);
    genuine.Write(at, b.span(kChunk));
  }
  CHECK(genuine.extent_count() == 1);
  // Foreign data in the middle splits it into three; written over, one again.
  std::memset(b.span(b.size()).data(), 0x11, kChunk);
  genuine.Write(kGiB, b.span(kChunk));
  CHECK(genuine.extent_count() == 3);
  StampWrite(b.span(kChunk), kGiB, kRun);
  genuine.Write(kGiB, b.span(kChunk));
  CHECK(genuine.extent_count() == 1);
  // A second run over part of it: three ranges.
  StampWrite(b.span(kChunk), 2 * kGiB, kRun + 1);
  genuine.Write(2 * kGiB, b.span(kChunk));
  CHECK(genuine.extent_count() == 3);

  SimFakes wrap;
  wrap.real_bytes = kGiB;
  SimStorage fake{wrap};
  memo = {};
  for (std::uint64_t at = 0; at < 8 * kGiB; at += kChunk) {
    StampWrite(b.span(kChunk), at, kRun, memo);
    fake.Write(at, b.span(kChunk));
  }
  CHECK(fake.extent_count() == 1);
}

TEST_CASE("A simulated device never written reads as it always did", "[sim_storage]") {
  Sim sim("sim:ssd?size=1G&noise=0");
  AlignedBuffer b(kChunk, 4096);
  std::memset(b.span(b.size()).data(), 0xcd, kChunk);
  REQUIRE(!sim.dev->ReadAt(0, b.span(kChunk)));
  REQUIRE(!sim.dev->ReadAt(kChunk, b.span(kChunk)));
  // The buffer untouched, the time that of the media rate.
  const auto read = b.span(kChunk);
  CHECK(std::all_of(read.begin(), read.end(), [](std::byte x) { return x == std::byte{0xcd}; }));
  const double rate = ExpectedMbPerS(ParseSimSpec("sim:ssd?size=1G&noise=0"), 0, kChunk);
  const double want_ns = 2.0 * kChunk / (rate * 1e6) * 1e9;
  CHECK(static_cast<double>(sim.clock.Now().count()) == Approx(want_ns).epsilon(1e-6));
  // Once written, unwritten places read zeros; a TRIM forgets everything.
  Sim ssd("sim:ssd?size=1G&noise=0&wcache=64M");
  WriteAll(*ssd.dev, 4 * kMiB);
  std::memset(b.span(b.size()).data(), 0xcd, kChunk);
  REQUIRE(!ssd.dev->ReadAt(8 * kMiB, b.span(kChunk)));
  CHECK(CheckSector(b.span(kChunk).subspan(0, 512), 8 * kMiB, kRun).state == SectorState::kBlank);
  REQUIRE(!ssd.dev->DiscardAll());
  REQUIRE(!ssd.dev->ReadAt(0, b.span(kChunk)));
  CHECK(CheckSector(b.span(kChunk).subspan(0, 512), 0, kRun).state == SectorState::kBlank);
}

TEST_CASE("The fake keys refuse what does not go together", "[sim_storage]") {
  for (const char* spec :
       {"sim:ssd?size=1G&real=2G", "sim:ssd?size=1G&fake=wrap", "sim:ssd?fake=mirror&real=1G",
        "sim:ssd?size=1G&lose=2G-3G", "sim:ssd?lose=5M-4M", "sim:ssd?lose=1M-2M:maybe",
        "sim:ssd?dedup=yes", "sim:ssd?real=100"}) {
    CAPTURE(spec);
    CHECK_THROWS_AS(ParseSimSpec(spec), Error);
  }
  const SimModel m = ParseSimSpec("sim:hdd?size=8G&real=1G&fake=drop&lose=1M-2M,3M-4M:garbage");
  CHECK(m.fakes.real_bytes == kGiB);
  CHECK(m.fakes.beyond == SimFakes::Beyond::kDrop);
  REQUIRE(m.fakes.lost.size() == 2);
  CHECK(m.fakes.lost[1].garbage);
  CHECK(m.fakes.lost[1].start_bytes == 3 * kMiB);
}

TEST_CASE("Zeros written read back as zeros, foreign data as the same bytes again",
          "[sim_storage]") {
  // What a write test that puts data back (verify --quick --keep-data)
  // needs: writing back what a read gave leaves the device as it was.
  Sim sim("sim:ssd?size=64M&noise=0");
  WriteAll(*sim.dev, 8 * kMiB);
  AlignedBuffer b(kChunk, 4096);
  const std::span<std::byte> s = b.span(kChunk);
  std::memset(s.data(), 0, kChunk);
  std::memset(s.data() + 4096, 0x5a, 4096);  // one foreign page among zeros
  REQUIRE(!sim.dev->WriteAt(kMiB, s));
  std::memset(s.data(), 0xcd, kChunk);
  REQUIRE(!sim.dev->ReadAt(kMiB, s));
  CHECK(std::all_of(s.begin(), s.begin() + 4096, [](std::byte x) { return x == std::byte{0}; }));
  CHECK(std::all_of(s.begin() + 8192, s.end(), [](std::byte x) { return x == std::byte{0}; }));
  CHECK(CheckSector(s.subspan(4096, 512), kMiB + 4096, kRun).state == SectorState::kGarbage);
  std::vector<std::byte> first(s.begin(), s.end());
  REQUIRE(!sim.dev->WriteAt(kMiB, s));  // what was read, written back
  std::memset(s.data(), 0xcd, kChunk);
  REQUIRE(!sim.dev->ReadAt(kMiB, s));
  CHECK(std::equal(s.begin(), s.end(), first.begin()));
}

}  // namespace zcav
