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

// Analyses options.files and writes their zone tables to options.output (or
// `out` for "-"). Returns 0. Throws Error for an unreadable or malformed file
// (before anything is written).
int RunZonesCommand(const CliOptions& options, std::ostream& out);

}  // namespace zcav
