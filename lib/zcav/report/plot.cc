// Plots: see plot.h. The driver: WritePlot checks the names and inputs,
// hands the kind's values and data files to its Fill function
// (report/plot/*.cc, plot_internal.h), adds the output commands and expands
// the kind's template (report/plot/template.cc) into NAME.gp.
//
// The script is the single description of the plot: rendering
// (report/plot/render.cc) runs gnuplot on it through the one gnuplot seam
// (gnuplot.h). Every string a script holds comes through GpQuote or
// GpComment, and every file name it names is IsSafeFileName (checked here).
#include "zcav/report/plot.h"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/base/enum_names.h"
#include "zcav/base/error.h"
#include "zcav/report/plot/plot_internal.h"

namespace zcav {

namespace {

namespace fs = std::filesystem;

using plot_detail::EndsWith;
using plot_detail::Expand;
using plot_detail::FillFalloff;
using plot_detail::FillMap;
using plot_detail::FillMulti;
using plot_detail::FillRandom;
using plot_detail::FillVerify;
using plot_detail::kHeightPx;
using plot_detail::kWidthPx;
using plot_detail::TemplateOf;
using plot_detail::WriteText;

// Throws Error(kBadInput) when `inputs` cannot make a `kind` plot (see
// WritePlot in plot.h).
void CheckInputs(PlotKind kind, const std::vector<PlotInput>& inputs) {
  if (inputs.empty()) throw Error("nothing to plot (no input)", ErrorKind::kBadInput);
  if ((kind == PlotKind::kFalloff || kind == PlotKind::kMap) && inputs.size() > 1) {
    throw Error(std::string("a ") + PlotKindName(kind) + " plot shows one result, " +
                    std::to_string(inputs.size()) + " given (" +
                    (kind == PlotKind::kMap ? "plot each on its own" : "use --kind comparison") +
                    ")",
                ErrorKind::kBadInput);
  }
  for (const PlotInput& in : inputs) {
    const std::string who = in.label.empty() ? in.profile.source : in.label;
    const bool access = kind == PlotKind::kAccess || kind == PlotKind::kHistogram;
    if (access && in.access.empty()) {
      throw Error(who +
                      ": no access-time samples to plot (this result has only a throughput "
                      "curve; use --kind falloff or comparison)",
                  ErrorKind::kBadInput);
    }
    if (kind == PlotKind::kMap && in.profile.points.empty() && in.profile.unreadable.empty()) {
      throw Error(who + ": no blocks to map", ErrorKind::kBadInput);
    }
    if (kind == PlotKind::kMap && in.profile.adaptive) {
      throw Error(who +
                      ": an adaptive result has no surface map: it read probes, not the surface "
                      "(sweep without --adaptive for one)",
                  ErrorKind::kBadInput);
    }
    if (kind == PlotKind::kVerify) {
      if (inputs.size() > 1) {
        throw Error("a verify plot shows one result, " + std::to_string(inputs.size()) + " given",
                    ErrorKind::kBadInput);
      }
      if (!in.profile.verify || in.profile.verify->blocks.empty()) {
        throw Error(who + ": no verify result to plot (zcav verify --format json writes one)",
                    ErrorKind::kBadInput);
      }
      continue;
    }
    if (kind == PlotKind::kRandom) {
      const bool any = std::any_of(in.profile.random_access.begin(), in.profile.random_access.end(),
                                   [](const RandomAccessCell& c) { return c.iops > 0; });
      if (!any) {
        throw Error(who +
                        ": no random access results to plot (measure them with zcav access "
                        "--sizes or zcav profile)",
                    ErrorKind::kBadInput);
      }
      continue;
    }
    if (!access && kind != PlotKind::kMap && in.profile.points.empty()) {
      throw Error(who + ": no data points to plot", ErrorKind::kBadInput);
    }
    if (kind == PlotKind::kConcurrent && in.concurrent.empty()) {
      throw Error(who + ": no concurrent run to plot (use --kind falloff or comparison)",
                  ErrorKind::kBadInput);
    }
  }
}

constexpr EnumName<PlotKind> kPlotKindNames[] = {
    {PlotKind::kFalloff, "falloff"},       {PlotKind::kComparison, "comparison"},
    {PlotKind::kAccess, "access"},         {PlotKind::kHistogram, "histogram"},
    {PlotKind::kConcurrent, "concurrent"}, {PlotKind::kMap, "map"},
    {PlotKind::kRandom, "random"},         {PlotKind::kVerify, "verify"},
};

}  // namespace

const char* PlotKindName(PlotKind kind) { return NameOf(kind, kPlotKindNames, "falloff"); }

PlotKind ParsePlotKind(const std::string& text) {
  if (const std::optional<PlotKind> kind = ValueOf(text, kPlotKindNames)) return *kind;
  throw Error(
      "unknown plot kind '" + text +
          "' (use falloff, comparison, access, histogram, concurrent, map, random or verify)",
      ErrorKind::kBadInput);
}

PlotFiles WritePlot(PlotKind kind, const std::vector<PlotInput>& inputs, const std::string& dir,
                    const std::string& name, const std::vector<std::string>& images) {
  if (!IsSafeFileName(name)) {
    throw Error("invalid plot name '" + GpComment(name) +
                    "' (a file name without a directory, of A-Z a-z 0-9 . _ -)",
                ErrorKind::kBadInput);
  }
  std::vector<std::string> outputs =
      images.empty() ? std::vector<std::string>{name + ".png"} : images;
  for (const std::string& image : outputs) {
    if (!IsImageName(image)) {
      throw Error("image " + image + ": the name must end in .png or .svg", ErrorKind::kBadInput);
    }
    if (!IsSafeFileName(image)) {
      throw Error(
          "image '" + GpComment(image) + "': a file name without a directory, of A-Z a-z 0-9 . _ -",
          ErrorKind::kBadInput);
    }
  }
  CheckInputs(kind, inputs);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create directory " + dir + ": " + ec.message(), ErrorKind::kRuntime);

  PlotFiles files;
  const fs::path d(dir);
  files.script_path = (d / (name + ".gp")).string();
  std::map<std::string, std::string> values;
  std::set<std::string> flags;
  values["script"] = name + ".gp";
  if (kind == PlotKind::kFalloff) {
    FillFalloff(inputs, d, name, values, flags, files);
  } else if (kind == PlotKind::kMap) {
    FillMap(inputs, d, name, values, files);
  } else if (kind == PlotKind::kRandom) {
    FillRandom(inputs, d, name, values, files);
  } else if (kind == PlotKind::kVerify) {
    FillVerify(inputs, d, name, values, flags, files);
  } else {
    FillMulti(kind, inputs, d, name, values, flags, files);
  }
  // Output commands: the first image before the plot command, the others
  // re-plotted after it.
  std::string first =
      "# Images: the terminal follows the extension (pngcairo for .png, svg "
      "for .svg).\n";
  first += GnuplotTerminal(outputs.front()) + "\nset output " + GpQuote(outputs.front());
  std::string more;
  for (std::size_t i = 1; i < outputs.size(); ++i) {
    more += GnuplotTerminal(outputs[i]) + "\nset output " + GpQuote(outputs[i]) + "\nreplot\n";
  }
  more += "unset output";
  values["output"] = first;
  values["more_outputs"] = more;
  // A template that draws several plots per image (multiplot) loops over
  // the images itself: their terminals and names as gnuplot arrays.
  std::string image_list;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    image_list += (i ? "\n" : "") + std::string("terminal[") + n +
                  "] = " + GpQuote(GnuplotTerminal(outputs[i])) + "; image[" + n +
                  "] = " + GpQuote(outputs[i]);
  }
  values["images"] = std::to_string(outputs.size());
  values["image_list"] = image_list;
  for (const std::string& image : outputs) files.image_paths.push_back((d / image).string());
  WriteText(files.script_path, Expand(TemplateOf(kind), values, flags), inputs);
  return files;
}

bool IsImageName(const std::string& name) {
  return name.size() > 4 && (EndsWith(name, ".png") || EndsWith(name, ".svg"));
}

std::string GnuplotTerminal(const std::string& image) {
  const std::string size = " size " + std::to_string(kWidthPx) + "," + std::to_string(kHeightPx);
  if (EndsWith(image, ".svg")) {
    return "set terminal svg" + size + " font 'sans,10' background rgb 'white'";
  }
  return "set terminal pngcairo" + size + " font 'sans,10'";
}

}  // namespace zcav
