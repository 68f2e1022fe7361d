// Step origin: is a step between two zones a property of the position (a
// media zone: at the same place in every pass) or of the elapsed time (a
// cache running out, a host hiccup, thermal throttling: it moves between
// passes or is missing from some)? Answered from the curves of the
// individual passes of a sweep.
//
// ClassifySteps and ApplyStepOrigins are pure functions over values;
// PassCurveSink collects the per-pass curves during a sweep.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "zcav/measure/sample_sink.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/io/zone_report.h"

namespace zcav {

// Blocks either side of a candidate edge whose median is a level.
inline constexpr std::size_t kStepWindowBlocks = 32;
// The least tolerance for a step's position in a pass, in blocks.
inline constexpr std::size_t kStepToleranceBlocks = 3;

// For each step of `analysis` (between zones k-1 and k, k >= 1, in order),
// decides its origin from `passes`, one curve per pass in pass order, each in
// position order over the blocks of the (median) curve `analysis` came from.
// A block a pass did not read may be absent from its curve or have a rate of
// 0 (or NaN); it is ignored.
//
// In each pass the step is looked for around the median curve's edge
// (zones[k].start_bytes), from the middle of zone k-1 to the middle of zone
// k and at most tolerance + 4 x kStepWindowBlocks blocks away: the pass's
// level on either side of each candidate edge is the median of up to
// kStepWindowBlocks blocks within the two zones (robust to outliers and
// single noisy blocks); the pass's step is where that change is largest in
// the step's direction, placed by least absolute deviations. The pass shows
// the step when it changes in the same direction by roughly the same amount
// (between half and twice the median curve's log change, or within the
// pass's noise), standing out of its noise (3 standard errors), and its edge lies within the tolerance of the median's:
// max(kStepToleranceBlocks, 1 % of the curve's blocks).
//
// Result: one Step per step of `analysis` (Step::zone = k), with
//   kPosition  the passes (at least 2) show the step there, all of them or
//              all but at most a third (one odd pass among 3 to 5 is that
//              pass's hiccup);
//   kTime      more than a third of the passes (of two, either) have no such
//              step, or have it elsewhere;
//   kUnknown   fewer than 2 passes have data on both sides of the step.
// pass_offsets_bytes holds, per pass, the offset of the first block after
// the pass's edge when it changes the same way by roughly the same amount
// somewhere in the searched range (even outside the tolerance), else -1; it
// is empty when passes.size() < 2. A pass without blocks on both sides of
// the step does not vote (its offset is -1).
// Time O(steps x passes x (tolerance + window) x window); never throws except
// std::bad_alloc.
std::vector<Step> ClassifySteps(const ZoneAnalysis& analysis, const std::vector<Curve>& passes);

// Stores `steps` (from ClassifySteps over the same analysis) in
// analysis.steps and merges away every zone whose step is kTime with
// MergeZonesAt over `median` (which recomputes the zone figures, the curve
// type and the description). The steps of kind kTime are kept in
// analysis.steps afterwards, as the record that a time-dependent change was
// seen: their `zone` is then the zone the step now lies inside (the merged
// one). REQUIRES: `analysis` came from DetectZones over `median`, and
// `steps` from ClassifySteps(analysis, ...) before any merge.
void ApplyStepOrigins(const Curve& median, std::vector<Step> steps, ZoneAnalysis& analysis);

// One curve per pass of `plan` from a sweep's timed samples (as a saved
// multi-pass result records them: pass, block index, elapsed time), each
// over the blocks that pass read, in position order; rates are the block's
// length over its elapsed time (MB/s). Samples of other passes or blocks,
// or with no time, are ignored.
std::vector<Curve> PassCurvesFromSamples(const SweepPlan& plan, const std::vector<Sample>& samples);

// Whether `analysis` records a step that followed the elapsed time (one of
// analysis.steps has origin kTime).
bool HasTimeSteps(const ZoneAnalysis& analysis);

// A sink that keeps each pass's per-block rates (MB/s, as float: 4 bytes
// per block per pass; NaN = not read cleanly in that pass) and forwards
// every event to `inner` (not owned). At OnZones, when the plan has at least
// 2 passes, it classifies the analysis's steps against the passes
// (ClassifySteps), merges away the time steps (ApplyStepOrigins over the
// median curve it collected from OnBlock, blocks with no clean read or with
// unreadable bytes left out, as ZoneDetectingSink does) and, when the
// context carries a verdict, decides the verdict again for the changed
// zones; then it passes the result on to inner.OnZones(). Place it between a
// ZoneDetectingSink and the writers: ZoneDetectingSink(PassCurveSink(tee)).
// analysis() and context() are what was passed on (valid after OnZones;
// before, an empty analysis and context).
class PassCurveSink final : public SampleSink {
 public:
  // `burst_mb_per_s`: the burst rate the verdict weighs, when measured (as
  // given to ZoneDetectingSink).
  explicit PassCurveSink(SampleSink& inner,
                         std::optional<double> burst_mb_per_s = std::nullopt);
  void OnStart(const RunInfo& run) override;
  void OnSample(const Sample& sample) override;
  void OnBlock(const BlockResult& block) override;
  void OnPassDone(const PassSummary& pass) override { inner_.OnPassDone(pass); }
  void OnUnreadable(const UnreadableRange& range) override { inner_.OnUnreadable(range); }
  void OnSlowRegion(const SlowRegion& region) override { inner_.OnSlowRegion(region); }
  void OnZones(const ZoneAnalysis& analysis, const ZoneReportContext& context) override;
  void OnFinish(const SweepResult& result) override { inner_.OnFinish(result); }

  // The curve of pass `pass` (0-based) over the blocks it read cleanly.
  // REQUIRES: pass < the plan's passes.
  Curve PassCurve(std::uint32_t pass) const;
  const ZoneAnalysis& analysis() const { return analysis_; }
  const ZoneReportContext& context() const { return context_; }

 private:
  SampleSink& inner_;
  std::optional<double> burst_mb_per_s_;
  SweepPlan plan_;
  std::vector<float> rates_;  // block * passes + pass
  Curve median_;
  ZoneAnalysis analysis_;
  ZoneReportContext context_;
};

}  // namespace zcav
