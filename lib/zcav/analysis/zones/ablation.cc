// The stages of the zone detector that measurement may switch off
// (zones/ablation.h): their names and the set skipped, none by default.
#include "zcav/analysis/zones/ablation.h"

#include <array>
#include <cstddef>

namespace zcav::zones {
namespace {

constexpr std::array<std::string_view, static_cast<std::size_t>(Stage::kCount)> kStageNames{
    "resolution",       "short-runs",         "outliers",     "straddles",   "resegment",
    "merging",          "merge-short-median", "merge-margin", "merge-lines", "merge-visible",
    "correlated-noise", "excursion-merge",    "hiccup-cuts",  "smooth-fits", "tiered",
    "clipped",          "envelope",
};

StageSet g_skipped;

}  // namespace

std::string_view StageName(Stage stage) { return kStageNames[static_cast<std::size_t>(stage)]; }

std::optional<Stage> StageFromName(std::string_view name) {
  for (std::size_t i = 0; i < kStageNames.size(); ++i) {
    if (kStageNames[i] == name) return static_cast<Stage>(i);
  }
  return std::nullopt;
}

void SetSkippedStages(StageSet skipped) { g_skipped = skipped; }

bool StageRuns(Stage stage) { return !g_skipped.Has(stage); }

}  // namespace zcav::zones
