// Reports: a side-by-side table of several runs (one row per run: device,
// interface, min/max/average MB/s, zones, outer/inner ratio and, when any run
// has them, average X speed, CPU %, mean access time (ms), burst rate (MB/s)
// and the bus-or-media verdict, whose reason is listed below the table),
// then, when a run recorded chunk latency classes, a table of them (one row
// per pass, and the total over several passes: the chunks by class, the
// unreadable ones, all chunks and the chunk size), followed by their plots: a
// falloff curve per run, for several runs a comparison overlay, and a surface
// map (PlotKind::kMap) per run with latency data (HasLatencyData).
//
// Two formats: Markdown (a pipe table; the plots as PNG files beside the
// report, each with the .gp script and data that draw it) and one
// self-contained HTML file (well-formed, XHTML-compatible markup; the plots as
// inline SVG; no scripts, no external references; readable on a phone and
// printable).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "zcav/report/plot.h"

namespace zcav {

enum class ReportFormat { kMarkdown, kHtml };

// The format named by `path`'s extension: .md/.markdown = Markdown,
// .html/.htm = HTML (case-insensitive). Throws Error(kBadInput) otherwise.
ReportFormat ReportFormatForPath(const std::string& path);

// One SVG made fit to sit inline in an HTML page (no prolog, namespaces or
// scripts; ids prefixed with `prefix`; a viewBox so CSS can scale it), as the
// HTML report inlines its plots.
std::string InlineSvgForPage(const std::string& svg, const std::string& prefix);
// `text` escaped for HTML text and attribute values (also well-formed XML).
std::string HtmlText(const std::string& text);
// The HTML report's style sheet (readable on a phone, printable).
const char* ReportStyleSheet();

// The figures of one run, as the report's table shows them.
struct RunSummary {
  std::string label;      // PlotInput.label
  std::string device;     // device model, else device path, else the data file; "(path)" appended
  std::string interface;  // "transport, link" (either may be missing); "n/a" when neither is known
  // Over the per-block median rates, MB/s (10^6 B/s); 0 for an empty curve.
  double min_mb_per_s = 0;
  double max_mb_per_s = 0;
  // SavedResult.avg_mb_per_s when the file has it (bytes read / read time), else
  // the same ratio from the curve: sum(length) / sum(length / rate), blocks
  // with a rate of 0 left out.
  double avg_mb_per_s = 0;
  std::size_t zone_count = 0;
  std::string curve_type;             // CurveTypeName(zones.type)
  double outer_inner_ratio = 0;       // ZoneAnalysis.outer_inner_ratio; 0 = unknown
  std::optional<double> avg_x;        // average X speed, optical media only
  std::optional<double> cpu_percent;  // SavedResult.cpu_percent
  // From a zcav profile result (SavedResult's fields of the same names).
  std::optional<double> access_mean_ms;  // mean access time, ms
  std::optional<double> burst_mb_per_s;  // burst rate, MB/s
  std::string verdict;                   // "bus-limited", ...; empty = none recorded
};

// Pure: the figures of `run`.
RunSummary SummarizeRun(const PlotInput& run);

// How many plots a report of `run_count` runs without latency data has: one
// falloff per run, plus one comparison when there are two runs or more.
// Plots are numbered 1..N in that order (falloffs in run order, then the
// comparison).
std::size_t ReportPlotCount(std::size_t run_count);
// The same for `runs`, plus one surface map per run with latency data
// (HasLatencyData), numbered after the comparison in run order.
std::size_t ReportPlotCount(const std::vector<PlotInput>& runs);

// The Markdown text. `image_files` are the PNG file names (relative to the
// report) of the plots, in ReportPlotCount order, or empty for a report
// without plots; each has its script beside it (same stem, .gp). `rendered`
// false: the PNGs were not drawn (gnuplot missing) and the report says how to
// draw them. The table has a header row, a separator row and exactly one row
// per run; no other line before the "## Read latency" section (present only
// when a run recorded latency classes, with its own table) starts with '|'.
// REQUIRES: image_files is empty or has ReportPlotCount(runs) names.
std::string MakeMarkdownReport(const std::vector<PlotInput>& runs,
                               const std::vector<std::string>& image_files, bool rendered = true);

// The HTML text: one document, SVGs inline. `svgs` are the plots' SVG texts
// in ReportPlotCount order, or empty when they could not be drawn (the report
// then says so). Each SVG loses its XML prolog, DOCTYPE, namespace
// declarations and any <script>, and has its ids prefixed so several plots
// can share the page.
// REQUIRES: svgs is empty or has ReportPlotCount(runs) entries.
std::string MakeHtmlReport(const std::vector<PlotInput>& runs,
                           const std::vector<std::string>& svgs);

// What WriteReport wrote.
struct ReportFiles {
  std::string report_path;
  std::vector<std::string> plot_paths;  // Markdown: the scripts, data and images beside it
  // Things the user should know, e.g. that gnuplot is missing and how to
  // render the plots later. One sentence each.
  std::vector<std::string> notes;
};

// Writes the report of `runs` to `path` in the format of its extension (see
// ReportFormatForPath), through a temporary name renamed at the end: the
// report appears complete or not at all. Markdown: the plots are written into
// the report's directory as STEM-N.gp (with their data files) and STEM-N.png
// (rendered when gnuplot is available), STEM = the report's name without its
// extension. HTML: the plots are rendered to SVG in a temporary directory and
// inlined. Without gnuplot the report is still written, with a note.
// Throws Error(kBadInput) for a bad extension, a directory as `path`, a
// parent directory that does not exist or an empty `runs`; Error(kRuntime)
// when writing or gnuplot fails.
ReportFiles WriteReport(const std::vector<PlotInput>& runs, const std::string& path);

}  // namespace zcav
