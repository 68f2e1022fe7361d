// security: gnuplot (issue 36). The one quoting function, the file names a
// script may hold, the seam every gnuplot start goes through, and a
// fuzz-style check that attacker bytes (a result's model, serial, firmware,
// a --label, a file name) stay inside quoted strings of the scripts zcav
// writes.
#include "zcav/report/gnuplot.h"

#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "testutil.h"
#include "zcav/analysis/fleet.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/device/sim_device.h"
#include "zcav/measure/verify.h"
#include "zcav/report/fleet_report.h"
#include "zcav/report/plot.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

// A script with the text of every single-quoted string and every comment
// cut out (the quotes and '#' kept): what gnuplot runs as code. Double-quoted
// strings (the templates' "\n") are kept whole. "UNTERMINATED" when a quoted
// string runs to the end of a line, "CONTINUED" when a comment ends in a
// backslash (gnuplot would read the next line as part of it).
std::string CodeSkeleton(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\'') {
      std::size_t j = i + 1;
      for (;; ++j) {
        if (j >= s.size() || s[j] == '\n') return "UNTERMINATED";
        if (s[j] == '\'' && j + 1 < s.size() && s[j + 1] == '\'') {
          ++j;
          continue;
        }
        if (s[j] == '\'') break;
      }
      out += "''";
      i = j;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < s.size() && s[j] != '"'; ++j) {
        if (s[j] == '\n') return "UNTERMINATED";
        if (s[j] == '\\') ++j;
      }
      out += s.substr(i, j - i + 1);
      i = j;
    } else if (c == '#') {
      std::size_t j = i;
      while (j < s.size() && s[j] != '\n') ++j;
      if (j > i + 1 && s[j - 1] == '\\') return "CONTINUED";
      out += '#';
      i = j - 1;
    } else {
      out += c;
    }
  }
  return out;
}

// The first control character other than a line's end, or "" when none.
std::string ControlIn(const std::string& s) {
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\n') || c == 0x7f) return "byte " + std::to_string(c);
  }
  return "";
}

// Random attacker text: bytes of every value, many of them those gnuplot or a
// shell would act on.
std::string AttackerText(std::mt19937_64& rng) {
  static const std::string kNasty = "'\"\\\n\r\t`@$|<>;#(){}.,/ -";
  std::uniform_int_distribution<int> length(1, 40);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<std::size_t> nasty(0, kNasty.size() - 1);
  std::string text;
  for (int n = length(rng); n > 0; --n) {
    text += byte(rng) % 2 == 0 ? kNasty[nasty(rng)] : static_cast<char>(byte(rng));
  }
  return text;
}

PlotInput Golden(const std::string& label) {
  PlotInput in = LoadPlotInput(test::DataPath("golden.json").string(), label, ZoneOptions{}, false,
                               Media::kNone);
  return in;
}

void CheckSafeScript(const std::string& script, const std::string& benign_script) {
  CAPTURE(script);
  CHECK(ControlIn(script).empty());
  CHECK(CodeSkeleton(script) == CodeSkeleton(benign_script));
  CHECK(CodeSkeleton(script) != "UNTERMINATED");
  CHECK(CodeSkeleton(script) != "CONTINUED");
}

TEST_CASE("GpQuote makes any text one inert single-quoted string without control characters",
          "[security]") {
  CHECK(GpQuote("plain") == "'plain'");
  CHECK(GpQuote("it's") == "'it''s'");
  CHECK(GpQuote("a\nsystem \"id\"") == "'a system \"id\"'");
  CHECK(GpQuote(std::string("x\0y\x1b[2J\x7fz", 10)) == "'xy[2Jz'");
  CHECK(GpQuote("q'.system('id').'") == "'q''.system(''id'').'''");
  CHECK(GpComment("model\nsystem 'id'") == "model system 'id'");
  CHECK(GpComment("ends in a backslash\\\\") == "ends in a backslash");
}

TEST_CASE("SafeFileName keeps names of the safe alphabet and makes any other one safe",
          "[security]") {
  for (const char* kept : {"sim-hdd-seed-1", "report", "hdd-vs-usb2", "a.b_c-1", ".hidden"}) {
    CHECK(SafeFileName(kept) == kept);
    CHECK(IsSafeFileName(kept));
  }
  CHECK(SafeFileName("q'.system('id>p').'") == "q_.system__id_p__._");
  CHECK(SafeFileName("<id>p;") == "_id_p_");
  CHECK(SafeFileName("|id>p;cat>x;") == "_id_p_cat_x_");
  CHECK(SafeFileName("-o") == "_o");
  CHECK(SafeFileName("..") == "_");
  CHECK(SafeFileName("") == "_");
  CHECK(SafeFileName(std::string(300, 'a')).size() == 200);
  CHECK_FALSE(IsSafeFileName("a b"));
  CHECK_FALSE(IsSafeFileName("-x"));
  CHECK_FALSE(IsSafeFileName("."));
  CHECK_FALSE(IsSafeFileName("a/b"));
  std::mt19937_64 rng(36);
  for (int i = 0; i < 2000; ++i) {
    const std::string text = AttackerText(rng);
    CAPTURE(text);
    CHECK(IsSafeFileName(SafeFileName(text)));
  }
}

TEST_CASE("WritePlot refuses a plot or image name gnuplot could read as code or a pipe",
          "[security]") {
  test::TempDir dir;
  for (const char* name : {"<id", "|id", "a'b", "a b", "-x", ".."}) {
    CAPTURE(name);
    CHECK_THROWS_AS(WritePlot(PlotKind::kFalloff, {Golden("l")}, dir.path().string(), name, {}),
                    Error);
  }
  CHECK_THROWS_AS(
      WritePlot(PlotKind::kFalloff, {Golden("l")}, dir.path().string(), "ok", {"|id.png"}), Error);
}

TEST_CASE("Random labels, models, serials and file names stay inside the scripts' quoted strings",
          "[security]") {
  const std::uint64_t seed = 0x36'9e37'79b9ULL;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  test::TempDir dir;
  const std::string d = dir.path().string();
  const std::string benign_falloff =
      test::ReadFile(WritePlot(PlotKind::kFalloff, {Golden("A")}, d, "b1", {}).script_path);
  const std::string benign_cmp = test::ReadFile(
      WritePlot(PlotKind::kComparison, {Golden("A"), Golden("B")}, d, "b2", {}).script_path);
  for (int i = 0; i < 200; ++i) {
    CAPTURE(i);
    PlotInput a = Golden(AttackerText(rng));
    a.profile.device_model = AttackerText(rng);
    a.profile.device_serial = AttackerText(rng);
    a.profile.device_firmware = AttackerText(rng);
    const std::string name = SafeFileName(AttackerText(rng));
    CAPTURE(a.label, name);
    CheckSafeScript(test::ReadFile(WritePlot(PlotKind::kFalloff, {a}, d, name, {}).script_path),
                    benign_falloff);
    PlotInput b = Golden(DefaultPlotLabel(a.profile));
    CheckSafeScript(
        test::ReadFile(WritePlot(PlotKind::kComparison, {a, b}, d, name, {}).script_path),
        benign_cmp);
  }
}

TEST_CASE("A verify plot keeps a hostile model and label inside its quoted strings", "[security]") {
  VirtualClock clock;
  const std::unique_ptr<Device> device =
      MakeSimulatedDevice(ParseSimSpec("sim:ssd?size=64M&real=16M&noise=0"), clock);
  const auto verified = [&](const std::string& label) {
    PlotInput in;
    in.profile.verify = RunVerify(*device, clock, VerifyOptions{}, nullptr);
    in.label = label;
    return in;
  };
  std::mt19937_64 rng(0x39'0f0e'7ab1ULL);
  test::TempDir dir;
  const std::string d = dir.path().string();
  const std::string benign =
      test::ReadFile(WritePlot(PlotKind::kVerify, {verified("A")}, d, "b", {}).script_path);
  for (int i = 0; i < 50; ++i) {
    PlotInput in = verified(AttackerText(rng));
    in.profile.device_model = AttackerText(rng);
    CAPTURE(i, in.label);
    const PlotFiles files = WritePlot(PlotKind::kVerify, {in}, d, "v", {});
    CheckSafeScript(test::ReadFile(files.script_path), benign);
    for (const std::string& data : files.data_paths) {
      CHECK(ControlIn(test::ReadFile(data)).empty());
    }
  }
}

std::vector<FleetDrive> Fleet(const std::string& model, const std::string& firmware,
                              const std::vector<std::string>& names) {
  std::vector<FleetDrive> drives;
  for (std::size_t i = 0; i < names.size(); ++i) {
    FleetDrive f;
    f.source = "d" + std::to_string(i) + ".json";
    f.name = names[i];
    f.serial = names[i];
    f.model = model;
    f.firmware = firmware;
    f.size_bytes = 1'000'000'000;
    for (std::size_t b = 0; b < kFleetBins; ++b) {
      f.bins[b] = (i == 0 && b > 40 && b < 60) ? 50 : 100 - static_cast<double>(b) / 4;
    }
    drives.push_back(f);
  }
  return drives;
}

TEST_CASE("Random models, firmware and drive names stay inside the fleet script's quoted strings",
          "[security]") {
  const std::uint64_t seed = 36;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  test::TempDir dir;
  const std::string d = dir.path().string();
  const std::vector<FleetDrive> benign =
      Fleet("M", "F", {"n1", "n2", "n3", "n4", "n5", "n6", "n7"});
  const FleetAnalysis benign_a = AnalyzeFleet(benign);
  REQUIRE(benign_a.groups.size() == 1);
  const std::string benign_script =
      test::ReadFile(WriteFleetPlot(benign, benign_a, 0, d, "b", "b.png").script_path);
  for (int i = 0; i < 200; ++i) {
    CAPTURE(i);
    std::vector<std::string> names;
    for (int n = 0; n < 7; ++n) names.push_back(AttackerText(rng) + std::to_string(n));
    const std::vector<FleetDrive> drives = Fleet(AttackerText(rng), AttackerText(rng), names);
    const FleetAnalysis a = AnalyzeFleet(drives);
    REQUIRE(a.groups.size() == 1);
    CAPTURE(drives.front().model, drives.front().firmware);
    const PlotFiles files = WriteFleetPlot(drives, a, 0, d, "g", "g.png");
    CheckSafeScript(test::ReadFile(files.script_path), benign_script);
    for (const std::string& data : files.data_paths) CHECK(ControlIn(test::ReadFile(data)).empty());
  }
}

// A Gnuplot that records what it was asked and draws fixed bytes.
class FakeGnuplot final : public Gnuplot {
 public:
  struct RenderCall {
    std::string dir, script, script_text;
    std::vector<std::string> inputs, outputs;
  };
  std::string terminals = " dumb pngcairo svg ";
  std::vector<RenderCall> renders;
  int starts = 0;

  std::string Terminals() override { return terminals; }
  std::vector<std::string> Render(const std::string& dir, const std::string& script,
                                  const std::vector<std::string>& inputs,
                                  const std::vector<std::string>& outputs) override {
    renders.push_back({dir, script, test::ReadFile(fs::path(dir) / script), inputs, outputs});
    return std::vector<std::string>(outputs.size(), "drawn by the fake");
  }
  std::unique_ptr<GnuplotSession> Start(bool, bool) override {
    ++starts;
    return nullptr;
  }
};

TEST_CASE("Plots render through the seam: zcav's own names, the images written by zcav",
          "[security]") {
  FakeGnuplot fake;
  const ScopedGnuplot use(fake);
  CHECK(GnuplotAvailable());
  test::TempDir dir;
  const PlotFiles files = WritePlot(PlotKind::kFalloff, {Golden("x'\nsystem('id')")},
                                    dir.path().string(), "p", {"p.png", "p.svg"});
  RenderPlot(files);
  REQUIRE(fake.renders.size() == 1);
  const FakeGnuplot::RenderCall& call = fake.renders.front();
  CHECK(call.script == "p.gp");
  CHECK(call.outputs == std::vector<std::string>{"p.png", "p.svg"});
  for (const std::string& n : call.inputs) CHECK(IsSafeFileName(n));
  CHECK(call.script_text.find("\nsystem") == std::string::npos);
  CHECK(test::ReadFile(dir.path() / "p.png") == "drawn by the fake");
  CHECK(RenderSvg(PlotKind::kFalloff, {Golden("l")}) == "drawn by the fake");
  fake.terminals = " dumb ";
  CHECK_FALSE(GnuplotAvailable());
}

// The real gnuplot, as the seam runs it: a script this test writes itself
// asks gnuplot who it runs as and what environment it has.
TEST_CASE("The seam runs gnuplot -d with a clean environment, and not as root", "[security]") {
  if (SystemGnuplot().Terminals().empty()) {
    test::NotRunHere("gnuplot is not installed");
    return;
  }
  test::TempDir dir;
  test::WriteFile(dir.path() / "who.gp",
                  "set print 'who.txt'\n"
                  "print system('id -u')\n"
                  "print system('echo \"home=$HOME path=$PATH\"; env | grep -c ^GNUPLOT_')\n");
  const char* old_home = std::getenv("HOME");
  const std::string home = old_home != nullptr ? old_home : "";
  ::setenv("GNUPLOT_LIB", "/nonexistent", 1);
  ::setenv("HOME", dir.path().c_str(), 1);
  // An init file it must not read (-d, and no HOME).
  test::WriteFile(dir.path() / ".gnuplot", "set print 'init-read.txt'\nprint 'read'\n");
  const std::vector<std::string> out =
      SystemGnuplot().Render(dir.path().string(), "who.gp", {}, {"who.txt"});
  ::unsetenv("GNUPLOT_LIB");
  if (old_home != nullptr) ::setenv("HOME", home.c_str(), 1);
  REQUIRE(out.size() == 1);
  const std::string& text = out.front();
  CAPTURE(text);
  const std::string uid = text.substr(0, text.find('\n'));
  if (::geteuid() == 0) {
    CHECK(uid != "0");
    const char* sudo_uid = std::getenv("SUDO_UID");
    if (sudo_uid == nullptr) CHECK(uid == "65534");
  } else {
    CHECK(uid == std::to_string(::getuid()));
  }
  CHECK(text.find("home= path=/usr/local/bin:/usr/bin:/bin") != std::string::npos);
  CHECK(text.find("\n0\n") != std::string::npos);  // no GNUPLOT_ variable
  CHECK_FALSE(fs::exists(dir.path() / "init-read.txt"));
  CHECK_FALSE(fs::exists(dir.path() / "who.txt"));  // drawn in its own directory
}

TEST_CASE("The seam refuses a file name that is not zcav's own", "[security]") {
  test::TempDir dir;
  CHECK_THROWS_AS(SystemGnuplot().Render(dir.path().string(), "<id", {}, {}), Error);
  CHECK_THROWS_AS(SystemGnuplot().Render(dir.path().string(), "a.gp", {"|id"}, {}), Error);
  CHECK_THROWS_AS(SystemGnuplot().Render(dir.path().string(), "a.gp", {}, {"x y.png"}), Error);
}

}  // namespace
}  // namespace zcav
