// The CSV writer: '#' comment lines naming the drive and the run (the first
// is "# zcav-csv ..."; pandas reads the file with comment='#', gnuplot and R
// skip them), one header row, one row per block. Offsets and lengths
// are exact integers in bytes; rates are MB/s (10^6 B/s) with 6 decimals;
// seconds with 9 decimals (the clock's nanosecond resolution). A block with
// unreadable bytes says how many; one with no clean read at all has passes 0
// and rates 0 (meaningless: readers skip it). worst_chunk_ms: the block's
// slowest chunk over all passes (ms; 0 = not known).
#include <ostream>
#include <string>

#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/format/writers.h"

namespace zcav {

namespace {

class CsvWriter final : public ResultSink {
 public:
  explicit CsvWriter(std::ostream& out) : out_(out) {}

  void OnStart(const RunInfo& run) override {
    const DeviceInfo& d = run.device;
    std::string h = "# zcav-csv " + OneLine(run.version) +
                    ": rates in MB/s (10^6 B/s), sizes in bytes, times in seconds\n";
    const std::pair<const char*, std::string> facts[] = {
        {"device", d.path},
        {"model", d.model},
        {"serial", d.serial},
        {"wwn", d.wwn},
        {"firmware", d.firmware},
        {"size_bytes", std::to_string(d.size_bytes)},
        {"logical_sector_bytes", std::to_string(d.sector_bytes)},
        {"physical_sector_bytes",
         d.physical_sector_bytes ? std::to_string(d.physical_sector_bytes) : ""},
        {"rotation_rpm", d.rotation_rpm ? std::to_string(*d.rotation_rpm) : ""},
        {"chunk_bytes", std::to_string(run.plan.chunk_bytes)},
        {"host", run.host},
        {"kernel", run.kernel},
        {"started", run.start_time_utc},
        {"command", run.command_line}};
    for (const auto& [key, value] : facts) {
      h += std::string("# ") + key + ": " + (value.empty() ? "unknown" : OneLine(value)) + "\n";
    }
    for (const std::string& id : d.by_id) h += "# by_id: " + OneLine(id) + "\n";
    Write(h +
          "offset_bytes,length_bytes,mb_per_s,mean_mb_per_s,min_mb_per_s,max_mb_per_s,"
          "stddev_mb_per_s,passes,seconds,unreadable_bytes,worst_chunk_ms\n");
  }

  void OnBlock(const BlockResult& b) override {
    std::string row = std::to_string(b.offset_bytes) + ',' + std::to_string(b.length_bytes);
    for (double rate :
         {b.mb_per_s, b.mean_mb_per_s, b.min_mb_per_s, b.max_mb_per_s, b.stddev_mb_per_s}) {
      row += ',' + FormatFixed(rate, 6);
    }
    row += ',' + std::to_string(b.passes) + ',' + FormatFixed(b.seconds, 9) + ',' +
           std::to_string(b.unreadable_bytes) + ',' + FormatFixed(b.worst_chunk_ms, 3) + '\n';
    Write(row);
  }

  void OnFinish(const SweepResult& result) override {
    (void)result;
    out_.flush();
    if (!out_) Fail();
  }

 private:
  void Write(const std::string& text) {
    out_.write(text.data(), static_cast<std::streamsize>(text.size()));
    out_.flush();
    if (!out_) Fail();
  }

  [[noreturn]] static void Fail() {
    throw Error("writing the CSV data failed (disk full or output closed?)", ErrorKind::kRuntime);
  }

  std::ostream& out_;
};

}  // namespace

std::unique_ptr<ResultSink> MakeCsvWriter(std::ostream& out) {
  return std::make_unique<CsvWriter>(out);
}

}  // namespace zcav
