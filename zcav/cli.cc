#include "cli.h"

#include "commands/commands.h"
#include "zcav/base/error.h"

namespace zcav {
namespace {

constexpr const char* kHead = R"(zcav: profile how fast a storage device reads at every position.

Usage:
)";

constexpr const char* kTail = R"(  zcav --help | --version
  zcav [classic zcav flags] DEVICE   the classic zcav command line (same as zcav sweep)

DEVICE is a block device (/dev/sdb, /dev/nvme0n1, /dev/sr0, /dev/loop0), a regular
file, or a simulated device: sim:hdd, sim:usb2-hdd, sim:cd, sim:dvd, sim:ssd,
sim:nvme-throttle, sim:ssd-dips, sim:banded-hdd (optionally
sim:hdd?size=2T&seed=7&noise=0.5%).

Run 'zcav COMMAND --help' (profile, sweep, access, burst, verify, zones, plot, report,
merge)
for its options. The manual: man zcav.
Units: MB = 10^6 B, MiB = 2^20 B; sizes accept 4k, 64M, 1G, 1.5T (binary) and 500MB (decimal).
)";

}  // namespace

const std::vector<CommandRow>& Commands() {
  static const std::vector<CommandRow> rows = {
      {"profile",
       "  zcav profile [DEVICE] [-o DIR]  start here: burst rate, access time, a sweep (quick "
       "when\n"
       "                                a full one would take over an hour; --full), zones, the\n"
       "                                bus-or-media verdict, plots and reports into one "
       "directory\n"
       "                                (default zcav-profile-NAME); DEVICE defaults to sim:hdd\n",
       true, ProfileCommand},
      {"sweep",
       "  zcav sweep DEVICE [options]   read DEVICE from start to end, write MB/s per position\n",
       true, SweepCommand},
      {"access", "  zcav access DEVICE [options] average access time (random small reads)\n", true,
       AccessCommand},
      {"burst",
       "  zcav burst DEVICE [options]   burst rate (the drive cache's, i.e. the interface's "
       "rate)\n",
       true, BurstCommand},
      {"verify",
       "  zcav verify DEVICE --destroy-data  is a stick, card or SSD what it claims? writes\n"
       "                                every position, reads it back and compares: genuine,\n"
       "                                fake capacity (the real size), data loss; DESTROYS DATA\n",
       true, VerifyCommand},
      {"zones",
       "  zcav zones FILE... [options]  find the zones (plateaus) in saved results: zcav's raw,\n"
       "                                CSV or JSON, and classic zcav logs (bonnie++ 1.03, 1.9x, "
       "2.00)\n",
       false, ZonesCommand},
      {"plot",
       "  zcav plot FILE... [-o OUT.png|OUT.svg]  draw saved results with gnuplot: the falloff\n"
       "                                curve of one file, a comparison of several; writes the\n"
       "                                editable .gp script and its data beside the image\n",
       false, PlotCommand},
      {"report",
       "  zcav report FILE... -o REPORT.md|REPORT.html  a table of the runs (min/max/avg MB/s,\n"
       "                                zones, ...) and their plots, as Markdown with PNGs beside\n"
       "                                it or as one self-contained HTML file\n",
       false, ReportCommand},
      {"merge",
       "  zcav merge FILE...|DIR -o OUT.html|.md|.json|.csv  many drives' results against their\n"
       "                                siblings: groups by model, a reference curve per group,\n"
       "                                the drives slower than their siblings flagged, and where\n",
       false, MergeCommand},
  };
  return rows;
}

std::string TopHelp() {
  std::string text = kHead;
  for (const CommandRow& row : Commands()) text += row.help;
  return text + kTail;
}

CommandChoice ChooseCommand(const std::vector<std::string>& args) {
  CommandChoice choice;
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") return choice;
  if (args[0] == "--version" || args[0] == "-V") {
    choice.kind = CommandChoice::Kind::kVersion;
    return choice;
  }
  choice.kind = CommandChoice::Kind::kCommand;
  for (const CommandRow& row : Commands()) {
    if (args[0] == row.name) {
      choice.row = &row;
      choice.args.assign(args.begin() + 1, args.end());
      return choice;
    }
  }
  if (args[0].rfind("--", 0) == 0 && args[0] != "--") {
    // A long option before any command: modern options belong to a command.
    throw Error(
        "unknown option '" + args[0] +
            "' (commands: profile, sweep, access, burst, verify, zones, plot, report, merge; see "
            "'zcav --help')",
        ErrorKind::kBadInput);
  }
  // Anything else is the classic zcav command line: flags and a file name.
  for (const CommandRow& row : Commands()) {
    if (std::string(row.name) == "sweep") choice.row = &row;
  }
  choice.args = args;
  return choice;
}

}  // namespace zcav
