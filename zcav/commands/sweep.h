// zcav sweep: its options (one struct, each field one flag) and the sweep of
// several devices at the same time (several.cc), which it hands over to.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "../options.h"
#include "zcav/device/device.h"
#include "zcav/format/writers.h"
#include "zcav/measure/sweep.h"

namespace zcav {

struct SweepCommandOptions : RunFlags, ZoneFlags, GateFlags, EventsFlags {
  // Every device given, in order (DEVICE..., classic -f); device == devices[0].
  // Several are read at the same time, one thread each; output is then a directory.
  std::string device;
  std::vector<std::string> devices;
  // Several devices in classic form: one -l LOG per -f DEVICE, in order.
  // Empty = results into the directory `output`.
  std::vector<std::string> outputs;
  // --alone-and-together: with several devices, read each alone first, then
  // all together. Default: false
  bool alone_and_together = false;
  // --resume FILE: continue the interrupted sweep whose partial result FILE
  // is (same device and options). Default: none
  std::string resume_file;
  std::string output = "-";                  // -o: result file; "-" = stdout. Default: "-"
  OutputFormat format = OutputFormat::kRaw;  // --format. Default: raw (classic zcav layout)
  SweepOptions sweep;                        // see sweep.h for each field's default
  // --write (sweep.write) or classic -w is refused without --destroy-data.
  bool destroy_data = false;  // --destroy-data: consent to the write test. Default: false
  // --force-in-use (with --write): write a block device even while other
  // processes have it open (otherwise refused). Default: false
  bool force_in_use = false;
  // --write --create-size SIZE FILE, or --fill SHARE DIR|FILE: FILE is
  // created (it must not exist) for the test, SIZE long or SHARE of the file
  // system's free space. Default: none (a regular file is then refused).
  std::optional<NewTestFile> new_file;
  // --discard (with --write on a block device): TRIM it all before the
  // sweep. Default: false
  bool discard = false;
  // --idle-probe DURATION (with --write): after the sweep, idle that long,
  // then probe how much of the write cache came back. Default: none
  std::optional<std::chrono::nanoseconds> idle_probe;
  // --adaptive: sample the range adaptively (measure/adaptive.h: a grid of
  // probes, each level change bisected to one probe) instead of reading it
  // all; --block-size is then the probe's size. Default: false
  bool adaptive = false;
  // --budget with --adaptive: stop refining once this share of the range is
  // read (budget_share, 0..1; "1%") or this much time has passed
  // (budget_time; "10m"). Default: none (every edge to one probe).
  double budget_share = 0;
  std::chrono::nanoseconds budget_time{0};
  // --grid N with --adaptive: probes of the coarse grid. Default: 0 = the
  // default shape's (PlanAdaptive: 200, fewer on small ranges).
  std::uint32_t grid_probes = 0;
  bool quiet = false;               // -q: no progress nor zone table on stderr. Default: false
  bool detect_zones = true;         // --no-zones turns it off. Default: true
  bool smart = false;               // --smart: SMART before and after. Default: false
  bool live = false;                // --live: the curve drawn while measured (live.h)
  std::string plot_dir;             // --plot DIR: data, .gp, PNG and SVG there. Default: none
  std::vector<std::string> labels;  // --label, one per device. Default: device model or name
};

// The sweep of options.devices at the same time, one thread each, optionally
// each alone first (several.cc): one result per device and the aggregate
// into the directory options.output, or each result into its classic -l log.
// Returns 0, 1 after a read error, 130 interrupted, 4 (kExitKeptElsewhere)
// when a result could not be written where asked and was kept elsewhere
// (stdout, `out`, as the last resort). Throws Error for bad input (mixed
// sim and real devices, a device twice, an output directory that is a file)
// before anything is read.
int RunSeveralSweeps(const SweepCommandOptions& options, std::ostream& out, std::ostream& err,
                     const std::atomic<bool>& stop_requested);

}  // namespace zcav
