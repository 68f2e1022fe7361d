# zcav concurrent plot: each device read alone (solid) and while the other
# devices were read at the same time (dashed), position in % of each device.
# Render again (in this directory):  gnuplot together.gp
# Edit anything below: titles, colours, labels, ranges.
#
# Units: MB = 10^6 B, GB = 10^9 B, MB/s = 10^6 B/s.
# Each data file: one line per block (the block's middle):
#   1 position (GB)  2 position (% of device)  3 median MB/s across passes
#   4 min MB/s  5 max MB/s across passes (equal to 3 when not known)

array alone[2]
array together[2]
array label[2]
alone[1] = 'together-1.alone.dat'; together[1] = 'together-1.together.dat'; label[1] = 'disk 1'
alone[2] = 'together-2.alone.dat'; together[2] = 'together-2.together.dat'; label[2] = 'disk 2'

set title 'Read alone and together: disk 1 vs disk 2' noenhanced
set xlabel 'position (% of device)' noenhanced
set ylabel 'read rate (MB/s, 10^6 B/s)' noenhanced
set xrange [0:100]
set yrange [0:69.1]
set grid xtics ytics
set key bottom left box opaque noenhanced

# Images: the terminal follows the extension (pngcairo for .png, svg for .svg).
set terminal pngcairo size 1000,600 font 'sans,10'
set output 'together.png'
plot for [i = 1:|alone|] alone[i] using 2:3 with lines lw 2 lc i title label[i].' alone', \
     for [i = 1:|together|] together[i] using 2:3 with lines lw 2 dt 2 lc i title label[i].' read together'

set terminal svg size 1000,600 font 'sans,10' background rgb 'white'
set output 'together.svg'
replot
unset output
