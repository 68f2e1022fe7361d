#include "zcav/report/report.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>

#include "zcav/base/atomic_file.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"  // FormatBytes
#include "zcav/report/surface_map.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Newlines and tabs inside one table cell or heading become spaces.
std::string OneLine(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return out;
}

// Backslash-escapes the ASCII punctuation Markdown gives a meaning to inline
// (CommonMark allows a backslash before any ASCII punctuation), so a label
// like "a|b <c>" shows as written and cannot break the table.
std::string MdText(const std::string& text) {
  std::string out;
  for (const char c : OneLine(text)) {
    if (c != '\0' && std::strchr("\\`*_[]<>|#!&", c) != nullptr) out += '\\';
    out += c;
  }
  return out;
}

// A link destination: the angle-bracket form when the name has spaces or
// parentheses (CommonMark), plain otherwise.
std::string MdLinkTarget(const std::string& file) {
  if (file.find_first_of(" ()") == std::string::npos) return file;
  return "<" + file + ">";
}

std::string HtmlTextOf(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters other than tab/newline are not allowed in XML.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string FormatInterface(const SavedResult& p) {
  std::string link = p.link == "unknown" ? "" : p.link;
  if (p.transport.empty() && link.empty()) return "n/a";
  if (p.transport.empty()) return link;
  if (link.empty()) return p.transport;
  return p.transport + ", " + link;
}

std::string FormatDevice(const SavedResult& p) {
  const std::string& name = !p.device_model.empty()  ? p.device_model
                            : !p.device_path.empty() ? p.device_path
                                                     : p.source;
  if (!p.device_path.empty() && p.device_path != name) return name + " (" + p.device_path + ")";
  return name;
}

// The columns of the table. Optional ones appear only when some run has them.
struct Column {
  std::string title;
  bool numeric;  // right-aligned
};

struct Table {
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;  // one per run, plain text
};

std::string NumberOrNa(double value, int digits, bool known) {
  return known ? FormatFixed(value, digits) : "n/a";
}

Table MakeTable(const std::vector<PlotInput>& runs) {
  std::vector<RunSummary> sums;
  bool any_x = false;
  bool any_cpu = false;
  bool any_access = false;
  bool any_burst = false;
  bool any_verdict = false;
  for (const PlotInput& run : runs) {
    sums.push_back(SummarizeRun(run));
    any_x = any_x || sums.back().avg_x.has_value();
    any_cpu = any_cpu || sums.back().cpu_percent.has_value();
    any_access = any_access || sums.back().access_mean_ms.has_value();
    any_burst = any_burst || sums.back().burst_mb_per_s.has_value();
    any_verdict = any_verdict || !sums.back().verdict.empty();
  }
  Table t;
  t.columns = {{"Run", false},     {"Device", false},  {"Interface", false},
               {"Min MB/s", true}, {"Max MB/s", true}, {"Avg MB/s", true}};
  if (any_x) t.columns.push_back({"Avg X", true});
  t.columns.push_back({"Zones", false});
  t.columns.push_back({"Outer/inner", true});
  if (any_cpu) t.columns.push_back({"CPU %", true});
  if (any_access) t.columns.push_back({"Access time", true});
  if (any_burst) t.columns.push_back({"Burst MB/s", true});
  if (any_verdict) t.columns.push_back({"Verdict", false});
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunSummary& s = sums[i];
    const bool has_data = !runs[i].profile.points.empty();
    std::vector<std::string> row = {
        s.label,
        s.device,
        s.interface,
        NumberOrNa(s.min_mb_per_s, 1, has_data),
        NumberOrNa(s.max_mb_per_s, 1, has_data),
        NumberOrNa(s.avg_mb_per_s, 1, s.avg_mb_per_s > 0),
    };
    if (any_x) row.push_back(s.avg_x ? FormatFixed(*s.avg_x, 1) + "x" : "n/a");
    row.push_back(std::to_string(s.zone_count) + " (" + s.curve_type + ")");
    row.push_back(s.outer_inner_ratio > 0 ? FormatFixed(s.outer_inner_ratio, 2) + ":1" : "n/a");
    if (any_cpu) row.push_back(s.cpu_percent ? FormatFixed(*s.cpu_percent, 1) : "n/a");
    if (any_access) row.push_back(s.access_mean_ms ? FormatMilliseconds(*s.access_mean_ms) : "n/a");
    if (any_burst) row.push_back(s.burst_mb_per_s ? FormatFixed(*s.burst_mb_per_s, 1) : "n/a");
    if (any_verdict) row.push_back(s.verdict.empty() ? "n/a" : s.verdict);
    t.rows.push_back(std::move(row));
  }
  return t;
}

// A Markdown pipe table: the header, the separator, a line per row.
std::string MdTable(const Table& table) {
  std::string header = "|";
  std::string rule = "|";
  for (const Column& c : table.columns) {
    header += " " + MdText(c.title) + " |";
    rule += c.numeric ? "---:|" : "---|";
  }
  std::string md = header + "\n" + rule + "\n";
  for (const auto& row : table.rows) {
    md += "|";
    for (const std::string& cell : row) md += " " + MdText(cell) + " |";
    md += "\n";
  }
  return md;
}

// An HTML table in its scrolling box; each row's first cell is its header.
std::string HtmlTable(const Table& table) {
  std::string h = "<div class=\"wide\">\n<table>\n<thead>\n<tr>";
  for (const Column& c : table.columns) h += "<th scope=\"col\">" + HtmlText(c.title) + "</th>";
  h += "</tr>\n</thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    h += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i == 0) {
        h += "<th scope=\"row\">" + HtmlText(row[i]) + "</th>";
      } else {
        h += (table.columns[i].numeric ? "<td class=\"n\">" : "<td>") + HtmlText(row[i]) + "</td>";
      }
    }
    h += "</tr>\n";
  }
  return h + "</tbody>\n</table>\n</div>\n";
}

// The plots of a report, in ReportPlotCount order.
struct PlotSpec {
  PlotKind kind;
  std::vector<PlotInput> inputs;
  std::string title;    // plain text
  std::string caption;  // plain text: what the plot shows
};

std::string JoinLabels(const std::vector<PlotInput>& runs) {
  std::string out;
  for (std::size_t i = 0; i < runs.size(); ++i) out += (i ? ", " : "") + runs[i].label;
  return out;
}

std::vector<PlotSpec> PlotSpecs(const std::vector<PlotInput>& runs) {
  std::vector<PlotSpec> specs;
  for (const PlotInput& run : runs) {
    std::string caption = "MB/s against position (GB); the detected zones as labelled segments";
    if (!run.zones.description.empty()) caption += ". " + run.zones.description;
    specs.push_back(
        {PlotKind::kFalloff, {run}, run.label + ": throughput against position", caption});
  }
  if (runs.size() > 1) {
    specs.push_back({PlotKind::kComparison, runs, "Comparison: " + JoinLabels(runs),
                     "MB/s against position in % of each device, so devices of different "
                     "sizes line up"});
  }
  for (const PlotInput& run : runs) {
    if (!HasLatencyData(run.profile)) continue;
    const SurfaceMap m = BuildSurfaceMap(run.profile);
    std::string caption =
        "The device in position order, left to right and top to bottom: each cell " +
        (m.blocks_per_cell == 1 ? std::string("a block")
                                : std::to_string(m.blocks_per_cell) + " blocks") +
        " in the colour of its slowest chunk's latency class (chunk " +
        ChunkSizeText(m.chunk_bytes) + "); red: unreadable";
    if (m.estimated_blocks > 0 && m.estimated_blocks == m.rated_blocks) {
      caption += "; chunk times estimated from block rates";
    }
    specs.push_back({PlotKind::kMap, {run}, run.label + ": surface map", caption});
  }
  return specs;
}

// The latency classes' table: a row per pass of each run that recorded
// them, and the total of a run's passes when it has several.
Table MakeLatencyTable(const std::vector<PlotInput>& runs) {
  Table t;
  t.columns = {{"Run", false}, {"Pass", false}};
  for (std::size_t c = 0; c <= static_cast<std::size_t>(LatencyClass::kUnreadable); ++c) {
    t.columns.push_back({LatencyClassLabel(static_cast<LatencyClass>(c)), true});
  }
  t.columns.push_back({"Chunks", true});
  t.columns.push_back({"Chunk size", true});
  const auto row = [&](const std::string& label, const std::string& pass, const LatencyClasses& l,
                       std::uint64_t chunk_bytes) {
    std::vector<std::string> r = {label, pass};
    for (const std::uint64_t n : l.chunks) r.push_back(std::to_string(n));
    r.push_back(std::to_string(l.unreadable_chunks));
    r.push_back(std::to_string(l.Total()));
    const std::uint64_t size = l.chunk_bytes > 0 ? l.chunk_bytes : chunk_bytes;
    r.push_back(size > 0 ? ChunkSizeText(size) : "n/a");
    t.rows.push_back(std::move(r));
  };
  for (const PlotInput& run : runs) {
    if (!HasLatencyData(run.profile)) continue;  // none, or an adaptive run's probes
    const std::vector<LatencyClasses>& passes = run.profile.latency_classes;
    LatencyClasses total;
    for (std::size_t i = 0; i < passes.size(); ++i) {
      row(run.label, std::to_string(i + 1), passes[i], run.profile.chunk_bytes);
      total.Add(passes[i]);
    }
    if (passes.size() > 1) row(run.label, "all", total, run.profile.chunk_bytes);
  }
  return t;
}

constexpr const char* kLatencySentence =
    "Each chunk (one read call) counted by how long it took, in the classes MHDD and Victoria "
    "use; unreadable = chunks holding sectors that failed to read after a retry. The classes "
    "depend on the chunk size.";

// "N region(s), SIZE": how many `ranges` (read errors, slow regions) and
// their lengths summed.
template <typename Range>
std::string RegionsText(const std::vector<Range>& ranges) {
  std::uint64_t bytes = 0;
  for (const Range& r : ranges) bytes += r.length_bytes;
  return std::to_string(ranges.size()) + (ranges.size() == 1 ? " region, " : " regions, ") +
         FormatBytes(bytes);
}

// What the runs are, below the table: the curve's shape in one sentence, the
// data file, and what its import inferred.
std::vector<std::string> RunDetails(const PlotInput& run) {
  std::vector<std::string> lines;
  const SavedResult& p = run.profile;
  std::string data = "data: " + p.source;
  if (!p.format.empty()) data += " (" + p.format + ")";
  if (p.passes > 0) data += ", " + std::to_string(p.passes) + (p.passes == 1 ? " pass" : " passes");
  data += ", " + std::to_string(p.points.size()) + " blocks";
  lines.push_back(data);
  // Which drive, on which machine (the identity the file recorded).
  if (!p.device_serial.empty() || !p.device_firmware.empty() || !p.host.empty()) {
    std::string drive = "drive: " + (p.device_model.empty() ? p.device_path : p.device_model);
    if (!p.device_serial.empty()) drive += ", serial " + p.device_serial;
    if (!p.device_firmware.empty()) drive += ", firmware " + p.device_firmware;
    if (!p.device_wwn.empty()) drive += ", WWN " + p.device_wwn;
    if (!p.host.empty()) drive += "; measured on " + p.host;
    lines.push_back(drive);
  }
  if (!run.zones.description.empty()) lines.push_back("curve: " + run.zones.description);
  if (!p.verdict.empty()) {
    lines.push_back("verdict: " + p.verdict +
                    (p.verdict_reason.empty() ? "" : " (" + p.verdict_reason + ")"));
  }
  // Read errors and slow regions: how much the curve leaves out, and where
  // the disk struggled.
  if (!p.unreadable.empty()) {
    lines.push_back("unreadable: " + RegionsText(p.unreadable) +
                    "; read around them, blocks with no clean read are not in the curve");
  }
  if (!p.slow_regions.empty()) {
    lines.push_back("slow: " + RegionsText(p.slow_regions) +
                    " over all passes, read far slower than the chunks before them");
  }
  if (!p.health_verdict.empty()) {
    std::string health = "health: " + p.health_verdict;
    for (std::size_t i = 0; i < p.health_reasons.size(); ++i) {
      health += (i == 0 ? " — " : "; ") + p.health_reasons[i];
    }
    lines.push_back(health);
  }
  if (!p.smart_increases.empty()) {
    std::string smart = "SMART counters that grew during the run:";
    for (const std::string& c : p.smart_increases) smart += " " + c + ";";
    smart.pop_back();
    lines.push_back(smart);
  } else if (!p.smart_note.empty()) {
    lines.push_back("SMART: " + p.smart_note);
  }
  for (const std::string& note : p.notes) lines.push_back("note: " + note);
  return lines;
}

constexpr const char* kUnitsSentence =
    "Rates in MB/s (10^6 B/s). Min and max are over the per-block median rates; the average is "
    "bytes read divided by read time. Outer/inner = the first zone's rate over the last zone's.";

// The units sentence, and what the optional profile columns mean when the
// table has them.
std::string UnitsText(const Table& table) {
  std::string text = kUnitsSentence;
  const auto has = [&](const char* title) {
    for (const Column& c : table.columns) {
      if (c.title == title) return true;
    }
    return false;
  };
  if (has("Access time")) {
    text += " Access time = the mean time of random small reads (µs under 1 ms).";
  }
  if (has("Burst MB/s"))
    text += " Burst = the rate of reads from the drive's cache (the interface's).";
  if (has("Verdict")) text += " Verdict = whether the bus or the media sets the rate.";
  return text;
}

// Plain loops over the SVG, not std::regex: its text holds what the plot
// titles hold (a drive's model from a result file), and libstdc++'s regex
// recurses once per character a repetition takes (a model of 50,000 spaces
// overflowed the stack). Each does what the regular expression in its
// comment did, left to right, matches not overlapping.

bool IsSpaceChar(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
bool IsQuote(char c) { return c == '"' || c == '\''; }
std::size_t SkipSpace(const std::string& s, std::size_t i) {
  while (i < s.size() && IsSpaceChar(s[i])) ++i;
  return i;
}
bool At(const std::string& s, std::size_t i, std::string_view what) {
  return s.compare(i, what.size(), what) == 0;
}

// <script[\s\S]*?</script\s*> and then <script[^>]*/> removed.
std::string WithoutScripts(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t end = std::string::npos;
    if (At(s, i, "<script")) {
      for (std::size_t close = s.find("</script", i + 7); close != std::string::npos;
           close = s.find("</script", close + 1)) {
        const std::size_t gt = SkipSpace(s, close + 8);
        if (gt < s.size() && s[gt] == '>') {
          end = gt + 1;
          break;
        }
      }
    }
    if (end == std::string::npos) {
      out += s[i++];
    } else {
      i = end;
    }
  }
  std::string result;
  for (std::size_t i = 0; i < out.size();) {
    if (At(out, i, "<script")) {
      const std::size_t gt = out.find('>', i + 7);
      if (gt != std::string::npos && gt > i + 7 && out[gt - 1] == '/') {
        i = gt + 1;
        continue;
      }
    }
    result += out[i++];
  }
  return result;
}

// \s+xmlns(:[A-Za-z_][\w.-]*)?\s*=\s*("[^"]*"|'[^']*') removed.
std::string WithoutNamespaces(const std::string& s) {
  const auto name_start = [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  const auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
  };
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    // The end of a declaration whose white space starts at i, if one does.
    std::size_t end = std::string::npos;
    if (IsSpaceChar(s[i])) {
      std::size_t j = SkipSpace(s, i);
      if (At(s, j, "xmlns")) {
        j += 5;
        if (j + 1 < s.size() && s[j] == ':' && name_start(s[j + 1])) {
          j += 2;
          while (j < s.size() && name_char(s[j])) ++j;
        }
        j = SkipSpace(s, j);
        if (j < s.size() && s[j] == '=') {
          j = SkipSpace(s, j + 1);
          if (j < s.size() && IsQuote(s[j])) {
            const std::size_t close = s.find(s[j], j + 1);
            if (close != std::string::npos) end = close + 1;
          }
        }
      }
      if (end == std::string::npos) {
        // No declaration from here: nor from inside this white space.
        out.append(s, i, SkipSpace(s, i) - i);
        i = SkipSpace(s, i);
        continue;
      }
    }
    if (end == std::string::npos) {
      out += s[i++];
    } else {
      i = end;
    }
  }
  return out;
}

// Each `from` replaced with `to`.
std::string ReplaceAll(const std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t i = 0;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, i)) {
    out.append(s, i, at - i);
    out += to;
    i = at + from.size();
  }
  out.append(s, i, std::string::npos);
  return out;
}

// The ids and references to them with `prefix`: (\sid\s*=\s*)(["']) gets it
// after the quote, (href\s*=\s*)(["'])# after the '#', and url\(\s*# becomes
// url(#PREFIX.
std::string PrefixIds(const std::string& s, const std::string& prefix) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    // The end of the part up to where the prefix goes, when one starts at i.
    std::size_t end = std::string::npos;
    if (IsSpaceChar(s[i]) && At(s, i + 1, "id")) {
      std::size_t j = SkipSpace(s, i + 3);
      if (j < s.size() && s[j] == '=') {
        j = SkipSpace(s, j + 1);
        if (j < s.size() && IsQuote(s[j])) end = j + 1;
      }
    } else if (At(s, i, "href")) {
      std::size_t j = SkipSpace(s, i + 4);
      if (j < s.size() && s[j] == '=') {
        j = SkipSpace(s, j + 1);
        if (j + 1 < s.size() && IsQuote(s[j]) && s[j + 1] == '#') end = j + 2;
      }
    } else if (At(s, i, "url(")) {
      const std::size_t j = SkipSpace(s, i + 4);
      if (j < s.size() && s[j] == '#') {
        out += "url(#" + prefix;
        i = j + 1;
        continue;
      }
    }
    if (end == std::string::npos) {
      out += s[i++];
    } else {
      out.append(s, i, end - i);
      out += prefix;
      i = end;
    }
  }
  return out;
}

// The number of the first \sNAME\s*=\s*["']([0-9.]+)(px)?["'] in `tag`.
std::optional<std::string> TagNumber(const std::string& tag, std::string_view name) {
  for (std::size_t i = 0; i + 1 < tag.size(); ++i) {
    if (!IsSpaceChar(tag[i]) || !At(tag, i + 1, name)) continue;
    std::size_t j = SkipSpace(tag, i + 1 + name.size());
    if (j >= tag.size() || tag[j] != '=') continue;
    j = SkipSpace(tag, j + 1);
    if (j >= tag.size() || !IsQuote(tag[j])) continue;
    const std::size_t from = ++j;
    while (j < tag.size() && (std::isdigit(static_cast<unsigned char>(tag[j])) || tag[j] == '.')) {
      ++j;
    }
    if (j == from) continue;
    const std::size_t number_end = j;
    if (At(tag, j, "px")) j += 2;
    if (j < tag.size() && IsQuote(tag[j])) return tag.substr(from, number_end - from);
  }
  return std::nullopt;
}

// Makes one inline SVG fit for the page: drops what precedes <svg (XML
// prolog, DOCTYPE, comments), namespace declarations (the HTML parser puts
// inline <svg> in the SVG namespace by itself, and the page then names no
// URL at all), scripts; turns xlink:href into SVG 2's href; prefixes ids and
// their references with `prefix` (gnuplot names every plot's ids alike);
// adds a viewBox from width/height when missing so CSS can scale it.
std::string InlineSvg(const std::string& svg, const std::string& prefix) {
  std::string s = svg;
  const std::size_t start = s.find("<svg");
  if (start == std::string::npos) return "";
  s.erase(0, start);
  const std::size_t end = s.rfind("</svg>");
  if (end != std::string::npos) s.erase(end + 6);
  s = WithoutScripts(s);
  s = WithoutNamespaces(s);
  s = ReplaceAll(s, "xlink:href=", "href=");
  s = PrefixIds(s, prefix);
  // The opening tag of the root element.
  const std::size_t tag_end = s.find('>');
  if (tag_end != std::string::npos) {
    const std::string tag = s.substr(0, tag_end);
    if (tag.find("viewBox") == std::string::npos) {
      const std::optional<std::string> w = TagNumber(tag, "width");
      const std::optional<std::string> h = TagNumber(tag, "height");
      if (w && h) s.insert(4, " viewBox=\"0 0 " + *w + " " + *h + "\"");
    }
  }
  return s;
}

constexpr const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.45;
       color: #1d1d1f; background: #fff; max-width: 64em; margin: 0 auto; padding: 0 1em 2em; }
h1 { font-size: 1.6em; margin: 0.8em 0 0.3em; }
h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.3em; }
.wide { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.92em; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.55em; text-align: left; vertical-align: top; }
thead th { background: #f2f2f4; }
td.n { text-align: right; white-space: nowrap; }
figure { margin: 1em 0 2em; }
figure svg { display: block; width: 100%; height: auto; max-width: 56em; }
figcaption { font-size: 0.9em; color: #555; }
ul.details { padding-left: 1.2em; }
code { font-size: 0.95em; }
.muted { color: #666; font-size: 0.9em; }
@media print {
  body { max-width: none; padding: 0; color: #000; font-size: 10pt; }
  .wide { overflow: visible; }
  thead th { background: none; }
  figure { break-inside: avoid; page-break-inside: avoid; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
}
)";

}  // namespace

std::string HtmlText(const std::string& text) { return HtmlTextOf(text); }

std::string InlineSvgForPage(const std::string& svg, const std::string& prefix) {
  return InlineSvg(svg, prefix);
}

const char* ReportStyleSheet() { return kStyle; }

ReportFormat ReportFormatForPath(const std::string& path) {
  const std::string ext = Lower(fs::path(path).extension().string());
  if (ext == ".md" || ext == ".markdown") return ReportFormat::kMarkdown;
  if (ext == ".html" || ext == ".htm") return ReportFormat::kHtml;
  throw Error("report " + path + ": unknown format '" + ext +
                  "' (name the report .md for Markdown or .html for HTML)",
              ErrorKind::kBadInput);
}

RunSummary SummarizeRun(const PlotInput& run) {
  const SavedResult& p = run.profile;
  RunSummary s;
  s.label = run.label;
  s.device = FormatDevice(p);
  s.interface = FormatInterface(p);
  if (!p.points.empty()) {
    s.min_mb_per_s = std::numeric_limits<double>::infinity();
    s.max_mb_per_s = 0;
    double bytes = 0;
    double seconds = 0;
    for (const CurvePoint& pt : p.points) {
      s.min_mb_per_s = std::min(s.min_mb_per_s, pt.mb_per_s);
      s.max_mb_per_s = std::max(s.max_mb_per_s, pt.mb_per_s);
      if (pt.mb_per_s > 0) {
        bytes += static_cast<double>(pt.length_bytes);
        seconds += static_cast<double>(pt.length_bytes) / (pt.mb_per_s * 1e6);
      }
    }
    if (seconds > 0) s.avg_mb_per_s = bytes / seconds / 1e6;
  }
  if (p.avg_mb_per_s && *p.avg_mb_per_s > 0) s.avg_mb_per_s = *p.avg_mb_per_s;
  s.zone_count = run.zones.zones.size();
  s.curve_type = CurveTypeName(run.zones.type);
  s.outer_inner_ratio = run.zones.outer_inner_ratio;
  const double one_x = OneXBytesPerS(run.media);
  if (one_x > 0 && s.avg_mb_per_s > 0) s.avg_x = s.avg_mb_per_s * 1e6 / one_x;
  s.cpu_percent = p.cpu_percent;
  s.access_mean_ms = p.access_mean_ms;
  s.burst_mb_per_s = p.burst_mb_per_s;
  s.verdict = p.verdict;
  return s;
}

std::size_t ReportPlotCount(std::size_t run_count) { return run_count + (run_count > 1 ? 1 : 0); }

std::size_t ReportPlotCount(const std::vector<PlotInput>& runs) {
  return ReportPlotCount(runs.size()) +
         static_cast<std::size_t>(std::count_if(runs.begin(), runs.end(), [](const PlotInput& r) {
           return HasLatencyData(r.profile);
         }));
}

std::string MakeMarkdownReport(const std::vector<PlotInput>& runs,
                               const std::vector<std::string>& image_files, bool rendered) {
  const Table table = MakeTable(runs);
  std::ostringstream md;
  md << "# zcav report\n\n";
  md << runs.size() << (runs.size() == 1 ? " run. " : " runs. ") << UnitsText(table) << "\n\n";
  md << MdTable(table) << "\n";
  for (const PlotInput& run : runs) {
    md << "- **" << MdText(run.label) << "**\n";
    for (const std::string& line : RunDetails(run)) md << "  - " << MdText(line) << "\n";
  }
  const Table latency = MakeLatencyTable(runs);
  if (!latency.rows.empty()) {
    md << "\n## Read latency\n\n" << kLatencySentence << "\n\n" << MdTable(latency);
  }
  md << "\n## Plots\n\n";
  if (image_files.empty()) {
    md << "No plots.\n";
    return md.str();
  }
  if (!rendered) {
    md << "_The images were not drawn: gnuplot was not found. Install gnuplot and run "
          "`gnuplot FILE.gp` for each script below in this directory to draw them._\n\n";
  }
  const std::vector<PlotSpec> specs = PlotSpecs(runs);
  for (std::size_t i = 0; i < specs.size() && i < image_files.size(); ++i) {
    const std::string& image = image_files[i];
    const std::string script = fs::path(image).replace_extension(".gp").string();
    md << "### " << MdText(specs[i].title) << "\n\n";
    md << "![" << MdText(specs[i].title) << "](" << MdLinkTarget(image) << ")\n\n";
    md << "Script: `" << OneLine(script) << "` (edit it and run `gnuplot " << OneLine(script)
       << "` here to redraw).\n\n";
  }
  return md.str();
}

std::string MakeHtmlReport(const std::vector<PlotInput>& runs,
                           const std::vector<std::string>& svgs) {
  const Table table = MakeTable(runs);
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
       "<meta name=\"generator\" content=\"zcav\"/>\n"
    << "<title>" << HtmlText("zcav report: " + JoinLabels(runs)) << "</title>\n"
    << "<style>" << kStyle << "</style>\n</head>\n<body>\n";
  h << "<h1>zcav report</h1>\n";
  h << "<p class=\"muted\">" << runs.size() << (runs.size() == 1 ? " run. " : " runs. ")
    << HtmlText(UnitsText(table)) << "</p>\n";
  h << HtmlTable(table);
  h << "<ul class=\"details\">\n";
  for (const PlotInput& run : runs) {
    h << "<li><strong>" << HtmlText(run.label) << "</strong><ul>";
    for (const std::string& line : RunDetails(run)) h << "<li>" << HtmlText(line) << "</li>";
    h << "</ul></li>\n";
  }
  h << "</ul>\n";
  const Table latency = MakeLatencyTable(runs);
  if (!latency.rows.empty()) {
    h << "<h2>Read latency</h2>\n<p class=\"muted\">" << HtmlText(kLatencySentence) << "</p>\n"
      << HtmlTable(latency);
  }
  h << "<h2>Plots</h2>\n";
  if (svgs.empty()) {
    h << "<p>The plots are not included: gnuplot was not found. Install gnuplot and write the "
         "report again, or use <code>zcav plot</code> on the data files.</p>\n";
  }
  const std::vector<PlotSpec> specs = PlotSpecs(runs);
  for (std::size_t i = 0; i < specs.size() && i < svgs.size(); ++i) {
    std::string svg = InlineSvg(svgs[i], "p" + std::to_string(i + 1) + "-");
    // gnuplot titles every SVG "Gnuplot" (a browser shows it as a tooltip).
    const std::string generic = "<title>Gnuplot</title>";
    const std::size_t at = svg.find(generic);
    if (at != std::string::npos) {
      svg.replace(at, generic.size(), "<title>" + HtmlText(specs[i].title) + "</title>");
    }
    h << "<figure>\n<h3>" << HtmlText(specs[i].title) << "</h3>\n"
      << svg << "\n"
      << "<figcaption>" << HtmlText(specs[i].caption) << "</figcaption>\n</figure>\n";
  }
  h << "</body>\n</html>\n";
  return h.str();
}

ReportFiles WriteReport(const std::vector<PlotInput>& runs, const std::string& path) {
  const ReportFormat format = ReportFormatForPath(path);
  if (runs.empty()) throw Error("no runs to report", ErrorKind::kBadInput);
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw Error("report " + path + " is a directory", ErrorKind::kBadInput);
  }
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) {
    throw Error("report " + path + ": directory " + dir.string() + " does not exist",
                ErrorKind::kBadInput);
  }
  ReportFiles files;
  files.report_path = path;
  const std::vector<PlotSpec> specs = PlotSpecs(runs);
  const bool gnuplot = GnuplotAvailable();
  std::string text;
  if (format == ReportFormat::kMarkdown) {
    // The plots' names are written into their scripts: [A-Za-z0-9._-] only.
    const std::string stem = SafeFileName(fs::path(path).stem().string());
    std::vector<std::string> images;
    std::vector<PlotFiles> plots;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const std::string name = stem + "-" + std::to_string(i + 1);
      images.push_back(name + ".png");
      plots.push_back(
          WritePlot(specs[i].kind, specs[i].inputs, dir.string(), name, {images.back()}));
      const PlotFiles& p = plots.back();
      files.plot_paths.push_back(p.script_path);
      files.plot_paths.insert(files.plot_paths.end(), p.data_paths.begin(), p.data_paths.end());
      if (gnuplot) {
        files.plot_paths.insert(files.plot_paths.end(), p.image_paths.begin(), p.image_paths.end());
      }
    }
    if (gnuplot) {
      for (const PlotFiles& p : plots) RenderPlot(p);
    } else {
      files.notes.push_back("gnuplot not found: the images of " + path +
                            " were not drawn; install gnuplot and run 'gnuplot " + stem +
                            "-N.gp' in " + dir.string() + " for each script");
    }
    text = MakeMarkdownReport(runs, images, gnuplot);
  } else {
    std::vector<std::string> svgs;
    if (gnuplot) {
      for (const PlotSpec& spec : specs) svgs.push_back(RenderSvg(spec.kind, spec.inputs));
    } else {
      files.notes.push_back("gnuplot not found: " + path +
                            " has the table but no plots; install gnuplot and write it again");
    }
    text = MakeHtmlReport(runs, svgs);
  }
  WriteFileAtomically(path, text);
  return files;
}

}  // namespace zcav
