#include "zcav/report/fleet_report.h"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "zcav/analysis/result_zones.h"
#include "zcav/base/atomic_file.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/format/writers.h"  // kSchemaVersion
#include "zcav/report/plot.h"
#include "zcav/report/report.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// Colours of the flagged drives' curves, in turn.
constexpr const char* kColours[] = {"#cb181d", "#ff7f00", "#6a3d9a", "#b15928",
                                    "#e7298a", "#1b9e77", "#a6761d", "#666666"};

Json NumberOrNull(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? Json(*v) : Json(nullptr);
}

Json CurveJson(const FleetCurve& c) {
  Json a = Json::array();
  for (const double v : c) a.push_back(std::isfinite(v) ? Json(v) : Json(nullptr));
  return a;
}

std::string RatioText(const std::optional<double>& r) {
  return r ? FormatFixed(*r, 3) : std::string("-");
}

std::string RegionText(const FleetScore& s) {
  if (!s.worst_region) return "-";
  const FleetRegion& r = *s.worst_region;
  return FormatFixed(r.start_percent, 0) + "-" + FormatFixed(r.end_percent, 0) + " % at " +
         FormatFixed(r.ratio, 3);
}

// One CSV cell of text from input (RFC 4180): quoted when it holds a comma,
// a quote or a line break, and a cell that starts like a formula (= + - @,
// or a tab or carriage return before one) prefixed with ' so that no
// spreadsheet evaluates it (OWASP "CSV injection").
std::string CsvField(const std::string& text) {
  std::string cell = text;
  if (!cell.empty() && std::string_view("=+-@\t\r").find(cell.front()) != std::string_view::npos) {
    cell.insert(0, 1, '\'');
  }
  if (cell.find_first_of(",\"\n\r") == std::string::npos) return cell;
  std::string out = "\"";
  for (const char c : cell) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Text from input as one Markdown table cell (or heading, or image alt
// text) that stays one cell and plain text: '|', '`' (code) and '\\' itself
// are escaped with '\\'; '[' and ']' become the entities &#91; and &#93;
// (no link or image can start, even where a renderer ignores backslash
// escapes, and no "](" remains); '<', '>' and '&' become entities, so no
// HTML and no autolink passes; a leading '#' is escaped; control characters
// become spaces.
std::string MdCell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      out += ' ';
    } else if (c == '|' || c == '`' || c == '\\' || (c == '#' && out.empty())) {
      out += '\\';
      out += c;
    } else if (c == '[') {
      out += "&#91;";
    } else if (c == ']') {
      out += "&#93;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out += c;
    }
  }
  return out;
}

std::size_t FlaggedIn(const FleetAnalysis& a, std::size_t group) {
  std::size_t n = 0;
  for (const FleetScore& s : a.scores) n += s.group == group && s.flagged ? 1 : 0;
  return n;
}

std::string Summary(const std::vector<FleetDrive>& drives, const FleetAnalysis& a) {
  std::size_t flagged = 0;
  for (const FleetScore& s : a.scores) flagged += s.flagged ? 1 : 0;
  return std::to_string(drives.size()) + " drive" + (drives.size() == 1 ? "" : "s") + " in " +
         std::to_string(a.groups.size()) + " group" + (a.groups.size() == 1 ? "" : "s") + ", " +
         std::to_string(flagged) + " flagged.";
}

// The table's rows, worst first: cells as text.
std::vector<std::vector<std::string>> Rows(const std::vector<FleetDrive>& drives,
                                           const FleetAnalysis& a) {
  std::vector<std::vector<std::string>> rows;
  for (const std::size_t d : a.order) {
    const FleetScore& s = a.scores[d];
    rows.push_back({drives[d].name, a.groups[s.group].key, s.flagged ? "yes" : "no",
                    RatioText(s.ratio), RegionText(s),
                    s.reasons.empty() ? "-" : Join(s.reasons, "; "), drives[d].source});
  }
  return rows;
}

const std::vector<std::string> kColumns = {"Drive",        "Group",   "Flagged", "Ratio",
                                           "Worst region", "Reasons", "Source"};
constexpr const char* kLegend =
    "Ratio = the drive's average rate over its group's median curve (time-weighted; 1.000 = "
    "as its siblings). Worst region = where it is furthest below the median, in % of the "
    "surface, at that ratio. Groups of fewer than 3 drives have no reference: their drives are "
    "flagged only for unreadable ranges, slow regions and health.";

std::string PlotTitle(const FleetAnalysis& a, std::size_t g) {
  const FleetGroup& group = a.groups[g];
  return group.key + ": " + std::to_string(group.drives.size()) + " drives, " +
         std::to_string(FlaggedIn(a, g)) + " flagged";
}

std::string MarkdownReport(const std::vector<FleetDrive>& drives, const FleetAnalysis& a,
                           const std::vector<std::string>& images) {
  std::ostringstream m;
  m << "# zcav fleet report\n\n" << Summary(drives, a) << "\n\n";
  m << "|";
  for (const std::string& c : kColumns) m << " " << c << " |";
  m << "\n|";
  for (std::size_t i = 0; i < kColumns.size(); ++i) m << (i == 3 ? "---:|" : "---|");
  m << "\n";
  for (const auto& row : Rows(drives, a)) {
    m << "|";
    for (const std::string& cell : row) m << " " << MdCell(cell) << " |";
    m << "\n";
  }
  m << "\n" << kLegend << " MB = 10^6 B.\n";
  for (std::size_t g = 0; g < a.groups.size(); ++g) {
    m << "\n## " << MdCell(PlotTitle(a, g)) << "\n\n";
    if (g < images.size() && !images[g].empty()) {
      m << "![" << MdCell(a.groups[g].key) << "](" << images[g] << ")\n";
    }
  }
  return m.str();
}

std::string HtmlReport(const std::vector<FleetDrive>& drives, const FleetAnalysis& a,
                       const std::vector<std::string>& svgs) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
    << "<title>zcav fleet report</title>\n<style>" << ReportStyleSheet()
    << "tr.flagged th, tr.flagged td { background: #fde0dd; }\n</style>\n</head>\n<body>\n"
    << "<h1>zcav fleet report</h1>\n<p>" << HtmlText(Summary(drives, a)) << "</p>\n"
    << "<div class=\"wide\"><table>\n<thead><tr>";
  for (const std::string& c : kColumns) h << "<th scope=\"col\">" << HtmlText(c) << "</th>";
  h << "</tr></thead>\n<tbody>\n";
  std::size_t i = 0;
  for (const auto& row : Rows(drives, a)) {
    const bool flagged = a.scores[a.order[i++]].flagged;
    h << (flagged ? "<tr class=\"flagged\">" : "<tr>");
    for (std::size_t c = 0; c < row.size(); ++c) {
      h << (c == 0   ? "<th scope=\"row\">"
            : c == 3 ? "<td class=\"n\">"
                     : "<td>")
        << HtmlText(row[c]) << (c == 0 ? "</th>" : "</td>");
    }
    h << "</tr>\n";
  }
  h << "</tbody>\n</table></div>\n<p class=\"muted\">" << HtmlText(kLegend)
    << " MB = 10^6 B.</p>\n";
  for (std::size_t g = 0; g < a.groups.size(); ++g) {
    h << "<h2>" << HtmlText(PlotTitle(a, g)) << "</h2>\n";
    if (g < svgs.size() && !svgs[g].empty()) {
      h << "<figure>\n"
        << InlineSvgForPage(svgs[g], "g" + std::to_string(g + 1) + "-") << "\n<figcaption>"
        << HtmlText(
               "The group's median read rate and its p10-p90 band by position, with every "
               "flagged drive's curve.")
        << "</figcaption>\n</figure>\n";
    }
  }
  h << "</body>\n</html>\n";
  return h.str();
}

}  // namespace

FleetDrive FleetDriveFrom(const SavedResult& p) {
  FleetDrive d;
  d.source = CleanText(p.source, kMaxNoteBytes);  // a name found in a directory walk
  d.host = p.host;
  d.serial = p.device_serial;
  d.model = p.device_model;
  d.firmware = p.device_firmware;
  d.wwn = p.device_wwn;
  d.started_utc = p.started_utc;
  d.device_path = p.device_path;
  d.size_bytes = p.device_bytes;
  d.name = !d.serial.empty() ? d.serial : !d.device_path.empty() ? d.device_path : d.source;
  d.bins = FleetBins(ZoneCurve(p), p.device_bytes);
  d.unreadable_ranges = p.unreadable.size();
  d.slow_regions = p.slow_regions.size();
  d.health = p.health_verdict;
  d.access_mean_ms = p.access_mean_ms;
  d.burst_mb_per_s = p.burst_mb_per_s;
  return d;
}

void NameFleetDrives(std::vector<FleetDrive>& drives) {
  bool several_hosts = false;
  for (const FleetDrive& d : drives) several_hosts = several_hosts || d.host != drives.front().host;
  for (FleetDrive& d : drives) {
    d.name = !d.serial.empty() ? d.serial : !d.device_path.empty() ? d.device_path : d.source;
    if (several_hosts && !d.host.empty()) d.name = d.host + "/" + d.name;
  }
}

FleetFormat FleetFormatForPath(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".json") return FleetFormat::kJson;
  if (ext == ".csv") return FleetFormat::kCsv;
  if (ext == ".md" || ext == ".markdown") return FleetFormat::kMarkdown;
  if (ext == ".html" || ext == ".htm") return FleetFormat::kHtml;
  throw Error(
      "merge output " + path + ": unknown format '" + ext + "' (name it .html, .md, .json or .csv)",
      ErrorKind::kBadInput);
}

std::string FleetJson(const std::vector<FleetDrive>& drives, const FleetAnalysis& a,
                      const std::string& version) {
  Json root;
  root["format"] = "zcav-merge";
  root["schema_version"] = kSchemaVersion;
  root["version"] = version;
  root["units"] =
      "rates (*_mb_per_s) in MB/s = 10^6 B/s; positions (*percent) in % of the drive's surface";
  Json groups = Json::array();
  for (std::size_t g = 0; g < a.groups.size(); ++g) {
    const FleetGroup& group = a.groups[g];
    Json j;
    j["key"] = group.key;
    j["model"] = group.model;
    j["firmware"] = group.firmware;
    j["size_bytes"] = group.size_bytes;
    j["drives"] = group.drives.size();
    j["flagged"] = FlaggedIn(a, g);
    j["has_reference"] = group.has_reference;
    Json percent = Json::array();
    for (std::size_t b = 0; b < kFleetBins; ++b) percent.push_back(static_cast<double>(b) + 0.5);
    j["reference"] = Json{{"percent", percent},
                          {"median_mb_per_s", CurveJson(group.median)},
                          {"p10_mb_per_s", CurveJson(group.p10)},
                          {"p90_mb_per_s", CurveJson(group.p90)}};
    j["access_median_ms"] = NumberOrNull(group.access_median_ms);
    j["burst_median_mb_per_s"] = NumberOrNull(group.burst_median_mb_per_s);
    groups.push_back(std::move(j));
  }
  root["groups"] = std::move(groups);
  Json list = Json::array();
  for (const std::size_t d : a.order) {
    const FleetDrive& drive = drives[d];
    const FleetScore& s = a.scores[d];
    Json j;
    j["source"] = drive.source;
    j["name"] = drive.name;
    j["group"] = a.groups[s.group].key;
    j["flagged"] = s.flagged;
    j["reasons"] = s.reasons;
    j["ratio"] = NumberOrNull(s.ratio);
    j["worst_region"] = s.worst_region ? Json{{"start_percent", s.worst_region->start_percent},
                                              {"end_percent", s.worst_region->end_percent},
                                              {"ratio", s.worst_region->ratio}}
                                       : Json(nullptr);
    j["host"] = drive.host;
    j["serial"] = drive.serial;
    j["model"] = drive.model;
    j["firmware"] = drive.firmware;
    j["device"] = drive.device_path;
    j["size_bytes"] = drive.size_bytes;
    j["unreadable_ranges"] = drive.unreadable_ranges;
    j["slow_regions"] = drive.slow_regions;
    j["health"] = drive.health.empty() ? Json(nullptr) : Json(drive.health);
    j["access_mean_ms"] = NumberOrNull(drive.access_mean_ms);
    j["burst_mb_per_s"] = NumberOrNull(drive.burst_mb_per_s);
    list.push_back(std::move(j));
  }
  root["drives"] = std::move(list);
  return root.dump(2) + "\n";
}

std::string FleetCsv(const std::vector<FleetDrive>& drives, const FleetAnalysis& a) {
  std::ostringstream c;
  c << "name,group,flagged,ratio,worst_start_percent,worst_end_percent,worst_ratio,"
       "unreadable_ranges,slow_regions,health,access_mean_ms,burst_mb_per_s,reasons,source\n";
  const auto opt = [](const std::optional<double>& v, int decimals) {
    return v ? FormatFixed(*v, decimals) : std::string();
  };
  for (const std::size_t d : a.order) {
    const FleetDrive& drive = drives[d];
    const FleetScore& s = a.scores[d];
    const std::optional<FleetRegion>& r = s.worst_region;
    c << CsvField(drive.name) << "," << CsvField(a.groups[s.group].key) << ","
      << (s.flagged ? "yes" : "no") << "," << opt(s.ratio, 4) << ","
      << (r ? FormatFixed(r->start_percent, 0) : "") << ","
      << (r ? FormatFixed(r->end_percent, 0) : "") << "," << (r ? FormatFixed(r->ratio, 4) : "")
      << "," << drive.unreadable_ranges << "," << drive.slow_regions << ","
      << CsvField(drive.health) << "," << opt(drive.access_mean_ms, 3) << ","
      << opt(drive.burst_mb_per_s, 3) << "," << CsvField(Join(s.reasons, "; ")) << ","
      << CsvField(drive.source) << "\n";
  }
  return c.str();
}

PlotFiles WriteFleetPlot(const std::vector<FleetDrive>& drives, const FleetAnalysis& a,
                         std::size_t g, const std::string& dir, const std::string& name,
                         const std::string& image) {
  const FleetGroup& group = a.groups[g];
  if (!IsSafeFileName(name) || !IsSafeFileName(image)) {
    throw Error("invalid fleet plot name '" + GpComment(name) + "'", ErrorKind::kBadInput);
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  PlotFiles files;
  const fs::path base(dir);
  files.script_path = (base / (name + ".gp")).string();
  const std::string band_name = name + ".band.dat";
  const std::string flagged_name = name + ".flagged.dat";
  std::ostringstream band;
  band << "# " << GpComment(group.key) << ": per 1 % of the surface, MB/s (10^6 B/s)\n"
       << "# percent median p10 p90\n";
  for (std::size_t b = 0; b < kFleetBins; ++b) {
    if (!std::isfinite(group.median[b])) {
      band << "\n";
      continue;
    }
    band << FormatFixed(static_cast<double>(b) + 0.5, 1) << " " << FormatFixed(group.median[b], 3)
         << " " << FormatFixed(group.p10[b], 3) << " " << FormatFixed(group.p90[b], 3) << "\n";
  }
  std::ostringstream flagged;
  flagged << "# flagged drives of " << GpComment(group.key) << ": one block each (percent, MB/s)\n";
  std::vector<std::string> names;
  for (const std::size_t d : a.order) {
    if (a.scores[d].group != g || !a.scores[d].flagged) continue;
    names.push_back(drives[d].name);
    flagged << "# " << GpComment(drives[d].name) << "\n";
    for (std::size_t b = 0; b < kFleetBins; ++b) {
      if (!std::isfinite(drives[d].bins[b])) continue;
      flagged << FormatFixed(static_cast<double>(b) + 0.5, 1) << " "
              << FormatFixed(drives[d].bins[b], 3) << "\n";
    }
    flagged << "\n\n";
  }
  std::ostringstream gp;
  gp << "# zcav merge: " << GpComment(group.key) << "\n"
     << "# Draw with: gnuplot " << name << ".gp (MB = 10^6 B)\n"
     << GnuplotTerminal(image) << "\n"
     << "set output " << GpQuote(image) << "\n"
     << "set title " << GpQuote(PlotTitle(a, g)) << " noenhanced\n"
     << "set xlabel 'position (% of the surface)' noenhanced\n"
     << "set ylabel 'read rate (MB/s, 10^6 B/s)' noenhanced\n"
     << "set xrange [0:100]\nset yrange [0:*]\nset grid\nset key bottom left box opaque\n"
     << "plot " << GpQuote(band_name) << " using 1:3:4 with filledcurves lc rgb '#c6dbef' title "
     << GpQuote("p10-p90 of " + std::to_string(group.drives.size()) + " drives") << ", \\\n  "
     << GpQuote(band_name) << " using 1:2 with lines lw 2 lc rgb '#08519c' title 'median'";
  for (std::size_t i = 0; i < names.size(); ++i) {
    gp << ", \\\n  " << GpQuote(flagged_name) << " index " << i
       << " using 1:2 with lines lw 2 lc rgb '" << kColours[i % std::size(kColours)] << "' title "
       << GpQuote(names[i]) << " noenhanced";
  }
  gp << "\nunset output\n";
  WriteFileAtomically((base / band_name).string(), band.str());
  WriteFileAtomically((base / flagged_name).string(), flagged.str());
  WriteFileAtomically(files.script_path, gp.str());
  files.data_paths = {(base / band_name).string(), (base / flagged_name).string()};
  files.image_paths = {(base / image).string()};
  return files;
}

FleetFiles WriteFleetReport(const std::vector<FleetDrive>& drives, const FleetAnalysis& a,
                            const std::string& path, const std::string& version) {
  const FleetFormat format = FleetFormatForPath(path);
  FleetFiles out;
  out.path = path;
  std::string text;
  if (format == FleetFormat::kJson) {
    text = FleetJson(drives, a, version);
  } else if (format == FleetFormat::kCsv) {
    text = FleetCsv(drives, a);
  } else {
    std::vector<std::string> plots(a.groups.size());
    if (!GnuplotAvailable()) {
      out.notes.push_back("gnuplot is not installed: the report has no plots");
    } else if (format == FleetFormat::kHtml) {
      for (std::size_t g = 0; g < a.groups.size(); ++g) {
        plots[g] = RenderSvgWith([&](const std::string& dir) {
          return WriteFleetPlot(drives, a, g, dir, "group", "group.svg");
        });
      }
    } else {
      const fs::path target(path);
      const std::string dir = target.parent_path().empty() ? "." : target.parent_path().string();
      for (std::size_t g = 0; g < a.groups.size(); ++g) {
        const std::string name = SafeFileName(target.stem().string()) + "-" + std::to_string(g + 1);
        const PlotFiles files = WriteFleetPlot(drives, a, g, dir, name, name + ".png");
        RenderPlot(files);
        plots[g] = name + ".png";
        out.plot_paths.push_back(files.script_path);
        for (const std::string& p : files.data_paths) out.plot_paths.push_back(p);
        for (const std::string& p : files.image_paths) out.plot_paths.push_back(p);
      }
    }
    text = format == FleetFormat::kHtml ? HtmlReport(drives, a, plots)
                                        : MarkdownReport(drives, a, plots);
  }
  WriteFileAtomically(path, text);
  return out;
}

}  // namespace zcav
