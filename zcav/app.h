// Wiring: turns CliOptions into a device, a plan, sinks and a sweep.
#pragma once

#include <atomic>
#include <iosfwd>

#include "cli.h"

namespace zcav {

// Runs the sweep `options` describes, results to options.output (or `out`
// for "-"), progress/notes/errors to `err`. Returns the exit code: 0 done,
// 1 read error (data so far kept), 130 interrupted (partial data kept).
// Throws Error for bad input (before anything is written).
int RunSweepCommand(const CliOptions& options, std::ostream& out, std::ostream& err,
                    const std::atomic<bool>& stop_requested);

// The sweep of several devices (options.devices) at the same time, one
// thread each, optionally each alone first (zcav/several.cc): one result per
// device and the aggregate into the directory options.output, or each result
// into its classic -l log. Returns 0, 1 after a read error, 130 interrupted.
// Throws Error for bad input (mixed sim and real devices, a device twice,
// an output directory that is a file) before anything is read.
int RunSeveralSweepsCommand(const CliOptions& options, std::ostream& err,
                            const std::atomic<bool>& stop_requested);

// zcav access / zcav burst on options.device; result to options.output (or
// `out`). Returns 0, 1 after a read error (samples kept), 130 when interrupted.
int RunAccessCommand(const CliOptions& options, std::ostream& out, std::ostream& err,
                     const std::atomic<bool>& stop_requested);
int RunBurstCommand(const CliOptions& options, std::ostream& out, std::ostream& err,
                    const std::atomic<bool>& stop_requested);

// zcav profile (zcav/profile.cc): burst rate, access time, a sweep (quick
// when a full one would take over an hour, unless options.profile_mode says),
// zones, verdict, plots and reports into the directory options.output ("-" =
// zcav-profile-NAME), the summary on `err` (unless quiet); `out` stays empty.
// Returns 0, 1 after a read error (everything measured written, marked
// partial), 130 when interrupted (likewise). Throws Error for bad input (bad
// device, a DIR that is a file, ...) before DIR is created or anything read.
int RunProfileCommand(const CliOptions& options, std::ostream& out, std::ostream& err,
                      const std::atomic<bool>& stop);

// Analyses options.files and writes their zone tables to options.output (or
// `out` for "-"). Returns 0. Throws Error for an unreadable or malformed file
// (before anything is written).
int RunZonesCommand(const CliOptions& options, std::ostream& out);

// Draws options.files (see `zcav plot --help`): writes the image named by
// options.output ("-" = derived from the first file), and beside it the
// gnuplot script and data; without gnuplot, the script and data and a
// warning on `err` saying how to render later. Returns 0. Throws Error for a
// missing or malformed file (before anything is written) or a failed render
// (no image left behind).
int RunPlotCommand(const CliOptions& options, std::ostream& err);

// Writes the report of options.files to options.output (.md or .html; see
// report.h), notes (e.g. gnuplot missing) on `err`. Returns 0. Throws Error
// for a bad report name or a missing or malformed file (before anything is
// written) and for a failed render or write (no report left behind).
int RunReportCommand(const CliOptions& options, std::ostream& err);

}  // namespace zcav
