// Reading zcav CSV files (csv_writer.cc): the "# key: value" comment lines
// before the header, then one row per block under a header whose columns
// may come in any order.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zcav/base/text.h"
#include "zcav/format/reader_internal.h"

namespace zcav::reader {

namespace {

std::vector<std::string_view> SplitCommas(std::string_view line) {
  std::vector<std::string_view> fields;
  while (true) {
    const std::size_t comma = line.find(',');
    fields.push_back(Trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return fields;
}

// "# key: value", a comment line before the header (csv_writer.cc): the
// drive's identity and the run's.
void CsvComment(std::string_view line, SavedResult& profile) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || line.size() < 2) return;
  const std::string_view key = Trim(line.substr(1, colon - 1));
  const std::string value = KnownText(line.substr(colon + 1));
  if (key == "device") profile.device_path = value;
  if (key == "model") profile.device_model = value;
  if (key == "serial") profile.device_serial = value;
  if (key == "wwn") profile.device_wwn = value;
  if (key == "firmware") profile.device_firmware = value;
  if (key == "host") profile.host = value;
  if (key == "started") profile.started_utc = value;
  if (key == "chunk_bytes") {
    const std::optional<std::uint64_t> v = ToUint(Trim(line.substr(colon + 1)));
    if (v) profile.chunk_bytes = *v;
  }
  if (key == "size_bytes") {
    const std::optional<std::uint64_t> v = ToUint(Trim(line.substr(colon + 1)));
    if (v) profile.device_bytes = *v;
  }
}

}  // namespace

void ParseZcavCsv(Input& in, SavedResult& profile) {
  std::size_t header_line = 0;
  std::string_view line;
  std::size_t n = 0;
  while (header_line == 0 && in.Next(line, n)) {
    if (line.empty()) continue;
    if (line.front() == '#') {
      CsvComment(line, profile);
      continue;
    }
    header_line = n;
  }
  if (header_line == 0) in.FailFile("no CSV header row after the comment lines");
  const std::string header(line);
  const std::vector<std::string_view> names = SplitCommas(header);
  auto column = [&](std::string_view name) -> std::optional<std::size_t> {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return std::nullopt;
    return static_cast<std::size_t>(it - names.begin());
  };
  auto required = [&](std::string_view name) {
    const std::optional<std::size_t> col = column(name);
    if (!col) in.Fail(header_line, "the CSV header has no '" + std::string(name) + "' column");
    return *col;
  };
  const std::size_t offset_col = required("offset_bytes");
  const std::size_t length_col = required("length_bytes");
  const std::size_t rate_col = required("mb_per_s");
  const std::optional<std::size_t> passes_col = column("passes");
  const std::optional<std::size_t> min_col = column("min_mb_per_s");
  const std::optional<std::size_t> max_col = column("max_mb_per_s");
  const std::optional<std::size_t> unreadable_col = column("unreadable_bytes");
  const std::optional<std::size_t> worst_col = column("worst_chunk_ms");

  RowReducer rows(profile);
  PassOrder order(/*equal_allowed=*/false);
  while (in.Next(line, n)) {
    if (line.empty() || line.front() == '#') continue;
    if (line == header) {  // concatenated files
      order.StartTable();
      continue;
    }
    const std::vector<std::string_view> f = SplitCommas(line);
    if (f.size() != names.size()) {
      in.Fail(n, "expected " + std::to_string(names.size()) + " comma-separated fields, got " +
                     std::to_string(f.size()) + ": " + Quote(line));
    }
    const std::optional<std::uint64_t> offset = ToUint(f[offset_col]);
    if (!offset) in.Fail(n, "offset_bytes " + Quote(f[offset_col]) + " is not a whole number");
    const std::optional<std::uint64_t> length = ToUint(f[length_col]);
    if (!length || *length == 0) {
      in.Fail(n, "length_bytes " + Quote(f[length_col]) + " is not a positive whole number");
    }
    Row row{.offset_bytes = *offset,
            .length_bytes = *length,
            .mb_per_s = NonNegative(in, n, "mb_per_s", f[rate_col]),
            .passes = 1};
    if (passes_col && unreadable_col && f[*passes_col] == "0") {
      // A block with no clean read: no rate. It must say what was unreadable.
      const std::optional<std::uint64_t> bad = ToUint(f[*unreadable_col]);
      if (!bad || *bad == 0) in.Fail(n, "passes 0 without unreadable_bytes: no rate to read");
      continue;
    }
    if (passes_col) {
      const std::optional<std::uint64_t> passes = ToUint(f[*passes_col]);
      if (!passes || *passes == 0) {
        in.Fail(n, "passes " + Quote(f[*passes_col]) + " is not a positive whole number");
      }
      row.passes = *passes;
    }
    if (min_col && max_col) {
      row.min_mb_per_s = NonNegative(in, n, "min_mb_per_s", f[*min_col]);
      row.max_mb_per_s = NonNegative(in, n, "max_mb_per_s", f[*max_col]);
    }
    if (worst_col) {
      row.worst_chunk_ms =
          static_cast<float>(std::min(NonNegative(in, n, "worst_chunk_ms", f[*worst_col]), 1e9));
    }
    order.Add(in, n, *offset, std::string(f[offset_col]));
    rows.Add(row);
  }
  if (rows.empty()) in.FailFile("no data rows (the run measured no blocks?)");
  rows.Finish();
  for (const CurvePoint& p : profile.points) {
    profile.block_bytes = std::max(profile.block_bytes, p.length_bytes);
  }
}

}  // namespace zcav::reader
