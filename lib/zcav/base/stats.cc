#include "zcav/base/stats.h"

#include <algorithm>
#include <boost/accumulators/accumulators.hpp>
#include <boost/accumulators/statistics/count.hpp>
#include <boost/accumulators/statistics/max.hpp>
#include <boost/accumulators/statistics/mean.hpp>
#include <boost/accumulators/statistics/min.hpp>
#include <boost/accumulators/statistics/stats.hpp>
#include <boost/accumulators/statistics/variance.hpp>
#include <cmath>
#include <vector>

namespace zcav {

RateStats Summarize(std::span<const double> values) {
  std::vector<double> copy(values.begin(), values.end());
  return SummarizeInPlace(copy);
}

RateStats SummarizeInPlace(std::span<double> values) {
  namespace acc = boost::accumulators;
  RateStats out;
  if (values.empty()) return out;
  acc::accumulator_set<double, acc::stats<acc::tag::count, acc::tag::mean, acc::tag::min,
                                          acc::tag::max, acc::tag::variance>>
      a;
  for (const double v : values) a(v);
  out.count = static_cast<std::uint32_t>(acc::count(a));
  out.mean = acc::mean(a);
  out.min = acc::min(a);
  out.max = acc::max(a);
  // Boost's variance is the population variance; report the sample one.
  const double n = static_cast<double>(out.count);
  out.stddev = out.count > 1 ? std::sqrt(std::max(0.0, acc::variance(a) * n / (n - 1))) : 0.0;
  // Boost's median is a P^2 estimate, poor for the handful of passes a sweep
  // has; the exact median is cheap (linear: a selection, not a sort).
  out.median = MedianInPlace(values);
  return out;
}

double MedianInPlace(std::span<double> values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(mid);
  std::nth_element(values.begin(), middle, values.end());
  const double upper = *middle;
  return values.size() % 2 == 1 ? upper : (*std::max_element(values.begin(), middle) + upper) / 2;
}

}  // namespace zcav
