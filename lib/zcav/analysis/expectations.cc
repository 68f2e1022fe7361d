#include "zcav/analysis/expectations.h"

#include <array>

#include "zcav/base/error.h"
#include "zcav/base/text.h"

namespace zcav {
namespace {

constexpr const char* kKeys = "min, avg, max-slow, max-unreadable, health";

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

// 0 good, 1 suspect, 2 failing; -1 for anything else (not known).
int HealthRank(std::string_view verdict) {
  static constexpr std::array<std::string_view, 3> kNames{"good", "suspect", "failing"};
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (verdict == kNames[i]) return static_cast<int>(i);
  }
  return -1;
}

// A rate as the user gave it: no trailing zeros ("100", "36.5").
std::string ExpectedRate(double mb_per_s) {
  std::string text = FormatFixed(mb_per_s, 6);
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
    } else {
      Bad(item, "unknown key '" + std::string(key) + "' (keys: " + kKeys + ")");
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

ExpectationFigures FiguresOf(const SweepResult& result) {
  ExpectationFigures f;
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
                      expected_what + " " + ExpectedRate(*want) + " MB/s)");
    } else if (got < *want) {
      unmet.push_back(std::string(what) + " " + MeasuredRate(got, *want) + " MB/s is below the " +
                      expected_what + " " + ExpectedRate(*want) + " MB/s (MB = 10^6 B)");
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
  return unmet;
}

}  // namespace zcav
