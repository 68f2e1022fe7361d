#include "zcav/base/text.h"

#include <algorithm>
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

std::string FormatMilliseconds(double ms) {
  if (!(ms > 0) || !std::isfinite(ms)) return "0 µs";
  const double us = ms * 1000;
  // Rounded as printed: 999.6 µs is "1.0 ms", not "1000 µs".
  if (us < 9.95) return FormatFixed(us, 1) + " µs";
  if (us < 999.5) return FormatFixed(us, 0) + " µs";
  return FormatFixed(ms, 1) + " ms";
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

namespace {

// The length of the control character at text[i] (1 for C0 and DEL, 2 for
// a C1 control in UTF-8: 0xC2 0x80-0x9F), 0 when there is none.
std::size_t ControlAt(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x20 || c == 0x7F) return 1;
  if (c == 0xC2 && i + 1 < text.size()) {
    const auto next = static_cast<unsigned char>(text[i + 1]);
    if (next >= 0x80 && next <= 0x9F) return 2;
  }
  return 0;
}

// The length of the well-formed UTF-8 sequence at text[i] (1 for ASCII), 0
// when the bytes there are not one (a stray continuation byte, an overlong
// form, a surrogate, beyond U+10FFFF, cut short).
std::size_t Utf8At(std::string_view text, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // beyond U+10FFFF
  } else {
    return 0;
  }
  if (i + n > text.size() || b(1) < lo || b(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
  }
  return n;
}

}  // namespace

std::string CleanText(std::string_view text, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes));
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t control = ControlAt(text, i);
    if (control > 0) {
      i += control;
      continue;
    }
    const std::size_t n = Utf8At(text, i);
    if (n == 0) {
      out += '?';  // not UTF-8 (every output is)
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  if (out.size() > max_bytes) {
    std::size_t cut = max_bytes;
    // Back to the start of a UTF-8 sequence (a byte that is not 10xxxxxx).
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out.resize(cut);
  }
  return out;
}

std::string TerminalText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t control = text[i] == '\n' || text[i] == '\t' ? 0 : ControlAt(text, i);
    if (control > 0) {
      out += '?';
      i += control;
      continue;
    }
    out += text[i++];
  }
  return out;
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
