#% Template of the surface map (zcav plot --kind map). Lines starting with
#% '#%' are dropped; {{name}} is replaced by a value; a line starting with
#% {{?flag}} is kept only when the flag is set.
# zcav surface map: the device's blocks as cells in position order, left to
# right and top to bottom (as HD Tune's Error Scan and Victoria's grid), each
# in the colour of the latency class of its slowest chunk (one read call);
# a cell of several blocks takes its slowest block.
# Render again (in this directory):  gnuplot {{script}}
# Edit anything below: titles, colours, the gap between cells.
#
# Units: GB = 10^9 B, ms = milliseconds.
# The data file: one line per cell:
#   1 column (from 0, left to right)  2 row (from 0, top to bottom)
#   3 class: 0 < 5 ms, 1 < 20 ms, 2 < 50 ms, 3 < 150 ms, 4 < 500 ms,
#     5 >= 500 ms, 6 unreadable (no clean read, or an unreadable range)
#   4 start (GB)  5 end (GB)  6 start (% of device)  7 end (% of device)
#   8 slowest chunk (ms)  9 blocks in the cell

data = '{{data}}'
columns = {{columns}}
rows = {{rows}}
# The classes' colours: greys and green for the fast ones, yellow and orange
# for < 150 and < 500 ms, dark magenta for >= 500 ms, red for unreadable.
array colour[7] = [{{colours}}]
array label[7]
{{labels}}
gap = {{gap}}  # white space around each cell, in cells

set title '{{title}}' noenhanced
set xlabel '{{xlabel}}' noenhanced
set ylabel 'row start (GB)' noenhanced
set y2label 'row start (% of device)' noenhanced
set xrange [0:columns]
set yrange [rows:0]
set y2range [rows:0]
set xtics out nomirror ({{xtics}})
set ytics out nomirror ({{ytics}})
set y2tics out nomirror ({{y2tics}})
unset grid
set border 3 + 8
set style fill solid 1.0 noborder
set key outside right top box opaque noenhanced title '{{key_title}}'

{{output}}
plot data using ($1 + 0.5):($2 + 0.5):($1 + gap):($1 + 1 - gap):($2 + gap):($2 + 1 - gap):(colour[int($3) + 1]) \
       with boxxy lc rgb variable notitle, \
     for [i = 1:7] keyentry with boxes lc rgb colour[i] title label[i]

{{more_outputs}}
