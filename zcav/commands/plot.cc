// zcav plot FILE...: saved results drawn with gnuplot.
#include "zcav/report/plot.h"

#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../app_util.h"
#include "../options.h"
#include "commands.h"
#include "zcav/base/error.h"
#include "zcav/report/report.h"

namespace zcav {
namespace {

struct PlotOptions : ZoneFlags {
  std::vector<std::string> files;  // the saved results to draw
  std::vector<std::string>
      labels;  // --label, one per file in order. Default: device model or file name
  // --kind. Default: falloff for one file, comparison for several
  PlotKind plot_kind = PlotKind::kFalloff;
  // -o IMAGE (.png or .svg). Default "-": the first file's name with .png, or
  // -comparison.png etc. for other kinds, beside it. The name (not its
  // directory) is made SafeFileName: other bytes than [A-Za-z0-9._-] become _.
  std::string output = "-";
  bool quiet = false;  // -q: do not say which files were written. Default: false
};

constexpr const char* kPlotHelp = R"(Usage: zcav plot FILE... [-o OUT.png|OUT.svg] [options]

Draws saved results (zcav raw, CSV or JSON; classic zcav logs) with gnuplot:
one FILE gives its falloff curve (MB/s against position, the min-max band across
passes, the detected zones labelled, outliers marked), several FILEs a comparison
with the position in % of each device. Beside the image zcav writes NAME.gp and
its data; 'gnuplot NAME.gp' in that directory draws it again after you edit it.
Without gnuplot, zcav writes the script and data and says how to render later.
Units: MB = 10^6 B, GB = 10^9 B.

)";
const CommandSyntax kSyntax{"plot", "file", kPlotHelp};

// --help's options (the zone flags are added by ParseThenRun).
po::options_description DescribePlot() {
  po::options_description desc = OptionsWithHelp();
  desc.add_options()(
      "output,o", po::value<std::string>()->value_name("OUT.png|OUT.svg"),
      "the image; the .gp script and data files go beside it, named after it (default: "
      "the first FILE's name with .png, or NAME-KIND.png for other kinds, beside it)")(
      "label", po::value<std::vector<std::string>>()->value_name("L"),
      "legend/title of the next FILE, in order (default: device model, else file name)")(
      "kind", po::value<std::string>()->value_name("KIND"),
      "falloff (default for one FILE), comparison (default for several), access, "
      "histogram, concurrent, map (a grid of cells coloured by chunk latency class), random "
      "(IOPS and latency against transfer size, a line per queue depth) or verify (zcav "
      "verify's write and read-back rates, the bad ranges shaded)")(
      "quiet,q", "do not say which files were written");
  return desc;
}

// The options of a parsed command line. Throws Error(kBadInput).
PlotOptions ReadPlot(const po::variables_map& vm) {
  PlotOptions out;
  out.files = Positionals(vm, "file");
  if (out.files.empty())
    throw Error("no data file given (usage: zcav plot FILE... [-o OUT.png])", ErrorKind::kBadInput);
  out.labels = LabelsFor(vm, out.files.size());
  if (vm.count("kind")) {
    out.plot_kind = ParsePlotKind(vm["kind"].as<std::string>());
  } else {
    out.plot_kind = out.files.size() == 1 ? PlotKind::kFalloff : PlotKind::kComparison;
  }
  if (vm.count("output")) {
    out.output = vm["output"].as<std::string>();
    if (!IsImageName(out.output)) {
      throw Error("output '" + out.output + "': the image name must end in .png or .svg",
                  ErrorKind::kBadInput);
    }
  }
  out.quiet = vm.count("quiet") > 0;
  return out;
}

int RunPlot(const PlotOptions& options, const Invocation& inv) {
  // Read every file first: a missing or malformed file fails before anything
  // is written.
  std::vector<PlotInput> inputs;
  if (options.plot_kind == PlotKind::kRandom || options.plot_kind == PlotKind::kVerify) {
    for (std::size_t i = 0; i < options.files.size(); ++i) {
      const std::string label = i < options.labels.size() ? options.labels[i] : std::string();
      inputs.push_back(options.plot_kind == PlotKind::kRandom
                           ? LoadRandomPlotInput(options.files[i], label)
                           : LoadVerifyPlotInput(options.files[i], label));
    }
  } else {
    inputs = LoadPlotInputs(options.files, options.labels, options);
  }
  std::filesystem::path image;
  if (options.output != "-") {
    image = options.output;
  } else {
    const std::filesystem::path first(options.files.front());
    const std::string suffix = options.plot_kind == PlotKind::kFalloff
                                   ? ""
                                   : std::string("-") + PlotKindName(options.plot_kind);
    image = first.parent_path() / (first.stem().string() + suffix + ".png");
  }
  // The image's name is written into the script: made of [A-Za-z0-9._-]
  // (a result named "|cmd.json" or "<cmd.json" must not become a pipe).
  image = image.parent_path() / (SafeFileName(image.stem().string()) + image.extension().string());
  const std::string dir = image.parent_path().empty() ? "." : image.parent_path().string();
  WriteAndRender(options.plot_kind, inputs, dir, image.stem().string(), {image.filename().string()},
                 options.quiet, inv.err);
  return 0;
}

}  // namespace

int PlotCommand(const Invocation& inv) {
  return ParseThenRun(inv, kSyntax, DescribePlot, ReadPlot, RunPlot);
}

}  // namespace zcav
