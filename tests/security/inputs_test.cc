// Security, inputs (issue 36): what zcav takes from a result file or a
// device is data, bounded. The attack tests end to end are the shell tests
// in tests/security/inputs_*_test.sh; these pin the pieces they rest on.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "testutil.h"
#include "zcav/analysis/fleet.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/device/posix/smartctl.h"
#include "zcav/format/data_reader.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

// A minimal zcav JSON result: two blocks, and `device` as its device member.
std::string JsonResult(const std::string& device) {
  return "{\"device\": " + device +
         ",\n\"blocks\": [\n{\"offset_bytes\": 0, \"length_bytes\": 1048576, \"mb_per_s\": 100},\n"
         "{\"offset_bytes\": 1048576, \"length_bytes\": 1048576, \"mb_per_s\": 90}\n]}\n";
}

TEST_CASE("CleanText removes control characters and caps the length", "[security]") {
  CHECK(CleanText("ab\ncd\x1b[31m\x7f\r\t", 100) == "abcd[31m");
  CHECK(CleanText(std::string("x\xc2\x9b") + "31m", 100) == "x31m");  // C1 CSI in UTF-8
  CHECK(CleanText("caf\xc3\xa9", 100) == "caf\xc3\xa9");
  CHECK(CleanText("caf\xc3\xa9", 4) == "caf");  // not half of the é
  CHECK(CleanText(std::string("a\xff") + "b\xc3", 100) == "a?b?");
  CHECK(CleanText(std::string(50000, ' '), kMaxIdentityBytes).size() == kMaxIdentityBytes);
}

TEST_CASE("TerminalText shows control characters as ?", "[security]") {
  CHECK(TerminalText("a\x1b]0;x\x07 b\nc\td") == "a?]0;x? b\nc\td");
}

TEST_CASE("A result's model, serial and notes are read as bounded data", "[security]") {
  const std::string model = "A\\n\\u001b[2Jsystem \\\"id\\\"" + std::string(1000, 'x');
  std::istringstream in(
      JsonResult("{\"model\": \"" + model + "\", \"identity\": {\"serial\": \"S\\r\\n1\"}}"));
  const SavedResult p = ParseProfile(in, "evil.json");
  CHECK(p.device_model.rfind("A[2Jsystem \"id\"xx", 0) == 0);
  CHECK(p.device_model.size() == kMaxIdentityBytes);
  CHECK(p.device_serial == "S1");
}

TEST_CASE("A line over 1 MiB is bad input, in every format", "[security]") {
  for (const std::string& start :
       {std::string("# zcav 0.1.0 raw data\n# model: "), std::string("{\"device\": {\"model\": \""),
        std::string("offset_bytes,length_bytes,mb_per_s\n1")}) {
    CAPTURE(start);
    std::istringstream in(start + std::string(kMaxLineBytes + 10, 'y') + "\n");
    try {
      ParseProfile(in, "long");
      FAIL("read a line over 1 MiB");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::kBadInput);
      CHECK_THAT(e.what(), Catch::Contains("longer than 1 MiB"));
    }
  }
}

TEST_CASE("Unknown JSON members are skipped, known ones kept", "[security]") {
  std::string junk;
  for (int i = 0; i < 1000; ++i) junk += "\"junk" + std::to_string(i) + "\": [1, {\"a\": 2}],\n";
  std::istringstream in(
      JsonResult("{" + junk + "\"model\": \"M\", \"identity\": {" + junk + "\"serial\": \"S\"}}"));
  const SavedResult p = ParseProfile(in, "junk.json");
  CHECK(p.device_model == "M");
  CHECK(p.device_serial == "S");
  CHECK(p.points.size() == 2);
}

TEST_CASE("A FIFO or a too large file is refused as an input", "[security]") {
  test::TempDir dir;
  const fs::path fifo = dir.path() / "in.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(ReadProfile(fifo.string()), Catch::Contains("not a regular file"));
  const fs::path big = dir.path() / "big.json";
  test::WriteFile(big, JsonResult("{}") + std::string(2000, ' '));
  CHECK_THROWS_WITH(ReadProfile(big.string(), 1000), Catch::Contains("larger than"));
  CHECK(ReadProfile(big.string(), 1 << 20).points.size() == 2);
}

TEST_CASE("Merge keeps the newest result of a serial and names the others", "[security]") {
  std::vector<FleetDrive> drives(4);
  drives[0].source = "a.json";
  drives[0].serial = "S1";
  drives[0].started_utc = "2026-01-01T00:00:00Z";
  drives[1].source = "b.json";
  drives[1].serial = "S2";
  drives[2].source = "c.json";
  drives[2].serial = "S1";
  drives[2].started_utc = "2026-02-01T00:00:00Z";
  drives[3].source = "d.json";
  drives[3].serial = "S1";
  const std::vector<std::string> warnings = KeepNewestPerDrive(drives);
  REQUIRE(drives.size() == 2);
  CHECK(drives[0].source == "b.json");
  CHECK(drives[1].source == "c.json");
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("kept c.json") && Catch::Contains("a.json") &&
                              Catch::Contains("d.json"));
}

TEST_CASE("FindOnPath as root skips empty and relative PATH entries", "[security]") {
  test::TempDir dir;
  test::WriteFile(dir.path() / "smartctl", "#!/bin/sh\n");
  fs::permissions(dir.path() / "smartctl", fs::perms::owner_all);
  const fs::path old = fs::current_path();
  fs::current_path(dir.path());
  CHECK(FindOnPath("smartctl", "", false) == "./smartctl");
  CHECK(FindOnPath("smartctl", ":/nonexistent", true).empty());
  CHECK(FindOnPath("smartctl", ".", true).empty());
  CHECK(FindOnPath("smartctl", dir.path().string(), true) == (dir.path() / "smartctl").string());
  fs::current_path(old);
}

}  // namespace
}  // namespace zcav
