// The requests of a run as a recorder sees them (issue 39, gates for
// recorders): its worst stall, the longest single request (one read or write
// call of a chunk), and its sustained rate, the lowest rate held over any
// window of a given length. Computed online, in time order, with memory for
// one window's requests (not a log of the run) and no allocation per request
// once that is sized; or over a whole sequence at once (SummarizeRequests).
//
// The time line is the requests' own time: each request occupies its
// duration, one after the other (gaps between requests, the caller's own
// work, are not the device's and are left out), and its bytes are spread
// evenly over its duration. A window's rate is the bytes inside it over its
// length; the lowest over every window that fits is found exactly (it lies
// where a window starts or ends at a request's edge), up to the merging of
// requests shorter than window / kWindowResolution (see RequestTimeline).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace zcav {

// One read or write call, as it was timed.
struct TimedRequest {
  std::uint64_t offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  std::uint32_t pass = 0;  // 0-based
  // When it was issued, since the run began (for the report).
  std::chrono::nanoseconds started_at{0};
  // What it took. Several in flight at once: its share of the time, so that
  // durations add up to the run's reading time.
  std::chrono::nanoseconds duration{0};
};

// The longest request. `duration` is its stall: the request's own time, or
// at a queue depth above 1 the time the device completed nothing before it.
struct WorstStall {
  std::uint64_t offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  std::uint32_t pass = 0;                  // 0-based
  std::chrono::nanoseconds started_at{0};  // since the run began
  std::chrono::nanoseconds duration{0};
};

// The window of the lowest rate.
struct LowestWindow {
  double mb_per_s = 0;      // bytes inside / window, MB/s (10^6 B/s)
  std::uint64_t bytes = 0;  // inside it
  // Where it begins: the position being transferred then (within a request,
  // its offset plus the bytes done by then, rounded down to 512 bytes), that
  // request's pass, and when (since the run began).
  std::uint64_t offset_bytes = 0;
  std::uint32_t pass = 0;  // 0-based
  std::chrono::nanoseconds started_at{0};
};

// Windows are found to window / kWindowResolution (requests shorter than
// that may be merged with their neighbours: see RequestTimeline).
inline constexpr std::int64_t kWindowResolution = 8192;

// A part of the run: the windows that begin in it (RequestTimeline::StartPart).
struct RequestPart {
  std::uint64_t first_offset_bytes = 0;   // its first request's
  std::uint32_t pass = 0;                 // its first request's (0-based)
  std::chrono::nanoseconds begins_at{0};  // on the time line: requests' time before it
  std::optional<LowestWindow> lowest;     // of the windows that begin in it
};

// What a RequestTimeline found.
struct RequestSummary {
  std::chrono::nanoseconds window{0};
  std::uint64_t requests = 0;  // 0: none timed (then nothing else is known)
  std::uint64_t bytes = 0;
  std::chrono::nanoseconds time{0};  // the requests' time, added up
  std::optional<WorstStall> worst_stall;
  std::vector<RequestPart> parts;  // in time order; at least one once a request was added

  // The lowest window that begins in part `first` or a later one; none when
  // less than one window of requests' time lies from there to the end.
  std::optional<LowestWindow> LowestFrom(std::size_t first) const;
  // The first part that begins at or after `offset_bytes` in the run's first
  // pass (parts.size() when none does, or none is marked there).
  std::size_t FirstPartFrom(std::uint64_t offset_bytes) const;
  // The requests' time from part `first` to the end (0 past the last part).
  std::chrono::nanoseconds TimeFrom(std::size_t first) const;
};

// The online computation. Add requests in time order; read Summary() at
// any point. Keeps the requests of the last window only (a ring that grows
// to that size once, then is reused): a request shorter than
// window / kWindowResolution is merged with the one before when it continues
// it (the next offset, the same pass and part), so that a window never holds
// more than about 2 x kWindowResolution entries, whatever the request rate;
// the rate inside a merged entry is taken as even (the error is below one
// entry's bytes in a window). The worst stall is exact.
class RequestTimeline {
 public:
  // REQUIRES: window > 0.
  explicit RequestTimeline(std::chrono::nanoseconds window);

  // Starts a new part: the windows that begin from the next request on are
  // kept apart from those before (RequestSummary::LowestFrom), e.g. one part
  // per block of a write sweep's first pass, so that the part after a write
  // cache can be chosen once the cache is known. Nothing when the current
  // part has no request yet.
  void StartPart();

  // Adds the next request in time order; `stall` is its stall (WorstStall),
  // its duration when not given. A duration below 1 ns counts as 1 ns.
  // Allocates only when a new part begins or the ring grows (throws
  // std::bad_alloc then).
  void Add(const TimedRequest& request) { Add(request, request.duration); }
  void Add(const TimedRequest& request, std::chrono::nanoseconds stall);

  const RequestSummary& Summary() const { return summary_; }
  // The entries the ring holds room for: the memory kept (for tests).
  std::size_t ring_entries() const { return ring_.size(); }

 private:
  // A request (or several merged): on the time line from t0 for d ns.
  struct Entry {
    std::int64_t t0 = 0;
    std::int64_t d = 0;
    std::uint64_t bytes_before = 0;  // the run's bytes before it
    std::uint64_t bytes = 0;
    std::uint64_t offset_bytes = 0;
    std::int64_t started_at = 0;  // ns since the run began
    std::uint32_t pass = 0;
    std::uint32_t part = 0;
    double bytes_per_ns = 0;  // bytes / d: the one division per request
  };
  Entry& At(std::uint64_t i) { return ring_[i & (ring_.size() - 1)]; }
  void Push(const Entry& e);
  // The window beginning `into` ns into entry `at`, with `bytes` inside.
  void Offer(const Entry& at, std::int64_t into, double bytes);
  void EvaluateWindows();

  const std::int64_t window_;
  const std::int64_t merge_below_;
  const double mb_per_s_per_byte_;  // a window's rate per byte inside it
  RequestSummary summary_;
  bool part_pending_ = false;  // StartPart() called, no request since
  // The ring: entries [head_, tail_) by absolute index.
  std::vector<Entry> ring_;
  std::uint64_t head_ = 0;
  std::uint64_t tail_ = 0;
  std::uint64_t starts_ = 0;  // the first entry whose window from its start is not yet done
  std::uint64_t ends_ = 0;    // the entry where the last window ending at an entry's end began
  std::int64_t now_ = 0;      // the time line's end
};

// The summary of `requests` (in time order) over windows of `window`, in
// one part: e.g. a verify's write pass (verify.h) for its worst stall and
// sustained rate. REQUIRES: window > 0.
RequestSummary SummarizeRequests(std::span<const TimedRequest> requests,
                                 std::chrono::nanoseconds window);

}  // namespace zcav
