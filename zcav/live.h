// --live (zcav sweep, zcav profile): which live view, if any, this run can
// show (report/live_view.h), decided from where zcav runs:
//   a display (DISPLAY or WAYLAND_DISPLAY) and a gnuplot with a window
//   terminal (x11, else qt, else wxt: x11 needs no toolkit and draws
//   fastest): a gnuplot window, the progress line stays on stderr;
//   else stderr on a terminal: the chart in the terminal, sized to it, the
//   progress line below it (the view draws both);
//   else (a pipe, a file, a CI log) nothing, with one note on stderr.
// Private to the zcav executable.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "zcav/analysis/zone_detector.h"
#include "zcav/base/clock.h"
#include "zcav/report/live_view.h"

namespace zcav {

// The live view for a run of `label` (the device), or nullptr after a note
// on `err` saying why there is none. `clock` is the sweep's steady clock;
// it must outlive the view. A view that draws in the terminal writes to
// `err`; then the caller adds no progress line of its own.
std::unique_ptr<LiveView> MakeLiveView(const std::string& label, Clock& clock,
                                       const ZoneOptions& zones, bool optical, std::ostream& err);

// True when `view` draws in the terminal (it owns the progress line).
bool DrawsInTerminal(const LiveView* view);

}  // namespace zcav
