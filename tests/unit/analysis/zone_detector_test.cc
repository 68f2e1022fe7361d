#include "zcav/analysis/zone_detector.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr std::uint64_t kBlockBytes = std::uint64_t{1} << 20;

std::vector<zcav::CurvePoint> ToCurve(const std::vector<double>& rates) {
  std::vector<zcav::CurvePoint> curve(rates.size());
  for (std::size_t i = 0; i < rates.size(); ++i) {
    curve[i] = {i * kBlockBytes, kBlockBytes, rates[i]};
  }
  return curve;
}

zcav::ZoneAnalysis Detect(const std::vector<double>& rates, zcav::ZoneOptions options = {},
                          bool optical = false) {
  const auto curve = ToCurve(rates);
  return zcav::DetectZones(curve, options, optical);
}

// A zone table: levels (MB/s at the zone's start), lengths (blocks), droop
// (fraction lost linearly across the zone).
struct Table {
  std::vector<double> level;
  std::vector<std::size_t> length;
  std::vector<double> droop;
};

std::vector<double> Render(const Table& t) {
  std::vector<double> rates;
  for (std::size_t k = 0; k < t.level.size(); ++k) {
    const double len = static_cast<double>(t.length[k]);
    for (std::size_t j = 0; j < t.length[k]; ++j) {
      rates.push_back(t.level[k] * (1 - t.droop[k] * (static_cast<double>(j) + 0.5) / len));
    }
  }
  return rates;
}

// Zone edges rarely fall on block edges: the first block of a zone then reads
// partly at the previous zone's rate (time-weighted, so the harmonic mix).
// Done at half the edges between zones of >= 6 blocks (a 3-block zone with a
// straddling block has barely 2 blocks of its own level).
void AddStraddlingBlocks(std::vector<double>& rates, const Table& t, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  std::size_t at = 0;
  for (std::size_t k = 0; k + 1 < t.length.size(); ++k) {
    at += t.length[k];
    if (t.length[k] < 6 || t.length[k + 1] < 6 || u(rng) < 0.5) continue;
    const double before = rates[at - 1], after = rates[at];
    const double f = 0.1 + 0.8 * u(rng);  // share of the block in the previous zone
    rates[at] = 1 / (f / before + (1 - f) / after);
  }
}

std::vector<std::size_t> Boundaries(const Table& t) {
  std::vector<std::size_t> b;
  std::size_t at = 0;
  for (std::size_t k = 0; k + 1 < t.length.size(); ++k) b.push_back(at += t.length[k]);
  return b;
}

std::vector<std::size_t> Boundaries(const zcav::ZoneAnalysis& a) {
  std::vector<std::size_t> b;
  for (std::size_t k = 1; k < a.zones.size(); ++k) b.push_back(a.zones[k].first_block);
  return b;
}

// Multiplicative Gaussian noise: real rates jitter in proportion to the rate.
void AddNoise(std::vector<double>& rates, double noise_rel, std::mt19937_64& rng) {
  std::normal_distribution<double> gauss(0.0, noise_rel);
  for (double& r : rates) r *= 1 + gauss(rng);
}

// Single-block (and a few two-block) events far off the curve; returns the
// blocks. Events are never adjacent to each other, and stay 3 blocks away
// from the zone boundaries `edges` and out of zones shorter than 10 blocks:
// a dip-and-spike pair inside a 3-block zone leaves one clean block, and a
// spike right after a step that lands on the previous level looks like that
// level; no method can call those (unit tests cover outliers at edges).
std::vector<std::size_t> AddOutliers(std::vector<double>& rates, std::size_t events,
                                     std::mt19937_64& rng,
                                     const std::vector<std::size_t>& edges = {}) {
  std::vector<std::size_t> blocks;
  const std::size_t n = rates.size();
  if (n < 20) return blocks;
  std::vector<bool> allowed(n, true);
  std::vector<std::size_t> cuts{0};
  cuts.insert(cuts.end(), edges.begin(), edges.end());
  cuts.push_back(n);
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    const std::size_t begin = cuts[k], end = cuts[k + 1];
    for (std::size_t i = begin; i < end; ++i) {
      const bool near_edge = (k > 0 && i < begin + 3) || (k + 2 < cuts.size() && i + 3 >= end);
      allowed[i] = end - begin >= 10 && !near_edge;
    }
  }
  std::uniform_int_distribution<std::size_t> pos(0, n - 2);
  std::uniform_real_distribution<double> u(0, 1);
  std::set<std::size_t> taken;
  for (std::size_t e = 0, tries = 0; e < events && tries < 1000; ++tries) {
    const std::size_t at = pos(rng);
    const std::size_t width = u(rng) < 0.2 ? 2 : 1;
    bool clear = allowed[at] && allowed[at + width - 1];
    for (std::size_t k = (at >= 2 ? at - 2 : 0); k <= at + width + 1; ++k) {
      if (taken.count(k)) clear = false;
    }
    if (!clear) continue;
    for (std::size_t k = at; k < at + width; ++k) {
      // Mostly dips (a slow sector, a hiccup), sometimes spikes (cache).
      rates[k] *= u(rng) < 0.8 ? 0.15 + 0.45 * u(rng) : 1.3 + 0.5 * u(rng);
      taken.insert(k);
      blocks.push_back(k);
    }
    ++e;
  }
  std::sort(blocks.begin(), blocks.end());
  return blocks;
}

// Boundary F1 with a margin of max(1 block, 0.5 % of N); one-to-one greedy
// matching in position order.
double BoundaryF1(const std::vector<std::size_t>& truth, const std::vector<std::size_t>& found,
                  std::size_t n) {
  if (truth.empty() && found.empty()) return 1;
  if (truth.empty() || found.empty()) return 0;
  const double margin = std::max(1.0, 0.005 * static_cast<double>(n));
  std::vector<bool> used(found.size(), false);
  std::size_t matched = 0;
  for (const std::size_t t : truth) {
    std::size_t best = found.size();
    double best_d = margin + 1;
    for (std::size_t k = 0; k < found.size(); ++k) {
      const double d = std::fabs(static_cast<double>(found[k]) - static_cast<double>(t));
      if (!used[k] && d <= margin && d < best_d) best = k, best_d = d;
    }
    if (best < found.size()) used[best] = true, ++matched;
  }
  if (matched == 0) return 0;
  const double p = static_cast<double>(matched) / static_cast<double>(found.size());
  const double r = static_cast<double>(matched) / static_cast<double>(truth.size());
  return 2 * p * r / (p + r);
}

// The detector's default penalty; the corpus test checks it is what
// DetectZones reports.
double DefaultPenalty(std::size_t n) { return 3 * std::log(static_cast<double>(n)); }

// How far above the first zone the rate^2-linear trend of the later zones
// puts the first zone's middle (the geometry that defines a clipped curve).
double CeilingExcess(const Table& t) {
  if (t.level.size() < 3) return 0;
  double n = 0, sx = 0, sxx = 0, su = 0, sxu = 0, total = 0, at = 0;
  for (const auto l : t.length) total += static_cast<double>(l);
  for (std::size_t k = 0; k < t.level.size(); ++k) {
    const double len = static_cast<double>(t.length[k]);
    const double x = (at + len / 2) / total;
    const double mean = t.level[k] * (1 - t.droop[k] / 2);
    at += len;
    if (k == 0) continue;
    n += len, sx += len * x, sxx += len * x * x, su += len * mean * mean,
        sxu += len * x * mean * mean;
  }
  const double b = (sxu - sx * su / n) / (sxx - sx * sx / n);
  const double a = (su - b * sx) / n;
  const double x0 = static_cast<double>(t.length[0]) / 2 / total;
  return std::sqrt(std::max(0.0, a + b * x0)) / (t.level[0] * (1 - t.droop[0] / 2)) - 1;
}

struct Scenario {
  std::uint64_t seed = 0;
  std::string kind;  // staircase, cav, pcav, flat, clipped
  zcav::CurveType type = zcav::CurveType::kOther;
  std::vector<double> rates;
  std::vector<std::size_t> boundaries;
  std::vector<std::size_t> outliers;
};

std::size_t DrawN(std::mt19937_64& rng, bool large) {
  std::uniform_real_distribution<double> u(0, 1);
  if (large) return 50000 + static_cast<std::size_t>(50000 * u(rng));
  return static_cast<std::size_t>(std::exp(std::log(100.0) + u(rng) * std::log(200.0)));
}

std::size_t OutlierEvents(std::size_t n, std::mt19937_64& rng) {
  return std::uniform_int_distribution<std::size_t>(0, std::min<std::size_t>(8, n / 100 + 1))(rng);
}

// Random staircase zone table. The ranges: 1-30 zones, steps down to
// 1 %, zone lengths down to 1 % of N (and never below the detector's minimum
// of max(3, 0.2 % N) blocks), noise 0.2-2 % (multiplicative), droop 0-1 %
// inside zones, isolated outliers, blocks straddling zone edges.
//
// Detectability. Within those ranges many tables are invisible to any method:
// a 1 % step between 3-block zones under 2 % noise is 0.6 standard errors.
// So every step is raised, if needed, to at least (sqrt(beta) + 3) standard
// errors of a difference of zone means, noise * sqrt(1/La + 1/Lb) (relative),
// where beta = 3 ln N is the detector's penalty: sqrt(beta) standard errors
// is where a penalised segmentation stops accepting a step, and 3 more put
// 99.9 % of the noisy realisations on the visible side. Steps stay >= 1 %.
// A typical step per disk is what a 2.5:1 outer/inner ratio allows, each
// step 0.5-1.5x that; tables that end above 3:1 after raising steps for
// detectability (30 zones of 3 blocks under 2 % noise need 13 % steps, a
// 50:1 "disk") are redrawn: the corpus keeps them to real-disk shapes, so at
// small N with high noise it has fewer zones than 30.
//
// Unambiguous type. A staircase whose first plateau sits well below the
// rate^2 trend of the others looks exactly like a clipped disk (that is what
// clipped means), so such tables (excess >= 5 %; the detector's threshold is
// 12 %, the real disks measure 4-8 %) are redrawn too.
Scenario MakeStaircase(std::uint64_t seed, bool large) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  Scenario s;
  s.seed = seed;
  s.kind = "staircase";
  const std::size_t n = DrawN(rng, large);
  const std::size_t min_len =
      std::max<std::size_t>(3, static_cast<std::size_t>(std::ceil(0.01 * static_cast<double>(n))));
  const double z_min = std::sqrt(DefaultPenalty(n)) + 3;
  const std::size_t max_zones = std::min<std::size_t>(30, n / min_len);
  Table t;
  double noise = 0;
  for (;;) {
    const std::size_t zones = std::uniform_int_distribution<std::size_t>(1, max_zones)(rng);
    noise = 0.002 + 0.018 * u(rng);
    const bool droop = u(rng) < 0.5;
    t = Table{};
    // Lengths: the minimum plus an exponential (Dirichlet(1)) share of the rest.
    std::vector<double> w(zones);
    double sum = 0;
    for (auto& x : w) sum += (x = -std::log(1 - u(rng)));
    std::size_t used = 0;
    for (std::size_t k = 0; k < zones; ++k) {
      const std::size_t extra =
          static_cast<std::size_t>(static_cast<double>(n - zones * min_len) * w[k] / sum);
      t.length.push_back(min_len + extra);
      used += min_len + extra;
    }
    t.length.back() += n - used;
    const double top = std::exp(std::log(20.0) + u(rng) * std::log(25.0));  // 20-500 MB/s
    const double typical =
        zones > 1 ? std::max(0.01, 1 - std::pow(2.5, -1.0 / static_cast<double>(zones - 1))) : 0;
    double level = top;
    for (std::size_t k = 0; k < zones; ++k) {
      t.level.push_back(level);
      t.droop.push_back(droop ? 0.01 * u(rng) : 0.0);
      if (k + 1 == zones) break;
      const double se = noise * std::sqrt(1.0 / static_cast<double>(t.length[k]) +
                                          1.0 / static_cast<double>(t.length[k + 1]));
      const double step = std::max({0.01, typical * (0.5 + u(rng)), z_min * se});
      level *= (1 - t.droop[k]) * (1 - step);
    }
    if (level * (1 - t.droop.back()) >= top / 3 && CeilingExcess(t) < 0.05) break;
  }
  s.rates = Render(t);
  s.boundaries = Boundaries(t);
  AddStraddlingBlocks(s.rates, t, rng);
  AddNoise(s.rates, noise, rng);
  s.outliers = AddOutliers(s.rates, OutlierEvents(n, rng), rng, s.boundaries);
  s.type = t.level.size() == 1 ? zcav::CurveType::kFlat : zcav::CurveType::kZoned;
  return s;
}

// Smooth optical curves: CAV (rate^2 linear in position, 2.0-2.6:1 as CD
// 16-40x and DVD 6.5-16x) and P-CAV (CAV up to a knee at 25-70 %, then flat).
Scenario MakeSmooth(std::uint64_t seed, bool partial) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  Scenario s;
  s.seed = seed;
  s.kind = partial ? "pcav" : "cav";
  s.type = partial ? zcav::CurveType::kPcav : zcav::CurveType::kCav;
  const std::size_t n = DrawN(rng, false);
  const double inner = 2 + 20 * u(rng);
  const double ratio = partial ? 1.5 + 0.7 * u(rng) : 2.0 + 0.6 * u(rng);
  const double knee = partial ? 0.25 + 0.45 * u(rng) : 1.0;
  const double noise = 0.002 + 0.018 * u(rng);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = std::min((static_cast<double>(i) + 0.5) / static_cast<double>(n), knee);
    s.rates.push_back(inner * std::sqrt(1 + (ratio * ratio - 1) * x / knee));
  }
  AddNoise(s.rates, noise, rng);
  s.outliers = AddOutliers(s.rates, OutlierEvents(n, rng), rng);
  return s;
}

// One level (SSD, bus-limited disk) with 0-1 % droop over the whole curve.
Scenario MakeFlat(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  Scenario s;
  s.seed = seed;
  s.kind = "flat";
  s.type = zcav::CurveType::kFlat;
  const std::size_t n = DrawN(rng, false);
  const double level = 20 + 3000 * u(rng);
  const double droop = 0.01 * u(rng);
  for (std::size_t i = 0; i < n; ++i) {
    s.rates.push_back(level * (1 - droop * static_cast<double>(i) / static_cast<double>(n)));
  }
  AddNoise(s.rates, 0.002 + 0.018 * u(rng), rng);
  s.outliers = AddOutliers(s.rates, OutlierEvents(n, rng), rng);
  return s;
}

// A naturally zoned disk (10-20 zones of equal radial width, outer/inner
// 1.8-2.4:1, capacity share proportional to the rate, as sim:hdd) behind a
// bus that caps it flat over the outer 45-85 %; >= 3 natural zones remain
// below the cap. The first drop (cap to the next zone) is 30-100 % of a
// natural step and detectable as in MakeStaircase; the cap leaves the ceiling
// >= 18 % below the trend of the inner zones (the detector's threshold: 12 %).
Scenario MakeClipped(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  Scenario s;
  s.seed = seed;
  s.kind = "clipped";
  s.type = zcav::CurveType::kClipped;
  for (;;) {
    const std::size_t n = DrawN(rng, false);
    const int natural = 10 + static_cast<int>(11 * u(rng));
    const double outer = 50 + 200 * u(rng);
    const double inner = outer / (1.8 + 0.6 * u(rng));
    const double noise = 0.002 + 0.018 * u(rng);
    std::vector<double> rate(static_cast<std::size_t>(natural));
    double total = 0;
    for (int k = 0; k < natural; ++k) {
      rate[static_cast<std::size_t>(k)] = outer + (inner - outer) * k / (natural - 1);
      total += rate[static_cast<std::size_t>(k)];
    }
    // The cap: between the levels of natural zones j-1 and j, where zone j
    // starts at 45-85 % of the capacity.
    const double want = 0.45 + 0.4 * u(rng);
    double at = 0;
    std::size_t j = 0;
    while (j < rate.size() && at + rate[j] / total <= want) at += rate[j++] / total;
    if (j == 0 || rate.size() - j < 3) continue;
    const double cap = rate[j] + (0.3 + 0.7 * u(rng)) * (rate[j - 1] - rate[j]);
    Table t;
    std::size_t used = 0;
    std::size_t ceiling = 0;
    for (std::size_t k = 0; k < rate.size(); ++k) {
      const std::size_t len =
          static_cast<std::size_t>(std::llround(static_cast<double>(n) * rate[k] / total));
      if (k < j) {
        ceiling += len;
        continue;
      }
      if (k == j) {
        t.level.push_back(cap), t.length.push_back(ceiling), t.droop.push_back(0);
      }
      t.level.push_back(rate[k]), t.length.push_back(len), t.droop.push_back(0);
      used += len;
    }
    used += ceiling;
    if (used > n) t.length.back() -= std::min(t.length.back(), used - n);
    if (used < n) t.length.back() += n - used;
    const std::size_t min_len = std::max<std::size_t>(
        3, static_cast<std::size_t>(std::ceil(0.002 * static_cast<double>(n))));
    const double z_min = std::sqrt(DefaultPenalty(n)) + 3;
    bool visible = CeilingExcess(t) >= 0.18;
    for (std::size_t k = 0; k + 1 < t.level.size(); ++k) {
      const double se = noise * std::sqrt(1.0 / static_cast<double>(t.length[k]) +
                                          1.0 / static_cast<double>(t.length[k + 1]));
      if (1 - t.level[k + 1] / t.level[k] < std::max(0.01, z_min * se)) visible = false;
      if (t.length[k] < min_len || t.length[k + 1] < min_len) visible = false;
    }
    if (!visible) continue;
    s.rates = Render(t);
    s.boundaries = Boundaries(t);
    AddStraddlingBlocks(s.rates, t, rng);
    AddNoise(s.rates, noise, rng);
    s.outliers = AddOutliers(s.rates, OutlierEvents(n, rng), rng, s.boundaries);
    return s;
  }
}

bool AllFlagged(const std::vector<std::size_t>& injected, const zcav::ZoneAnalysis& a) {
  std::set<std::size_t> found;
  for (const auto& o : a.outliers) found.insert(o.block);
  return std::all_of(injected.begin(), injected.end(),
                     [&](std::size_t b) { return found.count(b) > 0; });
}

// Reads a zone table CSV of tests/data/zone-tables: comment lines
// start with '#', then a header row. Returns (start_frac, end_frac, rate,
// visible_zone) rows.
struct Band {
  double start_frac = 0, end_frac = 0, mb_per_s = 0;
  int visible_zone = 0;
};

std::vector<Band> ReadZoneTable(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> header;
  std::vector<Band> bands;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    if (header.empty()) {
      header = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t k = 0; k < header.size() && k < cells.size(); ++k) row[header[k]] = cells[k];
    bands.push_back({std::stod(row.at("start_frac")), std::stod(row.at("end_frac")),
                     std::stod(row.at("seq_MBps_est")), std::stoi(row.at("visible_zone"))});
  }
  return bands;
}

}  // namespace

// The figures the issue asks for (quoted in the closing note) are printed as
// a warning: run `zcav_tests "[zones]"` to see them. A curve that misses is
// listed with its seed; MakeStaircase(seed, ...) etc. rebuild it.
TEST_CASE("DetectZones finds the zones and the curve type of a synthetic ground-truth corpus",
          "[zones]") {
  std::vector<Scenario> corpus;
  for (std::uint64_t i = 0; i < 1000; ++i) corpus.push_back(MakeStaircase(10000 + i, i % 25 == 0));
  for (std::uint64_t i = 0; i < 100; ++i) corpus.push_back(MakeSmooth(20000 + i, false));
  for (std::uint64_t i = 0; i < 100; ++i) corpus.push_back(MakeSmooth(30000 + i, true));
  for (std::uint64_t i = 0; i < 100; ++i) corpus.push_back(MakeFlat(40000 + i));
  for (std::uint64_t i = 0; i < 100; ++i) corpus.push_back(MakeClipped(50000 + i));

  std::size_t staircases = 0, large = 0, exact = 0, typed = 0, injected = 0, flagged = 0;
  std::size_t clipped = 0, clipped_exact = 0;
  double f1_sum = 0;
  std::map<std::string, std::pair<std::size_t, std::size_t>> by_kind;  // right, total
  std::ostringstream misses;
  for (const Scenario& s : corpus) {
    const std::uint64_t seed = s.seed;
    CAPTURE(seed, s.kind, s.rates.size());
    const zcav::ZoneAnalysis a = Detect(s.rates);
    CHECK(a.penalty == Approx(DefaultPenalty(s.rates.size())));
    // Outliers are flagged and never zones: hard requirements on every curve.
    CHECK(AllFlagged(s.outliers, a));
    injected += s.outliers.size();
    std::set<std::size_t> reported;
    for (const auto& o : a.outliers) reported.insert(o.block);
    for (const std::size_t b : s.outliers) flagged += reported.count(b);
    for (const zcav::Zone& z : a.zones) {
      const auto inside = std::count_if(s.outliers.begin(), s.outliers.end(), [&](std::size_t b) {
        return b >= z.first_block && b < z.end_block;
      });
      CHECK(2 * static_cast<std::uint64_t>(inside) < z.end_block - z.first_block);
    }
    const bool type_ok = a.type == s.type;
    typed += type_ok;
    auto& kind = by_kind[s.kind];
    kind.first += type_ok;
    ++kind.second;
    std::string why;
    if (!type_ok) why += std::string(" type=") + zcav::CurveTypeName(a.type);
    const bool count_ok = a.zones.size() == s.boundaries.size() + 1;
    if (s.kind == "staircase") {
      ++staircases;
      large += s.rates.size() >= 50000;
      f1_sum += BoundaryF1(s.boundaries, Boundaries(a), s.rates.size());
      exact += count_ok;
    }
    if (s.kind == "clipped") {
      ++clipped;
      clipped_exact += count_ok;
    }
    if (!count_ok && (s.kind == "staircase" || s.kind == "clipped")) {
      why += " zones=" + std::to_string(a.zones.size()) + "/" +
             std::to_string(s.boundaries.size() + 1);
    }
    if (!why.empty()) {
      misses << "  seed " << seed << " " << s.kind << " N=" << s.rates.size() << why << "\n";
    }
  }
  const double mean_f1 = f1_sum / static_cast<double>(staircases);
  const double exact_rate = static_cast<double>(exact) / static_cast<double>(staircases);
  const double type_rate = static_cast<double>(typed) / static_cast<double>(corpus.size());
  std::ostringstream report;
  report << "zone corpus: " << corpus.size() << " scenarios; " << staircases << " staircases ("
         << large << " with N >= 50,000): mean boundary F1 " << mean_f1 << ", exact zone count "
         << 100 * exact_rate << " %; curve type right " << 100 * type_rate << " % of all (";
  for (const auto& [kind, counts] : by_kind) {
    report << kind << " " << counts.first << "/" << counts.second << " ";
  }
  report << "); clipped zone count exact " << clipped_exact << "/" << clipped
         << "; injected outlier blocks flagged " << flagged << "/" << injected
         << "\nmisses (seed, kind, N, what):\n"
         << misses.str();
  WARN(report.str());
  CHECK(mean_f1 >= 0.97);
  CHECK(exact_rate >= 0.95);
  CHECK(type_rate >= 0.95);
}

TEST_CASE("DetectZones counts the zones of real disks' zone tables", "[zones]") {
  const std::filesystem::path dir = std::filesystem::path(ZCAV_TEST_DATA_DIR) / "zone-tables";
  REQUIRE(std::filesystem::is_directory(dir));
  // N = 2000 blocks and 0.3 % noise: the Seagate ST41601N's adjacent zones
  // differ by 1.1-1.2 % and its shortest zone is 3.7 % (75 blocks), so each
  // step is > 20 standard errors; at 2 % noise and N = 200 it would be ~1.
  const std::map<std::string, std::pair<std::size_t, zcav::CurveType>> expected{
      {"DEC_RZ26.csv", {1, zcav::CurveType::kFlat}},
      {"HP_C2247A.csv", {8, zcav::CurveType::kZoned}},
      {"Quantum_AtlasIII_QM39100TD-SW.csv", {9, zcav::CurveType::kZoned}},
      {"Seagate_ST41601N.csv", {14, zcav::CurveType::kZoned}},
  };
  std::size_t seen = 0;
  for (const auto& [file, want] : expected) {
    const std::filesystem::path path = dir / file;
    REQUIRE(std::filesystem::exists(path));
    ++seen;
    const std::vector<Band> bands = ReadZoneTable(path);
    REQUIRE(!bands.empty());
    const std::size_t n = 2000;
    std::vector<double> rates(n);
    std::vector<std::size_t> truth;
    int previous_zone = -1;
    for (std::size_t i = 0; i < n; ++i) {
      const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
      const Band* band = &bands.back();
      for (const Band& b : bands) {
        if (x >= b.start_frac && x < b.end_frac) band = &b;
      }
      rates[i] = band->mb_per_s;
      if (previous_zone >= 0 && band->visible_zone != previous_zone) truth.push_back(i);
      previous_zone = band->visible_zone;
    }
    REQUIRE(truth.size() + 1 == want.first);
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
      CAPTURE(file, seed);
      std::mt19937_64 rng(seed);
      std::vector<double> noisy = rates;
      AddNoise(noisy, 0.003, rng);
      const std::vector<std::size_t> outliers = AddOutliers(noisy, 3, rng, truth);
      const zcav::ZoneAnalysis a = Detect(noisy);
      CHECK(a.zones.size() == want.first);
      CHECK(a.type == want.second);
      CHECK(BoundaryF1(truth, Boundaries(a), n) == 1.0);
      CHECK(AllFlagged(outliers, a));
      if (seed == 1) WARN(file << ": " << a.zones.size() << " zones, " << a.description);
    }
  }
  CHECK(seen == expected.size());
}

TEST_CASE("A single slow block among fast ones is an outlier, not a zone", "[zones]") {
  const std::uint64_t seed = 7;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<double> rates(300, 32.0);
  AddNoise(rates, 0.005, rng);
  rates[150] = 7.7;  // bonnie++ seed 000: a 7.7 MB/s block among 32 MB/s ones
  rates[220] = 9.0;  // and a two-block hiccup
  rates[221] = 11.0;
  const zcav::ZoneAnalysis a = Detect(rates);
  REQUIRE(a.outliers.size() == 3);
  CHECK(a.outliers[0].block == 150);
  CHECK(a.outliers[0].mb_per_s == 7.7);
  CHECK(a.outliers[0].offset_bytes == 150 * kBlockBytes);
  CHECK(a.outliers[1].block == 220);
  CHECK(a.outliers[2].block == 221);
  REQUIRE(a.zones.size() == 1);
  CHECK(a.type == zcav::CurveType::kFlat);
  CHECK(a.zones[0].min_mb_per_s > 30);  // excluded from the zone's statistics
}

TEST_CASE("A three-block tail one slow block pulls down is its zone's, not a zone", "[zones]") {
  // Per-block medians (MB/s, 4 MiB blocks, 5 passes) of the real_fuse_zones
  // FUSE fixture (zones 120/95/70/50 MB/s at 0/68/116/164 MiB) read at
  // --queue-depth 16 on a busy host, 2026-12-06: the 118.0 block made
  // [56, 68) MiB a fifth zone at a mean 0.6 % under zone 1 (median 0.25 %).
  const std::vector<double> rates = {
      118.4, 119.6, 119.8, 120.1, 119.9, 120.0, 119.8, 120.0, 120.0, 119.9, 120.0, 115.2,
      120.2, 120.2, 120.0, 118.0, 119.7, 95.0,  95.1,  94.9,  95.0,  95.1,  95.3,  95.1,
      94.9,  95.0,  95.0,  94.9,  94.7,  69.9,  68.5,  72.9,  69.9,  69.9,  70.0,  70.0,
      70.0,  69.9,  70.0,  69.9,  69.2,  50.3,  50.0,  50.0,  50.0,  50.0,  49.9,  50.2};
  const zcav::ZoneAnalysis a = Detect(rates);
  REQUIRE(a.zones.size() == 4);
  CHECK(a.zones[0].end_block == 17);
  CHECK(a.zones[1].end_block == 29);
  CHECK(a.zones[2].end_block == 41);
  CHECK(a.type == zcav::CurveType::kZoned);
}

TEST_CASE("A three-block plateau between steps is a zone, not three outliers", "[zones]") {
  std::vector<double> rates;
  for (int i = 0; i < 100; ++i) rates.push_back(60);
  for (int i = 0; i < 3; ++i) rates.push_back(55);
  for (int i = 0; i < 100; ++i) rates.push_back(50);
  const std::uint64_t seed = 3;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  AddNoise(rates, 0.002, rng);
  const zcav::ZoneAnalysis a = Detect(rates);
  CHECK(a.outliers.empty());
  REQUIRE(a.zones.size() == 3);
  CHECK(a.zones[1].first_block == 100);
  CHECK(a.zones[1].end_block == 103);
}

TEST_CASE("A three-block dip the curve comes back from is texture, not a zone or outliers",
          "[zones]") {
  std::vector<double> rates;
  for (int i = 0; i < 100; ++i) rates.push_back(60);
  for (int i = 0; i < 3; ++i) rates.push_back(50);
  for (int i = 0; i < 100; ++i) rates.push_back(60);
  const std::uint64_t seed = 3;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  AddNoise(rates, 0.002, rng);
  const zcav::ZoneAnalysis a = Detect(rates);
  CHECK(a.outliers.empty());
  REQUIRE(a.zones.size() == 1);
  CHECK(a.type == zcav::CurveType::kFlatDips);
  CHECK(a.dip_blocks == std::vector<std::uint64_t>{100, 101, 102});
  CHECK(a.texture.dip_count == 1);
  CHECK(a.texture.dip_depth_rel == Approx(1 - 50.0 / 60).margin(0.01));
  CHECK(a.zones[0].min_mb_per_s > 55);  // the dip is left out of the zone's statistics
}

TEST_CASE("Outliers right at a step edge are flagged and leave the edge in place", "[zones]") {
  std::vector<double> rates;
  for (int i = 0; i < 100; ++i) rates.push_back(20);
  for (int i = 0; i < 100; ++i) rates.push_back(19);
  const std::uint64_t seed = 41;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  AddNoise(rates, 0.004, rng);
  rates[100] = 7;   // a dip on the first block of the slower zone
  rates[150] = 30;  // a spike then a dip, beside the new level
  rates[151] = 6;
  rates[99] = 5;  // a dip on the last block of the faster zone
  const zcav::ZoneAnalysis a = Detect(rates);
  REQUIRE(a.outliers.size() == 4);
  CHECK(a.outliers[0].block == 99);
  CHECK(a.outliers[1].block == 100);
  CHECK(a.outliers[2].block == 150);
  CHECK(a.outliers[3].block == 151);
  REQUIRE(a.zones.size() == 2);
  CHECK(a.zones[1].first_block == Approx(100).margin(1));
}

TEST_CASE("A slow droop inside zones does not become a staircase", "[zones]") {
  for (const std::size_t n : {2000u, 20000u, 200000u}) {
    CAPTURE(n);
    Table t;
    for (int k = 0; k < 3; ++k) {
      t.level.push_back(100 * std::pow(0.97, k) * (k == 0 ? 1 : 0.99));
      t.length.push_back(n / 3 + (k == 2 ? n % 3 : 0));
      t.droop.push_back(0.01);  // 1 % lost across each zone, then a 3 % step
    }
    std::vector<double> rates = Render(t);
    const std::uint64_t seed = n;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    AddNoise(rates, 0.0005, rng);  // below the 0.1 % sigma floor: the hard case
    const zcav::ZoneAnalysis a = Detect(rates);
    CHECK(a.zones.size() == 3);
    CHECK(a.type == zcav::CurveType::kZoned);
    CHECK(BoundaryF1(Boundaries(t), Boundaries(a), n) == 1.0);
  }
}

TEST_CASE("Sensitivity trades small steps for fewer zones", "[zones]") {
  std::vector<double> rates;
  for (int i = 0; i < 400; ++i) rates.push_back(100);
  for (int i = 0; i < 400; ++i) rates.push_back(97);  // 3 % step
  for (int i = 0; i < 400; ++i) rates.push_back(70);  // 28 % step
  const std::uint64_t seed = 11;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  AddNoise(rates, 0.01, rng);
  const zcav::ZoneAnalysis normal = Detect(rates);
  CHECK(normal.zones.size() == 3);
  zcav::ZoneOptions coarse;
  coarse.sensitivity = 10;
  const zcav::ZoneAnalysis fewer = Detect(rates, coarse);
  CHECK(fewer.zones.size() == 2);
  CHECK(fewer.penalty == Approx(10 * normal.penalty));
  zcav::ZoneOptions fine;
  fine.sensitivity = 0.01;
  CHECK(Detect(rates, fine).zones.size() > 3);  // noise now counts as steps
}

TEST_CASE("The minimum zone length keeps zones at least that long", "[zones]") {
  std::vector<double> rates;
  for (int i = 0; i < 1000; ++i) rates.push_back(80);
  for (int i = 0; i < 20; ++i) rates.push_back(70);
  for (int i = 0; i < 1000; ++i) rates.push_back(60);
  const std::uint64_t seed = 5;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  AddNoise(rates, 0.005, rng);
  const zcav::ZoneAnalysis normal = Detect(rates);
  CHECK(normal.min_zone_blocks == 5);  // max(3, 0.2 % of 2020)
  REQUIRE(normal.zones.size() == 3);
  CHECK(normal.zones[1].first_block == 1000);
  CHECK(normal.zones[1].end_block == 1020);
  zcav::ZoneOptions options;
  options.min_zone_blocks = 50;
  const zcav::ZoneAnalysis coarse = Detect(rates, options);
  CHECK(coarse.min_zone_blocks == 50);
  for (const auto& z : coarse.zones) CHECK(z.end_block - z.first_block >= 50);
  // The 20-block zone cannot be one on its own any more.
  CHECK(std::none_of(coarse.zones.begin(), coarse.zones.end(),
                     [](const zcav::Zone& z) { return z.end_block - z.first_block < 50; }));
  CHECK(Boundaries(coarse) != Boundaries(normal));
}

TEST_CASE("Empty, one-point and constant curves give sensible analyses", "[zones]") {
  const zcav::ZoneAnalysis empty = Detect({});
  CHECK(empty.zones.empty());
  CHECK(empty.type == zcav::CurveType::kOther);
  CHECK(empty.description == "no data");

  const zcav::ZoneAnalysis one = Detect({42.0});
  REQUIRE(one.zones.size() == 1);
  CHECK(one.zones[0].mb_per_s == 42.0);
  CHECK(one.zones[0].end_bytes == kBlockBytes);
  CHECK(one.type == zcav::CurveType::kFlat);
  CHECK(one.outliers.empty());

  const zcav::ZoneAnalysis constant = Detect(std::vector<double>(5000, 530.0));
  REQUIRE(constant.zones.size() == 1);
  CHECK(constant.noise_sigma_mb_per_s == Approx(0.53));  // the 0.1 % floor
  CHECK(constant.zones[0].stddev_mb_per_s == 0);
  CHECK(constant.share_at_90 == 1.0);
  CHECK(constant.outer_inner_ratio == 1.0);
  CHECK(constant.description == "flat at 530.0 MB/s (one level)");

  const zcav::ZoneAnalysis zero = Detect(std::vector<double>(100, 0.0));
  CHECK(zero.zones.size() == 1);

  CHECK(Detect(std::vector<double>(5000, 10.5), {}, /*optical=*/true).type ==
        zcav::CurveType::kClv);
}

TEST_CASE("Levels alternating per head are reported as alternating", "[zones]") {
  // Short plateaus alternating between two levels (per-head zoning), the
  // whole pattern falling slowly.
  std::vector<double> rates;
  for (int k = 0; k < 24; ++k) {
    const double base = 200 - 3 * k;
    for (int i = 0; i < 40; ++i) rates.push_back(k % 2 == 0 ? base : base * 0.85);
  }
  const std::uint64_t seed = 17;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  AddNoise(rates, 0.005, rng);
  const zcav::ZoneAnalysis a = Detect(rates);
  CHECK(a.alternating);
  CHECK(a.zones.size() == 24);
  CHECK(a.type == zcav::CurveType::kZoned);
  CHECK(a.description.find("alternating") != std::string::npos);
}

TEST_CASE("A fast disk behind a slow bus is clipped; the same disk without the bus is zoned",
          "[zones]") {
  // As sim:hdd: 16 zones 60 -> 30 MB/s, capacity share proportional to rate.
  double total = 0;
  for (int k = 0; k < 16; ++k) total += 60 - 2 * k;
  Table natural, capped;
  const std::size_t n = 4000;
  for (int k = 0; k < 16; ++k) {
    const double rate = 60 - 2 * k;
    natural.level.push_back(rate);
    natural.length.push_back(static_cast<std::size_t>(n * rate / total));
    natural.droop.push_back(0);
  }
  natural.length.back() +=
      n - std::accumulate(natural.length.begin(), natural.length.end(), std::size_t{0});
  std::vector<double> free_rates = Render(natural);
  std::vector<double> capped_rates = free_rates;
  for (double& r : capped_rates) r = std::min(r, 35.0);
  const std::uint64_t seed = 23;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  AddNoise(free_rates, 0.005, rng);
  AddNoise(capped_rates, 0.005, rng);

  const zcav::ZoneAnalysis zoned = Detect(free_rates);
  CHECK(zoned.type == zcav::CurveType::kZoned);
  CHECK(zoned.zones.size() == 16);
  CHECK(zoned.outer_inner_ratio == Approx(2.0).epsilon(0.01));
  CHECK(zoned.description == "16 zones falling from 60.0 to 30.0 MB/s (2.00:1)");

  const zcav::ZoneAnalysis clipped = Detect(capped_rates);
  CHECK(clipped.type == zcav::CurveType::kClipped);
  CHECK(clipped.zones.size() == 4);  // the ceiling, then 34, 32, 30
  CHECK(clipped.zones[0].mb_per_s == Approx(35).epsilon(0.01));
  CHECK(clipped.description.find("ceiling at 35.0 MB/s") != std::string::npos);
}

TEST_CASE("A CAV disc is one smooth zone with its fit, not dozens of steps", "[zones]") {
  // sim:cd: 40x at 58 mm, rate proportional to the radius, from 25 mm.
  const std::size_t n = 5000;
  const double outer = 40 * 0.1536, inner = outer * 25 / 58;
  std::vector<double> rates;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = (static_cast<double>(i) + 0.5) / n;
    rates.push_back(std::sqrt(inner * inner + (outer * outer - inner * inner) * x));
  }
  const std::uint64_t seed = 29;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  AddNoise(rates, 0.01, rng);
  const zcav::ZoneAnalysis a = Detect(rates, {}, /*optical=*/true);
  CHECK(a.type == zcav::CurveType::kCav);
  REQUIRE(a.zones.size() == 1);
  CHECK(a.fit_start_mb_per_s == Approx(inner).epsilon(0.01));
  CHECK(a.fit_end_mb_per_s == Approx(outer).epsilon(0.01));
  CHECK(a.fit_r2 > 0.99);
  CHECK(a.description.rfind("CAV: rising smoothly from 2.65 to 6.14 MB/s", 0) == 0);
}

TEST_CASE("A P-CAV disc is a rise then a flat part split at the knee", "[zones]") {
  const std::size_t n = 3000;
  std::vector<double> rates;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = std::min((static_cast<double>(i) + 0.5) / n, 0.4);
    rates.push_back(10 * std::sqrt(1 + 3 * x / 0.4));  // 10 -> 20 MB/s, then flat
  }
  const std::uint64_t seed = 31;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  AddNoise(rates, 0.005, rng);
  const zcav::ZoneAnalysis a = Detect(rates);
  CHECK(a.type == zcav::CurveType::kPcav);
  REQUIRE(a.zones.size() == 2);
  CHECK(a.zones[1].first_block == Approx(1200).margin(15));
  CHECK(a.zones[1].mb_per_s == Approx(20).epsilon(0.01));
  CHECK(a.fit_start_mb_per_s == Approx(10).epsilon(0.02));
  CHECK(a.share_at_90 == Approx(0.6 + 0.4 * (1 - (0.81 * 4 - 1) / 3)).epsilon(0.02));
}

TEST_CASE("Rising steps are zoned CLV", "[zones]") {
  std::vector<double> rates;
  for (const double level : {8.3, 11.1, 13.9, 16.6}) {  // 6x, 8x, 10x, 12x DVD
    for (int i = 0; i < 500; ++i) rates.push_back(level);
  }
  const std::uint64_t seed = 37;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  AddNoise(rates, 0.01, rng);
  const zcav::ZoneAnalysis a = Detect(rates, {}, /*optical=*/true);
  CHECK(a.type == zcav::CurveType::kZclv);
  CHECK(a.zones.size() == 4);
}

TEST_CASE("The summary gives ratio, fastest and slowest zones and shares of the peak", "[zones]") {
  std::vector<double> rates;
  for (int i = 0; i < 300; ++i) rates.push_back(100);  // 30 %
  for (int i = 0; i < 300; ++i) rates.push_back(80);   // 30 %
  for (int i = 0; i < 400; ++i) rates.push_back(45);   // 40 %
  const zcav::ZoneAnalysis a = Detect(rates);
  REQUIRE(a.zones.size() == 3);
  CHECK(a.zones[1].start_bytes == 300 * kBlockBytes);
  CHECK(a.zones[1].end_bytes == 600 * kBlockBytes);
  CHECK(a.zones[2].mb_per_s == 45);
  CHECK(a.fastest_zone == 0);
  CHECK(a.slowest_zone == 2);
  CHECK(a.outer_inner_ratio == Approx(100.0 / 45));
  CHECK(a.share_at_90 == Approx(0.3));
  CHECK(a.share_at_75 == Approx(0.6));
  CHECK(a.share_at_50 == Approx(0.6));
  CHECK(std::string(zcav::CurveTypeName(a.type)) == "zoned");
  CHECK(a.description == "3 zones falling from 100.0 to 45.0 MB/s (2.22:1)");
}

TEST_CASE("A Curve gives back exactly the points added, whatever their spacing and spread",
          "[zones]") {
  std::vector<zcav::CurvePoint> points;
  // Evenly spaced blocks with no spread, a gap, a partial last block, then a
  // spread equal to the rate, then one that says more (stored from then on).
  for (std::uint64_t i = 0; i < 10; ++i) {
    points.push_back({i * kBlockBytes, kBlockBytes, 50.0 + static_cast<double>(i)});
  }
  points.push_back({12 * kBlockBytes, kBlockBytes, 40});
  points.push_back({13 * kBlockBytes, kBlockBytes / 2, 41});
  points.push_back({20 * kBlockBytes, kBlockBytes, 30, 30, 30});
  points.push_back({21 * kBlockBytes, kBlockBytes, 31, 29, 33});
  points.push_back({5 * kBlockBytes, 7, 0, 0, 0});  // out of order: kept as given
  const zcav::Curve curve(points);
  REQUIRE(curve.size() == points.size());
  const std::vector<zcav::CurvePoint> back = curve.ToVector();
  for (std::size_t i = 0; i < points.size(); ++i) {
    CAPTURE(i);
    for (const zcav::CurvePoint& p : {back[i], curve[i]}) {
      CHECK(p.offset_bytes == points[i].offset_bytes);
      CHECK(p.length_bytes == points[i].length_bytes);
      CHECK(p.mb_per_s == points[i].mb_per_s);
      CHECK(p.min_mb_per_s == points[i].min_mb_per_s);
      CHECK(p.max_mb_per_s == points[i].max_mb_per_s);
    }
    CHECK(curve.offset_bytes(i) == points[i].offset_bytes);
    CHECK(curve.length_bytes(i) == points[i].length_bytes);
    CHECK(curve.mb_per_s(i) == points[i].mb_per_s);
  }
  CHECK(curve.front().mb_per_s == 50);
  CHECK(curve.back().length_bytes == 7);
  const zcav::Curve same_spread{{0, 512, 9, 9, 9}, {512, 512, 8, 8, 8}};
  CHECK(same_spread[1].min_mb_per_s == 8);
  CHECK(same_spread[1].max_mb_per_s == 8);
}

TEST_CASE("A curve longer than kMaxDetailPoints is segmented on buckets, reported per block",
          "[zones]") {
  // 3 blocks per bucket; edges that are no multiple of 3; 1 % noise; three
  // single slow blocks.
  const std::size_t n = 2 * zcav::kMaxDetailPoints + 1000;
  const std::vector<std::size_t> edges = {0, 400001, 900002, 1500000, 1800004, n};
  const std::vector<double> levels = {60, 55, 50, 44, 40};
  const std::vector<std::size_t> slow = {123457, 1200001, 1999999};
  const std::uint64_t seed = 2026;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.01);
  zcav::Curve curve;
  curve.reserve(n);
  std::size_t zone = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i >= edges[zone + 1]) ++zone;
    double rate = levels[zone] * (1 + noise(rng));
    if (std::find(slow.begin(), slow.end(), i) != slow.end()) rate = 20;
    curve.push_back({i * kBlockBytes, kBlockBytes, rate});
  }
  const zcav::ZoneAnalysis a = zcav::DetectZones(curve, {});
  REQUIRE(a.zones.size() == levels.size());
  CHECK(a.type == zcav::CurveType::kZoned);
  for (std::size_t k = 0; k < levels.size(); ++k) {
    CAPTURE(k);
    // Edges to the block, figures over the blocks (no slow block among them).
    CHECK(a.zones[k].first_block == edges[k]);
    CHECK(a.zones[k].end_block == edges[k + 1]);
    CHECK(a.zones[k].start_bytes == edges[k] * kBlockBytes);
    CHECK(a.zones[k].mb_per_s == Approx(levels[k]).epsilon(0.001));
    CHECK(a.zones[k].min_mb_per_s > levels[k] * 0.9);
    CHECK(a.zones[k].max_mb_per_s < levels[k] * 1.1);
  }
  // The slow blocks, and at most a few noise blocks (5 sigma: about one in
  // 1.7 million).
  CHECK(a.outliers.size() <= slow.size() + 3);
  for (const std::size_t block : slow) {
    CAPTURE(block);
    const auto it = std::find_if(a.outliers.begin(), a.outliers.end(),
                                 [&](const zcav::Outlier& o) { return o.block == block; });
    REQUIRE(it != a.outliers.end());
    CHECK(it->offset_bytes == block * kBlockBytes);
    CHECK(it->mb_per_s == 20);
  }
  CHECK(a.min_zone_blocks % 3 == 0);
  CHECK(a.noise_sigma_mb_per_s == Approx(0.01 * 50).epsilon(0.1));
  CHECK(a.share_at_90 == Approx(static_cast<double>(edges[2]) / static_cast<double>(n)));
  CHECK(a.description == "5 zones falling from 60.0 to 40.0 MB/s (1.50:1)");
}

// ---------------------------------------------------------------------------
// Structured noise: the curves real SSDs, NVMe drives, virtual and cached
// disks make. Their jitter is correlated from block to block (a host's cache,
// a controller's background work), heavy-tailed and bursty; the detector must
// not call that texture zones.

namespace {

// Multiplies `rates` by exp(e) where e is a stationary AR(1) series with
// lag-1 correlation `phi` and marginal standard deviation `noise_rel`.
void AddAr1Noise(std::vector<double>& rates, double phi, double noise_rel, std::mt19937_64& rng) {
  std::normal_distribution<double> gauss(0.0, 1.0);
  const double innovation = noise_rel * std::sqrt(1 - phi * phi);
  double e = noise_rel * gauss(rng);
  for (double& r : rates) {
    r *= std::exp(e);
    e = phi * e + innovation * gauss(rng);
  }
}

struct NoisyCase {
  std::uint64_t seed = 0;
  std::string kind;
  std::vector<double> rates;
  std::vector<std::size_t> boundaries;
  double phi = 0, noise = 0;
};

// Flat (SSD, NVMe, virtual disk): one level, AR(1) noise with phi 0-0.95 and
// 0.5-3 % marginal noise, N 100-20,000.
NoisyCase MakeFlatAr1(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  NoisyCase c;
  c.seed = seed;
  c.kind = "flat-ar1";
  const std::size_t n = DrawN(rng, false);
  c.phi = 0.95 * u(rng);
  c.noise = 0.005 + 0.025 * u(rng);
  c.rates.assign(n, 20 + 10000 * u(rng));
  AddAr1Noise(c.rates, c.phi, c.noise, rng);
  return c;
}

// Two tiers (a host cache or an SSD's cache over the first 10-80 %, then the
// device's own rate, 1.3-5x slower), with the same noise.
NoisyCase MakeTwoTier(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  NoisyCase c;
  c.seed = seed;
  c.kind = "two-tier";
  const std::size_t n = DrawN(rng, false);
  c.phi = 0.95 * u(rng);
  c.noise = 0.005 + 0.025 * u(rng);
  const std::size_t edge = static_cast<std::size_t>((0.1 + 0.7 * u(rng)) * static_cast<double>(n));
  const double slow = 20 + 3000 * u(rng);
  const double ratio = 1.3 + 3.7 * u(rng);
  for (std::size_t i = 0; i < n; ++i) c.rates.push_back(i < edge ? slow * ratio : slow);
  c.boundaries = {edge};
  AddAr1Noise(c.rates, c.phi, c.noise, rng);
  return c;
}

// A flat curve with recurring short dips (SSD garbage collection): every
// 40-200 blocks a dip of 3-8 blocks to 30-80 % of the level, light white
// noise. One zone: the dips are texture.
NoisyCase MakeFlatDips(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  NoisyCase c;
  c.seed = seed;
  c.kind = "flat-dips";
  const std::size_t n = 1000 + static_cast<std::size_t>(9000 * u(rng));
  const std::size_t period = 40 + static_cast<std::size_t>(160 * u(rng));
  const std::size_t width = 3 + static_cast<std::size_t>(6 * u(rng));
  const double depth = 0.3 + 0.5 * u(rng);
  c.rates.assign(n, 100 + 3000 * u(rng));
  for (std::size_t at = period / 2; at + width < n; at += period) {
    for (std::size_t k = at; k < at + width; ++k) c.rates[k] *= depth;
  }
  c.noise = 0.003 + 0.01 * u(rng);
  AddNoise(c.rates, c.noise, rng);
  return c;
}

// Heavy tails and bursts: a flat curve whose noise is Student-t (3 degrees of
// freedom, 1-3 %) with bursts of 2-6 blocks at 1.5-4x the level (a host that
// answers from its cache now and then).
NoisyCase MakeFlatBursts(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::student_t_distribution<double> t3(3);
  NoisyCase c;
  c.seed = seed;
  c.kind = "flat-bursts";
  const std::size_t n = DrawN(rng, false);
  c.noise = 0.01 + 0.02 * u(rng);
  c.rates.assign(n, 50 + 5000 * u(rng));
  for (double& r : c.rates) r *= std::exp(c.noise * t3(rng) / std::sqrt(3.0));
  const std::size_t bursts = n / 150;
  for (std::size_t b = 0; b < bursts; ++b) {
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, n - 7)(rng);
    const std::size_t width = 2 + static_cast<std::size_t>(5 * u(rng));
    const double factor = 1.5 + 2.5 * u(rng);
    for (std::size_t k = at; k < at + width; ++k) c.rates[k] *= factor;
  }
  return c;
}

// A real disk's zone table over N blocks.
std::vector<double> RenderZoneTable(const std::vector<Band>& bands, std::size_t n,
                                    std::vector<std::size_t>& truth) {
  std::vector<double> rates(n);
  truth.clear();
  int previous_zone = -1;
  std::size_t b = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    while (b + 1 < bands.size() && x >= bands[b].end_frac) ++b;
    rates[i] = bands[b].mb_per_s;
    if (previous_zone >= 0 && bands[b].visible_zone != previous_zone) truth.push_back(i);
    previous_zone = bands[b].visible_zone;
  }
  return rates;
}

}  // namespace

// The figures the issue asks for are printed as a warning (run
// `zcav_tests "[zones][noise]"` to see them); misses are listed with seeds.
TEST_CASE("Correlated, heavy-tailed and bursty noise is texture, not zones", "[zones][noise]") {
  std::size_t flat_ok = 0, flat_total = 0, tier_ok = 0, tier_total = 0;
  std::size_t dips_ok = 0, dips_total = 0, bursts_ok = 0, bursts_total = 0;
  std::ostringstream misses;
  auto note = [&misses](const NoisyCase& c, const zcav::ZoneAnalysis& a) {
    misses << "  seed " << c.seed << " " << c.kind << " N=" << c.rates.size() << " phi=" << c.phi
           << " noise=" << c.noise << ": " << a.zones.size() << " zones, "
           << zcav::CurveTypeName(a.type) << "\n";
  };
  for (std::uint64_t i = 0; i < 300; ++i) {
    const NoisyCase c = MakeFlatAr1(60000 + i);
    CAPTURE(c.seed, c.phi, c.noise);
    const zcav::ZoneAnalysis a = Detect(c.rates);
    ++flat_total;
    const bool ok = a.zones.size() == 1 && a.type == zcav::CurveType::kFlat;
    flat_ok += ok;
    if (!ok) note(c, a);
  }
  for (std::uint64_t i = 0; i < 200; ++i) {
    const NoisyCase c = MakeTwoTier(70000 + i);
    CAPTURE(c.seed, c.phi, c.noise);
    zcav::ZoneOptions solid_state;
    solid_state.non_rotational = true;
    const zcav::ZoneAnalysis a = Detect(c.rates, solid_state);
    ++tier_total;
    const double n = static_cast<double>(c.rates.size());
    const bool ok = a.zones.size() == 2 &&
                    std::fabs(static_cast<double>(a.zones[1].first_block) -
                              static_cast<double>(c.boundaries[0])) <= std::max(1.0, 0.01 * n) &&
                    a.type == zcav::CurveType::kTiered;
    tier_ok += ok;
    if (!ok) note(c, a);
  }
  for (std::uint64_t i = 0; i < 100; ++i) {
    const NoisyCase c = MakeFlatDips(80000 + i);
    CAPTURE(c.seed);
    const zcav::ZoneAnalysis a = Detect(c.rates);
    ++dips_total;
    const bool ok =
        a.zones.size() == 1 && a.type == zcav::CurveType::kFlatDips && a.texture.dip_count > 0;
    dips_ok += ok;
    if (!ok) note(c, a);
  }
  for (std::uint64_t i = 0; i < 100; ++i) {
    const NoisyCase c = MakeFlatBursts(90000 + i);
    CAPTURE(c.seed);
    const zcav::ZoneAnalysis a = Detect(c.rates);
    ++bursts_total;
    const bool ok = a.zones.size() == 1;
    bursts_ok += ok;
    if (!ok) note(c, a);
  }
  // Real zone tables under AR(1) noise, phi 0.8, 1.2 % (marginal), on a
  // 100 GB disk in 1 MiB blocks (N = 100,000: at N = 1000 the Seagate's
  // 1.1 % steps are 2 standard errors of this noise, below any method).
  const std::filesystem::path dir = std::filesystem::path(ZCAV_TEST_DATA_DIR) / "zone-tables";
  std::size_t table_exact = 0, table_total = 0;
  double table_f1 = 0;
  for (const char* file : {"DEC_RZ26.csv", "HP_C2247A.csv", "Quantum_AtlasIII_QM39100TD-SW.csv",
                           "Seagate_ST41601N.csv"}) {
    const std::vector<Band> bands = ReadZoneTable(dir / file);
    REQUIRE(!bands.empty());
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      std::vector<std::size_t> truth;
      std::vector<double> rates = RenderZoneTable(bands, 100000, truth);
      std::mt19937_64 rng(seed);
      AddAr1Noise(rates, 0.8, 0.012, rng);
      const zcav::ZoneAnalysis a = Detect(rates);
      ++table_total;
      const bool exact = a.zones.size() == truth.size() + 1;
      table_exact += exact;
      table_f1 += BoundaryF1(truth, Boundaries(a), rates.size());
      if (!exact) {
        misses << "  " << file << " seed " << seed << ": " << a.zones.size() << " zones of "
               << truth.size() + 1 << "\n";
      }
    }
  }
  auto pct = [](std::size_t a, std::size_t b) {
    return 100.0 * static_cast<double>(a) / static_cast<double>(b);
  };
  std::ostringstream report;
  report << "structured-noise corpus: flat AR(1) one zone+flat " << pct(flat_ok, flat_total)
         << " % of " << flat_total << "; two-tier two zones within 1 % (tiered) "
         << pct(tier_ok, tier_total) << " % of " << tier_total << "; flat with dips "
         << pct(dips_ok, dips_total) << " % of " << dips_total << "; heavy tails+bursts one zone "
         << pct(bursts_ok, bursts_total) << " % of " << bursts_total
         << "; zone tables under AR(1) 0.8/1.2 %: exact " << pct(table_exact, table_total)
         << " % of " << table_total << ", mean F1 " << table_f1 / static_cast<double>(table_total)
         << "\nmisses:\n"
         << misses.str();
  WARN(report.str());
  CHECK(pct(flat_ok, flat_total) >= 97);
  CHECK(pct(tier_ok, tier_total) >= 95);
  CHECK(pct(dips_ok, dips_total) >= 90);
  CHECK(pct(bursts_ok, bursts_total) >= 90);
  CHECK(pct(table_exact, table_total) >= 90);
  CHECK(table_f1 / static_cast<double>(table_total) >= 0.95);
}

TEST_CASE("Blocks timed in bursts are grouped until the groups read at the device's rate",
          "[zones]") {
  // A 40 MB/s read throttle that lets reads through in 100 ms bursts, read
  // in 1 MiB blocks: most blocks complete at once (3500 MB/s), the block
  // that waits for the next burst takes the rest of the time.
  const std::uint64_t seed = 11;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> rates;
  const double block_mb = 1.048576;
  while (rates.size() < 4000) {
    const std::size_t burst = 2 + static_cast<std::size_t>(5 * u(rng));  // blocks per burst
    double fast_seconds = 0;
    for (std::size_t k = 0; k + 1 < burst; ++k) {
      const double r = 3000 + 1000 * u(rng);
      rates.push_back(r);
      fast_seconds += block_mb / r;
    }
    const double total_seconds = static_cast<double>(burst) * block_mb / 40;
    rates.push_back(block_mb / (total_seconds - fast_seconds));
  }
  const zcav::ZoneAnalysis a = Detect(rates);
  CHECK(a.resolution_blocks > 1);
  REQUIRE(a.zones.size() == 1);
  CHECK(a.type == zcav::CurveType::kFlat);
  CHECK(a.zones[0].mb_per_s == Approx(40).epsilon(0.1));
  CHECK(a.zones[0].end_block == rates.size());
  // The same curve said to be blurred over 8 blocks starts from groups of 8.
  zcav::ZoneOptions blurred;
  blurred.blur_blocks = 8;
  CHECK(Detect(rates, blurred).resolution_blocks >= 8);
  // A clean staircase keeps its blocks.
  CHECK(Detect(Render({{60, 50}, {500, 500}, {0, 0}})).resolution_blocks == 1);
}

TEST_CASE("Bands alternating over a falling envelope are texture; the zones follow the envelope",
          "[zones]") {
  // 8 zones falling 2:1 over 4000 blocks, under bands of 10 blocks at +-4 %.
  std::vector<double> rates;
  for (std::size_t i = 0; i < 4000; ++i) {
    const double envelope = 200 * (1 - 0.5 * static_cast<double>(i / 500) / 7);
    rates.push_back(envelope * ((i / 10) % 2 == 0 ? 1.04 : 0.96));
  }
  const std::uint64_t seed = 5;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  AddNoise(rates, 0.003, rng);
  const zcav::ZoneAnalysis a = Detect(rates);
  CHECK(a.texture.banded);
  CHECK(a.texture.band_period_blocks == Approx(20).margin(1));
  CHECK(a.texture.band_amplitude_rel == Approx(0.077).margin(0.01));
  REQUIRE(a.zones.size() == 8);
  CHECK(a.type == zcav::CurveType::kZoned);
  CHECK_FALSE(a.alternating);
  for (std::size_t k = 1; k < 8; ++k) {
    CHECK(std::fabs(static_cast<double>(a.zones[k].first_block) - 500.0 * static_cast<double>(k)) <=
          20);
  }
}
