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
};

// "falloff", "comparison", "access", "histogram", "concurrent", "map",
// "random".
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

// Written files.
struct PlotFiles {
  std::string script_path;               // NAME.gp
  std::vector<std::string> data_paths;   // files the script reads
  std::vector<std::string> image_paths;  // images the script draws (PNG and/or SVG)
};

// Writes the script and data for `inputs` into `dir` (created if missing),
// named after `name`, drawing the images listed in `images` (file names
// ending in .png or .svg, relative to dir; empty = NAME.png). Files:
// NAME.gp, and NAME.curve.dat (falloff: plus NAME.zones.dat, NAME.outliers.dat
// when there are zones / outliers, NAME.jitter.dat, NAME.dips.dat and
// NAME.offscale.dat as below) or NAME-1.curve.dat, NAME-2.curve.dat... (one per
// input; access, histogram: NAME-I.access.dat; concurrent: NAME-I.alone.dat
// and NAME-I.together.dat).
// The rate axis (falloff, comparison) starts at 0 and spans every block, 15 %
// above the highest, unless the highest is more than 1.5 times the top of the
// bulk of the data: the 99th percentile of the block rates (each measured
// against its zone's median when there are zones), no higher than Tukey's
// far-out fence (P75 + 3 IQR), never below a zone level or a jitter band's
// top. Then the axis reaches 15 % above the bulk, and the blocks above it are
// written to NAME.offscale.dat (the comparison's lines start with the input's
// number) and drawn as triangles on the top edge, the legend saying "N blocks
// off scale (max X MB/s)". The falloff plot labels at most 20 zones whose
// labels do not overlap (the fastest, the slowest, then the longest), the
// legend saying "N zones, M labelled" when some are not (every zone is still
// drawn and listed in NAME.zones.dat, the others with an empty label). When
// the analysis knows the jitter (texture.jitter_p5_rel < 1 or jitter_p95_rel
// > 1) and the widest zone's band is at least 2 % of the axis, NAME.jitter.dat
// holds each zone's p5-p95 band (median x p5_rel .. x p95_rel), shaded behind
// the curve; the analysis' dip_blocks are written to NAME.dips.dat and marked
// ("dips (N blocks)"). Smooth fits (cav, pcav) draw no zones and no band.
// Marked blocks (off scale, dips) are one line each up to 2000, else one line
// per bucket of the curve's grid with the highest (lowest for dips) rate and
// the number of blocks.
// A curve data file has one line per block up to 2000 blocks (two per pixel
// column); a longer curve (a 20 TB disk in 1 MiB blocks has 20 M) is written
// as buckets of ceil(N / 2000) consecutive blocks, one line each at the
// middle of the bucket: the median of the blocks' rates, the lowest min and
// the highest max (the header comment says so). Zones and outliers are drawn
// from the full-resolution analysis.
// Read errors: when an input's profile has unreadable ranges, the falloff and
// comparison plots write NAME.unreadable.dat (each range's start and end in
// GB and in % of its device; the comparison's lines start with the input's
// number) and shade the ranges as vertical bands over the whole y axis,
// legend "unreadable (N regions)"; the curve data get a blank line (a break
// in the line) where blocks with no clean read are missing. The falloff plot
// marks profile.slow_regions on its top edge (NAME.slow.dat, merged across
// passes, legend "slow (N regions)"). Never replaces an input's source file. The script
// names files relative to `dir` only, and holds no date: the same inputs give
// the same text. PNG and SVG are 1000x600 pixels.
// The random access plot (kRandom) writes NAME-I.random.dat per input (a
// block per queue depth, a line per transfer size) and draws two panels
// side by side: IOPS, and latency (mean as lines, p99 as circles), each
// against the transfer size on a log2 axis labelled in KiB/MiB, a log10 y
// axis, one line per queue depth (several inputs: colour by depth, dash
// pattern by input); a depth the engine could not keep says so in the key.
// The surface map (kMap, one input) writes NAME.map.dat: the grid of
// BuildSurfaceMap (surface_map.h), one line per cell in position order
// (row by row, each left to right): column, row, class (0 < 5 ms .. 5 >= 500
// ms, 6 unreadable), start and end in GB and in % of the device, the slowest
// chunk (ms) and the blocks in the cell; the header comment gives the blocks,
// blocks per cell (ceil(blocks / kMaxMapCells)), columns, rows and the chunk
// size, and says when the chunk times were estimated from the block rates
// (no worst_chunk_ms). The script draws each cell as a box in its class's
// fixed colour (greys and green for < 5, < 20, < 50 ms; yellow < 150, orange
// < 500, dark magenta >= 500 ms; bright red unreadable), the y axes label
// the rows' starts in GB (left) and % of the device (right), the x axis the
// GB from the row start; the key lists each class with its count (chunks
// from profile.latency_classes summed over passes, else blocks) under
// "chunks (chunk 1 MiB)" or "blocks (chunk 1 MiB, estimated)"; the title
// says "estimated from block rates" when it is.
// Throws Error(kBadInput) for unusable inputs (no input; falloff or map with
// more than one; a kind whose data the inputs lack: no points (map: neither
// points nor unreadable ranges), no access samples, no concurrent curve, no
// random access cell with a rate; an image name of another
// extension; a name or image that is not IsSafeFileName (gnuplot.h: callers
// pass SafeFileName of a stem taken from a file name); an image that would
// replace an input) and Error(kRuntime)
// when `dir` cannot be created or a file cannot be written.
PlotFiles WritePlot(PlotKind kind, const std::vector<PlotInput>& inputs, const std::string& dir,
                    const std::string& name, const std::vector<std::string>& images);

// True when the gnuplot zcav runs (CurrentGnuplot(), gnuplot.h) can draw
// pngcairo and svg (the real one is asked once per process).
bool GnuplotAvailable();

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
