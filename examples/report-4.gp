# zcav surface map: the device's blocks as cells in position order, left to
# right and top to bottom (as HD Tune's Error Scan and Victoria's grid), each
# in the colour of the latency class of its slowest chunk (one read call);
# a cell of several blocks takes its slowest block.
# Render again (in this directory):  gnuplot report-4.gp
# Edit anything below: titles, colours, the gap between cells.
#
# Units: GB = 10^9 B, ms = milliseconds.
# The data file: one line per cell:
#   1 column (from 0, left to right)  2 row (from 0, top to bottom)
#   3 class: 0 < 5 ms, 1 < 20 ms, 2 < 50 ms, 3 < 150 ms, 4 < 500 ms,
#     5 >= 500 ms, 6 unreadable (no clean read, or an unreadable range)
#   4 start (GB)  5 end (GB)  6 start (% of device)  7 end (% of device)
#   8 slowest chunk (ms)  9 blocks in the cell

data = 'report-4.map.dat'
columns = 20
rows = 12
# The classes' colours: greys and green for the fast ones, yellow and orange
# for < 150 and < 500 ms, dark magenta for >= 500 ms, red for unreadable.
array colour[7] = [0xd0d0d0, 0x9a9a9a, 0x4caf50, 0xffd600, 0xff8c00, 0x9c1a6e, 0xff0000]
array label[7]
label[1] = '< 5 ms: 0'
label[2] = '< 20 ms: 229155'
label[3] = '< 50 ms: 486273'
label[4] = '< 150 ms: 0'
label[5] = '< 500 ms: 0'
label[6] = '>= 500 ms: 0'
label[7] = 'unreadable: 0'
gap = 0.08  # white space around each cell, in cells

set title 'internal SATA' . "\n" . 'surface map: slowest chunk per cell (chunk 1 MiB), chunk times estimated from block rates' noenhanced
set xlabel 'GB from the row start; a cell = a block (1 GiB), a row 21.5 GB' noenhanced
set ylabel 'row start (GB)' noenhanced
set y2label 'row start (% of device)' noenhanced
set xrange [0:columns]
set yrange [rows:0]
set y2range [rows:0]
set xtics out nomirror ('+0.0' 0.00, '+5.4' 5.00, '+10.7' 10.00, '+16.1' 15.00, '+21.5' 20.00)
set ytics out nomirror ('0' 0.50, '21' 1.50, '43' 2.50, '64' 3.50, '86' 4.50, '107' 5.50, '129' 6.50, '150' 7.50, '172' 8.50, '193' 9.50, '215' 10.50, '236' 11.50)
set y2tics out nomirror ('0.0' 0.50, '8.6' 1.50, '17.2' 2.50, '25.8' 3.50, '34.4' 4.50, '42.9' 5.50, '51.5' 6.50, '60.1' 7.50, '68.7' 8.50, '77.3' 9.50, '85.9' 10.50, '94.5' 11.50)
unset grid
set border 3 + 8
set style fill solid 1.0 noborder
set key outside right top box opaque noenhanced title 'chunks (chunk 1 MiB)'

# Images: the terminal follows the extension (pngcairo for .png, svg for .svg).
set terminal pngcairo size 1000,600 font 'sans,10'
set output 'report-4.png'
plot data using ($1 + 0.5):($2 + 0.5):($1 + gap):($1 + 1 - gap):($2 + gap):($2 + 1 - gap):(colour[int($3) + 1]) \
       with boxxy lc rgb variable notitle, \
     for [i = 1:7] keyentry with boxes lc rgb colour[i] title label[i]

unset output
