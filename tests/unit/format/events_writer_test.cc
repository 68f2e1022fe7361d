// Tests of the events writer (--events) and of reading its lines back as a
// result (data_reader.h).
#include "zcav/format/events_writer.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "writer_fixture.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/format/data_reader.h"

namespace zcav {
namespace {

using nlohmann::json;
using test::WriterRun;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<json> Events(const std::string& text) {
  std::vector<json> events;
  for (const std::string& line : Lines(text)) {
    INFO(line);
    json e;
    REQUIRE_NOTHROW(e = json::parse(line));
    events.push_back(e);
  }
  return events;
}

std::vector<std::string> Names(const std::vector<json>& events) {
  std::vector<std::string> names;
  for (const json& e : events) names.push_back(e["event"].get<std::string>());
  return names;
}

// A two-pass run's events with a sample per pass (so each pass starts), an
// unreadable range, a slow region and the health verdict.
void DriveFull(EventsWriter& w, const WriterRun& run) {
  w.OnStart(run.run);
  w.OnSample(Sample{.pass = 0,
                    .block_index = 0,
                    .offset_bytes = 0,
                    .length_bytes = kGiB,
                    .elapsed = std::chrono::seconds(2)});
  w.OnUnreadable(UnreadableRange{
      .offset_bytes = 5 * kMiB, .length_bytes = 4096, .errno_value = EIO, .pass = 0});
  w.OnSlowRegion(SlowRegion{
      .offset_bytes = 7 * kMiB, .length_bytes = kMiB, .pass = 0, .ms = 900, .expected_ms = 8});
  w.OnPassDone(run.passes[0]);
  w.OnSample(Sample{.pass = 1, .block_index = 0, .offset_bytes = 0, .length_bytes = kGiB});
  w.OnSample(Sample{.pass = 1, .block_index = 1, .offset_bytes = kGiB, .length_bytes = kGiB});
  for (const BlockResult& b : run.blocks) w.OnBlock(b);
  w.OnPassDone(run.passes[1]);
  HealthReport health;
  health.health.verdict = HealthVerdict::kSuspect;
  health.health.reasons = {"1 unreadable range"};
  w.OnHealth(health);
  w.OnFinish(run.result);
}

TEST_CASE("Events writer writes one JSON object per line, named and versioned, in run order",
          "[events_writer]") {
  const WriterRun run = test::CompleteRun();
  std::ostringstream out;
  {
    const auto writer = MakeEventsWriter(out);
    DriveFull(*writer, run);
    writer->OnExit(1);
  }
  const std::vector<json> events = Events(out.str());
  // Pass 1 of 2 gives its reads as samples; the last pass, the blocks.
  CHECK(Names(events) == std::vector<std::string>{"start", "pass_start", "sample", "unreadable",
                                                  "slow_region", "pass_end", "pass_start", "block",
                                                  "block", "block", "block", "pass_end", "health",
                                                  "done"});
  for (const json& e : events) CHECK(e["schema_version"] == kSchemaVersion);
  // "event" comes first: what the reader detects.
  for (const std::string& line : Lines(out.str())) CHECK(line.rfind("{\"event\":", 0) == 0);
  CHECK(events[0]["device"]["path"] == "/dev/sdz");
  CHECK(events[0]["device"]["identity"]["serial"] == "ZDH1TEST");
  CHECK(events[0]["options"]["block_bytes"] == kGiB);
  CHECK(events[0]["zcav_version"] == "0.1.0-test");
  CHECK(events[1]["pass"] == 1);
  CHECK(events[2]["pass"] == 1);
  CHECK(events[2]["index"] == 0);
  CHECK(events[2]["offset_bytes"] == 0);
  CHECK(events[2]["length_bytes"] == kGiB);
  CHECK(events[2]["seconds"] == 2.0);
  CHECK(events[2]["mb_per_s"] == Approx(kGiB / 2.0 / kMB));
  CHECK(events[6]["pass"] == 2);
  CHECK(events[3]["offset_bytes"] == 5 * kMiB);
  CHECK(events[3]["errno"] == EIO);
  CHECK(events[4]["ms"] == 900.0);
  CHECK(events[7]["offset_bytes"] == 0);
  CHECK(events[7]["length_bytes"] == kGiB);
  CHECK(events[7]["mb_per_s"] == run.blocks[0].mb_per_s);
  CHECK(events[10]["length_bytes"] == kGiB / 2);
  CHECK(events[11]["pass"] == 2);
  CHECK(events[12]["verdict"] == "suspect");
  const json& done = events.back();
  CHECK(done["status"] == "complete");
  CHECK(done["partial"] == false);
  CHECK(done["bytes_read"] == run.result.bytes_read);
  CHECK(done["avg_mb_per_s"] == run.result.avg_mb_per_s);
  CHECK(done["exit_code"] == 1);
}

TEST_CASE("Events writer writes done only with the exit code, or null when none is given",
          "[events_writer]") {
  const WriterRun run = test::InterruptedRun();
  std::ostringstream out;
  {
    const auto writer = MakeEventsWriter(out);
    test::Drive(*writer, run);
    CHECK(Names(Events(out.str())).back() == "pass_end");  // not yet: the code is unknown
    writer->OnExit(130);
    writer->OnExit(0);  // a second call writes nothing
  }
  std::vector<json> events = Events(out.str());
  REQUIRE(Names(events).back() == "done");
  CHECK(events.back()["exit_code"] == 130);
  CHECK(events.back()["status"] == "partial: interrupted");
  CHECK(events.back()["partial"] == true);
  const std::vector<std::string> names = Names(events);
  CHECK(std::count(names.begin(), names.end(), "done") == 1);

  std::ostringstream out2;
  {
    const auto writer = MakeEventsWriter(out2);
    test::Drive(*writer, run);
  }
  events = Events(out2.str());
  REQUIRE(Names(events).back() == "done");
  CHECK(events.back()["exit_code"].is_null());
}

// Counts flushes, and holds what was written.
class FlushCounter : public std::stringbuf {
 public:
  int flushes = 0;

 protected:
  int sync() override {
    ++flushes;
    return std::stringbuf::sync();
  }
};

TEST_CASE("Events writer flushes each event as one whole line", "[events_writer]") {
  FlushCounter buf;
  std::ostream out(&buf);
  const WriterRun run = test::CompleteRun();
  const auto writer = MakeEventsWriter(out);
  writer->OnStart(run.run);
  CHECK(buf.flushes == 1);
  std::size_t lines = 1;
  for (const BlockResult& b : run.blocks) {
    writer->OnBlock(b);
    ++lines;
    CHECK(buf.flushes == static_cast<int>(lines));
    const std::string text = buf.str();
    CHECK(text.back() == '\n');
    CHECK(Lines(text).size() == lines);
  }
}

TEST_CASE("Events writer throws a runtime error when the stream fails", "[events_writer]") {
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  const auto writer = MakeEventsWriter(out);
  try {
    writer->OnStart(test::CompleteRun().run);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::kRuntime);
  }
}

std::string EventsOf(const WriterRun& run, int exit_code) {
  std::ostringstream out;
  const auto writer = MakeEventsWriter(out);
  DriveFull(*writer, run);
  writer->OnExit(exit_code);
  return out.str();
}

TEST_CASE("An events file reads back as a result: blocks, identity, ranges, health",
          "[events_writer]") {
  const WriterRun run = test::CompleteRun();
  std::istringstream in(EventsOf(run, 0));
  const SavedResult p = ParseProfile(in, "run.events");
  CHECK(p.format == "zcav-events");
  REQUIRE(p.points.size() == run.blocks.size());
  for (std::size_t i = 0; i < run.blocks.size(); ++i) {
    CHECK(p.points[i].offset_bytes == run.blocks[i].offset_bytes);
    CHECK(p.points[i].length_bytes == run.blocks[i].length_bytes);
    CHECK(p.points[i].mb_per_s == Approx(run.blocks[i].mb_per_s));
  }
  CHECK(p.device_path == "/dev/sdz");
  CHECK(p.device_model == "ST4000DM004-2CV1");
  CHECK(p.device_serial == "ZDH1TEST");
  CHECK(p.block_bytes == kGiB);
  REQUIRE(p.unreadable.size() == 1);
  CHECK(p.unreadable[0].offset_bytes == 5 * kMiB);
  REQUIRE(p.slow_regions.size() == 1);
  CHECK(p.slow_regions[0].ms == 900.0);
  CHECK(p.health_verdict == "suspect");
  CHECK(p.latency_classes.size() == 2);
  CHECK(p.status == "complete");
  REQUIRE(p.avg_mb_per_s);
  CHECK(*p.avg_mb_per_s == Approx(run.result.avg_mb_per_s));
  CHECK(p.notes.empty());
}

TEST_CASE("An events file cut off mid-run reads as a partial result; a cut last line is skipped",
          "[events_writer]") {
  const std::string text = EventsOf(test::CompleteRun(), 0);
  // Up to the third block event, then half of the fourth's line.
  std::size_t at = 0;
  for (int i = 0; i < 3; ++i) at = text.find("{\"event\":\"block\"", at) + 1;
  const std::size_t fourth = text.find("{\"event\":\"block\"", at);
  const std::string cut = text.substr(0, fourth + 30);
  std::istringstream in(cut);
  const SavedResult p = ParseProfile(in, "cut.events");
  CHECK(p.points.size() == 3);
  CHECK(p.status == "partial: cut off");
  REQUIRE(p.notes.size() == 2);
  CHECK(p.notes[0].find("cut off") != std::string::npos);
  CHECK(p.notes[1].find("3 blocks so far") != std::string::npos);
}

// A three-pass run of the CompleteRun blocks whose reads take `seconds[pass]
// [block]`, killed in pass `killed_in` (0-based) after `blocks_read` blocks
// of it: the events written up to the kill.
std::string KilledThreePassEvents(const double (&seconds)[3][4], std::size_t blocks_read,
                                  std::uint32_t killed_in) {
  WriterRun run = test::CompleteRun();
  run.run.plan.passes = 3;
  std::ostringstream out;
  const auto writer = MakeEventsWriter(out);
  writer->OnStart(run.run);
  for (std::uint32_t pass = 0; pass <= killed_in && pass < 3; ++pass) {
    const std::size_t blocks = pass < killed_in ? run.blocks.size() : blocks_read;
    for (std::size_t i = 0; i < blocks; ++i) {
      const BlockResult& b = run.blocks[i];
      writer->OnSample(Sample{
          .pass = pass,
          .block_index = b.index,
          .offset_bytes = b.offset_bytes,
          .length_bytes = b.length_bytes,
          .elapsed = std::chrono::nanoseconds(static_cast<std::int64_t>(seconds[pass][i] * 1e9))});
      if (pass == 2) {
        BlockResult last = b;
        last.passes = 3;
        writer->OnBlock(last);
      }
    }
    if (blocks == run.blocks.size()) {
      PassSummary summary;
      summary.pass = pass;
      summary.complete = true;
      writer->OnPassDone(summary);
    }
  }
  return out.str();  // no OnFinish: the process was killed
}

TEST_CASE(
    "An events file of a run killed in its last pass reads every block: the rest from samples",
    "[events_writer]") {
  const double seconds[3][4] = {{2, 4, 5, 1}, {3, 5, 4, 2}, {2, 2, 2, 2}};
  const std::string text = KilledThreePassEvents(seconds, 2, 2);
  std::istringstream in(text);
  const SavedResult p = ParseProfile(in, "killed.events");
  const WriterRun run = test::CompleteRun();
  REQUIRE(p.points.size() == 4);
  // Blocks 0 and 1 had their last pass: their block events.
  CHECK(p.points[0].mb_per_s == Approx(run.blocks[0].mb_per_s));
  CHECK(p.points[1].mb_per_s == Approx(run.blocks[1].mb_per_s));
  // Blocks 2 and 3: the median (here the mean) of their two samples.
  const auto rate = [](std::uint64_t bytes, double s) {
    return static_cast<double>(bytes) / kMB / s;
  };
  CHECK(p.points[2].offset_bytes == 2 * kGiB);
  CHECK(p.points[2].length_bytes == kGiB);
  CHECK(p.points[2].mb_per_s == Approx((rate(kGiB, 5) + rate(kGiB, 4)) / 2));
  CHECK(p.points[2].min_mb_per_s == Approx(rate(kGiB, 5)));
  CHECK(p.points[2].max_mb_per_s == Approx(rate(kGiB, 4)));
  CHECK(p.points[3].length_bytes == kGiB / 2);
  CHECK(p.points[3].mb_per_s == Approx((rate(kGiB / 2, 1) + rate(kGiB / 2, 2)) / 2));
  CHECK(p.passes == 3);
  CHECK(p.status == "partial: cut off");
  bool fewer_noted = false;
  for (const std::string& note : p.notes) {
    fewer_noted =
        fewer_noted || note.find("2 of 4 blocks have fewer than 3 passes") != std::string::npos;
  }
  CHECK(fewer_noted);
}

TEST_CASE("An events file of a run killed in its first pass reads the blocks measured so far",
          "[events_writer]") {
  const double seconds[3][4] = {{2, 4, 5, 1}, {3, 5, 4, 2}, {2, 2, 2, 2}};
  std::istringstream in(KilledThreePassEvents(seconds, 3, 0));
  const SavedResult p = ParseProfile(in, "killed.events");
  REQUIRE(p.points.size() == 3);
  CHECK(p.points[0].mb_per_s == Approx(kGiB / 2.0 / kMB));
  CHECK(p.points[1].mb_per_s == Approx(kGiB / 4.0 / kMB));
  CHECK(p.points[2].mb_per_s == Approx(kGiB / 5.0 / kMB));
  CHECK(p.passes == 1);
  CHECK(p.status == "partial: cut off");
}

TEST_CASE("An events file with a broken line before others is refused, naming the line",
          "[events_writer]") {
  std::string text = EventsOf(test::CompleteRun(), 0);
  const std::size_t second_line = text.find('\n') + 1;
  text.insert(second_line, "{\"event\":\"blo\n");
  std::istringstream in(text);
  try {
    (void)ParseProfile(in, "bad.events");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::kBadInput);
    CHECK(std::string(e.what()).find("bad.events:2:") != std::string::npos);
  }
}

}  // namespace
}  // namespace zcav
