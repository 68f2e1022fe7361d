// ResultSink: a SampleSink on the output side, which also takes the zone
// analysis of the measured curve at the end of a sweep (OnZones, just before
// OnFinish). The sweep itself knows only SampleSink (measure/sample_sink.h);
// ZoneDetectingSink (pipeline/zone_sink.h) turns its events into zones and hands
// them to the result sinks behind it: the writers, the profile's sinks.
#pragma once

#include <memory>
#include <vector>

#include "zcav/analysis/health.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/measure/sample_sink.h"

namespace zcav {

struct ZoneReportContext;  // zone_table.h

class ResultSink : public SampleSink {
 public:
  // The zone analysis of the measured curve, just before OnFinish, when the
  // sink sits behind a ZoneDetectingSink (pipeline/zone_sink.h).
  virtual void OnZones(const ZoneAnalysis& analysis, const ZoneReportContext& context) {
    (void)analysis;
    (void)context;
  }
  // The run's health conclusion, before OnZones and OnFinish, when the sink
  // sits behind a HealthSink (health_sink.h).
  virtual void OnHealth(const HealthReport& report) { (void)report; }
};

// Forwards every SampleSink event to `samples` (not owned; must outlive it)
// and leaves OnZones to the subclass: the one list of forwarded events, for
// ForwardingSink and ResultTee.
class SampleForwardingSink : public ResultSink {
 public:
  explicit SampleForwardingSink(SampleSink& samples) : samples_(samples) {}
  void OnStart(const RunInfo& run) override { samples_.OnStart(run); }
  void OnSample(const Sample& x) override { samples_.OnSample(x); }
  void OnBlock(const BlockResult& x) override { samples_.OnBlock(x); }
  void OnPassDone(const PassSummary& x) override { samples_.OnPassDone(x); }
  void OnUnreadable(const UnreadableRange& x) override { samples_.OnUnreadable(x); }
  void OnSlowRegion(const SlowRegion& x) override { samples_.OnSlowRegion(x); }
  void OnAdaptive(const AdaptiveResult& x) override { samples_.OnAdaptive(x); }
  void OnFinish(const SweepResult& x) override { samples_.OnFinish(x); }

 private:
  SampleSink& samples_;
};

// Forwards every event to `inner` (not owned; must outlive it): the base of
// the sinks that sit in front of others and change or note a few events
// (they override those and call the base, or `inner()`, to pass them on).
class ForwardingSink : public SampleForwardingSink {
 public:
  explicit ForwardingSink(ResultSink& inner) : SampleForwardingSink(inner), inner_(inner) {}
  void OnZones(const ZoneAnalysis& a, const ZoneReportContext& c) override { inner_.OnZones(a, c); }
  void OnHealth(const HealthReport& report) override { inner_.OnHealth(report); }

 protected:
  ResultSink& inner() { return inner_; }

 private:
  ResultSink& inner_;
};

// Forwards every event to each of `sinks` in order (not owned), and the zones
// to those of them that are ResultSinks.
class ResultTee final : public SampleForwardingSink {
 public:
  explicit ResultTee(std::vector<SampleSink*> sinks);
  void OnZones(const ZoneAnalysis& a, const ZoneReportContext& c) override {
    for (auto* s : results_) s->OnZones(a, c);
  }
  void OnHealth(const HealthReport& report) override {
    for (auto* s : results_) s->OnHealth(report);
  }

 private:
  // `tee` is on the heap so that the base can hold it before it is a member.
  ResultTee(std::unique_ptr<TeeSink> tee, const std::vector<SampleSink*>& sinks);
  std::unique_ptr<TeeSink> tee_;
  std::vector<ResultSink*> results_;
};

}  // namespace zcav
