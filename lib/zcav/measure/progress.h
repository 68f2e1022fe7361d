// Progress: a sink that tells a person how far the sweep is.
//
// On a TTY: one line rewritten in place ('\r') at most every 0.2 s:
// "pass 1/2  12.3 GB / 250.1 GB (4.9%)  61.2 MB/s  ETA 1h02m". Elsewhere: a
// plain line every 10 s (of clock time) and at each pass end. Writes only to
// the stream it is given (stderr in the CLI).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>
#include <vector>

#include "zcav/base/clock.h"
#include "zcav/measure/adaptive.h"
#include "zcav/measure/sample_sink.h"

namespace zcav {

class ProgressSink final : public SampleSink {
 public:
  // `out` and `clock` are not owned and must outlive the sink.
  ProgressSink(std::ostream& out, Clock& clock, bool tty);
  void OnStart(const RunInfo& run) override;
  void OnSample(const Sample& sample) override;
  void OnPassDone(const PassSummary& pass) override;
  void OnFinish(const SweepResult& result) override;

 private:
  void Print(bool final_line);

  std::ostream& out_;
  Clock& clock_;
  bool tty_;
  const RunInfo* run_ = nullptr;
  std::uint64_t bytes_per_pass_ = 0;
  std::uint64_t bytes_done_ = 0;  // over all passes
  std::uint32_t pass_ = 0;
  double last_mb_per_s_ = 0;
  std::chrono::nanoseconds start_{0};
  std::chrono::nanoseconds last_print_{0};
  bool printed_ = false;
};

// An adaptive run's progress (AdaptiveOptions::progress) on `out`: what it
// is doing (the grid, or refining edge k of n) and how much of the
// range_bytes it has read; on a terminal (`tty`) redrawn in place (at most
// every 0.2 s), else one line when each phase begins. `out` must outlive
// the function.
std::function<void(const AdaptiveProgress&)> AdaptiveProgressLine(std::ostream& out, bool tty,
                                                                  std::uint64_t range_bytes);

// The progress of several sweeps on one line: each device's share done and
// the total rate since the previous line. Called from the sweeps' threads.
// On a TTY (`tty`) the line is rewritten at most every 0.5 s; elsewhere a
// plain line every 10 s (steady clock). `err` must outlive it.
class SeveralProgress {
 public:
  SeveralProgress(std::ostream& err, std::vector<std::string> names, bool tty);

  // Lane `lane` reads `bytes` in all.
  void Total(std::size_t lane, std::uint64_t bytes);
  // Lane `lane` read `bytes` more; prints the line when it is due.
  void Add(std::size_t lane, std::uint64_t bytes);
  // Ends a rewritten line.
  void Finish();

 private:
  std::ostream& err_;
  std::vector<std::string> names_;
  std::vector<std::uint64_t> done_, total_;
  bool tty_;
  SteadyClock clock_;
  std::mutex mutex_;
  std::chrono::nanoseconds last_{0};
  std::uint64_t bytes_since_ = 0;
  bool printed_ = false;
};

// One lane's events into the shared progress line. `shared` is not owned.
class LaneProgressSink final : public SampleSink {
 public:
  LaneProgressSink(SeveralProgress& shared, std::size_t lane) : shared_(shared), lane_(lane) {}
  void OnStart(const RunInfo& run) override;
  void OnSample(const Sample& s) override { shared_.Add(lane_, s.length_bytes); }

 private:
  SeveralProgress& shared_;
  std::size_t lane_;
};

}  // namespace zcav
