// Expectations: the pass/fail gate for scripts (zcav sweep|profile --expect).
// A run is held against minimums the user gives (rates, counts of slow and
// unreadable regions, the health verdict; for recorders, the worst stall and
// the sustained rate) and every expectation it does not meet is said in one
// sentence with both numbers and their units. Pure functions over values;
// the command line turns unmet expectations into its exit code.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zcav/analysis/sustained.h"
#include "zcav/analysis/write_cache.h"
#include "zcav/measure/request_timeline.h"
#include "zcav/measure/sample.h"

namespace zcav {

// sustained=RATE@WINDOW: the lowest rate over any WINDOW of the run's
// requests, after the write cache (sustained.h), at least RATE.
struct SustainedExpectation {
  double mb_per_s = 0;  // RATE in MB/s (10^6 B/s)
  bool mib = false;     // RATE was given in MiB/s (2^20 B/s): the sentences say it so
  std::chrono::nanoseconds window{0};
};

// What a run must reach; a field not given is not checked. Rates in MB/s
// (10^6 B/s).
struct Expectations {
  std::optional<double> min_mb_per_s;             // min=MBPS: the slowest block's median rate
  std::optional<double> avg_mb_per_s;             // avg=MBPS: SweepResult::avg_mb_per_s
  std::optional<std::uint64_t> max_slow_regions;  // max-slow=N: slow regions at most
  std::optional<std::uint64_t> max_unreadable;    // max-unreadable=N: unreadable ranges at most
  std::optional<std::string> health;              // health=good|suspect: the verdict no worse
  // worst-stall=DURATION: the longest single request (one read or write call
  // of a chunk) at most this long.
  std::optional<std::chrono::nanoseconds> worst_stall;
  std::optional<SustainedExpectation> sustained;  // sustained=RATE@WINDOW
  bool empty() const {
    return !min_mb_per_s && !avg_mb_per_s && !max_slow_regions && !max_unreadable && !health &&
           !worst_stall && !sustained;
  }
};

// Parses "KEY=VALUE[,KEY=VALUE...]" (--expect): keys min and avg (a rate in
// MB/s, 0 or more), max-slow and max-unreadable (a whole number, 0 or
// more), health (good or suspect), worst-stall (a duration above 0 with its
// unit, ms or s: 500ms, 2s, 1.5s), sustained (RATE@WINDOW: a rate, 0 or
// more, in MB/s or MiB/s, and a duration as for worst-stall: 30MB/s@10s).
// White space around keys and values is ignored. Throws Error(kBadInput)
// with one line naming the item for empty text or an empty item, an item
// without '=', an unknown key, a bad value (a duration or rate without its
// unit included), a key given twice.
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
  // The longest request; nullopt: no single request was timed (an adaptive
  // sweep times probes).
  std::optional<WorstStall> worst_stall;
  // The sustained rate over the window the sweep was planned with
  // (SweepOptions::sustained_window); nullopt: no request was timed.
  std::optional<SustainedFigure> sustained;
};

// The figures of a sweep (health_verdict left empty: the caller adds it),
// its sustained rate after the cache `write_cache` shows (the zone context of
// a write sweep; nullopt for a read sweep or none).
ExpectationFigures FiguresOf(const SweepResult& result,
                             const std::optional<WriteCacheAnalysis>& write_cache = std::nullopt);

// One sentence per expectation `figures` do not meet, in the order min,
// avg, max-slow, max-unreadable, health, worst-stall, sustained, each with
// the measured and the expected value and their units, e.g. "average 36.2
// MB/s is below the expected 100 MB/s (MB = 10^6 B)"; the worst stall and
// the lowest window also say where (the offset in bytes and GiB), when (s
// into the run) and in which pass. An expectation that cannot be checked
// (no block measured, no health verdict, no request timed, less than one
// window of requests after the write cache, another window measured) says
// so and counts as unmet. Empty when every expectation is met.
std::vector<std::string> UnmetExpectations(const Expectations& expected,
                                           const ExpectationFigures& figures);

}  // namespace zcav
