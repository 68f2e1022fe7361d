#include "zcav/base/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "zcav/base/error.h"

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

}  // namespace zcav
