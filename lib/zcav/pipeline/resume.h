// Resume: continuing an interrupted sweep from its partial result instead of
// starting a 20-hour sweep over.
//
// zcav's raw and JSON outputs record the sweep's plan ("# options:" /
// "options") and, for multi-pass sweeps, every timed sample ("# sample:" /
// "samples"); a one-pass sweep's blocks are its samples. PrepareResume checks
// that a partial result belongs to the sweep about to run and says where to
// go on; RunSweep(..., &point) then replays the samples to its sinks and
// reads only what is left.
#pragma once

#include "zcav/device/device_info.h"
#include "zcav/format/data_reader.h"
#include "zcav/measure/resume_point.h"
#include "zcav/measure/sweep.h"

namespace zcav {

// Checks that `partial` (a zcav raw or JSON result read with ReadProfile)
// was made by the same sweep as `plan` on `device`: same device size, range,
// block and chunk size, passes, skip and quick mode. Throws Error(kBadInput)
// naming the first mismatch (with both values), a result that is complete
// ("nothing to resume"), or a file without a recorded plan (CSV, classic
// logs). The samples are one-pass blocks (rates printed to 10^-3 MB/s in the
// raw format: a resumed block's rate matches to that precision) or the
// recorded samples of a multi-pass sweep (exact).
ResumePoint PrepareResume(const SavedResult& partial, const SweepPlan& plan,
                          const DeviceInfo& device);

}  // namespace zcav
