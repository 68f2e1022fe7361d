// The curves of the individual passes of a sweep, for telling media steps
// from time steps (analysis/step_origin.h): from a saved result's samples
// (PassCurvesFromSamples) or collected while a sweep runs (PassCurveSink).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "zcav/analysis/step_origin.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/format/result_sink.h"
#include "zcav/format/zone_table.h"
#include "zcav/measure/sample.h"
#include "zcav/measure/sweep.h"

namespace zcav {

// One curve per pass of `plan` from a sweep's timed samples (as a saved
// multi-pass result records them: pass, block index, elapsed time), each
// over the blocks that pass read, in position order; rates are the block's
// length over its elapsed time (MB/s). Samples of other passes or blocks,
// or with no time, are ignored.
std::vector<Curve> PassCurvesFromSamples(const SweepPlan& plan, const std::vector<Sample>& samples);

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
class PassCurveSink final : public ForwardingSink {
 public:
  // `burst_mb_per_s`: the burst rate the verdict weighs, when measured (as
  // given to ZoneDetectingSink).
  explicit PassCurveSink(ResultSink& inner, std::optional<double> burst_mb_per_s = std::nullopt);
  void OnStart(const RunInfo& run) override;
  void OnSample(const Sample& sample) override;
  void OnBlock(const BlockResult& block) override;
  void OnZones(const ZoneAnalysis& analysis, const ZoneReportContext& context) override;

  // The curve of pass `pass` (0-based) over the blocks it read cleanly.
  // REQUIRES: pass < the plan's passes.
  Curve PassCurve(std::uint32_t pass) const;
  const ZoneAnalysis& analysis() const { return analysis_; }
  const ZoneReportContext& context() const { return context_; }

 private:
  std::optional<double> burst_mb_per_s_;
  SweepPlan plan_;
  std::vector<float> rates_;  // block * passes + pass
  Curve median_;
  ZoneAnalysis analysis_;
  ZoneReportContext context_;
};

}  // namespace zcav
