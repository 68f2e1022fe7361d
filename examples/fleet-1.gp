# zcav merge: simulated 21 GB 16-zone disk, 60 to 30 MB/s (firmware zcav-sim)
# Draw with: gnuplot fleet-1.gp (MB = 10^6 B)
set terminal pngcairo size 1000,600 font 'sans,10'
set output 'fleet-1.png'
set title 'simulated 21 GB 16-zone disk, 60 to 30 MB/s (firmware zcav-sim): 12 drives, 2 flagged' noenhanced
set xlabel 'position (% of the surface)' noenhanced
set ylabel 'read rate (MB/s, 10^6 B/s)' noenhanced
set xrange [0:100]
set yrange [0:*]
set grid
set key bottom left box opaque
plot 'fleet-1.band.dat' using 1:3:4 with filledcurves lc rgb '#c6dbef' title 'p10-p90 of 12 drives', \
  'fleet-1.band.dat' using 1:2 with lines lw 2 lc rgb '#08519c' title 'median', \
  'fleet-1.flagged.dat' index 0 using 1:2 with lines lw 2 lc rgb '#cb181d' title 'SIM-HDD-9' noenhanced, \
  'fleet-1.flagged.dat' index 1 using 1:2 with lines lw 2 lc rgb '#ff7f00' title 'SIM-HDD-4' noenhanced
unset output
