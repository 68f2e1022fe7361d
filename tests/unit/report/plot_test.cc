// Tests of the gnuplot scripts (golden text) and their rendering.
//
// Golden files: tests/data/plot/*.gp.golden. Regenerate after an intended
// change with
//   ZCAV_UPDATE_GOLDEN=1 build/tests/zcav_tests '[plot]'
// The render tests need gnuplot with the pngcairo and svg terminals (CI
// installs gnuplot-nox); without it they WARN and pass.
#include "zcav/report/plot.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "testutil.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

// A 30 GiB disk in 1 GiB blocks, three passes: three zones (60, 50, 40
// MB/s), the min-max spread +-1 MB/s, one slow block (an outlier).
PlotInput Hdd(const std::string& label = "ST31000 (ata)") {
  PlotInput in;
  in.label = label;
  in.profile.source = "hdd.dat";
  in.profile.device_bytes = 30 * kGiB;
  in.profile.passes = 3;
  in.profile.device_model = "ST31000";
  in.profile.transport = "ata";
  for (std::uint64_t i = 0; i < 30; ++i) {
    const double level = i < 10 ? 60 : i < 20 ? 50 : 40;
    const double rate = i == 14 ? 20 : level + (i % 2 == 0 ? 0.2 : -0.2);
    in.profile.points.push_back({i * kGiB, kGiB, rate, rate - 1, rate + 1});
  }
  in.zones = DetectZones(in.profile.points, ZoneOptions{});
  return in;
}

// A 700 MB CD read by a CAV drive: the rate rises with the radius.
PlotInput Cd() {
  PlotInput in;
  in.label = "CD-ROM (sim)";
  in.profile.source = "cd.dat";
  in.profile.device_bytes = 700'000'000;
  in.profile.passes = 1;
  in.media = Media::kCd;
  for (std::uint64_t i = 0; i < 70; ++i) {
    const double rate = 1.6 + 2.0 * static_cast<double>(i) / 69;  // about 10x to 24x
    in.profile.points.push_back({i * 10'000'000, 10'000'000, rate, 0, 0});
  }
  in.zones = DetectZones(in.profile.points, ZoneOptions{}, /*optical=*/true);
  return in;
}

// Access samples: the time grows with the seek distance from the middle,
// plus a fixed pattern of rotational delay.
PlotInput WithAccess(PlotInput in) {
  for (std::uint64_t i = 0; i < 200; ++i) {
    const std::uint64_t offset = (i * 7919 % 200) * (in.profile.device_bytes / 200);
    const double ms =
        2.0 + 6.0 * static_cast<double>(i * 31 % 100) / 100 + static_cast<double>(i % 9);
    in.access.push_back({offset, ms});
  }
  return in;
}

// The same curve read while another device was busy: 30 % slower.
PlotInput WithConcurrent(PlotInput in) {
  for (CurvePoint p : in.profile.points) {
    p.mb_per_s *= 0.7;
    p.min_mb_per_s = p.max_mb_per_s = 0;
    in.concurrent.push_back(p);
  }
  return in;
}

// The 30 GiB disk with read errors: 8 KiB unreadable inside block 5 (its
// other passes read it: the block stays), and all of block 14 unreadable (no
// clean read: no point). Slow: the same place in two passes, and one other.
PlotInput Failing() {
  PlotInput in = Hdd();
  std::vector<CurvePoint> points = in.profile.points.ToVector();
  points.erase(points.begin() + 14);
  in.profile.points = Curve(points);
  in.profile.unreadable = {{5 * kGiB + 4096, 8192, 5, 0, false}, {14 * kGiB, kGiB, 5, 0, true}};
  in.profile.slow_regions = {{20 * kGiB, 1 << 20, 0, 400, 10},
                             {20 * kGiB, 1 << 20, 1, 420, 10},
                             {25 * kGiB, 2 << 20, 0, 900, 20}};
  in.zones = DetectZones(in.profile.points, ZoneOptions{});
  return in;
}

// A 256 MiB FUSE device in 1 MiB blocks, one pass, the way the issue met it:
// four zones (140, 110, 80, 65 MB/s) under 2 % Gaussian jitter, and blurred
// blocks reading 3000 MB/s at `spikes`.
PlotInput Jittery(std::uint64_t seed, const std::vector<std::size_t>& spikes) {
  PlotInput in;
  in.label = "fuse 4-zone";
  in.profile.source = "fuse.dat";
  in.profile.device_bytes = 256 * kMiB;
  in.profile.passes = 1;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.02);
  for (std::size_t i = 0; i < 256; ++i) {
    const double level = i < 64 ? 140 : i < 128 ? 110 : i < 192 ? 80 : 65;
    double rate = level * (1 + noise(rng));
    if (std::count(spikes.begin(), spikes.end(), i) > 0) rate = 3000;
    in.profile.points.push_back({i * kMiB, kMiB, rate, 0, 0});
  }
  in.zones = DetectZones(in.profile.points, ZoneOptions{});
  return in;
}

// Jittery's four zones as a person reads them (blocks 0-63, 64-127, ...).
std::vector<Zone> FourZones() {
  std::vector<Zone> zones;
  for (std::uint64_t z = 0; z < 4; ++z) {
    Zone zone;
    zone.first_block = z * 64;
    zone.end_block = z * 64 + 64;
    zone.start_bytes = zone.first_block * kMiB;
    zone.end_bytes = zone.end_block * kMiB;
    zone.mb_per_s = z == 0 ? 140 : z == 1 ? 110 : z == 2 ? 80 : 65;
    zones.push_back(zone);
  }
  return zones;
}

// The top of the y axis a script sets ("set yrange [0:TOP]").
double YTop(const std::string& script) {
  const std::string key = "set yrange [0:";
  const std::size_t at = script.find(key);
  REQUIRE(at != std::string::npos);
  return std::stod(script.substr(at + key.size()));
}

// `count` zones of equal length over a flat 100 MB/s curve of 10 blocks
// each, their medians on a slow sawtooth (so that labels could collide).
PlotInput ManyZones(std::size_t count) {
  PlotInput in;
  in.label = "many";
  in.profile.source = "many.dat";
  in.profile.passes = 1;
  for (std::size_t z = 0; z < count; ++z) {
    const double level = 100 + static_cast<double>(z % 10);
    Zone zone;
    zone.first_block = z * 10;
    zone.end_block = z * 10 + 10;
    zone.start_bytes = zone.first_block * kMiB;
    zone.end_bytes = zone.end_block * kMiB;
    zone.mb_per_s = level;
    in.zones.zones.push_back(zone);
    for (std::uint64_t b = zone.first_block; b < zone.end_block; ++b) {
      in.profile.points.push_back({b * kMiB, kMiB, level, 0, 0});
    }
  }
  in.zones.type = CurveType::kOther;
  in.zones.fastest_zone = 9;
  in.zones.slowest_zone = 0;
  return in;
}

// Non-comment, non-blank lines of a data file.
std::vector<std::string> DataLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::string line = text.substr(start, nl == std::string::npos ? nl : nl - start);
    if (!line.empty() && line[0] != '#') lines.push_back(line);
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
  return lines;
}

// The 30 GiB disk with its chunk latencies recorded (1 MiB chunks, 3
// passes): every block's slowest chunk 8 ms (< 20) but block 3 (2 ms, < 5),
// 7 (30 ms, < 50), 10 (100 ms, < 150), 12 (300 ms, < 500) and 20 (700 ms,
// >= 500); block 5 holds 8 KiB of unreadable sectors, block 14 had no clean
// read (no point; an unreadable range over it).
PlotInput WithLatency() {
  PlotInput in = Failing();
  in.profile.chunk_bytes = kMiB;
  for (std::size_t i = 0; i < in.profile.points.size(); ++i) {
    const std::uint64_t block = in.profile.points[i].offset_bytes / kGiB;
    const float ms = block == 3    ? 2
                     : block == 7  ? 30
                     : block == 10 ? 100
                     : block == 12 ? 300
                     : block == 20 ? 700
                                   : 8;
    in.profile.worst_chunk_ms.push_back(ms);
  }
  LatencyClasses pass;
  pass.chunk_bytes = kMiB;
  pass.chunks = {1000, 27000, 1024, 3, 2, 1};
  pass.unreadable_chunks = 1025;
  in.profile.latency_classes = {pass, pass, pass};
  return in;
}

// Random access of an SSD-like device: 4 KiB, 64 KiB and 1 MiB at depths
// 1, 4 and 32; IOPS grow with the depth until the bandwidth (`mb_per_s`)
// caps them; the sim-like engine kept depth 32 at 1 when `capped`.
PlotInput RandomGrid(const std::string& label, double mb_per_s = 3000, bool capped = false) {
  PlotInput in;
  in.label = label;
  in.profile.source = label + ".json";
  in.profile.random_access_mode = "read";
  for (const std::uint64_t size : {std::uint64_t{4096}, std::uint64_t{65536}, kMiB}) {
    for (const std::uint32_t depth : {1u, 4u, 32u}) {
      RandomAccessCell c;
      c.size_bytes = size;
      c.queue_depth = depth;
      c.engine_depth = capped && depth == 32 ? 1 : depth;
      const double latency_ms = 0.08 + static_cast<double>(size) / (mb_per_s * 1e3);
      c.iops =
          std::min(c.engine_depth * 1e3 / latency_ms, mb_per_s * 1e6 / static_cast<double>(size));
      c.mb_per_s = c.iops * static_cast<double>(size) / 1e6;
      c.mean_ms = c.engine_depth * 1e3 / c.iops;
      c.p50_ms = c.mean_ms * 0.95;
      c.p99_ms = c.mean_ms * 2.5;
      c.max_ms = c.mean_ms * 6;
      c.ops = static_cast<std::uint64_t>(c.iops);
      c.seconds = 1;
      in.profile.random_access.push_back(c);
    }
  }
  return in;
}

// One line of a map data file.
struct CellLine {
  int column = 0;
  int row = 0;
  int latency = 0;
  double start_gb = 0;
  double worst_ms = 0;
  std::uint64_t blocks = 0;
};

std::vector<CellLine> MapCells(const std::string& text) {
  std::vector<CellLine> cells;
  for (const std::string& line : DataLines(text)) {
    std::istringstream in(line);
    CellLine c;
    double end_gb = 0, start_pct = 0, end_pct = 0;
    in >> c.column >> c.row >> c.latency >> c.start_gb >> end_gb >> start_pct >> end_pct >>
        c.worst_ms >> c.blocks;
    REQUIRE(in);
    cells.push_back(c);
  }
  return cells;
}

struct Case {
  PlotKind kind;
  std::vector<PlotInput> inputs;
  std::string name;
};

std::vector<Case> AllCases() {
  return {
      {PlotKind::kFalloff, {Hdd()}, "falloff"},
      {PlotKind::kFalloff, {Cd()}, "optical"},
      {PlotKind::kComparison, {Hdd("internal SATA"), Hdd("USB2 enclosure")}, "comparison"},
      {PlotKind::kAccess, {WithAccess(Hdd())}, "access"},
      {PlotKind::kHistogram, {WithAccess(Hdd())}, "histogram"},
      {PlotKind::kConcurrent,
       {WithConcurrent(Hdd("sda")), WithConcurrent(Hdd("sdb"))},
       "concurrent"},
      {PlotKind::kMap, {WithLatency()}, "map"},
      {PlotKind::kRandom, {RandomGrid("NVMe 980")}, "random"},
      {PlotKind::kRandom, {RandomGrid("SATA SSD", 550), RandomGrid("sim", 120, true)}, "randoms"},
  };
}

std::uint32_t BigEndian32(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  }
  return v;
}

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// Well-formedness, enough for gnuplot's SVG: every tag closed in order,
// comments/CDATA/declarations skipped, quoted attribute values. Returns an
// empty string when well-formed, else what is wrong.
std::string XmlProblem(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t i = 0;
  bool root_seen = false;
  while ((i = xml.find('<', i)) != std::string::npos) {
    if (xml.compare(i, 4, "<!--") == 0) {
      const std::size_t end = xml.find("-->", i);
      if (end == std::string::npos) return "unclosed comment";
      i = end + 3;
      continue;
    }
    if (xml.compare(i, 9, "<![CDATA[") == 0) {
      const std::size_t end = xml.find("]]>", i);
      if (end == std::string::npos) return "unclosed CDATA";
      i = end + 3;
      continue;
    }
    // A tag: find its end outside quoted attribute values.
    std::size_t j = i + 1;
    char quote = 0;
    for (; j < xml.size(); ++j) {
      if (quote != 0) {
        if (xml[j] == quote) quote = 0;
      } else if (xml[j] == '"' || xml[j] == '\'') {
        quote = xml[j];
      } else if (xml[j] == '>') {
        break;
      }
    }
    if (j >= xml.size()) return "unclosed tag at byte " + std::to_string(i);
    const std::string tag = xml.substr(i + 1, j - i - 1);
    i = j + 1;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '?' || tag[0] == '!') continue;  // <?xml ...?>, <!DOCTYPE ...>
    if (tag[0] == '/') {
      const std::string name = tag.substr(1, tag.find_first_of(" \t\r\n") - 1);
      if (open.empty() || open.back() != name) return "unexpected </" + name + ">";
      open.pop_back();
      continue;
    }
    const std::string name = tag.substr(0, tag.find_first_of(" \t\r\n/"));
    if (open.empty() && root_seen) return "a second root element <" + name + ">";
    root_seen = true;
    if (tag.back() != '/') open.push_back(name);
  }
  if (!root_seen) return "no element";
  if (!open.empty()) return "<" + open.back() + "> not closed";
  return "";
}

TEST_CASE("Plot kinds parse from their names and back", "[plot]") {
  for (const char* name :
       {"falloff", "comparison", "access", "histogram", "concurrent", "map", "random"}) {
    CHECK(std::string(PlotKindName(ParsePlotKind(name))) == name);
  }
  CHECK_THROWS_AS(ParsePlotKind("pie"), Error);
}

TEST_CASE("Each plot kind writes the golden gnuplot script", "[plot]") {
  for (const Case& c : AllCases()) {
    CAPTURE(c.name);
    test::TempDir dir;
    const PlotFiles files = WritePlot(c.kind, c.inputs, dir.path().string(), c.name,
                                      {c.name + ".png", c.name + ".svg"});
    CHECK(files.script_path == (dir.path() / (c.name + ".gp")).string());
    for (const std::string& data : files.data_paths) CHECK(fs::exists(data));
    const std::string script = test::ReadFile(files.script_path);
    // No absolute path and no date: the golden text is the same everywhere.
    CHECK(script.find(dir.path().string()) == std::string::npos);
    CHECK(test::MatchesGolden(script, "plot/" + c.name + ".gp.golden"));
  }
}

TEST_CASE("The falloff script names its data files, units and the X-speed axis in plain text",
          "[plot]") {
  test::TempDir dir;
  const PlotFiles hdd = WritePlot(PlotKind::kFalloff, {Hdd()}, dir.path().string(), "hdd", {});
  const std::string script = test::ReadFile(hdd.script_path);
  CHECK(script.find("data = 'hdd.curve.dat'") != std::string::npos);
  CHECK(script.find("zones_data = 'hdd.zones.dat'") != std::string::npos);
  CHECK(script.find("outliers_data = 'hdd.outliers.dat'") != std::string::npos);
  CHECK(script.find("MB = 10^6 B, GB = 10^9 B") != std::string::npos);
  CHECK(script.find("min-max across passes") != std::string::npos);
  CHECK(script.find("set output 'hdd.png'") != std::string::npos);  // no images given: NAME.png
  CHECK(script.find("y2") == std::string::npos);
  const std::string zones = test::ReadFile(dir.path() / "hdd.zones.dat");
  CHECK(zones.find("\"Z1 60.0 MB/s\"") != std::string::npos);
  CHECK(zones.find("\"Z3 40.0 MB/s\"") != std::string::npos);
  CHECK(test::ReadFile(dir.path() / "hdd.outliers.dat").find(" 20.000") != std::string::npos);

  const PlotFiles cd = WritePlot(PlotKind::kFalloff, {Cd()}, dir.path().string(), "cd", {});
  const std::string optical = test::ReadFile(cd.script_path);
  CHECK(optical.find("one_x = 0.1536") != std::string::npos);
  CHECK(optical.find("set link y2 via y / one_x") != std::string::npos);
  CHECK(optical.find("MB/s = ") != std::string::npos);  // the average in X in the title
  CHECK(optical.find("min-max across passes") == std::string::npos);  // one pass: no band
}

TEST_CASE("A plot refuses inputs that lack its data and never replaces an input", "[plot]") {
  test::TempDir dir;
  const std::string d = dir.path().string();
  CHECK_THROWS_AS(WritePlot(PlotKind::kFalloff, {}, d, "x", {}), Error);
  CHECK_THROWS_AS(WritePlot(PlotKind::kFalloff, {Hdd(), Hdd()}, d, "x", {}), Error);
  CHECK_THROWS_AS(WritePlot(PlotKind::kAccess, {Hdd()}, d, "x", {}), Error);
  CHECK_THROWS_AS(WritePlot(PlotKind::kConcurrent, {Hdd()}, d, "x", {}), Error);
  CHECK_THROWS_AS(WritePlot(PlotKind::kFalloff, {Hdd()}, d, "x", {"x.jpg"}), Error);
  CHECK(fs::is_empty(dir.path()));

  PlotInput in = Hdd();
  in.profile.source = (dir.path() / "x.curve.dat").string();
  test::WriteFile(in.profile.source, "the input\n");
  CHECK_THROWS_AS(WritePlot(PlotKind::kFalloff, {in}, d, "x", {}), Error);
  CHECK(test::ReadFile(in.profile.source) == "the input\n");
}

TEST_CASE("A comparison makes equal labels unique with the file names", "[plot]") {
  test::TempDir dir;
  PlotInput a = Hdd("same");
  PlotInput b = Hdd("same");
  b.profile.source = "other.dat";
  const PlotFiles files = WritePlot(PlotKind::kComparison, {a, b}, dir.path().string(), "cmp", {});
  const std::string script = test::ReadFile(files.script_path);
  CHECK(script.find("label[1] = 'same (hdd.dat)'") != std::string::npos);
  CHECK(script.find("label[2] = 'same (other.dat)'") != std::string::npos);
}

TEST_CASE("A label with a quote stays one gnuplot string", "[plot]") {
  test::TempDir dir;
  const PlotFiles files =
      WritePlot(PlotKind::kComparison, {Hdd("Bob's disk")}, dir.path().string(), "q", {});
  CHECK(test::ReadFile(files.script_path).find("'Bob''s disk'") != std::string::npos);
}

// Rendering. PNG is compressed, so its size says how much is drawn: a
// 1000x600 pngcairo canvas with nothing drawn is about 3.2 KB, the same canvas
// with titled, labelled, gridded axes but no data about 14.6 KB (measured
// with gnuplot 5.4.4); the plots here draw curves, bars or hundreds of points
// and come out at 17.7 KB (the histogram) to over 50 KB, so 16 KB is the floor.
// tests/cli_test.sh also decodes a rendered PNG and checks its pixel variance.
constexpr std::uintmax_t kNonBlankPngBytes = 16'000;

TEST_CASE("Each plot kind renders a non-blank PNG of 1000x600 and an SVG with its titles",
          "[plot]") {
  if (!GnuplotAvailable()) {
    test::NotRunHere("gnuplot with pngcairo and svg is not installed");
    return;
  }
  for (const Case& c : AllCases()) {
    CAPTURE(c.name);
    test::TempDir dir;
    const PlotFiles files = WritePlot(c.kind, c.inputs, dir.path().string(), c.name,
                                      {c.name + ".png", c.name + ".svg"});
    RenderPlot(files);
    const std::string png = test::ReadFile(files.image_paths[0]);
    REQUIRE(png.size() > 24);
    CHECK(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
    CHECK(png.compare(12, 4, "IHDR") == 0);
    CHECK(BigEndian32(png, 16) == 1000);
    CHECK(BigEndian32(png, 20) == 600);
    CHECK(fs::file_size(files.image_paths[0]) > kNonBlankPngBytes);

    const std::string svg = test::ReadFile(files.image_paths[1]);
    CHECK(XmlProblem(svg).empty());
    CAPTURE(XmlProblem(svg));
    CHECK(svg.find("<svg") != std::string::npos);
    CHECK(svg.find("width=\"1000\"") != std::string::npos);
    // Drawn data: gnuplot writes each curve, point or bar as path elements.
    CHECK(Count(svg, "<path") > 20);
    for (const PlotInput& in : c.inputs) {
      if (c.kind != PlotKind::kFalloff) CHECK(svg.find(in.label) != std::string::npos);
    }
    if (c.kind == PlotKind::kMap) {
      CHECK(svg.find("row start (GB)") != std::string::npos);
      CHECK(svg.find("chunks (chunk 1 MiB)") != std::string::npos);
    } else if (c.kind == PlotKind::kAccess || c.kind == PlotKind::kHistogram) {
      CHECK(svg.find("access time (ms)") != std::string::npos);
    } else if (c.kind == PlotKind::kRandom) {
      CHECK(svg.find("IOPS (requests per second)") != std::string::npos);
      CHECK(svg.find("latency (ms): mean (lines), p99 (circles)") != std::string::npos);
      CHECK(svg.find("transfer size") != std::string::npos);
      for (const char* tic : {"4 KiB", "64 KiB", "1 MiB"})
        CHECK(svg.find(tic) != std::string::npos);
    } else {
      CHECK(svg.find("read rate (MB/s, 10^6 B/s)") != std::string::npos);
    }
    if (c.kind == PlotKind::kFalloff) {
      CHECK(svg.find("position (GB, 10^9 B)") != std::string::npos);
      CHECK(svg.find("position (% of device)") != std::string::npos);
    }
    // The render leaves no temporary directory behind.
    for (const auto& entry : fs::directory_iterator(dir.path())) {
      CHECK(entry.path().filename().string().rfind(".", 0) != 0);
    }
  }
}

TEST_CASE("The falloff SVG shows the band, the zones, the outliers and the X-speed axis",
          "[plot]") {
  if (!GnuplotAvailable()) {
    test::NotRunHere("gnuplot with pngcairo and svg is not installed");
    return;
  }
  const std::string hdd = RenderSvg(PlotKind::kFalloff, {Hdd()});
  CHECK(hdd.find("min-max across passes") != std::string::npos);
  CHECK(hdd.find("median of 3 passes") != std::string::npos);
  CHECK(hdd.find("detected zones (median)") != std::string::npos);
  CHECK(hdd.find("Z2 ") != std::string::npos);
  CHECK(hdd.find("Z3 40.") != std::string::npos);
  CHECK(hdd.find("outliers") != std::string::npos);
  const std::string cd = RenderSvg(PlotKind::kFalloff, {Cd()});
  CHECK(cd.find("speed (CD X, 1x = 0.1536 MB/s)") != std::string::npos);
}

TEST_CASE("The written script renders on its own with plain gnuplot", "[plot]") {
  if (!GnuplotAvailable()) {
    test::NotRunHere("gnuplot with pngcairo and svg is not installed");
    return;
  }
  test::TempDir dir;
  const PlotFiles files = WritePlot(PlotKind::kComparison, {Hdd("a"), Cd()}, dir.path().string(),
                                    "cmp", {"cmp.png", "cmp.svg"});
  const std::string command = "cd '" + dir.path().string() + "' && gnuplot cmp.gp >/dev/null 2>&1";
  CHECK(std::system(command.c_str()) == 0);
  CHECK(fs::file_size(dir.path() / "cmp.png") > kNonBlankPngBytes);
  CHECK(XmlProblem(test::ReadFile(dir.path() / "cmp.svg")).empty());
}

TEST_CASE("A failed render leaves no image and says what gnuplot said", "[plot]") {
  if (!GnuplotAvailable()) {
    test::NotRunHere("gnuplot with pngcairo and svg is not installed");
    return;
  }
  test::TempDir dir;
  const PlotFiles files =
      WritePlot(PlotKind::kFalloff, {Hdd()}, dir.path().string(), "bad", {"bad.png"});
  test::WriteFile(files.script_path, test::ReadFile(files.script_path) + "this is not gnuplot\n");
  try {
    RenderPlot(files);
    FAIL("RenderPlot did not throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::kRuntime);
    CHECK(std::string(e.what()).find("bad.gp failed") != std::string::npos);
  }
  CHECK_FALSE(fs::exists(dir.path() / "bad.png"));
}

TEST_CASE("A falloff plot shades the unreadable ranges from a data file in GB", "[plot]") {
  test::TempDir dir;
  const PlotFiles files =
      WritePlot(PlotKind::kFalloff, {Failing()}, dir.path().string(), "bad", {});
  const fs::path data = dir.path() / "bad.unreadable.dat";
  CHECK(std::count(files.data_paths.begin(), files.data_paths.end(), data.string()) == 1);
  const std::string script = test::ReadFile(files.script_path);
  CHECK(script.find("unreadable_data = 'bad.unreadable.dat'") != std::string::npos);
  CHECK(script.find("# bad.unreadable.dat: ranges that failed to read") != std::string::npos);
  CHECK(script.find("unreadable_data using (($1 + $2) / 2):(band_top / 2):(($2 - $1) / 2):"
                    "(band_top / 2) with boxxyerror") != std::string::npos);
  CHECK(script.find("title 'unreadable (2 regions)'") != std::string::npos);
  // The bands reach the top of the y axis: 61.2 MB/s x 1.15.
  CHECK(script.find("set yrange [0:70.4]") != std::string::npos);
  CHECK(script.find("band_top = 70.4") != std::string::npos);
  // Drawn first, under the curve.
  CHECK(script.find("unreadable_data using") < script.find("data using 1:3 with lines"));

  const std::string text = test::ReadFile(data);
  CHECK(text.find("# Units: GB = 10^9 B") != std::string::npos);
  CHECK(text.find("# start_gb end_gb start_pct end_pct length_bytes errno") != std::string::npos);
  const std::vector<std::string> lines = DataLines(text);
  REQUIRE(lines.size() == 2);
  // 5 GiB + 4096 B = 5.368713216 GB; 30 GiB is the device: 16.6679 %.
  CHECK(lines[0] == "5.368713216 5.368721408 16.666679 16.666705 8192 5");
  CHECK(lines[1] == "15.032385536 16.106127360 46.666667 50.000000 1073741824 5");
}

TEST_CASE("The curve breaks where unreadable blocks are missing, not where blocks were skipped",
          "[plot]") {
  test::TempDir dir;
  WritePlot(PlotKind::kFalloff, {Failing()}, dir.path().string(), "bad", {});
  const std::string curve = test::ReadFile(dir.path() / "bad.curve.dat");
  // Block 13 (13.5 GiB = 14.495515 GB), a blank line, block 15 (15.5 GiB).
  const std::size_t at = curve.find("14.495515 ");
  REQUIRE(at != std::string::npos);
  const std::size_t next = curve.find('\n', at);
  CHECK(curve.compare(next, 2, "\n\n") == 0);
  CHECK(curve.compare(next + 2, 10, "16.642998 ") == 0);
  CHECK(Count(curve, "\n\n") == 1);
  CHECK(curve.find("# A blank line: blocks missing here had no clean read") != std::string::npos);

  // A quick sweep's gaps (every other block here) are no read errors.
  PlotInput quick = Hdd();
  std::vector<CurvePoint> every_other;
  for (std::size_t i = 0; i < quick.profile.points.size(); i += 2) {
    every_other.push_back(quick.profile.points[i]);
  }
  quick.profile.points = Curve(every_other);
  WritePlot(PlotKind::kFalloff, {quick}, dir.path().string(), "quick", {});
  CHECK(Count(test::ReadFile(dir.path() / "quick.curve.dat"), "\n\n") == 0);
  CHECK_FALSE(fs::exists(dir.path() / "quick.unreadable.dat"));
  CHECK(test::ReadFile(dir.path() / "quick.gp").find("unreadable") == std::string::npos);
}

TEST_CASE("A long curve is written as at most 2000 buckets: median, lowest min, highest max",
          "[plot]") {
  // 10,001 blocks of 1 MiB, one pass (no spread), all 50 MB/s but every
  // fifth at 40; an unreadable block after the first 12 breaks the line.
  PlotInput in;
  in.label = "long";
  in.profile.source = "long.dat";
  in.profile.passes = 1;
  const std::uint64_t mib = std::uint64_t{1} << 20;
  for (std::uint64_t i = 0; i < 10'002; ++i) {
    if (i == 12) continue;
    in.profile.points.push_back({i * mib, mib, i % 5 == 4 ? 40.0 : 50.0, 0, 0});
  }
  in.profile.unreadable = {{12 * mib, mib, 5, 0, false}};
  in.zones = DetectZones(in.profile.points, ZoneOptions{});
  test::TempDir dir;
  WritePlot(PlotKind::kFalloff, {in}, dir.path().string(), "long", {});
  const std::string text = test::ReadFile(dir.path() / "long.curve.dat");
  CHECK(text.find("one line per 6 consecutive blocks (of 10001)") != std::string::npos);
  const std::vector<std::string> lines = DataLines(text);
  CHECK(lines.size() <= 2000);
  CHECK(lines.size() == 2 + (9'989 + 5) / 6);  // 12 blocks before the gap, 9,989 after
  CHECK(Count(text, "\n\n") == 1);
  // Blocks 0-5: middle at 3 MiB, median 50, min 40 (block 4), max 50.
  CHECK(lines[0] == "0.003146 0.0300 50.000 40.000 50.000");
}

TEST_CASE("A falloff plot marks slow regions, merged across passes, on its top edge", "[plot]") {
  test::TempDir dir;
  const PlotFiles files =
      WritePlot(PlotKind::kFalloff, {Failing()}, dir.path().string(), "bad", {});
  const std::string script = test::ReadFile(files.script_path);
  CHECK(script.find("slow_data = 'bad.slow.dat'") != std::string::npos);
  CHECK(script.find("slow_data using (($1 + $2) / 2):(band_top * 0.97) with points") !=
        std::string::npos);
  CHECK(script.find("title 'slow (2 regions)'") != std::string::npos);
  const std::string text = test::ReadFile(dir.path() / "bad.slow.dat");
  CHECK(text.find("# start_gb end_gb start_pct end_pct times_found max_ms") != std::string::npos);
  const std::vector<std::string> lines = DataLines(text);
  REQUIRE(lines.size() == 2);
  // 20 GiB + 1 MiB, found twice (two passes), the longer 420 ms.
  CHECK(lines[0] == "21.474836480 21.475885056 66.666667 66.669922 2 420.0");
  CHECK(lines[1].substr(lines[1].size() - 8) == " 1 900.0");

  // Neither without read errors or slow regions: the golden scripts hold.
  WritePlot(PlotKind::kFalloff, {Hdd()}, dir.path().string(), "ok", {});
  CHECK_FALSE(fs::exists(dir.path() / "ok.slow.dat"));
  CHECK(test::ReadFile(dir.path() / "ok.gp").find("band_top") == std::string::npos);
}

TEST_CASE("A comparison shades each input's unreadable ranges in % of its device", "[plot]") {
  test::TempDir dir;
  PlotInput small = Failing();
  small.label = "small";
  small.profile.device_bytes = 60 * kGiB;  // the same ranges: half the percentages
  const PlotFiles files = WritePlot(PlotKind::kComparison, {Hdd("clean"), Failing(), small},
                                    dir.path().string(), "cmp", {});
  const std::string script = test::ReadFile(files.script_path);
  CHECK(script.find("title 'unreadable (4 regions)'") != std::string::npos);
  CHECK(script.find("unreadable_data using (($4 + $5) / 2)") != std::string::npos);
  CHECK(script.find("for [i = 1:|data|] data[i] using 2:3") != std::string::npos);
  const std::vector<std::string> lines =
      DataLines(test::ReadFile(dir.path() / "cmp.unreadable.dat"));
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].rfind("2 5.368713216 5.368721408 16.666679 ", 0) == 0);
  CHECK(lines[3].rfind("3 15.032385536 16.106127360 23.333333 25.000000 ", 0) == 0);
}

TEST_CASE("Unreadable ranges and slow regions render with their legend", "[plot]") {
  if (!GnuplotAvailable()) {
    test::NotRunHere("gnuplot with pngcairo and svg is not installed");
    return;
  }
  const std::string falloff = RenderSvg(PlotKind::kFalloff, {Failing()});
  CHECK(XmlProblem(falloff).empty());
  CHECK(falloff.find("unreadable (2 regions)") != std::string::npos);
  CHECK(falloff.find("slow (2 regions)") != std::string::npos);
  CHECK(falloff.find("median of 3 passes") != std::string::npos);
  const std::string comparison = RenderSvg(PlotKind::kComparison, {Hdd("clean"), Failing()});
  CHECK(XmlProblem(comparison).empty());
  CHECK(comparison.find("unreadable (2 regions)") != std::string::npos);
}

TEST_CASE("A saved sweep's read errors reach its plot", "[plot]") {
  test::TempDir dir;
  const fs::path file = dir.path() / "sweep.json";
  test::WriteFile(
      file,
      "{\"device\":{\"path\":\"/dev/sdz\",\"size_bytes\":3000000},\"blocks\":[\n"
      "{\"offset_bytes\":0,\"length_bytes\":1000000,\"mb_per_s\":60.0},\n"
      "{\"offset_bytes\":2000000,\"length_bytes\":1000000,\"mb_per_s\":50.0}\n],\n"
      "\"errors\":[{\"offset_bytes\":1000000,\"length_bytes\":1000000,\"errno\":5}]}\n");
  const PlotInput in = LoadPlotInput(file.string(), "", {}, false, Media::kNone);
  REQUIRE(in.profile.unreadable.size() == 1);
  WritePlot(PlotKind::kFalloff, {in}, dir.path().string(), "p", {});
  CHECK(DataLines(test::ReadFile(dir.path() / "p.unreadable.dat")) ==
        std::vector<std::string>{"0.001000000 0.002000000 33.333333 66.666667 1000000 5"});
  CHECK(test::ReadFile(dir.path() / "p.gp").find("'unreadable (1 region)'") != std::string::npos);
  CHECK(Count(test::ReadFile(dir.path() / "p.curve.dat"), "\n\n") == 1);
}

TEST_CASE("The plot label is the device model and transport, else the file name", "[plot]") {
  SavedResult p;
  p.source = "/some/dir/run1.dat";
  CHECK(DefaultPlotLabel(p) == "run1.dat");
  p.device_model = "WDC WD10";
  CHECK(DefaultPlotLabel(p) == "WDC WD10");
  p.transport = "usb";
  CHECK(DefaultPlotLabel(p) == "WDC WD10 (usb)");
}

TEST_CASE("A loaded profile result brings its access samples, so its access plot can be drawn",
          "[plot]") {
  test::TempDir dir;
  const fs::path file = dir.path() / "profile.json";
  test::WriteFile(file,
                  "{\"device\":{\"path\":\"sim:hdd\",\"size_bytes\":2000000},\"blocks\":[\n"
                  "{\"offset_bytes\":0,\"length_bytes\":1000000,\"mb_per_s\":60.0},\n"
                  "{\"offset_bytes\":1000000,\"length_bytes\":1000000,\"mb_per_s\":30.0}\n],\n"
                  "\"access\":{\"mean_ms\":14,\"samples\":[{\"offset_bytes\":4096,\"ms\":13.5},"
                  "{\"offset_bytes\":1500000,\"ms\":14.5}]}}\n");
  const PlotInput in = LoadPlotInput(file.string(), "", {}, false, Media::kNone);
  REQUIRE(in.access.size() == 2);
  CHECK(in.access[0].offset_bytes == 4096);
  CHECK(in.access[1].ms == 14.5);
  const PlotFiles files = WritePlot(PlotKind::kAccess, {in}, dir.path().string(), "acc", {});
  REQUIRE(files.data_paths.size() == 1);
  CHECK(test::ReadFile(files.data_paths[0]).find("13.5") != std::string::npos);
}

TEST_CASE(
    "Three blurred blocks at 3000 MB/s do not set the y axis of a 140 MB/s curve: they "
    "are drawn on its top edge and counted",
    "[plot]") {
  const std::uint64_t seed = 14;
  CAPTURE(seed);
  test::TempDir dir;
  const PlotFiles files = WritePlot(PlotKind::kFalloff, {Jittery(seed, {20, 90, 150})},
                                    dir.path().string(), "fuse", {});
  const std::string script = test::ReadFile(files.script_path);
  // The bulk reaches about 140 x 1.04 (2 % jitter); 15 % headroom above it.
  const double top = YTop(script);
  CHECK(top > 140);
  CHECK(top < 200);
  CHECK(script.find("band_top = " + FormatFixed(top, 1)) != std::string::npos);
  CHECK(script.find("offscale_data = 'fuse.offscale.dat'") != std::string::npos);
  CHECK(script.find("offscale_data using 1:(band_top) with points pt 9") != std::string::npos);
  CHECK(script.find("title '3 blocks off scale (max 3000.0 MB/s)'") != std::string::npos);
  CHECK(script.find("# fuse.offscale.dat: blocks above the top of the y axis") !=
        std::string::npos);
  const fs::path data = dir.path() / "fuse.offscale.dat";
  CHECK(std::count(files.data_paths.begin(), files.data_paths.end(), data.string()) == 1);
  const std::string text = test::ReadFile(data);
  CHECK(text.find("# position_gb position_pct highest_mb_per_s blocks") != std::string::npos);
  // Block 20's middle: 20.5 MiB = 0.021496 GB, 8.0078 % of 256 MiB.
  CHECK(DataLines(text) == std::vector<std::string>{"0.021496 8.0078 3000.000 1",
                                                    "0.094896 35.3516 3000.000 1",
                                                    "0.157811 58.7891 3000.000 1"});
}

TEST_CASE(
    "A curve without blocks far off scale keeps its y axis: every block, 15 % above the "
    "highest",
    "[plot]") {
  test::TempDir dir;
  // The staircase: 61.2 MB/s (its highest max) x 1.15, as in the golden script.
  WritePlot(PlotKind::kFalloff, {Hdd()}, dir.path().string(), "hdd", {});
  CHECK(YTop(test::ReadFile(dir.path() / "hdd.gp")) == 70.4);
  CHECK_FALSE(fs::exists(dir.path() / "hdd.offscale.dat"));

  // The jittery curve without spikes: its highest block sets the axis.
  const PlotInput clean = Jittery(14, {});
  double highest = 0;
  for (const CurvePoint& p : clean.profile.points) highest = std::max(highest, p.mb_per_s);
  WritePlot(PlotKind::kFalloff, {clean}, dir.path().string(), "clean", {});
  const std::string script = test::ReadFile(dir.path() / "clean.gp");
  CHECK(YTop(script) == std::stod(FormatFixed(highest * 1.15, 1)));
  CHECK(script.find("off scale") == std::string::npos);
  CHECK_FALSE(fs::exists(dir.path() / "clean.offscale.dat"));

  // A spike half again as fast as the rest still fits: nothing off scale.
  PlotInput spike = Hdd();
  std::vector<CurvePoint> points = spike.profile.points.ToVector();
  points[5].mb_per_s = 85;
  points[5].max_mb_per_s = 86;
  spike.profile.points = Curve(points);
  WritePlot(PlotKind::kFalloff, {spike}, dir.path().string(), "spike", {});
  CHECK(YTop(test::ReadFile(dir.path() / "spike.gp")) == 98.9);  // 86 x 1.15
  CHECK_FALSE(fs::exists(dir.path() / "spike.offscale.dat"));
}

TEST_CASE("The y axis always spans every zone level, however few blocks hold it", "[plot]") {
  // A 3000 MB/s cache tier over the first 5 blocks (2 % of the curve), then
  // the four zones: the tier is a zone, so it stays on the plot.
  PlotInput in = Jittery(3, {0, 1, 2, 3, 4});
  Zone cache;
  cache.end_block = 5;
  cache.end_bytes = 5 * kMiB;
  cache.mb_per_s = 3000;
  std::vector<Zone> zones = FourZones();
  zones[0].first_block = 5;
  zones[0].start_bytes = 5 * kMiB;
  in.zones.zones = zones;
  in.zones.zones.insert(in.zones.zones.begin(), cache);
  in.zones.type = CurveType::kTiered;
  in.zones.fastest_zone = 0;
  in.zones.slowest_zone = 4;
  test::TempDir dir;
  WritePlot(PlotKind::kFalloff, {in}, dir.path().string(), "tier", {});
  CHECK(YTop(test::ReadFile(dir.path() / "tier.gp")) == 3450.0);
  CHECK_FALSE(fs::exists(dir.path() / "tier.offscale.dat"));
  CHECK(fs::exists(dir.path() / "tier.zones.dat"));

  // Without that zone the same blocks are off scale.
  in.zones.zones = FourZones();
  in.zones.type = CurveType::kZoned;
  in.zones.slowest_zone = 3;
  WritePlot(PlotKind::kFalloff, {in}, dir.path().string(), "untiered", {});
  CHECK(YTop(test::ReadFile(dir.path() / "untiered.gp")) < 200);
  CHECK(DataLines(test::ReadFile(dir.path() / "untiered.offscale.dat")).size() == 5);
}

TEST_CASE(
    "Thousands of off-scale blocks on a long curve are marked per bucket, at most 2000 "
    "lines",
    "[plot]") {
  // 100,000 blocks at 140 MB/s +-1 %, every 40th (2,500) at 3000: more
  // than 1 % wild, so the 99th percentile alone would not do; the fence does.
  PlotInput in;
  in.label = "long";
  in.profile.source = "long.dat";
  in.profile.passes = 1;
  for (std::uint64_t i = 0; i < 100'000; ++i) {
    const double rate = i % 40 == 39 ? 3000 : 140 * (1 + 0.01 * static_cast<double>(i % 3) - 0.01);
    in.profile.points.push_back({i * kMiB, kMiB, rate, 0, 0});
  }
  test::TempDir dir;
  WritePlot(PlotKind::kFalloff, {in}, dir.path().string(), "long", {});
  const std::string script = test::ReadFile(dir.path() / "long.gp");
  // The fence: P75 + 3 IQR = 141.4 + 3 x 2.8 = 149.8 MB/s, x 1.15.
  CHECK(YTop(script) == 172.3);
  CHECK(script.find("'2500 blocks off scale (max 3000.0 MB/s)'") != std::string::npos);
  const std::vector<std::string> lines =
      DataLines(test::ReadFile(dir.path() / "long.offscale.dat"));
  CHECK(lines.size() == 2000);  // buckets of 50 blocks, each holding one or two of them
  std::size_t blocks = 0;
  for (const std::string& line : lines) blocks += std::stoul(line.substr(line.rfind(' ') + 1));
  CHECK(blocks == 2500);
}

TEST_CASE("Zone labels never overlap: of 300 zones at most 20, spread out, and the legend says so",
          "[plot]") {
  test::TempDir dir;
  WritePlot(PlotKind::kFalloff, {ManyZones(300)}, dir.path().string(), "many", {});
  const std::string zones = test::ReadFile(dir.path() / "many.zones.dat");
  const std::vector<std::string> lines = DataLines(zones);
  REQUIRE(lines.size() == 300);  // every zone is drawn; only the labels are fewer
  std::vector<double> labelled_at;
  for (const std::string& line : lines) {
    if (line.find("\"\"") == std::string::npos) labelled_at.push_back(std::stod(line));
  }
  CHECK(labelled_at.size() <= 20);
  CHECK(labelled_at.size() >= 8);
  // The fastest (Z10) and the slowest (Z1) are among them.
  CHECK(zones.find("\"Z1 100.0 MB/s\"") != std::string::npos);
  CHECK(zones.find("\"Z10 109.0 MB/s\"") != std::string::npos);
  CHECK(Count(zones, "\"Z2 ") == 0);  // right beside Z1 at a level 1 % away
  const std::string script = test::ReadFile(dir.path() / "many.gp");
  CHECK(script.find("title 'detected zones (median): 300 zones, " +
                    std::to_string(labelled_at.size()) + " labelled'") != std::string::npos);

  // Twenty zones side by side at levels 1 % apart: their labels would write
  // over each other, so only those clear of the others, and the legend says so.
  WritePlot(PlotKind::kFalloff, {ManyZones(20)}, dir.path().string(), "twenty", {});
  const std::size_t unlabelled = Count(test::ReadFile(dir.path() / "twenty.zones.dat"), "\"\"");
  CHECK(unlabelled > 0);
  CHECK(test::ReadFile(dir.path() / "twenty.gp")
            .find("title 'detected zones (median): 20 zones, " + std::to_string(20 - unlabelled) +
                  " labelled'") != std::string::npos);
  // A staircase of a few zones far apart: every zone labelled, no note.
  WritePlot(PlotKind::kFalloff, {Hdd()}, dir.path().string(), "stairs", {});
  CHECK(Count(test::ReadFile(dir.path() / "stairs.zones.dat"), "\"\"") == 0);
  CHECK(test::ReadFile(dir.path() / "stairs.gp").find("title 'detected zones (median)'") !=
        std::string::npos);
}

TEST_CASE("A known jitter is drawn as each zone's p5-p95 band behind the curve", "[plot]") {
  PlotInput in = Hdd();
  in.zones.texture.jitter_p5_rel = 0.96;
  in.zones.texture.jitter_p95_rel = 1.03;
  test::TempDir dir;
  const PlotFiles files = WritePlot(PlotKind::kFalloff, {in}, dir.path().string(), "j", {});
  const std::string script = test::ReadFile(files.script_path);
  CHECK(script.find("jitter_data = 'j.jitter.dat'") != std::string::npos);
  CHECK(script.find("title 'jitter p5-p95 (-4.0 % / +3.0 %)'") != std::string::npos);
  CHECK(script.find("# j.jitter.dat: each zone's jitter") != std::string::npos);
  // Behind the band and the curve: drawn first.
  CHECK(script.find("jitter_data using") < script.find("data using 1:4:5 with filledcurves"));
  const std::string text = test::ReadFile(dir.path() / "j.jitter.dat");
  CHECK(text.find("# start_gb end_gb p5_mb_per_s p95_mb_per_s") != std::string::npos);
  const std::vector<std::string> lines = DataLines(text);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "0.000000 10.737418 " + FormatFixed(in.zones.zones[0].mb_per_s * 0.96, 3) +
                        ' ' + FormatFixed(in.zones.zones[0].mb_per_s * 1.03, 3));

  // Unknown (1 and 1), or too narrow to see (0.2 % of a 70 MB/s axis): no band.
  in.zones.texture.jitter_p5_rel = 1;
  in.zones.texture.jitter_p95_rel = 1;
  WritePlot(PlotKind::kFalloff, {in}, dir.path().string(), "none", {});
  CHECK(test::ReadFile(dir.path() / "none.gp").find("jitter") == std::string::npos);
  in.zones.texture.jitter_p5_rel = 0.999;
  in.zones.texture.jitter_p95_rel = 1.001;
  WritePlot(PlotKind::kFalloff, {in}, dir.path().string(), "thin", {});
  CHECK(test::ReadFile(dir.path() / "thin.gp").find("jitter_data") == std::string::npos);
  CHECK_FALSE(fs::exists(dir.path() / "thin.jitter.dat"));
}

TEST_CASE("Dip blocks are marked with their own legend entry", "[plot]") {
  PlotInput in = Hdd();
  in.zones.type = CurveType::kFlatDips;
  in.zones.dip_blocks = {3, 4, 25};
  test::TempDir dir;
  WritePlot(PlotKind::kFalloff, {in}, dir.path().string(), "d", {});
  const std::string script = test::ReadFile(dir.path() / "d.gp");
  CHECK(script.find("dips_data = 'd.dips.dat'") != std::string::npos);
  CHECK(script.find("dips_data using 1:3 with points pt 10") != std::string::npos);
  CHECK(script.find("title 'dips (3 blocks)'") != std::string::npos);
  CHECK(script.find("# d.dips.dat: blocks in recurring short dips") != std::string::npos);
  const std::vector<std::string> lines = DataLines(test::ReadFile(dir.path() / "d.dips.dat"));
  REQUIRE(lines.size() == 3);
  // Block 3: 3.5 GiB = 3.758096 GB, 11.6667 % of 30 GiB, rate 60 - 0.2.
  CHECK(lines[0] == "3.758096 11.6667 59.800 1");
  CHECK(lines[2].rfind("27.380417 85.0000 39.800 1", 0) == 0);
}

TEST_CASE("Every stepped curve type draws its zones as levels; a smooth fit does not", "[plot]") {
  test::TempDir dir;
  for (CurveType type : {CurveType::kZoned, CurveType::kFlat, CurveType::kClipped, CurveType::kZclv,
                         CurveType::kClv, CurveType::kOther, CurveType::kTiered,
                         CurveType::kFlatDips, CurveType::kCav, CurveType::kPcav}) {
    const std::string name = CurveTypeName(type);
    CAPTURE(name);
    PlotInput in = Hdd();
    in.zones.type = type;
    in.zones.texture.jitter_p5_rel = 0.9;
    in.zones.texture.jitter_p95_rel = 1.1;
    WritePlot(PlotKind::kFalloff, {in}, dir.path().string(), name, {});
    const bool smooth = type == CurveType::kCav || type == CurveType::kPcav;
    CHECK(fs::exists(dir.path() / (name + ".zones.dat")) == !smooth);
    CHECK(fs::exists(dir.path() / (name + ".jitter.dat")) == !smooth);
  }
}

TEST_CASE(
    "A comparison's y axis is not set by one input's off-scale blocks, which it marks "
    "in that input's colour",
    "[plot]") {
  test::TempDir dir;
  const PlotFiles files =
      WritePlot(PlotKind::kComparison, {Jittery(1, {}), Jittery(2, {7, 8, 200})},
                dir.path().string(), "cmp", {});
  const std::string script = test::ReadFile(files.script_path);
  CHECK(YTop(script) < 200);
  CHECK(script.find("offscale_data = 'cmp.offscale.dat'") != std::string::npos);
  CHECK(script.find("offscale_data using 3:(band_top):1 with points pt 9 ps 1.4 lc variable "
                    "title '3 blocks off scale (max 3000.0 MB/s)'") != std::string::npos);
  CHECK(script.find("for [i = 1:|data|] data[i] using 2:3 with lines lw 2 lc i title label[i], "
                    "\\") != std::string::npos);
  const std::vector<std::string> lines = DataLines(test::ReadFile(dir.path() / "cmp.offscale.dat"));
  REQUIRE(lines.size() == 3);
  for (const std::string& line : lines) CHECK(line.rfind("2 ", 0) == 0);
  CHECK(lines[0] == "2 0.007864 2.9297 3000.000 1");
}

TEST_CASE("Off-scale blocks, dips and the jitter band render with their legend", "[plot]") {
  if (!GnuplotAvailable()) {
    test::NotRunHere("gnuplot with pngcairo and svg is not installed");
    return;
  }
  PlotInput in = Jittery(14, {20, 90, 150});
  in.zones.texture.jitter_p5_rel = 0.965;
  in.zones.texture.jitter_p95_rel = 1.035;
  in.zones.dip_blocks = {40, 41};
  const std::string svg = RenderSvg(PlotKind::kFalloff, {in});
  CHECK(XmlProblem(svg).empty());
  CHECK(svg.find("3 blocks off scale (max 3000.0 MB/s)") != std::string::npos);
  CHECK(svg.find("dips (2 blocks)") != std::string::npos);
  CHECK(svg.find("jitter p5-p95 (-3.5 % / +3.5 %)") != std::string::npos);
  // The y axis' tick labels stop below 200.
  CHECK(svg.find("> 200</tspan>") == std::string::npos);
  CHECK(svg.find("> 160</tspan>") != std::string::npos);
  const std::string many = RenderSvg(PlotKind::kFalloff, {ManyZones(300)});
  CHECK(XmlProblem(many).empty());
  CHECK(Count(many, "MB/s</tspan>") <= 20 + 1);  // the labels, and the title's average
  CHECK(many.find("300 zones, ") != std::string::npos);
}

TEST_CASE("The surface map has a cell per block at its column and row, in its class", "[plot]") {
  test::TempDir dir;
  const PlotFiles files =
      WritePlot(PlotKind::kMap, {WithLatency()}, dir.path().string(), "m", {"m.png", "m.svg"});
  const fs::path data = dir.path() / "m.map.dat";
  REQUIRE(files.data_paths == std::vector<std::string>{data.string()});
  const std::string text = test::ReadFile(data);
  CHECK(text.find("# column row class start_gb end_gb start_pct end_pct worst_ms blocks") !=
        std::string::npos);
  CHECK(text.find("30 blocks of 1 GiB, 1 block per cell") != std::string::npos);
  CHECK(text.find("8 columns, 4 rows; chunk 1 MiB") != std::string::npos);
  CHECK(text.find("estimated") == std::string::npos);
  const std::vector<CellLine> cells = MapCells(text);
  // 30 blocks (14, missing from the points, still has its cell): sqrt(1.5 x
  // 30) = 6.7, rounded up to 8 columns.
  REQUIRE(cells.size() == 30);
  for (std::size_t b = 0; b < cells.size(); ++b) {
    CAPTURE(b);
    CHECK(cells[b].column == static_cast<int>(b % 8));
    CHECK(cells[b].row == static_cast<int>(b / 8));
    CHECK(cells[b].blocks == 1);
    CHECK(cells[b].start_gb == Approx(static_cast<double>(b * kGiB) / kGB).margin(1e-6));
    const int expected = b == 3              ? 0
                         : b == 7            ? 2
                         : b == 10           ? 3
                         : b == 12           ? 4
                         : b == 20           ? 5
                         : b == 5 || b == 14 ? 6
                                             : 1;
    CHECK(cells[b].latency == expected);
  }
  CHECK(cells[20].worst_ms == 700);
  CHECK(cells[14].worst_ms == 0);  // no clean read

  const std::string script = test::ReadFile(files.script_path);
  CHECK(script.find("data = 'm.map.dat'") != std::string::npos);
  CHECK(script.find("set output 'm.png'") != std::string::npos);
  CHECK(script.find("set output 'm.svg'") != std::string::npos);
  CHECK(script.find("columns = 8") != std::string::npos);
  CHECK(script.find("rows = 4") != std::string::npos);
  CHECK(script.find("with boxxy lc rgb variable") != std::string::npos);
  // The key: chunks summed over the 3 passes, the chunk size in its title.
  CHECK(script.find("label[1] = '< 5 ms: 3000'") != std::string::npos);
  CHECK(script.find("label[2] = '< 20 ms: 81000'") != std::string::npos);
  CHECK(script.find("label[6] = '>= 500 ms: 3'") != std::string::npos);
  CHECK(script.find("label[7] = 'unreadable: 3075'") != std::string::npos);
  CHECK(script.find("title 'chunks (chunk 1 MiB)'") != std::string::npos);
  // Rows labelled by their start: 8 GiB = 8.59 GB a row, in % on the right.
  CHECK(script.find("'0.0' 0.50, '8.6' 1.50, '17.2' 2.50, '25.8' 3.50") != std::string::npos);
  CHECK(script.find("'26.7' 1.50") != std::string::npos);
}

TEST_CASE("Over 4000 blocks the map groups them, each cell in its worst block's class", "[plot]") {
  PlotInput in;
  in.label = "big";
  in.profile.source = "big.json";
  in.profile.passes = 1;
  in.profile.chunk_bytes = kMiB;
  std::vector<CurvePoint> points;
  for (std::uint64_t b = 0; b < 10000; ++b) {
    if (b == 9001) continue;  // no clean read
    points.push_back({b * kMiB, kMiB, 150, 0, 0});
    in.profile.worst_chunk_ms.push_back(b == 4321 ? 700.0F : b == 40 ? 60.0F : 3.0F);
  }
  in.profile.points = Curve(points);
  in.profile.unreadable = {{9001 * kMiB, kMiB, 5, 0, false}};
  test::TempDir dir;
  WritePlot(PlotKind::kMap, {in}, dir.path().string(), "big", {});
  const std::string text = test::ReadFile(dir.path() / "big.map.dat");
  CHECK(text.find("10000 blocks of 1 MiB, 3 blocks per cell") != std::string::npos);
  const std::vector<CellLine> cells = MapCells(text);
  REQUIRE(cells.size() == 3334);  // ceil(10000 / 3)
  CHECK(cells.back().blocks == 1);
  CHECK(cells[1440].latency == 5);  // blocks 4320-4322
  CHECK(cells[1440].worst_ms == 700);
  CHECK(cells[13].latency == 3);    // blocks 39-41
  CHECK(cells[3000].latency == 6);  // blocks 9000-9002
  CHECK(cells[0].latency == 0);
  std::size_t fast = 0;
  for (const CellLine& c : cells) fast += c.latency == 0 ? 1 : 0;
  CHECK(fast == 3331);
  // Position order: 80 columns (sqrt(1.5 x 3334) = 70.7, rounded up).
  REQUIRE(cells.size() > 80);
  CHECK(cells[80].column == 0);
  CHECK(cells[80].row == 1);
  CHECK(cells[80].start_gb == Approx(240.0 * kMiB / kGB).margin(1e-6));
  const std::string script = test::ReadFile(dir.path() / "big.gp");
  CHECK(script.find("columns = 80") != std::string::npos);
  CHECK(script.find("rows = 42") != std::string::npos);
  // No latency classes recorded: the key counts blocks.
  CHECK(script.find("label[1] = '< 5 ms: 9997'") != std::string::npos);
  CHECK(script.find("label[4] = '< 150 ms: 1'") != std::string::npos);
  CHECK(script.find("label[7] = 'unreadable: 1'") != std::string::npos);
}

TEST_CASE("Without recorded chunk times the map estimates them from the block rates and says so",
          "[plot]") {
  PlotInput in = Hdd();
  in.profile.chunk_bytes = kMiB;
  test::TempDir dir;
  WritePlot(PlotKind::kMap, {in}, dir.path().string(), "est", {});
  const std::string text = test::ReadFile(dir.path() / "est.map.dat");
  CHECK(text.find("# chunk times estimated from block rates (chunk size / median rate).") !=
        std::string::npos);
  const std::vector<CellLine> cells = MapCells(text);
  REQUIRE(cells.size() == 30);
  // 1 MiB at 60.2 MB/s = 17.4 ms; at 39.8 MB/s 26.3 ms; block 14 at 20 MB/s 52.4 ms.
  CHECK(cells[0].latency == 1);
  CHECK(cells[0].worst_ms == Approx(1048576.0 / 60.2e6 * 1000).margin(0.001));
  CHECK(cells[25].latency == 2);
  CHECK(cells[14].latency == 3);
  const std::string script = test::ReadFile(dir.path() / "est.gp");
  CHECK(script.find("chunk times estimated from block rates") != std::string::npos);
  CHECK(script.find("title 'blocks (chunk 1 MiB, estimated)'") != std::string::npos);

  // No chunk size known: a block is one chunk (1 GiB at 40-60 MB/s: >= 500 ms).
  in.profile.chunk_bytes = 0;
  WritePlot(PlotKind::kMap, {in}, dir.path().string(), "whole", {});
  for (const CellLine& c : MapCells(test::ReadFile(dir.path() / "whole.map.dat"))) {
    CHECK(c.latency == 5);
  }
}

TEST_CASE("A map draws one result and needs blocks; unreadable ranges alone are red cells",
          "[plot]") {
  test::TempDir dir;
  const std::string d = dir.path().string();
  CHECK_THROWS_AS(WritePlot(PlotKind::kMap, {WithLatency(), WithLatency()}, d, "x", {}), Error);
  PlotInput empty;
  empty.label = "empty";
  CHECK_THROWS_AS(WritePlot(PlotKind::kMap, {empty}, d, "x", {}), Error);
  CHECK(fs::is_empty(dir.path()));
  empty.profile.unreadable = {{0, 4 * kMiB, 5, 0, false}};
  empty.profile.block_bytes = kMiB;
  WritePlot(PlotKind::kMap, {empty}, d, "x", {});
  const std::vector<CellLine> cells = MapCells(test::ReadFile(dir.path() / "x.map.dat"));
  REQUIRE(cells.size() == 4);
  for (const CellLine& c : cells) CHECK(c.latency == 6);
}

TEST_CASE("A plot's refusals are bad input; files it cannot write are a runtime error", "[plot]") {
  test::TempDir dir;
  const std::string d = dir.path().string();
  const auto bad_input = test::HasKind(ErrorKind::kBadInput);
  const auto runtime = test::HasKind(ErrorKind::kRuntime);
  CHECK_THROWS_MATCHES(ParsePlotKind("pie"), Error, bad_input);
  CHECK_THROWS_MATCHES(WritePlot(PlotKind::kFalloff, {}, d, "x", {}), Error, bad_input);
  CHECK_THROWS_MATCHES(WritePlot(PlotKind::kFalloff, {Hdd()}, d, "a/x", {}), Error, bad_input);
  // Below a regular file no directory can be made, not even by root.
  test::WriteFile(dir.path() / "file", "");
  CHECK_THROWS_MATCHES(
      WritePlot(PlotKind::kFalloff, {Hdd()}, (dir.path() / "file" / "plots").string(), "x", {}),
      Error, runtime);
  // A directory where the script goes is the name's fault: bad input.
  fs::create_directory(dir.path() / "y.gp");
  CHECK_THROWS_MATCHES(WritePlot(PlotKind::kFalloff, {Hdd()}, d, "y", {}), Error, bad_input);
  // A script that cannot be written for want of space (/dev/full behind
  // its name) is the system's failure: runtime.
  fs::create_symlink("/dev/full", dir.path() / "z.gp");
  CHECK_THROWS_MATCHES(WritePlot(PlotKind::kFalloff, {Hdd()}, d, "z", {}), Error, runtime);
}

TEST_CASE("The random access plot: a block per depth, sizes in order, a line per depth and result",
          "[plot]") {
  test::TempDir dir;
  const PlotFiles files =
      WritePlot(PlotKind::kRandom, {RandomGrid("fast"), RandomGrid("slow", 120, true)},
                dir.path().string(), "r", {});
  REQUIRE(files.data_paths.size() == 2);
  // The slow result's data: three blocks (depths 1, 4, 32), each 4 KiB,
  // 64 KiB, 1 MiB, the engine's depth beside the depth asked.
  std::istringstream data(test::ReadFile(files.data_paths[1]));
  std::string line;
  std::vector<std::vector<std::vector<double>>> blocks(1);
  int blank = 0;
  while (std::getline(data, line)) {
    if (line.rfind('#', 0) == 0) continue;
    if (line.empty()) {
      if (++blank == 2) blocks.emplace_back();
      continue;
    }
    blank = 0;
    std::istringstream fields(line);
    std::vector<double> row;
    for (double x = 0; fields >> x;) row.push_back(x);
    REQUIRE(row.size() == 9);
    blocks.back().push_back(row);
  }
  REQUIRE(blocks.size() == 3);
  const double depths[] = {1, 4, 32};
  for (std::size_t b = 0; b < 3; ++b) {
    REQUIRE(blocks[b].size() == 3);
    CHECK(blocks[b][0][0] == 4096);
    CHECK(blocks[b][1][0] == 65536);
    CHECK(blocks[b][2][0] == 1048576);
    for (const auto& row : blocks[b]) CHECK(row[1] == depths[b]);
  }
  CHECK(blocks[2][0][2] == 1);  // depth 32, kept at 1
  const std::string script = test::ReadFile(files.script_path);
  // Six lines: each result's three depths, coloured by depth, dashed by result.
  CHECK(script.find("array file[6]") != std::string::npos);
  CHECK(script.find("title[1] = 'fast, depth 1'; colour[1] = 1; dash[1] = 1") != std::string::npos);
  CHECK(script.find("block[6] = 2; title[6] = 'slow, depth 32 (engine kept 1)'; colour[6] = 3; "
                    "dash[6] = 2") != std::string::npos);
  CHECK(script.find("set xtics ('4 KiB' 4096, '64 KiB' 65536, '1 MiB' 1048576)") !=
        std::string::npos);
  CHECK(script.find("Random reads by transfer size and queue depth: fast vs slow") !=
        std::string::npos);
}

TEST_CASE("A random access plot needs random access results", "[plot]") {
  test::TempDir dir;
  CHECK_THROWS_MATCHES(WritePlot(PlotKind::kRandom, {Hdd()}, dir.path().string(), "r", {}), Error,
                       test::HasKind(ErrorKind::kBadInput));
  PlotInput none = RandomGrid("x");
  for (RandomAccessCell& c : none.profile.random_access) c.iops = 0;
  CHECK_THROWS_MATCHES(WritePlot(PlotKind::kRandom, {none}, dir.path().string(), "r", {}), Error,
                       test::HasKind(ErrorKind::kBadInput));
}

}  // namespace
}  // namespace zcav
