#include "zcav/analysis/expectations.h"

#include <array>
#include <cmath>

#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"

namespace zcav {
namespace {

constexpr const char* kKeys = "min, avg, max-slow, max-unreadable, health, worst-stall, sustained";
// The longest duration worst-stall= and a sustained window take: a day.
constexpr double kMaxDurationSeconds = 86400;

[[noreturn]] void Bad(std::string_view item, const std::string& why) {
  throw Error("invalid --expect item '" + std::string(item) + "': " + why, ErrorKind::kBadInput);
}

double ParseRate(std::string_view item, std::string_view value) {
  const std::optional<double> v = ParseDecimal(std::string(value));
  if (!v || !(*v >= 0) || *v > 1e12) {
    Bad(item, "'" + std::string(value) + "' is not a rate in MB/s (a number, 0 or more, e.g. 100)");
  }
  return *v;
}

std::uint64_t ParseWhole(std::string_view item, std::string_view value) {
  if (value.empty() || value.size() > 18 ||
      value.find_first_not_of("0123456789") != std::string_view::npos) {
    Bad(item, "'" + std::string(value) + "' is not a count (a whole number, 0 or more)");
  }
  return std::stoull(std::string(value));
}

// `value` split where its number ends: "30MB/s" -> {"30", "MB/s"} (the unit
// without white space around it).
std::pair<std::string_view, std::string_view> NumberAndUnit(std::string_view value) {
  const std::size_t end = std::min(value.find_first_not_of("0123456789."), value.size());
  return {value.substr(0, end), Trim(value.substr(end))};
}

// A decimal number of digits with at most one point (no sign, no exponent).
std::optional<double> Decimal(std::string_view number) {
  if (number.empty() || number == "." || number.find('.') != number.rfind('.')) {
    return std::nullopt;
  }
  return ParseDecimal(std::string(number));
}

// "500ms", "2s", "1.5s": a duration above 0 with its unit, ms or s.
std::chrono::nanoseconds ParseDurationValue(std::string_view item, std::string_view value,
                                            const char* what) {
  const auto [number, unit] = NumberAndUnit(value);
  const std::string quoted = "'" + std::string(value) + "'";
  const std::optional<double> v = Decimal(number);
  if (!v) Bad(item, quoted + " is not a " + what + " (e.g. 500ms or 2s)");
  if (unit.empty()) {
    Bad(item, quoted + " has no unit: give the " + what + " in ms or s (e.g. 500ms or 2s)");
  }
  if (unit != "ms" && unit != "s") {
    Bad(item, "unknown unit '" + std::string(unit) + "' in " + quoted + ": give ms or s");
  }
  const double seconds = unit == "ms" ? *v / 1e3 : *v;
  const auto ns = static_cast<std::int64_t>(std::llround(seconds * 1e9));
  if (ns <= 0) Bad(item, "the " + std::string(what) + " " + quoted + " must be above 0");
  if (seconds > kMaxDurationSeconds) {
    Bad(item, "the " + std::string(what) + " " + quoted + " is longer than a day");
  }
  return std::chrono::nanoseconds{ns};
}

// "30MB/s@10s": a rate with its unit, MB/s or MiB/s, and a window.
SustainedExpectation ParseSustained(std::string_view item, std::string_view value) {
  const std::size_t at = value.find('@');
  if (at == std::string_view::npos) {
    Bad(item, "'" + std::string(value) + "' is not RATE@WINDOW (e.g. 30MB/s@10s)");
  }
  const std::string_view rate = Trim(value.substr(0, at));
  const auto [number, unit] = NumberAndUnit(rate);
  const std::string quoted = "'" + std::string(rate) + "'";
  const std::optional<double> v = Decimal(number);
  if (!v || *v > 1e12) Bad(item, quoted + " is not a rate (e.g. 30MB/s)");
  if (unit.empty()) {
    Bad(item, quoted + " has no unit: give MB/s (10^6 B/s) or MiB/s (2^20 B/s), e.g. 30MB/s");
  }
  if (unit != "MB/s" && unit != "MiB/s") {
    Bad(item, "unknown unit '" + std::string(unit) + "' in " + quoted +
                  ": give MB/s (10^6 B/s) or MiB/s (2^20 B/s)");
  }
  SustainedExpectation out;
  out.mib = unit == "MiB/s";
  out.mb_per_s = out.mib ? *v * kMiB / kMB : *v;
  out.window = ParseDurationValue(item, Trim(value.substr(at + 1)), "window");
  return out;
}

// 0 good, 1 suspect, 2 failing; -1 for anything else (not known).
int HealthRank(std::string_view verdict) {
  static constexpr std::array<std::string_view, 3> kNames{"good", "suspect", "failing"};
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (verdict == kNames[i]) return static_cast<int>(i);
  }
  return -1;
}

// A number as the user gave it: no trailing zeros ("100", "36.5").
std::string PlainNumber(double value) {
  std::string text = FormatFixed(value, 6);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

// A measured rate below `expected`, to one decimal unless that would round it
// up to the expected value ("99.96" below 100, never "100.0").
std::string MeasuredRate(double mb_per_s, double expected) {
  for (int decimals = 1; decimals <= 6; ++decimals) {
    const std::string text = FormatFixed(mb_per_s, decimals);
    if (std::stod(text) < expected) return text;
  }
  return FormatFixed(mb_per_s, 6);
}

std::string Plural(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// A duration as a user gives it: below 1 s in ms ("500 ms"), else in s ("2 s").
std::string DurationWords(std::chrono::nanoseconds d) {
  const double ms = Millis(d);
  return ms < 1000 ? PlainNumber(ms) + " ms" : PlainNumber(ms / 1000) + " s";
}

// A measured duration longer than `expected`, in the expected's unit, to
// one decimal unless that would round it down to the expected value.
std::string LongerDuration(std::chrono::nanoseconds got, std::chrono::nanoseconds expected) {
  const double scale = Millis(expected) < 1000 ? 1 : 1e-3;
  const double value = Millis(got) * scale;
  const double want = Millis(expected) * scale;
  std::string text;
  for (int decimals = 1; decimals <= 6; ++decimals) {
    text = FormatFixed(value, decimals);
    if (std::stod(text) > want) break;
  }
  return text + (scale == 1 ? " ms" : " s");
}

// "12.3 s into the run (pass 1)"; `at` since the run began.
std::string WhenWords(std::chrono::nanoseconds at, std::uint32_t pass) {
  return FormatFixed(static_cast<double>(at.count()) * 1e-9, 1) + " s into the run (pass " +
         std::to_string(pass + 1) + ")";
}

constexpr const char* kNoRequests =
    "no single request was timed (an adaptive sweep times probes, not requests: use --full)";

void JudgeWorstStall(std::chrono::nanoseconds want, const std::optional<WorstStall>& got,
                     std::vector<std::string>& unmet) {
  const std::string limit = DurationWords(want) + " at most";
  if (!got) {
    unmet.push_back("worst stall could not be checked: " + std::string(kNoRequests) +
                    " (expected " + limit + ")");
  } else if (got->duration > want) {
    unmet.push_back("worst stall " + LongerDuration(got->duration, want) + " at " +
                    FormatBytes(got->offset_bytes) + ", " + WhenWords(got->started_at, got->pass) +
                    ", a request of " + ExactBinarySize(got->length_bytes) +
                    ", is longer than the expected " + limit);
  }
}

void JudgeSustained(const SustainedExpectation& want, const std::optional<SustainedFigure>& got,
                    std::vector<std::string>& unmet) {
  const char* unit = want.mib ? " MiB/s" : " MB/s";
  const double per_unit = want.mib ? kMiB / kMB : 1;  // MB/s in one unit
  const std::string expected = PlainNumber(want.mb_per_s / per_unit) + unit;
  const std::string what = "sustained rate over " + DurationWords(want.window);
  if (!got) {
    unmet.push_back(what + " could not be checked: " + kNoRequests + " (expected " + expected +
                    ")");
    return;
  }
  if (got->window != want.window) {
    unmet.push_back(what + " could not be checked: the run measured windows of " +
                    DurationWords(got->window));
    return;
  }
  const std::string after =
      got->after_write_cache ? " after the write cache (from " + FormatBytes(got->from_bytes) + ")"
                             : "";
  if (!got->lowest) {
    unmet.push_back(what + " could not be checked: only " +
                    FormatFixed(static_cast<double>(got->timed.count()) * 1e-9, 1) +
                    " s of requests" + after + ", less than the window (expected " + expected +
                    ")");
    return;
  }
  const LowestWindow& w = *got->lowest;
  const double rate = w.mb_per_s / per_unit;
  const double want_rate = want.mb_per_s / per_unit;
  if (rate < want_rate) {
    unmet.push_back("lowest rate over " + DurationWords(want.window) + " " +
                    MeasuredRate(rate, want_rate) + unit + ", in the window from " +
                    FormatBytes(w.offset_bytes) + ", " + WhenWords(w.started_at, w.pass) +
                    ", is below the expected sustained " + expected +
                    (want.mib ? " (MiB = 2^20 B)" : " (MB = 10^6 B)") +
                    (got->after_write_cache
                         ? "; counted after the write cache, from " + FormatBytes(got->from_bytes)
                         : ""));
  }
}

}  // namespace

Expectations ParseExpectations(std::string_view text) {
  Expectations out;
  if (Trim(text).empty()) {
    throw Error("empty --expect: give KEY=VALUE[,KEY=VALUE...] with keys " + std::string(kKeys),
                ErrorKind::kBadInput);
  }
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string_view raw = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const std::string_view item = Trim(raw);
    if (item.empty()) {
      throw Error(
          "invalid --expect '" + std::string(text) + "': an empty item (KEY=VALUE between commas)",
          ErrorKind::kBadInput);
    }
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      Bad(item, "no value (give KEY=VALUE, keys " + std::string(kKeys) + ")");
    const std::string_view key = Trim(item.substr(0, eq));
    const std::string_view value = Trim(item.substr(eq + 1));
    const auto once = [&](bool given) {
      if (given) Bad(item, std::string(key) + " is given twice");
    };
    if (key == "min") {
      once(out.min_mb_per_s.has_value());
      out.min_mb_per_s = ParseRate(item, value);
    } else if (key == "avg") {
      once(out.avg_mb_per_s.has_value());
      out.avg_mb_per_s = ParseRate(item, value);
    } else if (key == "max-slow") {
      once(out.max_slow_regions.has_value());
      out.max_slow_regions = ParseWhole(item, value);
    } else if (key == "max-unreadable") {
      once(out.max_unreadable.has_value());
      out.max_unreadable = ParseWhole(item, value);
    } else if (key == "health") {
      once(out.health.has_value());
      if (value != "good" && value != "suspect") {
        Bad(item,
            "'" + std::string(value) +
                "' is not a health level to expect (good, or suspect: no worse than suspect)");
      }
      out.health = std::string(value);
    } else if (key == "worst-stall") {
      once(out.worst_stall.has_value());
      out.worst_stall = ParseDurationValue(item, value, "stall");
    } else if (key == "sustained") {
      once(out.sustained.has_value());
      out.sustained = ParseSustained(item, value);
    } else {
      Bad(item, "unknown key '" + std::string(key) + "' (keys: " + kKeys + ")");
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

ExpectationFigures FiguresOf(const SweepResult& result,
                             const std::optional<WriteCacheAnalysis>& write_cache) {
  ExpectationFigures f;
  f.worst_stall = result.requests.worst_stall;
  f.sustained = SustainedOf(result.requests, write_cache);
  f.blocks_measured = result.blocks_measured;
  f.min_mb_per_s = result.min_mb_per_s;
  f.avg_mb_per_s = result.avg_mb_per_s;
  f.slow_regions = result.slow_regions.size();
  f.unreadable_ranges = result.unreadable.size();
  f.unreadable_bytes = result.UnreadableBytes();
  return f;
}

std::vector<std::string> UnmetExpectations(const Expectations& expected,
                                           const ExpectationFigures& figures) {
  std::vector<std::string> unmet;
  // `what` measured `got`, expected at least `want` (`expected_what`).
  const auto rate = [&](const std::optional<double>& want, double got, const char* what,
                        const char* expected_what) {
    if (!want) return;
    if (figures.blocks_measured == 0) {
      unmet.push_back(std::string(what) + " could not be checked: no block was measured (" +
                      expected_what + " " + PlainNumber(*want) + " MB/s)");
    } else if (got < *want) {
      unmet.push_back(std::string(what) + " " + MeasuredRate(got, *want) + " MB/s is below the " +
                      expected_what + " " + PlainNumber(*want) + " MB/s (MB = 10^6 B)");
    }
  };
  rate(expected.min_mb_per_s, figures.min_mb_per_s, "slowest block", "expected minimum");
  rate(expected.avg_mb_per_s, figures.avg_mb_per_s, "average", "expected");
  if (expected.max_slow_regions && figures.slow_regions > *expected.max_slow_regions) {
    unmet.push_back(Plural(figures.slow_regions, "slow region", "slow regions") +
                    " found, more than the expected " + std::to_string(*expected.max_slow_regions) +
                    " at most");
  }
  if (expected.max_unreadable && figures.unreadable_ranges > *expected.max_unreadable) {
    unmet.push_back(Plural(figures.unreadable_ranges, "unreadable range", "unreadable ranges") +
                    " (" + std::to_string(figures.unreadable_bytes) +
                    " bytes) found, more than the expected " +
                    std::to_string(*expected.max_unreadable) + " at most");
  }
  if (expected.health) {
    const int got = HealthRank(figures.health_verdict);
    if (got < 0) {
      unmet.push_back("health could not be checked: no health verdict for this run (expected " +
                      *expected.health + ")");
    } else if (got > HealthRank(*expected.health)) {
      unmet.push_back("health " + figures.health_verdict + " is worse than the expected " +
                      *expected.health);
    }
  }
  if (expected.worst_stall) JudgeWorstStall(*expected.worst_stall, figures.worst_stall, unmet);
  if (expected.sustained) JudgeSustained(*expected.sustained, figures.sustained, unmet);
  return unmet;
}

}  // namespace zcav
