#include "zcav/base/stats.h"

#include <catch2/catch.hpp>
#include <vector>

TEST_CASE("Summarize gives the exact median, mean, extremes and sample stddev", "[stats]") {
  const std::vector<double> odd{5, 1, 3};
  const auto s = zcav::Summarize(odd);
  CHECK(s.count == 3);
  CHECK(s.median == 3);
  CHECK(s.mean == Approx(3));
  CHECK(s.min == 1);
  CHECK(s.max == 5);
  CHECK(s.stddev == Approx(2.0));  // sample stddev of 1,3,5

  const std::vector<double> even{10, 2, 4, 100};
  CHECK(zcav::Summarize(even).median == Approx(7));
}

TEST_CASE("Summarize of one value has zero spread and of none is all zero", "[stats]") {
  const std::vector<double> one{42};
  const auto s = zcav::Summarize(one);
  CHECK(s.median == 42);
  CHECK(s.stddev == 0);
  const auto none = zcav::Summarize(std::span<const double>());
  CHECK(none.count == 0);
  CHECK(none.mean == 0);
}

TEST_CASE("SummarizeInPlace gives exactly what Summarize gives", "[stats]") {
  for (const std::vector<double>& values :
       {std::vector<double>{5, 1, 3}, std::vector<double>{10, 2, 4, 100},
        std::vector<double>{0.1, 0.7, 0.3, 0.3, 0.9, 0.2}, std::vector<double>{7}}) {
    std::vector<double> scratch = values;
    const auto in_place = zcav::SummarizeInPlace(scratch);
    const auto copied = zcav::Summarize(values);
    CHECK(in_place.count == copied.count);
    CHECK(in_place.median == copied.median);
    CHECK(in_place.mean == copied.mean);
    CHECK(in_place.min == copied.min);
    CHECK(in_place.max == copied.max);
    CHECK(in_place.stddev == copied.stddev);
  }
}

TEST_CASE("MedianInPlace is the middle value or the mean of the two middle ones, 0 for none",
          "[stats]") {
  std::vector<double> odd{5, 1, 3};
  CHECK(zcav::MedianInPlace(odd) == 3);
  std::vector<double> even{10, 2, 4, 100};
  CHECK(zcav::MedianInPlace(even) == 7);
  std::vector<double> none;
  CHECK(zcav::MedianInPlace(none) == 0);
  std::vector<double> values{0.1, 0.7, 0.3, 0.3, 0.9, 0.2};
  std::vector<double> copy = values;
  CHECK(zcav::MedianInPlace(copy) == zcav::Summarize(values).median);
}

TEST_CASE("CopyRates puts the median in mb_per_s and the rest in their fields", "[stats]") {
  struct Rates {
    double mb_per_s = -1, mean_mb_per_s = -1, min_mb_per_s = -1, max_mb_per_s = -1,
           stddev_mb_per_s = -1;
  } to;
  const zcav::RateStats from{.count = 3, .median = 3, .mean = 4, .min = 1, .max = 8, .stddev = 2};
  zcav::CopyRates(from, to);
  CHECK(to.mb_per_s == 3);
  CHECK(to.mean_mb_per_s == 4);
  CHECK(to.min_mb_per_s == 1);
  CHECK(to.max_mb_per_s == 8);
  CHECK(to.stddev_mb_per_s == 2);
}
