// Events for pipelines (--events FILE|-): newline-delimited JSON written
// while a sweep runs, one object per line, each line written whole and
// flushed at once, so a run killed at any moment leaves only complete lines
// (at most the line being written is cut; readers skip a cut last line).
//
// Every line starts {"event":NAME,"schema_version":"1.0",...} (the schema:
// schema/events.schema.json). Events, in the order they come:
//   start        "zcav_version", "command", "started" (UTC, null = unknown),
//                "device" {..,"identity":{..}} and "options" {..} exactly as
//                in the sweep JSON (json_writer.cc)
//   pass_start   "pass" (from 1): before the pass's first block is read
//   sample       one read of one block in a pass before the last (runs of
//                several passes only): "pass", "index", "offset_bytes",
//                "length_bytes", "seconds", "mb_per_s"; a block's last pass
//                gives no sample but its block event
//   unreadable   "offset_bytes", "length_bytes", "errno", "error", "pass",
//                "bounded_by_budget": a range found unreadable
//   slow_region  "offset_bytes", "length_bytes", "ms", "expected_ms", "pass"
//   block        every BlockResult once its last pass is read, as in the
//                sweep JSON's "blocks": "index", "offset_bytes",
//                "length_bytes", "mb_per_s" (median over passes), "mean_",
//                "min_", "max_", "stddev_mb_per_s", "passes", "seconds",
//                "unreadable_bytes" and "worst_chunk_ms" when not 0; rates
//                null for a block with no clean read (passes 0); with
//                several passes they come during the last one
//   pass_end     the pass summary: "pass", "bytes", "seconds", "mb_per_s",
//                "complete", "chunk_bytes", "latency_classes",
//                "unreadable_chunks"
//   health       "verdict" (good, suspect, failing), "reasons" [..]
//   zones        when the zone detector runs: "curve_type", "zones",
//                "outliers", "zone_summary" (zone_table.h ZoneAnalysisJson)
//   done         "status" (SweepResult::StatusText), "partial", "min_",
//                "max_", "avg_mb_per_s", "bytes_read", "blocks", "seconds",
//                "wall_seconds", "unreadable_ranges", "slow_regions" (counts)
//                and "exit_code": the process's exit code (null when the
//                command ended without giving one, e.g. on an error after
//                the sweep)
// Rates in MB/s (10^6 B/s), sizes in bytes, times in seconds unless the name
// says ms. `zcav zones|plot|report` read an events file as a result: the
// block events, and for blocks without one (a run killed before their last
// pass) the median of their samples.
#pragma once

#include <iosfwd>
#include <memory>

#include "zcav/format/result_sink.h"
#include "zcav/format/writers.h"  // kSchemaVersion

namespace zcav {

class EventsWriter : public ResultSink {
 public:
  // The "done" event with the command's exit code; at most once, after
  // OnFinish (before it: ignored). Throws Error(kRuntime) when the write
  // fails. Without a call, the destructor writes "done" with a null
  // exit_code (and ignores a failed write).
  virtual void OnExit(int exit_code) = 0;
};

// An events writer onto `out` (not owned; must outlive the writer). Each
// event is flushed; a failed write throws Error(kRuntime) from that event.
std::unique_ptr<EventsWriter> MakeEventsWriter(std::ostream& out);

}  // namespace zcav
