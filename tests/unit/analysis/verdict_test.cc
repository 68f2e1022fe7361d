#include "zcav/analysis/verdict.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "zcav/analysis/transport.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/base/clock.h"
#include "zcav/device/sim_device.h"
#include "zcav/format/zone_table.h"
#include "zcav/measure/sweep.h"
#include "zcav/pipeline/zone_sink.h"

namespace {

constexpr double kDeviceBytes = 250e9;

// An analysis of `type` with zones of the given (median MB/s, share of the
// device), in position order, over a 250 GB device of 1000 blocks.
zcav::ZoneAnalysis Analysis(zcav::CurveType type,
                            const std::vector<std::pair<double, double>>& zones,
                            double stddev_fraction = 0.003) {
  zcav::ZoneAnalysis a;
  a.type = type;
  double start = 0;
  std::uint64_t block = 0;
  for (const auto& [rate, share] : zones) {
    zcav::Zone z;
    z.start_bytes = static_cast<std::uint64_t>(start * kDeviceBytes);
    start += share;
    z.end_bytes = static_cast<std::uint64_t>(start * kDeviceBytes);
    z.first_block = block;
    block = static_cast<std::uint64_t>(start * 1000);
    z.end_block = block;
    z.mb_per_s = z.mean_mb_per_s = rate;
    z.min_mb_per_s = rate * 0.99;
    z.max_mb_per_s = rate * 1.01;
    z.stddev_mb_per_s = rate * stddev_fraction;
    a.zones.push_back(z);
  }
  a.fastest_zone = 0;
  a.slowest_zone = a.zones.size() - 1;
  a.outer_inner_ratio = a.zones.front().mb_per_s / a.zones.back().mb_per_s;
  a.noise_sigma_mb_per_s = a.zones.front().mb_per_s * stddev_fraction;
  a.description = "test curve";
  return a;
}

// The sim hdd's 16 zones, 60 -> 30 MB/s, shares proportional to the rate.
std::vector<std::pair<double, double>> SixteenZones() {
  std::vector<std::pair<double, double>> z;
  for (int k = 0; k < 16; ++k) z.emplace_back(60 - 2 * k, (60 - 2 * k) / 720.0);
  return z;
}

zcav::VerdictInputs Inputs(double peak, std::optional<double> burst, zcav::Transport t) {
  zcav::VerdictInputs in;
  in.sustained_max_mb_per_s = peak;
  in.sustained_avg_mb_per_s = peak;
  in.burst_mb_per_s = burst;
  in.transport = std::move(t);
  return in;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("Verdict kinds have the JSON names the issue fixes", "[verdict]") {
  CHECK(std::string(zcav::VerdictKindName(zcav::VerdictKind::kBusLimited)) == "bus-limited");
  CHECK(std::string(zcav::VerdictKindName(zcav::VerdictKind::kMediaLimited)) == "media-limited");
  CHECK(std::string(zcav::VerdictKindName(zcav::VerdictKind::kBusCapped)) == "bus-capped");
  CHECK(std::string(zcav::VerdictKindName(zcav::VerdictKind::kUndetermined)) == "undetermined");
}

TEST_CASE("A disk flat near the USB2 ceiling with burst equal to sustained is bus-limited",
          "[verdict]") {
  const auto a = Analysis(zcav::CurveType::kFlat, {{34.9, 1.0}});
  const auto v = zcav::DecideVerdict(a, Inputs(34.9, 35.1, zcav::TransportFromName("usb2")));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kBusLimited);
  CHECK(Has(v.reason, "34.9 MB/s"));
  CHECK(Has(v.reason, "±0.3 %"));
  CHECK(Has(v.reason, "87 %"));
  CHECK(Has(v.reason, "40 MB/s"));
  CHECK(Has(v.reason, "35.1 MB/s"));
  CHECK(Has(v.reason, "the bus, not the disk"));
}

TEST_CASE("A flat disk at 33 MB/s over FireWire 400 is bus-limited without a burst figure",
          "[verdict]") {
  const auto a = Analysis(zcav::CurveType::kFlat, {{33, 1.0}});
  const auto v = zcav::DecideVerdict(a, Inputs(33, std::nullopt, zcav::TransportFromName("fw400")));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kBusLimited);
  CHECK(Has(v.reason, "82 %"));  // 33 of 40
}

TEST_CASE("An internal zoned disk with burst well above sustained is media-limited", "[verdict]") {
  const auto a = Analysis(zcav::CurveType::kZoned, SixteenZones());
  const auto v = zcav::DecideVerdict(a, Inputs(60, 130.0, zcav::TransportFromName("sata1")));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kMediaLimited);
  CHECK(Has(v.reason, "60.0 MB/s"));
  CHECK(Has(v.reason, "30.0 MB/s"));
  CHECK(Has(v.reason, "2.00:1"));
  CHECK(Has(v.reason, "130.0 MB/s"));
  CHECK(Has(v.reason, "43 %"));  // 60 of 140
  CHECK(v.capped_share == 0);
}

TEST_CASE("A falling curve is media-limited even with no burst and no known bus", "[verdict]") {
  const auto a = Analysis(zcav::CurveType::kZoned, SixteenZones());
  const auto v = zcav::DecideVerdict(a, Inputs(60, std::nullopt, zcav::Transport{}));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kMediaLimited);
}

TEST_CASE("A write sweep's fall from its write cache is no media or bus verdict", "[verdict]") {
  // Two zones falling 4:1: for a read sweep no platter's curve (a step no
  // zone makes), for a write sweep the write cache filling.
  const auto a = Analysis(zcav::CurveType::kZoned, {{240, 0.25}, {60, 0.75}});
  auto in = Inputs(240, std::nullopt, zcav::TransportFromName("sata3"));
  CHECK_FALSE(Has(zcav::DecideVerdict(a, in).reason, "write cache"));
  in.write_cache = zcav::AnalyzeWriteCache(a, 0);
  REQUIRE(in.write_cache);
  const auto v = zcav::DecideVerdict(a, in);
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kUndetermined);
  CHECK(Has(v.reason, "write cache (" + in.write_cache->description + ")"));
  CHECK(Has(v.reason, "not the media or the bus"));
}

TEST_CASE("A curve falling less than 1.2:1 but more than 1.1:1 is undetermined", "[verdict]") {
  const auto a = Analysis(zcav::CurveType::kZoned, {{60, 0.5}, {52, 0.5}});
  const auto v = zcav::DecideVerdict(a, Inputs(60, std::nullopt, zcav::TransportFromName("usb3")));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kUndetermined);
  CHECK(Has(v.reason, "1.15:1"));
}

TEST_CASE("The clipped usb2-hdd curve is bus-capped over 87 % with an uncapped 60 MB/s",
          "[verdict]") {
  // 60 -> 30 MB/s in 16 zones behind a 35 MB/s cap: zones 0-12 read at 35.
  auto zones = SixteenZones();
  std::vector<std::pair<double, double>> clipped{{35, 0}};
  for (const auto& [rate, share] : zones) {
    if (rate >= 35) {
      clipped[0].second += share;
    } else {
      clipped.emplace_back(rate, share);
    }
  }
  const auto a = Analysis(zcav::CurveType::kClipped, clipped);
  const auto v = zcav::DecideVerdict(a, Inputs(35, 35.0, zcav::TransportFromName("usb2")));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kBusCapped);
  CHECK(v.capped_share == Approx(624.0 / 720).epsilon(0.01));
  CHECK(v.uncapped_estimate_mb_per_s == Approx(60).epsilon(0.1));
  CHECK(Has(v.reason, "35.0 MB/s"));
  CHECK(Has(v.reason, "87 %"));
  CHECK(Has(v.reason, "30.0 MB/s"));
  CHECK(Has(v.reason, "about 6"));  // "about 6x.x MB/s"
}

TEST_CASE("A clipped curve with one falling zone still estimates the uncapped rate", "[verdict]") {
  // True curve: rate^2 = 3600 (1 - 0.75 p); capped at 35 up to p = 0.88.
  const auto a = Analysis(zcav::CurveType::kClipped, {{35, 0.88}, {32, 0.12}});
  const auto v = zcav::DecideVerdict(a, Inputs(35, std::nullopt, zcav::TransportFromName("usb2")));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kBusCapped);
  CHECK(v.capped_share == Approx(0.88).epsilon(0.01));
  CHECK(v.uncapped_estimate_mb_per_s > 40);
  CHECK(v.uncapped_estimate_mb_per_s < 80);
}

TEST_CASE("A SATA SSD flat at 530 MB/s with burst 530 on SATA 6 Gb/s is bus-limited", "[verdict]") {
  // 530 is 95 % of SATA 6 Gb/s's practical 560: the interface stops it (the
  // same flash behind NVMe reads faster).
  const auto a = Analysis(zcav::CurveType::kFlat, {{530, 1.0}});
  zcav::DeviceInfo d;
  d.kind = "block";
  d.transport = "ata";
  d.link = "SATA 6.0 Gbps";
  const auto v = zcav::DecideVerdict(a, Inputs(530, 530.0, zcav::TransportFromDevice(d)));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kBusLimited);
  CHECK(Has(v.reason, "95 %"));
  CHECK(Has(v.reason, "560 MB/s"));
}

TEST_CASE("A device flat far below a known fast bus is limited by the device itself", "[verdict]") {
  const auto a = Analysis(zcav::CurveType::kFlat, {{530, 1.0}});
  const auto v = zcav::DecideVerdict(a, Inputs(530, 530.0, zcav::TransportFromName("pcie3x4")));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kMediaLimited);
  CHECK(Has(v.reason, "device itself"));
  CHECK(Has(v.reason, "16 %"));  // 530 of 3348
}

TEST_CASE("A flat curve whose burst is well above sustained is media-limited", "[verdict]") {
  const auto a = Analysis(zcav::CurveType::kFlat, {{35, 1.0}});
  const auto v = zcav::DecideVerdict(a, Inputs(35, 120.0, zcav::Transport{}));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kMediaLimited);
  CHECK(Has(v.reason, "120.0 MB/s"));
  CHECK(Has(v.reason, "3.43x"));
}

TEST_CASE("A flat curve with burst equal to sustained and no known bus is bus-limited",
          "[verdict]") {
  const auto a = Analysis(zcav::CurveType::kFlat, {{36, 1.0}});
  zcav::DeviceInfo loop;
  loop.kind = "block";
  loop.transport = "loop";
  const auto v = zcav::DecideVerdict(a, Inputs(36, 37.0, zcav::TransportFromDevice(loop)));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kBusLimited);
  CHECK(Has(v.reason, "--bus"));
}

TEST_CASE("A flat curve with neither ceiling nor burst known is undetermined", "[verdict]") {
  const auto a = Analysis(zcav::CurveType::kFlat, {{36, 1.0}});
  const auto v = zcav::DecideVerdict(a, Inputs(36, std::nullopt, zcav::Transport{}));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kUndetermined);
  CHECK(Has(v.reason, "36.0 MB/s"));
  CHECK(Has(v.reason, "--bus"));
}

TEST_CASE("A level far above the stated ceiling discards that ceiling and says so", "[verdict]") {
  const auto a = Analysis(zcav::CurveType::kFlat, {{200, 1.0}});
  const auto v = zcav::DecideVerdict(a, Inputs(200, std::nullopt, zcav::TransportFromName("usb2")));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kUndetermined);
  CHECK(Has(v.reason, "above the USB 2.0"));
}

TEST_CASE("Empty and optical curves are undetermined", "[verdict]") {
  CHECK(
      zcav::DecideVerdict(zcav::ZoneAnalysis{}, Inputs(0, std::nullopt, zcav::Transport{})).kind ==
      zcav::VerdictKind::kUndetermined);
  auto cav = Analysis(zcav::CurveType::kCav, {{3, 1.0}});
  const auto v = zcav::DecideVerdict(cav, Inputs(6, std::nullopt, zcav::Transport{}));
  CHECK(v.kind == zcav::VerdictKind::kUndetermined);
  CHECK(Has(v.reason, "cav"));
}

namespace {

struct SimRun {
  zcav::ZoneAnalysis analysis;
  zcav::Transport transport;
};

SimRun SweepSim(const std::string& spec) {
  zcav::VirtualClock clock;
  const auto model = zcav::ParseSimSpec(spec);
  auto dev = zcav::MakeSimulatedDevice(model, clock);
  zcav::RunInfo run;
  run.device = dev->info();
  run.plan = zcav::PlanSweep(run.device, {});
  zcav::ResultSink none;
  zcav::ZoneDetectingSink zones(none, {}, zcav::Media::kNone);
  zcav::RunSweep(*dev, run, clock, zones);
  return {zones.analysis(), zcav::TransportFromDevice(dev->info())};
}

zcav::Verdict VerdictOf(const SimRun& r) {
  const auto& a = r.analysis;
  REQUIRE(!a.zones.empty());
  return zcav::DecideVerdict(a,
                             Inputs(a.zones[a.fastest_zone].mb_per_s, std::nullopt, r.transport));
}

}  // namespace

TEST_CASE("Sweeps of the sim models get their verdicts: usb2-hdd capped, hdd media, ssd bus",
          "[verdict]") {
  SECTION("usb2-hdd") {
    const SimRun r = SweepSim("sim:usb2-hdd?noise=2%");
    const zcav::Verdict v = VerdictOf(r);
    CAPTURE(r.analysis.description, v.reason);
    CHECK(v.kind == zcav::VerdictKind::kBusCapped);
    CHECK(v.capped_share == Approx(0.87).margin(0.05));
    CHECK(v.uncapped_estimate_mb_per_s == Approx(60).epsilon(0.1));
  }
  SECTION("hdd") {
    const SimRun r = SweepSim("sim:hdd");
    const zcav::Verdict v = VerdictOf(r);
    CAPTURE(r.analysis.description, v.reason);
    CHECK(v.kind == zcav::VerdictKind::kMediaLimited);
  }
  SECTION("ssd") {
    const SimRun r = SweepSim("sim:ssd");
    const zcav::Verdict v = VerdictOf(r);
    CAPTURE(r.analysis.description, v.reason);
    CHECK(v.kind == zcav::VerdictKind::kBusLimited);
  }
}

TEST_CASE("A falling curve on a device that does not rotate gets no platter verdict", "[verdict]") {
  auto a = Analysis(zcav::CurveType::kZoned, {{10000, 0.44}, {2500, 0.56}});
  a.non_rotational = true;
  const auto v = zcav::DecideVerdict(a, Inputs(10000, std::nullopt, zcav::Transport{}));
  CHECK(v.kind == zcav::VerdictKind::kUndetermined);
  CHECK(Has(v.reason, "does not rotate"));
  CHECK_FALSE(Has(v.reason, "platter, which"));
}

TEST_CASE("A falling curve read once with correlated noise asks for a second pass", "[verdict]") {
  auto a = Analysis(zcav::CurveType::kZoned, SixteenZones());
  a.texture.variance_inflation = 12;
  a.texture.correlated = true;
  const auto once = zcav::DecideVerdict(a, Inputs(60, std::nullopt, zcav::Transport{}));
  CHECK(once.kind == zcav::VerdictKind::kUndetermined);
  CHECK(Has(once.reason, "--passes 2"));
  // Two passes that put every step at the same position settle it.
  for (std::size_t k = 1; k < a.zones.size(); ++k) {
    zcav::Step step;
    step.zone = k;
    step.origin = zcav::StepOrigin::kPosition;
    a.steps.push_back(step);
  }
  const auto twice = zcav::DecideVerdict(a, Inputs(60, std::nullopt, zcav::Transport{}));
  CHECK(twice.kind == zcav::VerdictKind::kMediaLimited);
  CHECK(Has(twice.reason, "same positions in every pass"));
  // A clean staircase read once still is the media's.
  a.steps.clear();
  a.texture.variance_inflation = 1;
  a.texture.correlated = false;
  CHECK(zcav::DecideVerdict(a, Inputs(60, std::nullopt, zcav::Transport{})).kind ==
        zcav::VerdictKind::kMediaLimited);
}

TEST_CASE("A tiered curve is judged by its last tier, the device behind the cache", "[verdict]") {
  const auto a = Analysis(zcav::CurveType::kTiered, {{300, 0.2}, {38, 0.8}});
  const auto v = zcav::DecideVerdict(a, Inputs(300, std::nullopt, zcav::TransportFromName("usb2")));
  CHECK(v.kind == zcav::VerdictKind::kBusLimited);
  CHECK(Has(v.reason, "Tiered: 300"));
  CHECK(Has(v.reason, "38.0 MB/s"));
}

TEST_CASE("A fall no platter makes is named for what it is, not called the media's", "[verdict]") {
  // The one-pass sweep of a file on a virtual disk whose rotation
  // is not known: 9.6 GB/s for 44 %, then 1.3-2.9 GB/s.
  const auto virtio = Analysis(zcav::CurveType::kZoned, {{9600, 0.44},
                                                         {2900, 0.08},
                                                         {2500, 0.10},
                                                         {1300, 0.10},
                                                         {1350, 0.10},
                                                         {1500, 0.08},
                                                         {1400, 0.05},
                                                         {1300, 0.05}});
  const auto v = zcav::DecideVerdict(virtio, Inputs(9600, std::nullopt, zcav::Transport{}));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kUndetermined);
  CHECK(Has(v.reason, "7.4:1"));
  CHECK(Has(v.reason, "tiers: a cache"));
  CHECK(Has(v.reason, "first 44 %"));
  CHECK_FALSE(Has(v.reason, "platter, which"));
  // A step of 2.6x between neighbours inside an otherwise plausible fall,
  // read once: steps in time.
  const auto step =
      Analysis(zcav::CurveType::kZoned, {{100, 0.3}, {95, 0.3}, {36, 0.2}, {34, 0.2}}, 0.003);
  const auto s = zcav::DecideVerdict(step, Inputs(90, std::nullopt, zcav::Transport{}));
  CAPTURE(s.reason);
  CHECK(s.kind == zcav::VerdictKind::kUndetermined);
  CHECK(Has(s.reason, "drops 2.6x"));
  CHECK(Has(s.reason, "steps in time"));
  // A rise towards the inner edge.
  const auto rise = Analysis(zcav::CurveType::kZoned, {{60, 0.3}, {95, 0.3}, {50, 0.4}});
  const auto r = zcav::DecideVerdict(rise, Inputs(95, std::nullopt, zcav::Transport{}));
  CAPTURE(r.reason);
  CHECK(r.kind == zcav::VerdictKind::kUndetermined);
  CHECK(Has(r.reason, "rises 58 %"));
}

TEST_CASE("A platter's fall above one disk's rate is an array's, and two zones are too few",
          "[verdict]") {
  std::vector<std::pair<double, double>> twelve;
  for (int k = 0; k < 12; ++k) twelve.emplace_back(1200 - 50 * k, 1.0 / 12);
  const auto array = Analysis(zcav::CurveType::kZoned, twelve);
  const auto v = zcav::DecideVerdict(array, Inputs(1200, std::nullopt, zcav::Transport{}));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kMediaLimited);
  CHECK(Has(v.reason, "array of disks"));
  const auto two = Analysis(zcav::CurveType::kZoned, {{900, 0.5}, {700, 0.5}});
  const auto t = zcav::DecideVerdict(two, Inputs(900, std::nullopt, zcav::Transport{}));
  CAPTURE(t.reason);
  CHECK(t.kind == zcav::VerdictKind::kUndetermined);
  CHECK(Has(t.reason, "above what one disk reads"));
}

TEST_CASE("A burst below sustained on a fast flat device is latency, not quoted as evidence",
          "[verdict]") {
  // A virtual disk flat at 2400 MB/s whose burst test (64 KiB reads one at a
  // time) reached 420 MB/s: no bus limit and no device limit follows from it.
  const auto a = Analysis(zcav::CurveType::kFlat, {{2400, 1.0}});
  const auto v = zcav::DecideVerdict(a, Inputs(2400, 420.0, zcav::Transport{}));
  CAPTURE(v.reason);
  CHECK(v.kind == zcav::VerdictKind::kUndetermined);
  CHECK(Has(v.reason, "420.0 MB/s"));
  CHECK(Has(v.reason, "0.17x"));
  CHECK(Has(v.reason, "latency"));
  CHECK(Has(v.reason, "--bus"));
  CHECK_FALSE(Has(v.reason, "measure the burst rate"));  // it was measured
  // With a known ceiling the verdict stands on the ceiling alone.
  const auto sata = Analysis(zcav::CurveType::kFlat, {{300, 1.0}});
  const auto v2 = zcav::DecideVerdict(sata, Inputs(300, 45.0, zcav::TransportFromName("sata3")));
  CAPTURE(v2.reason);
  CHECK(v2.kind == zcav::VerdictKind::kMediaLimited);
  CHECK_FALSE(Has(v2.reason, "45.0 MB/s"));
}

TEST_CASE("A falling curve does not quote a burst below its peak as support", "[verdict]") {
  // sim:hdd?cache=0: every burst repetition pays a seek back to 0.
  const auto a = Analysis(zcav::CurveType::kZoned, SixteenZones());
  const auto low = zcav::DecideVerdict(a, Inputs(60, 38.0, zcav::Transport{}));
  CAPTURE(low.reason);
  CHECK(low.kind == zcav::VerdictKind::kMediaLimited);
  CHECK_FALSE(Has(low.reason, "38.0 MB/s"));
  const auto high = zcav::DecideVerdict(a, Inputs(60, 130.0, zcav::Transport{}));
  CHECK(Has(high.reason, "130.0 MB/s"));
}
