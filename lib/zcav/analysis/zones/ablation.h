// Switching the zone detector's stages off one at a time, to measure what
// each earns (docs/zone-detector.md): the stages that can be skipped, their
// names, and the set that is skipped. For measurement only: the ablation
// bench (tests/bench/zone_ablation.cc) and the unit tests' hook
// (tests/unit/analysis/stage_hook.cc, ZCAV_TEST_SKIP_STAGE) call
// SetSkippedStages; zcav itself never does, so every stage runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace zcav::zones {

// The stages that can be switched off, in the detector's run order (the step
// numbers of zone_detector.cc). Steps 1 (noise scale), 3 (segmentation), the
// step typing of 5. and 6. (summary) are what every other stage builds on and
// cannot be skipped; nor can the long-curve path (7.), which bounds memory.
enum class Stage : std::uint8_t {
  kResolution,        // grouping of points that scatter like timing noise
  kShortRuns,         // 2b.: short dips and bursts set aside as texture
  kOutliers,          // 2.: the Hampel filter (and the straddles with it)
  kStraddles,         // 2.: blocks read across a zone edge
  kResegment,         // 1./3.: segment again with the sigma inside the segments
  kMerging,           // 4.: merging of adjacent segments (all of a. to e.)
  kMergeShortMedian,  // 4a.: a segment under 5 blocks measured by its median
  kMergeMargin,       // 4c.: small steps clear the penalty with a margin
  kMergeLines,        // 4d.: a droop cut in two (the lines meet) merges
  kMergeVisible,      // 4e.: steps inside the visible jitter (not rotating)
  kCorrelatedNoise,   // 1b.: the long-run sigma of AR(1) noise
  kExcursionMerge,    // 4c.: an excursion left is merged with its neighbours
  kHiccupCuts,        // 4c.: a hiccup and its payback are merged away
  kSmoothFits,        // 5.: cav and pcav fits against the steps
  kTiered,            // 5.: two tiers on a device that does not rotate
  kClipped,           // 5.: a falling curve under a ceiling
  kEnvelope,          // 5.: alternating bands found again on their envelope
  kCount,
};

// The stage's name in the bench and the hook ("merge-lines"), and back.
std::string_view StageName(Stage stage);
std::optional<Stage> StageFromName(std::string_view name);

// A set of stages, one bit each.
struct StageSet {
  std::uint32_t bits = 0;
  bool Has(Stage s) const { return (bits >> static_cast<unsigned>(s) & 1U) != 0; }
  StageSet With(Stage s) const { return {bits | 1U << static_cast<unsigned>(s)}; }
};

// The stages every detection skips from now on (none until called). Not
// thread-safe: call before any detection runs.
void SetSkippedStages(StageSet skipped);
// True unless SetSkippedStages switched `stage` off.
bool StageRuns(Stage stage);

}  // namespace zcav::zones
