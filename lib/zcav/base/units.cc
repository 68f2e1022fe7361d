#include "zcav/base/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "zcav/base/error.h"
#include "zcav/base/text.h"

namespace zcav {
namespace {

[[noreturn]] void BadSize(std::string_view text, std::string_view what, const char* why) {
  throw Error("invalid " + std::string(what) + " '" + std::string(text) + "': " + why +
                  " (use e.g. 4k, 64M, 1G, 1.5T; 500MB for decimal units)",
              ErrorKind::kBadInput);
}

}  // namespace

std::uint64_t ParseSize(std::string_view text, std::string_view what, bool allow_zero) {
  // Split into a number part and a unit suffix.
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
    ++i;
  }
  const std::string number(text.substr(0, i));
  const std::string_view suffix = text.substr(i);
  if (number.empty() || number == "." || number.find('.') != number.rfind('.')) {
    if (!text.empty() && text[0] == '-') BadSize(text, what, "must not be negative");
    BadSize(text, what, "not a size");
  }
  double multiplier = 1;
  if (!suffix.empty()) {
    const char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
    const std::string_view rest = suffix.substr(1);
    int power = 0;
    switch (letter) {
      case 'B':
        power = 0;
        break;
      case 'K':
        power = 1;
        break;
      case 'M':
        power = 2;
        break;
      case 'G':
        power = 3;
        break;
      case 'T':
        power = 4;
        break;
      case 'P':
        power = 5;
        break;
      default:
        BadSize(text, what, "unknown unit");
    }
    bool decimal = false;
    if (letter == 'B') {
      if (!rest.empty()) BadSize(text, what, "unknown unit");
    } else if (rest.empty() || rest == "i" || rest == "iB" || rest == "ib") {
      decimal = false;
    } else if (rest == "B") {
      decimal = true;  // "500MB": spelled out decimal
    } else {
      BadSize(text, what, "unknown unit");
    }
    multiplier = std::pow(decimal ? 1000.0 : 1024.0, power);
  }
  const double value = std::stod(number) * multiplier;
  if (!std::isfinite(value) || value >= 1.8e19) BadSize(text, what, "too large");
  const auto bytes = static_cast<std::uint64_t>(std::floor(value + 1e-6));
  if (bytes == 0 && !allow_zero) BadSize(text, what, "must be greater than zero");
  return bytes;
}

std::uint64_t ParseCount(std::string_view text, std::string_view what) {
  std::uint64_t value = 0;
  if (text.empty()) {
    throw Error("invalid " + std::string(what) + " '': not a number", ErrorKind::kBadInput);
  }
  for (const char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      throw Error("invalid " + std::string(what) + " '" + std::string(text) +
                      "': must be a positive whole number",
                  ErrorKind::kBadInput);
    }
    if (value > (std::numeric_limits<std::uint32_t>::max() - 9) / 10) {
      throw Error("invalid " + std::string(what) + " '" + std::string(text) + "': too large",
                  ErrorKind::kBadInput);
    }
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (value == 0) {
    throw Error(
        "invalid " + std::string(what) + " '" + std::string(text) + "': must be greater than zero",
        ErrorKind::kBadInput);
  }
  return value;
}

std::chrono::nanoseconds ParseDuration(std::string_view text, std::string_view what) {
  const auto bad = [&](const char* why) {
    return Error("invalid " + std::string(what) + " '" + std::string(text) + "': " + why +
                     " (use e.g. 90s, 10m, 2h)",
                 ErrorKind::kBadInput);
  };
  std::string_view number = text;
  double unit_seconds = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 's':
        unit_seconds = 1;
        number.remove_suffix(1);
        break;
      case 'm':
        unit_seconds = 60;
        number.remove_suffix(1);
        break;
      case 'h':
        unit_seconds = 3600;
        number.remove_suffix(1);
        break;
      default:
        if (std::isalpha(static_cast<unsigned char>(text.back()))) throw bad("unknown unit");
    }
  }
  // Digits and one point only: no sign, exponent or white space.
  const bool digits = !number.empty() && number != "." &&
                      number.find_first_not_of("0123456789.") == std::string_view::npos &&
                      number.find('.') == number.rfind('.');
  if (!digits) {
    if (!text.empty() && text[0] == '-') throw bad("must not be negative");
    throw bad("not a duration");
  }
  const double seconds = std::stod(std::string(number)) * unit_seconds;
  if (seconds > 3.6e9) throw bad("too long");
  const auto ns = static_cast<std::int64_t>(std::llround(seconds * 1e9));
  if (ns <= 0) throw bad("must be greater than zero");
  return std::chrono::nanoseconds{ns};
}

std::string DurationText(std::chrono::nanoseconds d) {
  constexpr std::int64_t kSecond = 1'000'000'000;
  const std::int64_t ns = d.count();
  if (ns > 0 && ns % (3600 * kSecond) == 0) return std::to_string(ns / (3600 * kSecond)) + "h";
  if (ns > 0 && ns % (60 * kSecond) == 0) return std::to_string(ns / (60 * kSecond)) + "m";
  if (ns % kSecond == 0) return std::to_string(ns / kSecond) + "s";
  std::string text = FormatFixed(static_cast<double>(ns) * 1e-9, 3);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text + "s";
}

std::string FormatDuration(double seconds) {
  char buf[32];
  const auto s = static_cast<long long>(seconds + 0.5);
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, s / 60 % 60);
  } else if (s >= 60) {
    std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%llds", s);
  }
  return buf;
}

std::string FormatBytes(std::uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[64];
  if (u == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.2f %s (%llu bytes)", v, kUnits[u],
                  static_cast<unsigned long long>(bytes));
  }
  return buf;
}

double MbPerS(std::uint64_t bytes, std::chrono::nanoseconds elapsed) {
  if (elapsed.count() <= 0) return 0;
  return static_cast<double>(bytes) / kMB / (static_cast<double>(elapsed.count()) * 1e-9);
}

std::string ExactBinarySize(std::uint64_t bytes) {
  if (bytes != 0 && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes != 0 && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace zcav
