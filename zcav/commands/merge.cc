// zcav merge FILE...|DIR -o OUT: the drives of a fleet against their siblings.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "../options.h"
#include "commands.h"
#include "zcav/analysis/fleet.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/format/data_reader.h"
#include "zcav/report/fleet_report.h"
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
file that is a zcav or classic zcav result (others are skipped, counted);
symlinks to directories are not followed and unreadable entries are skipped
(a note). Each input may be at most 256 MiB. Several results of one drive
(the same WWN, else serial): the newest by its recorded start is kept, with
a warning.
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

// Directories deeper than this under a DIR given are not searched (a
// staging tree is HOST/DRIVE/; nothing needs 64 levels).
constexpr int kMaxMergeDepth = 64;

// What a directory walk found: the result files, sorted, and the entries it
// did not follow or could not read (each with why), counted as skipped.
struct Walk {
  std::vector<std::string> files;
  std::vector<std::string> skipped;
};

// The result files under `dir`: profile.json where a directory has one (and
// nothing else below it), else the files that may be results. Symlinks to
// directories are not followed (a result tree from elsewhere may point
// anywhere, itself included); a link to a file is read as the file; an
// entry that cannot be read (a loop, no permission) is skipped.
void FilesUnder(const fs::path& dir, int depth, Walk& walk) {
  std::error_code ec;
  if (fs::is_regular_file(dir / "profile.json", ec)) {
    walk.files.push_back((dir / "profile.json").string());
    return;
  }
  std::vector<fs::path> entries;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) entries.push_back(it->path());
  if (ec) {
    walk.skipped.push_back(dir.string() + ": " + ec.message());
    return;
  }
  std::sort(entries.begin(), entries.end());
  for (const fs::path& p : entries) {
    const fs::file_status link = fs::symlink_status(p, ec);
    const fs::file_status target = fs::status(p, ec);
    if (ec) {
      walk.skipped.push_back(p.string() + ": " + ec.message());  // a loop, a dangling link
    } else if (fs::is_directory(target) && fs::is_symlink(link)) {
      walk.skipped.push_back(p.string() + ": a symlink to a directory, not followed");
    } else if (fs::is_directory(target)) {
      if (depth >= kMaxMergeDepth) {
        walk.skipped.push_back(p.string() + ": deeper than " + std::to_string(kMaxMergeDepth) +
                               " directories, not searched");
      } else {
        FilesUnder(p, depth + 1, walk);
      }
    } else if (fs::is_regular_file(target) && LooksLikeResult(p)) {
      walk.files.push_back(p.string());
    }
  }
}

int RunMerge(const MergeOptions& options, const Invocation& inv) {
  FleetFormatForPath(options.output);  // the format is checked before any reading
  std::vector<FleetDrive> drives;
  std::size_t skipped = 0;
  std::string first_skipped;
  std::vector<std::string> not_walked;
  for (const std::string& input : options.inputs) {
    if (!fs::is_directory(input)) {
      // A file named on the command line must be a result.
      drives.push_back(FleetDriveFrom(ReadProfile(input, kMaxMergeInputBytes)));
      continue;
    }
    Walk walk;
    FilesUnder(input, 0, walk);
    not_walked.insert(not_walked.end(), walk.skipped.begin(), walk.skipped.end());
    for (const std::string& file : walk.files) {
      std::error_code ec;
      if (fs::equivalent(file, options.output, ec) ||
          fs::path(file).filename() == "aggregate.json") {
        continue;
      }
      try {
        // The profile is dropped here.
        drives.push_back(FleetDriveFrom(ReadProfile(file, kMaxMergeInputBytes)));
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
  const std::vector<std::string> duplicates = KeepNewestPerDrive(drives);
  NameFleetDrives(drives);
  const FleetAnalysis analysis = AnalyzeFleet(drives);
  const FleetFiles files = WriteFleetReport(drives, analysis, options.output, ZCAV_VERSION);
  // Names and messages below come from the inputs: TerminalText.
  for (const std::string& d : duplicates) inv.err << "zcav: warning: " << TerminalText(d) << "\n";
  for (const std::string& note : files.notes) inv.err << "zcav: warning: " << note << "\n";
  if (!options.quiet) {
    if (!not_walked.empty()) {
      inv.err << "zcav: note: skipped " << not_walked.size()
              << " entries not followed or not readable (first: " << TerminalText(not_walked[0])
              << ")\n";
    }
    if (skipped > 0) {
      inv.err << "zcav: skipped " << skipped
              << " files that are not results (first: " << TerminalText(first_skipped) << ")\n";
    }
    std::size_t flagged = 0;
    for (const FleetScore& s : analysis.scores) flagged += s.flagged ? 1 : 0;
    inv.err << "zcav: " << drives.size() << " drives in " << analysis.groups.size() << " groups, "
            << flagged << " flagged";
    for (const std::size_t d : analysis.order) {
      if (!analysis.scores[d].flagged) break;
      inv.err << "\n  " << TerminalText(drives[d].name) << ": "
              << analysis.scores[d].reasons.front();
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
