// Plots, inside: what the kinds of plot (report/plot/*.cc) share, and each
// kind's entry point for WritePlot (report/plot.cc). Not a public header:
// only report/plot.cc and report/plot/*.cc include it.
//
// A kind's Fill function writes the plot's data files into `dir` (each named
// after `name`, each added to `files.data_paths`) and sets the values and
// flags of its template (plots/*.gp, see Expand). Every string a value holds
// comes through GpQuote, GpQuoted or GpComment (gnuplot.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "zcav/report/plot.h"

namespace zcav::plot_detail {

namespace fs = std::filesystem;

// Image size in pixels, both PNG and SVG.
constexpr int kWidthPx = 1000;
constexpr int kHeightPx = 600;
// A curve's data file has at most this many lines (two per pixel column):
// longer curves are drawn from buckets of consecutive blocks (see CurveData).
constexpr std::size_t kMaxCurveLines = 2 * static_cast<std::size_t>(kWidthPx);

// --- The templates (template.cc) ---

// The template of `kind` (plots/*.gp, embedded as plot_templates.h).
const char* TemplateOf(PlotKind kind);

// Fills a template: {{name}} is replaced by values[name] (REQUIRES: every
// name has a value), a line starting with {{?flag}} is kept only when the
// flag is in `flags`, a line starting with #% is dropped, a plot element
// line ending in ", \" before a blank line loses the ", \", and runs of blank
// lines become one (see the top of template.cc).
std::string Expand(std::string_view tmpl, const std::map<std::string, std::string>& values,
                   const std::set<std::string>& flags);

// --- Quoting, names and positions (plot_internal.cc) ---

// The inside of GpQuote, for values placed inside quotes in a template.
std::string GpQuoted(const std::string& text);

bool EndsWith(std::string_view s, std::string_view suffix);

// The file name of `path`, without its directory.
std::string Basename(const std::string& path);

// Bytes in GB (10^9 B).
double Gb(std::uint64_t bytes);

// The size the "% of device" axis refers to: the device when known, else the
// end of the data.
std::uint64_t DeviceBytes(const SavedResult& profile, std::uint64_t data_end);

// The end of the last block of `points` (0 for none).
std::uint64_t CurveEnd(const Curve& points);

// The middle of a block, in bytes.
double Middle(const CurvePoint& p);

// `bytes` in % of `device_bytes`.
double Percent(double bytes, std::uint64_t device_bytes);

// True when some block has a min-max spread (several passes).
bool HasSpread(const Curve& points);

// The highest rate of `points`, the spread's maximum included.
double MaxRate(const Curve& points);

// "Y max" of a rate axis whose top is `axis_top_mb_per_s` (RateAxisTop);
// "*" (gnuplot scales it) when there is no rate above 0.
std::string YMax(double axis_top_mb_per_s);

// The height of the shaded bands (unreadable ranges) and of the marks on the
// top edge: the top of the y axis (YMax), or 1 when the axis scales itself.
std::string BandTop(double axis_top_mb_per_s);

// --- Legends and titles (plot_internal.cc) ---

// "1 block", "3 blocks".
std::string Blocks(std::size_t n);

// "1 region", "3 regions".
std::string Regions(std::size_t n);

// The legend of the off-scale marks: "3 blocks off scale (max 3000.0 MB/s)".
std::string OffScaleTitle(std::size_t count, double max_mb_per_s);

// The rate of 1x on optical `media` in MB/s, and as the script writes it.
double OneXMbPerS(Media media);
std::string OneXText(Media media);

// Average rate: the run's own (bytes / read time) when the file has it, else
// the length-weighted mean of the curve (the same thing for one pass).
double AverageMbPerS(const SavedResult& profile);

// Labels as given, made unique by the file name when two are equal (the same
// disk model over two buses).
std::vector<std::string> UniqueLabels(const std::vector<PlotInput>& inputs);

// "A vs B vs C", or "N results" for more than three.
std::string Joined(const std::vector<std::string>& labels);

// --- Data files (plot_internal.cc) ---

// The curve's data file text (columns in the templates' comments), `what`
// in its first line. A blank line where unreadable blocks are missing breaks
// the line there (gnuplot draws no segment across a blank line); skipped
// blocks (--quick, --skip) leave no blank line. A curve of more than
// kMaxCurveLines blocks is written as buckets of ceil(N / kMaxCurveLines)
// consecutive blocks (never across such a gap), one line each at the middle
// of the bucket's range: the median of the blocks' rates, the lowest minimum
// and the highest maximum (a block's own rate where it has no spread). One
// block per bucket is the block itself.
std::string CurveData(const Curve& points, const SavedResult& profile, const std::string& what);

// The unreadable ranges' data file text: one line per range, in GB and in %
// of the device (see the templates' comments). `numbered`: the ranges of
// several inputs, each line starting with its input's number (from 1).
// REQUIRES: !inputs.empty().
std::string UnreadableData(const std::vector<const PlotInput*>& inputs, bool numbered);

// Blocks drawn as marks (off-scale blocks, dips): the text of their data
// file's lines, one per block when there are at most kMaxCurveLines of them,
// else one per bucket of the curve's grid (CurveData's buckets) that holds
// any: `prefix` (the input's number in a comparison, or empty), the middle
// of the marked blocks, their highest (`highest`) or lowest rate, and how
// many blocks the line stands for. `blocks` are indices into `points`, in
// ascending order; those past its end are skipped.
std::string MarkLines(const Curve& points, const std::vector<std::uint64_t>& blocks,
                      std::uint64_t device, bool highest, const std::string& prefix);

// Writes `text` to `path` (via a temporary name, WriteFileAtomically),
// refusing to replace one of `inputs`' source files: throws Error(kBadInput)
// then, Error(kRuntime) when the file cannot be written.
void WriteText(const fs::path& path, const std::string& text, const std::vector<PlotInput>& inputs);

// --- The rate axis (axis.cc) ---

// The top of the bulk of a curve: of its blocks' rates and, with `band`, of
// the highest rate each block had across passes (the min-max band). With
// zones, each block is measured against its zone's median, and the top is
// the fastest zone's median times the bulk's top ratio; without zones, the
// rates themselves. 0 for no blocks.
double CurveBulkTop(const Curve& points, bool band, const std::vector<Zone>& zones);

// True when a curve's zones are plateaus, drawn as levels; a smooth fit's
// (cav, pcav) "zones" are its fitted segments and are described in the title.
bool DrawsLevels(CurveType type);

// True when the analysis knows the curve's jitter (its p5-p95 band is drawn).
bool HasJitter(const ZoneAnalysis& zones);

// The zones drawn as levels (none for a smooth fit: its segments' medians
// are not levels of the curve).
const std::vector<Zone>& DrawnZones(const ZoneAnalysis& zones);

// The highest level the plot draws for `zones`, which the axis always spans:
// every zone's median (and the top of its jitter band), or a smooth fit's
// ends.
double LevelsTop(const ZoneAnalysis& zones);

// The top of a rate axis: every block fits (a little above the highest, so
// the labels and the key fit) unless the highest, `full_top_mb_per_s`, is
// more than kOffScaleTolerance (axis.cc) times `bulk_top_mb_per_s`; then a
// little above the bulk, and the blocks above are off scale (OffScaleBlocks).
// Rounded as the script writes it (YMax), so the script's axis and the
// off-scale marks agree. 0 when no rate is above 0.
double RateAxisTop(double full_top_mb_per_s, double bulk_top_mb_per_s);

// Indices of the blocks whose rate is above `axis_top_mb_per_s` (none when
// the axis scales itself), ascending.
std::vector<std::uint64_t> OffScaleBlocks(const Curve& points, double axis_top_mb_per_s);

// --- The kinds ---

// falloff.cc: the falloff plot of inputs.front(): NAME.curve.dat and, as
// the input has them, NAME.zones.dat, .jitter.dat, .outliers.dat, .dips.dat,
// .offscale.dat, .unreadable.dat, .slow.dat, .temperature.dat.
void FillFalloff(const std::vector<PlotInput>& inputs, const fs::path& dir, const std::string& name,
                 std::map<std::string, std::string>& v, std::set<std::string>& flags,
                 PlotFiles& files);

// comparison.cc: the plots of several inputs (comparison, access,
// histogram, concurrent): one data file per input (two for concurrent), the
// array assignments, the rate axis, the title; the comparison's off-scale
// blocks and unreadable ranges.
void FillMulti(PlotKind kind, const std::vector<PlotInput>& inputs, const fs::path& dir,
               const std::string& name, std::map<std::string, std::string>& v,
               std::set<std::string>& flags, PlotFiles& files);

// access.cc: the access-time data file text of one input (NAME-I.access.dat,
// read by the access and the histogram plots).
std::string AccessData(const PlotInput& input);

// access.cc: one bar of the histogram: about 40 bars over the range of every
// input's access times, on a 1-2-5 step (1 ms when there is none above 0).
double HistogramBinMs(const std::vector<PlotInput>& inputs);

// map.cc: the surface map of inputs.front() and its data file NAME.map.dat.
void FillMap(const std::vector<PlotInput>& inputs, const fs::path& dir, const std::string& name,
             std::map<std::string, std::string>& v, PlotFiles& files);

// random.cc: the random access plot: NAME-I.random.dat per input, a line per
// (input, queue depth), coloured by the depth, dashed by the input; x the
// transfer size on a log2 axis. REQUIRES: some input has a cell with iops > 0.
// zcav verify's result (inputs.front().verify): its curve and ranges (verify.cc).
void FillVerify(const std::vector<PlotInput>& inputs, const fs::path& dir, const std::string& name,
                std::map<std::string, std::string>& v, std::set<std::string>& flags,
                PlotFiles& files);
void FillRandom(const std::vector<PlotInput>& inputs, const fs::path& dir, const std::string& name,
                std::map<std::string, std::string>& v, PlotFiles& files);

}  // namespace zcav::plot_detail
