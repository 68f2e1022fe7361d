#% Template of the access-time histogram (zcav plot --kind histogram). Lines
#% starting with '#%' are dropped; {{name}} is replaced by a value; a line
#% starting with {{?flag}} is kept only when the flag is set.
# zcav access-time histogram: how many random reads took how long.
# Render again (in this directory):  gnuplot {{script}}
# Edit anything below: titles, colours, the bin width.
#
# Units: GB = 10^9 B, ms = milliseconds.
# Each data file: one line per access sample:
#   1 position (GB)  2 position (% of device)  3 access time (ms)

array data[{{count}}]
array label[{{count}}]
{{inputs}}
bin_ms = {{bin_ms}}  # width of one bar in ms
bin(ms) = bin_ms * (floor(ms / bin_ms) + 0.5)

set title '{{title}}' noenhanced
set xlabel 'access time (ms)' noenhanced
set ylabel 'reads (count per bin)' noenhanced
set xrange [0:*]
set yrange [0:*]
set boxwidth bin_ms * 0.9 absolute
set style fill transparent solid 0.5 border
set grid ytics
set key top right box opaque noenhanced

{{output}}
plot for [i = 1:|data|] data[i] using (bin($3)):(1) smooth frequency with boxes lc i title label[i]

{{more_outputs}}
