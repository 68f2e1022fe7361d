#% Template of the verify plot (zcav verify --plot, zcav plot --kind verify).
#% Lines starting with '#%' are dropped; {{name}} is replaced by a value; a
#% line starting with {{?flag}} is kept only when the flag is set.
# zcav verify: the write rate and the read-back rate at every position of
# the device, and the ranges that did not give back what was written
# (shaded: wrapped, lost, unreadable).
# Render again (in this directory):  gnuplot {{script}}
# Edit anything below: titles, colours, ranges.
#
# Units: GB = 10^9 B, MB/s = 10^6 B per second.
# {{curve}}: one line per block:
#   1 position (GB, the block's middle)  2 write MB/s  3 read-back MB/s
#   (0: not timed, a failed write or read)
# {{ranges}}: one line per range that is not good:
#   1 start (GB)  2 end (GB)  3 state (1 wrapped, 2 lost, 3 unreadable)

set title '{{title}}' noenhanced
set xlabel 'position (GB)' noenhanced
set ylabel 'MB/s' noenhanced
set xrange [0:{{x_max}}]
set yrange [0:{{y_max}}]
set grid xtics ytics
set key top right box opaque noenhanced
set style fill transparent solid 0.25 noborder
# The ranges shade the whole height of the plot.
band = {{y_max}}

{{output}}
plot \
{{?ranges}}{{range_plots}}
  '{{curve}}' using 1:($2 > 0 ? $2 : NaN) with lines lw 2 lc rgb '#0072b2' title 'write', \
  '{{curve}}' using 1:($3 > 0 ? $3 : NaN) with lines lw 2 lc rgb '#009e73' title 'read back', \

{{more_outputs}}
