// Tests of the CSV writer.
//
// Golden file: tests/data/golden.csv. Regenerate after an intended format
// change with
//   ZCAV_UPDATE_GOLDEN=1 build/tests/zcav_tests '[csv_writer]'
// and review the diff before committing.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "testutil.h"
#include "writer_fixture.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/format/writers.h"

namespace zcav {
namespace {

using test::WriterRun;

constexpr char kHeader[] =
    "offset_bytes,length_bytes,mb_per_s,mean_mb_per_s,min_mb_per_s,max_mb_per_s,"
    "stddev_mb_per_s,passes,seconds,unreadable_bytes,worst_chunk_ms";

std::string WriteCsv(const WriterRun& w) {
  std::ostringstream out;
  auto writer = MakeCsvWriter(out);
  test::Drive(*writer, w);
  return out.str();
}

// The lines after the leading '#' comment lines: the header and the rows.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (lines.empty() && line.starts_with('#')) continue;
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> Fields(const std::string& row) {
  std::vector<std::string> fields;
  std::istringstream in(row);
  for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
  return fields;
}

TEST_CASE("CSV writer output matches the golden file", "[csv_writer]") {
  const std::string out = WriteCsv(test::CompleteRun());
  INFO(out);
  CHECK(test::MatchesGolden(out, "golden.csv"));
}

TEST_CASE("CSV has a header row and one row per block with exact integer offsets", "[csv_writer]") {
  WriterRun w = test::CompleteRun();
  // Byte offsets that %.6g would print as 2.19902e+13.
  w.blocks.push_back(
      test::MakeBlock(4, 20 * kTiB + 4096, 20 * kTiB / 1000 + 512, 2, 99.5, 99.0, 100.0));
  const std::vector<std::string> lines = Lines(WriteCsv(w));
  REQUIRE(lines.size() == w.blocks.size() + 1);
  CHECK(lines[0] == kHeader);
  for (std::size_t i = 0; i < w.blocks.size(); ++i) {
    const BlockResult& b = w.blocks[i];
    const std::vector<std::string> f = Fields(lines[i + 1]);
    INFO(lines[i + 1]);
    REQUIRE(f.size() == 11);
    CHECK(f[0] == std::to_string(b.offset_bytes));
    CHECK(f[1] == std::to_string(b.length_bytes));
    CHECK(std::stod(f[2]) == Approx(b.mb_per_s).margin(0.0000005));
    CHECK(std::stod(f[3]) == Approx(b.mean_mb_per_s).margin(0.0000005));
    CHECK(std::stod(f[4]) == Approx(b.min_mb_per_s).margin(0.0000005));
    CHECK(std::stod(f[5]) == Approx(b.max_mb_per_s).margin(0.0000005));
    CHECK(std::stod(f[6]) == Approx(b.stddev_mb_per_s).margin(0.0000005));
    CHECK(f[7] == std::to_string(b.passes));
    CHECK(std::stod(f[8]) == Approx(b.seconds).margin(0.0000000005));
    CHECK(std::stod(f[10]) == Approx(b.worst_chunk_ms).margin(0.0005));
  }
}

TEST_CASE("CSV comment lines name the drive, the host and the chunk size", "[csv_writer]") {
  std::ostringstream out;
  auto writer = MakeCsvWriter(out);
  test::Drive(*writer, test::CompleteRun());
  std::vector<std::string> comments;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line) && line.starts_with('#');) comments.push_back(line);
  REQUIRE_FALSE(comments.empty());
  CHECK(comments[0].starts_with("# zcav-csv 0.1.0-test: rates in MB/s (10^6 B/s)"));
  for (const char* expected :
       {"# model: ST4000DM004-2CV1", "# serial: ZDH1TEST", "# wwn: 0x5000c500a1b2c3d4",
        "# firmware: 0001", "# host: testhost", "# kernel: Linux 6.1.0-test",
        "# chunk_bytes: 1048576", "# started: 2026-11-29T22:30:50Z",
        "# by_id: ata-ST4000DM004-2CV1_ZDH1TEST"}) {
    CAPTURE(expected);
    CHECK(std::find(comments.begin(), comments.end(), expected) != comments.end());
  }
}

TEST_CASE("CSV of an interrupted run has only the comments, the header and block rows",
          "[csv_writer]") {
  const WriterRun w = test::InterruptedRun();
  const std::vector<std::string> lines = Lines(WriteCsv(w));
  REQUIRE(lines.size() == w.blocks.size() + 1);
  CHECK(lines[0] == kHeader);
  for (const std::string& line : lines) {
    INFO(line);
    CHECK(line.find('#') == std::string::npos);
    CHECK(Fields(line).size() == 11);
  }
  CHECK(Fields(lines[3])[7] == "1");  // block 2 was measured once
}

TEST_CASE("CSV rates keep six decimals rather than six significant digits", "[csv_writer]") {
  WriterRun w = test::CompleteRun();
  w.blocks = {test::MakeBlock(0, 0, kGiB, 1, 123456.789012, 123456.789012, 123456.789012)};
  const std::vector<std::string> lines = Lines(WriteCsv(w));
  REQUIRE(lines.size() == 2);
  CHECK(Fields(lines[1])[2] == "123456.789012");
}

TEST_CASE("CSV writes 0 instead of nan or inf", "[csv_writer]") {
  WriterRun w = test::CompleteRun();
  BlockResult b = w.blocks[0];
  b.mb_per_s = std::numeric_limits<double>::quiet_NaN();
  b.stddev_mb_per_s = std::numeric_limits<double>::infinity();
  b.seconds = -std::numeric_limits<double>::infinity();
  w.blocks = {b};
  const std::string out = WriteCsv(w);
  CHECK(out.find("nan") == std::string::npos);
  CHECK(out.find("inf") == std::string::npos);
  const std::vector<std::string> f = Fields(Lines(out).at(1));
  REQUIRE(f.size() == 11);
  CHECK(f[2] == "0.000000");
  CHECK(f[6] == "0.000000");
  CHECK(f[8] == "0.000000000");
}

TEST_CASE("CSV writer flushes each row as it is written", "[csv_writer]") {
  const WriterRun w = test::CompleteRun();
  test::TempDir dir;
  const auto path = dir.path() / "run.csv";
  std::ofstream out(path, std::ios::binary);
  auto writer = MakeCsvWriter(out);
  writer->OnStart(w.run);
  CHECK(Lines(test::ReadFile(path)).size() == 1);
  writer->OnBlock(w.blocks[0]);
  CHECK(Lines(test::ReadFile(path)).size() == 2);
}

TEST_CASE("CSV writer throws a runtime Error when the output fails", "[csv_writer]") {
  std::ostream broken(nullptr);
  auto writer = MakeCsvWriter(broken);
  try {
    writer->OnStart(test::CompleteRun().run);
    FAIL("no exception");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::kRuntime);
  }
}

}  // namespace
}  // namespace zcav
