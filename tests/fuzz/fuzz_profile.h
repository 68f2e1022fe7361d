// The shared body of the data-reader fuzz targets (fuzz_<format>.cc).
//
// Each target forces one parser of zcav::ParseProfile (data_reader.h) by
// putting that format's signature line in front of the fuzzer's bytes, so the
// fuzzer spends its time inside that parser rather than in format detection.
// The line is left out when the first line of the bytes already has what
// detection looks for (`detected_by`; the seeds of zcav's own formats are
// its golden files, which start so).
//
// The contract checked: ParseProfile either returns a SavedResult of the forced
// format whose points are in strictly increasing offset order with finite,
// non-negative rates (median, min, max), or throws zcav::Error of kind
// kBadInput with a message that starts with the source name. Anything else
// (another exception, a broken contract, a sanitizer report) aborts, which
// libFuzzer records as a crash with the input that caused it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <string_view>

#include "zcav/base/error.h"
#include "zcav/format/data_reader.h"

namespace zcav::fuzz {

[[noreturn]] inline void Violation(const std::string& what) {
  std::fprintf(stderr, "fuzz: contract violated: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void CheckProfile(const SavedResult& profile, std::string_view format) {
  if (profile.format != format) {
    Violation("format detected as '" + profile.format + "', forced '" + std::string(format) + "'");
  }
  const auto check_rate = [](double v, std::size_t i, const char* name) {
    if (!std::isfinite(v) || v < 0) {
      Violation("points[" + std::to_string(i) + "]." + name + " = " + std::to_string(v) +
                " is not a finite non-negative rate");
    }
  };
  for (std::size_t i = 0; i < profile.points.size(); ++i) {
    const CurvePoint& p = profile.points[i];
    if (i > 0 && p.offset_bytes <= profile.points[i - 1].offset_bytes) {
      Violation("points[" + std::to_string(i) +
                "].offset_bytes = " + std::to_string(p.offset_bytes) + " does not follow " +
                std::to_string(profile.points[i - 1].offset_bytes));
    }
    check_rate(p.mb_per_s, i, "mb_per_s");
    check_rate(p.min_mb_per_s, i, "min_mb_per_s");
    check_rate(p.max_mb_per_s, i, "max_mb_per_s");
  }
}

// Runs ParseProfile on `signature` + data (data alone when it starts with
// `detected_by`) and checks the contract above.
inline int FuzzProfile(std::string_view signature, std::string_view detected_by,
                       std::string_view format, const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // Detection looks at the first line with its blanks trimmed (data_reader.cc).
  std::string_view first_line = bytes.substr(0, bytes.find('\n'));
  const std::size_t start = first_line.find_first_not_of(" \t\r\v\f");
  first_line.remove_prefix(std::min(start, first_line.size()));
  const std::size_t end = first_line.find_last_not_of(" \t\r\v\f");
  first_line = first_line.substr(0, end == std::string_view::npos ? 0 : end + 1);
  std::string text;
  if (detected_by.empty() || first_line.substr(0, detected_by.size()) != detected_by) {
    text = signature;
  }
  text += bytes;
  const std::string source = "fuzz.dat";
  std::istringstream in(text);
  try {
    CheckProfile(ParseProfile(in, source), format);
  } catch (const Error& e) {
    const std::string what = e.what();
    if (e.kind() != ErrorKind::kBadInput) Violation("zcav::Error of kind kRuntime: " + what);
    if (what.rfind(source + ":", 0) != 0) Violation("message without the source name: " + what);
  } catch (const std::exception& e) {
    Violation(std::string("exception other than zcav::Error: ") + e.what());
  } catch (...) {
    Violation("exception other than zcav::Error (not a std::exception)");
  }
  return 0;
}

}  // namespace zcav::fuzz
