// zcav merge FILE...|DIR -o OUT: the drives of a fleet against their siblings.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "../options.h"
#include "commands.h"
#include "zcav/analysis/fleet.h"
#include "zcav/base/error.h"
#include "zcav/io/data_reader.h"
#include "zcav/io/fleet_report.h"
#include "zcav/version.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

struct MergeOptions {
  std::vector<std::string> inputs;  // results files and directories of them
  std::string output;               // -o OUT.html|.md|.json|.csv (required)
  bool quiet = false;               // -q: no notes on stderr. Default: false
};

constexpr const char* kMergeHelp =
    R"(Usage: zcav merge FILE...|DIR... -o OUT.html|OUT.md|OUT.json|OUT.csv [options]

Compares many drives' results (profile.json, sweep JSON, raw or CSV, events
files) and finds the odd drive out: drives are grouped by model and firmware
(else by size), each group of 3 or more gets a reference curve (the median and
the p10-p90 band per 1 % of the surface), and every drive is scored against
it: its overall ratio, the region where it is furthest below, unreadable and
slow regions, health, access time and burst rate. Flagged drives come first,
each with its reasons. A DIR is searched recursively: a directory holding a
profile.json gives that file; elsewhere every .json, .jsonl, .dat and .csv
file that is a zcav or classic zcav result (others are skipped, counted).
Units: MB = 10^6 B; positions in % of the surface.

)";
const CommandSyntax kSyntax{"merge", "input", kMergeHelp};

po::options_description DescribeMerge() {
  po::options_description desc = OptionsWithHelp();
  desc.add_options()("output,o", po::value<std::string>()->value_name("OUT"),
                     "the fleet report (required): .html (one page, plots inline), .md (PNG "
                     "plots beside it), .json or .csv")("quiet,q", "no notes on stderr");
  return desc;
}

MergeOptions ReadMerge(const po::variables_map& vm) {
  MergeOptions out;
  out.inputs = Positionals(vm, "input");
  if (out.inputs.empty()) {
    throw Error("no results given (usage: zcav merge FILE...|DIR -o OUT.html)",
                ErrorKind::kBadInput);
  }
  if (!vm.count("output") || vm["output"].as<std::string>().empty() ||
      vm["output"].as<std::string>() == "-") {
    throw Error("no report file given: add -o OUT.html, OUT.md, OUT.json or OUT.csv",
                ErrorKind::kBadInput);
  }
  out.output = vm["output"].as<std::string>();
  out.quiet = vm.count("quiet") > 0;
  return out;
}

bool LooksLikeResult(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".json" || ext == ".jsonl" || ext == ".dat" || ext == ".csv";
}

// The result files under `dir`, sorted: profile.json where a directory has
// one (and nothing else below it), else the files that may be results.
void FilesUnder(const fs::path& dir, std::vector<std::string>& files) {
  if (fs::is_regular_file(dir / "profile.json")) {
    files.push_back((dir / "profile.json").string());
    return;
  }
  std::vector<fs::path> entries;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  for (const fs::path& p : entries) {
    if (fs::is_directory(p)) {
      FilesUnder(p, files);
    } else if (fs::is_regular_file(p) && LooksLikeResult(p)) {
      files.push_back(p.string());
    }
  }
}

int RunMerge(const MergeOptions& options, const Invocation& inv) {
  FleetFormatForPath(options.output);  // the format is checked before any reading
  std::vector<FleetDrive> drives;
  std::size_t skipped = 0;
  std::string first_skipped;
  for (const std::string& input : options.inputs) {
    if (!fs::is_directory(input)) {
      // A file named on the command line must be a result.
      drives.push_back(FleetDriveFrom(ReadProfile(input)));
      continue;
    }
    std::vector<std::string> files;
    FilesUnder(input, files);
    for (const std::string& file : files) {
      std::error_code ec;
      if (fs::equivalent(file, options.output, ec) ||
          fs::path(file).filename() == "aggregate.json") {
        continue;
      }
      try {
        drives.push_back(FleetDriveFrom(ReadProfile(file)));  // the profile is dropped here
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::kBadInput) throw;
        if (skipped++ == 0) first_skipped = e.what();
      }
    }
  }
  if (drives.empty()) {
    throw Error("no results found in " + options.inputs.front() +
                    (skipped > 0 ? " (" + std::to_string(skipped) + " files skipped, e.g. " +
                                       first_skipped + ")"
                                 : ""),
                ErrorKind::kBadInput);
  }
  NameFleetDrives(drives);
  const FleetAnalysis analysis = AnalyzeFleet(drives);
  const FleetFiles files = WriteFleetReport(drives, analysis, options.output, ZCAV_VERSION);
  for (const std::string& note : files.notes) inv.err << "zcav: warning: " << note << "\n";
  if (!options.quiet) {
    if (skipped > 0) {
      inv.err << "zcav: skipped " << skipped
              << " files that are not results (first: " << first_skipped << ")\n";
    }
    std::size_t flagged = 0;
    for (const FleetScore& s : analysis.scores) flagged += s.flagged ? 1 : 0;
    inv.err << "zcav: " << drives.size() << " drives in " << analysis.groups.size() << " groups, "
            << flagged << " flagged";
    for (const std::size_t d : analysis.order) {
      if (!analysis.scores[d].flagged) break;
      inv.err << "\n  " << drives[d].name << ": " << analysis.scores[d].reasons.front();
    }
    inv.err << "\nzcav: wrote " << files.path << "\n";
  }
  return 0;
}

}  // namespace

int MergeCommand(const Invocation& inv) {
  return ParseThenRun(inv, kSyntax, DescribeMerge, ReadMerge, RunMerge);
}

}  // namespace zcav
