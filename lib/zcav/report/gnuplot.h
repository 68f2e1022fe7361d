// Gnuplot: the one place zcav starts gnuplot, and the one way text reaches
// a gnuplot script.
//
// Every gnuplot process (a plot's render, the capability probe, the live
// window or terminal) is started through a Gnuplot. The real one
// (SystemGnuplot) runs `gnuplot -d` (no init files: no ~/.gnuplot) by
// fork/exec, no shell, found in /usr/local/bin, /usr/bin or /bin, with a
// clean environment (PATH=/usr/local/bin:/usr/bin:/bin; no HOME, no GNUPLOT_*
// or other variables; LANG/LC_ALL/LC_CTYPE of plain values kept, and for a
// window DISPLAY, WAYLAND_DISPLAY, XAUTHORITY and XDG_RUNTIME_DIR), in its
// own process group, in a private directory made by mkdtemp under
// TMPDIR (else /tmp) that holds copies of the script and its data. When zcav
// runs as root (euid 0), gnuplot does not: the child drops to
// SUDO_UID/SUDO_GID when both are set to plain non-zero numbers, else to
// 65534 (nobody), and the private directory is its own for the run; zcav
// takes the drawn images back afterwards (regular files only, never through
// a symlink) and writes them into place itself. A SIGINT, SIGTERM or SIGHUP
// of zcav while a render runs stops gnuplot (its whole process group) and
// removes the private directory (the render then throws; a handler zcav has
// for the signal still sees it); a killed zcav takes its gnuplot with it
// (PR_SET_PDEATHSIG).
//
// Text in a script is data: GpQuote and GpComment are the only ways a
// string (a title, label, key, device model, file name) is written into one,
// and every file name a script names is zcav's own (IsSafeFileName: made of
// [A-Za-z0-9._-], not starting with '-', not only dots), so gnuplot never
// sees a name it would run as a pipe ('<cmd', '|cmd').
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zcav {

// `text` as a gnuplot single-quoted string (where gnuplot expands nothing:
// no backslash escapes, no `command` or @macro): a quote is doubled, a tab,
// newline, vertical tab, form feed or carriage return becomes a space, and
// every other control character (bytes below 0x20, and 0x7f) is removed.
std::string GpQuote(std::string_view text);

// `text` for a '#' comment line of a script or data file: control
// characters as in GpQuote (so it never holds a newline), and no trailing
// backslash (which would continue the comment onto the next line).
std::string GpComment(std::string_view text);

// True when `name` can be written into a script as a file name: one or more
// of [A-Za-z0-9._-], not starting with '-', not made only of dots, at most
// 255 bytes.
bool IsSafeFileName(std::string_view name);

// `text` (a stem taken from a file name the user or a result gave) made
// IsSafeFileName: every byte outside [A-Za-z0-9._-] becomes '_', a leading
// '-' too; empty or only dots gives "_"; cut to 200 bytes (room for the
// suffixes zcav adds). A name already of that alphabet is kept as it is.
std::string SafeFileName(std::string_view text);

// Inline data for a plot's '-' files: one block of (x, y) rows.
using GnuplotRows = std::vector<std::pair<double, double>>;

// A running gnuplot that reads commands (the live view), fed through
// gnuplot-iostream while the data arrives. Destroying it ends
// gnuplot: its input is closed, it gets up to 2 s to exit (a -persist window
// stays open), then it is killed; its private directory is removed.
class GnuplotSession {
 public:
  virtual ~GnuplotSession() = default;
  // Sends `commands` to gnuplot's input, then each block of `data` (its
  // rows, then "e": the data of the commands' '-' files, in order). False
  // when gnuplot has gone (the pipe is closed): nothing more can be drawn.
  // Never raises SIGPIPE.
  virtual bool Send(std::string_view commands, const std::vector<GnuplotRows>& data) = 0;
  // The file `name` (IsSafeFileName) gnuplot wrote in its private directory
  // (its working directory): its text, at most 4 MiB; nullopt when it does
  // not exist or is not a regular file (a symlink is not followed).
  virtual std::optional<std::string> ReadFile(const std::string& name) = 0;
  // Removes the file `name` from the private directory, if there.
  virtual void RemoveFile(const std::string& name) = 0;
};

class Gnuplot {
 public:
  virtual ~Gnuplot() = default;

  // GPVAL_TERMINALS of the gnuplot this runs (" x11 svg pngcairo ... "), ""
  // when there is none or it fails. The real one asks once per process.
  // Throws Error(kInterrupted) when SIGINT, SIGTERM or SIGHUP stopped the asking.
  virtual std::string Terminals() = 0;

  // Runs `gnuplot -d SCRIPT` on copies of dir/script and of dir/each of
  // `inputs` (names: IsSafeFileName) and returns the contents of each of
  // `outputs` (names the script draws, IsSafeFileName), in order; writes
  // nothing outside its private directory. Throws Error(kRuntime) when
  // gnuplot is missing, fails (the message ends with its last line of
  // output), draws no output named, or a file cannot be copied;
  // Error(kInterrupted) when a signal stopped it (see the top);
  // Error(kBadInput) for a name that is not IsSafeFileName.
  virtual std::vector<std::string> Render(const std::string& dir, const std::string& script,
                                          const std::vector<std::string>& inputs,
                                          const std::vector<std::string>& outputs) = 0;

  // Starts gnuplot reading commands from a pipe: `persist` adds -persist (a
  // window that stays when gnuplot exits), `window` passes the display's
  // variables. Its output goes nowhere. nullptr when it cannot be started.
  virtual std::unique_ptr<GnuplotSession> Start(bool window, bool persist) = 0;
};

// True when Terminals() of `gnuplot` has both pngcairo and svg.
bool CanDrawImages(Gnuplot& gnuplot);

// The real gnuplot (see the top), one per process.
Gnuplot& SystemGnuplot();

// The Gnuplot every plot, report and live view uses: SystemGnuplot() unless
// a ScopedGnuplot replaces it.
Gnuplot& CurrentGnuplot();

// For tests: makes `fake` CurrentGnuplot() for this object's lifetime (not
// thread-safe; nest them in order).
class ScopedGnuplot {
 public:
  explicit ScopedGnuplot(Gnuplot& fake);
  ScopedGnuplot(const ScopedGnuplot&) = delete;
  ScopedGnuplot& operator=(const ScopedGnuplot&) = delete;
  ~ScopedGnuplot();

 private:
  Gnuplot* previous_;
};

}  // namespace zcav
