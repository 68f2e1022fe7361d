#include "zcav/measure/progress.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>
#include <utility>

#include "zcav/base/text.h"
#include "zcav/base/units.h"

namespace zcav {
namespace {

constexpr std::chrono::milliseconds kTtyInterval{200};
constexpr std::chrono::seconds kPlainInterval{10};

std::string SystemText(const SweepResult& result) {
  if (!result.system_busy_percent) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, " (system %.1f%% busy)", *result.system_busy_percent);
  return buf;
}

}  // namespace

ProgressSink::ProgressSink(std::ostream& out, Clock& clock, bool tty)
    : out_(out), clock_(clock), tty_(tty) {}

void ProgressSink::OnStart(const RunInfo& run) {
  run_ = &run;
  const SweepPlan& p = run.plan;
  for (std::uint64_t i = 0; i < p.block_count; ++i) bytes_per_pass_ += p.BlockLength(i);
  start_ = last_print_ = clock_.Now();
}

void ProgressSink::OnSample(const Sample& sample) {
  bytes_done_ += sample.length_bytes;
  pass_ = sample.pass;
  last_mb_per_s_ = MbPerS(sample.length_bytes, sample.elapsed);
  const auto now = clock_.Now();
  if (now - last_print_ >=
      (tty_ ? std::chrono::nanoseconds(kTtyInterval) : std::chrono::nanoseconds(kPlainInterval))) {
    last_print_ = now;
    Print(false);
  }
}

void ProgressSink::OnPassDone(const PassSummary& pass) {
  if (tty_ && printed_) out_ << '\r' << std::string(79, ' ') << '\r';
  char buf[160];
  std::snprintf(buf, sizeof buf, "pass %u/%u %s: %.3f MB/s over %.1f s\n", pass.pass + 1,
                run_ != nullptr ? run_->plan.passes : 0, pass.complete ? "done" : "stopped",
                pass.mb_per_s, static_cast<double>(pass.read_time.count()) * 1e-9);
  out_ << buf << std::flush;
  printed_ = false;
}

void ProgressSink::OnFinish(const SweepResult& result) {
  if (tty_ && printed_) out_ << '\r' << std::string(79, ' ') << '\r';
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "%s: min %.3f  max %.3f  avg %.3f MB/s (MB = 10^6 B), %.1f s, %.1f%% cpu%s\n",
                result.StatusText().c_str(), result.min_mb_per_s, result.max_mb_per_s,
                result.avg_mb_per_s, result.wall_seconds, result.cpu_percent,
                SystemText(result).c_str());
  out_ << buf << std::flush;
}

void ProgressSink::Print(bool final_line) {
  if (run_ == nullptr || bytes_per_pass_ == 0) return;
  const SweepPlan& p = run_->plan;
  const std::uint64_t in_pass = bytes_done_ - static_cast<std::uint64_t>(pass_) * bytes_per_pass_;
  const double total = static_cast<double>(bytes_per_pass_) * p.passes;
  const double done = static_cast<double>(bytes_done_);
  const double elapsed = static_cast<double>((clock_.Now() - start_).count()) * 1e-9;
  const double eta = done > 0 ? elapsed * (total - done) / done : 0;
  char buf[200];
  std::snprintf(buf, sizeof buf, "pass %u/%u  %.2f / %.2f GB (%.1f%%)  %.1f MB/s  ETA %s",
                pass_ + 1, p.passes, static_cast<double>(in_pass) / kGB,
                static_cast<double>(bytes_per_pass_) / kGB,
                100.0 * static_cast<double>(in_pass) / static_cast<double>(bytes_per_pass_),
                last_mb_per_s_, FormatDuration(eta).c_str());
  if (tty_) {
    out_ << '\r' << buf << "   " << (final_line ? "\n" : "") << std::flush;
  } else {
    out_ << buf << '\n' << std::flush;
  }
  printed_ = true;
}

std::function<void(const AdaptiveProgress&)> AdaptiveProgressLine(std::ostream& out, bool tty,
                                                                  std::uint64_t range_bytes) {
  struct State {
    std::chrono::steady_clock::time_point last{};
    int phase = -1;
  };
  auto state = std::make_shared<State>();
  return [&out, tty, range_bytes, state](const AdaptiveProgress& p) {
    const int phase = p.phase == AdaptiveProgress::Phase::kGrid ? 0 : 1;
    const auto now = std::chrono::steady_clock::now();
    const bool last = phase == 0 && p.done == p.total;
    if (tty ? (now - state->last < kTtyInterval && !last && phase == state->phase)
            : phase == state->phase) {
      return;
    }
    state->last = now;
    state->phase = phase;
    const std::string what =
        phase == 0
            ? "grid: probe " + std::to_string(p.done) + " of " + std::to_string(p.total)
            : "refining edge " + std::to_string(p.done + 1) + " of " + std::to_string(p.total);
    out << (tty ? "\r\033[K" : "") << "zcav: adaptive: " << what << ", "
        << FormatFixed(static_cast<double>(p.bytes_read) / kGB, 3) << " GB read ("
        << FormatFixed(100.0 * static_cast<double>(p.bytes_read) /
                           static_cast<double>(std::max<std::uint64_t>(1, range_bytes)),
                       3)
        << " % of the range; GB = 10^9 B)" << (tty ? "" : "\n") << std::flush;
  };
}

SeveralProgress::SeveralProgress(std::ostream& err, std::vector<std::string> names, bool tty)
    : err_(err),
      names_(std::move(names)),
      done_(names_.size(), 0),
      total_(names_.size(), 1),
      tty_(tty) {}

void SeveralProgress::Total(std::size_t lane, std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  total_[lane] = std::max<std::uint64_t>(bytes, 1);
}

void SeveralProgress::Add(std::size_t lane, std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  done_[lane] += bytes;
  bytes_since_ += bytes;
  const auto now = clock_.Now();
  if (last_.count() == 0) last_ = now;
  const auto every = tty_ ? std::chrono::milliseconds(500) : std::chrono::milliseconds(10000);
  if (now - last_ < every) return;
  std::string line = "zcav:";
  for (std::size_t i = 0; i < names_.size(); ++i) {
    line += " " + names_[i] + " " +
            FormatFixed(100.0 * static_cast<double>(done_[i]) / static_cast<double>(total_[i]), 1) +
            "%";
  }
  const double seconds = static_cast<double>((now - last_).count()) * 1e-9;
  line +=
      "  together " + FormatFixed(static_cast<double>(bytes_since_) / seconds / kMB, 1) + " MB/s";
  err_ << (tty_ ? "\r" + line + "\x1b[K" : line + "\n") << std::flush;
  printed_ = true;
  last_ = now;
  bytes_since_ = 0;
}

void SeveralProgress::Finish() {
  std::lock_guard lock(mutex_);
  if (tty_ && printed_) err_ << "\n";
}

void LaneProgressSink::OnStart(const RunInfo& run) {
  std::uint64_t bytes = 0;
  for (std::uint64_t b = 0; b < run.plan.block_count; ++b) bytes += run.plan.BlockLength(b);
  shared_.Total(lane_, bytes * run.plan.passes);
}

}  // namespace zcav
