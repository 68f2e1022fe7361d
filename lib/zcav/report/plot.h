// Plots: gnuplot scripts a person can read and edit, and their rendering.
//
// For each plot zcav writes NAME.gp plus the plain data files it reads
// (columns named in a header comment) into one directory; `gnuplot NAME.gp`
// re-renders it there. The templates live in plots/*.gp and are embedded in
// the binary at build time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "zcav/analysis/zone_detector.h"
#include "zcav/format/data_reader.h"
#include "zcav/format/zone_table.h"
#include "zcav/report/gnuplot.h"

namespace zcav {

enum class PlotKind {
  kFalloff,     // MB/s against position: median, min-max band, zones, outliers
  kComparison,  // several results, x in % of device
  kAccess,      // access time (ms) against position: scatter
  kHistogram,   // access-time histogram
  kConcurrent,  // devices read at the same time vs alone
  kMap,         // surface map: a grid of cells coloured by chunk latency class
  kRandom,      // random access: IOPS and latency against transfer size, a line per depth
  kVerify,      // zcav verify: write and read-back MB/s against position, bad ranges shaded
};

// "falloff", "comparison", "access", "histogram", "concurrent", "map",
// "random", "verify".
const char* PlotKindName(PlotKind kind);
// The inverse of PlotKindName; throws Error(kBadInput) naming the choices.
PlotKind ParsePlotKind(const std::string& text);

// One result to plot.
struct PlotInput {
  std::string label;           // legend / title: --label, else device model, else file name
  SavedResult profile;         // the curve (and metadata); kConcurrent: the device read alone
  ZoneAnalysis zones;          // detected zones (may be empty)
  Media media = Media::kNone;  // optical: a right-hand axis in X speed
  // kAccess, kHistogram: the access samples (position order not required);
  // LoadPlotInput copies the profile's access_samples here.
  std::vector<AccessSample> access;
  // kConcurrent: the same device's curve while the other inputs' devices
  // were read at the same time (same shape as profile.points).
  Curve concurrent;
};

// The label LoadPlotInput derives when none is given: the device model (with
// the transport in parentheses when known), else the file name without its
// directory.
std::string DefaultPlotLabel(const SavedResult& profile);

// Reads `path` (any format data_reader.h accepts), detects its zones with
// `options` and fills a PlotInput; `label` empty = derived. Throws Error as
// ReadProfile does (data_reader.h).
PlotInput LoadPlotInput(const std::string& path, const std::string& label,
                        const ZoneOptions& options, bool media_given, Media media);

// Reads the random access results of `path` (ReadRandomAccess: a zcav JSON
// of zcav access --sizes or zcav profile) into a PlotInput for kRandom;
// `label` empty = derived. Throws Error as ReadRandomAccess does.
PlotInput LoadRandomPlotInput(const std::string& path, const std::string& label);

// Reads zcav verify's JSON result `path` (ReadVerify) into a PlotInput for
// kVerify; `label` empty = the device's path in it. Throws as ReadVerify does.
PlotInput LoadVerifyPlotInput(const std::string& path, const std::string& label);

// Written files.
struct PlotFiles {
  std::string script_path;               // NAME.gp
  std::vector<std::string> data_paths;   // files the script reads
  std::vector<std::string> image_paths;  // images the script draws (PNG and/or SVG)
};

// Writes NAME.gp (`name`) and the data files it reads for `inputs` of `kind`
// into `dir` (created if missing), drawing `images` (names ending in .png or
// .svg, relative to dir; empty = NAME.png). Never replaces an input's source
// file; the same inputs give the same text. Throws Error(kBadInput) for
// unusable inputs (count, missing data, an unsafe or wrong image or name: pass
// SafeFileName of a stem) and Error(kRuntime) when a file cannot be written.
// Specification: docs/plots.md#plots
PlotFiles WritePlot(PlotKind kind, const std::vector<PlotInput>& inputs, const std::string& dir,
                    const std::string& name, const std::vector<std::string>& images);

// True when the gnuplot zcav runs (CurrentGnuplot(), gnuplot.h) can draw
// pngcairo and svg (the real one is asked once per process).
bool GnuplotAvailable();

// Whether `name` names an image zcav draws: it ends in .png or .svg (after
// something).
bool IsImageName(const std::string& name);

// The gnuplot terminal line for an image name: svg for .svg, else pngcairo;
// 1000x600 pixels, sans 10.
std::string GnuplotTerminal(const std::string& image);

// Draws files.image_paths with CurrentGnuplot() (gnuplot.h: in a private
// directory, on copies of the script and data, as an unprivileged user when
// zcav is root) and writes each image into place (WriteFileAtomically), so a
// failure leaves no partial image. Throws Error(kRuntime) with gnuplot's
// message if it fails; REQUIRES GnuplotAvailable(), the script and data in
// one directory, every name IsSafeFileName.
void RenderPlot(const PlotFiles& files);

// The SVG text of a plot of `inputs` (rendered in a temporary directory that
// is removed). Throws Error(kRuntime) when gnuplot is missing or fails.
std::string RenderSvg(PlotKind kind, const std::vector<PlotInput>& inputs);
// The same for a plot `write` writes into the temporary directory it is
// given (returning its files, the first image an .svg).
std::string RenderSvgWith(const std::function<PlotFiles(const std::string& dir)>& write);

}  // namespace zcav
