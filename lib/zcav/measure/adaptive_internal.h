// The adaptive sampler's parts (measure/adaptive.h is the public API;
// internal to lib/zcav/measure/adaptive*.cc): the thresholds several of
// them share, a probe's reads and its drift, and one sampling's steps.
//  - ProbeReader (adaptive_probe.cc): the probe I/O, timing and bounds;
//  - DriftReference (adaptive_drift.cc): the reference probe read again and
//    again, to tell the host's drift from the device's;
//  - ProbeBook (adaptive_probes.cc): the probes known so far, their reads
//    and rates;
//  - Sampler (adaptive_sampler.cc): a probe read, the reference read first
//    when due, and booked at the drift the reference shows;
//  - AdaptiveRun: one sampling's named steps, the grid's in
//    adaptive_grid.cc, the edges' (bisection, Settle, zones) in
//    adaptive_edges.cc; SampleAdaptively (adaptive.cc) runs them in order.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "zcav/base/clock.h"
#include "zcav/device/device.h"
#include "zcav/measure/adaptive.h"

namespace zcav::adaptive {

// A grid probe off both its neighbours the same way by more than this many
// noise sigmas (in log) each is read again; so is a probe whose reads
// differ by more.
inline constexpr double kSpikeSigmas = 3;

// A change of the device's speed (the bisection's moves made on reads from
// its time undone, where the drift decides their side) is one of more than
// this (in log) between two reads of the reference.
inline constexpr double kMinChange = 0.02;

// One timed read: its rate and when it was made (the middle of its time).
struct Timed {
  double mb_per_s = 0;
  std::chrono::nanoseconds at{0};
  std::uint64_t seq = 0;  // probe reads before it (its own included)
  // Read while the device's speed changed (between two reads of the
  // reference that disagree): left out where its probe has other reads.
  // Its drift was the reference's before the change (its rate then:
  // `before`) or after it, or somewhere between, until Resolve picks one.
  bool suspect = false;
  double before = 0, after = 0;
  std::optional<double> resolved{};  // the reference's rate it was read at
};

// A change of the device's speed, seen by the reference (its read off the
// one before, by kMinChange and kSpikeSigmas of its noise, and the read
// right after agreeing): the probe reads after `after_seq` were made at
// an unknown drift between `before` and `after`, and are suspect.
struct Change {
  std::uint64_t after_seq = 0;
  double before = 1, after = 1;
};

// The same change as the reference read it: the probe reads after
// `after_seq` were made between its rates `before_mb_per_s` and
// `after_mb_per_s` (ProbeBook::MarkSuspect).
struct SuspectReads {
  std::uint64_t after_seq = 0;
  double before_mb_per_s = 0, after_mb_per_s = 0;
};

// The probes' I/O: slot k's probe is the probe bytes at start + k * probe,
// read in chunks through the device's read queue; the untimed reads
// around them; and the bounds every read is under (a failed read or a stop,
// the byte and time budgets, the share of re-reads). Every byte read is
// counted in the result's bytes_read; failures are recorded there.
class ProbeReader {
 public:
  // Opens the device's read queue (options.queue_depth, at least 1, of
  // `chunk` bytes) and sets result.engine; the time budget runs from now.
  // Keeps references to all but `device`; they must outlive the reader.
  ProbeReader(Device& device, Clock& clock, const AdaptiveOptions& options,
              const std::atomic<bool>* stop, AdaptiveResult& result, std::uint64_t start,
              std::uint64_t probe, std::uint64_t chunk);

  // False once the sampling must end: a read failed, or a stop was asked.
  bool Going();
  // Whether the options' byte or time budget is spent.
  bool OverBudget() const;
  // Whether a probe already read may be read again (the options'
  // max_reread_share); once not, the result says so.
  bool MayReadAgain();

  // Slot k read once more, or nullopt when a read failed (recorded as
  // unreadable where `record` says so).
  std::optional<Timed> ReadOnce(std::uint64_t k, bool record = true);
  // One untimed chunk at the far end of the range from slot k (the first
  // or the last slot): read between two probes near each other, so that
  // the second is not served from the read-ahead of the first.
  void Divert(std::uint64_t k, std::uint64_t slots);
  // Slot k's probe read untimed, its rate not kept: the device (and the
  // engine's workers) woken before the first timed probe.
  void WarmUp(std::uint64_t k);

  // Where slot k's probe begins, and every probe's length (bytes).
  std::uint64_t OffsetOf(std::uint64_t k) const { return start_ + k * probe_; }
  std::uint64_t probe_bytes() const { return probe_; }

  // The options' progress callback told what is being done.
  void Report(AdaptiveProgress::Phase phase, std::size_t done, std::size_t total) const;

 private:
  // [from, to) through the queue, up to its depth in flight; the first
  // error (its offset in error_offset_bytes), or none.
  std::error_code Read(std::uint64_t from, std::uint64_t to);

  Clock& clock_;
  const AdaptiveOptions& options_;
  const std::atomic<bool>* stop_;
  AdaptiveResult& result_;
  std::unique_ptr<ReadQueue> queue_;
  std::vector<ReadQueue::Completion> completions_;
  // Read()'s: each queue slot's offset, and the slots free.
  std::vector<std::uint64_t> at_;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t start_, probe_, chunk_;
  std::chrono::nanoseconds began_ = clock_.Now();
};

// The drift reference: one probe (Options::reference_every) read again and
// again through `reader`, to tell the host's drift from the device's. The
// device's drift at a moment is the rate of the reference probe then
// (interpolated in log between its reads either side in time, a stalled
// read left out) over its usual rate (adaptive_drift.cc, kDriftSigmas).
// Counts its reads in the result (reference_reads; a read again at once in
// reread_bytes too). Keeps references to its arguments.
class DriftReference {
 public:
  DriftReference(ProbeReader& reader, const AdaptiveOptions& options, AdaptiveResult& result);

  // Slot k is the reference probe from now on (Options::reference_every):
  // read before the next probe, then every reference_every probe reads.
  void SetReference(std::uint64_t k);
  // Whether the reference is read before the next probe read (ReadDue).
  bool Due() const { return reference_ && since_reference_ >= options_.reference_every; }
  // One more probe read since the reference's last read.
  void CountProbeRead() { ++since_reference_; }
  // The reference read when due, `seq` probe reads made so far: the first
  // read twice, one after the other (a stall slows one of them, a slow
  // period both); a read off the one before read again at once: agreeing
  // with it, the device's speed changed since the one before (TakeChange
  // says so), and the probe reads in between, returned, are suspect; else
  // it was a stall.
  std::optional<SuspectReads> ReadDue(std::uint64_t seq);
  // The reference read now, when any probe was read since its last read
  // (`seq` probe reads made so far): the drift of the last probes then
  // follows from the reads either side of them in time (Sampler::Redrift).
  void Close(std::uint64_t seq);
  // The change seen since the last call, if any.
  std::optional<Change> TakeChange() { return std::exchange(change_, std::nullopt); }

  // The device's drift at time `at` (kDriftSigmas): a read's rate over its
  // rate at the reference's usual speed.
  double Drift(std::chrono::nanoseconds at) const;
  // The drift when the reference reads at `mb_per_s` (kDriftSigmas).
  double DriftOf(double mb_per_s) const { return DriftOfLog(std::log(mb_per_s)); }

  // The reference's speed that drifts are measured from fixed at the
  // median of its reads so far, once there are enough of them and unless
  // it is fixed already.
  void FixFrame();
  // That speed no longer fixed (until FixFrame): its log until now.
  double ReleaseFrame();
  // The factor every drift-divided rate was multiplied by since the frame
  // was `before_log` (ReleaseFrame): 1 when no frame is fixed.
  double FrameFactor(double before_log) const {
    return frame_log_ ? std::exp(*frame_log_ - before_log) : 1.0;
  }

 private:
  // The reference probe read once more (an unreadable one ends the
  // references: the probes keep the drift found so far).
  void ReadReference(std::uint64_t seq);
  double DriftOfLog(double reference_log) const;

  ProbeReader& reader_;
  const AdaptiveOptions& options_;
  AdaptiveResult& result_;
  std::optional<std::uint64_t> reference_;  // the reference probe's slot
  std::uint32_t since_reference_ = 0;       // probe reads since its last read
  std::vector<Timed> references_;           // its reads, in time order
  // Which of them give the drift: those that agree (within kSpikeSigmas of
  // its noise) with a neighbour in time, not one off both (a stall, or the
  // burst of reads that had waited behind one; the first is read twice, the
  // one off the one before is read again at once). The newest is kept (see
  // newest_unsure_).
  std::vector<bool> kept_;
  bool newest_unsure_ = false;
  std::optional<Change> change_;  // TakeChange's
  double median_log_ = 0;         // the median of their logs
  // The reference's speed that drifts are measured from (the log): the
  // median of its reads when the grid was read, fixed from then on so that
  // the levels found from the grid and the probes read later agree, and at
  // the end that of all its reads (Sampler::Reframe).
  std::optional<double> frame_log_;
  double reference_noise_ = 0;  // their robust sigma (in log)
};

// The probes known so far, by slot: each one's reads as timed and each
// divided by the drift at its time (`drift`'s), and the probe's rate, the
// AgreedRate of those (adaptive_probes.cc). Keeps a reference to `drift`.
class ProbeBook {
 public:
  explicit ProbeBook(const DriftReference& drift) : drift_(drift) {}

  // Slot k's probe at offset_bytes, length_bytes (unread when new);
  // whether it was read before.
  bool Prepare(std::uint64_t k, std::uint64_t offset_bytes, std::uint64_t length_bytes);
  // Slot k's new read `read` kept (numbered: Seq), divided by the drift at
  // its time: the probe, its rate found again. REQUIRES: Prepare(k) before.
  const AdaptiveProbe* Add(std::uint64_t k, Timed read);
  // The reads after s.after_seq marked suspect (DriftReference::ReadDue).
  void MarkSuspect(const SuspectReads& s);
  // Probe reads so far (the seq of the last).
  std::uint64_t Seq() const { return seq_; }

  // Slot k, read once, while the device's speed changed: its rate at the
  // drift before the change and at the drift after it (nullopt: not so).
  std::optional<std::pair<double, double>> Unresolved(std::uint64_t k) const;
  // Slot k's only read made at the drift before the change (or after it).
  void Resolve(std::uint64_t k, bool before);
  // Slot k's last read as timed (its rate not divided by any drift).
  double LastRaw(std::uint64_t k) const { return slots_.at(k).reads.back().mb_per_s; }

  // Every read's rate divided by the drift at its time, as all the
  // reference's reads so far show it (a read's drift came from the reads
  // before it alone when it was made): every probe's rate found again.
  // Returns the drift furthest from 1 (in log) that a read was divided by.
  double Redrift();
  // Reads agree within `log_window` (in log) from now on: every probe's rate
  // is found again with it.
  void SetAgreement(double log_window);

  // Slot k's reads (each divided by its drift), in the order read (none:
  // not read).
  // Suspect reads left out where there are others.
  std::vector<double> Reads(std::uint64_t k) const;
  // The probe of slot k, when it was read.
  const AdaptiveProbe* Find(std::uint64_t k) const;
  // The slots in [lo, hi] whose probe was read, in order, with its rate.
  std::vector<std::pair<std::uint64_t, double>> ReadIn(std::uint64_t lo, std::uint64_t hi) const;
  // Every probe read, in position order.
  std::vector<AdaptiveProbe> Probes() const;

 private:
  struct Slot {
    AdaptiveProbe probe;
    std::vector<Timed> reads;   // each read as timed, in the order read
    std::vector<double> rates;  // each read's rate divided by its drift
  };
  static bool AllSuspect(const Slot& slot);
  // AgreedRate of the slot's reads (suspect ones left out where there are
  // others).
  double Agreed(const Slot& slot);

  const DriftReference& drift_;
  std::vector<double> sorted_;  // Agreed()'s scratch
  double agree_log_ = 0;        // SetAgreement's window
  std::uint64_t seq_ = 0;       // probe reads so far
  std::map<std::uint64_t, Slot> slots_;
};

// A probe read at the drift the reference shows: the reader's read, the
// reference's reads when due, the book's probes (adaptive_sampler.cc).
// Keeps references to its arguments.
class Sampler {
 public:
  Sampler(ProbeReader& reader, DriftReference& drift, ProbeBook& book, AdaptiveResult& result)
      : reader_(reader), drift_(drift), book_(book), result_(result) {}

  // Slot k's probe read once more (its rate: AgreedRate of its reads so
  // far, each divided by the drift the reference showed until then), the
  // reference read first when it is due. Null when the read failed.
  const AdaptiveProbe* ReadMore(std::uint64_t k);
  // The reference read now, when any probe was read since its last read
  // (DriftReference::Close).
  void CloseReference();
  // Every probe's rate found again with the drifts known now (the
  // reference's frame fixed first where it can be: ProbeBook::Redrift).
  // Sets the result's largest_drift.
  void Redrift();
  // Redrift with the drifts measured from the median of all the
  // reference's reads (not those of the grid's time alone): the factor every
  // probe's rate was multiplied by.
  double Reframe();

 private:
  ProbeReader& reader_;
  DriftReference& drift_;
  ProbeBook& book_;
  AdaptiveResult& result_;
};

// A step of the grid being bisected: the bracket [lo, hi] of slots (the
// last probe read at the left level, the first at the right one), and
// what its checks have done.
struct Bracket {
  std::uint64_t lo = 0, hi = 0;
  double left = 0, right = 0;
  std::optional<std::uint64_t> pending;  // a marginal probe to read again
  bool done = false;
  std::uint64_t lo0 = 0, hi0 = 0;            // where the bracket may reopen to
  std::uint64_t lo_start = 0, hi_start = 0;  // the bracket as it began
  std::vector<std::uint64_t> verify;         // converged: the probes to read once more
  std::uint32_t checks = 0;                  // verifications begun
  std::uint32_t reopens = 0;                 // brackets reopened by a verification
  // The bracket before each move, with the read that moved it (its seq).
  struct Move {
    std::uint64_t seq = 0, lo = 0, hi = 0;
    double raw = 0;  // the rate of the read that made it, as timed
  };
  std::vector<Move> moves;
  std::uint32_t undos = 0;  // times moves were undone
};

// One adaptive sampling, its state and its named steps (SampleAdaptively
// runs them in order): the grid, its suspect probes resolved, a noisy grid
// read again, its spikes read again (adaptive_grid.cc), the steps
// bracketed, bisected and settled, then the edges and zones
// (adaptive_edges.cc). Keeps references to its arguments but `device`.
class AdaptiveRun {
 public:
  AdaptiveRun(Device& device, Clock& clock, const AdaptiveOptions& options,
              const AdaptiveStepFinder& find_steps, const std::atomic<bool>* stop,
              AdaptiveResult& r, std::uint64_t end, std::uint64_t probe, std::uint64_t chunk)
      : options_(options),
        find_steps_(find_steps),
        r_(r),
        end_(end),
        probe_(probe),
        slots_((end - r.start_bytes) / probe),
        reader_(device, clock, options, stop, r, r.start_bytes, probe, chunk),
        drift_(reader_, options, r),
        book_(drift_),
        sampler_(reader_, drift_, book_, r) {}

  void ReadGrid();
  void ResolveGridSuspects();
  void FindSteps();
  void ReadNoisyGridAgain();
  void ReadSpikesAgain();
  void OpenBrackets();
  void BisectAndSettle();
  void Edges();
  void Zones();

 private:
  // The grid's probes read (unreadable ones left out: the steps index the
  // probes read), and their slots.
  void CollectGrid();
  // The reference read when due, every probe's rate found again with the
  // drifts known now, and a change of speed seen meanwhile forgotten.
  void Redrift();
  // Every open bracket bisected, checked and verified until each is done.
  void Bisect();
  // A change of the device's speed (DriftReference::TakeChange): the moves
  // it decided undone; whether one of `current`'s was.
  bool UndoMoves(const Change& change, const Bracket& current);
  // Bracket b after slot k's probe `p` was read (its side).
  void Move(Bracket& b, std::uint64_t k, const AdaptiveProbe& p);
  // A converged bracket: its probes to read once more, or done.
  void Converged(Bracket& b);
  // Slot k's probe `p`, read before and not read again (AdaptiveOptions::max_reread_share),
  // taken as it is: a move, or the bracket's verification done.
  void KeepRead(Bracket& b, std::uint64_t k, const AdaptiveProbe& p);
  // Read again: a probe whose side is marginal, far off both levels, or
  // whose reads disagree on its side.
  bool Unsettled(std::uint64_t k, const AdaptiveProbe& p, const Bracket& b) const;
  // How far (in log) outside both of b's levels a rate is no longer
  // either's: beyond the nearer by more than half the step and
  // kSpikeSigmas of the noise (a stall, or a burst of reads that had
  // waited, not the media).
  double FarOff(const Bracket& b) const {
    return std::max(std::abs(std::log(b.left / b.right)) / 2, kSpikeSigmas * r_.noise_rel);
  }
  // The median of the probes wholly inside [from, to); their count in
  // `inside`.
  double MedianIn(std::uint64_t from, std::uint64_t to, std::uint32_t& inside) const;

  const AdaptiveOptions& options_;
  const AdaptiveStepFinder& find_steps_;
  AdaptiveResult& r_;
  const std::uint64_t end_, probe_, slots_;
  ProbeReader reader_;
  DriftReference drift_;
  ProbeBook book_;
  Sampler sampler_;
  std::vector<std::uint64_t> grid_slots_;  // the grid's slots, in position order
  std::vector<AdaptiveProbe> grid_;        // its probes read
  std::vector<std::uint64_t> grid_read_;   // their slots
  std::vector<AdaptiveStep> steps_;        // where the grid changes level
  std::vector<Bracket> open_;              // each step being bisected
  std::size_t finished_ = 0;               // brackets done
};

}  // namespace zcav::adaptive
