// Statistics of a set of per-pass rates (Boost.Accumulators behind it).
#pragma once

#include <cstdint>
#include <span>

namespace zcav {

struct RateStats {
  std::uint32_t count = 0;
  double median = 0;  // exact (middle value, or mean of the two middle ones)
  double mean = 0;
  double min = 0;
  double max = 0;
  double stddev = 0;  // sample standard deviation (n-1); 0 when count < 2
};

// Median absolute deviation (MAD) to standard deviation, for normal noise
// (1 / the normal distribution's 75th percentile): sigma = kMadToSigma * MAD.
inline constexpr double kMadToSigma = 1.4826;

// The median of `values`: the middle value, or the mean of the two middle
// ones. Reorders `values` (a selection in linear time, not a sort). 0 when
// empty.
double MedianInPlace(std::span<double> values);

// Summarises `values` (any unit). Empty input gives all zeros. Copies the
// values once (for the median).
RateStats Summarize(std::span<const double> values);
// The same without the copy: reorders `values` (the median is found in
// place). Gives exactly what Summarize gives.
RateStats SummarizeInPlace(std::span<double> values);

// Copies `from`, a summary of rates in MB/s, into the rate fields of `to`
// (a BlockResult, a Zone: any struct with them): mb_per_s takes the median,
// mean_mb_per_s, min_mb_per_s, max_mb_per_s and stddev_mb_per_s the rest.
// The count is not copied.
template <typename Rates>
void CopyRates(const RateStats& from, Rates& to) {
  to.mb_per_s = from.median;
  to.mean_mb_per_s = from.mean;
  to.min_mb_per_s = from.min;
  to.max_mb_per_s = from.max;
  to.stddev_mb_per_s = from.stddev;
}

}  // namespace zcav
