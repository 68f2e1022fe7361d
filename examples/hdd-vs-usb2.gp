# zcav comparison plot: several results on one plot, position in % of each
# device so that devices of different sizes line up.
# Render again (in this directory):  gnuplot hdd-vs-usb2.gp
# Edit anything below: titles, colours, labels, ranges.
#
# Units: MB = 10^6 B, GB = 10^9 B, MB/s = 10^6 B/s.
# Each data file: one line per block (the block's middle):
#   1 position (GB)  2 position (% of device)  3 median MB/s across passes
#   4 min MB/s  5 max MB/s across passes (equal to 3 when not known)

array data[2]
array label[2]
data[1] = 'hdd-vs-usb2-1.curve.dat'; label[1] = 'internal SATA'
data[2] = 'hdd-vs-usb2-2.curve.dat'; label[2] = 'USB2 enclosure'

set title 'Read rate by position: internal SATA vs USB2 enclosure' noenhanced
set xlabel 'position (% of device)' noenhanced
set ylabel 'read rate (MB/s, 10^6 B/s)' noenhanced
set xrange [0:100]
set yrange [0:69.0]
set grid xtics ytics
set key bottom left box opaque noenhanced

# Images: the terminal follows the extension (pngcairo for .png, svg for .svg).
set terminal pngcairo size 1000,600 font 'sans,10'
set output 'hdd-vs-usb2.png'
plot for [i = 1:|data|] data[i] using 2:3 with lines lw 2 lc i title label[i]

unset output
