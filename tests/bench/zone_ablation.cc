// The zone detector's stages switched off one at a time (zones/ablation.h)
// over the corpora, against the detector with every stage on: for each
// stage, how many zone tables change (zone count, a boundary or the curve
// type) and how far the accuracy against ground truth moves. The table of
// docs/zone-detector.md. Not part of ctest.
//
// Corpora (paths from the repository root, the working directory):
//   files   every curve `zcav zones` reads in tests/data/real-curves,
//           tests/data/import, tests/data/golden*, tests/data/plot and examples/
//           (read as `zcav zones FILE` does: the recorded blur and rotation);
//           the real curves whose reading is an exact zone count
//           (tests/data/real-curves/README.md) are ground truth;
//   tables  the four real disks' zone tables (tests/data/zone-tables), drawn
//           over 2,000 blocks with 0.3 % noise and 3 outliers (seeds 1-3) and
//           over 100,000 blocks with AR(1) noise, phi 0.8, 1.2 % (seeds 1-5),
//           as zone_detector_test.cc does: exact zone count and boundary F1.
// The unit tests' synthetic corpora are measured through zcav_tests with
// ZCAV_TEST_SKIP_STAGE (tests/unit/analysis/stage_hook.cc).
//
//   cmake --build build --target zone_ablation && build/tests/zone_ablation
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "zcav/analysis/result_zones.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/analysis/zones/ablation.h"
#include "zcav/device/device_info.h"
#include "zcav/format/data_reader.h"
#include "zcav/format/zone_table.h"

namespace {

namespace fs = std::filesystem;
using zcav::zones::Stage;

// One curve of a corpus: its points and options, and the exact zone count
// and boundaries a person gives it (truth_zones 0: none known).
struct Case {
  std::string name;
  zcav::Curve curve;
  zcav::ZoneOptions options;
  bool optical = false;
  std::size_t truth_zones = 0;
  bool has_boundaries = false;
  std::vector<std::size_t> boundaries;
};

// What a zone table is, for the comparison: zone count, edges and type.
struct Table {
  std::vector<std::uint64_t> edges;
  zcav::CurveType type = zcav::CurveType::kOther;
  bool operator==(const Table&) const = default;
};

Table TableOf(const zcav::ZoneAnalysis& a) {
  Table t;
  for (const zcav::Zone& z : a.zones) t.edges.push_back(z.first_block);
  if (!a.zones.empty()) t.edges.push_back(a.zones.back().end_block);
  t.type = a.type;
  return t;
}

// Boundary F1 with a margin of max(1 block, 0.5 % of N), as the unit tests.
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

// The exact readings of tests/data/real-curves/README.md.
const std::map<std::string, std::size_t> kRealTruth{
    {"fuse-4zones-jitter.json", 4},    {"fuse-4zones-jitter-passes2.json", 4},
    {"fuse-flat-36mb-jitter.json", 1}, {"fuse-flat-36mb-jitter-qd1-b200k.json", 1},
    {"throttle-40mb-loop.json", 1},    {"throttle-40mb-loop-b1m.json", 1},
    {"virtio-file-2g-2.json", 1},
};

void AddFiles(std::vector<Case>& cases) {
  std::vector<fs::path> paths;
  for (const char* dir : {"tests/data/real-curves", "tests/data/import", "tests/data/plot",
                          "examples", "examples/fleet"}) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (!e.is_regular_file() || name == "README.md") continue;
      if (std::string(dir).rfind("examples", 0) == 0 && e.path().extension() != ".json" &&
          e.path().extension() != ".dat") {
        continue;
      }
      paths.push_back(e.path());
    }
  }
  for (const auto& e : fs::directory_iterator("tests/data")) {
    if (e.path().filename().string().rfind("golden", 0) == 0) paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const fs::path& path : paths) {
    try {
      const zcav::SavedResult p = zcav::ReadProfile(path.string());
      if (p.points.empty()) continue;
      Case c;
      c.name = path.string();
      c.curve = p.points;
      c.options.blur_blocks = p.blur_blocks;
      c.options.non_rotational = zcav::KnownNotToRotate(zcav::RecordedDevice(p));
      c.optical = zcav::GuessMedia(p.device_path) != zcav::Media::kNone;
      const auto truth = kRealTruth.find(path.filename().string());
      if (path.parent_path().filename() == "real-curves" && truth != kRealTruth.end()) {
        c.truth_zones = truth->second;
      }
      cases.push_back(std::move(c));
    } catch (const std::exception&) {
      // Not a curve (a zones table, a plot script): `zcav zones` refuses it too.
    }
  }
}

struct Band {
  double start = 0, end = 0, rate = 0;
  int zone = 0;
};

std::vector<Band> ReadZoneTable(const fs::path& path) {
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

zcav::Curve ToCurve(const std::vector<double>& rates) {
  const std::uint64_t block = std::uint64_t{1} << 20;
  zcav::Curve curve;
  for (std::size_t i = 0; i < rates.size(); ++i) curve.push_back({i * block, block, rates[i]});
  return curve;
}

// The zone tables as zone_detector_test.cc draws them (white noise with
// outliers at N = 2,000; AR(1) noise at N = 100,000).
void AddZoneTables(std::vector<Case>& cases) {
  for (const char* file : {"DEC_RZ26.csv", "HP_C2247A.csv", "Quantum_AtlasIII_QM39100TD-SW.csv",
                           "Seagate_ST41601N.csv"}) {
    const std::vector<Band> bands = ReadZoneTable(fs::path("tests/data/zone-tables") / file);
    for (const std::size_t n : {std::size_t{2000}, std::size_t{100000}}) {
      std::vector<double> rates(n);
      std::vector<std::size_t> truth;
      std::size_t b = 0;
      int previous = -1;
      for (std::size_t i = 0; i < n; ++i) {
        const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
        while (b + 1 < bands.size() && x >= bands[b].end) ++b;
        rates[i] = bands[b].rate;
        // A boundary where the visible zone changes.
        if (previous >= 0 && bands[b].zone != previous) truth.push_back(i);
        previous = bands[b].zone;
      }
      for (std::uint64_t seed = 1; seed <= (n == 2000 ? 3U : 5U); ++seed) {
        std::mt19937_64 rng(seed);
        std::vector<double> noisy = rates;
        std::normal_distribution<double> gauss(0.0, 1.0);
        if (n == 2000) {
          for (double& r : noisy) r *= 1 + 0.003 * gauss(rng);
          std::uniform_int_distribution<std::size_t> pos(20, n - 20);
          for (int k = 0; k < 3; ++k) noisy[pos(rng)] *= 0.3;
        } else {
          const double phi = 0.8, noise = 0.012, innovation = noise * std::sqrt(1 - phi * phi);
          double e = noise * gauss(rng);
          for (double& r : noisy) {
            r *= std::exp(e);
            e = phi * e + innovation * gauss(rng);
          }
        }
        Case c;
        c.name = std::string(file) + " N=" + std::to_string(n) + " seed " + std::to_string(seed);
        c.curve = ToCurve(noisy);
        c.truth_zones = truth.size() + 1;
        c.has_boundaries = true;
        c.boundaries = truth;
        cases.push_back(std::move(c));
      }
    }
  }
}

// Accuracy of one run against the cases' ground truth.
struct Score {
  std::size_t truths = 0, exact = 0, changed = 0, count_changed = 0, type_changed = 0;
  std::size_t f1_cases = 0;
  double f1 = 0;
};

Score Run(const std::vector<Case>& cases, const std::vector<Table>* baseline,
          std::vector<Table>* tables) {
  Score s;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const zcav::ZoneAnalysis a = zcav::DetectZones(c.curve, c.options, c.optical);
    const Table t = TableOf(a);
    if (tables) tables->push_back(t);
    if (baseline) {
      const Table& base = (*baseline)[i];
      s.changed += !(t == base);
      s.count_changed += t.edges.size() != base.edges.size();
      s.type_changed += t.type != base.type;
    }
    if (c.truth_zones > 0) {
      ++s.truths;
      s.exact += a.zones.size() == c.truth_zones;
    }
    if (c.has_boundaries) {
      std::vector<std::size_t> found;
      for (std::size_t k = 1; k < a.zones.size(); ++k) found.push_back(a.zones[k].first_block);
      s.f1 += BoundaryF1(c.boundaries, found, c.curve.size());
      ++s.f1_cases;
    }
  }
  return s;
}

void PrintRow(const char* name, const Score& files, const Score& tables) {
  std::printf(
      "| %-18s | %3zu (%zu count, %zu type) | %3zu (%zu count, %zu type) | %zu/%zu | "
      "%zu/%zu | %.3f |\n",
      name, files.changed, files.count_changed, files.type_changed, tables.changed,
      tables.count_changed, tables.type_changed, files.exact, files.truths, tables.exact,
      tables.truths, tables.f1_cases ? tables.f1 / static_cast<double>(tables.f1_cases) : 0);
}

}  // namespace

int main() {
  std::vector<Case> files, tables;
  AddFiles(files);
  AddZoneTables(tables);
  std::printf("corpora: %zu curve files (%zu with an exact reading), %zu zone-table curves\n\n",
              files.size(),
              static_cast<std::size_t>(std::count_if(files.begin(), files.end(),
                                                     [](const Case& c) { return c.truth_zones; })),
              tables.size());
  std::vector<Table> base_files, base_tables;
  const Score all_files = Run(files, nullptr, &base_files);
  const Score all_tables = Run(tables, nullptr, &base_tables);
  std::printf(
      "| stage off | files changed | zone tables changed | files exact | tables exact | "
      "tables F1 |\n|---|---|---|---|---|---|\n");
  PrintRow("(none)", all_files, all_tables);
  for (unsigned s = 0; s < static_cast<unsigned>(Stage::kCount); ++s) {
    const Stage stage = static_cast<Stage>(s);
    zcav::zones::SetSkippedStages(zcav::zones::StageSet{}.With(stage));
    const Score f = Run(files, &base_files, nullptr);
    const Score t = Run(tables, &base_tables, nullptr);
    PrintRow(std::string(zcav::zones::StageName(stage)).c_str(), f, t);
  }
  zcav::zones::SetSkippedStages({});
  return 0;
}
