#% Template of the concurrent plot (zcav plot --kind concurrent). Lines
#% starting with '#%' are dropped; {{name}} is replaced by a value; a line
#% starting with {{?flag}} is kept only when the flag is set.
# zcav concurrent plot: each device read alone (solid) and while the other
# devices were read at the same time (dashed), position in % of each device.
# Render again (in this directory):  gnuplot {{script}}
# Edit anything below: titles, colours, labels, ranges.
#
# Units: MB = 10^6 B, GB = 10^9 B, MB/s = 10^6 B/s.
# Each data file: one line per block (the block's middle):
#   1 position (GB)  2 position (% of device)  3 median MB/s across passes
#   4 min MB/s  5 max MB/s across passes (equal to 3 when not known)

array alone[{{count}}]
array together[{{count}}]
array label[{{count}}]
{{inputs}}

set title '{{title}}' noenhanced
set xlabel 'position (% of device)' noenhanced
set ylabel 'read rate (MB/s, 10^6 B/s)' noenhanced
set xrange [0:100]
set yrange [0:{{y_max}}]
set grid xtics ytics
set key bottom left box opaque noenhanced

{{output}}
plot for [i = 1:|alone|] alone[i] using 2:3 with lines lw 2 lc i title label[i].' alone', \
     for [i = 1:|together|] together[i] using 2:3 with lines lw 2 dt 2 lc i title label[i].' read together'

{{more_outputs}}
