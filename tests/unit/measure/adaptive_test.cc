// Tests of adaptive sampling (measure/adaptive.h) with the zone detector's
// grid steps (analysis/adaptive_steps.h), on simulated devices whose zone
// tables are known.
#include "zcav/measure/adaptive.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "testutil.h"
#include "zcav/analysis/adaptive_steps.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/base/aligned_buffer.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"

namespace zcav {
namespace {

// `model` sampled with 64 MiB probes (unless `o` says otherwise), its
// steps from the zone detector.
AdaptiveResult SampleModel(const SimModel& model, VirtualClock& clock, AdaptiveOptions o = {}) {
  auto dev = MakeSimulatedDevice(model, clock);
  if (o.probe_bytes == 0) o.probe_bytes = 64 * kMiB;
  return SampleAdaptively(*dev, clock, o, [](const std::vector<AdaptiveProbe>& grid) {
    return GridSteps(grid, ZoneOptions{});
  });
}

AdaptiveResult Sample(const std::string& spec, VirtualClock& clock, AdaptiveOptions o = {}) {
  return SampleModel(ParseSimSpec(spec), clock, o);
}

// Every model edge found within `tolerance` bytes, no other edge, and every
// zone's rate within 1 % of the model's.
void CheckAgainstModel(const SimModel& m, const AdaptiveResult& r, double tolerance) {
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

// What the adaptive sampling promises on a zoned disk: every edge within
// 0.1 % of the device, every zone's rate within 1 %, under 1 % of the
// device read, in at most 1/50 of a full sweep's time (seeks included; a
// full sweep at the zones' rates takes the sum of length / rate).
void CheckFoundModel(const SimModel& m, const AdaptiveResult& r, VirtualClock& clock) {
  REQUIRE_FALSE(r.error);
  const auto size = static_cast<double>(m.info.size_bytes);
  double full_seconds = 0;
  for (const SimZone& z : m.zones)
    full_seconds += (z.end_frac - z.start_frac) * size / (z.mb_per_s * kMB);
  const double seconds = std::chrono::duration<double>(clock.Now()).count();
  INFO(r.edges.size() << " edges; read " << 100 * static_cast<double>(r.bytes_read) / size
                      << " % in " << r.probes.size() << " probes, 1/" << full_seconds / seconds
                      << " of a sweep's time");
  CheckAgainstModel(m, r, 0.001 * size);
  CHECK(static_cast<double>(r.bytes_read) <= 0.01 * size);
  CHECK(seconds <= full_seconds / 50);
}

// The zones of a real disk's table in tests/data/zone-tables (see its
// README), as fractions of the capacity at the estimated sequential rate:
// consecutive bands of one visible_zone make one zone (their length over
// their time).
std::vector<SimZone> ReadZoneTable(const std::string& file) {
  std::ifstream in(test::DataPath("zone-tables/" + file));
  REQUIRE(in);
  std::vector<std::string> header;
  std::vector<SimZone> zones;
  double last_zone = -1;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    for (const std::string_view cell : SplitAt(line, ',')) cells.emplace_back(cell);
    if (header.empty()) {
      header = cells;
      continue;
    }
    const auto column = [&](const char* name) {
      const auto it = std::find(header.begin(), header.end(), name);
      REQUIRE(it != header.end());
      return std::stod(cells.at(static_cast<std::size_t>(it - header.begin())));
    };
    const SimZone band{column("start_frac"), column("end_frac"), column("seq_MBps_est")};
    const double zone = column("visible_zone");
    if (zone == last_zone) {
      SimZone& z = zones.back();
      const double seconds = (z.end_frac - z.start_frac) / z.mb_per_s +
                             (band.end_frac - band.start_frac) / band.mb_per_s;
      z.end_frac = band.end_frac;
      z.mb_per_s = (z.end_frac - z.start_frac) / seconds;
    } else {
      zones.push_back(band);
    }
    last_zone = zone;
  }
  return zones;
}

// The probes of `r` as a curve, each standing for its stretch to the next
// probe (as GridSteps shows the grid to the zone detector). Without edges
// the probes are the grid's.
Curve GridCurve(const AdaptiveResult& r) {
  Curve curve;
  for (std::size_t i = 0; i < r.probes.size(); ++i) {
    const AdaptiveProbe& p = r.probes[i];
    const std::uint64_t end =
        i + 1 < r.probes.size() ? r.probes[i + 1].offset_bytes : p.offset_bytes + p.length_bytes;
    curve.push_back({.offset_bytes = p.offset_bytes,
                     .length_bytes = end - p.offset_bytes,
                     .mb_per_s = p.mb_per_s});
  }
  return curve;
}

// A full sweep of `spec` in 1 MiB blocks, each block's rate its bytes over
// its virtual time.
Curve SweepCurve(const std::string& spec) {
  VirtualClock clock;
  auto dev = MakeSimulatedDevice(ParseSimSpec(spec), clock);
  const std::uint64_t size = dev->info().size_bytes;
  AlignedBuffer buffer(kMiB, 4096);
  Curve curve;
  for (std::uint64_t at = 0; at < size; at += kMiB) {
    const std::uint64_t length = std::min(kMiB, size - at);
    const auto before = clock.Now();
    REQUIRE_FALSE(dev->ReadAt(at, buffer.span(length)));
    curve.push_back({.offset_bytes = at,
                     .length_bytes = length,
                     .mb_per_s = MbPerS(length, clock.Now() - before)});
  }
  return curve;
}

// Options for 2 % noise with corr=0.5. A probe's rate is the mean of its
// 1 MiB reads, and an AR(1) of 0.5 triples the variance of such a mean: 0.45 %
// at 64 MiB, a quarter of the 1.7 % steps of the 30-zone disk and more than
// half of the Quantum Atlas III's 0.74 % one. There the grid misses steps
// and misplaces the probe beside an edge (the 64 MiB case below: 46 of 50
// seeds right); 256 MiB probes halve that noise and still read under 1 %
// of the disk.
AdaptiveOptions CorrelatedNoiseOptions() {
  AdaptiveOptions o;
  o.probe_bytes = 256 * kMiB;
  return o;
}

// `file`'s zones on a 10 TB sim:hdd (its seek, rotation and cache) read as
// `spec` says, sampled with `o`: CheckFoundModel's promises, and a flat
// table stops after the grid.
void CheckZoneTable(const char* file, const std::string& spec, const AdaptiveOptions& o) {
  CAPTURE(file, spec);
  SimModel m = ParseSimSpec(spec);
  m.zones = ReadZoneTable(file);
  VirtualClock clock;
  const AdaptiveResult r = SampleModel(m, clock, o);
  CheckFoundModel(m, r, clock);
  if (m.zones.size() == 1) CHECK(r.probes.size() == o.grid_probes);
}

TEST_CASE("A 20 TB disk of 30 zones: every edge within 0.1 % from under 1 % of it read",
          "[adaptive]") {
  for (const char* spec :
       {"sim:hdd?size=20T&zones=30&noise=0", "sim:hdd?size=20T&zones=30&noise=2%"}) {
    CAPTURE(spec);
    VirtualClock clock;
    CheckFoundModel(ParseSimSpec(spec), Sample(spec, clock), clock);
  }
  const std::string spec = "sim:hdd?size=20T&zones=30&noise=2%&corr=0.5";
  CAPTURE(spec);
  VirtualClock clock;
  CheckFoundModel(ParseSimSpec(spec), Sample(spec, clock, CorrelatedNoiseOptions()), clock);
}

TEST_CASE("Real disks' zone tables on 10 TB: every edge and rate found, a flat one after the grid",
          "[adaptive]") {
  for (const char* file : {"DEC_RZ26.csv", "HP_C2247A.csv", "Quantum_AtlasIII_QM39100TD-SW.csv",
                           "Seagate_ST41601N.csv"}) {
    CheckZoneTable(file, "sim:hdd?size=10T&noise=2%&corr=0.5", CorrelatedNoiseOptions());
  }
  CheckZoneTable("DEC_RZ26.csv", "sim:hdd?size=10T&noise=0", AdaptiveOptions{});
}

// On a noiseless grid the residuals inside each zone are floating-point
// rounding (~1e-16), all of one sign: the zone detector once read them as a
// correlation of 0.98 and merged steps of 4-5 % (4 of HP C2247A's 8 zones).
TEST_CASE("Noiseless real zone tables on 10 TB: every edge found", "[adaptive]") {
  for (const char* file :
       {"HP_C2247A.csv", "Quantum_AtlasIII_QM39100TD-SW.csv", "Seagate_ST41601N.csv"}) {
    CheckZoneTable(file, "sim:hdd?size=10T&noise=0", AdaptiveOptions{});
  }
}

// How many of seeds 1..`seeds` of `spec` (a 30-zone sim:hdd) find every
// edge within 0.1 % of the device and every zone's rate within `rate_tol`,
// reading at most 1 % of it; the others' seeds are appended to `wrong`.
int RightSeeds(const std::string& spec, int seeds, const AdaptiveOptions& o, double rate_tol,
               std::string& wrong) {
  int right = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    const std::string seeded = spec + "&seed=" + std::to_string(seed);
    const SimModel m = ParseSimSpec(seeded);
    VirtualClock clock;
    const AdaptiveResult r = Sample(seeded, clock, o);
    const auto size = static_cast<double>(m.info.size_bytes);
    bool ok = !r.error && r.edges.size() + 1 == m.zones.size() &&
              static_cast<double>(r.bytes_read) <= 0.01 * size;
    for (std::size_t i = 0; ok && i < r.edges.size(); ++i) {
      ok = std::abs(static_cast<double>(r.edges[i].at_bytes) - m.zones[i].end_frac * size) <=
           0.001 * size;
    }
    for (std::size_t z = 0; ok && z < r.zones.size(); ++z) {
      ok = std::abs(r.zones[z].mb_per_s / m.zones[z].mb_per_s - 1) <= rate_tol;
    }
    if (ok) {
      ++right;
    } else {
      wrong += " " + std::to_string(seed);
    }
  }
  return right;
}

// With 64 MiB probes under correlated noise (0.45 % a probe, a quarter of
// the 1.7 % steps) the grid lost a step on 13 of seeds 1-50. Such a grid
// (its smallest step under 5 noise sigmas) is read a second time where it
// is under 0.2 % of the range: 46 of 50 then (seeds 18, 20, 24 and 26
// still lose one; 128 MiB probes: 50 of 50), at 0.28 % of the disk read.
TEST_CASE("A 20 TB disk of 30 zones under correlated noise with 64 MiB probes", "[adaptive]") {
  std::string wrong;
  const int right =
      RightSeeds("sim:hdd?size=20T&zones=30&noise=2%&corr=0.5", 50, AdaptiveOptions{}, 0.01, wrong);
  INFO("seeds with an edge or a rate wrong:" << wrong);
  CHECK(right >= 42);
}

// A stall (a reader preempted on a busy machine, a host pausing its
// virtual disk) makes one probe read slow: in the grid it looked like a
// zone of one probe, split a zone or hid a step; in a bisection it sent the
// search the wrong way for good. Stalled grid probes are read again, a
// probe's rate is the median of its reads that agree, a bisection's probe
// far off both levels is read again, a reopened bracket is verified again,
// and the edge is placed where the probes read around it disagree least.
// 0.1 % of the 1 MiB reads stall for up to 100 ms: one probe in 16 slowed
// by up to 6.6 %, four times the 1.7 % steps. No finite number of re-reads
// wins every time (a probe stalled on its verification too keeps its
// edge a few hundred probes off): over 300 seeds at least 270 find every
// edge. Over seeds 1-2000, 1872 do (93.6 %; 1873 without the reference
// probe, whose reads stall too; the sampler without these defences: 33 of
// the first 60): 300 seeds give 281 +- 4, and any change to the reads
// draws them anew (277 and 284 here), so the bound is 2.5 sigma below.
TEST_CASE("A 20 TB disk of 30 zones whose reads stall now and then", "[adaptive]") {
  std::string wrong;
  const int right = RightSeeds("sim:hdd?size=20T&zones=30&noise=1%&hiccups=0.1%&hiccup=100", 300,
                               AdaptiveOptions{}, 1, wrong);
  INFO("seeds with an edge lost or misplaced:" << wrong);
  CHECK(right >= 270);
}

// Probes that read far off both levels through all their reads (a slow
// spell on a busy host that outlasts a probe's re-reads, or a weak stretch
// of media) vote for neither side of an edge: on a loaded machine such a
// run of probes just before an edge of the FUSE fixture put the edge 15 MiB
// early with +-1 MiB claimed. Here a stretch read at half speed a few MiB
// before an edge of a 1 GiB disk: before this rule, 5 of these 7 placements
// moved the edge to the stretch's start; now every edge is where it is
// without the stretch.
TEST_CASE("A stretch read far off both levels beside an edge does not move the edge",
          "[adaptive]") {
  const std::string base = "sim:hdd?size=1G&zones=8&outer=300&inner=110&noise=1%&seed=1";
  AdaptiveOptions o;
  o.probe_bytes = kMiB;
  o.grid_probes = 32;
  VirtualClock plain_clock;
  const AdaptiveResult plain = Sample(base, plain_clock, o);
  REQUIRE(plain.edges.size() >= 5);
  for (const char* weak : {"340M-346M:0.5", "345M-350M:0.5", "350M-355M:0.5", "495M-500M:0.5",
                           "500M-505M:0.6", "170M-176M:0.5", "176M-182M:0.5"}) {
    CAPTURE(weak);
    VirtualClock clock;
    const AdaptiveResult r = Sample(base + "&weak=" + weak, clock, o);
    REQUIRE(r.edges.size() == plain.edges.size());
    for (std::size_t i = 0; i < r.edges.size(); ++i) {
      CAPTURE(i);
      const double edge = static_cast<double>(plain.edges[i].at_bytes);
      CHECK(std::abs(static_cast<double>(r.edges[i].at_bytes) - edge) <=
            static_cast<double>(r.edges[i].uncertainty_bytes + kMiB));
    }
  }
}

// A busy host: 1 % of the 1 MiB reads stall for up to 100 ms (one probe
// in two slowed, many far off their level). Re-reads would go on until the
// reads agree; they stop at half the other bytes read, the result says so,
// and the edges found are about as many as without the bound (in such
// noise either finds 10 to 29 of the 29 edges, seed by seed: 90 and 88 over
// seeds 1-5). On a calm disk they stay far under the bound.
TEST_CASE("Re-reads on a busy host stop at half the other reads, and the result says so",
          "[adaptive]") {
  AdaptiveOptions unbounded;
  unbounded.max_reread_share = 1e9;
  std::size_t bounded_edges = 0, unbounded_edges = 0;
  for (int seed = 1; seed <= 5; ++seed) {
    CAPTURE(seed);
    const std::string spec =
        "sim:hdd?size=20T&zones=30&noise=1%&hiccups=1%&hiccup=100&seed=" + std::to_string(seed);
    VirtualClock clock;
    const AdaptiveResult r = Sample(spec, clock);
    const std::uint64_t first = r.bytes_read - r.reread_bytes;
    CHECK(r.reread_capped);
    // (Checked before each read: one probe, and the reference read at once
    // after it, may pass the bound.)
    CHECK(r.reread_bytes <= first / 2 + 2 * r.probe_bytes);
    CHECK(r.reread_bytes >= first / 2 - 2 * r.probe_bytes);
    VirtualClock unbounded_clock;
    const AdaptiveResult u = Sample(spec, unbounded_clock, unbounded);
    CHECK_FALSE(u.reread_capped);
    CHECK(u.reread_bytes > first / 2 + 2 * r.probe_bytes);
    bounded_edges += r.edges.size();
    unbounded_edges += u.edges.size();
  }
  CHECK(bounded_edges * 10 >= unbounded_edges * 8);
  VirtualClock clock;
  const AdaptiveResult calm = Sample("sim:hdd?size=20T&zones=30&noise=1%&seed=1", clock);
  CHECK_FALSE(calm.reread_capped);
  CHECK(calm.reread_bytes > 0);  // (each edge's verification)
  CHECK(calm.reread_bytes * 5 < calm.bytes_read - calm.reread_bytes);
}

// A host's slow periods (a virtual disk, a busy machine: every read 3-4 %
// slower for 70-100 s at a time, twice the 1.7 % steps) moved the grid's
// levels and sent bisections the wrong way; the reference probe, read
// again before every 10 probes, shows the drift, and each read is divided
// by it: 30 and 29 of 30 seeds find every edge and rate. Without the
// reference none does.
TEST_CASE("A 20 TB disk of 30 zones whose host slows down for a while", "[adaptive]") {
  for (const char* spec : {"sim:hdd?size=20T&zones=30&noise=1%&drift=0.96:70000:230000",
                           "sim:hdd?size=20T&zones=30&noise=1%&drift=0.97:100000:300000"}) {
    CAPTURE(spec);
    std::string wrong;
    const int right = RightSeeds(spec, 30, AdaptiveOptions{}, 0.01, wrong);
    INFO("seeds with an edge or a rate wrong:" << wrong);
    CHECK(right >= 28);
    // The reference's reads count in bytes_read; the drift is reported.
    VirtualClock clock;
    const AdaptiveResult r = Sample(std::string(spec) + "&seed=1", clock);
    CHECK(r.reference_reads > 20);
    CHECK(r.largest_drift < 0.98);
    CHECK(r.largest_drift > 0.94);
  }
  // Without it: the same disks, the steps lost among the drifts.
  AdaptiveOptions none;
  none.reference_every = 0;
  std::string wrong;
  CHECK(RightSeeds("sim:hdd?size=20T&zones=30&noise=1%&drift=0.96:70000:230000", 10, none, 0.01,
                   wrong) <= 2);
}

// The CD within 2 % (what the issue asks); the DVD's 50 probes read 0.9 %
// noise each (3 timed MiB at 9-22 MB/s) and its fit's start moves with the
// draws: -2.0 to +1.1 % over seeds 1-6 (the reference's reads shift them).
TEST_CASE("A CAV disc's grid alone gives the full sweep's CAV fit within 2 %", "[adaptive]") {
  for (const auto& [spec, tolerance] : {std::pair{"sim:cd", 0.02}, std::pair{"sim:dvd", 0.025}}) {
    CAPTURE(spec);
    VirtualClock clock;
    AdaptiveOptions o;
    o.grid_probes = 50;
    o.probe_bytes = 4 * kMiB;
    const AdaptiveResult r = Sample(spec, clock, o);
    REQUIRE_FALSE(r.error);
    REQUIRE(r.edges.empty());
    const ZoneAnalysis grid = DetectZones(GridCurve(r), ZoneOptions{}, true);
    const ZoneAnalysis sweep = DetectZones(SweepCurve(spec), ZoneOptions{}, true);
    CAPTURE(grid.fit_start_mb_per_s, grid.fit_end_mb_per_s, sweep.fit_start_mb_per_s,
            sweep.fit_end_mb_per_s);
    REQUIRE(sweep.type == CurveType::kCav);
    CHECK(grid.type == CurveType::kCav);
    CHECK(grid.fit_start_mb_per_s == Approx(sweep.fit_start_mb_per_s).epsilon(tolerance));
    CHECK(grid.fit_end_mb_per_s == Approx(sweep.fit_end_mb_per_s).epsilon(tolerance));
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
  // About the grid alone (and the reference, read before every 8 probes).
  o.byte_budget = (200 + 200 / 8) * 64 * kMiB;
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

// A falling staircase of three 100 MiB levels (300, 250, 200 MB/s) as
// AdaptiveCurve gives it: contiguous 10 MiB points.
Curve Staircase() {
  Curve c;
  for (std::uint64_t i = 0; i < 30; ++i) {
    const double rate = i < 10 ? 300 : i < 20 ? 250 : 200;
    c.push_back(
        CurvePoint{.offset_bytes = i * 10 * kMiB, .length_bytes = 10 * kMiB, .mb_per_s = rate});
  }
  return c;
}

AdaptiveEdge EdgeAt(std::uint64_t at_bytes) {
  return AdaptiveEdge{.at_bytes = at_bytes, .uncertainty_bytes = kMiB};
}

TEST_CASE("An adaptive result's zones are the sampler's edges, not a second segmentation",
          "[adaptive]") {
  const Curve c = Staircase();
  // The detector alone finds the three levels.
  REQUIRE(DetectZones(c, ZoneOptions{}).zones.size() == 3);
  SECTION("both edges: three zones, cut exactly there") {
    const ZoneAnalysis a = AdaptiveZones(c, {EdgeAt(100 * kMiB), EdgeAt(200 * kMiB)}, {});
    REQUIRE(a.zones.size() == 3);
    CHECK(a.zones[1].start_bytes == 100 * kMiB);
    CHECK(a.zones[2].start_bytes == 200 * kMiB);
    CHECK(a.zones[0].mb_per_s == 300);
    CHECK(a.zones[2].mb_per_s == 200);
    CHECK(a.type == CurveType::kZoned);
  }
  SECTION("one edge: two zones, whatever the detector saw") {
    const ZoneAnalysis a = AdaptiveZones(c, {EdgeAt(100 * kMiB)}, {});
    REQUIRE(a.zones.size() == 2);
    CHECK(a.zones[1].start_bytes == 100 * kMiB);
    CHECK(a.zones[1].end_bytes == 300 * kMiB);
    CHECK(a.description.rfind("2 zones", 0) == 0);
  }
  SECTION("no edge: one zone, flat") {
    const ZoneAnalysis a = AdaptiveZones(c, {}, {});
    REQUIRE(a.zones.size() == 1);
    CHECK(a.type == CurveType::kFlat);
    CHECK(a.zones[0].mb_per_s == 250);
  }
  SECTION("an edge where no point begins cuts at the next point") {
    const ZoneAnalysis a = AdaptiveZones(c, {EdgeAt(95 * kMiB), EdgeAt(200 * kMiB)}, {});
    REQUIRE(a.zones.size() == 3);
    CHECK(a.zones[1].start_bytes == 100 * kMiB);
  }
  SECTION("rising steps are typed again: no known shape off optical media") {
    Curve rising;
    for (std::uint64_t i = 0; i < 30; ++i) {
      rising.push_back(CurvePoint{.offset_bytes = i * 10 * kMiB,
                                  .length_bytes = 10 * kMiB,
                                  .mb_per_s = i < 15 ? 200.0 : 300.0});
    }
    const ZoneAnalysis a = AdaptiveZones(rising, {EdgeAt(150 * kMiB)}, {});
    REQUIRE(a.zones.size() == 2);
    CHECK(a.type == CurveType::kOther);
  }
}

TEST_CASE("PlanAdaptive: the default shape, a given probe, a byte budget", "[adaptive]") {
  SECTION("20 TB at an unknown rate: 200 probes of 64 MiB") {
    const AdaptiveOptions a = PlanAdaptive(
        {.start_bytes = 0, .end_bytes = 20 * kTiB, .sector_bytes = 512, .max_chunk_bytes = kMiB});
    CHECK(a.probe_bytes == 64 * kMiB);
    CHECK(a.chunk_bytes == kMiB);
    CHECK(a.grid_probes == 200);
    CHECK(a.byte_budget == 0);
  }
  SECTION("1 GiB at 300 MB/s: 1 MiB probes (the least), the grid at most 1/32 of the range") {
    const AdaptiveOptions a = PlanAdaptive({.start_bytes = 0,
                                            .end_bytes = kGiB,
                                            .sector_bytes = 512,
                                            .expected_mb_per_s = 300,
                                            .max_chunk_bytes = kMiB});
    CHECK(a.probe_bytes == kMiB);
    CHECK(a.chunk_bytes == kMiB / 4);
    CHECK(a.grid_probes == 32);  // 1024 / 32
    CHECK(a.grid_probes * a.probe_bytes <= kGiB / 32);
  }
  SECTION("a given probe and chunk: the chunk at most half the probe, the probe whole chunks") {
    const AdaptiveOptions a = PlanAdaptive({.start_bytes = 0,
                                            .end_bytes = kTiB,
                                            .sector_bytes = 4096,
                                            .max_chunk_bytes = kMiB,
                                            .probe_bytes = 5 * kMiB,
                                            .chunk_bytes = 3 * kMiB});
    CHECK(a.chunk_bytes == 5 * kMiB / 2);
    CHECK(a.probe_bytes == 5 * kMiB);
    CHECK(a.chunk_bytes == AdaptiveChunk(5 * kMiB, 3 * kMiB, 4096));
  }
  SECTION("a byte budget: the grid takes at most half of it") {
    const AdaptiveOptions a = PlanAdaptive({.start_bytes = 0,
                                            .end_bytes = 20 * kTiB,
                                            .sector_bytes = 512,
                                            .max_chunk_bytes = kMiB,
                                            .budget_share = 0.0005});
    CHECK(a.byte_budget == static_cast<std::uint64_t>(0.0005 * static_cast<double>(20 * kTiB)));
    CHECK(a.probe_bytes * a.grid_probes <= a.byte_budget / 2);
    // Smaller probes first (whole chunks: a few probes fewer to fit).
    CHECK(a.probe_bytes < 64 * kMiB);
    CHECK(a.grid_probes > 190);
  }
}

}  // namespace
}  // namespace zcav
