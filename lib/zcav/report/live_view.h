// LiveView: the falloff curve drawn while it is measured (zcav --live).
//
// A result sink that keeps each block's rate in every pass, the unreadable
// and slow places, and the progress; a thread of its own redraws the view
// every `every` (1 s): the curve of the latest reads, and the zones detected
// in each block's median over the passes so far (LiveMedianCurve), so
// drawing never waits on the reads (the sink's events only take a mutex
// for a moment). Each frame goes to one gnuplot session started through the
// gnuplot seam (gnuplot.h: no shell, a clean environment, not as root, in a
// private directory of its own):
//   kWindow   - a gnuplot window (terminal x11, qt or wxt: `terminal`),
//               started with -persist, so the last frame stays after the
//               sweep; closing the window does not stop the sweep (gnuplot
//               opens it again at the next frame);
//   kTerminal - gnuplot's text terminal (dumb) sized `columns` x `rows` - 1,
//               written to a file in the session's private directory
//               that gnuplot then marks done, and copied to
//               `out` from the top of the screen with the status line below
//               it ("pass 1/3  41.2 % of pass  123.4 MB/s  ETA 3m07s"), so
//               everything on the terminal comes from this one thread.
// The title says the pass, the position read, the latest rate and the ETA.
// When gnuplot goes away (a closed pipe) drawing stops; the sweep goes on.
// Units: GB = 10^9 B, MB/s = 10^6 B/s.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "zcav/analysis/zone_detector.h"
#include "zcav/base/clock.h"
#include "zcav/format/result_sink.h"
#include "zcav/report/gnuplot.h"

namespace zcav {

// Per pass (from 0), per block: the rates read so far in MB/s, 0 = not read.
using LiveRates = std::vector<std::vector<float>>;

// The curve of the latest reads: each block at its rate in the last pass
// that read it (blocks never read are left out).
Curve LiveLatestCurve(const LiveRates& rates, const SweepPlan& plan);
// Each block at its median over the passes that read it so far, with the
// least and greatest of those reads as its spread: the curve the zones so
// far come from, as the sweep's own zones come from the blocks' medians over
// all passes (one slow pass over a region does not make a zone).
Curve LiveMedianCurve(const LiveRates& rates, const SweepPlan& plan);
// The zones so far, found as the sweep finds its own: DetectZones over the
// median curve, then (with several passes) every step that does not stand
// at the same place in the passes read so far merged away as a change in
// time (step_origin.h), with the passes as their curves (blocks not read
// yet left out).
ZoneAnalysis LiveZones(const LiveRates& rates, const SweepPlan& plan, const ZoneOptions& options,
                       bool optical);

struct LiveViewOptions {
  enum class Mode { kWindow, kTerminal };
  Mode mode = Mode::kTerminal;
  std::string terminal = "x11";  // kWindow: the gnuplot terminal
  int columns = 80;              // kTerminal: the terminal's size in characters
  int rows = 24;
  std::ostream* out = nullptr;  // kTerminal: where frames go (stderr); not owned
  std::chrono::milliseconds every{1000};
  Gnuplot* gnuplot = nullptr;  // who runs gnuplot (not owned). Default: CurrentGnuplot()
  std::string label;           // the device, for the window's title
  ZoneOptions zones;           // how the zones so far are found
  bool optical = false;
};

class LiveView final : public ResultSink {
 public:
  // `clock` (for the ETA: the sweep's steady clock) is not owned and must
  // outlive the view.
  LiveView(LiveViewOptions options, Clock& clock);
  // Stops drawing (the last frame is drawn by OnFinish).
  ~LiveView() override;

  void OnStart(const RunInfo& run) override;
  void OnSample(const Sample& x) override;
  void OnUnreadable(const UnreadableRange& x) override;
  void OnSlowRegion(const SlowRegion& x) override;
  // Draws the last frame and ends the drawing thread.
  void OnFinish(const SweepResult& r) override;

  // Frames sent to gnuplot so far (and, in kTerminal, shown).
  int frames() const;
  LiveViewOptions::Mode mode() const { return options_.mode; }

 private:
  struct State {
    LiveRates rates;                        // per pass, per block
    std::vector<std::uint64_t> unreadable;  // offsets
    std::vector<std::uint64_t> slow;        // offsets
    std::uint32_t pass = 0;
    std::uint64_t bytes_done = 0;  // over all passes
    double last_mb_per_s = 0;
    bool finished = false;
  };
  void Loop();
  void Draw(const State& s);
  // The plot's commands; the data of its '-' files into `data`, in order.
  std::string Commands(const State& s, const std::string& title, std::vector<GnuplotRows>& data);
  std::string StatusLine(const State& s) const;
  void ShowTerminalFrame(const std::string& status);

  LiveViewOptions options_;
  Clock& clock_;
  RunInfo run_;
  std::uint64_t bytes_per_pass_ = 0;
  std::chrono::nanoseconds start_{0};
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  State state_;
  bool stop_ = false;
  int frames_ = 0;
  bool broken_ = false;                      // gnuplot went away
  std::unique_ptr<GnuplotSession> session_;  // the gnuplot process
  std::thread thread_;
};

}  // namespace zcav
