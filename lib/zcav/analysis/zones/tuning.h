// The zone detector's thresholds and constants, in one place: ZoneTuning
// and its one value, kZoneTuning, which every stage in zones/ reads. Each
// field names its step (the numbering of zone_detector.cc); the reasons for
// the values are in the opening comment of that step's file. The limits a
// user's curve meets (kMaxDetailPoints, kResolutionSigma, kResolvedSigma)
// stay in analysis/zone_detector.h. Internal to the detector.
#pragma once

#include <cstddef>

namespace zcav::zones {

// Relative thresholds are in log units (0.005 = 0.5 %), sigmas are robust
// noise scales of the log rates, lengths are in points (blocks).
struct ZoneTuning {
  // ---- Several stages
  double sigma_floor_rel;       // 1.: least noise scale, 0.1 % (under the 0.5 % smallest step)
  double rate_floor_rel;        // 1.: rates below this share of the median count as it
  std::size_t max_outlier_run;  // 2.: longest run of flagged points that is outliers (a zone is 3)
  double merge_rel_high;        // 4./4c.: steps under 1.5 % may merge; least depth of an excursion
  std::size_t alternating_min_zones;  // 5.: least zones of alternating bands
  double max_excursion_fraction;      // 4c.: longest excursion, share of the curve (5 %)
  double min_excursion_rel;      // 2b./4e.: least depth of a dip or burst, 5 %: a person sees it
  double excursion_level_match;  // 4c.: neighbours agree within max(1.5 %, this x depth)

  // ---- 1b. Correlated noise (noise.cc)
  std::size_t min_correlation_points;  // fewer residuals or pairs: no correlation estimated
  double max_phi;                      // the AR(1) phi is clamped below 1 (inflation stays finite)
  double winsor_sigmas;                // residuals winsorised at this many robust sigmas
  double correlation_std_errors;       // phi used: the estimate plus this many standard errors
  double significant_std_errors;       // the noise IS correlated past this many standard errors
  double correlated_inflation;         // the long-run sigma is used past this variance inflation
  int correlation_rounds;     // estimate repeated on the longer segments, at most this often
  double correlation_growth;  // ... while the inflation grows by this factor (10 %)

  // ---- 2. Outliers (outliers.cc)
  std::size_t hampel_half_window;  // Hampel window: this many points either side (11 in all)
  double hampel_sigmas;            // threshold: at most this many sigmas (5: once in 1.7 million)
  double hampel_min_sigmas;        // ... at least this many (a noisy curve's noise is not flagged)
  double hampel_rel;               // ... else this relative distance (20 %: bonnie++ seed 000)
  double straddle_neighbour_sigmas;  // a straddling point's 3 neighbours each side within this

  // ---- 2b. Texture (texture.cc)
  double run_sigmas;                  // a dip or burst clears this many robust sigmas (and 5 %)
  std::size_t max_short_run;          // 2b.: longest short run, L = min(64, max(8, m - 1))
  std::size_t min_short_run;          // 2b.: ... and the least L
  std::size_t short_run_side_chunks;  // 2b.: chunk medians either side of the level (4 L points)
  double jitter_low;                  // jitter figures: this quantile of the deviations (p5)
  double jitter_high;                 // ... and this one (p95)

  // ---- 3. Segmentation (segmentation.cc)
  double resegment_sigma_ratio;       // 1.: segment again when the inner sigma is under this share
  double penalty_per_log_n;           // beta = this x ln N x sensitivity (BIC 2, room for 3)
  std::size_t min_zone_blocks_floor;  // m is at least 3 points (1-2 are outliers)
  double min_zone_fraction;           // ... and at least 0.2 % of the curve
  double visible_sigmas;              // 4e.: the jitter a person sees, in robust sigmas (>= 5 %)

  // ---- 4. Merging (merging.cc)
  double merge_rel_low;      // a.: means closer than 0.5 % merge
  double small_step_margin;  // c.: a small step clears sqrt(beta) + this many standard errors
  double jump_noises;        // d.: lines meeting within this many end-point errors merge
  std::size_t min_line_fit_blocks;  // a./d.: shorter segments are measured by their median

  // ---- 5. Classification (classification.cc)
  double mostly_directional;           // rising or falling: this share of the steps one way (70 %)
  std::size_t many_small_steps_zones;  // a smooth fit wins over this many zones ...
  double small_step_rel;               // ... of median step under 2 %
  std::size_t knee_bins;               // pcav: knee searched over this many positions
  double min_knee_side_fraction;       // pcav: each side of the knee at least 5 % of the curve
  double clip_min_first_fraction;      // clipped: the first zone covers at least 15 %
  double clip_min_excess;              // clipped: ... and sits 12 % under the later zones' line
  double alternating_fraction;         // alternating: the direction turns at 60 % of the steps
  double tier_ratio;                   // tiered: first zone at least 1.2 x the second

  // ---- Envelope, resolution, long curves
  std::size_t min_envelope_points;  // envelope.cc: least groups of one band period
  std::size_t min_resolved_points;  // resolution.cc: grouping keeps at least this many points
  std::size_t clean_window;         // long_curves.cc: outlier filter window, points
  std::size_t clean_margin;         // long_curves.cc: ... with this many points either side
};

inline constexpr ZoneTuning kZoneTuning{
    .sigma_floor_rel = 0.001,
    .rate_floor_rel = 0.001,
    .max_outlier_run = 2,
    .merge_rel_high = 0.015,
    .alternating_min_zones = 6,
    .max_excursion_fraction = 0.05,
    .min_excursion_rel = 0.05,
    .excursion_level_match = 0.3,

    .min_correlation_points = 20,
    .max_phi = 0.98,
    .winsor_sigmas = 3.0,
    .correlation_std_errors = 2.0,
    .significant_std_errors = 3.0,
    .correlated_inflation = 1.5,
    .correlation_rounds = 4,
    .correlation_growth = 1.1,

    .hampel_half_window = 5,
    .hampel_sigmas = 5.0,
    .hampel_min_sigmas = 3.0,
    .hampel_rel = 0.20,
    .straddle_neighbour_sigmas = 2.0,

    .run_sigmas = 5.0,
    .max_short_run = 64,
    .min_short_run = 8,
    .short_run_side_chunks = 8,
    .jitter_low = 0.05,
    .jitter_high = 0.95,

    .resegment_sigma_ratio = 0.9,
    .penalty_per_log_n = 3.0,
    .min_zone_blocks_floor = 3,
    .min_zone_fraction = 0.002,
    .visible_sigmas = 3.0,

    .merge_rel_low = 0.005,
    .small_step_margin = 2.0,
    .jump_noises = 3.0,
    .min_line_fit_blocks = 5,

    .mostly_directional = 0.7,
    .many_small_steps_zones = 8,
    .small_step_rel = 0.02,
    .knee_bins = 1024,
    .min_knee_side_fraction = 0.05,
    .clip_min_first_fraction = 0.15,
    .clip_min_excess = 0.12,
    .alternating_fraction = 0.6,
    .tier_ratio = 1.2,

    .min_envelope_points = 16,
    .min_resolved_points = 16,
    .clean_window = std::size_t{1} << 16,
    .clean_margin = 64,
};

}  // namespace zcav::zones
