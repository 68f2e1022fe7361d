// zcav report FILE... -o REPORT.md|REPORT.html: a report of saved results.
#include "zcav/report/report.h"

#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../app_util.h"
#include "../options.h"
#include "commands.h"
#include "zcav/base/error.h"
#include "zcav/report/plot.h"

namespace zcav {
namespace {

struct ReportOptions : ZoneFlags {
  std::vector<std::string> files;  // the saved results, one table row each
  std::vector<std::string>
      labels;          // --label, one per file in order. Default: device model or file name
  std::string output;  // -o REPORT.md|REPORT.html (required)
  bool quiet = false;  // -q: no notes on stderr. Default: false
};

constexpr const char* kReportHelp = R"(Usage: zcav report FILE... -o REPORT.md|REPORT.html [options]

Writes a report of saved results (zcav raw, CSV or JSON; classic zcav logs): a
table with one row per FILE (device, interface, min/max/average MB/s, zones and
curve type, outer/inner ratio, and CPU % or X speed when known), then each FILE's
falloff curve and, for several FILEs, a comparison. Markdown puts the plots
beside the report as PNG files with their gnuplot scripts; HTML is one file with
the plots inline (no scripts, no network), readable on a phone and printable.
Without gnuplot the report is written without images, and zcav says so.
Units: MB = 10^6 B, GB = 10^9 B.

)";
const CommandSyntax kSyntax{"report", "file", kReportHelp};

// --help's options (the zone flags are added by ParseThenRun).
po::options_description DescribeReport() {
  po::options_description desc = OptionsWithHelp();
  desc.add_options()(
      "output,o", po::value<std::string>()->value_name("REPORT.md|REPORT.html"),
      "the report (required): .md = Markdown with the plots as PNG files beside it "
      "(REPORT-N.png and REPORT-N.gp), .html = one self-contained page with inline SVG")(
      "label", po::value<std::vector<std::string>>()->value_name("L"),
      "name of the next FILE in the table and plots, in order (default: device model, "
      "else file name)")("quiet,q", "no notes on stderr");
  return desc;
}

// The options of a parsed command line. Throws Error(kBadInput).
ReportOptions ReadReport(const po::variables_map& vm) {
  ReportOptions out;
  out.files = Positionals(vm, "file");
  if (out.files.empty()) {
    throw Error("no data file given (usage: zcav report FILE... -o REPORT.md|REPORT.html)",
                ErrorKind::kBadInput);
  }
  out.labels = LabelsFor(vm, out.files.size());
  if (!vm.count("output") || vm["output"].as<std::string>().empty() ||
      vm["output"].as<std::string>() == "-") {
    throw Error("no report file given: add -o REPORT.md or -o REPORT.html", ErrorKind::kBadInput);
  }
  out.output = vm["output"].as<std::string>();
  out.quiet = vm.count("quiet") > 0;
  return out;
}

int RunReport(const ReportOptions& options, const Invocation& inv) {
  // The report's format and every file are checked before anything is written.
  ReportFormatForPath(options.output);
  const std::vector<PlotInput> runs = LoadPlotInputs(options.files, options.labels, options);
  const ReportFiles files = WriteReport(runs, options.output);
  for (const std::string& note : files.notes) inv.err << "zcav: warning: " << note << "\n";
  if (!options.quiet) {
    inv.err << "zcav: wrote " << files.report_path;
    if (!files.plot_paths.empty())
      inv.err << " and " << files.plot_paths.size() << " plot files beside it";
    inv.err << "\n";
  }
  return 0;
}

}  // namespace

int ReportCommand(const Invocation& inv) {
  return ParseThenRun(inv, kSyntax, DescribeReport, ReadReport, RunReport);
}

}  // namespace zcav
