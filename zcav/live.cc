#include "live.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <string>

#include "zcav/report/gnuplot.h"

namespace zcav {

namespace {

bool HasDisplay() {
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0') return true;
  }
  return false;
}

bool Has(const std::string& terminals, const char* name) {
  return terminals.find(std::string(" ") + name + " ") != std::string::npos ||
         terminals.find(std::string(" ") + name + "\n") != std::string::npos;
}

}  // namespace

std::unique_ptr<LiveView> MakeLiveView(const std::string& label, Clock& clock,
                                       const ZoneOptions& zones, bool optical, std::ostream& err) {
  const std::string terminals = CurrentGnuplot().Terminals();
  if (terminals.empty()) {
    err << "zcav: note: --live ignored: gnuplot is not installed (Debian: gnuplot-x11 or "
           "gnuplot-nox)\n";
    return nullptr;
  }
  LiveViewOptions o;
  o.label = label;
  o.zones = zones;
  o.optical = optical;
  std::string window;
  for (const char* t : {"x11", "qt", "wxt"}) {
    if (Has(terminals, t)) {
      window = t;
      break;
    }
  }
  if (HasDisplay() && !window.empty()) {
    o.mode = LiveViewOptions::Mode::kWindow;
    o.terminal = window;
  } else if (::isatty(STDERR_FILENO) == 1) {
    o.mode = LiveViewOptions::Mode::kTerminal;
    struct winsize size {};
    if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0 && size.ws_row > 0) {
      o.columns = size.ws_col;
      o.rows = size.ws_row;
    }
    o.out = &err;  // frames are drawn in the gnuplot session's private directory
  } else {
    err << "zcav: note: --live ignored: there is no display (DISPLAY) and stderr is not a "
           "terminal\n";
    return nullptr;
  }
  // gnuplot going away (a closed window's gnuplot, a killed one) must not
  // end the sweep: a write to its pipe then fails instead.
  ::signal(SIGPIPE, SIG_IGN);
  return std::make_unique<LiveView>(std::move(o), clock);
}

bool DrawsInTerminal(const LiveView* view) {
  return view != nullptr && view->mode() == LiveViewOptions::Mode::kTerminal;
}

}  // namespace zcav
