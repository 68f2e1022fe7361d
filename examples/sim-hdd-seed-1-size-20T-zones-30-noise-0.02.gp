# zcav falloff plot: read rate against position on the device.
# Render again (in this directory):  gnuplot sim-hdd-seed-1-size-20T-zones-30-noise-0.02.gp
# Edit anything below: titles, colours, ranges. The data files are plain
# text; lines starting with '#' are comments.
#
# Units: MB = 10^6 B, GB = 10^9 B, MB/s = 10^6 B/s.
# sim-hdd-seed-1-size-20T-zones-30-noise-0.02.curve.dat: one line per block (the block's middle):
#   1 position (GB)  2 position (% of device)  3 median MB/s across passes
#   4 min MB/s  5 max MB/s across passes (equal to 3 when not known)
# sim-hdd-seed-1-size-20T-zones-30-noise-0.02.zones.dat: one line per detected zone:
#   1 start (GB)  2 end (GB)  3 start (%)  4 end (%)  5 median MB/s  6 label

data = 'sim-hdd-seed-1-size-20T-zones-30-noise-0.02.curve.dat'
zones_data = 'sim-hdd-seed-1-size-20T-zones-30-noise-0.02.zones.dat'
device_gb = 21990.232556  # device size in GB: the top axis is % of it

set title 'simulated 21990 GB 30-zone disk, 60 to 30 MB/s (sim)' . "\n" . '30 zones falling from 60.0 to 30.0 MB/s (2.00:1), average 43.9 MB/s' noenhanced
set xlabel 'position (GB, 10^9 B)' noenhanced
set x2label 'position (% of device)' noenhanced
set ylabel 'read rate (MB/s, 10^6 B/s)' noenhanced
set xrange [0.000000:21990.232556]
set link x2 via x / device_gb * 100 inverse x * device_gb / 100
set xtics nomirror
set x2tics 10  # every 10 % of the device
set yrange [0:69.2]
set grid xtics ytics
set key bottom left box opaque
set style fill transparent solid 0.5 noborder

# Images: the terminal follows the extension (pngcairo for .png, svg for .svg).
set terminal pngcairo size 1000,600 font 'sans,10'
set output 'sim-hdd-seed-1-size-20T-zones-30-noise-0.02.png'
plot \
  data using 1:3 with points pt 7 ps 0.6 lc rgb '#08519c' title 'probes read: 511, 0.190 % of the range', \
  zones_data using 1:5:($2 - $1):(0) with vectors nohead lw 3 lc rgb '#d94801' title 'zone levels inferred between the probes: 30 zones, 15 labelled', \
  zones_data using (($1 + $2) / 2):5:6 with labels offset 0,0.8 font ',8' tc rgb '#a63603' notitle

set terminal svg size 1000,600 font 'sans,10' background rgb 'white'
set output 'sim-hdd-seed-1-size-20T-zones-30-noise-0.02.svg'
replot
unset output
