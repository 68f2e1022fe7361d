#include "zcav/device/sim_device.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "testutil.h"
#include "zcav/base/aligned_buffer.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/device.h"

using namespace std::chrono_literals;

TEST_CASE("The hdd model is a 16-zone disk about 2:1 from outer to inner", "[sim_device]") {
  const zcav::SimModel m = zcav::ParseSimSpec("sim:hdd");
  REQUIRE(m.zones.size() == 16);
  CHECK(m.zones.front().start_frac == 0.0);
  CHECK(m.zones.back().end_frac == 1.0);
  const double ratio = m.zones.front().mb_per_s / m.zones.back().mb_per_s;
  CHECK(ratio > 1.8);
  CHECK(ratio < 2.2);
  for (std::size_t i = 1; i < m.zones.size(); ++i) {
    CHECK(m.zones[i].start_frac == Approx(m.zones[i - 1].end_frac));
    CHECK(m.zones[i].mb_per_s < m.zones[i - 1].mb_per_s);
  }
  CHECK(m.info.rotational == true);
}

TEST_CASE("The usb2-hdd model is capped flat by its bus over the outer zones", "[sim_device]") {
  const zcav::SimModel m = zcav::ParseSimSpec("sim:usb2-hdd?noise=0");
  const std::uint64_t size = m.info.size_bytes;
  CHECK(zcav::ExpectedMbPerS(m, 0, zcav::kMiB) == Approx(35.0));
  CHECK(zcav::ExpectedMbPerS(m, size / 4, zcav::kMiB) == Approx(35.0));
  CHECK(zcav::ExpectedMbPerS(m, size - zcav::kMiB, zcav::kMiB) == Approx(30.0));
}

TEST_CASE("Optical CAV models rise with the square of the rate linear in position",
          "[sim_device]") {
  for (const char* name : {"sim:cd", "sim:dvd"}) {
    CAPTURE(name);
    const zcav::SimModel m = zcav::ParseSimSpec(name);
    REQUIRE(m.cav);
    CHECK(m.info.sector_bytes == 2048);
    const std::uint64_t size = m.info.size_bytes;
    const std::uint64_t len = 2048 * 16;
    const double r0 = zcav::ExpectedMbPerS(m, 0, len);
    const double r_mid = zcav::ExpectedMbPerS(m, size / 2 - len / 2, len);
    const double r1 = zcav::ExpectedMbPerS(m, size - len, len);
    CHECK(r0 < r_mid);
    CHECK(r_mid < r1);
    // rate^2 is linear in position: the middle one is the mean of the ends.
    CHECK(r_mid * r_mid == Approx((r0 * r0 + r1 * r1) / 2).epsilon(0.002));
  }
  const zcav::SimModel cd = zcav::ParseSimSpec("sim:cd");
  CHECK(zcav::ExpectedMbPerS(cd, cd.info.size_bytes - 2048, 2048) ==
        Approx(40 * 153600 / 1e6).epsilon(0.001));
  const zcav::SimModel dvd = zcav::ParseSimSpec("sim:dvd");
  CHECK(zcav::ExpectedMbPerS(dvd, dvd.info.size_bytes - 2048, 2048) ==
        Approx(16 * 1.385).epsilon(0.001));
}

TEST_CASE("The ssd model is flat", "[sim_device]") {
  const zcav::SimModel m = zcav::ParseSimSpec("sim:ssd");
  CHECK(zcav::ExpectedMbPerS(m, 0, zcav::kMiB) ==
        Approx(zcav::ExpectedMbPerS(m, m.info.size_bytes - zcav::kMiB, zcav::kMiB)));
  CHECK(m.info.rotational == false);
}

TEST_CASE("sim: parameters set size, seed, noise, rates and zones", "[sim_device]") {
  const zcav::SimModel m =
      zcav::ParseSimSpec("sim:hdd?size=2T&seed=7&noise=0.5%&outer=250&inner=100&zones=20");
  CHECK(m.info.size_bytes == 2ULL << 40);
  CHECK(m.seed == 7);
  CHECK(m.noise == Approx(0.005));
  CHECK(m.zones.size() == 20);
  CHECK(m.zones.front().mb_per_s == Approx(250));
  CHECK(m.zones.back().mb_per_s == Approx(100));
  CHECK(m.info.path == "sim:hdd?size=2T&seed=7&noise=0.5%&outer=250&inner=100&zones=20");
}

TEST_CASE("Unknown sim models, keys and bad values are rejected", "[sim_device]") {
  for (const char* bad : {"sim:floppy", "sim:", "sim:hdd?colour=red", "sim:hdd?size=abc",
                          "sim:hdd?noise=-1", "sim:hdd?zones=0", "sim:hdd?seed", "sim:cd?zones=4",
                          "sim:hdd?outer=0", "sim:hdd?size=1G&size=2G"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(zcav::ParseSimSpec(bad), zcav::Error);
  }
  try {
    zcav::ParseSimSpec("sim:floppy");
  } catch (const zcav::Error& e) {
    CHECK(std::string(e.what()).find("hdd, usb2-hdd, cd, dvd, ssd") != std::string::npos);
  }
}

TEST_CASE("A simulated read advances the virtual clock by the modelled time", "[sim_device]") {
  zcav::VirtualClock clock;
  const zcav::SimModel m = zcav::ParseSimSpec("sim:ssd?noise=0");
  auto dev = zcav::MakeSimulatedDevice(m, clock);
  zcav::AlignedBuffer buf(zcav::kMiB, 4096);
  REQUIRE_FALSE(dev->ReadAt(0, buf.span(zcav::kMiB)));
  const double seconds = static_cast<double>(clock.Now().count()) * 1e-9;
  CHECK(seconds == Approx(static_cast<double>(zcav::kMiB) / 530e6).epsilon(1e-6));
  CHECK(clock.StorageReadBytes() == zcav::kMiB);
  CHECK(dev->ReadAt(m.info.size_bytes, buf.span(512)));  // past the end: an error
}

TEST_CASE("Simulated noise is deterministic for a seed", "[sim_device]") {
  const auto times = [](const std::string& spec) {
    zcav::VirtualClock clock;
    auto dev = zcav::MakeSimulatedDevice(zcav::ParseSimSpec(spec), clock);
    zcav::AlignedBuffer buf(zcav::kMiB, 4096);
    std::vector<std::int64_t> out;
    for (int i = 0; i < 5; ++i) {
      const auto before = clock.Now();
      (void)dev->ReadAt(static_cast<std::uint64_t>(i) * zcav::kMiB, buf.span(zcav::kMiB));
      out.push_back((clock.Now() - before).count());
    }
    return out;
  };
  CHECK(times("sim:hdd?seed=3&noise=2%") == times("sim:hdd?seed=3&noise=2%"));
  CHECK(times("sim:hdd?seed=3&noise=2%") != times("sim:hdd?seed=4&noise=2%"));
}

TEST_CASE("Reads touching an injected bad range fail with EIO", "[sim_device]") {
  zcav::VirtualClock clock;
  auto dev = zcav::MakeSimulatedDevice(zcav::ParseSimSpec("sim:hdd?bad=10M+4k"), clock);
  zcav::AlignedBuffer buf(zcav::kMiB, 4096);
  CHECK_FALSE(dev->ReadAt(9 * zcav::kMiB, buf.span(zcav::kMiB)));
  const std::error_code ec = dev->ReadAt(10 * zcav::kMiB, buf.span(zcav::kMiB));
  CHECK(ec == std::error_code(EIO, std::system_category()));
  CHECK_FALSE(dev->ReadAt(11 * zcav::kMiB, buf.span(zcav::kMiB)));
}

TEST_CASE("The seek curve runs from track-to-track to full stroke as the root of the distance",
          "[sim_device]") {
  const zcav::SimModel hdd = zcav::ParseSimSpec("sim:hdd");
  const std::uint64_t size = hdd.info.size_bytes;
  CHECK(zcav::SeekMs(hdd, 0) == Approx(1));
  CHECK(zcav::SeekMs(hdd, size) == Approx(18));
  CHECK(zcav::SeekMs(hdd, size / 4) == Approx(1 + 17 * 0.5).epsilon(1e-6));
  CHECK(zcav::MeanRotationalMs(hdd) == Approx(60e3 / 7200 / 2));
  const zcav::SimModel ssd = zcav::ParseSimSpec("sim:ssd");
  CHECK(zcav::SeekMs(ssd, 0) == Approx(0.05));
  CHECK(zcav::SeekMs(ssd, ssd.info.size_bytes) == Approx(0.05));
  CHECK(zcav::MeanRotationalMs(ssd) == 0);
  const zcav::SimModel cd = zcav::ParseSimSpec("sim:cd");
  CHECK(zcav::SeekMs(cd, cd.info.size_bytes / 2) > 80);
  const zcav::SimModel still = zcav::ParseSimSpec("sim:hdd?seek=0");
  CHECK(zcav::SeekMs(still, size) == 0);
  CHECK(zcav::MeanRotationalMs(still) == 0);
  CHECK(zcav::SeekMs(zcav::ParseSimSpec("sim:hdd?seek=30"), size) == Approx(30));
}

TEST_CASE("Random reads on the hdd model pay the seek curve plus half a revolution on average",
          "[sim_device]") {
  zcav::VirtualClock clock;
  const zcav::SimModel m = zcav::ParseSimSpec("sim:hdd?noise=0");
  auto dev = zcav::MakeSimulatedDevice(m, clock);
  zcav::AlignedBuffer buf(4096, 4096);
  const std::uint64_t seed = 42;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> pick(0, m.info.size_bytes / 4096 - 1);
  std::uint64_t head = 0;
  double positioning_ms = 0, model_ms = 0;
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t offset = pick(rng) * 4096;
    const auto before = clock.Now();
    REQUIRE_FALSE(dev->ReadAt(offset, buf.span(4096)));
    const double ms = static_cast<double>((clock.Now() - before).count()) * 1e-6;
    positioning_ms += ms - 4096 / (zcav::ExpectedMbPerS(m, offset, 4096) * 1e3);
    model_ms += zcav::SeekMs(m, offset > head ? offset - head : head - offset) + 60e3 / 7200 / 2;
    head = offset + 4096;
  }
  // The rotational latency is uniform in [0, 8.33) ms: its mean over 3000
  // reads is within 0.1 ms of 4.17 ms, so the totals agree to about 1 %.
  CHECK(positioning_ms / n == Approx(model_ms / n).epsilon(0.02));
  // Uniform positions: E[sqrt(|U1 - U2|)] = 8/15 (see access_test.cc).
  CHECK(positioning_ms / n == Approx(1 + 17 * 8.0 / 15 + 60e3 / 7200 / 2).epsilon(0.03));
}

TEST_CASE("Sequential reads pay no positioning time", "[sim_device]") {
  zcav::VirtualClock clock;
  const zcav::SimModel m = zcav::ParseSimSpec("sim:hdd?noise=0&cache=0");
  auto dev = zcav::MakeSimulatedDevice(m, clock);
  zcav::AlignedBuffer buf(zcav::kMiB, 4096);
  const std::uint64_t start = 100 * zcav::kMiB;
  REQUIRE_FALSE(dev->ReadAt(start - zcav::kMiB, buf.span(zcav::kMiB)));  // positions the head
  const auto before = clock.Now();
  for (std::uint64_t i = 0; i < 10; ++i) {
    REQUIRE_FALSE(dev->ReadAt(start + i * zcav::kMiB, buf.span(zcav::kMiB)));
  }
  const double seconds = static_cast<double>((clock.Now() - before).count()) * 1e-9;
  CHECK(seconds ==
        Approx(10.0 * zcav::kMiB / (zcav::ExpectedMbPerS(m, start, 10 * zcav::kMiB) * 1e6))
            .epsilon(1e-6));
  // A jump back pays at least a track-to-track seek.
  const auto jump = clock.Now();
  REQUIRE_FALSE(dev->ReadAt(start, buf.span(zcav::kMiB)));
  CHECK((clock.Now() - jump) >= std::chrono::milliseconds(1));
}

TEST_CASE("Re-reads of the start of the disk come from the cache at the interface rate",
          "[sim_device]") {
  zcav::VirtualClock clock;
  const zcav::SimModel m = zcav::ParseSimSpec("sim:hdd?noise=0");
  CHECK(m.cache_bytes == 8 * zcav::kMiB);
  CHECK(m.interface_mb_per_s == Approx(150));
  auto dev = zcav::MakeSimulatedDevice(m, clock);
  zcav::AlignedBuffer buf(zcav::kMiB, 4096);
  const auto timed = [&](std::uint64_t offset) {
    const auto before = clock.Now();
    REQUIRE_FALSE(dev->ReadAt(offset, buf.span(zcav::kMiB)));
    return static_cast<double>((clock.Now() - before).count()) * 1e-9;
  };
  const double media = zcav::kMiB / 60e6, interface = zcav::kMiB / 150e6;
  const double one_rev = 60.0 / 7200;
  CHECK(timed(0) == Approx(media).epsilon(1e-6));  // from the media
  // Read once: not cached yet; back to 0 costs a short seek and some rotation.
  const double second = timed(0);
  CHECK(second > media + 1e-3);
  CHECK(second < media + zcav::SeekMs(m, zcav::kMiB) * 1e-3 + one_rev);
  CHECK(timed(0) == Approx(interface).epsilon(1e-6));  // read twice: from the cache
  CHECK(timed(0) == Approx(interface).epsilon(1e-6));
  CHECK(timed(zcav::kMiB) == Approx(media).epsilon(1e-6));  // continues after the hit
  CHECK(clock.StorageReadBytes() == 5 * zcav::kMiB);
  // A sweep's next pass starts with a cold cache and a positioned head.
  REQUIRE_FALSE(dev->PreparePass());
  CHECK(timed(0) == Approx(media).epsilon(1e-6));
  // Beyond the 8 MiB cache nothing is cached.
  (void)timed(20 * zcav::kMiB);
  CHECK(timed(20 * zcav::kMiB) > zcav::kMiB / 60e6);
  // The usb2 bridge caps cache reads too; the ssd has no cache.
  CHECK(zcav::ParseSimSpec("sim:usb2-hdd").ceiling_mb_per_s == Approx(35));
  CHECK(zcav::ParseSimSpec("sim:ssd").cache_bytes == 0);
  CHECK(zcav::ParseSimSpec("sim:hdd?cache=2M&interface=300").interface_mb_per_s == Approx(300));
}

namespace {

// Reads [offset, offset + n * length) in order on `dev`; returns each read's
// rate in MB/s and the virtual time it started at (seconds).
struct TimedRead {
  double start_s = 0;
  double mb_per_s = 0;
};
std::vector<TimedRead> ReadInOrder(zcav::Device& dev, zcav::VirtualClock& clock,
                                   std::uint64_t offset, std::uint64_t length, int n) {
  zcav::AlignedBuffer buf(length, 4096);
  std::vector<TimedRead> out;
  for (int i = 0; i < n; ++i) {
    const auto before = clock.Now();
    REQUIRE_FALSE(dev.ReadAt(offset + static_cast<std::uint64_t>(i) * length, buf.span(length)));
    const double seconds = static_cast<double>((clock.Now() - before).count()) * 1e-9;
    out.push_back(
        {static_cast<double>(before.count()) * 1e-9, static_cast<double>(length) / seconds / 1e6});
  }
  return out;
}

}  // namespace

TEST_CASE("The nvme-throttle model throttles after N seconds of reading and cools only at rest",
          "[sim_device]") {
  zcav::VirtualClock clock;
  const zcav::SimModel m =
      zcav::ParseSimSpec("sim:nvme-throttle?noise=0&size=64G&throttle_after=10&throttled=1000");
  CHECK(m.throttle_after_s == 10);
  CHECK(m.throttled_mb_per_s == 1000);
  CHECK(m.cool_after_s == 60);
  CHECK(m.info.rotational == false);
  // By position the drive is flat: the drop is not in the zone table.
  CHECK(zcav::ExpectedMbPerS(m, 0, zcav::kMiB) == Approx(3000));
  CHECK(zcav::ExpectedMbPerS(m, m.info.size_bytes - zcav::kMiB, zcav::kMiB) == Approx(3000));
  auto dev = zcav::MakeSimulatedDevice(m, clock);
  // 30 MB reads take 10 ms cool: 10 s of reading is 1000 reads (30 GB).
  const std::uint64_t len = 30'000'000;
  const auto first = ReadInOrder(*dev, clock, 0, len, 1500);
  for (const TimedRead& r : first) {
    CAPTURE(r.start_s);
    if (r.start_s < 10 - 0.01) CHECK(r.mb_per_s == Approx(3000).epsilon(1e-6));
    if (r.start_s >= 10) CHECK(r.mb_per_s == Approx(1000).epsilon(1e-6));
  }
  CHECK(first[999].mb_per_s == Approx(3000).epsilon(1e-6));  // ends at 10 s exactly
  CHECK(first[1000].mb_per_s == Approx(1000).epsilon(1e-6));
  // The untimed gap between passes does not cool it: the next pass is
  // throttled from its start, so its curve has no drop at 30 GB.
  REQUIRE_FALSE(dev->PreparePass());
  const auto second = ReadInOrder(*dev, clock, 0, len, 1500);
  for (const TimedRead& r : second) CHECK(r.mb_per_s == Approx(1000).epsilon(1e-6));
  // A minute of rest cools it: full rate again, for another 10 s.
  clock.Advance(std::chrono::seconds(61));
  REQUIRE_FALSE(dev->PreparePass());  // positioned untimed, as for a new pass
  const auto rested = ReadInOrder(*dev, clock, 0, len, 1100);
  CHECK(rested[0].mb_per_s == Approx(3000).epsilon(1e-6));
  CHECK(rested[999].mb_per_s == Approx(3000).epsilon(1e-6));
  CHECK(rested[1000].mb_per_s == Approx(1000).epsilon(1e-6));
}

TEST_CASE("The ssd-dips model reads its cached start at 2x and dips every period of reading",
          "[sim_device]") {
  const zcav::SimModel m = zcav::ParseSimSpec("sim:ssd-dips?noise=0&size=100G");
  const std::uint64_t size = m.info.size_bytes;
  // Position: the first 10 % at 1060 MB/s, the rest at 530 MB/s.
  CHECK(zcav::ExpectedMbPerS(m, 0, zcav::kMiB) == Approx(1060));
  CHECK(zcav::ExpectedMbPerS(m, size / 10 - zcav::kMiB, zcav::kMiB) == Approx(1060));
  CHECK(zcav::ExpectedMbPerS(m, size / 10, zcav::kMiB) == Approx(530));
  CHECK(zcav::ExpectedMbPerS(m, size - zcav::kMiB, zcav::kMiB) == Approx(530));
  // Time: reads of 5.3 MB (10 ms undisturbed) past the cached part, about
  // 70 s in all. The dips are the last 2 s of every 20 s of reading (at
  // 18, 38, 58 s), at 30 % of the rate: each costs 1.4 s more.
  zcav::VirtualClock clock;
  auto dev = zcav::MakeSimulatedDevice(m, clock);
  const auto reads = ReadInOrder(*dev, clock, size / 5, 5'300'000, 6600);
  std::vector<double> dip_starts_s;
  std::vector<double> dip_ends_s;
  bool in_dip = false;
  for (const TimedRead& r : reads) {
    const bool dip = r.mb_per_s < 0.9 * 530;
    if (dip && !in_dip) dip_starts_s.push_back(r.start_s);
    if (!dip && in_dip) dip_ends_s.push_back(r.start_s);
    in_dip = dip;
    if (!dip) CHECK(r.mb_per_s == Approx(530).epsilon(0.01));
  }
  CHECK(std::abs(reads.back().start_s - (66 + 3 * 1.4)) < 0.05);
  REQUIRE(dip_starts_s.size() == 3);
  REQUIRE(dip_ends_s.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    CAPTURE(k);
    CHECK(std::abs(dip_starts_s[k] - (18 + 20.0 * static_cast<double>(k))) < 0.05);
    CHECK(std::abs(dip_ends_s[k] - dip_starts_s[k] - 2) < 0.05);
  }
  // Inside a dip: 30 % of 530 MB/s.
  const auto deepest = std::min_element(reads.begin(), reads.end(),
                                        [](auto& a, auto& b) { return a.mb_per_s < b.mb_per_s; });
  CHECK(deepest->mb_per_s == Approx(0.3 * 530).epsilon(1e-3));
}

TEST_CASE("The banded-hdd model alternates bands around a falling 2:1 envelope", "[sim_device]") {
  const zcav::SimModel m = zcav::ParseSimSpec("sim:banded-hdd?noise=0");
  CHECK(m.band_bytes == 4'000'000'000ULL);
  CHECK(m.band_amplitude == Approx(0.04));
  CHECK(m.info.rotational == true);
  const zcav::SimModel envelope = zcav::ParseSimSpec("sim:banded-hdd?noise=0&amplitude=0");
  const std::uint64_t band = m.band_bytes;
  const std::uint64_t bands = m.info.size_bytes / band;
  const auto band_rate = [&](const zcav::SimModel& model, std::uint64_t k) {
    return zcav::ExpectedMbPerS(model, k * band + band / 4, band / 2);
  };
  // Even bands read 4 % above the envelope, odd ones 4 % below, so every
  // band is faster than both neighbours or slower than both.
  for (std::uint64_t k = 1; k + 1 < bands; ++k) {
    CAPTURE(k);
    const double r = band_rate(m, k);
    CHECK(r / band_rate(envelope, k) == Approx(k % 2 == 0 ? 1.04 : 0.96).epsilon(1e-9));
    if (k % 2 == 0) {
      CHECK(r > band_rate(m, k - 1));
      CHECK(r > band_rate(m, k + 1));
    } else {
      CHECK(r < band_rate(m, k - 1));
      CHECK(r < band_rate(m, k + 1));
    }
  }
  // The envelope: the mean of a fast and a slow band falls about 2:1.
  const double outer = (band_rate(m, 0) + band_rate(m, 1)) / 2;
  const double inner = (band_rate(m, bands - 2) + band_rate(m, bands - 1)) / 2;
  CHECK(outer / inner > 1.8);
  CHECK(outer / inner < 2.2);
  // The band size and amplitude are keys.
  const zcav::SimModel small = zcav::ParseSimSpec("sim:banded-hdd?band=1G&amplitude=10%");
  CHECK(small.band_bytes == zcav::kGiB);
  CHECK(small.band_amplitude == Approx(0.1));
}

TEST_CASE("The time-effect keys belong to their models and are checked", "[sim_device]") {
  for (const char* bad :
       {"sim:ssd?throttle_after=3", "sim:hdd?dip_every=5", "sim:ssd?band=1G",
        "sim:ssd-dips?dip_every=5&dip_for=5", "sim:ssd-dips?dip=0", "sim:ssd-dips?cached=150%",
        "sim:ssd-dips?zones=4", "sim:banded-hdd?amplitude=100%", "sim:nvme-throttle?throttled=0"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(zcav::ParseSimSpec(bad), zcav::Error);
  }
  const zcav::SimModel dips = zcav::ParseSimSpec(
      "sim:ssd-dips?outer=400&cached=20%&cached_rate=900&dip_every=10&dip_for=1&dip=0.5");
  REQUIRE(dips.zones.size() == 2);
  CHECK(dips.zones[0].end_frac == Approx(0.2));
  CHECK(dips.zones[0].mb_per_s == Approx(900));
  CHECK(dips.zones[1].mb_per_s == Approx(400));
  CHECK(dips.dip_every_s == 10);
  CHECK(dips.dip_for_s == 1);
  CHECK(dips.dip_share == Approx(0.5));
  CHECK(zcav::ParseSimSpec("sim:nvme-throttle?cool_after=5").cool_after_s == 5);
}

TEST_CASE("Every refusal of a sim: device is bad input", "[sim_device]") {
  const auto bad_input = zcav::test::HasKind(zcav::ErrorKind::kBadInput);
  for (const char* bad :
       {"sim:floppy", "sim:hdd?colour=red", "sim:hdd?size=abc", "sim:hdd?seed",
        "sim:hdd?size=1G&size=2G", "sim:hdd?busrate=40", "sim:ssd-dips?dip_every=5&dip_for=5"}) {
    CAPTURE(bad);
    CHECK_THROWS_MATCHES(zcav::ParseSimSpec(bad), zcav::Error, bad_input);
  }
  zcav::SimBusSet buses;
  buses.Get("usb", 40);
  CHECK_THROWS_MATCHES(buses.Get("usb", 30), zcav::Error, bad_input);
  zcav::VirtualClock clock;
  CHECK_THROWS_MATCHES(zcav::OpenDeviceForWrite("sim:hdd", zcav::NewTestFile{zcav::kMiB}, clock),
                       zcav::Error, bad_input);
}

TEST_CASE("weak= slows a region of a drive by its factor and leaves its model and the rest",
          "[sim_device]") {
  const zcav::SimModel plain = zcav::ParseSimSpec("sim:hdd?size=10G");
  const zcav::SimModel weak = zcav::ParseSimSpec("sim:hdd?size=10G&weak=40%-60%:0.8,9G-10G:50%");
  CHECK(weak.info.model == plain.info.model);  // the same model, a weaker drive
  const std::uint64_t size = plain.info.size_bytes;
  for (const double at : {0.1, 0.39, 0.41, 0.5, 0.59, 0.61, 0.85, 0.95}) {
    CAPTURE(at);
    const auto offset = static_cast<std::uint64_t>(at * static_cast<double>(size));
    const double factor = at > 0.4 && at < 0.6 ? 0.8 : at > 0.9 ? 0.5 : 1.0;
    CHECK(zcav::ExpectedMbPerS(weak, offset, zcav::kMiB) ==
          Approx(factor * zcav::ExpectedMbPerS(plain, offset, zcav::kMiB)));
  }
  // The same on flat models; not on CAV discs or banded disks.
  const zcav::SimModel ssd = zcav::ParseSimSpec("sim:ssd?size=1G&weak=0%-50%:0.5");
  CHECK(zcav::ExpectedMbPerS(ssd, 0, zcav::kMiB) ==
        Approx(zcav::ExpectedMbPerS(ssd, ssd.info.size_bytes - zcav::kMiB, zcav::kMiB) / 2));
  const auto bad_input = zcav::test::HasKind(zcav::ErrorKind::kBadInput);
  for (const char* bad :
       {"sim:cd?weak=0%-50%:0.5", "sim:banded-hdd?weak=0%-50%:0.5", "sim:hdd?weak=60%-40%:0.5",
        "sim:hdd?weak=40%-60%", "sim:hdd?weak=0%-50%:0", "sim:hdd?size=1G&weak=0-2G:0.5"}) {
    CAPTURE(bad);
    CHECK_THROWS_MATCHES(zcav::ParseSimSpec(bad), zcav::Error, bad_input);
  }
}

TEST_CASE("A rate key of 0 says which rate must be above 0 MB/s", "[sim_device]") {
  const std::pair<const char*, const char*> cases[] = {
      {"sim:hdd?bus=sata&busrate=0", "invalid sim: busrate must be above 0 MB/s"},
      {"sim:hdd?interface=0", "invalid sim: interface rate must be above 0 MB/s"},
      {"sim:nvme-throttle?throttled=0", "invalid sim: throttled rate must be above 0 MB/s"},
      {"sim:ssd-dips?cached_rate=0", "invalid sim: cached_rate must be above 0 MB/s"},
  };
  for (const auto& [spec, message] : cases) {
    CAPTURE(spec);
    try {
      zcav::ParseSimSpec(spec);
      FAIL("no error");
    } catch (const zcav::Error& e) {
      CHECK(std::string(e.what()) == message);
      CHECK(e.kind() == zcav::ErrorKind::kBadInput);
    }
  }
}

TEST_CASE("The optical presets are 2048-byte-sector CAV discs", "[sim_device]") {
  const zcav::SimModel cd = zcav::ParseSimSpec("sim:cd");
  CHECK(cd.info.size_bytes == 360000ULL * 2048);
  CHECK(cd.info.sector_bytes == 2048);
  CHECK(cd.info.model == "simulated 40x CAV CD-ROM");
  CHECK(cd.info.link.empty());
  CHECK(cd.cav);
  CHECK(cd.rpm == 8500);
  const zcav::SimModel dvd = zcav::ParseSimSpec("sim:dvd");
  CHECK(dvd.info.size_bytes == 2295104ULL * 2048);
  CHECK(dvd.info.model == "simulated 16x CAV DVD-ROM");
  CHECK(dvd.radius_inner_mm == 24);
  CHECK(dvd.rpm == 9200);
  CHECK(dvd.interface_mb_per_s == 33);
}

namespace {

// The rates (MB/s) of `count` consecutive 1 MiB reads (or writes) from the
// start of `spec`.
std::vector<double> ConsecutiveRates(const std::string& spec, int count, bool write = false) {
  zcav::VirtualClock clock;
  auto dev = zcav::MakeSimulatedDevice(zcav::ParseSimSpec(spec), clock);
  zcav::AlignedBuffer buf(zcav::kMiB, 4096);
  std::vector<double> rates;
  for (int i = 0; i < count; ++i) {
    const auto before = clock.Now();
    const std::uint64_t at = static_cast<std::uint64_t>(i) * zcav::kMiB;
    const std::error_code ec =
        write ? dev->WriteAt(at, buf.span(zcav::kMiB)) : dev->ReadAt(at, buf.span(zcav::kMiB));
    REQUIRE_FALSE(ec);
    rates.push_back(static_cast<double>(zcav::kMiB) / 1e6 /
                    std::chrono::duration<double>(clock.Now() - before).count());
  }
  return rates;
}

// The relative stddev of `v` and the correlation of its consecutive values.
std::pair<double, double> RelStddevAndLag1(const std::vector<double>& v) {
  const auto n = static_cast<double>(v.size());
  double mean = 0;
  for (const double x : v) mean += x / n;
  double var = 0, cov = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    var += (v[i] - mean) * (v[i] - mean);
    if (i > 0) cov += (v[i] - mean) * (v[i - 1] - mean);
  }
  return {std::sqrt(var / n) / mean, cov / var};
}

}  // namespace

TEST_CASE("corr= makes the noise of consecutive reads wander with that correlation",
          "[sim_device]") {
  CHECK(zcav::ParseSimSpec("sim:ssd?corr=0.9").noise_corr == Approx(0.9));
  CHECK(zcav::ParseSimSpec("sim:ssd").noise_corr == 0);
  const auto [corr_sd, corr_r] =
      RelStddevAndLag1(ConsecutiveRates("sim:ssd?noise=2%&corr=0.9", 4000));
  const auto [indep_sd, indep_r] = RelStddevAndLag1(ConsecutiveRates("sim:ssd?noise=2%", 4000));
  CAPTURE(corr_sd, corr_r, indep_sd, indep_r);
  CHECK(corr_r > 0.7);
  CHECK(std::abs(indep_r) < 0.2);
  // The stddev of each read stays `noise` (the rate's, to first order).
  CHECK(corr_sd == Approx(0.02).epsilon(0.2));
  CHECK(indep_sd == Approx(0.02).epsilon(0.1));
  // corr=0 is no correlation: the very draws of a spec without the key.
  CHECK(ConsecutiveRates("sim:ssd?noise=2%&corr=0", 50) ==
        ConsecutiveRates("sim:ssd?noise=2%", 50));
}

TEST_CASE("corr= below 0 or from 1 up is bad input", "[sim_device]") {
  const auto bad_input = zcav::test::HasKind(zcav::ErrorKind::kBadInput);
  for (const char* bad : {"sim:ssd?corr=1", "sim:ssd?corr=1.5", "sim:ssd?corr=-0.1",
                          "sim:ssd?corr=abc", "sim:ssd?corr=", "sim:ssd?corr=nan"}) {
    CAPTURE(bad);
    CHECK_THROWS_MATCHES(zcav::ParseSimSpec(bad), zcav::Error, bad_input);
  }
}

TEST_CASE("hiccups= stalls that share of the reads for up to hiccup= ms", "[sim_device]") {
  const std::vector<double> steady = ConsecutiveRates("sim:ssd?noise=0", 4000);
  const std::vector<double> stalled =
      ConsecutiveRates("sim:ssd?noise=0&hiccups=5%&hiccup=50", 4000);
  REQUIRE(stalled.size() == steady.size());
  int slowed = 0;
  for (std::size_t i = 0; i < steady.size(); ++i) {
    CAPTURE(i, steady[i], stalled[i]);
    REQUIRE(stalled[i] <= steady[i]);
    if (stalled[i] < steady[i]) {
      ++slowed;
      // At most 50 ms more than the read's own time.
      const double extra_s = 1.048576 / stalled[i] - 1.048576 / steady[i];
      CHECK(extra_s <= 0.050 + 1e-9);
    }
  }
  CHECK(slowed > 150);  // 5 % of 4000: 200, sd 14
  CHECK(slowed < 250);
  // No stalls: the very draws of a spec without the keys.
  CHECK(ConsecutiveRates("sim:ssd?noise=2%&hiccups=0", 50) ==
        ConsecutiveRates("sim:ssd?noise=2%", 50));
  const auto bad_input = zcav::test::HasKind(zcav::ErrorKind::kBadInput);
  for (const char* bad : {"sim:ssd?hiccups=101%", "sim:ssd?hiccups=-1%", "sim:ssd?hiccups=x",
                          "sim:ssd?hiccup=0", "sim:ssd?hiccup=-5", "sim:ssd?hiccup=abc"}) {
    CAPTURE(bad);
    CHECK_THROWS_MATCHES(zcav::ParseSimSpec(bad), zcav::Error, bad_input);
  }
}

TEST_CASE("hiccups= stalls writes too: a card collecting its garbage", "[sim_device]") {
  // A card's write cache, then its slower rate; 5 % of the writes stall.
  const char* card = "sim:ssd?noise=0&wcache=64M&wcache_rate=90&wrate=30";
  const std::vector<double> steady = ConsecutiveRates(card, 400, /*write=*/true);
  const std::vector<double> stalled =
      ConsecutiveRates(std::string(card) + "&hiccups=5%&hiccup=300", 400, /*write=*/true);
  int slowed = 0;
  double longest_extra_s = 0;
  for (std::size_t i = 0; i < steady.size(); ++i) {
    CAPTURE(i);
    REQUIRE(stalled[i] <= steady[i]);
    const double extra_s = 1.048576 / stalled[i] - 1.048576 / steady[i];
    CHECK(extra_s <= 0.300 + 1e-9);
    longest_extra_s = std::max(longest_extra_s, extra_s);
    slowed += stalled[i] < steady[i] ? 1 : 0;
  }
  CHECK(slowed > 8);  // 5 % of 400: 20, sd 4.4
  CHECK(slowed < 32);
  CHECK(longest_extra_s > 0.150);
}

TEST_CASE("drift= slows every read for ON ms of every EVERY ms", "[sim_device]") {
  const std::vector<double> steady = ConsecutiveRates("sim:ssd?noise=0", 2000);
  const std::vector<double> drifting = ConsecutiveRates("sim:ssd?noise=0&drift=0.8:10:40", 2000);
  REQUIRE(drifting.size() == steady.size());
  int slowed = 0;
  for (std::size_t i = 0; i < steady.size(); ++i) {
    CAPTURE(i, steady[i], drifting[i]);
    if (drifting[i] < steady[i] * 0.9) {
      ++slowed;
      CHECK(drifting[i] == Approx(steady[i] * 0.8).epsilon(1e-6));
    } else {
      CHECK(drifting[i] == Approx(steady[i]).epsilon(1e-6));
    }
  }
  // A quarter of the time slowed, where reads take 1.25 times as long: 5 of
  // every 17 reads or so.
  CHECK(slowed > 2000 * 0.2);
  CHECK(slowed < 2000 * 0.35);
  const auto bad_input = zcav::test::HasKind(zcav::ErrorKind::kBadInput);
  for (const char* bad : {"sim:ssd?drift=0.8", "sim:ssd?drift=0.8:10", "sim:ssd?drift=1.2:10:40",
                          "sim:ssd?drift=0.05:10:40", "sim:ssd?drift=0.8:50:40",
                          "sim:ssd?drift=0.8:10:0", "sim:ssd?drift=x:1:2"}) {
    CAPTURE(bad);
    CHECK_THROWS_MATCHES(zcav::ParseSimSpec(bad), zcav::Error, bad_input);
  }
}
