// Tests of the data reader: zcav's own raw/CSV/JSON files and classic zcav
// logs (bonnie++ 1.03 and 1.9x/2.00) read back into a SavedResult.
//
// Inputs and golden dumps live in tests/data/import/ (its README.md says
// where each input comes from); malformed files in tests/data/import/bad/.
// Regenerate the golden dumps after an intended change with
//   ZCAV_UPDATE_GOLDEN=1 build/tests/zcav_tests '[data_reader]'
// and review the diff before committing.
#include "zcav/format/data_reader.h"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "testutil.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/device/device.h"
#include "zcav/format/writers.h"
#include "zcav/measure/sweep.h"

namespace zcav {
namespace {

// The canonical dump compared with the golden files: everything in the
// SavedResult except the source path (which depends on the checkout).
std::string Dump(const SavedResult& p) {
  std::string s;
  s += "format: " + p.format + "\n";
  s += "device_path: " + p.device_path + "\n";
  s += "device_bytes: " + std::to_string(p.device_bytes) + "\n";
  s += "block_bytes: " + std::to_string(p.block_bytes) + "\n";
  s += "passes: " + std::to_string(p.passes) + "\n";
  for (const std::string& note : p.notes) s += "note: " + note + "\n";
  s += "points: " + std::to_string(p.points.size()) + "\n";
  s += "# offset_bytes length_bytes mb_per_s\n";
  for (const CurvePoint& c : p.points) {
    s += std::to_string(c.offset_bytes) + " " + std::to_string(c.length_bytes) + " " +
         FormatFixed(c.mb_per_s, 3) + "\n";
  }
  return s;
}

SavedResult Read(const std::string& data_name) { return ReadProfile(test::DataPath(data_name)); }

SavedResult Parse(const std::string& text, const std::string& source = "log.dat") {
  std::istringstream in(text);
  return ParseProfile(in, source);
}

// The message of the zcav::Error that parsing `text` throws ("" if none).
std::string ParseError(const std::string& text, const std::string& source = "log.dat") {
  try {
    Parse(text, source);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::kBadInput);
    return e.what();
  }
  return "";
}

void CheckGolden(const std::string& input, const std::string& golden) {
  const SavedResult p = Read(input);
  const std::string dump = Dump(p);
  INFO(input << " ->\n" << dump);
  CHECK(test::MatchesGolden(dump, golden));
}

bool HasNoteContaining(const SavedResult& p, const std::string& text) {
  return std::any_of(p.notes.begin(), p.notes.end(),
                     [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

constexpr char kHeader19x[] = "#block offset (GiB), MiB/s, time\n";
constexpr char kHeader103[] = "#loops: 1, version: 1.03\n#block K/s time\n";

// ---------------------------------------------------------------------------
// Golden files: one per format and per classic quirk.

TEST_CASE("A real bonnie++ 1.03 log imports to the golden profile", "[data_reader]") {
  CheckGolden("import/bonnie-1.03-sda3-2010.dat", "import/bonnie-1.03-sda3-2010.golden");
}

TEST_CASE("A 1.03 log with '++++' rows and two concatenated runs imports to the golden profile",
          "[data_reader]") {
  CheckGolden("import/bonnie-1.03-handmade-plus-two-runs.dat",
              "import/bonnie-1.03-handmade-plus-two-runs.golden");
}

TEST_CASE("A real zcav 2.00 log with '++++' rows and three zones imports to the golden profile",
          "[data_reader]") {
  CheckGolden("import/bonnie-2.00-plus-and-steps.dat", "import/bonnie-2.00-plus-and-steps.golden");
}

TEST_CASE("A real zcav 2.00 three-loop log imports to the golden profile", "[data_reader]") {
  CheckGolden("import/bonnie-2.00-loops3.dat", "import/bonnie-2.00-loops3.golden");
}

TEST_CASE("Two real zcav 2.00 runs appended to one file import to the golden profile",
          "[data_reader]") {
  CheckGolden("import/bonnie-2.00-two-runs-concatenated.dat",
              "import/bonnie-2.00-two-runs-concatenated.golden");
}

TEST_CASE("Real zcav 2.00 logs where every row is '++++' import to the golden profiles",
          "[data_reader]") {
  CheckGolden("import/bonnie-2.00-all-plus-50m.dat", "import/bonnie-2.00-all-plus-50m.golden");
  CheckGolden("import/bonnie-2.00-all-plus-3m.dat", "import/bonnie-2.00-all-plus-3m.golden");
}

TEST_CASE("A real zcav 2.00 log made with -s 2 imports to the golden profile", "[data_reader]") {
  CheckGolden("import/bonnie-2.00-skip2.dat", "import/bonnie-2.00-skip2.golden");
}

TEST_CASE("zcav's own raw, CSV and JSON files import to the golden profiles", "[data_reader]") {
  CheckGolden("golden_raw.dat", "import/zcav-raw.golden");
  CheckGolden("golden_raw_partial.dat", "import/zcav-raw-partial.golden");
  CheckGolden("golden.csv", "import/zcav-csv.golden");
  CheckGolden("golden.json", "import/zcav-json.golden");
}

TEST_CASE("zcav's raw and JSON files give back which drive and which host", "[data_reader]") {
  for (const char* name : {"golden_raw.dat", "golden_raw_partial.dat", "golden.json"}) {
    CAPTURE(name);
    const SavedResult p = Read(name);
    CHECK(p.device_model == "ST4000DM004-2CV1");
    CHECK(p.device_serial == "ZDH1TEST");
    CHECK(p.device_wwn == "0x5000c500a1b2c3d4");
    CHECK(p.device_firmware == "0001");
    CHECK(p.host == "testhost");
  }
  CHECK(Read("import/bonnie-2.00-loops3.dat").device_serial.empty());  // classic logs have none
}

TEST_CASE("zcav's files give back the latency classes and each block's slowest chunk",
          "[data_reader][latency]") {
  // golden_raw.dat and golden.json hold writer_fixture.h's CompleteRun.
  for (const char* name : {"golden_raw.dat", "golden.json"}) {
    CAPTURE(name);
    const SavedResult p = Read(name);
    CHECK(p.chunk_bytes == kMiB);
    REQUIRE(p.latency_classes.size() == 2);
    CHECK(p.latency_classes[0].chunks == std::array<std::uint64_t, 6>{3500, 70, 10, 3, 1, 0});
    CHECK(p.latency_classes[1].chunks == std::array<std::uint64_t, 6>{3520, 60, 4, 0, 0, 0});
    CHECK(p.latency_classes[0].Total() == 3584);
    CHECK(p.latency_classes[0].chunk_bytes == kMiB);
  }
  for (const char* name : {"golden.csv", "golden.json"}) {
    CAPTURE(name);
    const SavedResult p = Read(name);
    CHECK(p.worst_chunk_ms == std::vector<float>{6.5F, 7.25F, 160.5F, 8.0F});
  }
  CHECK(Read("golden_raw.dat").worst_chunk_ms.empty());  // raw rows keep the classic columns
  const SavedResult csv = Read("golden.csv");            // CSV comment lines name the drive
  CHECK(csv.device_serial == "ZDH1TEST");
  CHECK(csv.device_model == "ST4000DM004-2CV1");
  CHECK(csv.host == "testhost");
  CHECK(csv.chunk_bytes == kMiB);
  CHECK(Read("import/bonnie-2.00-loops3.dat").latency_classes.empty());
}

// ---------------------------------------------------------------------------
// Detection.

TEST_CASE("The format is detected from the content, not the file name", "[data_reader]") {
  CHECK(Read("golden_raw.dat").format == "zcav-raw");
  CHECK(Read("golden.csv").format == "zcav-csv");
  CHECK(Read("golden.json").format == "zcav-json");
  CHECK(Read("import/bonnie-1.03-sda3-2010.dat").format == "bonnie-1.03");
  CHECK(Read("import/bonnie-2.00-loops3.dat").format == "bonnie-1.9x");
  // The same 1.9x text under a misleading name.
  const std::string text = std::string(kHeader19x) + "0.00 23.93 1.045\n0.02 23.85 1.048\n";
  CHECK(Parse(text, "results.json").format == "bonnie-1.9x");
  CHECK(Parse(text, "results.csv").format == "bonnie-1.9x");
}

TEST_CASE("The table header is found after leading comment lines", "[data_reader]") {
  const SavedResult p = Parse(
      "# Finished loop 1, on device /dev/sdb at 23:06:24\n"
      "# Read 200 megs in 8 seconds, 23 megabytes per second.\n"
      "#loops: 1\n" +
      std::string(kHeader19x) + "0.00 23.93 1.045\n0.02 23.85 1.048\n");
  CHECK(p.format == "bonnie-1.9x");
  CHECK(p.points.size() == 2);
}

TEST_CASE("Windows line endings and a byte order mark are accepted", "[data_reader]") {
  const SavedResult p = Parse(
      "\xEF\xBB\xBF#loops: 1, version: 1.03\r\n#block K/s time\r\n"
      "0 60839 1.683130\r\n100 59815 1.711921\r\n");
  CHECK(p.format == "bonnie-1.03");
  REQUIRE(p.points.size() == 2);
  CHECK(p.points[1].offset_bytes == 100 * kMiB);
}

// ---------------------------------------------------------------------------
// Classic 1.03.

TEST_CASE("1.03 offsets are MiB and rates KiB/s, converted to bytes and MB/s", "[data_reader]") {
  const SavedResult p = Read("import/bonnie-1.03-sda3-2010.dat");
  CHECK(p.block_bytes == 100 * kMiB);
  CHECK(p.passes == 1);
  REQUIRE(p.points.size() == 20);
  CHECK(p.points[0].offset_bytes == 0);
  CHECK(p.points[19].offset_bytes == 1900 * kMiB);
  CHECK(p.points[19].length_bytes == 100 * kMiB);
  CHECK(p.points[0].mb_per_s == Approx(60839.0 * 1024 / 1e6));  // "0 60839 1.683130"
}

TEST_CASE("1.03 '++++' rows get their rate from the block size and the time", "[data_reader]") {
  const SavedResult p = Parse(std::string(kHeader103) +
                              "#0 ++++ 0.500000 \n100 59815 1.711921\n200 58996 1.735703\n");
  REQUIRE(p.points.size() == 3);
  CHECK(p.points[0].mb_per_s == Approx(100.0 * 1048576 / 0.5 / 1e6));
  CHECK(HasNoteContaining(p, "1 '++++' rates recomputed"));
}

// ---------------------------------------------------------------------------
// Classic 1.9x / 2.00.

TEST_CASE("1.9x rates are MiB/s, converted to MB/s", "[data_reader]") {
  const SavedResult p = Read("import/bonnie-2.00-loops3.dat");
  REQUIRE(!p.points.empty());
  CHECK(p.points[0].mb_per_s == Approx(23.93 * 1048576 / 1e6));  // "0.00 23.93 1.045"
}

TEST_CASE("1.9x block size is the median of rate x time, rounded to whole MiB", "[data_reader]") {
  // 25 MiB blocks; one row's time is off (a hiccup) and must not move the median.
  const SavedResult p = Parse(std::string(kHeader19x) +
                              "0.00 23.93 1.045\n0.02 23.85 1.048\n0.05 2.50 1.000\n"
                              "0.07 23.86 1.048\n0.10 23.85 1.048\n");
  CHECK(p.block_bytes == 25 * kMiB);
  CHECK(HasNoteContaining(p, "block size 25 MiB inferred from rate"));
}

TEST_CASE("1.9x offsets are row index x block, not the rounded GiB printed", "[data_reader]") {
  const SavedResult p = Read("import/bonnie-2.00-plus-and-steps.dat");
  REQUIRE(p.points.size() == 20);
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    CAPTURE(i);
    CHECK(p.points[i].offset_bytes == i * 25 * kMiB);  // printed: 0.00 0.02 0.05 0.07 ...
    CHECK(p.points[i].length_bytes == 25 * kMiB);
  }
  CHECK(HasNoteContaining(p, "offsets computed as row index"));
}

TEST_CASE("1.9x '++++' rows, commented or not, get their rate from block size and time",
          "[data_reader]") {
  for (const std::string plus : {"#0.02 ++++ 0.500", "0.02 ++++ 0.500", "#0.02 ++++ 0.500 "}) {
    CAPTURE(plus);
    const SavedResult p =
        Parse(std::string(kHeader19x) + "0.00 23.93 1.045\n" + plus + "\n0.05 23.86 1.048\n");
    REQUIRE(p.points.size() == 3);
    CHECK(p.points[1].offset_bytes == 25 * kMiB);
    CHECK(p.points[1].mb_per_s == Approx(25.0 * 1048576 / 0.5 / 1e6));
    CHECK(HasNoteContaining(p, "1 '++++' rates recomputed from the time column and the 25 MiB"));
  }
}

TEST_CASE("1.9x with every row '++++' takes the block size from the offset step", "[data_reader]") {
  const SavedResult p = Read("import/bonnie-2.00-all-plus-50m.dat");
  CHECK(p.block_bytes == 50 * kMiB);  // printed steps: 0.05 0.05 0.05 0.05 0.04
  REQUIRE(p.points.size() == 6);
  CHECK(p.points[5].offset_bytes == 250 * kMiB);
  CHECK(HasNoteContaining(p, "only known to 0.01 GiB"));
}

TEST_CASE("1.9x blocks smaller than 0.01 GiB, whose printed offsets repeat, stay distinct",
          "[data_reader]") {
  const SavedResult p = Read("import/bonnie-2.00-all-plus-3m.dat");  // 0.00 0.00 0.01 0.01 ...
  CHECK(p.block_bytes == 3 * kMiB);
  REQUIRE(p.points.size() == 100);
  CHECK(p.passes == 1);
  CHECK(p.points[99].offset_bytes == 297 * kMiB);
}

TEST_CASE("1.9x rows further apart than a block (zcav -s) keep their true spacing",
          "[data_reader]") {
  const SavedResult p = Read("import/bonnie-2.00-skip2.dat");
  CHECK(p.block_bytes == 20 * kMiB);
  REQUIRE(p.points.size() == 8);
  CHECK(p.points[7].offset_bytes == 7 * 40 * kMiB);
  CHECK(p.points[7].length_bytes == 20 * kMiB);
  CHECK(HasNoteContaining(p, "classic zcav -s 2"));
}

TEST_CASE("1.9x rows that are not evenly spaced fall back to the printed offsets, with a note",
          "[data_reader]") {
  // A row was deleted by hand (0.05 missing): no single grid fits every row.
  const SavedResult p = Parse(std::string(kHeader19x) +
                              "0.00 23.93 1.045\n0.02 23.85 1.048\n0.07 23.86 1.048\n"
                              "0.10 23.85 1.048\n");
  REQUIRE(p.points.size() == 4);
  CHECK(p.points[2].offset_bytes == 75 * kMiB);  // 0.07 GiB on the 25 MiB grid
  CHECK(HasNoteContaining(p, "not evenly spaced"));
}

TEST_CASE("A 1.9x run that starts past the beginning (zcav -r) stays on the block grid",
          "[data_reader]") {
  // 32 MiB blocks from block 32: 1024, 1056, 1088 MiB printed as 1.00 1.03 1.06.
  const SavedResult p =
      Parse(std::string(kHeader19x) + "1.00 30.62 1.045\n1.03 30.53 1.048\n1.06 30.53 1.048\n");
  CHECK(p.block_bytes == 32 * kMiB);
  REQUIRE(p.points.size() == 3);
  CHECK(p.points[0].offset_bytes == 1024 * kMiB);
  CHECK(p.points[1].offset_bytes == 1056 * kMiB);
  CHECK(p.points[2].offset_bytes == 1088 * kMiB);
}

// ---------------------------------------------------------------------------
// Several passes.

TEST_CASE("Repeated blocks are reduced to the per-block median, passes counted", "[data_reader]") {
  const std::string table = std::string(kHeader103);
  const SavedResult p = Parse(table + "0 10000 10.0\n100 50000 2.0\n" +  //
                              table + "0 20000 5.0\n100 50000 2.0\n" +   //
                              table + "0 90000 1.1\n100 50000 2.0\n");
  REQUIRE(p.points.size() == 2);
  CHECK(p.points[0].mb_per_s == Approx(20000.0 * 1024 / 1e6));
  CHECK(p.passes == 3);
  CHECK(HasNoteContaining(p, "2 of 2 blocks appear more than once"));
}

TEST_CASE("Two zcav CSV files concatenated merge to one point per block, as classic logs do",
          "[data_reader]") {
  const std::string header =
      "offset_bytes,length_bytes,mb_per_s,mean_mb_per_s,min_mb_per_s,max_mb_per_s,"
      "stddev_mb_per_s,passes,seconds,unreadable_bytes\n";
  const SavedResult p = Parse(
      header + "0,1048576,50,50,50,50,0,1,0.02,0\n" + "1048576,1048576,40,40,40,40,0,1,0.026,0\n" +
          "2097152,1048576,30,30,30,30,0,1,0.035,0\n" + header +
          "0,1048576,60,60,60,60,0,1,0.017,0\n" + "1048576,1048576,44,44,44,44,0,1,0.024,0\n",
      "two.csv");
  REQUIRE(p.points.size() == 3);
  CHECK(p.points[0].mb_per_s == 55);  // the median of 50 and 60
  CHECK(p.points[0].min_mb_per_s == 50);
  CHECK(p.points[0].max_mb_per_s == 60);
  CHECK(p.points[1].mb_per_s == 42);
  CHECK(p.points[2].mb_per_s == 30);
  CHECK(p.points[2].offset_bytes == 2 * kMiB);
  CHECK(p.passes == 2);
  CHECK(HasNoteContaining(p, "2 of 3 blocks appear more than once"));
  CHECK(HasNoteContaining(p, "1 of 3 blocks have fewer than 2 passes"));
}

// A stream that cannot seek (a pipe): tellg() gives -1.
class PipeBuf : public std::streambuf {
 public:
  explicit PipeBuf(std::string text) : text_(std::move(text)) {
    setg(text_.data(), text_.data(), text_.data() + text_.size());
  }

 private:
  std::string text_;
};

TEST_CASE("A stream that cannot seek is read like a file", "[data_reader]") {
  for (const char* name : {"golden_raw.dat", "golden.csv", "golden.json"}) {
    CAPTURE(name);
    PipeBuf buf(test::ReadFile(test::DataPath(name)));
    std::istream pipe(&buf);
    REQUIRE(pipe.tellg() == std::streampos(-1));
    const SavedResult p = ParseProfile(pipe, name);
    const SavedResult file = Read(name);
    REQUIRE(p.points.size() == file.points.size());
    for (std::size_t i = 0; i < p.points.size(); ++i) {
      CHECK(p.points[i].offset_bytes == file.points[i].offset_bytes);
      CHECK(p.points[i].mb_per_s == file.points[i].mb_per_s);
    }
  }
}

TEST_CASE("A pass restarts without a header when the offset returns to the first one",
          "[data_reader]") {
  const SavedResult p = Parse(std::string(kHeader19x) +
                              "0.00 20.00 1.250\n0.02 20.00 1.250\n"
                              "0.00 30.00 0.833\n0.02 10.00 2.500\n");
  REQUIRE(p.points.size() == 2);
  CHECK(p.passes == 2);
  CHECK(p.points[0].mb_per_s == Approx(25.0 * 1.048576));
  CHECK(p.points[1].mb_per_s == Approx(15.0 * 1.048576));
}

TEST_CASE("A classic multi-loop table counts its loops as passes and says it is a mean",
          "[data_reader]") {
  const SavedResult p = Read("import/bonnie-2.00-loops3.dat");
  CHECK(p.passes == 3);
  CHECK(HasNoteContaining(p, "mean of the middle third"));
}

TEST_CASE("Two concatenated 2.00 runs give two passes and every block once", "[data_reader]") {
  const SavedResult p = Read("import/bonnie-2.00-two-runs-concatenated.dat");
  CHECK(p.passes == 2);
  REQUIRE(p.points.size() == 12);
  CHECK(p.points[11].offset_bytes == 11 * 30 * kMiB);
  // Block 3: "0.09 26.09 1.150" and "0.09 26.38 1.137": the median of two.
  CHECK(p.points[3].mb_per_s == Approx((26.09 + 26.38) / 2 * 1.048576));
}

// ---------------------------------------------------------------------------
// zcav's own formats.

TEST_CASE("zcav raw, CSV and JSON of the same run give the same profile", "[data_reader]") {
  const SavedResult raw = Read("golden_raw.dat");
  const SavedResult csv = Read("golden.csv");
  const SavedResult json = Read("golden.json");
  REQUIRE(raw.points.size() == 4);
  for (const SavedResult* other : {&csv, &json}) {
    CAPTURE(other->format);
    CHECK(other->block_bytes == raw.block_bytes);
    CHECK(other->passes == raw.passes);
    REQUIRE(other->points.size() == raw.points.size());
    for (std::size_t i = 0; i < raw.points.size(); ++i) {
      CAPTURE(i);
      CHECK(other->points[i].offset_bytes == raw.points[i].offset_bytes);
      CHECK(other->points[i].length_bytes == raw.points[i].length_bytes);
      CHECK(other->points[i].mb_per_s == Approx(raw.points[i].mb_per_s).epsilon(1e-6));
    }
  }
  CHECK(raw.points[3].length_bytes == 512 * kMiB);  // the range ends at 3.5 GiB
  CHECK(raw.device_path == "/dev/sdz");
  CHECK(json.device_bytes == raw.device_bytes);
}

TEST_CASE("zcav raw offsets come back exact from 9 decimals of GiB on a large disk",
          "[data_reader]") {
  // A 4 TB disk swept in 1000000000-byte blocks (not a power of two): the
  // printed GiB lose bytes, the block grid restores them.
  std::string text =
      "# zcav 0.1.0-test raw data, classic zcav layout\n# size_bytes: 4000787030016\n"
      "# options: block_bytes=1000000000 chunk_bytes=1048576 passes=1 start_bytes=0 "
      "end_bytes=4000787030016 skip=1 quick=no warmup=no blocks=4001\n";
  for (std::uint64_t i : {3997ULL, 3998ULL, 3999ULL, 4000ULL}) {
    text += FormatFixed(static_cast<double>(i * 1000000000ULL) / static_cast<double>(kGiB), 9) +
            " 100.000 10.000000 104.858 104.858 104.858 0.000 1\n";
  }
  text += "# status: complete\n";
  const SavedResult p = Parse(text);
  REQUIRE(p.points.size() == 4);
  CHECK(p.points[0].offset_bytes == 3997000000000ULL);
  CHECK(p.points[3].offset_bytes == 4000000000000ULL);
  CHECK(p.points[3].length_bytes == 787030016ULL);  // up to the end of the device
}

TEST_CASE("A partial zcav raw file says so and counts the blocks with fewer passes",
          "[data_reader]") {
  const SavedResult p = Read("golden_raw_partial.dat");
  CHECK(p.passes == 2);
  CHECK(HasNoteContaining(p, "2 of 4 blocks have fewer than 2 passes"));
  CHECK(HasNoteContaining(p, "partial: interrupted"));
}

TEST_CASE("A zcav raw file cut off before its footer is read, with a note", "[data_reader]") {
  const std::string full = test::ReadFile(test::DataPath("golden_raw.dat"));
  const std::string cut = full.substr(0, full.find("2.000000000"));  // 2 of 4 rows
  const SavedResult p = Parse(cut);
  CHECK(p.points.size() == 2);
  CHECK(HasNoteContaining(p, "no final status line"));
}

// ---------------------------------------------------------------------------
// Errors.

TEST_CASE("Malformed data lines are reported with the file, the line and what is wrong",
          "[data_reader]") {
  CHECK(ParseError(std::string(kHeader19x) + "0.00 23.93 1.045\nabc 12\n") ==
        "log.dat:3: expected 3 numbers (offset, rate, time), got 'abc 12'");
  CHECK(ParseError(std::string(kHeader19x) + "0.00 -1 1.045\n") ==
        "log.dat:2: rate (MiB/s) '-1' is negative");
}

TEST_CASE("ReadProfile names the file it cannot open", "[data_reader]") {
  test::TempDir dir;
  const std::string missing = (dir.path() / "missing.dat").string();
  try {
    ReadProfile(missing);
    FAIL("no error for a missing file");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::kBadInput);
    CHECK(std::string(e.what()) == missing + ": cannot open: No such file or directory");
  }
  try {
    ReadProfile(dir.path().string());
    FAIL("no error for a directory");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == dir.path().string() + ": is a directory, not a data file");
  }
}

struct BadFile {
  const char* name;
  std::size_t line;  // 0: the message names the file only
  const char* what;  // a part of the message after "FILE:LINE: "
};

// Every file in tests/data/import/bad/ and the error it must give.
const BadFile kBadFiles[] = {
    {"empty.dat", 0, "empty file (no data)"},
    {"whitespace-only.dat", 0, "empty file (no data)"},
    {"binary-junk.bin", 0, "not a zcav or classic zcav data file (first line: '\\x7fELF\\x02"},
    {"plain-text.txt", 0,
     "not a zcav or classic zcav data file (first line: 'hello, this is not a zcav log')"},
    {"bonnie-1.9x-rows-without-header.dat", 0, "not a zcav or classic zcav data file"},
    {"bonnie-1.9x-two-numbers.dat", 3, "expected 3 numbers (offset, rate, time), got '0.02 12'"},
    {"bonnie-1.9x-word-rate.dat", 3, "rate (MiB/s) 'abc' is not a number"},
    {"bonnie-1.9x-negative-rate.dat", 3, "rate (MiB/s) '-23.85' is negative"},
    {"bonnie-1.9x-nan-rate.dat", 3, "rate (MiB/s) 'nan' is not a number"},
    {"bonnie-1.9x-infinite-rate.dat", 3, "rate (MiB/s) 'inf' is infinite"},
    {"bonnie-1.9x-negative-time.dat", 3, "time (s) '-0.500' is negative"},
    {"bonnie-1.9x-offset-backwards.dat", 5,
     "offset 0.03 GiB goes backwards (the previous row is at 0.05 GiB)"},
    {"bonnie-1.9x-header-only.dat", 0, "no data rows"},
    {"bonnie-1.9x-single-plus-row.dat", 0, "cannot infer the block size"},
    {"bonnie-1.9x-huge-offset.dat", 3, "offset '1e30' GiB is out of range"},
    {"bonnie-1.9x-then-1.03-header.dat", 5, "a 1.03 table header in a 1.9x log"},
    {"bonnie-1.03-fractional-offset.dat", 4, "offset '100.5' is not a whole number of MiB"},
    {"bonnie-1.03-offset-twice.dat", 5, "offset 100 MiB appears twice in a row"},
    {"bonnie-1.03-offset-backwards.dat", 6, "offset 100 MiB goes backwards"},
    {"bonnie-1.03-bad-loops.dat", 1, "'#loops:' needs a positive whole number, got 'many'"},
    {"bonnie-1.03-nul-byte.dat", 4, "offset '1\\x0000' is not a whole number of MiB"},
    {"zcav-raw-seven-columns.dat", 22, "expected 8 numbers"},
    {"zcav-raw-bad-size.dat", 6, "size_bytes 'lots' is not a whole number"},
    {"zcav-raw-zero-passes.dat", 22, "passes '0' is not a positive whole number"},
    {"zcav-raw-nan-rate.dat", 22, "rate (MB/s) 'nan' is not a number"},
    {"zcav-raw-no-rows.dat", 0, "no data rows"},
    {"zcav-csv-short-row.csv", 3, "expected 9 comma-separated fields, got 8"},
    {"zcav-csv-negative-offset.csv", 3, "offset_bytes '-1073741824' is not a whole number"},
    {"zcav-csv-negative-rate.csv", 4, "mb_per_s '-170.000000' is negative"},
    {"zcav-csv-renamed-column.csv", 1, "the CSV header has no 'mb_per_s' column"},
    {"zcav-json-truncated.json", 6, "the JSON ends early"},
    {"zcav-json-missing-comma.json", 6, "invalid JSON"},
    {"zcav-json-number-overflow.json", 8, "invalid JSON: number overflow parsing '32212e5472'"},
    {"zcav-json-no-blocks.json", 0, "not a zcav JSON file (no \"blocks\" array)"},
    {"zcav-json-string-rate.json", 6, "blocks[1]: mb_per_s is not a number"},
    {"zcav-json-negative-rate.json", 7, "blocks[2]: mb_per_s is negative"},
    {"zcav-json-empty-blocks.json", 0, "no data rows"},
    {"zcav-json-offset-backwards.json", 8, "offset 1073741824 goes backwards"},
};

TEST_CASE("Every malformed file gives a bad-input error naming the file and line",
          "[data_reader]") {
  for (const BadFile& bad : kBadFiles) {
    const std::string path = test::DataPath(std::string("import/bad/") + bad.name).string();
    CAPTURE(bad.name);
    const std::string where =
        path + (bad.line > 0 ? ":" + std::to_string(bad.line) : std::string()) + ": ";
    try {
      ReadProfile(path);
      FAIL_CHECK("no error");
    } catch (const Error& e) {
      const std::string message = e.what();
      CAPTURE(message);
      CHECK(e.kind() == ErrorKind::kBadInput);
      CHECK(message.rfind(where, 0) == 0);
      CHECK(message.find(bad.what) != std::string::npos);
    }
  }
}

TEST_CASE("The malformed-file table covers every file in the bad directory", "[data_reader]") {
  std::set<std::string> listed;
  for (const BadFile& bad : kBadFiles) listed.insert(bad.name);
  std::set<std::string> present;
  for (const auto& entry : std::filesystem::directory_iterator(test::DataPath("import/bad"))) {
    present.insert(entry.path().filename().string());
  }
  CHECK(present == listed);
  CHECK(listed.size() >= 20);
}

TEST_CASE("Damaged copies of valid files either parse to a sane profile or give a bad-input error",
          "[data_reader]") {
  const std::vector<std::string> sources = {"golden_raw.dat",
                                            "golden.csv",
                                            "golden.json",
                                            "import/bonnie-1.03-sda3-2010.dat",
                                            "import/bonnie-2.00-plus-and-steps.dat",
                                            "import/bonnie-2.00-two-runs-concatenated.dat"};
  const std::uint64_t seed = 20261129;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const char kJunk[] = "0123456789.-+e#, \n\t{}[]\":naif+++\x00\xff";
  const std::string junk(kJunk, sizeof kJunk - 1);
  int parsed = 0;
  int rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = test::ReadFile(test::DataPath(sources[rng() % sources.size()]));
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0:  // truncate
          text.resize(at);
          break;
        case 1:  // replace a byte
          text[at] = junk[rng() % junk.size()];
          break;
        case 2:  // delete a run of bytes
          text.erase(at, 1 + rng() % 20);
          break;
        default:  // duplicate a run of bytes
          text.insert(at, text.substr(at, 1 + rng() % 80));
          break;
      }
    }
    CAPTURE(round, text);
    try {
      const SavedResult p = Parse(text);
      ++parsed;
      REQUIRE(!p.points.empty());
      for (std::size_t i = 0; i < p.points.size(); ++i) {
        REQUIRE(std::isfinite(p.points[i].mb_per_s));
        REQUIRE(p.points[i].mb_per_s >= 0);
        if (i > 0) REQUIRE(p.points[i].offset_bytes > p.points[i - 1].offset_bytes);
      }
    } catch (const Error& e) {
      ++rejected;
      REQUIRE(e.kind() == ErrorKind::kBadInput);
      REQUIRE(std::string(e.what()).rfind("log.dat:", 0) == 0);
    }
  }
  // Both outcomes happen, or the damage was not varied enough to mean anything.
  CHECK(parsed > 100);
  CHECK(rejected > 100);
}

TEST_CASE("zcav's own files give the device, the summary and the spread across passes",
          "[data_reader]") {
  for (const char* name : {"golden_raw.dat", "golden.json", "golden.csv"}) {
    CAPTURE(name);
    const SavedResult p = ReadProfile(test::DataPath(name).string());
    REQUIRE(p.points.size() == 4);
    CHECK(p.points[1].min_mb_per_s == Approx(184.5));
    CHECK(p.points[1].max_mb_per_s == Approx(185.75));
    CHECK(p.points[3].min_mb_per_s == Approx(160.25));
    if (std::string(name) == "golden.csv") continue;  // the CSV has no header facts
    CHECK(p.device_vendor == "ATA");
    CHECK(p.device_model == "ST4000DM004-2CV1");
    CHECK(p.transport == "ata");
    CHECK(p.link == "SATA 6.0 Gbps");
    REQUIRE(p.avg_mb_per_s);
    CHECK(*p.avg_mb_per_s == Approx(182.211).epsilon(1e-4));
    REQUIRE(p.cpu_percent);
    CHECK(*p.cpu_percent == Approx(3.4).epsilon(1e-3));
  }
  const SavedResult classic = ReadProfile(test::DataPath("import/bonnie-2.00-loops3.dat").string());
  CHECK(classic.device_model.empty());
  CHECK_FALSE(classic.avg_mb_per_s);
  CHECK(std::all_of(classic.points.begin(), classic.points.end(),
                    [](const CurvePoint& pt) { return pt.max_mb_per_s == 0; }));
}

// A zcav JSON document with `extra` members added at the top level (after
// the blocks), as zcav profile writes them.
std::string JsonWith(const std::string& extra) {
  return "{\"format\":\"zcav\",\"device\":{\"path\":\"sim:hdd\",\"size_bytes\":2000000},\n"
         "\"blocks\":[\n"
         "{\"offset_bytes\":0,\"length_bytes\":1000000,\"mb_per_s\":60.0},\n"
         "{\"offset_bytes\":1000000,\"length_bytes\":1000000,\"mb_per_s\":30.0}\n],\n" +
         extra + "\"status\":\"complete\",\"partial\":false}\n";
}

TEST_CASE("A zcav profile JSON gives the access time, the burst rate and the verdict",
          "[data_reader]") {
  const SavedResult p = Parse(
      JsonWith(
          "\"access\":{\"mean_ms\":14.25,\"median_ms\":14.0,\"samples\":["
          "{\"offset_bytes\":512,\"ms\":12.5},{\"offset_bytes\":1024000,\"ms\":16.0}]},\n"
          "\"burst\":{\"min_mb_per_s\":149.0,\"avg_mb_per_s\":150.0,\"max_mb_per_s\":151.0},\n"
          "\"verdict\":{\"kind\":\"media-limited\",\"reason\":\"Falls from 60 to 30 MB/s.\"},\n"),
      "profile.json");
  REQUIRE(p.points.size() == 2);
  REQUIRE(p.access_mean_ms);
  CHECK(*p.access_mean_ms == 14.25);
  REQUIRE(p.access_samples.size() == 2);
  CHECK(p.access_samples[0].offset_bytes == 512);
  CHECK(p.access_samples[0].ms == 12.5);
  CHECK(p.access_samples[1].offset_bytes == 1024000);
  CHECK(p.access_samples[1].ms == 16.0);
  REQUIRE(p.burst_mb_per_s);
  CHECK(*p.burst_mb_per_s == 150.0);
  CHECK(p.verdict == "media-limited");
  CHECK(p.verdict_reason == "Falls from 60 to 30 MB/s.");
}

TEST_CASE("A zcav JSON without profile members leaves those fields empty", "[data_reader]") {
  const SavedResult p = Parse(JsonWith(""), "sweep.json");
  CHECK_FALSE(p.access_mean_ms);
  CHECK(p.access_samples.empty());
  CHECK_FALSE(p.burst_mb_per_s);
  CHECK(p.verdict.empty());
  CHECK(p.verdict_reason.empty());
  // A non-number is ignored like a missing one (as the summary's figures are).
  const SavedResult q =
      Parse(JsonWith("\"burst\":{\"avg_mb_per_s\":\"fast\"},\"access\":{\"mean_ms\":-1},\n"));
  CHECK_FALSE(q.burst_mb_per_s);
  CHECK_FALSE(q.access_mean_ms);
}

TEST_CASE("A damaged access sample in a zcav profile JSON names it", "[data_reader]") {
  const std::string bad_offset =
      ParseError(JsonWith("\"access\":{\"samples\":[{\"offset_bytes\":0,\"ms\":1},"
                          "{\"offset_bytes\":-5,\"ms\":1}]},\n"),
                 "p.json");
  CHECK(bad_offset.find("p.json") != std::string::npos);
  CHECK(bad_offset.find("access.samples[1]") != std::string::npos);
  const std::string no_ms =
      ParseError(JsonWith("\"access\":{\"samples\":[{\"offset_bytes\":0}]},\n"), "p.json");
  CHECK(no_ms.find("access.samples[0]") != std::string::npos);
}

// Found by the fuzz targets (tests/fuzz/); the inputs are also fuzz seeds in
// tests/fuzz/regressions/. A finite rate in the file must not become an
// infinite one in the profile.
TEST_CASE("Classic rates that overflow to infinity name their line", "[data_reader]") {
  // '++++' with a denormal time: the block over that time is infinite.
  CHECK(ParseError(std::string(kHeader103) + "0 ++++ 1e-320\n0 90 7\n") ==
        "log.dat:3: '++++' time 1e-320 s is too small: the rate it gives is infinite");
  CHECK(ParseError(std::string(kHeader19x) + "0 ++++ 1e-320\n0 ++++ 0\n") ==
        "log.dat:2: '++++' time 1e-320 s is too small: the rate it gives is infinite");
  // A finite rate whose unit (KiB/s, MiB/s) takes it past the largest double.
  CHECK(ParseError(std::string(kHeader103) + "0 3 1\n2 1e308 1\n") ==
        "log.dat:4: the rate is out of range (over 10^300 MB/s)");
  CHECK(ParseError(std::string(kHeader19x) + "1 1e308 1\n1 3 1\n6 5 2\n") ==
        "log.dat:2: the rate is out of range (over 10^300 MB/s)");
}

TEST_CASE("The median of two rates near the largest double is that rate, not infinity",
          "[data_reader]") {
  const std::vector<std::string> files = {
      "# zcav x\n0 1 1 1.7e308 1 1 1 1\n0 1 1 1.7e308 1 1 1 1\n",
      "offset_bytes,length_bytes,mb_per_s\n0,1,1.7e308\n0,1,1.7e308\n",
      R"({"blocks":[{"offset_bytes":0,"length_bytes":1,"mb_per_s":1.7e308},)"
      R"({"offset_bytes":0,"length_bytes":1,"mb_per_s":1.7e308}]})"};
  for (const std::string& text : files) {
    CAPTURE(text);
    const SavedResult p = Parse(text);
    REQUIRE(p.points.size() == 1);
    CHECK(p.points[0].mb_per_s == 1.7e308);
    CHECK(p.passes == 2);
  }
}

// A seekable stream holding `text` that then fails as a read with an I/O
// error does: the buffer throws, the stream sets badbit.
class FailingReadBuf final : public std::streambuf {
 public:
  explicit FailingReadBuf(std::string text) : text_(std::move(text)) { seekpos(0, std::ios::in); }

 protected:
  int_type underflow() override { throw std::ios_base::failure("Input/output error"); }
  pos_type seekoff(off_type off, std::ios_base::seekdir dir,
                   std::ios_base::openmode which) override {
    if (dir == std::ios_base::beg) return seekpos(pos_type(off), which);
    if (dir == std::ios_base::cur) return seekpos(pos_type(gptr() - eback() + off), which);
    return pos_type(off_type(-1));
  }
  pos_type seekpos(pos_type pos, std::ios_base::openmode) override {
    const off_type at = pos;
    if (at < 0 || at > static_cast<off_type>(text_.size())) return pos_type(off_type(-1));
    setg(text_.data(), text_.data() + at, text_.data() + text_.size());
    return pos;
  }

 private:
  std::string text_;
};

TEST_CASE("A data file that fails to read is a runtime error; a malformed one is bad input",
          "[data_reader]") {
  FailingReadBuf failing("# zcav raw\n");
  std::istream in(&failing);
  CHECK_THROWS_MATCHES(ParseProfile(in, "gone.dat"), Error, test::HasKind(ErrorKind::kRuntime));
  CHECK_THROWS_MATCHES(Parse("this is not a result\n"), Error, test::HasKind(ErrorKind::kBadInput));
}

}  // namespace
}  // namespace zcav

TEST_CASE("zcav's outputs of a sweep with errors read back without the unreadable blocks",
          "[data_reader]") {
  for (const auto format :
       {zcav::OutputFormat::kRaw, zcav::OutputFormat::kCsv, zcav::OutputFormat::kJson}) {
    zcav::VirtualClock clock;
    const auto device =
        zcav::OpenDevice("sim:hdd?size=64M&bad=21M+4k,40M+1M&slow=50M+1M&noise=0", clock);
    zcav::RunInfo run;
    run.device = device->info();
    zcav::SweepOptions options;
    options.block_bytes = 4 * zcav::kMiB;
    run.plan = zcav::PlanSweep(run.device, options);
    std::stringstream out;
    const auto writer = zcav::MakeWriter(format, out, false);
    zcav::RunSweep(*device, run, clock, *writer);
    const zcav::SavedResult p = zcav::ParseProfile(out, "run");
    INFO(p.format);
    CHECK(p.points.size() == 14);  // 16 blocks, 2 with no clean read
    for (const auto& point : p.points) {
      CHECK(point.offset_bytes != 20 * zcav::kMiB);
      CHECK(point.offset_bytes != 40 * zcav::kMiB);
      CHECK(point.mb_per_s > 0);
    }
    if (format == zcav::OutputFormat::kCsv) continue;  // CSV has per-block counts only
    REQUIRE(p.unreadable.size() == 2);
    CHECK(p.unreadable[0].offset_bytes == 21 * zcav::kMiB);
    CHECK(p.unreadable[0].length_bytes == 4096);
    CHECK(p.unreadable[0].errno_value == EIO);
    CHECK(p.unreadable[1].offset_bytes == 40 * zcav::kMiB);
    CHECK(p.unreadable[1].length_bytes == zcav::kMiB);
    REQUIRE(p.slow_regions.size() == 1);
    CHECK(p.slow_regions[0].offset_bytes == 50 * zcav::kMiB);
    CHECK(p.slow_regions[0].ms > 100);
  }
}

TEST_CASE("A block with passes 0 must say it was unreadable", "[data_reader]") {
  std::stringstream csv(
      "offset_bytes,length_bytes,mb_per_s,mean_mb_per_s,min_mb_per_s,max_mb_per_s,"
      "stddev_mb_per_s,passes,seconds,unreadable_bytes\n"
      "0,1048576,50,50,50,50,0,1,0.02,0\n"
      "1048576,1048576,0,0,0,0,0,0,0,0\n");
  CHECK_THROWS_WITH(zcav::ParseProfile(csv, "x.csv"),
                    Catch::Contains("x.csv:3: passes 0 without unreadable_bytes"));
  std::stringstream json(
      R"({"blocks":[{"offset_bytes":0,"length_bytes":512,"mb_per_s":1,"passes":0}]})");
  CHECK_THROWS_WITH(zcav::ParseProfile(json, "x.json"), Catch::Contains("passes is 0"));
  std::stringstream bad_errors(
      R"({"blocks":[{"offset_bytes":0,"length_bytes":512,"mb_per_s":1}],"errors":[{"offset_bytes":0}]})");
  CHECK_THROWS_WITH(zcav::ParseProfile(bad_errors, "y.json"), Catch::Contains("errors[0]"));
}

namespace zcav {
namespace {

// A zcav access --sizes JSON, as zcav writes it (app_util RandomAccessJson).
constexpr const char* kRandomAccessJson = R"({"schema_version": 1,
  "device": {"path": "/dev/nvme0n1", "size_bytes": 1000204886016, "model": "Samsung 980"},
  "random_access": {"mode": "read", "engine": "io_uring", "seconds_per_cell": 1, "seed": 1,
    "cells": [
      {"size_bytes": 4096, "queue_depth": 1, "engine_depth": 1, "ops": 13000, "seconds": 1.0,
       "iops": 13000.5, "mb_per_s": 53.25, "mean_ms": 0.075, "p50_ms": 0.07, "p99_ms": 0.15,
       "max_ms": 1.2},
      {"size_bytes": 4096, "queue_depth": 32, "engine_depth": 32, "ops": 150000, "seconds": 1.0,
       "iops": 150000, "mb_per_s": 614.4, "mean_ms": 0.21, "p50_ms": 0.2, "p99_ms": 0.34,
       "max_ms": 2.5}]},
  "partial": false})";

TEST_CASE("Random access results read back from a zcav access JSON", "[data_reader]") {
  test::TempDir dir;
  const std::string path = (dir.path() / "ra.json").string();
  test::WriteFile(path, kRandomAccessJson);
  const SavedResult p = ReadRandomAccess(path);
  CHECK(p.device_path == "/dev/nvme0n1");
  CHECK(p.device_model == "Samsung 980");
  CHECK(p.random_access_mode == "read");
  CHECK(p.points.empty());
  REQUIRE(p.random_access.size() == 2);
  CHECK(p.random_access[0].size_bytes == 4096);
  CHECK(p.random_access[0].iops == Approx(13000.5));
  CHECK(p.random_access[0].p99_ms == Approx(0.15));
  CHECK(p.random_access[1].queue_depth == 32);
  CHECK(p.random_access[1].engine_depth == 32);
  CHECK(p.random_access[1].mean_ms == Approx(0.21));
}

TEST_CASE("A result without random access, or with a broken cell, is refused by name",
          "[data_reader]") {
  test::TempDir dir;
  const std::string sweep = test::DataPath("golden.json");
  CHECK_THROWS_WITH(ReadRandomAccess(sweep), Catch::Contains("no random access results"));
  CHECK_THROWS_WITH(ReadRandomAccess(test::DataPath("golden.csv")),
                    Catch::Contains("no random access results"));
  std::string broken = kRandomAccessJson;
  broken.replace(broken.find("\"queue_depth\": 32"), 17, "\"queue_depth\": 0");
  const std::string path = (dir.path() / "broken.json").string();
  test::WriteFile(path, broken);
  CHECK_THROWS_WITH(ReadRandomAccess(path),
                    Catch::Contains("random_access.cells[1]: needs a whole size_bytes"));
}

}  // namespace
}  // namespace zcav
