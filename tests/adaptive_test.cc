// Tests of adaptive sampling (measure/adaptive.h) with the zone detector's
// grid steps (analysis/adaptive_steps.h), on simulated devices whose zone
// tables are known.
#include "zcav/measure/adaptive.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "zcav/analysis/adaptive_steps.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"

namespace zcav {
namespace {

AdaptiveResult Sample(const std::string& spec, VirtualClock& clock, AdaptiveOptions o = {}) {
  auto dev = MakeSimulatedDevice(ParseSimSpec(spec), clock);
  if (o.probe_bytes == 0) o.probe_bytes = 64 * kMiB;
  return SampleAdaptively(*dev, clock, o, [](const std::vector<AdaptiveProbe>& grid) {
    return GridSteps(grid, ZoneOptions{});
  });
}

// Every model edge found within `tolerance` bytes, no other edge, and every
// zone's rate within 1 % of the model's.
void CheckAgainstModel(const std::string& spec, const AdaptiveResult& r, double tolerance) {
  const SimModel m = ParseSimSpec(spec);
  const auto size = static_cast<double>(m.info.size_bytes);
  REQUIRE(r.edges.size() + 1 == m.zones.size());
  for (std::size_t i = 0; i < r.edges.size(); ++i) {
    CAPTURE(i);
    const double model_edge = m.zones[i].end_frac * size;
    CHECK(std::abs(static_cast<double>(r.edges[i].at_bytes) - model_edge) <= tolerance);
    CHECK(static_cast<double>(r.edges[i].uncertainty_bytes) <= tolerance);
  }
  REQUIRE(r.zones.size() == m.zones.size());
  for (std::size_t z = 0; z < r.zones.size(); ++z) {
    CAPTURE(z);
    CHECK(r.zones[z].mb_per_s == Approx(m.zones[z].mb_per_s).epsilon(0.01));
  }
}

TEST_CASE("A 20 TB disk of 30 zones: every edge within 0.1 % from under 1 % of it read",
          "[adaptive]") {
  for (const char* spec :
       {"sim:hdd?size=20T&zones=30&noise=0", "sim:hdd?size=20T&zones=30&noise=2%"}) {
    CAPTURE(spec);
    VirtualClock clock;
    const AdaptiveResult r = Sample(spec, clock);
    REQUIRE_FALSE(r.error);
    const double size = 20e12;
    CheckAgainstModel(spec, r, 0.001 * size);
    CHECK(static_cast<double>(r.bytes_read) <= 0.01 * size);
    // A full sweep at the zones' rates takes size / rate; the sampling at
    // most 1/50 of it (seeks included).
    const SimModel m = ParseSimSpec(spec);
    double full_seconds = 0;
    for (const SimZone& z : m.zones)
      full_seconds += (z.end_frac - z.start_frac) * size / (z.mb_per_s * 1e6);
    const double seconds = std::chrono::duration<double>(clock.Now()).count();
    CHECK(seconds <= full_seconds / 50);
    INFO("read " << r.bytes_read << " bytes in " << r.probes.size() << " probes, " << seconds
                 << " s of " << full_seconds << " s");
  }
}

TEST_CASE("The cost grows with the edges, not with the size", "[adaptive]") {
  VirtualClock small_clock, big_clock;
  const AdaptiveResult small = Sample("sim:hdd?size=1T&zones=16", small_clock);
  const AdaptiveResult big = Sample("sim:hdd?size=20T&zones=16", big_clock);
  REQUIRE(small.edges.size() == 15);
  REQUIRE(big.edges.size() == 15);
  // 20 times the size: a few more bisection steps per edge (log2 20 = 4.3),
  // not 20 times the reads.
  CHECK(big.probes.size() < small.probes.size() + 15 * 5 + 1);
}

TEST_CASE("A flat device stops after the grid; a CAV disc's slope is no edge", "[adaptive]") {
  VirtualClock clock;
  AdaptiveOptions o;
  o.grid_probes = 50;
  o.probe_bytes = 16 * kMiB;
  const AdaptiveResult flat = Sample("sim:ssd?size=500G", clock, o);
  CHECK(flat.edges.empty());
  CHECK(flat.probes.size() == 50);
  REQUIRE(flat.zones.size() == 1);
  CHECK(flat.zones[0].probes == 50);
  VirtualClock cd_clock;
  o.probe_bytes = 4 * kMiB;
  const AdaptiveResult cd = Sample("sim:cd", cd_clock, o);
  CHECK(cd.edges.empty());
  CHECK(cd.probes.size() == 50);
}

TEST_CASE("A byte budget stops the bisection; the open edges say how wide they are", "[adaptive]") {
  VirtualClock clock;
  AdaptiveOptions o;
  o.byte_budget = 200 * 64 * kMiB;  // about the grid alone
  const AdaptiveResult r = Sample("sim:hdd?size=20T&zones=30&noise=0", clock, o);
  CHECK(r.budget_hit);
  REQUIRE(r.edges.size() == 29);
  std::uint64_t widest = 0;
  for (const AdaptiveEdge& e : r.edges) widest = std::max(widest, e.uncertainty_bytes);
  CHECK(widest > 64 * kMiB);  // some edges left at the grid's spacing
  CHECK(r.bytes_read <= o.byte_budget + 2 * 64 * kMiB);
}

TEST_CASE("Adaptive sampling refuses a probe or a range it cannot use", "[adaptive]") {
  VirtualClock clock;
  AdaptiveOptions o;
  o.probe_bytes = 512;
  CHECK_THROWS_AS(Sample("sim:ssd?size=1G", clock, o), Error);
  o.probe_bytes = 512 * kMiB;
  CHECK_THROWS_AS(Sample("sim:ssd?size=1G", clock, o), Error);
  o.probe_bytes = kMiB;
  o.grid_probes = 2;
  CHECK_THROWS_AS(Sample("sim:ssd?size=1G", clock, o), Error);
}

}  // namespace
}  // namespace zcav
