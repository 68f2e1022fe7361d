#include "zcav/pipeline/pass_curves.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "zcav/analysis/verdict.h"

namespace zcav {

std::vector<Curve> PassCurvesFromSamples(const SweepPlan& plan,
                                         const std::vector<Sample>& samples) {
  std::vector<std::vector<std::pair<std::uint64_t, double>>> by_pass(plan.passes);
  for (const Sample& x : samples) {
    if (x.pass >= plan.passes || x.block_index >= plan.block_count || x.elapsed.count() <= 0)
      continue;
    const double seconds = static_cast<double>(x.elapsed.count()) * 1e-9;
    by_pass[x.pass].emplace_back(
        x.block_index, static_cast<double>(plan.BlockLength(x.block_index)) / seconds / 1e6);
  }
  std::vector<Curve> curves(plan.passes);
  for (std::uint32_t p = 0; p < plan.passes; ++p) {
    std::sort(by_pass[p].begin(), by_pass[p].end());
    for (const auto& [block, rate] : by_pass[p]) {
      curves[p].push_back({plan.BlockOffset(block), plan.BlockLength(block), rate, 0, 0});
    }
  }
  return curves;
}

PassCurveSink::PassCurveSink(ResultSink& inner, std::optional<double> burst_mb_per_s)
    : ForwardingSink(inner), burst_mb_per_s_(burst_mb_per_s) {}

void PassCurveSink::OnStart(const RunInfo& run) {
  plan_ = run.plan;
  rates_.assign(plan_.passes >= 2 ? plan_.block_count * plan_.passes : 0,
                std::numeric_limits<float>::quiet_NaN());
  median_.clear();
  analysis_ = ZoneAnalysis{};
  context_ = ZoneReportContext{};
  inner().OnStart(run);
}

void PassCurveSink::OnSample(const Sample& sample) {
  if (!rates_.empty() && sample.block_index < plan_.block_count && sample.pass < plan_.passes &&
      sample.elapsed.count() > 0) {
    const double seconds = static_cast<double>(sample.elapsed.count()) * 1e-9;
    rates_[sample.block_index * plan_.passes + sample.pass] =
        static_cast<float>(static_cast<double>(sample.length_bytes) / seconds / 1e6);
  }
  inner().OnSample(sample);
}

void PassCurveSink::OnBlock(const BlockResult& block) {
  // The same points ZoneDetectingSink analyses.
  if (!rates_.empty() && block.passes > 0 && block.unreadable_bytes == 0) {
    median_.push_back({block.offset_bytes, block.length_bytes, block.mb_per_s, block.min_mb_per_s,
                       block.max_mb_per_s});
  }
  inner().OnBlock(block);
}

Curve PassCurveSink::PassCurve(std::uint32_t pass) const {
  Curve curve;
  if (rates_.empty()) return curve;
  for (std::uint64_t b = 0; b < plan_.block_count; ++b) {
    const float r = rates_[b * plan_.passes + pass];
    if (std::isnan(r)) continue;
    curve.push_back({plan_.BlockOffset(b), plan_.BlockLength(b), r, 0, 0});
  }
  return curve;
}

void PassCurveSink::OnZones(const ZoneAnalysis& analysis, const ZoneReportContext& context) {
  analysis_ = analysis;
  context_ = context;
  if (!rates_.empty() && analysis_.zones.size() >= 2) {
    std::vector<Curve> passes;
    for (std::uint32_t p = 0; p < plan_.passes; ++p) passes.push_back(PassCurve(p));
    ApplyStepOrigins(median_, ClassifySteps(analysis_, passes), analysis_);
    if (HasTimeSteps(analysis_) && context_.transport) {
      context_.verdict = VerdictFor(analysis_, *context_.transport, burst_mb_per_s_,
                                    context_.write_cache, context_.caches);
    }
  }
  rates_ = std::vector<float>();  // not needed any more: give the memory back
  median_ = Curve();
  inner().OnZones(analysis_, context_);
}

}  // namespace zcav
