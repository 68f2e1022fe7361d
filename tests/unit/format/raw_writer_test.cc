// Tests of the raw writer (classic zcav layout), FormatFixed, ParseOutputFormat
// and MakeWriter.
//
// Golden files: tests/data/golden_raw.dat and golden_raw_partial.dat.
// Regenerate after an intended format change with
//   ZCAV_UPDATE_GOLDEN=1 build/tests/zcav_tests '[raw_writer]'
// and review the diff before committing.
#include <catch2/catch.hpp>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "testutil.h"
#include "writer_fixture.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/device/device.h"
#include "zcav/format/writers.h"
#include "zcav/measure/sweep.h"

namespace zcav {
namespace {

using test::WriterRun;

std::string WriteRaw(const WriterRun& w) {
  std::ostringstream out;
  auto writer = MakeRawWriter(out, /*seekable=*/false);
  test::Drive(*writer, w);
  return out.str();
}

// Writes `w` through a seekable raw writer into a real file and returns it.
std::string WriteRawToFile(const WriterRun& w, const std::filesystem::path& path) {
  {
    std::fstream out(path, std::ios::out | std::ios::in | std::ios::trunc | std::ios::binary);
    REQUIRE(out.is_open());
    auto writer = MakeRawWriter(out, /*seekable=*/true);
    test::Drive(*writer, w);
  }
  return test::ReadFile(path);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> DataLines(const std::string& text) {
  std::vector<std::string> data;
  for (const std::string& line : Lines(text)) {
    if (!line.empty() && line[0] != '#') data.push_back(line);
  }
  return data;
}

// The whitespace-separated columns of `line` as numbers; fails the test on a
// column that is not entirely a number.
std::vector<double> Columns(const std::string& line) {
  std::vector<double> columns;
  std::istringstream in(line);
  for (std::string word; in >> word;) {
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(word, &used);
    } catch (const std::exception&) {
      FAIL("column '" << word << "' of '" << line << "' is not a number");
    }
    INFO("column '" << word << "' of '" << line << "'");
    REQUIRE(used == word.size());
    columns.push_back(value);
  }
  return columns;
}

TEST_CASE("Raw writer output matches the golden file", "[raw_writer]") {
  const std::string out = WriteRaw(test::CompleteRun());
  INFO(out);
  CHECK(test::MatchesGolden(out, "golden_raw.dat"));
}

TEST_CASE("Seekable raw writer output of an interrupted run matches the golden file",
          "[raw_writer]") {
  test::TempDir dir;
  const std::string out = WriteRawToFile(test::InterruptedRun(), dir.path() / "partial.dat");
  INFO(out);
  CHECK(test::MatchesGolden(out, "golden_raw_partial.dat"));
}

TEST_CASE("Raw data lines are numeric columns and column 1 is the offset in GiB exactly",
          "[raw_writer]") {
  WriterRun w = test::CompleteRun();
  // Offsets where 0.01 GiB (classic zcav) or 6 significant digits would lose
  // the position: one sector past 20 TiB, and an odd sector near the start.
  w.blocks.push_back(test::MakeBlock(4, 20 * kTiB + 4096, kMiB, 2, 99.5, 99.0, 100.0));
  w.blocks.push_back(test::MakeBlock(5, 7 * 4096, 4096, 2, 12.0, 11.0, 13.0));
  const std::string out = WriteRaw(w);
  const std::vector<std::string> data = DataLines(out);
  REQUIRE(data.size() == w.blocks.size());
  for (std::size_t i = 0; i < data.size(); ++i) {
    const BlockResult& b = w.blocks[i];
    const std::vector<double> c = Columns(data[i]);
    INFO(data[i]);
    REQUIRE(c.size() == 8);
    CHECK(static_cast<std::uint64_t>(std::llround(c[0] * kGiB)) == b.offset_bytes);
    CHECK(c[1] == Approx(b.mb_per_s * 1e6 / kMiB).margin(0.0005));  // MiB/s
    CHECK(c[2] == Approx(b.seconds).margin(0.0000005));
    CHECK(c[3] == Approx(b.mb_per_s).margin(0.0005));  // MB/s
    CHECK(c[4] == Approx(b.min_mb_per_s).margin(0.0005));
    CHECK(c[5] == Approx(b.max_mb_per_s).margin(0.0005));
    CHECK(c[6] == Approx(b.stddev_mb_per_s).margin(0.0005));
    CHECK(c[7] == b.passes);
  }
}

TEST_CASE("Raw writer never prints ++++ even for a block read in microseconds", "[raw_writer]") {
  WriterRun w = test::CompleteRun();
  w.blocks = {test::MakeBlock(0, 0, 4096, 1, 2048.0, 2048.0, 2048.0)};  // 2 us
  const std::string out = WriteRaw(w);
  CHECK(out.find("++++") == std::string::npos);
  const std::vector<std::string> data = DataLines(out);
  REQUIRE(data.size() == 1);
  const std::vector<double> c = Columns(data[0]);
  REQUIRE(c.size() == 8);
  CHECK(c[1] == Approx(2048.0 * 1e6 / kMiB).margin(0.0005));
  CHECK(c[2] > 0);
}

TEST_CASE("Seekable raw writer rewrites the header status line and keeps the file size",
          "[raw_writer]") {
  const WriterRun w = test::InterruptedRun();
  test::TempDir dir;
  const std::string file = WriteRawToFile(w, dir.path() / "run.dat");
  const std::string streamed = WriteRaw(w);  // same events, status left as written

  const std::vector<std::string> lines = Lines(file);
  REQUIRE(lines.size() > 2);
  CHECK(lines[1].rfind("# status: partial: interrupted ", 0) == 0);
  CHECK(lines[1].size() == Lines(streamed)[1].size());
  CHECK(lines.back() == "# status: partial: interrupted");
  // Only the status and errors fields changed: same size, same lines
  // elsewhere, nothing left over after the end.
  CHECK(file.size() == streamed.size());
  CHECK(std::filesystem::file_size(dir.path() / "run.dat") == streamed.size());
  std::vector<std::string> other = Lines(streamed);
  other[1] = lines[1];
  other[2] = lines[2];
  CHECK(lines[2].rfind("# errors: 0 unreadable regions (0 bytes), 0 slow regions ", 0) == 0);
  CHECK(other == lines);
}

TEST_CASE("Seekable raw writer marks a complete run complete at the top", "[raw_writer]") {
  test::TempDir dir;
  const std::string file = WriteRawToFile(test::CompleteRun(), dir.path() / "run.dat");
  const std::vector<std::string> lines = Lines(file);
  REQUIRE(lines.size() > 2);
  CHECK(lines[1].rfind("# status: complete ", 0) == 0);
  CHECK(lines.back() == "# status: complete");
}

TEST_CASE("Non-seekable raw writer leaves the header status and ends with the final status",
          "[raw_writer]") {
  const std::vector<std::string> lines = Lines(WriteRaw(test::InterruptedRun()));
  REQUIRE(lines.size() > 2);
  CHECK(lines[1].rfind("# status: running", 0) == 0);
  CHECK(lines.back() == "# status: partial: interrupted");
}

TEST_CASE("Raw writer names the offset and the message of a read error", "[raw_writer]") {
  const WriterRun w = test::ReadErrorRun();
  test::TempDir dir;
  const std::string file = WriteRawToFile(w, dir.path() / "run.dat");
  const std::string expected = "partial: read error at offset " +
                               std::to_string(2 * kGiB + 3 * kMiB) +
                               " bytes: " + std::error_code(EIO, std::system_category()).message();
  const std::vector<std::string> lines = Lines(file);
  REQUIRE(lines.size() > 2);
  CHECK(lines.back() == "# status: " + expected);
  CHECK(lines[1].rfind("# status: " + expected, 0) == 0);
  CHECK(DataLines(file).size() == 2);
  CHECK(file.find("# pass 1: ") != std::string::npos);
  CHECK(file.find("(incomplete)") != std::string::npos);
}

TEST_CASE("Raw header records units, device, options, notes, passes and version", "[raw_writer]") {
  const std::string out = WriteRaw(test::CompleteRun());
  for (const char* expected :
       {"# units: column 1 = block offset in GiB (2^30 B); column 2 = median MiB/s (2^20 B/s)",
        "MB = 10^6 B",
        "# device: /dev/sdz\n",
        "# size_bytes: 4000787030016\n",
        "# sector_bytes: 4096\n",
        "# model: ST4000DM004-2CV1\n",
        "# rotational: yes\n",
        "# link: SATA 6.0 Gbps\n",
        "# direct_io: yes\n",
        "# note: logical sector size 4096 bytes\n",
        "# note: range limited to the first 3.50 GiB by --end\n",
        "# options: block_bytes=1073741824 chunk_bytes=1048576 passes=2 start_bytes=0 "
        "end_bytes=3758096384 skip=1 quick=no warmup=yes",
        "# started: 2026-11-29T22:30:50Z\n",
        "#loops: 2, version: 0.1.0-test\n",
        "#block offset (GiB), MiB/s, time,",
        "# pass 1: 3758096384 bytes in 20.500000 s,",
        "# pass 2: ",
        "# summary: min 160.250 max 190.500 avg ",
        "cpu 3.4%",
        "# storage bytes read: 7517241344\n"}) {
    INFO(expected);
    CHECK(out.find(expected) != std::string::npos);
  }
}

TEST_CASE("Raw header says unknown for unknown facts and buffered reads when not direct",
          "[raw_writer]") {
  WriterRun w = test::CompleteRun();
  w.run.device.vendor.clear();
  w.run.device.rotational.reset();
  w.run.device.direct_io = false;
  w.result.storage_read_bytes.reset();
  const std::string out = WriteRaw(w);
  CHECK(out.find("# vendor: unknown\n") != std::string::npos);
  CHECK(out.find("# rotational: unknown\n") != std::string::npos);
  CHECK(out.find("# direct_io: no (buffered reads; page cache dropped before each pass)\n") !=
        std::string::npos);
  CHECK(out.find("# storage bytes read") == std::string::npos);
}

TEST_CASE("Newlines in device strings and notes do not break the comment header", "[raw_writer]") {
  WriterRun w = test::CompleteRun();
  w.run.device.model = "evil\nmodel";
  w.run.device.notes.push_back("two\r\nlines");
  w.run.command_line = "zcav sweep 'a\nb'";
  const std::string out = WriteRaw(w);
  for (const std::string& line : Lines(out)) {
    INFO(line);
    if (line.empty() || line[0] == '#') continue;
    CHECK(Columns(line).size() == 8);
  }
  CHECK(DataLines(out).size() == w.blocks.size());
}

TEST_CASE("Raw writer flushes each block as it is written", "[raw_writer]") {
  const WriterRun w = test::CompleteRun();
  test::TempDir dir;
  const auto path = dir.path() / "run.dat";
  std::ofstream out(path, std::ios::binary);
  auto writer = MakeRawWriter(out, /*seekable=*/true);
  writer->OnStart(w.run);
  CHECK(DataLines(test::ReadFile(path)).empty());
  writer->OnBlock(w.blocks[0]);
  CHECK(DataLines(test::ReadFile(path)).size() == 1);
  writer->OnBlock(w.blocks[1]);
  CHECK(DataLines(test::ReadFile(path)).size() == 2);
}

TEST_CASE("Raw writer throws a runtime Error when the output fails", "[raw_writer]") {
  std::ostream broken(nullptr);  // every write sets badbit
  auto writer = MakeRawWriter(broken, /*seekable=*/false);
  try {
    writer->OnStart(test::CompleteRun().run);
    FAIL("no exception");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::kRuntime);
  }
}

TEST_CASE("FormatFixed prints fixed decimals and never nan, inf or -0", "[raw_writer]") {
  CHECK(FormatFixed(12.5, 3) == "12.500");
  CHECK(FormatFixed(0.000002, 6) == "0.000002");
  CHECK(FormatFixed(20480.000003814697, 9) == "20480.000003815");
  CHECK(FormatFixed(123456789.123, 0) == "123456789");
  CHECK(FormatFixed(std::numeric_limits<double>::quiet_NaN(), 3) == "0.000");
  CHECK(FormatFixed(std::numeric_limits<double>::infinity(), 3) == "0.000");
  CHECK(FormatFixed(-std::numeric_limits<double>::infinity(), 1) == "0.0");
  CHECK(FormatFixed(-0.0, 3) == "0.000");
  CHECK(FormatFixed(-0.0000001, 3) == "0.000");
  CHECK(FormatFixed(-1.5, 1) == "-1.5");
  CHECK(FormatFixed(std::numeric_limits<double>::max(), 2).size() > 300);
}

TEST_CASE("ParseOutputFormat accepts raw, csv and json and rejects anything else", "[raw_writer]") {
  CHECK(ParseOutputFormat("raw") == OutputFormat::kRaw);
  CHECK(ParseOutputFormat("csv") == OutputFormat::kCsv);
  CHECK(ParseOutputFormat("json") == OutputFormat::kJson);
  for (const char* bad : {"", "xml", "JSON ", "raw,csv"}) {
    INFO(bad);
    try {
      ParseOutputFormat(bad);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::kBadInput);
      CHECK(std::string(e.what()).find("raw, csv or json") != std::string::npos);
    }
  }
}

TEST_CASE("MakeWriter returns the writer of the requested format", "[raw_writer]") {
  const WriterRun w = test::CompleteRun();
  const auto first_line = [&](OutputFormat format) {
    std::ostringstream out;
    auto writer = MakeWriter(format, out, /*seekable=*/false);
    test::Drive(*writer, w);
    return Lines(out.str()).at(0);
  };
  CHECK(first_line(OutputFormat::kRaw).rfind("# zcav 0.1.0-test raw data", 0) == 0);
  CHECK(first_line(OutputFormat::kCsv).rfind("# zcav-csv 0.1.0-test", 0) == 0);
  CHECK(first_line(OutputFormat::kJson).rfind("{\"format\":\"zcav\"", 0) == 0);
}

}  // namespace
}  // namespace zcav

TEST_CASE("Every writer records unreadable ranges, slow regions and blocks with no clean read",
          "[raw_writer][csv_writer][json_writer]") {
  // A real sweep of a simulated disk with one bad sector and one slow range.
  const auto sweep = [](zcav::OutputFormat format) {
    zcav::VirtualClock clock;
    const auto device = zcav::OpenDevice("sim:hdd?size=64M&bad=21M+4k&slow=40M+1M&noise=0", clock);
    zcav::RunInfo run;
    run.device = device->info();
    zcav::SweepOptions options;
    options.block_bytes = 4 * zcav::kMiB;
    run.plan = zcav::PlanSweep(run.device, options);
    std::ostringstream out;
    const auto writer = zcav::MakeWriter(format, out, false);
    zcav::RunSweep(*device, run, clock, *writer);
    return out.str();
  };
  const std::string raw = sweep(zcav::OutputFormat::kRaw);
  INFO(raw);
  CHECK(raw.find("# unreadable: offset_bytes=22020096 length_bytes=4096 errno=5 (Input/output "
                 "error) pass=1\n") != std::string::npos);
  CHECK(raw.find("# unreadable block: offset_bytes=20971520 length_bytes=4194304 "
                 "unreadable_bytes=4096") != std::string::npos);
  CHECK(raw.find("# slow: offset_bytes=41943040 length_bytes=1048576 ") != std::string::npos);
  CHECK(raw.find("# errors: 1 unreadable region (4096 bytes), 1 slow region\n") !=
        std::string::npos);
  CHECK(raw.find("\n0.019531250 ") == std::string::npos);  // no data line at 20 MiB
  CHECK(raw.find("\n0.023437500 ") != std::string::npos);  // the block after it is there

  const std::string csv = sweep(zcav::OutputFormat::kCsv);
  CHECK(
      csv.find(
          "\n20971520,4194304,0.000000,0.000000,0.000000,0.000000,0.000000,0,0.000000000,4096,") !=
      std::string::npos);

  const auto json = nlohmann::json::parse(sweep(zcav::OutputFormat::kJson));
  REQUIRE(json["errors"].size() == 1);
  CHECK(json["errors"][0]["offset_bytes"] == 22020096);
  CHECK(json["errors"][0]["length_bytes"] == 4096);
  CHECK(json["errors"][0]["errno"] == 5);
  CHECK(json["blocks"][5]["mb_per_s"].is_null());
  CHECK(json["blocks"][5]["unreadable_bytes"] == 4096);
  CHECK(json["blocks"][6]["mb_per_s"].get<double>() > 0);
  REQUIRE(json["slow_regions"].size() == 1);
  CHECK(json["slow_regions"][0]["offset_bytes"] == 41943040);
}
