# zcav falloff plot: read rate against position on the device.
# Render again (in this directory):  gnuplot sim-cd.gp
# Edit anything below: titles, colours, ranges. The data files are plain
# text; lines starting with '#' are comments.
#
# Units: MB = 10^6 B, GB = 10^9 B, MB/s = 10^6 B/s.
# sim-cd.curve.dat: one line per block (the block's middle):
#   1 position (GB)  2 position (% of device)  3 median MB/s across passes
#   4 min MB/s  5 max MB/s across passes (equal to 3 when not known)

data = 'sim-cd.curve.dat'
device_gb = 0.737280  # device size in GB: the top axis is % of it
one_x = 0.1536  # 1x CD in MB/s: the right axis is MB/s / one_x

set title 'simulated 40x CAV CD-ROM (sim)' . "\n" . 'CAV: rising smoothly from 2.69 to 6.13 MB/s (rate squared linear in position, R^2 0.999), average 4.4 MB/s = 28.6x' noenhanced
set xlabel 'position (GB, 10^9 B)' noenhanced
set x2label 'position (% of device)' noenhanced
set ylabel 'read rate (MB/s, 10^6 B/s)' noenhanced
set y2label 'speed (CD X, 1x = 0.1536 MB/s)' noenhanced
set xrange [0.000000:0.737280]
set link x2 via x / device_gb * 100 inverse x * device_gb / 100
set xtics nomirror
set x2tics 10  # every 10 % of the device
set yrange [0:7.1]
set link y2 via y / one_x inverse y * one_x
set ytics nomirror
set y2tics 10  # X-speed steps
set grid xtics ytics
set key bottom left box opaque
set style fill transparent solid 0.5 noborder

# Images: the terminal follows the extension (pngcairo for .png, svg for .svg).
set terminal pngcairo size 1000,600 font 'sans,10'
set output 'sim-cd.png'
plot \
  data using 1:3 with lines lw 2 lc rgb '#08519c' title 'read rate per block'

unset output
