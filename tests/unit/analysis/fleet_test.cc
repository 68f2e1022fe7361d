// Tests of the fleet comparison (analysis/fleet.h).
#include "zcav/analysis/fleet.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "zcav/base/units.h"

namespace zcav {
namespace {

// A 1000-block curve over `size` falling from 200 to 100 MB/s, times
// `factor` between `weak_from` and `weak_to` (shares of the surface), with
// a ripple of +-`ripple` set by `seed`.
Curve Falling(std::uint64_t size, double weak_from, double weak_to, double factor, int seed,
              double ripple = 0.01) {
  Curve c;
  const std::uint64_t block = size / 1000;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const double at = (static_cast<double>(i) + 0.5) / 1000;
    double rate = 200 - 100 * at;
    if (at >= weak_from && at < weak_to) rate *= factor;
    rate *=
        1 + ripple * std::sin(static_cast<double>(i * 7 + static_cast<std::uint64_t>(seed) * 13));
    c.push_back(CurvePoint{.offset_bytes = i * block, .length_bytes = block, .mb_per_s = rate});
  }
  return c;
}

FleetDrive Drive(const std::string& model, int seed, const Curve& curve) {
  FleetDrive d;
  d.model = model;
  d.firmware = "FW1";
  d.serial = "SN" + std::to_string(seed);
  d.name = d.serial;
  d.size_bytes = 1000 * kMiB;
  d.bins = FleetBins(curve, d.size_bytes);
  return d;
}

TEST_CASE("FleetBins gives each 1 % of the surface its blocks' median", "[fleet]") {
  const Curve c = Falling(1000 * kMiB, 0, 0, 1, 0, 0);
  const FleetCurve bins = FleetBins(c, 1000 * kMiB);
  // Bin b holds blocks 10b..10b+9: their median rate is at 10b + 5.
  CHECK(bins[0] == Approx(200 - 100 * 0.0050).epsilon(1e-4));
  CHECK(bins[50] == Approx(200 - 100 * 0.5050).epsilon(1e-4));
  CHECK(bins[99] == Approx(200 - 100 * 0.9950).epsilon(1e-4));
  // Ten 10 %-blocks: every bin takes the block it lies in.
  Curve coarse;
  for (std::uint64_t i = 0; i < 10; ++i) {
    coarse.push_back(CurvePoint{.offset_bytes = i * 100 * kMiB,
                                .length_bytes = 100 * kMiB,
                                .mb_per_s = 100.0 + static_cast<double>(i)});
  }
  const FleetCurve from_coarse = FleetBins(coarse, 1000 * kMiB);
  CHECK(std::isnan(from_coarse[0]));  // more than two bins from block 0's middle (5 %)
  CHECK(from_coarse[4] == 100);
  CHECK(from_coarse[5] == 100);
  CHECK(from_coarse[6] == 100);
  CHECK(from_coarse[95] == 109);
  CHECK(std::isnan(from_coarse[10]));
  // A curve that covers half the device leaves the rest empty.
  Curve half;
  for (std::size_t i = 0; i < 500; ++i) half.push_back(c[i]);
  const FleetCurve from_half = FleetBins(half, 1000 * kMiB);
  CHECK_FALSE(std::isnan(from_half[49]));
  CHECK(std::isnan(from_half[60]));
}

TEST_CASE("AnalyzeFleet groups by model and flags exactly the weak drives, with their regions",
          "[fleet]") {
  std::vector<FleetDrive> drives;
  for (int i = 0; i < 24; ++i) {
    const bool weak_a = i == 5;
    const bool weak_b = i == 17;
    drives.push_back(Drive("ST4000", i,
                           Falling(1000 * kMiB,
                                   weak_a   ? 0.40
                                   : weak_b ? 0.80
                                            : 0,
                                   weak_a   ? 0.60
                                   : weak_b ? 0.90
                                            : 0,
                                   weak_a   ? 0.82
                                   : weak_b ? 0.70
                                            : 1,
                                   i)));
  }
  for (int i = 0; i < 6; ++i) {
    Curve flat;
    for (std::uint64_t b = 0; b < 1000; ++b) {
      flat.push_back(
          CurvePoint{.offset_bytes = b * kMiB,
                     .length_bytes = kMiB,
                     .mb_per_s = 500 * (1 + 0.01 * std::sin(static_cast<double>(b + 3 * i)))});
    }
    drives.push_back(Drive("Samsung SSD", 100 + i, flat));
  }
  const FleetAnalysis a = AnalyzeFleet(drives);
  REQUIRE(a.groups.size() == 2);
  CHECK(a.groups[0].key == "ST4000 (firmware FW1)");
  CHECK(a.groups[0].drives.size() == 24);
  CHECK(a.groups[1].drives.size() == 6);
  CHECK(a.groups[0].has_reference);
  CHECK(a.groups[0].median[50] == Approx(150).epsilon(0.02));
  CHECK(a.groups[0].p10[50] <= a.groups[0].median[50]);
  CHECK(a.groups[0].p90[50] >= a.groups[0].median[50]);
  std::vector<std::size_t> flagged;
  for (std::size_t d = 0; d < drives.size(); ++d) {
    if (a.scores[d].flagged) flagged.push_back(d);
  }
  CHECK(flagged == std::vector<std::size_t>{5, 17});
  REQUIRE(a.scores[5].worst_region);
  CHECK(a.scores[5].worst_region->start_percent == 40);
  CHECK(a.scores[5].worst_region->end_percent == 60);
  CHECK(a.scores[5].worst_region->ratio == Approx(0.82).epsilon(0.02));
  CHECK(a.scores[5].reasons.front() ==
        "18 % below its 23 siblings between 40 and 60 % of the surface");
  REQUIRE(a.scores[17].worst_region);
  CHECK(a.scores[17].worst_region->start_percent == 80);
  CHECK(a.scores[17].worst_region->end_percent == 90);
  // Worst first: drive 17 (70 % in its region), then 5, then the rest.
  CHECK(a.order[0] == 17);
  CHECK(a.order[1] == 5);
  CHECK(a.scores[0].ratio.value() == Approx(1).epsilon(0.02));
  CHECK(*a.scores[5].ratio < 1);
}

TEST_CASE("In a small group a weak drive is measured against its siblings alone", "[fleet]") {
  // Four drives: one 25 % slow from 25 to 50 %; one sibling 12 % slow from
  // 30 to 40 % (a passing slowdown). With the weak drive in its own
  // reference, the median there is the mean of the slowed sibling and a
  // normal one, and the spread of the four is wide: the weak region would
  // break up. Against its three siblings it is whole.
  std::vector<FleetDrive> drives;
  drives.push_back(Drive("WD", 0, Falling(1000 * kMiB, 0.25, 0.50, 0.75, 0)));
  drives.push_back(Drive("WD", 1, Falling(1000 * kMiB, 0.30, 0.40, 0.88, 1)));
  drives.push_back(Drive("WD", 2, Falling(1000 * kMiB, 0, 0, 1, 2)));
  drives.push_back(Drive("WD", 3, Falling(1000 * kMiB, 0, 0, 1, 3)));
  const FleetAnalysis a = AnalyzeFleet(drives);
  REQUIRE(a.scores[0].worst_region);
  CHECK(a.scores[0].worst_region->start_percent == 25);
  CHECK(a.scores[0].worst_region->end_percent == 50);
  CHECK(a.scores[0].worst_region->ratio == Approx(0.75).epsilon(0.03));
  CHECK(a.scores[0].reasons.front() ==
        "25 % below its 3 siblings between 25 and 50 % of the surface");
  // The group's curves (the plot's band) still hold every drive.
  CHECK(a.groups[0].drives.size() == 4);
}

TEST_CASE("AnalyzeFleet flags what needs no siblings, and compares access and burst", "[fleet]") {
  std::vector<FleetDrive> drives;
  for (int i = 0; i < 4; ++i) {
    FleetDrive d = Drive("WD80", i, Falling(1000 * kMiB, 0, 0, 1, i));
    d.access_mean_ms = i == 1 ? 30.0 : 14.0;
    d.burst_mb_per_s = i == 2 ? 100.0 : 550.0;
    drives.push_back(d);
  }
  FleetDrive lone = Drive("Lonely", 9, Falling(1000 * kMiB, 0, 0, 1, 9));
  lone.unreadable_ranges = 2;
  lone.health = "failing";
  drives.push_back(lone);
  const FleetAnalysis a = AnalyzeFleet(drives);
  CHECK_FALSE(a.scores[0].flagged);
  REQUIRE(a.scores[1].reasons.size() == 1);
  CHECK(a.scores[1].reasons[0] == "access time 30.0 ms, its 3 siblings 14.0 ms (median)");
  REQUIRE(a.scores[2].reasons.size() == 1);
  CHECK(a.scores[2].reasons[0].rfind("burst rate 100.0 MB/s", 0) == 0);
  CHECK_FALSE(a.groups[1].has_reference);
  CHECK_FALSE(a.scores[4].ratio);
  CHECK(a.scores[4].reasons == std::vector<std::string>{"2 unreadable ranges", "health failing"});
  FleetDrive unknown;
  unknown.size_bytes = 4000;
  CHECK(FleetGroupKey(unknown) == "unknown model, 4000 bytes");
}

}  // namespace
}  // namespace zcav
