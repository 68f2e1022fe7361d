#include "zcav/format/result_sink.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "zcav/format/zone_table.h"

namespace {

// Notes each event it gets, with its own name, in one shared log.
class LogSink : public zcav::ResultSink {
 public:
  LogSink(std::string name, std::vector<std::string>& log) : name_(std::move(name)), log_(log) {}
  void OnStart(const zcav::RunInfo&) override { Note("start"); }
  void OnSample(const zcav::Sample&) override { Note("sample"); }
  void OnBlock(const zcav::BlockResult&) override { Note("block"); }
  void OnPassDone(const zcav::PassSummary&) override { Note("pass"); }
  void OnUnreadable(const zcav::UnreadableRange&) override { Note("unreadable"); }
  void OnSlowRegion(const zcav::SlowRegion&) override { Note("slow"); }
  void OnZones(const zcav::ZoneAnalysis&, const zcav::ZoneReportContext&) override {
    Note("zones");
  }
  void OnFinish(const zcav::SweepResult&) override { Note("finish"); }

 private:
  void Note(const char* event) { log_.push_back(name_ + ":" + event); }
  std::string name_;
  std::vector<std::string>& log_;
};

// A plain SampleSink: takes the sample events, never the zones.
class CountingSampleSink : public zcav::SampleSink {
 public:
  void OnBlock(const zcav::BlockResult&) override { ++blocks; }
  int blocks = 0;
};

void SendEveryEvent(zcav::ResultSink& sink) {
  sink.OnStart(zcav::RunInfo{});
  sink.OnSample(zcav::Sample{});
  sink.OnBlock(zcav::BlockResult{});
  sink.OnPassDone(zcav::PassSummary{});
  sink.OnUnreadable(zcav::UnreadableRange{});
  sink.OnSlowRegion(zcav::SlowRegion{});
  sink.OnZones(zcav::ZoneAnalysis{}, zcav::ZoneReportContext{});
  sink.OnFinish(zcav::SweepResult{});
}

}  // namespace

TEST_CASE("ForwardingSink passes every event on to its inner sink", "[result_sink]") {
  std::vector<std::string> log;
  LogSink inner("a", log);
  zcav::ForwardingSink forward(inner);
  SendEveryEvent(forward);
  CHECK(log == std::vector<std::string>{"a:start", "a:sample", "a:block", "a:pass", "a:unreadable",
                                        "a:slow", "a:zones", "a:finish"});
}

TEST_CASE("ResultTee passes each event to every sink in order, the zones to result sinks",
          "[result_sink]") {
  std::vector<std::string> log;
  LogSink a("a", log);
  CountingSampleSink plain;
  LogSink b("b", log);
  zcav::ResultTee tee({&a, &plain, &b});
  SendEveryEvent(tee);
  CHECK(log == std::vector<std::string>{"a:start", "b:start", "a:sample", "b:sample", "a:block",
                                        "b:block", "a:pass", "b:pass", "a:unreadable",
                                        "b:unreadable", "a:slow", "b:slow", "a:zones", "b:zones",
                                        "a:finish", "b:finish"});
  CHECK(plain.blocks == 1);
}
