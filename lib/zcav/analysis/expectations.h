// Expectations: the pass/fail gate for scripts (zcav sweep|profile --expect).
// A run is held against minimums the user gives (rates, counts of slow and
// unreadable regions, the health verdict) and every expectation it does not
// meet is said in one sentence with both numbers and their units. Pure
// functions over values; the command line turns unmet expectations into its
// exit code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zcav/measure/sample.h"

namespace zcav {

// What a run must reach; a field not given is not checked. Rates in MB/s
// (10^6 B/s).
struct Expectations {
  std::optional<double> min_mb_per_s;             // min=MBPS: the slowest block's median rate
  std::optional<double> avg_mb_per_s;             // avg=MBPS: SweepResult::avg_mb_per_s
  std::optional<std::uint64_t> max_slow_regions;  // max-slow=N: slow regions at most
  std::optional<std::uint64_t> max_unreadable;    // max-unreadable=N: unreadable ranges at most
  std::optional<std::string> health;              // health=good|suspect: the verdict no worse
  bool empty() const {
    return !min_mb_per_s && !avg_mb_per_s && !max_slow_regions && !max_unreadable && !health;
  }
};

// Parses "KEY=VALUE[,KEY=VALUE...]" (--expect): keys min and avg (a rate in
// MB/s, 0 or more), max-slow and max-unreadable (a whole number, 0 or
// more), health (good or suspect). White space around keys and values is
// ignored. Throws Error(kBadInput) with one line naming the item for empty
// text or an empty item, an item without '=', an unknown key, a bad value,
// a key given twice.
Expectations ParseExpectations(std::string_view text);

// What a run measured, as the expectations judge it.
struct ExpectationFigures {
  std::uint64_t blocks_measured = 0;  // 0: the rates were not measured
  double min_mb_per_s = 0;            // the lowest block median, MB/s
  double avg_mb_per_s = 0;            // bytes read / read time, MB/s
  std::uint64_t slow_regions = 0;
  std::uint64_t unreadable_ranges = 0;
  std::uint64_t unreadable_bytes = 0;
  // The run's health verdict: "good", "suspect" or "failing"; "" = not known
  // (then a health expectation cannot be checked and counts as unmet).
  std::string health_verdict;
};

// The figures of a sweep (health_verdict left empty: the caller adds it).
ExpectationFigures FiguresOf(const SweepResult& result);

// One sentence per expectation `figures` do not meet, in the order min,
// avg, max-slow, max-unreadable, health, each with the measured and the
// expected value and their units, e.g. "average 36.2 MB/s is below the
// expected 100 MB/s (MB = 10^6 B)"; an expectation that cannot be checked
// (no block measured, no health verdict) says so and counts as unmet. Empty
// when every expectation is met.
std::vector<std::string> UnmetExpectations(const Expectations& expected,
                                           const ExpectationFigures& figures);

}  // namespace zcav
