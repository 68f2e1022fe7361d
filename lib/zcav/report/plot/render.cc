// Plots: rendering a written plot's images through the one gnuplot seam
// (gnuplot.h), which runs gnuplot on a copy of the script and data in a
// private directory and hands the images back; they are then written into
// place, so a failed render leaves no partial image (see plot.h).
#include <stdlib.h>

#include <cassert>
#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/base/atomic_file.h"
#include "zcav/base/error.h"
#include "zcav/report/gnuplot.h"
#include "zcav/report/plot.h"

namespace zcav {

namespace {

namespace fs = std::filesystem;

// A directory made by mkdtemp, removed with its contents on destruction.
class TempDir {
 public:
  explicit TempDir(const fs::path& pattern_prefix) {
    std::string pattern = pattern_prefix.string() + "XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw Error("cannot create a temporary directory " + pattern + ": " +
                      std::generic_category().message(errno),
                  ErrorKind::kRuntime);
    }
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string FileName(const std::string& path) { return fs::path(path).filename().string(); }

// The directory holding the script (and its data), and the images drawn.
std::vector<std::string> RenderImages(const PlotFiles& files) {
  const fs::path script(files.script_path);
  const std::string dir = script.parent_path().empty() ? "." : script.parent_path().string();
  std::vector<std::string> data;
  for (const std::string& path : files.data_paths) {
    assert(fs::path(path).parent_path() == script.parent_path());
    data.push_back(FileName(path));
  }
  std::vector<std::string> images;
  for (const std::string& path : files.image_paths) images.push_back(FileName(path));
  return CurrentGnuplot().Render(dir, script.filename().string(), data, images);
}

}  // namespace

bool GnuplotAvailable() { return CanDrawImages(CurrentGnuplot()); }

void RenderPlot(const PlotFiles& files) {
  const std::vector<std::string> drawn = RenderImages(files);
  for (std::size_t i = 0; i < files.image_paths.size(); ++i) {
    WriteFileAtomically(files.image_paths[i], drawn[i]);
  }
}

std::string RenderSvg(PlotKind kind, const std::vector<PlotInput>& inputs) {
  return RenderSvgWith(
      [&](const std::string& dir) { return WritePlot(kind, inputs, dir, "plot", {"plot.svg"}); });
}

std::string RenderSvgWith(const std::function<PlotFiles(const std::string& dir)>& write) {
  if (!GnuplotAvailable()) {
    throw Error("gnuplot (with the svg terminal) is not installed: cannot draw the plot",
                ErrorKind::kRuntime);
  }
  const TempDir dir(fs::temp_directory_path() / "zcav-plot-");
  const PlotFiles files = write(dir.path().string());
  return RenderImages(files).front();
}

}  // namespace zcav
