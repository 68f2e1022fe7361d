// Reading classic zcav logs (bonnie++ 1.03 and 1.9x/2.00): see data_reader.h
// for the layouts.
//
// Classic zcav logs need inference, done here once:
//   1.03  offsets are exact MiB; the block size is the step between rows;
//         rates are KiB/s (int-truncated), "++++" rows are recomputed from
//         their time (microseconds).
//   1.9x  offsets are printed to 0.01 GiB (10.24 MiB), so they are only used
//         to find the row grid: the block size comes from rate × time of the
//         timed rows (whole MiB), the step between rows is a whole number of
//         blocks (zcav -s), and each row's offset is index × step when every
//         printed offset lies within its rounding of that grid. "++++" rows
//         (a block read in under a second) are recomputed from the time
//         column, which has 1 ms resolution.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/format/reader_internal.h"

namespace zcav::reader {

namespace {

// Classic block sizes are an int of MiB; anything beyond 2^31 MiB is garbage.
constexpr double kMaxBlockMib = 2147483647.0;

// A classic 1.9x offset is printf("%.2f") of a float: within half a
// hundredth of a GiB of the true position, plus float rounding (2^-24 relative).
double PrintedGibToleranceMib(double mib) { return 0.005 * 1024.0 * (1 + 1e-9) + mib * 1.2e-7; }

struct ClassicRow {
  std::size_t pass = 0;          // which pass (table or repeat) the row belongs to
  std::uint64_t offset_mib = 0;  // 1.03: exact
  double offset_gib = 0;         // 1.9x: as printed, rounded to 0.01 GiB
  std::optional<double> rate;    // KiB/s (1.03) or MiB/s (1.9x); empty for "++++"
  double seconds = 0;
  std::uint64_t loops = 1;  // classic "#loops: N" of the row's table
  std::size_t line = 0;     // the row's line, for messages
};

struct ClassicLog {
  std::vector<ClassicRow> rows;
  std::size_t pass_count = 0;
  std::uint64_t max_loops = 1;
};

ClassicLog ReadClassicRows(Input& in, Format layout) {
  const bool v19 = layout == Format::kBonnie19x;
  ClassicLog log;
  PassOrder order(/*equal_allowed=*/v19);
  std::uint64_t pending_loops = 1;
  std::uint64_t table_loops = 1;
  std::string_view line;
  std::size_t n = 0;
  while (in.Next(line, n)) {
    if (line.empty()) continue;
    if (StartsWith(line, "#loops:")) {
      std::string_view count = Trim(line.substr(7));
      count = Trim(count.substr(0, count.find(',')));
      const std::optional<std::uint64_t> loops = ToUint(count);
      if (!loops || *loops == 0) {
        in.Fail(n, "'#loops:' needs a positive whole number, got " + Quote(count));
      }
      pending_loops = *loops;
      continue;
    }
    if (const std::optional<Format> header = ClassicHeader(line)) {
      if (*header != layout) {
        in.Fail(n, "a " + std::string(v19 ? "1.03" : "1.9x") + " table header in a " +
                       (v19 ? "1.9x" : "1.03") +
                       " log (files of different zcav versions concatenated?)");
      }
      table_loops = pending_loops;
      pending_loops = 1;
      order.StartTable();
      continue;
    }
    // A data row, or a commented "++++" row ("#0.10 ++++ 0.049"); other
    // '#' lines are comments.
    const bool commented = line.front() == '#';
    const std::vector<std::string_view> words = Words(commented ? line.substr(1) : line);
    if (commented && (words.size() != 3 || words[1] != "++++")) continue;
    if (words.size() != 3) {
      in.Fail(n, "expected 3 numbers (offset, rate, time), got " + Quote(line));
    }
    ClassicRow row;
    row.loops = table_loops;
    row.line = n;
    std::uint64_t key = 0;
    std::string shown;
    if (v19) {
      const std::optional<double> gib = ToDouble(words[0]);
      if (!gib || !std::isfinite(*gib) || *gib < 0) {
        in.Fail(n, "offset " + Quote(words[0]) + " is not a non-negative number of GiB");
      }
      if (*gib * static_cast<double>(kGiB) > kMaxOffsetBytes) {
        in.Fail(n, "offset " + Quote(words[0]) + " GiB is out of range");
      }
      row.offset_gib = *gib;
      key = static_cast<std::uint64_t>(std::llround(*gib * 100));
      shown = std::string(words[0]) + " GiB";
    } else {
      const std::optional<std::uint64_t> mib = ToUint(words[0]);
      if (!mib) in.Fail(n, "offset " + Quote(words[0]) + " is not a whole number of MiB");
      if (static_cast<double>(*mib) * static_cast<double>(kMiB) > kMaxOffsetBytes) {
        in.Fail(n, "offset " + Quote(words[0]) + " MiB is out of range");
      }
      row.offset_mib = *mib;
      key = *mib;
      shown = std::string(words[0]) + " MiB";
    }
    if (words[1] != "++++") {
      row.rate = NonNegative(in, n, v19 ? "rate (MiB/s)" : "rate (KiB/s)", words[1]);
    }
    row.seconds = NonNegative(in, n, "time (s)", words[2]);
    if (order.Add(in, n, key, shown) && !log.rows.empty()) ++log.pass_count;
    row.pass = log.pass_count;
    log.max_loops = std::max(log.max_loops, row.loops);
    log.rows.push_back(row);
  }
  if (log.rows.empty()) in.FailFile("no data rows (only comments and headers)");
  ++log.pass_count;
  return log;
}

// The rows of a classic log at `offsets_bytes` with their rates in MB/s
// (`rate_unit_bytes`: KiB for 1.03, MiB for 1.9x), "++++" rates recomputed
// from the time; adds the notes both layouts share. Rows whose time is 0 are
// left out; a rate that is not a finite number of MB/s throws. REQUIRES:
// profile.block_bytes is set.
std::vector<Row> ClassicRates(const Input& in, const ClassicLog& log, SavedResult& profile,
                              std::uint64_t rate_unit_bytes, const std::string& time_resolution,
                              const std::vector<std::uint64_t>& offsets_bytes) {
  std::vector<Row> rows;
  std::size_t recomputed = 0;
  std::size_t untimed = 0;
  for (std::size_t i = 0; i < log.rows.size(); ++i) {
    const ClassicRow& c = log.rows[i];
    Row row{.offset_bytes = offsets_bytes[i],
            .length_bytes = profile.block_bytes,
            .mb_per_s = 0,
            .passes = c.loops};
    if (c.rate) {
      row.mb_per_s = *c.rate * static_cast<double>(rate_unit_bytes) / kMB;
    } else if (c.seconds > 0) {
      row.mb_per_s = static_cast<double>(profile.block_bytes) / c.seconds / kMB;
      ++recomputed;
    } else {
      ++untimed;
      continue;
    }
    // A finite rate times its unit, or a block over a denormal time, can
    // still overflow (fuzz_bonnie103, fuzz_bonnie19x).
    if (!std::isfinite(row.mb_per_s)) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.3g", c.seconds);
      in.Fail(c.line, c.rate ? std::string("the rate is out of range (over 10^300 MB/s)")
                             : std::string("'++++' time ") + seconds +
                                   " s is too small: the rate it gives is infinite");
    }
    rows.push_back(row);
  }
  if (recomputed > 0) {
    profile.notes.push_back(std::to_string(recomputed) +
                            " '++++' rates recomputed from the time column and the " +
                            MibText(profile.block_bytes) + " block size" + time_resolution);
  }
  if (untimed > 0) {
    profile.notes.push_back(std::to_string(untimed) +
                            " '++++' rows with time 0 left out (too fast to time)");
  }
  if (log.max_loops > 1) {
    profile.notes.push_back(
        "each row is classic zcav's average over its loops (the mean of the middle third of "
        "the times), not a median");
  }
  return rows;
}

void FinishClassic103(const Input& in, const ClassicLog& log, SavedResult& profile) {
  // The offsets are exact MiB: the step between rows is the block size.
  std::vector<double> steps;
  for (std::size_t i = 1; i < log.rows.size(); ++i) {
    const ClassicRow& a = log.rows[i - 1];
    const ClassicRow& b = log.rows[i];
    if (a.pass == b.pass) steps.push_back(static_cast<double>(b.offset_mib - a.offset_mib));
  }
  std::uint64_t block_mib = 0;
  if (!steps.empty()) {
    block_mib = static_cast<std::uint64_t>(std::llround(Median(steps)));
  } else {
    // One row per pass: rate × time is the block (KiB/s × s = KiB).
    std::vector<double> sizes;
    for (const ClassicRow& c : log.rows) {
      if (c.rate) sizes.push_back(*c.rate * c.seconds / static_cast<double>(kKiB));
    }
    if (!sizes.empty()) {
      const double median = std::round(Median(sizes));
      if (median >= 1 && median <= kMaxBlockMib) block_mib = static_cast<std::uint64_t>(median);
    }
  }
  if (block_mib == 0 || static_cast<double>(block_mib) > kMaxBlockMib) {
    in.FailFile("cannot infer the block size (one offset and no usable rate × time)");
  }
  profile.block_bytes = block_mib * kMiB;
  std::vector<std::uint64_t> offsets;
  for (const ClassicRow& c : log.rows) offsets.push_back(c.offset_mib * kMiB);
  const std::vector<Row> rows = ClassicRates(in, log, profile, kKiB, "", offsets);
  if (rows.empty()) in.FailFile("no row has a usable rate (every row is '++++' with time 0)");
  ReduceRows(rows, profile);
}

// The first row index of one pass when its printed offsets fit
// (first + j) × step_mib, each within its rounding; nothing when none fits.
// Prefers 0 (runs start at the beginning) when it fits.
std::optional<std::uint64_t> FitPass(const std::vector<double>& gib, double step_mib) {
  double lo = 0;
  double hi = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < gib.size(); ++j) {
    const double mib = gib[j] * 1024.0;
    const double tol = PrintedGibToleranceMib(mib);
    lo = std::max(lo, (mib - tol) / step_mib - static_cast<double>(j));
    hi = std::min(hi, (mib + tol) / step_mib - static_cast<double>(j));
  }
  const double first = std::ceil(lo);
  if (first > hi) return std::nullopt;
  if (first == 0) return 0;
  const double pick = std::clamp(std::round((lo + hi) / 2), first, std::floor(hi));
  return static_cast<std::uint64_t>(pick);
}

// Block size: a timed row's rate × time is its block in MiB (rate printed
// with 2 decimals, time with 3); classic zcav blocks are whole MiB. 0 when
// no row is timed.
std::uint64_t Classic19xBlockMib(const Input& in, const ClassicLog& log) {
  std::vector<double> sizes;
  for (const ClassicRow& c : log.rows) {
    if (c.rate) sizes.push_back(*c.rate * c.seconds);
  }
  if (sizes.empty()) return 0;
  const double median = std::round(Median(sizes));
  if (median < 1 || median > kMaxBlockMib) {
    in.FailFile("cannot infer the block size: rate × time gives " + FormatFixed(median, 0) +
                " MiB, not a usable block size");
  }
  return static_cast<std::uint64_t>(median);
}

// The row grid of a 1.9x log: the printed offsets of each pass, the step
// between rows that fits them all, and where each pass starts on it.
class Classic19xGrid {
 public:
  explicit Classic19xGrid(const ClassicLog& log)
      : passes_(log.pass_count), first_index_(log.pass_count, 0) {
    for (const ClassicRow& c : log.rows) passes_[c.pass].push_back(c.offset_gib);
    longest_ = &*std::max_element(passes_.begin(), passes_.end(),
                                  [](const std::vector<double>& a, const std::vector<double>& b) {
                                    return a.size() < b.size();
                                  });
  }

  // The step between rows: a whole number of blocks (zcav -s skips blocks),
  // or when no row is timed (`block_mib` 0) a whole number of MiB, near the
  // average printed step, such that every pass fits its grid. Throws when
  // there is neither a block size nor a step to look for.
  void FindStep(const Input& in, std::uint64_t block_mib) {
    const std::size_t n = longest_->size();
    if (n >= 2) {
      const double estimate = EstimatedStepMib();
      const double tol =
          2 * PrintedGibToleranceMib(longest_->back() * 1024.0) / static_cast<double>(n - 1);
      const double unit = block_mib > 0 ? static_cast<double>(block_mib) : 1.0;
      const double k_lo = std::max(1.0, std::ceil((estimate - tol) / unit));
      const double k_hi = std::floor((estimate + tol) / unit);
      // Candidates nearest the estimate first; the first that fits wins.
      std::vector<double> candidates;
      for (double k = k_lo; k <= k_hi && candidates.size() < 100000; ++k) {
        candidates.push_back(k * unit);
      }
      std::stable_sort(candidates.begin(), candidates.end(), [&](double a, double b) {
        return std::abs(a - estimate) < std::abs(b - estimate);
      });
      for (double step : candidates) {
        if (Fits(static_cast<std::uint64_t>(step))) {
          step_mib_ = static_cast<std::uint64_t>(step);
          break;
        }
      }
    } else if (block_mib > 0) {
      step_mib_ = Fits(block_mib) ? block_mib : 0;
    } else {
      in.FailFile(
          "cannot infer the block size: every row is '++++' and no pass has two rows to give the "
          "offset step");
    }
    if (step_mib_ > 0) Fits(step_mib_);  // first_index_ for the chosen step
  }

  // The step FindStep chose; 0 when none fits.
  std::uint64_t step_mib() const { return step_mib_; }

  // The average printed step of the longest pass, in MiB. REQUIRES: it has
  // two rows or more.
  double EstimatedStepMib() const {
    const std::size_t n = longest_->size();
    return (longest_->back() - longest_->front()) * 1024.0 / static_cast<double>(n - 1);
  }

  // Each row's offset as its index on the grid of step_mib(). REQUIRES:
  // step_mib() > 0.
  std::vector<std::uint64_t> Offsets(const ClassicLog& log) const {
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint64_t> index_in_pass(passes_.size(), 0);
    for (const ClassicRow& c : log.rows) {
      offsets.push_back((first_index_[c.pass] + index_in_pass[c.pass]++) * step_mib_ * kMiB);
    }
    return offsets;
  }

 private:
  // Whether every pass fits the grid of `step` MiB; sets first_index_ when so.
  bool Fits(std::uint64_t step) {
    if (!FitPass(*longest_, static_cast<double>(step))) return false;  // fails fast
    for (std::size_t p = 0; p < passes_.size(); ++p) {
      const std::optional<std::uint64_t> first = FitPass(passes_[p], static_cast<double>(step));
      if (!first) return false;
      first_index_[p] = *first;
    }
    return true;
  }

  std::vector<std::vector<double>> passes_;       // the printed offsets (GiB) of each pass
  const std::vector<double>* longest_ = nullptr;  // the pass with the most rows
  std::uint64_t step_mib_ = 0;
  std::vector<std::uint64_t> first_index_;  // of each pass, on step_mib_'s grid after FindStep
};

// The block size in MiB from rate × time (`block_mib`), else from the step
// of `grid`, else estimated from the offsets; notes where it came from.
std::uint64_t Classic19xSettleBlock(std::uint64_t block_mib, const Classic19xGrid& grid,
                                    SavedResult& profile) {
  if (block_mib > 0) {
    profile.notes.push_back("block size " + MibText(block_mib * kMiB) +
                            " inferred from rate × time");
  } else if (grid.step_mib() > 0) {
    block_mib = grid.step_mib();
    profile.notes.push_back("every row is '++++': block size " + MibText(block_mib * kMiB) +
                            " inferred from the offset step; positions are only known to "
                            "0.01 GiB");
  } else {
    // No timed row and no grid: the average printed step, to the MiB.
    const double estimate = grid.EstimatedStepMib();
    block_mib = static_cast<std::uint64_t>(std::max(1.0, std::round(estimate)));
    profile.notes.push_back("every row is '++++': block size " + MibText(block_mib * kMiB) +
                            " estimated from the offsets; positions are only known to 0.01 GiB");
  }
  return block_mib;
}

// Rows not evenly spaced (edited, or passes of different grids): the
// printed positions, on the block grid when the grid is coarser than the
// printing.
std::vector<std::uint64_t> Classic19xPrintedOffsets(const ClassicLog& log, std::uint64_t block_mib,
                                                    SavedResult& profile) {
  std::vector<std::uint64_t> offsets;
  const bool snap = static_cast<double>(block_mib) > 2 * PrintedGibToleranceMib(0);
  for (const ClassicRow& c : log.rows) {
    const double mib = c.offset_gib * 1024.0;
    const auto unit = snap ? block_mib : 1;
    offsets.push_back(static_cast<std::uint64_t>(std::llround(mib / static_cast<double>(unit))) *
                      unit * kMiB);
  }
  profile.notes.push_back(
      std::string("the rows are not evenly spaced: offsets are the printed values, only known "
                  "to 0.01 GiB, rounded to ") +
      (snap ? "the " + MibText(block_mib * kMiB) + " block grid" : "the MiB"));
  return offsets;
}

void FinishClassic19x(const Input& in, const ClassicLog& log, SavedResult& profile) {
  std::uint64_t block_mib = Classic19xBlockMib(in, log);
  Classic19xGrid grid(log);
  grid.FindStep(in, block_mib);
  block_mib = Classic19xSettleBlock(block_mib, grid, profile);
  profile.block_bytes = block_mib * kMiB;

  std::vector<std::uint64_t> offsets;
  if (const std::uint64_t step_mib = grid.step_mib(); step_mib > 0) {
    offsets = grid.Offsets(log);
    profile.notes.push_back("offsets computed as row index × " + MibText(step_mib * kMiB) +
                            ": the file prints them rounded to 0.01 GiB");
    if (step_mib != block_mib) {
      profile.notes.push_back("rows are " + MibText(step_mib * kMiB) + " apart with " +
                              MibText(block_mib * kMiB) + " blocks (classic zcav -s " +
                              std::to_string(step_mib / block_mib) + ")");
    }
  } else {
    offsets = Classic19xPrintedOffsets(log, block_mib, profile);
  }
  const std::vector<Row> rows =
      ClassicRates(in, log, profile, kMiB, " (the time has 1 ms resolution)", offsets);
  if (rows.empty()) in.FailFile("no row has a usable rate (every row is '++++' with time 0)");
  ReduceRows(rows, profile);
}

}  // namespace

void ParseBonnie103(Input& in, SavedResult& profile) {
  FinishClassic103(in, ReadClassicRows(in, Format::kBonnie103), profile);
}

void ParseBonnie19x(Input& in, SavedResult& profile) {
  FinishClassic19x(in, ReadClassicRows(in, Format::kBonnie19x), profile);
}

}  // namespace zcav::reader
