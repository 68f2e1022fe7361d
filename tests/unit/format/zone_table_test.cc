#include "zcav/format/zone_table.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "testutil.h"
#include "zcav/base/clock.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"
#include "zcav/measure/sweep.h"
#include "zcav/pipeline/zone_sink.h"

namespace {

zcav::ZoneAnalysis TwoZones() {
  zcav::ZoneAnalysis a;
  a.type = zcav::CurveType::kZoned;
  a.description = "2 zones falling from 120.00 to 60.00 MB/s";
  zcav::Zone z1;
  z1.first_block = 0;
  z1.end_block = 60;
  z1.start_bytes = 0;
  z1.end_bytes = 600000000;
  z1.mb_per_s = z1.mean_mb_per_s = 120;
  z1.min_mb_per_s = 119;
  z1.max_mb_per_s = 121;
  z1.stddev_mb_per_s = 0.5;
  zcav::Zone z2 = z1;
  z2.first_block = 60;
  z2.end_block = 100;
  z2.start_bytes = 600000000;
  z2.end_bytes = 1000000000;
  z2.mb_per_s = z2.mean_mb_per_s = 60;
  z2.min_mb_per_s = 59;
  z2.max_mb_per_s = 61;
  a.zones = {z1, z2};
  a.outliers = {{17, 170000000, 7.7}};
  a.outer_inner_ratio = 2;
  a.fastest_zone = 0;
  a.slowest_zone = 1;
  a.share_at_90 = 0.6;
  a.share_at_75 = 0.6;
  a.share_at_50 = 1.0;
  return a;
}

}  // namespace

TEST_CASE("The zone table is aligned and gives positions in GB and % of the device",
          "[zone_table]") {
  zcav::ZoneReportContext c{"/dev/sdb", 1000000000, zcav::Media::kNone, {}, {}, {}, {}, {}, {},
                            {},         {}};
  const std::string t = zcav::FormatZoneTable(TwoZones(), c);
  CAPTURE(t);
  CHECK(t.find("zones of /dev/sdb: curve zoned") != std::string::npos);
  std::istringstream lines(t);
  std::string title, header, row1, row2;
  std::getline(lines, title);
  std::getline(lines, header);
  std::getline(lines, row1);
  std::getline(lines, row2);
  CHECK(header.size() == row1.size());
  CHECK(row1.size() == row2.size());
  CHECK(header.find("median MB/s") != std::string::npos);
  CHECK(row2.find("0.600") != std::string::npos);  // start GB
  CHECK(row2.find("60.00") != std::string::npos);  // start % and median
  CHECK(t.find("outer/inner 2.00:1") != std::string::npos);
  CHECK(t.find(">= 90 % of the peak rate: 60.0 %") != std::string::npos);
  CHECK(t.find("outliers: 1 block (0.170 GB: 7.70 MB/s)") != std::string::npos);
  CHECK(t.find("speed") == std::string::npos);  // not optical: no X column
}

TEST_CASE("Optical media add X speed and the average X over the disc", "[zone_table]") {
  zcav::ZoneAnalysis a = TwoZones();
  a.zones[0].mb_per_s = a.zones[0].mean_mb_per_s = 6.144;  // 40x CD
  a.zones[1].mb_per_s = a.zones[1].mean_mb_per_s = 3.072;  // 20x CD
  zcav::ZoneReportContext c{
      "/dev/sr0", 1000000000, zcav::GuessMedia("/dev/sr0"), {}, {}, {}, {}, {}, {}, {}, {}};
  REQUIRE(c.media == zcav::Media::kCd);
  const std::string t = zcav::FormatZoneTable(a, c);
  CHECK(t.find("CD speed") != std::string::npos);
  CHECK(t.find("40.0x") != std::string::npos);
  CHECK(t.find("20.0x") != std::string::npos);
  // 600 MB at 40x and 400 MB at 20x: 1000 MB in (600/6.144 + 400/3.072) s.
  const double avg_x = 1000.0 / (600 / 6.144 + 400 / 3.072) / 0.1536;
  char expected[32];
  std::snprintf(expected, sizeof expected, "%.1fx CD", avg_x);
  CHECK(t.find(expected) != std::string::npos);
  CHECK(zcav::OneXBytesPerS(zcav::Media::kDvd) == 1385000);
  CHECK(zcav::OneXBytesPerS(zcav::Media::kBd) == 4500000);
  CHECK(zcav::GuessMedia("sim:dvd?seed=2") == zcav::Media::kDvd);
  CHECK(zcav::GuessMedia("/dev/sda") == zcav::Media::kNone);
  CHECK_THROWS(zcav::ParseMedia("floppy"));
}

TEST_CASE("The zone CSV has a header and one row per zone", "[zone_table]") {
  zcav::ZoneReportContext c{
      "a \"b\".dat", 1000000000, zcav::Media::kNone, {}, {}, {}, {}, {}, {}, {}, {}};
  const std::string csv = zcav::FormatZoneCsv(TwoZones(), c, true, true);
  std::istringstream lines(csv);
  std::vector<std::string> rows;
  for (std::string l; std::getline(lines, l);) rows.push_back(l);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].rfind("source,index,start_bytes,end_bytes", 0) == 0);
  CHECK(rows[2].rfind("\"a \"\"b\"\".dat\",2,600000000,1000000000,", 0) == 0);
}

TEST_CASE("The zone JSON uses the documented names", "[zone_table]") {
  zcav::ZoneReportContext c{"x", 1000000000, zcav::Media::kNone, {}, {}, {}, {}, {}, {}, {}, {}};
  const auto j = nlohmann::json::parse(zcav::ZoneAnalysisJson(TwoZones(), c));
  CHECK(j["curve_type"] == "zoned");
  REQUIRE(j["zones"].size() == 2);
  for (const char* key : {"start_bytes", "end_bytes", "mb_per_s", "min_mb_per_s", "max_mb_per_s",
                          "stddev_mb_per_s"}) {
    CAPTURE(key);
    CHECK(j["zones"][1].contains(key));
  }
  CHECK(j["zones"][1]["start_bytes"] == 600000000);
  CHECK(j["outliers"][0]["offset_bytes"] == 170000000);
  CHECK(j["outliers"][0]["mb_per_s"] == Approx(7.7));
  CHECK(j["zone_summary"]["outer_inner_ratio"] == Approx(2.0));
}

namespace {

class OrderSink final : public zcav::ResultSink {
 public:
  void OnZones(const zcav::ZoneAnalysis& a, const zcav::ZoneReportContext& c) override {
    events += "zones;";
    zones = a.zones.size();
    source = c.source;
  }
  void OnFinish(const zcav::SweepResult&) override { events += "finish;"; }
  std::string events;
  std::size_t zones = 0;
  std::string source;
};

}  // namespace

TEST_CASE("A sweep wrapped in the zone sink finds the simulated disk's zones before it finishes",
          "[zone_table]") {
  zcav::VirtualClock clock;
  const auto model = zcav::ParseSimSpec("sim:hdd?size=100G&zones=8&noise=0.5%");
  auto dev = zcav::MakeSimulatedDevice(model, clock);
  zcav::RunInfo run;
  run.device = dev->info();
  run.plan = zcav::PlanSweep(run.device, {});
  OrderSink order;
  zcav::ZoneDetectingSink zones(order, {}, zcav::Media::kNone);
  zcav::RunSweep(*dev, run, clock, zones);
  CHECK(order.events == "zones;finish;");
  CHECK(order.zones == 8);
  CHECK(order.source == model.info.path);
  CHECK(zones.analysis().type == zcav::CurveType::kZoned);
}

TEST_CASE("The zone sink's verdict weighs the burst rate it is given", "[zone_table]") {
  // A flat curve on a link of unknown ceiling: undetermined on its own;
  // a burst equal to the sustained rate says the interface sets it.
  zcav::Transport unknown_link;
  const auto verdict_with = [&](std::optional<double> burst) {
    zcav::VirtualClock clock;
    auto dev = zcav::MakeSimulatedDevice(zcav::ParseSimSpec("sim:ssd?size=10G"), clock);
    zcav::RunInfo run;
    run.device = dev->info();
    run.plan = zcav::PlanSweep(run.device, {});
    OrderSink order;
    zcav::ZoneDetectingSink zones(order, {}, zcav::Media::kNone, unknown_link, burst);
    zcav::RunSweep(*dev, run, clock, zones);
    REQUIRE(zones.context().verdict.has_value());
    return *zones.context().verdict;
  };
  const zcav::Verdict without = verdict_with(std::nullopt);
  CHECK(without.kind == zcav::VerdictKind::kUndetermined);
  const zcav::Verdict with = verdict_with(530.0);
  CHECK(with.kind == zcav::VerdictKind::kBusLimited);
  CHECK(with.reason.find("burst 530") != std::string::npos);
}

TEST_CASE("The zone table describes texture and time-dependent steps instead of listing them",
          "[zone_table]") {
  zcav::ZoneAnalysis a = TwoZones();
  a.texture.jitter_p5_rel = 0.96;
  a.texture.jitter_p95_rel = 1.03;
  a.texture.lag1_autocorrelation = 0.8;
  a.texture.variance_inflation = 45;
  a.texture.correlated = true;
  a.texture.dip_count = 12;
  a.texture.dip_depth_rel = 0.35;
  a.texture.dip_period_blocks = 80;
  a.texture.dip_share = 0.04;
  zcav::Step step;
  step.zone = 1;
  step.origin = zcav::StepOrigin::kTime;
  step.offset_bytes = 300000000;
  step.pass_offsets_bytes = {300000000, -1};
  a.steps = {step};
  zcav::ZoneReportContext c;
  c.source = "nvme.dat";
  const std::string table = zcav::FormatZoneTable(a, c);
  CHECK_THAT(table, Catch::Contains("jitter: 90 % of the blocks within -4.0 % .. +3.0 %"));
  CHECK_THAT(table, Catch::Contains("correlated (lag-1 0.80)"));
  CHECK_THAT(table, Catch::Contains("dips: 12, 35 % deep (median), every 80 blocks"));
  CHECK_THAT(table, Catch::Contains(
                        "time-dependent: a step at 0.300 GB (pass 1: 0.300 GB, pass 2: none)"));
  const auto j = nlohmann::json::parse(zcav::ZoneAnalysisJson(a, c));
  CHECK(j["zone_summary"]["texture"]["dips"] == 12);
  CHECK(j["zone_summary"]["texture"]["variance_inflation"] == 45.0);
  CHECK(j["zone_summary"]["steps"][0]["origin"] == "time");
  CHECK(j["zone_summary"]["steps"][0]["pass_offsets_bytes"][1] == -1);
}

TEST_CASE("A zone table of many zones shows the first and last ones and counts the rest",
          "[zone_table]") {
  zcav::ZoneAnalysis a = TwoZones();
  std::vector<zcav::Zone> zones;
  for (int k = 0; k < 40; ++k) {
    zcav::Zone z = a.zones[0];
    z.start_bytes = static_cast<std::uint64_t>(k) * 25000000;
    z.end_bytes = z.start_bytes + 25000000;
    z.mb_per_s = 100 + k;
    zones.push_back(z);
  }
  a.zones = zones;
  a.fastest_zone = 39;
  a.slowest_zone = 0;
  zcav::ZoneReportContext c;
  c.source = "many.dat";
  const std::string table = zcav::FormatZoneTable(a, c);
  CHECK_THAT(table, Catch::Contains("... 24 zones more, 112.00 to 135.00 MB/s"));
  std::istringstream lines(table);
  std::size_t rows = 0;
  for (std::string line; std::getline(lines, line);)
    rows += line.find("  ") == 0 || std::isdigit(static_cast<unsigned char>(line[0])) ? 1 : 0;
  CHECK(rows == 16);  // 12 first + 4 last
  CHECK(zcav::FormatZoneCsv(a, c, false, false).find("\n40,") != std::string::npos);
}

TEST_CASE("An adaptive note says what the probes' noise hides, and only where it hides some",
          "[zone_table]") {
  zcav::AdaptiveResult r;
  r.bytes_read = 100 * zcav::kMiB;
  r.range_bytes = 1024 * zcav::kMiB;
  r.noise_rel = 0.01;
  const std::string calm = zcav::AdaptiveNote(r, 60);
  CHECK_THAT(calm, Catch::Contains("inferred, not measured"));
  CHECK_THAT(calm, !Catch::Contains("may be missed"));
  r.noise_rel = 0.03;
  CHECK_THAT(zcav::AdaptiveNote(r, 60),
             Catch::Contains("the probes' noise was 3.0 %: a step between zones under about 12 % "
                             "may be missed"));
}
