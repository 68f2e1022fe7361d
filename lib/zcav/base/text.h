// Small text helpers shared by every layer: fixed-point numbers for the
// outputs and whitespace trimming for the parsers. One home for each, so that
// every output prints a number the same way.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zcav {

// `value` with exactly `decimals` digits after the point, independent of the
// locale ("12.500"), correctly rounded as printf's "%.*f"; NaN and infinities
// print as 0, and so does a value that rounds to -0 ("-0.0" never appears).
// REQUIRES: 0 <= decimals <= 17.
std::string FormatFixed(double value, int decimals);

// A duration of `ms` milliseconds with its unit, in µs under 1 ms ("85 µs",
// "8.5 µs" under 10 µs) and in ms from there ("8.4 ms"), so that a fast
// device's access time never prints as "0.0 ms". Negative, NaN and infinite
// values print as "0 µs".
std::string FormatMilliseconds(double ms);

// `s` without leading and trailing white space (space, \t, \n, \v, \f, \r).
// The view points into `s`.
std::string_view Trim(std::string_view s);

// `text` with every newline and carriage return turned into a space: a value
// that becomes one '#' comment line (a header field, a note, an error
// message) cannot end the comment early.
std::string OneLine(std::string_view text);

// Caps on the text zcav takes from untrusted input (a result file, a device's
// own answers): a device's identity strings (model, serial, firmware, WWN,
// vendor, host, transport, ...) and longer free text (notes, reasons).
inline constexpr std::size_t kMaxIdentityBytes = 256;
inline constexpr std::size_t kMaxNoteBytes = 4096;

// `text` as data: every control character removed (C0 0x00-0x1F, DEL 0x7F,
// and the C1 controls U+0080-U+009F in their UTF-8 form, which some
// terminals obey as escapes), each byte that is not part of well-formed
// UTF-8 shown as '?', then cut to at most `max_bytes` bytes without
// splitting a UTF-8 sequence. A value cleaned so fits one line of any
// output (a '#' comment, a table cell, a terminal line) and is bounded.
std::string CleanText(std::string_view text, std::size_t max_bytes);

// `text` for a terminal: each control character as CleanText sees them
// shown as '?', except '\n' and '\t' (a message's own layout). For error
// messages and notes that may quote input, so that no escape sequence from a
// file reaches stderr raw.
std::string TerminalText(std::string_view text);

// `items` joined with `separator` between them ("a, b, c"); "" for none.
std::string Join(const std::vector<std::string>& items, std::string_view separator = ", ");

// `text` cut at every `separator` (each piece as it is, empty pieces kept:
// "a,,b" gives "a", "", "b"; "" gives one empty piece). The views point into
// `text`.
std::vector<std::string_view> SplitAt(std::string_view text, char separator);

// The number `text` spells as a whole (std::stod's syntax: leading white
// space allowed, nothing after the number), if it is finite; nullopt for
// anything else ("", "1x", "nan", "inf", "1e999").
std::optional<double> ParseDecimal(const std::string& text);

// The UTC time `seconds` (rounded to whole seconds) after `iso_utc`
// ("2026-11-29T22:30:50Z", the form RunInfo::start_time_utc has), in the same
// form; "" when `iso_utc` is not of that form or `seconds` is negative or not
// finite.
std::string UtcPlusSeconds(const std::string& iso_utc, double seconds);

}  // namespace zcav
