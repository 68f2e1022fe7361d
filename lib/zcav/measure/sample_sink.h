// SampleSink: the observer the sweep reports to. Writers, the progress line
// and tests are sinks; the sweep itself prints nothing. The zones are an
// output-side event: format/result_sink.h.
#pragma once

#include <memory>
#include <vector>

#include "zcav/measure/adaptive.h"
#include "zcav/measure/sample.h"

namespace zcav {

class SampleSink {
 public:
  virtual ~SampleSink() = default;
  // Before the first read. `run` stays valid for the whole sweep.
  virtual void OnStart(const RunInfo& run) { (void)run; }
  // One block read once. Called in read order.
  virtual void OnSample(const Sample& sample) { (void)sample; }
  // A block's final statistics, in block order, each block exactly once:
  // during the last pass as blocks complete, and for the remaining measured
  // blocks when the sweep stops early.
  virtual void OnBlock(const BlockResult& block) { (void)block; }
  virtual void OnPassDone(const PassSummary& pass) { (void)pass; }
  // A range found unreadable, as soon as it is bounded (before the block it
  // lies in is reported). Ranges already reported in an earlier pass are not
  // reported again; SweepResult::unreadable has the merged list.
  virtual void OnUnreadable(const UnreadableRange& range) { (void)range; }
  // A slow region, once it has ended.
  virtual void OnSlowRegion(const SlowRegion& region) { (void)region; }
  // An adaptive run (adaptive.h): its edges, zones and bytes read, after its
  // probes (OnBlock, in position order; the result's `probes` are left
  // empty: the blocks are the probes) and before OnFinish. A sweep never
  // calls it.
  virtual void OnAdaptive(const AdaptiveResult& result) { (void)result; }
  // Last call. Output must be complete and flushed when it returns.
  virtual void OnFinish(const SweepResult& result) { (void)result; }
};

// Forwards every event to each of `sinks` in order (not owned).
class TeeSink final : public SampleSink {
 public:
  explicit TeeSink(std::vector<SampleSink*> sinks) : sinks_(std::move(sinks)) {}
  void OnStart(const RunInfo& run) override {
    for (auto* s : sinks_) s->OnStart(run);
  }
  void OnSample(const Sample& x) override {
    for (auto* s : sinks_) s->OnSample(x);
  }
  void OnBlock(const BlockResult& x) override {
    for (auto* s : sinks_) s->OnBlock(x);
  }
  void OnPassDone(const PassSummary& x) override {
    for (auto* s : sinks_) s->OnPassDone(x);
  }
  void OnUnreadable(const UnreadableRange& x) override {
    for (auto* s : sinks_) s->OnUnreadable(x);
  }
  void OnSlowRegion(const SlowRegion& x) override {
    for (auto* s : sinks_) s->OnSlowRegion(x);
  }
  void OnAdaptive(const AdaptiveResult& x) override {
    for (auto* s : sinks_) s->OnAdaptive(x);
  }
  void OnFinish(const SweepResult& x) override {
    for (auto* s : sinks_) s->OnFinish(x);
  }

 private:
  std::vector<SampleSink*> sinks_;
};

}  // namespace zcav
