#% Template of the access-time scatter (zcav plot --kind access). Lines
#% starting with '#%' are dropped; {{name}} is replaced by a value; a line
#% starting with {{?flag}} is kept only when the flag is set.
# zcav access-time plot: the time of each random read against its position.
# Render again (in this directory):  gnuplot {{script}}
# Edit anything below: titles, colours, ranges.
#
# Units: GB = 10^9 B, ms = milliseconds.
# Each data file: one line per access sample:
#   1 position (GB)  2 position (% of device)  3 access time (ms)

array data[{{count}}]
array label[{{count}}]
{{inputs}}

set title '{{title}}' noenhanced
set xlabel 'position (% of device)' noenhanced
set ylabel 'access time (ms)' noenhanced
set xrange [0:100]
set yrange [0:*]
set grid xtics ytics
set key top left box opaque noenhanced

{{output}}
plot for [i = 1:|data|] data[i] using 2:3 with points pt 7 ps 0.5 lc i title label[i]

{{more_outputs}}
