// Plots: reading the results to plot into PlotInputs (see plot.h).
#include <string>

#include "zcav/analysis/result_zones.h"
#include "zcav/format/data_reader.h"
#include "zcav/report/plot.h"
#include "zcav/report/plot/plot_internal.h"

namespace zcav {

namespace {

using plot_detail::Basename;

}  // namespace

std::string DefaultPlotLabel(const SavedResult& profile) {
  if (!profile.device_model.empty()) {
    return profile.transport.empty() ? profile.device_model
                                     : profile.device_model + " (" + profile.transport + ")";
  }
  return Basename(profile.source);
}

PlotInput LoadPlotInput(const std::string& path, const std::string& label,
                        const ZoneOptions& options, bool media_given, Media media) {
  PlotInput input;
  input.profile = ReadProfile(path);
  input.media = media_given ? media : GuessMedia(input.profile.device_path);
  // What the file recorded: how blurred its blocks are, whether the device rotates.
  ZoneOptions recorded = options;
  if (recorded.blur_blocks <= 0) recorded.blur_blocks = input.profile.blur_blocks;
  recorded.non_rotational =
      recorded.non_rotational || KnownNotToRotate(RecordedDevice(input.profile));
  input.zones = ResultZones(input.profile, recorded, input.media != Media::kNone);
  input.label = label.empty() ? DefaultPlotLabel(input.profile) : label;
  input.access = input.profile.access_samples;
  return input;
}

PlotInput LoadRandomPlotInput(const std::string& path, const std::string& label) {
  PlotInput input;
  input.profile = ReadRandomAccess(path);
  input.label = label.empty() ? DefaultPlotLabel(input.profile) : label;
  return input;
}

PlotInput LoadVerifyPlotInput(const std::string& path, const std::string& label) {
  PlotInput input;
  input.profile = ReadVerify(path);
  input.label = label.empty() ? DefaultPlotLabel(input.profile) : label;
  return input;
}

}  // namespace zcav
