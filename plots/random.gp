#% Template of the random-access plot (zcav plot --kind random). Lines
#% starting with '#%' are dropped; {{name}} is replaced by a value; a line
#% starting with {{?flag}} is kept only when the flag is set.
# zcav random access by transfer size and queue depth: IOPS (left) and
# latency (right) against the size of each request, one line per queue
# depth (several results: one colour per depth, one dash pattern per result).
# Render again (in this directory):  gnuplot {{script}}
# Edit anything below: titles, colours, scales.
#
# Units: KiB = 1024 B, MiB = 2^20 B, MB = 10^6 B, ms = milliseconds.
# Each data file: one block per queue depth (blocks two blank lines apart,
# gnuplot's `index`), one line per transfer size:
#   1 size (bytes)  2 queue depth  3 depth the engine kept  4 IOPS
#   5 MB/s  6 mean latency (ms)  7 p50 (ms)  8 p99 (ms)  9 max (ms)

# One entry per line drawn: its file, block, legend, colour and dash.
array file[{{lines}}]
array block[{{lines}}]
array title[{{lines}}]
array colour[{{lines}}]
array dash[{{lines}}]
{{line_list}}
# One entry per image: its terminal and file.
array terminal[{{images}}]
array image[{{images}}]
{{image_list}}

set logscale x 2
set logscale y 10
set xrange [{{x_min}}:{{x_max}}]
set xtics ({{size_tics}}) nomirror
set xlabel 'transfer size' noenhanced
set grid xtics ytics mytics

do for [o = 1:|image|] {
  eval terminal[o]
  set output image[o]
  set multiplot layout 1,2 title '{{title}}' noenhanced
  set ylabel 'IOPS (requests per second)' noenhanced
  set format y '%.0s%c'
  set key bottom left box opaque noenhanced
  plot for [k = 1:|file|] file[k] index block[k] using 1:4 \
       with linespoints lc colour[k] dt dash[k] lw 2 pt 7 ps 0.8 title title[k]
  set ylabel 'latency (ms): mean (lines), p99 (circles)' noenhanced
  set format y '%g'
  set key top left box opaque noenhanced
  plot for [k = 1:|file|] file[k] index block[k] using 1:6 \
         with linespoints lc colour[k] dt dash[k] lw 2 pt 7 ps 0.8 title title[k], \
       for [k = 1:|file|] file[k] index block[k] using 1:8 \
         with points lc colour[k] pt 6 ps 1.2 notitle
  unset multiplot
}
unset output
