#include "zcav/report/live_view.h"

#include <algorithm>
#include <sstream>
#include <thread>
#include <utility>

#include "zcav/analysis/step_origin.h"
#include "zcav/base/stats.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/report/plot.h"

namespace zcav {

namespace {

// How long the terminal mode waits for gnuplot to finish a frame.
constexpr std::chrono::seconds kFrameWait{3};

CurvePoint BlockPoint(const SweepPlan& plan, std::size_t block, double mb_per_s) {
  CurvePoint p;
  p.offset_bytes = plan.BlockOffset(block);
  p.length_bytes = plan.BlockLength(block);
  p.mb_per_s = mb_per_s;
  return p;
}

}  // namespace

Curve LiveLatestCurve(const LiveRates& rates, const SweepPlan& plan) {
  Curve curve;
  const std::size_t blocks = rates.empty() ? 0 : rates.front().size();
  for (std::size_t i = 0; i < blocks; ++i) {
    for (auto pass = rates.rbegin(); pass != rates.rend(); ++pass) {
      if ((*pass)[i] <= 0) continue;
      curve.push_back(BlockPoint(plan, i, (*pass)[i]));
      break;
    }
  }
  return curve;
}

Curve LiveMedianCurve(const LiveRates& rates, const SweepPlan& plan) {
  Curve curve;
  const std::size_t blocks = rates.empty() ? 0 : rates.front().size();
  std::vector<double> read;
  for (std::size_t i = 0; i < blocks; ++i) {
    read.clear();
    for (const std::vector<float>& pass : rates) {
      if (pass[i] > 0) read.push_back(pass[i]);
    }
    if (read.empty()) continue;
    const auto [lo, hi] = std::minmax_element(read.begin(), read.end());
    CurvePoint p = BlockPoint(plan, i, 0);
    p.min_mb_per_s = *lo;
    p.max_mb_per_s = *hi;
    p.mb_per_s = MedianInPlace(read);
    curve.push_back(p);
  }
  return curve;
}

ZoneAnalysis LiveZones(const LiveRates& rates, const SweepPlan& plan, const ZoneOptions& options,
                       bool optical) {
  const Curve median = LiveMedianCurve(rates, plan);
  ZoneAnalysis analysis = DetectZones(median, options, optical);
  if (rates.size() < 2 || analysis.zones.size() < 2) return analysis;
  std::vector<Curve> passes;
  for (std::size_t p = 0; p < rates.size(); ++p) {
    Curve pass;
    for (std::size_t i = 0; i < rates[p].size(); ++i) {
      if (rates[p][i] > 0) pass.push_back(BlockPoint(plan, i, rates[p][i]));
    }
    passes.push_back(std::move(pass));
  }
  ApplyStepOrigins(median, ClassifySteps(analysis, passes), analysis);
  return analysis;
}

LiveView::LiveView(LiveViewOptions options, Clock& clock)
    : options_(std::move(options)), clock_(clock) {}

LiveView::~LiveView() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  session_.reset();
}

void LiveView::OnStart(const RunInfo& run) {
  run_ = run;
  bytes_per_pass_ = 0;
  for (std::uint64_t i = 0; i < run.plan.block_count; ++i)
    bytes_per_pass_ += run.plan.BlockLength(i);
  start_ = clock_.Now();
  {
    std::lock_guard lock(mutex_);
    state_ = State{};
    state_.rates.assign(1, std::vector<float>(static_cast<std::size_t>(run.plan.block_count)));
  }
  // gnuplot's own complaints would land in the middle of the terminal: the
  // session sends its output nowhere.
  const bool window = options_.mode == LiveViewOptions::Mode::kWindow;
  Gnuplot& gnuplot = options_.gnuplot != nullptr ? *options_.gnuplot : CurrentGnuplot();
  session_ = gnuplot.Start(window, window);
  broken_ = session_ == nullptr;
  if (options_.mode == LiveViewOptions::Mode::kTerminal && options_.out != nullptr) {
    *options_.out << "\x1b[2J" << std::flush;  // a clear screen to draw on
  }
  thread_ = std::thread([this] { Loop(); });
}

void LiveView::OnSample(const Sample& x) {
  const double mb_per_s = MbPerS(x.length_bytes, x.elapsed);
  std::lock_guard lock(mutex_);
  const std::size_t blocks = state_.rates.front().size();
  while (state_.rates.size() <= x.pass) state_.rates.emplace_back(blocks);
  if (x.block_index < blocks) {
    state_.rates[x.pass][static_cast<std::size_t>(x.block_index)] = static_cast<float>(mb_per_s);
  }
  state_.pass = x.pass;
  state_.bytes_done += x.length_bytes;
  state_.last_mb_per_s = mb_per_s;
}

void LiveView::OnUnreadable(const UnreadableRange& x) {
  std::lock_guard lock(mutex_);
  state_.unreadable.push_back(x.offset_bytes);
}

void LiveView::OnSlowRegion(const SlowRegion& x) {
  std::lock_guard lock(mutex_);
  state_.slow.push_back(x.offset_bytes);
}

void LiveView::OnFinish(const SweepResult&) {
  {
    std::lock_guard lock(mutex_);
    state_.finished = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  session_.reset();  // gnuplot exits; a window stays (-persist)
}

int LiveView::frames() const {
  std::lock_guard lock(mutex_);
  return frames_;
}

void LiveView::Loop() {
  for (;;) {
    State snapshot;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, options_.every, [this] { return stop_ || state_.finished; });
      if (stop_ && !state_.finished) return;
      snapshot = state_;
    }
    if (!broken_) Draw(snapshot);
    if (snapshot.finished) return;
  }
}

std::string LiveView::StatusLine(const State& s) const {
  if (bytes_per_pass_ == 0) return "";
  const std::uint32_t passes = std::max<std::uint32_t>(run_.plan.passes, 1);
  const double total = static_cast<double>(bytes_per_pass_) * passes;
  const double done = static_cast<double>(s.bytes_done);
  const double in_pass = done - static_cast<double>(s.pass) * static_cast<double>(bytes_per_pass_);
  const double elapsed = static_cast<double>((clock_.Now() - start_).count()) * 1e-9;
  const double eta = done > 0 ? elapsed * (total - done) / done : 0;
  std::string line = "pass " + std::to_string(s.pass + 1) + "/" + std::to_string(passes) + "  " +
                     FormatFixed(in_pass / kGB, 2) + " of " +
                     FormatFixed(static_cast<double>(bytes_per_pass_) / kGB, 2) + " GB (" +
                     FormatFixed(100 * in_pass / static_cast<double>(bytes_per_pass_), 1) +
                     " %)  " + FormatFixed(s.last_mb_per_s, 1) + " MB/s";
  line += s.finished ? "  done" : "  ETA " + FormatDuration(eta);
  return line;
}

std::string LiveView::Commands(const State& s, const std::string& title,
                               std::vector<GnuplotRows>& data) {
  const SweepPlan& plan = run_.plan;
  // The curve read so far, and the zones of the medians over the passes.
  const Curve curve = LiveLatestCurve(s.rates, plan);
  ZoneAnalysis zones;
  if (curve.size() >= 8) {
    try {
      zones = LiveZones(s.rates, plan, options_.zones, options_.optical);
    } catch (const std::exception&) {
      zones = {};  // a frame without zones
    }
  }
  double top = 0;
  for (const CurvePoint& p : curve) top = std::max(top, p.mb_per_s);
  const double device_gb = static_cast<double>(run_.device.size_bytes) / kGB;
  std::ostringstream c;
  // The terminal has the status line below the chart instead of a title.
  c << (options_.mode == LiveViewOptions::Mode::kWindow ? "set title " + title + " noenhanced\n"
                                                        : std::string("unset title\n"))
    << "set xlabel 'position (GB, 10^9 B)' noenhanced\n"
    << "set ylabel 'read rate (MB/s, 10^6 B/s)' noenhanced\n"
    << "set xrange [0:" << FormatFixed(std::max(device_gb, 1e-9), 6) << "]\n"
    << "set yrange [0:" << FormatFixed(std::max(top * 1.15, 1.0), 1) << "]\n"
    << (options_.mode == LiveViewOptions::Mode::kWindow ? "set grid\nset key bottom left\n"
                                                        : "unset grid\nset key bottom left\n");
  std::vector<std::string> series;
  data.clear();
  const auto block = [&](GnuplotRows rows) { data.push_back(std::move(rows)); };
  GnuplotRows points;
  for (const CurvePoint& p : curve) {
    points.emplace_back(static_cast<double>(p.offset_bytes + p.length_bytes / 2) / kGB, p.mb_per_s);
  }
  if (!points.empty()) {
    series.push_back("'-' using 1:2 with lines lw 2 lc rgb '#08519c' title 'pass " +
                     std::to_string(s.pass + 1) + "'");
    block(points);
  }
  GnuplotRows levels;
  for (const Zone& z : zones.zones) {
    levels.emplace_back(static_cast<double>(z.start_bytes) / kGB, z.mb_per_s);
    levels.emplace_back(static_cast<double>(z.end_bytes) / kGB, z.mb_per_s);
    levels.emplace_back(-1, -1);  // a break between zones
  }
  if (!zones.zones.empty()) {
    series.push_back("'-' using 1:($2 < 0 ? NaN : $2) with lines lw 3 lc rgb '#d94801' title '" +
                     std::to_string(zones.zones.size()) + " zones so far'");
    block(levels);
  }
  const auto marks = [&](const std::vector<std::uint64_t>& offsets, const std::string& style,
                         const std::string& what) {
    if (offsets.empty()) return;
    GnuplotRows rows;
    for (std::uint64_t o : offsets) rows.emplace_back(static_cast<double>(o) / kGB, top * 1.05);
    series.push_back("'-' using 1:2 with points " + style + " title '" +
                     std::to_string(offsets.size()) + " " + what + "'");
    block(rows);
  };
  marks(s.unreadable, "pt 7 ps 1.2 lc rgb '#e31a1c'", "unreadable");
  marks(s.slow, "pt 11 ps 1.2 lc rgb '#6a3d9a'", "slow");
  if (series.empty()) return "";
  c << "plot ";
  for (std::size_t i = 0; i < series.size(); ++i) c << (i ? ", " : "") << series[i];
  c << "\n";
  return c.str();
}

void LiveView::Draw(const State& s) {
  const std::string status = StatusLine(s);
  const bool window = options_.mode == LiveViewOptions::Mode::kWindow;
  // A gnuplot string expression: the window's title has two lines.
  const std::string title =
      window ? GpQuote(options_.label) + " . \"\\n\" . " + GpQuote(status) : GpQuote(status);
  std::vector<GnuplotRows> data;
  const std::string plot = Commands(s, title, data);
  if (plot.empty()) return;
  std::ostringstream gp;
  if (window) {
    gp << "set term " << options_.terminal << " noraise title "
       << GpQuote("zcav --live " + options_.label) << "\n";
  } else {
    const int rows = std::max(options_.rows - 1, 10);
    gp << "set term dumb size " << std::max(options_.columns, 40) << "," << rows << "\n"
       << "set output " << GpQuote("frame.txt") << "\n";
  }
  gp << plot;
  bool sent = session_->Send(gp.str(), data);
  if (sent && !window) {
    sent = session_->Send(
        "unset output\nset print " + GpQuote("frame.done") + "\nprint 'done'\nunset print\n", {});
  }
  if (!sent) {
    broken_ = true;  // gnuplot went away: no more frames, the sweep goes on
    return;
  }
  if (!window) ShowTerminalFrame(status);
  std::lock_guard lock(mutex_);
  ++frames_;
}

void LiveView::ShowTerminalFrame(const std::string& status) {
  const auto deadline = std::chrono::steady_clock::now() + kFrameWait;
  while (!session_->ReadFile("frame.done")) {
    if (std::chrono::steady_clock::now() > deadline) return;  // a slow gnuplot: skip the frame
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::istringstream in(session_->ReadFile("frame.txt").value_or(""));
  std::string frame = "\x1b[H";  // from the top of the screen
  for (std::string line; std::getline(in, line);) {
    line.erase(std::remove(line.begin(), line.end(), '\f'), line.end());
    frame += line + "\x1b[K\n";
  }
  frame += status + "\x1b[K";
  session_->RemoveFile("frame.done");
  if (options_.out != nullptr) *options_.out << frame << std::flush;
}

}  // namespace zcav
