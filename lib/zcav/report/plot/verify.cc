// Plots, inside: the verify plot (PlotKind::kVerify, zcav verify): the write
// and read-back rates against position, the ranges that were not good
// shaded by state.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/report/plot/plot_internal.h"

namespace zcav::plot_detail {

namespace {

std::string CurveText(const VerifyResult& r, const std::string& label) {
  std::string s = "# zcav plot data: write and read-back rates of " + GpComment(label) + "\n";
  s += "# Units: GB = 10^9 B, MB/s = 10^6 B per second; 0 = not timed.\n";
  s += "# position_gb write_mb_per_s read_mb_per_s\n";
  for (const VerifyBlock& b : r.blocks) {
    const double middle =
        static_cast<double>(b.offset_bytes) + static_cast<double>(b.length_bytes) / 2.0;
    s += FormatFixed(middle / kGB, 6) + ' ' + FormatFixed(b.write_mb_per_s, 3) + ' ' +
         FormatFixed(b.read_mb_per_s, 3) + '\n';
  }
  return s;
}

int StateNumber(VerifyState s) {
  return s == VerifyState::kWrapped ? 1 : s == VerifyState::kLost ? 2 : 3;
}

std::string RangesText(const VerifyResult& r, std::set<int>& states) {
  std::string s = "# zcav plot data: ranges that did not give back what was written\n";
  s += "# Units: GB = 10^9 B; state 1 wrapped, 2 lost, 3 unreadable.\n";
  s += "# start_gb end_gb state\n";
  for (const VerifyRange& x : r.ranges) {
    if (x.state == VerifyState::kGood) continue;
    states.insert(StateNumber(x.state));
    s += FormatFixed(static_cast<double>(x.start_bytes) / kGB, 6) + ' ' +
         FormatFixed(static_cast<double>(x.end_bytes) / kGB, 6) + ' ' +
         std::to_string(StateNumber(x.state)) + '\n';
  }
  return s;
}

}  // namespace

void FillVerify(const std::vector<PlotInput>& inputs, const fs::path& dir, const std::string& name,
                std::map<std::string, std::string>& v, std::set<std::string>& flags,
                PlotFiles& files) {
  const PlotInput& input = inputs.front();
  const VerifyResult& r = *input.profile.verify;
  const std::string curve = name + ".verify.dat";
  WriteText(dir / curve, CurveText(r, input.label), inputs);
  files.data_paths.push_back((dir / curve).string());
  v["curve"] = curve;
  std::set<int> states;
  const std::string ranges_text = RangesText(r, states);
  v["ranges"] = "";
  v["range_plots"] = "";
  if (!states.empty()) {
    const std::string ranges = name + ".ranges.dat";
    WriteText(dir / ranges, ranges_text, inputs);
    files.data_paths.push_back((dir / ranges).string());
    v["ranges"] = ranges;
    flags.insert("ranges");
    static const char* const kColour[] = {"", "#e69f00", "#d55e00", "#7f7f7f"};
    static const char* const kName[] = {"", "wrapped", "lost", "unreadable"};
    std::string lines;
    for (const int s : states) {
      const std::string n = std::to_string(s);
      lines += (lines.empty() ? "  " : "\n  ") + GpQuote(ranges) +
               " using (($1 + $2) / 2):($3 == " + n +
               " ? band / 2 : NaN):(($2 - $1) / 2):(band / 2) with boxxyerror lc rgb " +
               GpQuote(kColour[s]) + " title " + GpQuote(kName[s]) + ", \\";
    }
    v["range_plots"] = lines;
  }
  double top = 0;
  for (const VerifyBlock& b : r.blocks) top = std::max({top, b.write_mb_per_s, b.read_mb_per_s});
  v["y_max"] = FormatFixed(top > 0 ? top * 1.15 : 1.0, 1);
  v["x_max"] =
      FormatFixed(static_cast<double>(std::max<std::uint64_t>(r.claimed_bytes, 1)) / kGB, 6);
  v["title"] = GpQuoted("Write and read back: " + input.label + ": " +
                        VerifyVerdictName(r.verdict) + ", usable " + FormatBytes(r.usable_bytes));
}

}  // namespace zcav::plot_detail
