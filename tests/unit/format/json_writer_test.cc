// Tests of the JSON writer.
//
// Golden file: tests/data/golden.json. Regenerate after an intended format
// change with
//   ZCAV_UPDATE_GOLDEN=1 build/tests/zcav_tests '[json_writer]'
// and review the diff before committing.
#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
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

using nlohmann::json;
using test::WriterRun;

std::string WriteJson(const WriterRun& w) {
  std::ostringstream out;
  auto writer = MakeJsonWriter(out);
  test::Drive(*writer, w);
  return out.str();
}

json ParseJson(const std::string& text) {
  INFO(text);
  json doc;
  REQUIRE_NOTHROW(doc = json::parse(text));
  return doc;
}

TEST_CASE("JSON writer output matches the golden file", "[json_writer]") {
  const std::string out = WriteJson(test::CompleteRun());
  INFO(out);
  CHECK(test::MatchesGolden(out, "golden.json"));
}

TEST_CASE("JSON output parses as one document with the required keys", "[json_writer]") {
  const WriterRun w = test::CompleteRun();
  const json doc = ParseJson(WriteJson(w));
  REQUIRE(doc.is_object());
  for (const char* key : {"format", "version", "command", "started", "device", "options", "blocks",
                          "passes", "summary", "status", "partial"}) {
    INFO(key);
    CHECK(doc.contains(key));
  }
  CHECK(doc["format"] == "zcav");
  CHECK(doc["version"] == "0.1.0-test");
  CHECK(doc["command"] == w.run.command_line);
  CHECK(doc["started"] == "2026-11-29T22:30:50Z");
  CHECK_FALSE(doc.contains("error"));

  const json& d = doc["device"];
  for (const char* key : {"path", "kind", "size_bytes", "sector_bytes", "vendor", "model",
                          "rotational", "transport", "link", "direct_io", "notes"}) {
    INFO(key);
    CHECK(d.contains(key));
  }
  CHECK(d["path"] == "/dev/sdz");
  CHECK(d["size_bytes"] == 4000787030016ULL);
  CHECK(d["sector_bytes"] == 4096);
  CHECK(d["rotational"] == true);
  CHECK(d["direct_io"] == true);
  CHECK(d["notes"] == json::array({"logical sector size 4096 bytes"}));

  const json& o = doc["options"];
  for (const char* key : {"start_bytes", "end_bytes", "block_bytes", "chunk_bytes", "passes",
                          "skip", "quick", "warmup", "notes"}) {
    INFO(key);
    CHECK(o.contains(key));
  }
  CHECK(o["end_bytes"] == 3 * kGiB + kGiB / 2);
  CHECK(o["passes"] == 2);
  CHECK(o["quick"] == false);

  REQUIRE(doc["blocks"].size() == w.blocks.size());
  for (std::size_t i = 0; i < w.blocks.size(); ++i) {
    const json& b = doc["blocks"][i];
    for (const char* key :
         {"offset_bytes", "length_bytes", "mb_per_s", "mean_mb_per_s", "min_mb_per_s",
          "max_mb_per_s", "stddev_mb_per_s", "passes", "seconds"}) {
      INFO(key);
      CHECK(b.contains(key));
    }
    CHECK(b["offset_bytes"] == w.blocks[i].offset_bytes);
    CHECK(b["length_bytes"] == w.blocks[i].length_bytes);
    CHECK(b["mb_per_s"] == w.blocks[i].mb_per_s);  // exact: full double precision
    CHECK(b["seconds"] == w.blocks[i].seconds);
    CHECK(b["passes"] == 2);
  }

  REQUIRE(doc["passes"].size() == 2);
  CHECK(doc["passes"][0]["pass"] == 1);
  CHECK(doc["passes"][1]["pass"] == 2);
  CHECK(doc["passes"][0]["bytes"] == 3 * kGiB + kGiB / 2);
  CHECK(doc["passes"][0]["seconds"] == 20.5);
  CHECK(doc["passes"][1]["complete"] == true);

  const json& s = doc["summary"];
  for (const char* key : {"min_mb_per_s", "max_mb_per_s", "avg_mb_per_s", "cpu_percent", "seconds",
                          "wall_seconds", "bytes_read", "blocks", "storage_read_bytes"}) {
    INFO(key);
    CHECK(s.contains(key));
  }
  CHECK(s["seconds"] == 41.25);
  CHECK(s["wall_seconds"] == 41.5);
  CHECK(s["bytes_read"] == w.result.bytes_read);
  CHECK(s["blocks"] == 4);
  CHECK(s["storage_read_bytes"] == *w.result.storage_read_bytes);
  CHECK(doc["status"] == "complete");
  CHECK(doc["partial"] == false);
}

TEST_CASE("JSON gives every pass's latency classes, their sum, each block's slowest chunk",
          "[json_writer][latency]") {
  const WriterRun w = test::CompleteRun();
  const json doc = ParseJson(WriteJson(w));
  REQUIRE(doc["passes"].size() == 2);
  const json& first = doc["passes"][0];
  CHECK(first["chunk_bytes"] == kMiB);
  REQUIRE(first["latency_classes"].size() == 6);
  const double bounds[] = {5, 20, 50, 150, 500};
  const std::uint64_t counts[] = {3500, 70, 10, 3, 1, 0};
  for (std::size_t i = 0; i < 6; ++i) {
    CAPTURE(i);
    if (i < 5) {
      CHECK(first["latency_classes"][i]["below_ms"] == bounds[i]);
    } else {
      CHECK(first["latency_classes"][i]["below_ms"].is_null());  // 500 ms and more
    }
    CHECK(first["latency_classes"][i]["chunks"] == counts[i]);
  }
  CHECK(first["unreadable_chunks"] == 0);
  const json& sum = doc["summary"];
  CHECK(sum["latency_classes"][0]["chunks"] == 3500 + 3520);
  CHECK(sum["latency_classes"][4]["chunks"] == 1);
  CHECK(sum["chunk_bytes"] == kMiB);
  CHECK(doc["blocks"][2]["worst_chunk_ms"] == 160.5);
  // Started 22:30:50 plus 41.5 s of wall time.
  CHECK(doc["finished"] == "2026-11-29T22:31:32Z");
}

TEST_CASE("JSON of an interrupted run says partial true", "[json_writer]") {
  const json doc = ParseJson(WriteJson(test::InterruptedRun()));
  CHECK(doc["partial"] == true);
  CHECK(doc["status"] == "partial: interrupted");
  CHECK_FALSE(doc.contains("error"));
  CHECK(doc["passes"][1]["complete"] == false);
  CHECK(doc["summary"]["storage_read_bytes"].is_null());
  CHECK(doc["blocks"][3]["passes"] == 1);
}

TEST_CASE("JSON of a read error has an error object with the offset and message", "[json_writer]") {
  const json doc = ParseJson(WriteJson(test::ReadErrorRun()));
  CHECK(doc["partial"] == true);
  const std::string message = std::error_code(EIO, std::system_category()).message();
  CHECK(doc["status"] == "partial: read error at offset " + std::to_string(2 * kGiB + 3 * kMiB) +
                             " bytes: " + message);
  REQUIRE(doc.contains("error"));
  CHECK(doc["error"]["offset_bytes"] == 2 * kGiB + 3 * kMiB);
  CHECK(doc["error"]["message"] == message);
  CHECK(doc["blocks"].size() == 2);
}

TEST_CASE("JSON of a run with no blocks is still one document", "[json_writer]") {
  WriterRun w = test::InterruptedRun();
  w.blocks.clear();
  const json doc = ParseJson(WriteJson(w));
  CHECK(doc["blocks"] == json::array());
  CHECK(doc["partial"] == true);
}

TEST_CASE("JSON writes 0 instead of NaN or infinity", "[json_writer]") {
  WriterRun w = test::CompleteRun();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  w.blocks[0].mb_per_s = nan;
  w.blocks[0].stddev_mb_per_s = inf;
  w.blocks[0].seconds = -inf;
  w.passes[0].mb_per_s = nan;
  w.result.passes = w.passes;
  w.result.avg_mb_per_s = inf;
  w.result.cpu_percent = nan;
  const std::string out = WriteJson(w);
  // nlohmann writes NaN as null; the one null is the open bound of the
  // slowest latency class (once per pass and once in the summary).
  std::size_t nulls = 0;
  for (std::size_t at = out.find("null"); at != std::string::npos; at = out.find("null", at + 1)) {
    ++nulls;
  }
  std::size_t open_bounds = 0;
  for (std::size_t at = out.find("\"below_ms\":null"); at != std::string::npos;
       at = out.find("\"below_ms\":null", at + 1)) {
    ++open_bounds;
  }
  CHECK(open_bounds == w.passes.size() + 1);
  CHECK(nulls == open_bounds);
  const json doc = ParseJson(out);
  CHECK(doc["blocks"][0]["mb_per_s"] == 0.0);
  CHECK(doc["blocks"][0]["stddev_mb_per_s"] == 0.0);
  CHECK(doc["blocks"][0]["seconds"] == 0.0);
  CHECK(doc["passes"][0]["mb_per_s"] == 0.0);
  CHECK(doc["summary"]["avg_mb_per_s"] == 0.0);
  CHECK(doc["summary"]["cpu_percent"] == 0.0);
}

TEST_CASE("JSON writes unknown device facts as null and survives invalid UTF-8", "[json_writer]") {
  WriterRun w = test::CompleteRun();
  w.run.device.vendor.clear();
  w.run.device.link.clear();
  w.run.device.rotational.reset();
  w.run.device.model = "bad \xff\xfe model";
  w.run.command_line = "zcav sweep \"quoted\"\nnewline";
  const json doc = ParseJson(WriteJson(w));
  CHECK(doc["device"]["vendor"].is_null());
  CHECK(doc["device"]["link"].is_null());
  CHECK(doc["device"]["rotational"].is_null());
  CHECK(doc["device"]["model"].get<std::string>().rfind("bad ", 0) == 0);
  CHECK(doc["command"] == "zcav sweep \"quoted\"\nnewline");
}

TEST_CASE("JSON blocks are streamed one per line, so the text so far is a prefix of the document",
          "[json_writer]") {
  const WriterRun w = test::CompleteRun();
  test::TempDir dir;
  const auto path = dir.path() / "run.json";
  std::ofstream out(path, std::ios::binary);
  auto writer = MakeJsonWriter(out);
  writer->OnStart(w.run);
  writer->OnPassDone(w.passes[0]);
  writer->OnBlock(w.blocks[0]);
  writer->OnBlock(w.blocks[1]);

  // Written and flushed already: closing the array and the object makes the
  // file so far a valid document with the two blocks.
  const std::string so_far = test::ReadFile(path);
  const json doc = ParseJson(so_far + "\n]}");
  CHECK(doc["blocks"].size() == 2);
  CHECK(doc["device"]["path"] == "/dev/sdz");
  // Each block object sits on its own line.
  std::size_t block_lines = 0;
  std::istringstream lines(so_far);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("{\"index\":", 0) == 0) ++block_lines;
  }
  CHECK(block_lines == 2);
}

TEST_CASE("JSON writer throws a runtime Error when the output fails", "[json_writer]") {
  std::ostream broken(nullptr);
  auto writer = MakeJsonWriter(broken);
  try {
    writer->OnStart(test::CompleteRun().run);
    FAIL("no exception");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::kRuntime);
  }
}

}  // namespace
}  // namespace zcav
