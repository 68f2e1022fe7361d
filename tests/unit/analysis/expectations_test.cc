#include "zcav/analysis/expectations.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "zcav/base/error.h"

using zcav::ExpectationFigures;
using zcav::Expectations;
using zcav::ParseExpectations;
using zcav::UnmetExpectations;

namespace {

// The one-line message ParseExpectations throws for `text`.
std::string ParseError(const std::string& text) {
  try {
    (void)ParseExpectations(text);
  } catch (const zcav::Error& e) {
    CHECK(e.kind() == zcav::ErrorKind::kBadInput);
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
    return e.what();
  }
  FAIL("no error for '" << text << "'");
  return "";
}

// A run that measured 36.2 MB/s on average, 20.5 at its slowest block, with
// one slow region and two unreadable ranges, health suspect.
ExpectationFigures Figures() {
  ExpectationFigures f;
  f.blocks_measured = 100;
  f.min_mb_per_s = 20.5;
  f.avg_mb_per_s = 36.2;
  f.slow_regions = 1;
  f.unreadable_ranges = 2;
  f.unreadable_bytes = 8192;
  f.health_verdict = "suspect";
  return f;
}

}  // namespace

TEST_CASE("Expectations read every key, with white space around keys and values",
          "[expectations]") {
  const Expectations e =
      ParseExpectations("min=20, avg = 36.5 ,max-slow=0,max-unreadable=3,health=suspect");
  REQUIRE(e.min_mb_per_s);
  CHECK(*e.min_mb_per_s == 20);
  REQUIRE(e.avg_mb_per_s);
  CHECK(*e.avg_mb_per_s == 36.5);
  REQUIRE(e.max_slow_regions);
  CHECK(*e.max_slow_regions == 0);
  REQUIRE(e.max_unreadable);
  CHECK(*e.max_unreadable == 3);
  REQUIRE(e.health);
  CHECK(*e.health == "suspect");
  CHECK_FALSE(e.empty());

  const Expectations one = ParseExpectations("avg=100");
  CHECK(one.avg_mb_per_s);
  CHECK_FALSE(one.min_mb_per_s);
  CHECK_FALSE(one.max_slow_regions);
  CHECK_FALSE(one.max_unreadable);
  CHECK_FALSE(one.health);
}

TEST_CASE("Expectations refuse bad input with one line naming the item", "[expectations]") {
  CHECK_THAT(ParseError(""), Catch::Contains("empty --expect") && Catch::Contains("avg"));
  CHECK_THAT(ParseError("  "), Catch::Contains("empty --expect"));
  CHECK_THAT(ParseError("speed=100"), Catch::Contains("'speed=100'") &&
                                          Catch::Contains("unknown key 'speed'") &&
                                          Catch::Contains("max-unreadable"));
  CHECK_THAT(ParseError("avg=fast"), Catch::Contains("'fast' is not a rate in MB/s"));
  CHECK_THAT(ParseError("avg=-5"), Catch::Contains("'-5' is not a rate"));
  CHECK_THAT(ParseError("min=nan"), Catch::Contains("not a rate"));
  CHECK_THAT(ParseError("avg="), Catch::Contains("'' is not a rate"));
  CHECK_THAT(ParseError("max-slow=1.5"), Catch::Contains("'1.5' is not a count"));
  CHECK_THAT(ParseError("max-unreadable=-1"), Catch::Contains("not a count"));
  CHECK_THAT(ParseError("health=failing"), Catch::Contains("'failing' is not a health level"));
  CHECK_THAT(ParseError("health=GOOD"), Catch::Contains("not a health level"));
  CHECK_THAT(ParseError("avg=1,avg=2"), Catch::Contains("avg is given twice"));
  CHECK_THAT(ParseError("avg"), Catch::Contains("'avg': no value"));
  CHECK_THAT(ParseError("avg=1,"), Catch::Contains("an empty item"));
  CHECK_THAT(ParseError(",avg=1"), Catch::Contains("an empty item"));
}

TEST_CASE("Met expectations give no sentence", "[expectations]") {
  // Exactly at the limits counts as met: "at least" and "at most".
  CHECK(UnmetExpectations(
            ParseExpectations("min=20.5,avg=36.2,max-slow=1,max-unreadable=2,health=suspect"),
            Figures())
            .empty());
  CHECK(UnmetExpectations(ParseExpectations("avg=1"), Figures()).empty());
  ExpectationFigures good = Figures();
  good.health_verdict = "good";
  CHECK(UnmetExpectations(ParseExpectations("health=suspect"), good).empty());
  CHECK(UnmetExpectations(Expectations{}, Figures()).empty());
}

TEST_CASE("Each unmet expectation is one sentence with both numbers and units", "[expectations]") {
  const std::vector<std::string> unmet = UnmetExpectations(
      ParseExpectations("health=good,max-unreadable=0,max-slow=0,avg=100,min=25"), Figures());
  REQUIRE(unmet.size() == 5);
  // In a fixed order whatever the order given.
  CHECK(unmet[0] == "slowest block 20.5 MB/s is below the expected minimum 25 MB/s (MB = 10^6 B)");
  CHECK(unmet[1] == "average 36.2 MB/s is below the expected 100 MB/s (MB = 10^6 B)");
  CHECK(unmet[2] == "1 slow region found, more than the expected 0 at most");
  CHECK(unmet[3] == "2 unreadable ranges (8192 bytes) found, more than the expected 0 at most");
  CHECK(unmet[4] == "health suspect is worse than the expected good");
}

TEST_CASE("A rate just below the expectation is never rounded up to it", "[expectations]") {
  ExpectationFigures f = Figures();
  f.avg_mb_per_s = 99.96;
  const std::vector<std::string> unmet = UnmetExpectations(ParseExpectations("avg=100"), f);
  REQUIRE(unmet.size() == 1);
  CHECK(unmet[0] == "average 99.96 MB/s is below the expected 100 MB/s (MB = 10^6 B)");
  f.avg_mb_per_s = 36.24;
  CHECK(UnmetExpectations(ParseExpectations("avg=36.5"), f)[0] ==
        "average 36.2 MB/s is below the expected 36.5 MB/s (MB = 10^6 B)");
}

TEST_CASE("What cannot be checked counts as unmet and says why", "[expectations]") {
  ExpectationFigures none;  // nothing measured, no health verdict
  const std::vector<std::string> unmet =
      UnmetExpectations(ParseExpectations("avg=1,min=1,health=suspect,max-slow=0"), none);
  REQUIRE(unmet.size() == 3);
  CHECK(unmet[0] ==
        "slowest block could not be checked: no block was measured (expected minimum 1 MB/s)");
  CHECK(unmet[1] == "average could not be checked: no block was measured (expected 1 MB/s)");
  CHECK(unmet[2] ==
        "health could not be checked: no health verdict for this run (expected suspect)");
}

TEST_CASE("The figures of a sweep are its rates and counts, health left unknown",
          "[expectations]") {
  zcav::SweepResult r;
  r.blocks_measured = 7;
  r.min_mb_per_s = 10;
  r.avg_mb_per_s = 30;
  r.slow_regions.resize(3);
  r.unreadable.push_back({4096, 512, 5, 0, false});
  const ExpectationFigures f = zcav::FiguresOf(r);
  CHECK(f.blocks_measured == 7);
  CHECK(f.min_mb_per_s == 10);
  CHECK(f.avg_mb_per_s == 30);
  CHECK(f.slow_regions == 3);
  CHECK(f.unreadable_ranges == 1);
  CHECK(f.unreadable_bytes == 512);
  CHECK(f.health_verdict.empty());
}
