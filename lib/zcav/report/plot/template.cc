// Plots, inside: the script templates and their expansion.
//
// Each script is a template from plots/*.gp (embedded by CMake as
// plot_templates.h) with a few values filled in. The template language is
// kept tiny so the templates stay plain gnuplot a person can read:
//   {{name}}     replaced by a value (file names, title, ranges, ...);
//   {{?flag}}    at the start of a line: the line is kept only when the flag
//                is set (the min-max band, zones, outliers, an X-speed axis);
//   #%           at the start of a line: a note about the template, dropped.
// A plot element line that ends in ", \" and is followed by a blank line
// loses the ", \" (its optional successors were dropped).
#include <cassert>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "zcav/plot_templates.h"
#include "zcav/report/plot/plot_internal.h"

namespace zcav::plot_detail {

const char* TemplateOf(PlotKind kind) {
  switch (kind) {
    case PlotKind::kFalloff:
      return plot_templates::kFalloff;
    case PlotKind::kComparison:
      return plot_templates::kComparison;
    case PlotKind::kAccess:
      return plot_templates::kAccess;
    case PlotKind::kHistogram:
      return plot_templates::kHistogram;
    case PlotKind::kConcurrent:
      return plot_templates::kConcurrent;
    case PlotKind::kMap:
      return plot_templates::kMap;
    case PlotKind::kRandom:
      return plot_templates::kRandom;
    case PlotKind::kVerify:
      return plot_templates::kVerify;
  }
  return plot_templates::kFalloff;
}

std::string Expand(std::string_view tmpl, const std::map<std::string, std::string>& values,
                   const std::set<std::string>& flags) {
  std::vector<std::string> lines;
  while (!tmpl.empty()) {
    const std::size_t nl = tmpl.find('\n');
    std::string line(tmpl.substr(0, nl));
    tmpl.remove_prefix(nl == std::string_view::npos ? tmpl.size() : nl + 1);
    if (line.rfind("#%", 0) == 0) continue;
    if (line.rfind("{{?", 0) == 0) {
      const std::size_t close = line.find("}}");
      assert(close != std::string::npos);
      if (flags.count(line.substr(3, close - 3)) == 0) continue;
      line.erase(0, close + 2);
    }
    std::string out;
    std::size_t pos = 0;
    while (true) {
      const std::size_t open = line.find("{{", pos);
      if (open == std::string::npos) break;
      const std::size_t close = line.find("}}", open);
      assert(close != std::string::npos);
      const auto it = values.find(line.substr(open + 2, close - open - 2));
      assert(it != values.end());
      out += line.substr(pos, open - pos) + (it == values.end() ? "" : it->second);
      pos = close + 2;
    }
    out += line.substr(pos);
    lines.push_back(out);
  }
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string& line = lines[i];
    const bool last_element = i + 1 == lines.size() || lines[i + 1].empty();
    if (last_element && EndsWith(line, ", \\")) line.resize(line.size() - 3);
    text += line + "\n";
  }
  // Values that are several lines (the output commands) may leave runs of
  // blank lines: keep at most one.
  std::string squeezed;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && squeezed.size() >= 2 && squeezed[squeezed.size() - 1] == '\n' &&
        squeezed[squeezed.size() - 2] == '\n') {
      continue;
    }
    squeezed += text[i];
  }
  return squeezed;
}

}  // namespace zcav::plot_detail
