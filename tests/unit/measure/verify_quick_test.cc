// zcav verify --quick's core (verify_quick.h) on simulated fakes
// (sim_storage.h): the real size of fakes that wrap or drop, within 1 %
// while writing under 5 % of it; genuine devices always genuine; a lost
// range found or, narrower than the probes' spacing, missed and said so; a
// write cache defeated by the flush; --keep-data putting back every byte,
// on a fake that wraps and after a stop too.
#include "zcav/measure/verify_quick.h"

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"
#include "zcav/device/write_stamp.h"

namespace zcav {
namespace {

constexpr std::uint64_t kOldRun = 0x6f6c6472756e;  // "oldrun": data on the device before

struct Sim {
  explicit Sim(const std::string& spec) : dev(MakeSimulatedDevice(ParseSimSpec(spec), clock)) {}
  VirtualClock clock;
  std::unique_ptr<Device> dev;
};

QuickVerifyResult Quick(Device& dev, VirtualClock& clock, QuickVerifyOptions o = {},
                        const std::atomic<bool>* stop = nullptr) {
  if (o.run_id == 0) o.run_id = 0x71756963;  // "quic": the same every run
  return RunQuickVerify(dev, clock, o, stop);
}

std::string Spec(std::uint64_t claimed_mib, std::uint64_t real_mib, const char* fake) {
  return "sim:ssd?noise=0&size=" + std::to_string(claimed_mib) +
         "M&real=" + std::to_string(real_mib) + "M&fake=" + fake;
}

bool HasNote(const QuickVerifyResult& r, const std::string& part) {
  for (const std::string& n : r.verify.notes) {
    if (n.find(part) != std::string::npos) return true;
  }
  return false;
}

// A 16 GiB device bad in [6 GiB, 6 GiB + 64 MiB), good below: the bracket
// holds the start, within 1 %, and the usable size is its lower end.
void CheckBadFrom6G(const QuickVerifyResult& r) {
  CHECK(r.bad_bytes >= 6 * kGiB);
  CHECK(r.bad_bytes < 6 * kGiB + 64 * kMiB);
  CHECK(r.good_bytes <= 6 * kGiB);
  CHECK(r.verify.usable_bytes == r.good_bytes);
  CHECK(static_cast<double>(r.verify.usable_bytes) >= 0.99 * 6 * kGiB);
}

// A hash of each MiB of the device, as a read gives it.
std::vector<std::uint64_t> Snapshot(Device& dev) {
  std::vector<std::uint64_t> out;
  AlignedBuffer b(kMiB, 4096);
  for (std::uint64_t at = 0; at < dev.info().size_bytes; at += kMiB) {
    const std::span<std::byte> s = b.span(kMiB);
    std::memset(s.data(), 0, kMiB);
    REQUIRE(!dev.ReadAt(at, s));
    std::uint64_t h[4] = {1, 2, 3, 4};  // four lanes: the multiplications overlap
    for (std::size_t i = 0; i < kMiB; i += 32) {
      for (int k = 0; k < 4; ++k) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i + 8 * k, 8);
        h[k] = (h[k] ^ w) * 0x100000001b3ULL;
      }
    }
    out.push_back(h[0] ^ (h[1] * 3) ^ (h[2] * 5) ^ (h[3] * 7));
  }
  return out;
}

// Data on the device before the check: another run's stamps, foreign bytes,
// and zeros (never written) elsewhere.
void Prefill(Device& dev) {
  AlignedBuffer b(kMiB, 4096);
  const std::span<std::byte> s = b.span(kMiB);
  const auto stamps = [&](std::uint64_t from, std::uint64_t to) {
    for (std::uint64_t at = from; at < to && at < dev.info().size_bytes; at += kMiB) {
      StampWrite(s, at, kOldRun);
      REQUIRE(!dev.WriteAt(at, s));
    }
  };
  stamps(0, 40 * kMiB);
  std::mt19937_64 rng(7);
  for (std::uint64_t at = 40 * kMiB; at < 48 * kMiB; at += kMiB) {
    for (std::size_t i = 0; i < kMiB; i += 8) {
      const std::uint64_t w = rng();
      std::memcpy(s.data() + i, &w, 8);
    }
    REQUIRE(!dev.WriteAt(at, s));
  }
  stamps(96 * kMiB, 128 * kMiB);
  stamps(400 * kMiB, 512 * kMiB);
}

// Sets *stop after `after` writes (a user's Ctrl-C in the middle).
class StopAfterWrites final : public Device {
 public:
  StopAfterWrites(Device& inner, std::atomic<bool>& stop, int after)
      : inner_(inner), stop_(stop), left_(after) {}
  const DeviceInfo& info() const override { return inner_.info(); }
  std::error_code ReadAt(std::uint64_t at, std::span<std::byte> b) noexcept override {
    return inner_.ReadAt(at, b);
  }
  std::error_code WriteAt(std::uint64_t at, std::span<const std::byte> b) noexcept override {
    if (--left_ == 0) stop_ = true;
    return inner_.WriteAt(at, b);
  }

 private:
  Device& inner_;
  std::atomic<bool>& stop_;
  int left_;
};

// A controller's write-back cache: the last `cache_bytes` written are held
// (by logical place) and read back from there; older writes reach the media.
class WriteCache final : public Device {
 public:
  WriteCache(Device& inner, std::uint64_t cache_bytes) : inner_(inner), cap_(cache_bytes) {}
  const DeviceInfo& info() const override { return inner_.info(); }
  std::error_code ReadAt(std::uint64_t at, std::span<std::byte> b) noexcept override {
    if (const std::error_code ec = inner_.ReadAt(at, b)) return ec;
    for (const Held& h : held_) {  // oldest first: the newest wins
      const std::uint64_t lo = std::max(at, h.at);
      const std::uint64_t hi = std::min(at + b.size(), h.at + h.data.size());
      if (lo < hi) std::memcpy(b.data() + (lo - at), h.data.data() + (lo - h.at), hi - lo);
    }
    return {};
  }
  std::error_code WriteAt(std::uint64_t at, std::span<const std::byte> b) noexcept override {
    held_.push_back({at, std::vector<std::byte>(b.begin(), b.end())});
    used_ += b.size();
    while (used_ > cap_) {
      const Held& h = held_.front();
      AlignedBuffer out(h.data.size(), 4096);
      std::memcpy(out.span(h.data.size()).data(), h.data.data(), h.data.size());
      if (const std::error_code ec = inner_.WriteAt(h.at, out.span(h.data.size()))) return ec;
      used_ -= h.data.size();
      held_.pop_front();
    }
    return {};
  }

 private:
  struct Held {
    std::uint64_t at;
    std::vector<std::byte> data;
  };
  Device& inner_;
  const std::uint64_t cap_;
  std::uint64_t used_ = 0;
  std::deque<Held> held_;
};

// Places in [lo, hi) keep the data of the first write that reached them;
// later writes there are acknowledged and dropped (a fake's write that never
// reached the media).
class StuckAfterFirstWrite final : public Device {
 public:
  StuckAfterFirstWrite(Device& inner, std::uint64_t lo, std::uint64_t hi)
      : inner_(inner), lo_(lo), hi_(hi) {}
  const DeviceInfo& info() const override { return inner_.info(); }
  std::error_code ReadAt(std::uint64_t at, std::span<std::byte> b) noexcept override {
    return inner_.ReadAt(at, b);
  }
  std::error_code WriteAt(std::uint64_t at, std::span<const std::byte> b) noexcept override {
    const bool touches = at < hi_ && lo_ < at + b.size();
    if (touches && written_) return {};
    written_ |= touches;
    return inner_.WriteAt(at, b);
  }

 private:
  Device& inner_;
  const std::uint64_t lo_;
  const std::uint64_t hi_;
  bool written_ = false;
};

}  // namespace

TEST_CASE("Quick finds the real size of fakes that wrap or drop, within 1 %, writing under 5 %",
          "[verify_quick]") {
  struct Case {
    std::uint64_t real_mib;
    std::uint64_t times;
  };
  // 1-64 GiB real claiming 2-16x; powers of two and not (1000 MiB, 3 GiB, 7.5 GiB).
  const Case cases[] = {{1024, 2}, {1024, 16}, {1000, 7},  {3072, 5},
                        {7680, 4}, {16384, 8}, {65536, 2}, {65536, 16}};
  for (const Case& c : cases) {
    for (const char* fake : {"wrap", "drop"}) {
      const std::string spec = Spec(c.real_mib * c.times, c.real_mib, fake);
      CAPTURE(spec);
      Sim sim(spec);
      const QuickVerifyResult r = Quick(*sim.dev, sim.clock);
      const double real = static_cast<double>(c.real_mib * kMiB);
      CHECK(r.verify.verdict == VerifyVerdict::kFakeCapacity);
      CHECK(std::abs(static_cast<double>(r.verify.usable_bytes) - real) <= 0.01 * real);
      CHECK(static_cast<double>(r.verify.written_bytes) < 0.05 * real);
      // The bracket holds the truth and is as close as asked.
      CHECK(r.good_bytes <= c.real_mib * kMiB);
      CHECK(r.bad_bytes >= c.real_mib * kMiB);
      CHECK(r.precision <= 0.01);
      CHECK(r.verify.usable_bytes >= r.good_bytes);
      CHECK(r.verify.usable_bytes <= r.bad_bytes);
      if (std::string(fake) == "wrap") {
        CHECK(r.wrap_period_bytes == c.real_mib * kMiB);  // the stamp names the place exactly
      } else {
        CHECK(r.wrap_period_bytes == 0);
      }
      CHECK(r.probes > 100);
      CHECK(r.rounds >= 1);
      CHECK_FALSE(r.verify.interrupted);
    }
  }
}

TEST_CASE("Quick narrows a coarse first round down to the precision in further rounds",
          "[verify_quick]") {
  for (const char* fake : {"wrap", "drop"}) {
    CAPTURE(fake);
    Sim sim(Spec(16384, 1000, fake));
    QuickVerifyOptions o;
    o.first_round_precision = 0.2;  // 16 MiB apart at 1000 MiB: 1.6 %
    const QuickVerifyResult r = Quick(*sim.dev, sim.clock, o);
    const std::uint64_t real = 1000 * kMiB;
    CHECK(r.rounds >= 2);
    CHECK(r.verify.verdict == VerifyVerdict::kFakeCapacity);
    CHECK(r.precision <= 0.01);
    CHECK(r.good_bytes <= real);
    CHECK(r.bad_bytes >= real);
    CHECK(static_cast<double>(r.verify.written_bytes) < 0.05 * static_cast<double>(real));
    if (std::string(fake) == "wrap") {
      // A probe just below the period and one at it: known to the byte.
      CHECK(r.good_bytes == real);
      CHECK(r.bad_bytes == real);
      CHECK(r.verify.usable_bytes == real);
    } else {
      CHECK(std::abs(static_cast<double>(r.verify.usable_bytes) - 1000.0 * kMiB) <=
            0.01 * 1000 * kMiB);
    }
  }
}

TEST_CASE("Quick: data an earlier round left at a place does not pass for this round's",
          "[verify_quick]") {
  // The cache flush is written every round at the same places; where the
  // second round's flush never reaches the media, the first round's data
  // stays: stale (its own run id), not good.
  Sim sim(Spec(16384, 1000, "drop"));
  QuickVerifyOptions o;
  o.first_round_precision = 0.2;  // so that there is a second round
  const QuickVerifyPlan plan = PlanQuickVerify(sim.dev->info(), o);
  const std::uint64_t lo = plan.flush_offset_bytes + 4 * kMiB;
  StuckAfterFirstWrite stuck(*sim.dev, lo, lo + kMiB);
  const QuickVerifyResult r = Quick(stuck, sim.clock, o);
  REQUIRE(r.rounds >= 2);
  bool found = false;
  for (const VerifyRange& x : r.verify.ranges) {
    if (x.start_bytes == lo && x.end_bytes == lo + kMiB) {
      found = true;
      CHECK(x.state == VerifyState::kLost);
      CHECK(x.lost_as == SectorState::kStale);
    }
  }
  CHECK(found);
  CHECK(r.bad_bytes == lo);
  CHECK(r.verify.verdict == VerifyVerdict::kDataLoss);
}

TEST_CASE("Quick calls a genuine device genuine, whatever its size and seed", "[verify_quick]") {
  std::mt19937_64 rng(39);
  const char* models[] = {"ssd", "hdd", "usb2-hdd"};
  for (int seed = 1; seed <= 12; ++seed) {
    // Sizes from 100 MiB to 2 TiB, log-uniform, whole MiB.
    const double log_mib =
        std::uniform_real_distribution<double>(std::log(100), std::log(2 << 20))(rng);
    const auto mib = static_cast<std::uint64_t>(std::exp(log_mib));
    const std::string spec = std::string("sim:") + models[seed % 3] +
                             "?seed=" + std::to_string(seed) + "&size=" + std::to_string(mib) + "M";
    CAPTURE(seed, spec);
    Sim sim(spec);
    QuickVerifyOptions o;
    o.run_id = rng();
    const QuickVerifyResult r = Quick(*sim.dev, sim.clock, o);
    CHECK(r.verify.verdict == VerifyVerdict::kGenuine);
    CHECK(r.verify.usable_bytes == mib * kMiB);
    CHECK(r.bad_bytes == mib * kMiB);
    CHECK(r.good_bytes == mib * kMiB);
    CHECK(r.wrap_period_bytes == 0);
    for (const VerifyRange& x : r.verify.ranges) CHECK(x.state == VerifyState::kGood);
    CHECK(r.rounds == 1);
  }
  // A size that is not whole probes (10^9 bytes): the last bytes unprobed, still genuine.
  Sim sim("sim:ssd?noise=0&size=1000MB");
  const QuickVerifyResult r = Quick(*sim.dev, sim.clock);
  CHECK(r.verify.verdict == VerifyVerdict::kGenuine);
  CHECK(r.verify.usable_bytes == 1000000000);
  CHECK(r.good_bytes == 1000000000 / 4096 * 4096);
}

TEST_CASE(
    "Quick finds a lost or unreadable range wider than its probes' spacing; a narrower "
    "one it may miss",
    "[verify_quick]") {
  // 64 MiB lost, or failing reads, at 6 GiB of a 16 GiB device: probes are
  // at most 16 MiB apart.
  for (const bool lose : {true, false}) {
    CAPTURE(lose);
    Sim sim(std::string("sim:ssd?noise=0&size=16G&") + (lose ? "lose=6G-6208M" : "bad=6G+64M"));
    const QuickVerifyResult r = Quick(*sim.dev, sim.clock);
    CHECK(r.verify.verdict == (lose ? VerifyVerdict::kDataLoss : VerifyVerdict::kUnreadable));
    CheckBadFrom6G(r);
    const VerifyState want = lose ? VerifyState::kLost : VerifyState::kUnreadable;
    CHECK(std::any_of(r.verify.ranges.begin(), r.verify.ranges.end(),
                      [&](const VerifyRange& x) { return x.state == want; }));
    CHECK(HasNote(r, lose ? "quick: spot checks, not every sector" : "failed"));
  }
  // 4 MiB lost in the middle of the widest gap between two probes: unseen.
  {
    Sim probe_sim("sim:ssd?noise=0&size=16G");
    const QuickVerifyPlan plan = PlanQuickVerify(probe_sim.dev->info(), QuickVerifyOptions{});
    std::uint64_t gap_at = 0;
    std::uint64_t gap = 0;
    for (std::size_t i = 1; i < plan.probes.size(); ++i) {
      if (plan.probes[i - 1] < plan.flush_offset_bytes + plan.flush_bytes) continue;
      const std::uint64_t g = plan.probes[i] - plan.probes[i - 1] - plan.probe_bytes;
      if (g > gap) {
        gap = g;
        gap_at = plan.probes[i - 1] + plan.probe_bytes;
      }
    }
    REQUIRE(gap >= 8 * kMiB);
    const std::uint64_t lo_mib = (gap_at + gap / 2) / kMiB;
    Sim sim("sim:ssd?noise=0&size=16G&lose=" + std::to_string(lo_mib) + "M-" +
            std::to_string(lo_mib + 4) + "M");
    const QuickVerifyResult r = Quick(*sim.dev, sim.clock);
    CHECK(r.verify.verdict == VerifyVerdict::kGenuine);  // missed, as the note says it can be
    CHECK(HasNote(r, "quick: spot checks, not every sector"));
    CHECK(r.verify.notes.front().find("a lost range narrower than that can lie between them") !=
          std::string::npos);
  }
}

TEST_CASE("Quick: a write cache hides a fake unless the flush outgrows it", "[verify_quick]") {
  for (const std::uint64_t flush : {std::uint64_t{0}, 16 * kMiB}) {
    CAPTURE(flush);
    Sim sim(Spec(4096, 1024, "drop"));
    WriteCache cached(*sim.dev, 8 * kMiB);  // more than all the probes together
    QuickVerifyOptions o;
    o.cache_flush_bytes = flush;
    const QuickVerifyResult r = Quick(cached, sim.clock, o);
    if (flush == 0) {
      // Every probe still in the cache reads back good: the fake passes.
      CHECK(r.verify.verdict == VerifyVerdict::kGenuine);
    } else {
      CHECK(r.verify.verdict == VerifyVerdict::kFakeCapacity);
      CHECK(std::abs(static_cast<double>(r.verify.usable_bytes) - 1024.0 * kMiB) <=
            0.01 * 1024 * kMiB);
    }
  }
}

TEST_CASE("Quick with keep_data puts back every byte, on a genuine device and on fakes",
          "[verify_quick]") {
  for (const char* spec : {"sim:ssd?noise=0&size=512M", "sim:ssd?noise=0&size=512M&real=128M",
                           "sim:ssd?noise=0&size=512M&real=200M&fake=drop"}) {
    CAPTURE(spec);
    Sim sim(spec);
    Prefill(*sim.dev);
    const std::vector<std::uint64_t> before = Snapshot(*sim.dev);
    QuickVerifyOptions o;
    o.keep_data = true;
    const QuickVerifyResult r = Quick(*sim.dev, sim.clock, o);
    CHECK(r.kept_data);
    CHECK(r.restored);
    CHECK(r.saved_bytes == r.probes * r.probe_bytes + r.flush_bytes);  // each place once
    CHECK(r.verify.written_bytes > 0);
    CHECK(Snapshot(*sim.dev) == before);
    CHECK(r.verify.verdict == (std::string(spec).find("real") == std::string::npos
                                   ? VerifyVerdict::kGenuine
                                   : VerifyVerdict::kFakeCapacity));
  }
  // The comparison can fail: without keep_data the data is gone.
  Sim sim("sim:ssd?noise=0&size=512M");
  Prefill(*sim.dev);
  const std::vector<std::uint64_t> before = Snapshot(*sim.dev);
  Quick(*sim.dev, sim.clock);
  CHECK(Snapshot(*sim.dev) != before);
}

TEST_CASE("Quick with keep_data on a wrap puts back places that a probe overwrote through it",
          "[verify_quick]") {
  // 128 MiB real: the probes between 128 MiB + window and 128 MiB + window +
  // flush land on the flush's places, which are written (and kept) after
  // them. Only writing back the last kept first restores the original.
  Sim sim("sim:ssd?noise=0&size=512M&real=128M");
  const QuickVerifyPlan plan = PlanQuickVerify(sim.dev->info(), QuickVerifyOptions{});
  const std::uint64_t lo = 128 * kMiB + plan.flush_offset_bytes;
  const auto aliased = std::count_if(plan.probes.begin(), plan.probes.end(), [&](std::uint64_t x) {
    return x >= lo && x < lo + plan.flush_bytes;
  });
  REQUIRE(aliased > 0);
  Prefill(*sim.dev);
  const std::vector<std::uint64_t> before = Snapshot(*sim.dev);
  QuickVerifyOptions o;
  o.keep_data = true;
  const QuickVerifyResult r = Quick(*sim.dev, sim.clock, o);
  CHECK(r.wrap_period_bytes == 128 * kMiB);
  CHECK(r.restored);
  CHECK(Snapshot(*sim.dev) == before);
}

TEST_CASE("Quick with keep_data stopped half way still puts everything back", "[verify_quick]") {
  // Stopped among the probes, and in the cache flush (after every probe).
  Sim probe_sim("sim:ssd?noise=0&size=512M&real=128M");
  const std::size_t probes =
      PlanQuickVerify(probe_sim.dev->info(), QuickVerifyOptions{}).probes.size();
  for (const int after : {100, static_cast<int>(probes) + 3}) {
    CAPTURE(after);
    Sim sim("sim:ssd?noise=0&size=512M&real=128M");
    Prefill(*sim.dev);
    const std::vector<std::uint64_t> before = Snapshot(*sim.dev);
    std::atomic<bool> stop{false};
    StopAfterWrites stopping(*sim.dev, stop, after);
    QuickVerifyOptions o;
    o.keep_data = true;
    const QuickVerifyResult r = Quick(stopping, sim.clock, o, &stop);
    CHECK(r.verify.interrupted);
    CHECK(r.restored);
    CHECK(r.saved_bytes > 0);
    // The write that saw the stop requested was the last.
    const std::uint64_t want =
        after == 100 ? 100 * r.probe_bytes : probes * r.probe_bytes + 3 * kMiB;
    CHECK(r.verify.written_bytes == want);
    CHECK(Snapshot(*sim.dev) == before);
  }
}

TEST_CASE("Quick with keep_data writes no place it could not read first", "[verify_quick]") {
  // Reads (and writes) fail in 8 MiB of the flush and around 300 MiB.
  Sim sim("sim:ssd?noise=0&size=512M&bad=8M+8M,300M+1M");
  QuickVerifyOptions o;
  o.keep_data = true;
  const QuickVerifyResult r = Quick(*sim.dev, sim.clock, o);
  CHECK(HasNote(r, "to keep its data failed"));
  CHECK(HasNote(r, ": not written"));
  CHECK_FALSE(HasNote(r, "writing at"));  // no write was tried there
  CHECK(r.verify.verdict == VerifyVerdict::kUnreadable);
  CHECK(r.bad_bytes == 8 * kMiB);
  CHECK(r.restored);
}

TEST_CASE("Quick refuses keep_data it cannot make safe, and bad options, before writing",
          "[verify_quick]") {
  Sim sim("sim:ssd?noise=0&size=1G");
  QuickVerifyOptions o;
  o.keep_data = true;
  o.keep_memory_bytes = 4 * kMiB;  // less than the flush alone
  try {
    Quick(*sim.dev, sim.clock, o);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::kBadInput);
    CHECK(std::string(e.what()).find("--keep-data") == 0);
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
  CHECK(sim.clock.Now().count() == 0);  // nothing was read or written
  QuickVerifyOptions bad;
  bad.probe_bytes = 1000;
  CHECK_THROWS_AS(Quick(*sim.dev, sim.clock, bad), Error);
  bad = {};
  bad.precision = 0;
  CHECK_THROWS_AS(Quick(*sim.dev, sim.clock, bad), Error);
  Sim tiny("sim:ssd?noise=0&size=64M");
  CHECK_THROWS_AS(Quick(*tiny.dev, tiny.clock), Error);
}

TEST_CASE("The quick plan: probes close enough everywhere, at powers of two and the end",
          "[verify_quick]") {
  Sim sim("sim:ssd?noise=0&size=16G");
  const QuickVerifyOptions o;
  const QuickVerifyPlan plan = PlanQuickVerify(sim.dev->info(), o);
  CHECK(plan.window_bytes == 16 * kMiB);  // 16 GiB / 1024
  CHECK(plan.flush_offset_bytes == plan.window_bytes);
  CHECK(plan.flush_bytes == 16 * kMiB);
  REQUIRE(!plan.probes.empty());
  CHECK(plan.probes.back() == 16 * kGiB - 4096);
  for (std::size_t i = 1; i < plan.probes.size(); ++i) {
    const std::uint64_t a = plan.probes[i - 1];
    const std::uint64_t b = plan.probes[i];
    CAPTURE(a, b);
    CHECK(a % 4096 == 0);
    CHECK(b > a);
    const bool across_flush = a < plan.flush_offset_bytes && b >= plan.flush_offset_bytes;
    if (!across_flush) {
      CHECK(b - a <= plan.window_bytes);
      CHECK(static_cast<double>(b - a - plan.probe_bytes) <=
            o.precision * static_cast<double>(a + plan.probe_bytes));
    }
    CHECK((b + plan.probe_bytes <= plan.flush_offset_bytes ||
           b >= plan.flush_offset_bytes + plan.flush_bytes));
  }
  const auto in_flush = [&](std::uint64_t x) {
    return x + plan.probe_bytes > plan.flush_offset_bytes &&
           x < plan.flush_offset_bytes + plan.flush_bytes;
  };
  for (std::uint64_t p = 2 * kMiB; p < 16 * kGiB; p *= 2) {
    for (const std::uint64_t x : {p - 4096, p}) {
      CAPTURE(x);
      CHECK(std::binary_search(plan.probes.begin(), plan.probes.end(), x) != in_flush(x));
    }
  }
  // Under 5 % of a real 1 GiB in the first round.
  CHECK(static_cast<double>(plan.first_round_write_bytes) < 0.05 * kGiB);
}

}  // namespace zcav
