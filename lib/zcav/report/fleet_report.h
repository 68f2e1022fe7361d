// The outputs of `zcav merge` (analysis/fleet.h): the fleet table, one row
// per drive worst first, and each group's overlay plot, as
//   .json  {"format":"zcav-merge","schema_version":..,"groups":[..],
//           "drives":[{"source","name","group","flagged","reasons":[..],
//           "ratio","worst_region",..}]} (schema/merge.schema.json);
//   .csv   one line per drive, worst first, with a header line;
//   .md    Markdown: the table, and per group OUT-N.png with OUT-N.gp and
//          its data beside it (without gnuplot: the table only, with a note);
//   .html  one self-contained page: the table and the plots as inline SVG.
// The group plot draws the group's median and its p10-p90 band by % of the
// surface, and every flagged drive's curve in a colour of its own, named.
// Rates in MB/s (10^6 B/s).
#pragma once

#include <string>
#include <vector>

#include "zcav/analysis/fleet.h"
#include "zcav/format/data_reader.h"
#include "zcav/report/plot.h"

namespace zcav {

// A drive's figures from a saved result: identity, the curve as bins over
// the device's size, ranges, health, access and burst; named by its serial,
// else its device, else the file.
FleetDrive FleetDriveFrom(const SavedResult& profile);
// Names the drives for the tables: the serial, else the device, else the
// file, after HOST/ when the drives come from more than one host.
void NameFleetDrives(std::vector<FleetDrive>& drives);

enum class FleetFormat { kJson, kCsv, kMarkdown, kHtml };
// By the extension (.json, .csv, .md, .html). Throws Error(kBadInput) for
// another one, naming the choices.
FleetFormat FleetFormatForPath(const std::string& path);

std::string FleetJson(const std::vector<FleetDrive>& drives, const FleetAnalysis& analysis,
                      const std::string& version);
std::string FleetCsv(const std::vector<FleetDrive>& drives, const FleetAnalysis& analysis);

// Writes group `group`'s overlay plot into `dir`: NAME.gp, NAME.band.dat
// (percent, median, p10, p90; a blank line where no drive has data) and
// NAME.flagged.dat (one block per flagged drive: percent, MB/s), drawing
// `image` (.png or .svg, relative to dir). Throws Error(kRuntime) when a
// file cannot be written.
PlotFiles WriteFleetPlot(const std::vector<FleetDrive>& drives, const FleetAnalysis& analysis,
                         std::size_t group, const std::string& dir, const std::string& name,
                         const std::string& image);

struct FleetFiles {
  std::string path;                     // the table written
  std::vector<std::string> plot_paths;  // images, scripts and data beside it (Markdown)
  std::vector<std::string> notes;       // e.g. plots left out without gnuplot
};

// Writes the fleet report to `path` in the format its extension names
// (atomically; the Markdown plots beside it). Throws Error(kBadInput) for an
// unknown extension, Error(kRuntime) when writing or gnuplot fails.
FleetFiles WriteFleetReport(const std::vector<FleetDrive>& drives, const FleetAnalysis& analysis,
                            const std::string& path, const std::string& version);

}  // namespace zcav
