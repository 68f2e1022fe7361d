# zcav falloff plot: read rate against position on the device.
# Render again (in this directory):  gnuplot sim-dvd.gp
# Edit anything below: titles, colours, ranges. The data files are plain
# text; lines starting with '#' are comments.
#
# Units: MB = 10^6 B, GB = 10^9 B, MB/s = 10^6 B/s.
# sim-dvd.curve.dat: one line per block (the block's middle):
#   1 position (GB)  2 position (% of device)  3 median MB/s across passes
#   4 min MB/s  5 max MB/s across passes (equal to 3 when not known)

data = 'sim-dvd.curve.dat'
device_gb = 4.700373  # device size in GB: the top axis is % of it
one_x = 1.3850  # 1x DVD in MB/s: the right axis is MB/s / one_x

set title 'simulated 16x CAV DVD-ROM (sim)' . "\n" . 'CAV: rising smoothly from 9.23 to 22.2 MB/s (rate squared linear in position, R^2 1.000), average 15.7 MB/s = 11.3x' noenhanced
set xlabel 'position (GB, 10^9 B)' noenhanced
set x2label 'position (% of device)' noenhanced
set ylabel 'read rate (MB/s, 10^6 B/s)' noenhanced
set y2label 'speed (DVD X, 1x = 1.3850 MB/s)' noenhanced
set xrange [0.000000:4.700373]
set link x2 via x / device_gb * 100 inverse x * device_gb / 100
set xtics nomirror
set x2tics 10  # every 10 % of the device
set yrange [0:25.6]
set link y2 via y / one_x inverse y * one_x
set ytics nomirror
set y2tics 5  # X-speed steps
set grid xtics ytics
set key bottom left box opaque
set style fill transparent solid 0.5 noborder

# Images: the terminal follows the extension (pngcairo for .png, svg for .svg).
set terminal pngcairo size 1000,600 font 'sans,10'
set output 'sim-dvd.png'
plot \
  data using 1:3 with lines lw 2 lc rgb '#08519c' title 'read rate per block'

unset output
