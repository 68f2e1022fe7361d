#include "zcav/base/text.h"

#include <array>
#include <charconv>
#include <cmath>
#include <ctime>

namespace zcav {

std::string FormatFixed(double value, int decimals) {
  if (!std::isfinite(value) || value == 0) value = 0;  // also turns -0 into 0
  std::array<char, 400> buf;                           // DBL_MAX in fixed notation is 309 digits
  const auto [end, ec] =
      std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::fixed, decimals);
  if (ec != std::errc()) return "0";
  std::string text(buf.data(), end);
  // A tiny negative value rounds to "-0.000": print it as 0 too.
  if (text.front() == '-' && text.find_first_not_of("-0.") == std::string::npos) text.erase(0, 1);
  return text;
}

std::string_view Trim(std::string_view s) {
  const auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
  };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::optional<double> ParseDecimal(const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string OneLine(std::string_view text) {
  std::string line(text);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

std::string UtcPlusSeconds(const std::string& iso_utc, double seconds) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e12) return "";
  std::tm tm{};
  const char* end = strptime(iso_utc.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') return "";
  const std::time_t t = timegm(&tm) + static_cast<std::time_t>(std::llround(seconds));
  std::tm out{};
  if (gmtime_r(&t, &out) == nullptr) return "";
  std::array<char, 32> buf{};
  if (std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &out) == 0) return "";
  return buf.data();
}

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

std::vector<std::string_view> SplitAt(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  std::size_t from = 0;
  for (std::size_t at = text.find(separator); at != std::string_view::npos;
       at = text.find(separator, from)) {
    pieces.push_back(text.substr(from, at - from));
    from = at + 1;
  }
  pieces.push_back(text.substr(from));
  return pieces;
}

}  // namespace zcav
