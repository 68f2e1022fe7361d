// Reports: the Markdown table, the self-contained HTML page, escaping, and
// WriteReport's files. The pure tests use hand-built runs and a fake SVG; the
// WriteReport tests need gnuplot for the images and check the rest without.
#include "zcav/report/report.h"

#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "testutil.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kBlock = 100'000'000;  // 100 MB

// A run whose blocks read at `rates` (MB/s), with one zone per distinct run of
// equal rates.
PlotInput MakeRun(const std::string& label, const std::vector<double>& rates) {
  PlotInput run;
  run.label = label;
  run.profile.source = label + ".dat";
  run.profile.format = "zcav-raw";
  run.profile.device_path = "sim:hdd";
  run.profile.device_model = "simulated disk";
  run.profile.transport = "sata";
  run.profile.link = "SATA 6.0 Gb/s";
  run.profile.passes = 1;
  for (std::size_t i = 0; i < rates.size(); ++i) {
    run.profile.points.push_back(
        {.offset_bytes = i * kBlock, .length_bytes = kBlock, .mb_per_s = rates[i]});
  }
  run.profile.device_bytes = rates.size() * kBlock;
  for (std::size_t i = 0; i < rates.size(); ++i) {
    if (i == 0 || rates[i] != rates[i - 1]) {
      Zone z;
      z.first_block = i;
      z.start_bytes = i * kBlock;
      z.mb_per_s = rates[i];
      run.zones.zones.push_back(z);
    }
    run.zones.zones.back().end_block = i + 1;
    run.zones.zones.back().end_bytes = (i + 1) * kBlock;
  }
  run.zones.type = run.zones.zones.size() > 1 ? CurveType::kZoned : CurveType::kFlat;
  run.zones.outer_inner_ratio = rates.front() / rates.back();
  run.zones.description = std::to_string(run.zones.zones.size()) + " zones";
  return run;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// The table rows of a Markdown report: lines starting with '|', minus the
// header and the separator.
std::vector<std::string> TableRows(const std::string& md) {
  std::vector<std::string> rows;
  for (const std::string& line : Lines(md)) {
    if (!line.empty() && line[0] == '|') rows.push_back(line);
  }
  REQUIRE(rows.size() >= 2);
  REQUIRE(rows[1].find("---") != std::string::npos);
  return {rows.begin() + 2, rows.end()};
}

// The cells of a Markdown table row, trimmed (no escaped '|' in the tests
// that use this).
std::vector<std::string> Cells(const std::string& row) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '|') {
      const auto b = cell.find_first_not_of(' ');
      const auto e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return cells;
}

std::size_t Count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// A minimal XML well-formedness check: balanced, properly nested tags,
// quoted attributes, no stray '<' or '&' in text, one root element.
// Returns "" when well-formed, else what is wrong.
std::string XmlProblem(const std::string& doc) {
  std::vector<std::string> open;
  bool root_seen = false;
  std::size_t i = 0;
  const std::regex entity(R"(^&([A-Za-z]+|#[0-9]+|#x[0-9A-Fa-f]+);)");
  while (i < doc.size()) {
    const char c = doc[i];
    if (c == '&') {
      std::smatch m;
      const std::string rest = doc.substr(i, 16);
      if (!std::regex_search(rest, m, entity)) return "bare '&' at " + std::to_string(i);
      const std::string name = m[1].str();
      if (name[0] != '#' && name != "amp" && name != "lt" && name != "gt" && name != "quot" &&
          name != "apos") {
        return "entity &" + name + "; is not predefined in XML";
      }
      i += m.length(0);
      continue;
    }
    if (c == '>') {
      ++i;  // allowed in text
      continue;
    }
    if (c != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(c))) {
        return "text outside the root element at " + std::to_string(i);
      }
      ++i;
      continue;
    }
    if (doc.compare(i, 4, "<!--") == 0) {
      const auto e = doc.find("-->", i);
      if (e == std::string::npos) return "unterminated comment";
      i = e + 3;
      continue;
    }
    if (doc.compare(i, 9, "<![CDATA[") == 0) {
      const auto e = doc.find("]]>", i);
      if (e == std::string::npos) return "unterminated CDATA";
      i = e + 3;
      continue;
    }
    if (doc.compare(i, 2, "<?") == 0 || doc.compare(i, 2, "<!") == 0) {
      if (root_seen || !open.empty())
        return "declaration inside the document at " + std::to_string(i);
      const auto e = doc.find('>', i);
      if (e == std::string::npos) return "unterminated declaration";
      i = e + 1;
      continue;
    }
    // A tag: find its end, skipping quoted attribute values.
    std::size_t j = i + 1;
    char quote = 0;
    for (; j < doc.size(); ++j) {
      if (quote) {
        if (doc[j] == quote)
          quote = 0;
        else if (doc[j] == '<')
          return "'<' inside an attribute value at " + std::to_string(j);
      } else if (doc[j] == '"' || doc[j] == '\'') {
        quote = doc[j];
      } else if (doc[j] == '>') {
        break;
      }
    }
    if (j >= doc.size()) return "unterminated tag at " + std::to_string(i);
    std::string tag = doc.substr(i + 1, j - i - 1);
    i = j + 1;
    if (!tag.empty() && tag[0] == '/') {
      const std::string name = tag.substr(1, tag.find_first_of(" \t\n", 1) - 1);
      if (open.empty() || open.back() != name) {
        return "</" + name + "> closes " +
               (open.empty() ? std::string("nothing") : "<" + open.back() + ">");
      }
      open.pop_back();
      continue;
    }
    const bool self_closing = !tag.empty() && tag.back() == '/';
    if (self_closing) tag.pop_back();
    static const std::regex tag_re(
        R"(^([A-Za-z_][\w:.-]*)(\s+[A-Za-z_][\w:.-]*\s*=\s*("[^"]*"|'[^']*'))*\s*$)");
    std::smatch m;
    if (!std::regex_match(tag, m, tag_re)) return "malformed tag <" + tag.substr(0, 60) + ">";
    if (open.empty() && root_seen) return "a second root element <" + m[1].str() + ">";
    root_seen = true;
    if (!self_closing) open.push_back(m[1].str());
  }
  if (!open.empty()) return "<" + open.back() + "> is never closed";
  if (!root_seen) return "no root element";
  return "";
}

// Roughly what gnuplot's svg terminal writes.
constexpr const char* kFakeSvg = R"svg(<?xml version="1.0" encoding="utf-8"  standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg width="600" height="400" viewBox="0 0 600 400"
 xmlns="http://www.w3.org/2000/svg"
 xmlns:xlink="http://www.w3.org/1999/xlink">
<title>Gnuplot</title>
<desc>Produced by GNUPLOT 5.4 patchlevel 4 </desc>
<defs><path id='gpDot' d='M-1,0 h2'/><clipPath id='gpclip'><rect x='0' y='0' width='10' height='10'/></clipPath></defs>
<g id="gnuplot_canvas" clip-path="url(#gpclip)">
<use xlink:href='#gpDot' x='10' y='10'/>
<text><tspan>MB/s &amp; GB</tspan></text>
</g>
<script type="text/javascript"><![CDATA[ alert(1) ]]></script>
</svg>
)svg";

TEST_CASE("The XML check used by these tests rejects broken markup", "[report]") {
  CHECK(XmlProblem("<a><b/><c x=\"1\">t &amp; u</c></a>").empty());
  CHECK_FALSE(XmlProblem("<a><b></a></b>").empty());
  CHECK_FALSE(XmlProblem("<a>x & y</a>").empty());
  CHECK_FALSE(XmlProblem("<a><br></a>").empty());
  CHECK_FALSE(XmlProblem("<a>&nbsp;</a>").empty());
  CHECK_FALSE(XmlProblem("<a x=1></a>").empty());
  CHECK_FALSE(XmlProblem("<a></a><b></b>").empty());
}

TEST_CASE("The Markdown table has one row per input with its figures", "[report]") {
  const std::vector<PlotInput> runs = {MakeRun("inner", {60, 60, 30, 30}),
                                       MakeRun("usb", {35, 35, 35, 35}),
                                       MakeRun("third", {80, 70, 60, 40})};
  const std::string md = MakeMarkdownReport(runs, {"r-1.png", "r-2.png", "r-3.png", "r-4.png"});
  const std::vector<std::string> rows = TableRows(md);
  REQUIRE(rows.size() == runs.size());

  const std::vector<std::string> header =
      Cells(md.substr(md.find('|'), md.find('\n', md.find('|')) - md.find('|')));
  REQUIRE(header.size() == 8);
  CHECK(header[0] == "Run");
  CHECK(header[3] == "Min MB/s");
  CHECK(header[5] == "Avg MB/s");
  CHECK(header[6] == "Zones");
  CHECK(header[7] == "Outer/inner");  // no CPU % column: no run has it

  const std::vector<std::string> a = Cells(rows[0]);
  REQUIRE(a.size() == header.size());
  CHECK(a[0] == "inner");
  CHECK(a[1] == "simulated disk (sim:hdd)");
  CHECK(a[2] == "sata, SATA 6.0 Gb/s");
  CHECK(a[3] == "30.0");
  CHECK(a[4] == "60.0");
  // 400 MB in 100/60 + 100/60 + 100/30 + 100/30 = 10 s.
  CHECK(a[5] == "40.0");
  CHECK(a[6] == "2 (zoned)");
  CHECK(a[7] == "2.00:1");

  const std::vector<std::string> b = Cells(rows[1]);
  CHECK(b[0] == "usb");
  CHECK(b[5] == "35.0");
  CHECK(b[6] == "1 (flat)");
  CHECK(b[7] == "1.00:1");
  CHECK(Cells(rows[2])[6] == "4 (zoned)");

  // Four plots: three falloff curves, then the comparison, each with its script.
  for (const char* png : {"(r-1.png)", "(r-2.png)", "(r-3.png)", "(r-4.png)"}) {
    CHECK(Count(md, png) == 1);
  }
  CHECK(Count(md, "`gnuplot r-4.gp`") == 1);
  CHECK(md.find("Comparison: inner, usb, third") != std::string::npos);
  CHECK(md.find("not drawn") == std::string::npos);
}

TEST_CASE("Optional columns appear only when some run has them", "[report]") {
  PlotInput with_cpu = MakeRun("a", {50, 40});
  with_cpu.profile.cpu_percent = 3.3;
  with_cpu.profile.avg_mb_per_s = 47.5;
  const PlotInput without = MakeRun("b", {50, 40});

  const std::string none = MakeMarkdownReport({without}, {});
  CHECK(none.find("CPU %") == std::string::npos);
  CHECK(none.find("Avg X") == std::string::npos);
  CHECK(TableRows(none).size() == 1);

  const std::string md = MakeMarkdownReport({with_cpu, without}, {});
  const std::vector<std::string> rows = TableRows(md);
  REQUIRE(rows.size() == 2);
  const std::vector<std::string> a = Cells(rows[0]);
  const std::vector<std::string> b = Cells(rows[1]);
  REQUIRE(a.size() == 9);
  CHECK(a[5] == "47.5");  // the file's own average wins over the curve's
  CHECK(a[8] == "3.3");
  CHECK(b[8] == "n/a");

  PlotInput cd = MakeRun("cd", {1.536, 3.072});
  cd.media = Media::kCd;
  const std::string optical = MakeMarkdownReport({cd, without}, {});
  CHECK(optical.find("| Avg X |") != std::string::npos);
  // 2 blocks of 100 MB at 1.536 and 3.072 MB/s: 200 MB / (65.1 + 32.6 s) = 2.048 MB/s = 13.3x.
  CHECK(Cells(TableRows(optical)[0])[6] == "13.3x");
  CHECK(Cells(TableRows(optical)[1])[6] == "n/a");
}

TEST_CASE("The access time, burst rate and verdict of a profile get columns and a reason line",
          "[report]") {
  PlotInput profiled = MakeRun("profiled", {60, 30});
  profiled.profile.access_mean_ms = 14.24;
  profiled.profile.burst_mb_per_s = 150.04;
  profiled.profile.verdict = "media-limited";
  profiled.profile.verdict_reason = "Falls from 60 to 30 MB/s.";
  const PlotInput plain = MakeRun("plain", {50, 40});

  const std::string without = MakeMarkdownReport({plain}, {});
  CHECK(without.find("Access time") == std::string::npos);
  CHECK(without.find("Burst MB/s") == std::string::npos);
  CHECK(without.find("Verdict") == std::string::npos);

  const std::string md = MakeMarkdownReport({profiled, plain}, {});
  const std::vector<std::string> header =
      Cells(md.substr(md.find('|'), md.find('\n', md.find('|')) - md.find('|')));
  REQUIRE(header.size() == 11);
  CHECK(header[8] == "Access time");
  CHECK(header[9] == "Burst MB/s");
  CHECK(header[10] == "Verdict");
  const std::vector<std::string> rows = TableRows(md);
  REQUIRE(rows.size() == 2);
  const std::vector<std::string> a = Cells(rows[0]);
  const std::vector<std::string> b = Cells(rows[1]);
  REQUIRE(a.size() == 11);
  CHECK(a[8] == "14.2 ms");
  CHECK(a[9] == "150.0");
  CHECK(a[10] == "media-limited");
  CHECK(b[8] == "n/a");
  CHECK(b[9] == "n/a");
  CHECK(b[10] == "n/a");
  CHECK(Count(md, "verdict: media-limited (Falls from 60 to 30 MB/s.)") == 1);
  CHECK(Count(md, "Access time = the mean time of random small reads (µs under 1 ms).") == 1);
  CHECK(Count(md, "Verdict = whether the bus or the media sets the rate.") == 1);

  const std::string html = MakeHtmlReport({profiled}, {});
  CHECK(Count(html, "<th scope=\"col\">Burst MB/s</th>") == 1);
  CHECK(Count(html, "<td class=\"n\">14.2 ms</td>") == 1);
  CHECK(Count(html, "<td>media-limited</td>") == 1);
}

TEST_CASE("The average rate is bytes over time when the file has no average", "[report]") {
  PlotInput run = MakeRun("x", {100, 50});
  run.profile.points.push_back({.offset_bytes = 2 * kBlock, .length_bytes = kBlock, .mb_per_s = 0});
  const RunSummary s = SummarizeRun(run);
  // The zero-rate block is left out of the average but not of the minimum.
  CHECK(s.avg_mb_per_s == Approx(200.0 / 3.0));
  CHECK(s.min_mb_per_s == 0);
  CHECK(s.max_mb_per_s == 100);
  CHECK(s.zone_count == 2);
  CHECK(s.curve_type == "zoned");
  CHECK_FALSE(s.cpu_percent.has_value());
  run.profile.avg_mb_per_s = 70.0;
  CHECK(SummarizeRun(run).avg_mb_per_s == 70.0);
  run.profile.transport.clear();
  run.profile.link = "unknown";
  CHECK(SummarizeRun(run).interface == "n/a");
}

TEST_CASE("The HTML report is well-formed, self-contained and has one svg per plot", "[report]") {
  const std::vector<PlotInput> runs = {MakeRun("a", {60, 30}), MakeRun("b", {35, 35})};
  const std::string html = MakeHtmlReport(runs, {kFakeSvg, kFakeSvg, kFakeSvg});
  INFO(html.substr(0, 400));
  CHECK(XmlProblem(html) == "");
  CHECK(Count(html, "<svg") == 3);
  CHECK(Count(html, "</svg>") == 3);
  CHECK(html.find("http") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find(" src=") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("<?xml") == std::string::npos);
  CHECK(html.find("<!DOCTYPE svg") == std::string::npos);
  CHECK(html.find("xlink:") == std::string::npos);
  // Phone and print.
  CHECK(html.find("name=\"viewport\"") != std::string::npos);
  CHECK(html.find("max-width") != std::string::npos);
  CHECK(html.find("height: auto") != std::string::npos);
  CHECK(html.find("@media print") != std::string::npos);
  // The table: a row per run in the body.
  const auto body = html.substr(html.find("<tbody>"), html.find("</tbody>") - html.find("<tbody>"));
  CHECK(Count(body, "<tr>") == 2);
}

TEST_CASE("Inlined SVGs get their ids prefixed per plot", "[report]") {
  const std::string html = MakeHtmlReport({MakeRun("a", {60, 30}), MakeRun("b", {35, 35})},
                                          {kFakeSvg, kFakeSvg, kFakeSvg});
  for (const std::string p : {"p1-", "p2-", "p3-"}) {
    CHECK(Count(html, "id='" + p + "gpDot'") == 1);
    CHECK(Count(html, "href='#" + p + "gpDot'") == 1);
    CHECK(Count(html, "url(#" + p + "gpclip)") == 1);
  }
  CHECK(html.find("id='gpDot'") == std::string::npos);
}

TEST_CASE("An HTML report without plots says so and has no svg", "[report]") {
  const std::string html = MakeHtmlReport({MakeRun("a", {60, 30})}, {});
  CHECK(XmlProblem(html) == "");
  CHECK(Count(html, "<svg") == 0);
  CHECK(html.find("gnuplot was not found") != std::string::npos);
}

TEST_CASE("Report text is escaped in HTML and Markdown", "[report]") {
  PlotInput run = MakeRun("<b>A&B \"x\" | y</b>", {60, 30});
  run.profile.device_model = "Model <1> & 'two'";
  run.profile.notes = {"a note with <tags> & ampersands"};
  const std::string html = MakeHtmlReport({run}, {kFakeSvg});
  CHECK(XmlProblem(html) == "");
  CHECK(html.find("<b>") == std::string::npos);
  CHECK(html.find("&lt;b&gt;A&amp;B &quot;x&quot; | y&lt;/b&gt;") != std::string::npos);
  CHECK(html.find("Model &lt;1&gt; &amp; &#39;two&#39;") != std::string::npos);
  CHECK(html.find("&lt;tags&gt; &amp; ampersands") != std::string::npos);

  const std::string md = MakeMarkdownReport({run}, {"r-1.png"});
  const std::vector<std::string> rows = TableRows(md);
  REQUIRE(rows.size() == 1);
  // The label's '|' is escaped: once escaped pipes are discounted the row
  // has the 9 separators of the header's 8 cells.
  CHECK(Count(rows[0], "|") - Count(rows[0], "\\|") == 9);
  CHECK(rows[0].find("\\<b\\>A\\&B \"x\" \\| y\\</b\\>") != std::string::npos);
  CHECK(md.find("<b>") == std::string::npos);
}

// A run whose sweep counted its chunks' latency classes: two passes of 1 MiB
// chunks, every block's slowest chunk 12 ms but the last (600 ms).
PlotInput WithLatency(PlotInput run) {
  LatencyClasses first;
  first.chunk_bytes = kMiB;
  first.chunks = {100, 250, 20, 3, 2, 1};
  first.unreadable_chunks = 4;
  LatencyClasses second = first;
  second.chunks = {110, 245, 18, 4, 2, 0};
  second.unreadable_chunks = 1;
  run.profile.latency_classes = {first, second};
  run.profile.chunk_bytes = kMiB;
  for (std::size_t i = 0; i < run.profile.points.size(); ++i) {
    run.profile.worst_chunk_ms.push_back(i + 1 == run.profile.points.size() ? 600.0F : 12.0F);
  }
  return run;
}

// The lines of a Markdown table that follows `heading`.
std::vector<std::string> TableAfter(const std::string& md, const std::string& heading) {
  std::vector<std::string> rows;
  const std::size_t at = md.find(heading);
  REQUIRE(at != std::string::npos);
  for (const std::string& line : Lines(md.substr(at))) {
    if (!line.empty() && line[0] == '|') {
      rows.push_back(line);
    } else if (!rows.empty()) {
      break;
    }
  }
  return rows;
}

TEST_CASE("A run with latency classes gets a table of them per pass whose counts add up",
          "[report]") {
  const PlotInput run = WithLatency(MakeRun("lat", {60, 60, 30, 30}));
  const std::string md = MakeMarkdownReport({run, MakeRun("plain", {35, 35})}, {});
  const std::vector<std::string> rows = TableAfter(md, "## Read latency");
  REQUIRE(rows.size() == 5);  // header, separator, pass 1, pass 2, all
  CHECK(Cells(rows[0]) == std::vector<std::string>{
                              "Run", "Pass", "\\< 5 ms", "\\< 20 ms", "\\< 50 ms", "\\< 150 ms",
                              "\\< 500 ms", "\\>= 500 ms", "unreadable", "Chunks", "Chunk size"});
  CHECK(Cells(rows[2]) == std::vector<std::string>{"lat", "1", "100", "250", "20", "3", "2", "1",
                                                   "4", "380", "1 MiB"});
  CHECK(Cells(rows[3]) == std::vector<std::string>{"lat", "2", "110", "245", "18", "4", "2", "0",
                                                   "1", "380", "1 MiB"});
  CHECK(Cells(rows[4]) == std::vector<std::string>{"lat", "all", "210", "495", "38", "7", "4", "1",
                                                   "5", "760", "1 MiB"});
  // Only the runs' table before it.
  CHECK(TableRows(md.substr(0, md.find("## Read latency"))).size() == 2);
  CHECK(md.find("MHDD and Victoria") != std::string::npos);

  const std::string without = MakeMarkdownReport({MakeRun("plain", {35, 35})}, {});
  CHECK(without.find("Read latency") == std::string::npos);

  const std::string html = MakeHtmlReport({run}, {});
  CHECK(XmlProblem(html) == "");
  CHECK(html.find("<h2>Read latency</h2>") != std::string::npos);
  CHECK(html.find("<th scope=\"col\">&gt;= 500 ms</th>") != std::string::npos);
  CHECK(html.find("<td class=\"n\">760</td>") != std::string::npos);
}

TEST_CASE("A run with latency data adds its surface map after the other plots", "[report]") {
  const PlotInput lat = WithLatency(MakeRun("lat", {60, 60, 30, 30}));
  const PlotInput plain = MakeRun("plain", {35, 35});
  CHECK(ReportPlotCount({plain}) == 1);
  CHECK(ReportPlotCount({lat}) == 2);
  CHECK(ReportPlotCount({lat, plain}) == 4);  // 2 falloffs, the comparison, 1 map
  const std::string md =
      MakeMarkdownReport({lat, plain}, {"r-1.png", "r-2.png", "r-3.png", "r-4.png"});
  const std::size_t map = md.find("### lat: surface map");
  REQUIRE(map != std::string::npos);
  CHECK(map > md.find("### Comparison"));
  CHECK(md.find("(r-4.png)", map) != std::string::npos);
  CHECK(md.find("plain: surface map") == std::string::npos);

  const std::string html = MakeHtmlReport({lat}, {kFakeSvg, kFakeSvg});
  CHECK(XmlProblem(html) == "");
  CHECK(html.find("lat: surface map") != std::string::npos);
  CHECK(html.find("slowest chunk&#39;s latency class (chunk 1 MiB)") != std::string::npos);
}

TEST_CASE("WriteReport draws a run's surface map beside the Markdown report", "[report]") {
  test::TempDir dir;
  WriteReport({WithLatency(MakeRun("lat", {60, 60, 30, 30}))}, (dir.path() / "rep.md").string());
  CHECK(fs::file_size(dir.path() / "rep-2.gp") > 0);
  CHECK(fs::file_size(dir.path() / "rep-2.map.dat") > 0);
  if (GnuplotAvailable()) CHECK(fs::file_size(dir.path() / "rep-2.png") > 0);
  const std::string md = test::ReadFile(dir.path() / "rep.md");
  CHECK(md.find("(rep-2.png)") != std::string::npos);
}

TEST_CASE("A report's extension picks its format; others are refused", "[report]") {
  CHECK(ReportFormatForPath("r.md") == ReportFormat::kMarkdown);
  CHECK(ReportFormatForPath("dir/R.MARKDOWN") == ReportFormat::kMarkdown);
  CHECK(ReportFormatForPath("r.html") == ReportFormat::kHtml);
  CHECK(ReportFormatForPath("/x/r.htm") == ReportFormat::kHtml);
  CHECK_THROWS_AS(ReportFormatForPath("r.pdf"), Error);
  CHECK_THROWS_AS(ReportFormatForPath("report"), Error);
  CHECK(ReportPlotCount(1) == 1);
  CHECK(ReportPlotCount(2) == 3);
  CHECK(ReportPlotCount(5) == 6);
}

TEST_CASE("WriteReport refuses a bad extension or no runs and writes nothing", "[report]") {
  test::TempDir dir;
  const PlotInput run = MakeRun("a", {60, 30});
  CHECK_THROWS_AS(WriteReport({run}, (dir.path() / "r.txt").string()), Error);
  CHECK_THROWS_AS(WriteReport({}, (dir.path() / "r.md").string()), Error);
  fs::create_directory(dir.path() / "d.html");
  CHECK_THROWS_AS(WriteReport({run}, (dir.path() / "d.html").string()), Error);
  CHECK_THROWS_AS(WriteReport({run}, (dir.path() / "missing" / "r.md").string()), Error);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  CHECK(entries == 1);  // just d.html
}

TEST_CASE("WriteReport writes a Markdown report with its plots beside it", "[report]") {
  test::TempDir dir;
  const std::vector<PlotInput> runs = {MakeRun("a", {60, 60, 30, 30}),
                                       MakeRun("b", {35, 35, 35, 35})};
  const ReportFiles files = WriteReport(runs, (dir.path() / "rep.md").string());
  const std::string md = test::ReadFile(dir.path() / "rep.md");
  CHECK(TableRows(md).size() == 2);
  for (int i = 1; i <= 3; ++i) {
    const std::string stem = "rep-" + std::to_string(i);
    CAPTURE(stem);
    CHECK(fs::file_size(dir.path() / (stem + ".gp")) > 0);
    CHECK(md.find("(" + stem + ".png)") != std::string::npos);
    if (GnuplotAvailable()) CHECK(fs::file_size(dir.path() / (stem + ".png")) > 0);
  }
  CHECK_FALSE(fs::exists(dir.path() / "rep-4.gp"));
  CHECK(files.notes.empty() == GnuplotAvailable());
  for (const auto& e : fs::directory_iterator(dir.path())) {
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
  }
}

TEST_CASE("WriteReport writes one self-contained HTML file", "[report]") {
  test::TempDir dir;
  const std::vector<PlotInput> runs = {MakeRun("a & <b>", {60, 60, 30, 30}),
                                       MakeRun("c", {35, 35, 35, 35})};
  WriteReport(runs, (dir.path() / "rep.html").string());
  const std::string html = test::ReadFile(dir.path() / "rep.html");
  CHECK(XmlProblem(html) == "");
  CHECK(html.find("http") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find(" src=") == std::string::npos);
  CHECK(Count(html, "<svg") == (GnuplotAvailable() ? 3u : 0u));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  CHECK(entries == 1);  // nothing beside it
}

TEST_CASE("WriteReport's refusals are bad input; a file it cannot write is a runtime error",
          "[report]") {
  test::TempDir dir;
  const PlotInput run = MakeRun("a", {60, 30});
  const auto bad_input = test::HasKind(ErrorKind::kBadInput);
  CHECK_THROWS_MATCHES(WriteReport({run}, (dir.path() / "r.txt").string()), Error, bad_input);
  CHECK_THROWS_MATCHES(WriteReport({}, (dir.path() / "r.md").string()), Error, bad_input);
  CHECK_THROWS_MATCHES(WriteReport({run}, (dir.path() / "missing" / "r.md").string()), Error,
                       bad_input);
  // A directory where the report's plot script goes is the name's fault.
  fs::create_directory(dir.path() / "r-1.gp");
  CHECK_THROWS_MATCHES(WriteReport({run}, (dir.path() / "r.md").string()), Error, bad_input);
  // A plot script that cannot be written for want of space (/dev/full
  // behind its name) is the system's failure: runtime.
  fs::create_symlink("/dev/full", dir.path() / "s-1.gp");
  CHECK_THROWS_MATCHES(WriteReport({run}, (dir.path() / "s.md").string()), Error,
                       test::HasKind(ErrorKind::kRuntime));
}

}  // namespace
}  // namespace zcav
