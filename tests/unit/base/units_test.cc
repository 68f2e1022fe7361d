#include "zcav/base/units.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string_view>
#include <vector>

#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"

using zcav::ParseSize;

TEST_CASE("Sizes parse as binary multiples unless spelled as decimal", "[units]") {
  CHECK(ParseSize("512", "size") == 512);
  CHECK(ParseSize("4k", "size") == 4096);
  CHECK(ParseSize("4K", "size") == 4096);
  CHECK(ParseSize("64M", "size") == 64ULL << 20);
  CHECK(ParseSize("64MiB", "size") == 64ULL << 20);
  CHECK(ParseSize("1G", "size") == 1ULL << 30);
  CHECK(ParseSize("1.5T", "size") == 3ULL << 39);
  CHECK(ParseSize("2P", "size") == 2ULL << 50);
  CHECK(ParseSize("500MB", "size") == 500000000ULL);
  CHECK(ParseSize("2GB", "size") == 2000000000ULL);
  CHECK(ParseSize("1kB", "size") == 1000ULL);
  CHECK(ParseSize("100B", "size") == 100ULL);
}

TEST_CASE("Garbage, zero and negative sizes are rejected with the field named", "[units]") {
  for (const char* bad : {"", "abc", "-1", "-4k", "1X", "1.2.3", "12MBx", "M", ".", "1e5"}) {
    CAPTURE(bad);
    REQUIRE_THROWS_AS(ParseSize(bad, "block size"), zcav::Error);
    try {
      ParseSize(bad, "block size");
    } catch (const zcav::Error& e) {
      CHECK(std::string(e.what()).find("block size") != std::string::npos);
      CHECK(e.kind() == zcav::ErrorKind::kBadInput);
    }
  }
  CHECK_THROWS_AS(ParseSize("0", "block size"), zcav::Error);
  CHECK(ParseSize("0", "start", true) == 0);
  CHECK_THROWS_AS(ParseSize("99999999P", "size"), zcav::Error);
}

TEST_CASE("Counts are positive whole numbers", "[units]") {
  CHECK(zcav::ParseCount("3", "passes") == 3);
  for (const char* bad : {"0", "-1", "1.5", "x", "", "99999999999"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(zcav::ParseCount(bad, "passes"), zcav::Error);
  }
}

TEST_CASE("Durations are a number and s, m or h; a bare number is seconds", "[units]") {
  using std::chrono::seconds;
  CHECK(zcav::ParseDuration("90s", "--max-time") == seconds(90));
  CHECK(zcav::ParseDuration("10m", "--max-time") == seconds(600));
  CHECK(zcav::ParseDuration("2h", "--max-time") == seconds(7200));
  CHECK(zcav::ParseDuration("1.5h", "--max-time") == seconds(5400));
  CHECK(zcav::ParseDuration("45", "--max-time") == seconds(45));
  CHECK(zcav::ParseDuration("0.25s", "--max-time") == std::chrono::milliseconds(250));
  for (const char* bad :
       {"", "s", "0s", "0", "-5m", "5d", "1e3s", "1.2.3m", "five", " 5m", "5 m"}) {
    CAPTURE(bad);
    try {
      (void)zcav::ParseDuration(bad, "--max-time");
      FAIL("accepted");
    } catch (const zcav::Error& e) {
      CHECK(std::string(e.what()).find("--max-time") != std::string::npos);
      CHECK(e.kind() == zcav::ErrorKind::kBadInput);
    }
  }
  // Written back in the largest unit that keeps it whole.
  CHECK(zcav::DurationText(seconds(7200)) == "2h");
  CHECK(zcav::DurationText(seconds(600)) == "10m");
  CHECK(zcav::DurationText(seconds(90)) == "90s");
  CHECK(zcav::DurationText(std::chrono::milliseconds(1500)) == "1.5s");
  CHECK(zcav::DurationText(zcav::ParseDuration("1.5h", "t")) == "90m");
}

TEST_CASE("Rates are in 10^6 bytes per second", "[units]") {
  CHECK(zcav::MbPerS(100000000, std::chrono::seconds(2)) == Approx(50.0));
  CHECK(zcav::MbPerS(1, std::chrono::nanoseconds(0)) == 0.0);
  CHECK(zcav::MbToMib(1.048576) == Approx(1.0));
}

TEST_CASE("The system's busy share is busy ticks over all ticks between two readings", "[units]") {
  const zcav::Clock::SystemCpu a{100, 1000};
  const zcav::Clock::SystemCpu b{350, 2000};
  REQUIRE(zcav::SystemBusyPercent(a, b).has_value());
  CHECK(*zcav::SystemBusyPercent(a, b) == Approx(25.0));
  CHECK_FALSE(zcav::SystemBusyPercent(a, a).has_value());
  CHECK_FALSE(zcav::SystemBusyPercent(std::nullopt, b).has_value());
  zcav::SteadyClock clock;
  const auto now = clock.SystemCpuTicks();
  REQUIRE(now.has_value());  // Linux: /proc/stat is always there
  CHECK(now->busy_ticks <= now->total_ticks);
}

TEST_CASE("The process's CPU share is CPU time over wall time, 0 when no time passed", "[units]") {
  using std::chrono::milliseconds;
  CHECK(zcav::CpuPercent(milliseconds(250), milliseconds(1000)) == Approx(25.0));
  CHECK(zcav::CpuPercent(milliseconds(3000), milliseconds(1000)) == Approx(300.0));  // threads
  CHECK(zcav::CpuPercent(milliseconds(5), milliseconds(0)) == 0.0);
}

TEST_CASE("ParseDecimal takes a whole finite number and nothing else", "[units]") {
  CHECK(zcav::ParseDecimal("1.5") == 1.5);
  CHECK(zcav::ParseDecimal("0") == 0.0);
  CHECK(zcav::ParseDecimal("-2e3") == -2000.0);
  CHECK(zcav::ParseDecimal(" 7") == 7.0);  // std::stod's leading white space
  CHECK_FALSE(zcav::ParseDecimal(""));
  CHECK_FALSE(zcav::ParseDecimal("1x"));
  CHECK_FALSE(zcav::ParseDecimal("1.5 "));
  CHECK_FALSE(zcav::ParseDecimal("x"));
  CHECK_FALSE(zcav::ParseDecimal("nan"));
  CHECK_FALSE(zcav::ParseDecimal("inf"));
  CHECK_FALSE(zcav::ParseDecimal("1e999"));
}

TEST_CASE("UtcPlusSeconds adds whole seconds across days and refuses other forms", "[units]") {
  CHECK(zcav::UtcPlusSeconds("2026-11-29T22:30:50Z", 0) == "2026-11-29T22:30:50Z");
  CHECK(zcav::UtcPlusSeconds("2026-11-29T22:30:50Z", 9.6) == "2026-11-29T22:31:00Z");
  CHECK(zcav::UtcPlusSeconds("2026-12-31T23:00:00Z", 3600) == "2027-01-01T00:00:00Z");
  CHECK(zcav::UtcPlusSeconds("", 1).empty());
  CHECK(zcav::UtcPlusSeconds("2026-11-29 22:30:50", 1).empty());
  CHECK(zcav::UtcPlusSeconds("2026-11-29T22:30:50Z", -1).empty());
}

TEST_CASE("Join puts the separator between items; SplitAt keeps every piece", "[units]") {
  CHECK(zcav::Join({}).empty());
  CHECK(zcav::Join({"a"}) == "a");
  CHECK(zcav::Join({"a", "", "c"}) == "a, , c");
  CHECK(zcav::Join({"x", "y"}, "; ") == "x; y");
  using Pieces = std::vector<std::string_view>;
  CHECK(zcav::SplitAt("4k,64k,1M", ',') == Pieces{"4k", "64k", "1M"});
  CHECK(zcav::SplitAt("a,,b", ',') == Pieces{"a", "", "b"});
  CHECK(zcav::SplitAt(",", ',') == Pieces{"", ""});
  CHECK(zcav::SplitAt("", ',') == Pieces{""});
}

TEST_CASE("Durations print in µs under 1 ms, never as 0.0 ms", "[units]") {
  CHECK(zcav::FormatMilliseconds(14.04) == "14.0 ms");
  CHECK(zcav::FormatMilliseconds(1.0) == "1.0 ms");
  CHECK(zcav::FormatMilliseconds(0.9996) == "1.0 ms");  // not "1000 µs"
  CHECK(zcav::FormatMilliseconds(0.085) == "85 µs");
  CHECK(zcav::FormatMilliseconds(0.0123) == "12 µs");
  CHECK(zcav::FormatMilliseconds(0.0085) == "8.5 µs");
  CHECK(zcav::FormatMilliseconds(0) == "0 µs");
  CHECK(zcav::FormatMilliseconds(-1) == "0 µs");
  CHECK(zcav::FormatMilliseconds(std::nan("")) == "0 µs");
}
