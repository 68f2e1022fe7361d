// ResultSink: a SampleSink on the output side, which also takes the zone
// analysis of the measured curve at the end of a sweep (OnZones, just before
// OnFinish). The sweep itself knows only SampleSink (measure/sample_sink.h);
// ZoneDetectingSink (zone_report.h) turns its events into zones and hands
// them to the result sinks behind it: the writers, the profile's sinks.
#pragma once

#include <vector>

#include "zcav/analysis/zone_detector.h"
#include "zcav/measure/sample_sink.h"

namespace zcav {

struct ZoneReportContext;  // zone_report.h

class ResultSink : public SampleSink {
 public:
  // The zone analysis of the measured curve, just before OnFinish, when the
  // sink sits behind a ZoneDetectingSink (zone_report.h).
  virtual void OnZones(const ZoneAnalysis& analysis, const ZoneReportContext& context) {
    (void)analysis;
    (void)context;
  }
};

// Forwards every event to `inner` (not owned; must outlive it): the base of
// the sinks that sit in front of others and change or note a few events
// (they override those and call the base, or `inner()`, to pass them on).
class ForwardingSink : public ResultSink {
 public:
  explicit ForwardingSink(ResultSink& inner) : inner_(inner) {}
  void OnStart(const RunInfo& run) override { inner_.OnStart(run); }
  void OnSample(const Sample& x) override { inner_.OnSample(x); }
  void OnBlock(const BlockResult& x) override { inner_.OnBlock(x); }
  void OnPassDone(const PassSummary& x) override { inner_.OnPassDone(x); }
  void OnUnreadable(const UnreadableRange& x) override { inner_.OnUnreadable(x); }
  void OnSlowRegion(const SlowRegion& x) override { inner_.OnSlowRegion(x); }
  void OnZones(const ZoneAnalysis& a, const ZoneReportContext& c) override { inner_.OnZones(a, c); }
  void OnFinish(const SweepResult& x) override { inner_.OnFinish(x); }

 protected:
  ResultSink& inner() { return inner_; }

 private:
  ResultSink& inner_;
};

// Forwards every event to each of `sinks` in order (not owned), and the zones
// to those of them that are ResultSinks.
class ResultTee final : public ResultSink {
 public:
  explicit ResultTee(std::vector<SampleSink*> sinks);
  void OnStart(const RunInfo& run) override { tee_.OnStart(run); }
  void OnSample(const Sample& x) override { tee_.OnSample(x); }
  void OnBlock(const BlockResult& x) override { tee_.OnBlock(x); }
  void OnPassDone(const PassSummary& x) override { tee_.OnPassDone(x); }
  void OnUnreadable(const UnreadableRange& x) override { tee_.OnUnreadable(x); }
  void OnSlowRegion(const SlowRegion& x) override { tee_.OnSlowRegion(x); }
  void OnZones(const ZoneAnalysis& a, const ZoneReportContext& c) override {
    for (auto* s : results_) s->OnZones(a, c);
  }
  void OnFinish(const SweepResult& x) override { tee_.OnFinish(x); }

 private:
  TeeSink tee_;
  std::vector<ResultSink*> results_;
};

}  // namespace zcav
