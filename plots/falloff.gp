# Falloff curve of a zcav raw data file (classic layout): MB/s against position.
#   gnuplot -c plots/falloff.gp DATA.dat [OUT.png]
# Column 1 is the block offset in GiB (2^30 B); column 4 is the median MB/s (10^6 B/s),
# columns 5 and 6 the min and max across passes. Classic zcav files have only
# columns 1-3 (MiB/s in column 2): use "using 1:2" for those.
data = ARG1
out = (ARGC >= 2) ? ARG2 : data.".png"
set terminal pngcairo size 1000,600 enhanced font ",10"
set output out
set title "Read throughput by position: ".data noenhanced
set xlabel "position (GiB, 2^{30} B)"
set ylabel "read rate (MB/s, 10^6 B/s)"
set grid
set key bottom left
plot data using 1:5:6 with filledcurves lc rgb "#c6dbef" title "min–max across passes", \
     data using 1:4 with lines lw 2 lc rgb "#08519c" title "median"
