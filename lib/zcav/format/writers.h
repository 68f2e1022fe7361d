// Result writers: sinks that stream a sweep's results as they are measured.
//
//   raw  — the classic zcav layout, so existing gnuplot recipes keep working:
//          '#' header lines, then per block "offset_GiB MiB/s seconds" at full
//          precision (never "++++"), then extra columns: MB/s (median, 10^6 B/s),
//          min, max, stddev MB/s, passes n. Footer lines: per-pass and whole-run
//          summaries and the final status.
//   csv  — one header row, one row per block, all rates in MB/s.
//   json — {"format":"zcav","schema_version":"1.0",..,"device":{...},
//          "options":{...},"blocks":[...],"passes":[...],
//          "summary":{...},"status":...}; blocks are written as they arrive.
//
// Every writer flushes after each block. A writer given a seekable stream
// also rewrites the fixed-width "status" line of its header at the end, so a
// partial file says so at the top (raw format).
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "zcav/analysis/sustained.h"
#include "zcav/format/result_sink.h"

namespace zcav {

// The "schema_version" of every JSON document and event zcav writes (the
// schemas: schema/*.schema.json). The major number changes only when a member
// is renamed or removed or its meaning or unit changes; new members may
// appear within a major version (README "Compatibility promise").
inline constexpr const char* kSchemaVersion = "1.0";

enum class OutputFormat { kRaw, kCsv, kJson };

// "raw", "csv" or "json"; throws Error(kBadInput) otherwise.
OutputFormat ParseOutputFormat(const std::string& text);

// A writer of `format` onto `out` (not owned; must outlive the writer).
// `seekable`: `out` is a regular file opened for writing from its start.
// Writes are checked after each flush: a failed write (disk full, closed
// pipe) throws Error(kRuntime) from the event that hit it.
std::unique_ptr<ResultSink> MakeWriter(OutputFormat format, std::ostream& out, bool seekable);

// The individual writers behind MakeWriter (same ownership rules).
std::unique_ptr<ResultSink> MakeRawWriter(std::ostream& out, bool seekable);
std::unique_ptr<ResultSink> MakeCsvWriter(std::ostream& out);
std::unique_ptr<ResultSink> MakeJsonWriter(std::ostream& out);

// The JSON document's "worst_stall" and "sustained" values as text ("null"
// when nothing was timed), for other documents that report them (zcav
// verify's write pass).
std::string WorstStallJsonText(const RequestSummary& requests);
std::string SustainedJsonText(const std::optional<SustainedFigure>& sustained);

// A JSON result whose members after "blocks" wait for the command (zcav
// profile's profile.json: its access, burst and verdict are measured after
// the sweep). It writes the header and blocks as they come; at OnFinish it
// keeps its closing members instead of writing them. Closing returns the
// text that completes the document, for the caller to write after the
// writer's: the sweep's members in their order without those named in
// `drop`, each of `members` (name, JSON value as text) replacing the one of
// its name or appended, one a line. REQUIRES: after OnFinish.
class JsonDocumentWriter : public ResultSink {
 public:
  virtual std::string Closing(const std::vector<std::pair<std::string, std::string>>& members,
                              const std::vector<std::string>& drop) = 0;
};
std::unique_ptr<JsonDocumentWriter> MakeJsonDocumentWriter(std::ostream& out);

}  // namespace zcav
