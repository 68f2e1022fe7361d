#% Template of the comparison plot (zcav plot FILE FILE...). Lines starting
#% with '#%' are dropped; {{name}} is replaced by a value; a line starting
#% with {{?flag}} is kept only when the flag is set. See lib/zcav/report/plot/template.cc.
# zcav comparison plot: several results on one plot, position in % of each
# device so that devices of different sizes line up.
# Render again (in this directory):  gnuplot {{script}}
# Edit anything below: titles, colours, labels, ranges.
#
# Units: MB = 10^6 B, GB = 10^9 B, MB/s = 10^6 B/s.
# Each data file: one line per block (the block's middle):
#   1 position (GB)  2 position (% of device)  3 median MB/s across passes
#   4 min MB/s  5 max MB/s across passes (equal to 3 when not known)
{{?unreadable}}#   (a blank line breaks the curve where unreadable blocks are missing)
{{?unreadable}}# {{unreadable_data}}: every input's ranges that failed to read after a
{{?unreadable}}#   retry, shaded: 1 input  2 start (GB)  3 end (GB)  4 start (% of its
{{?unreadable}}#   device)  5 end (%)  6 length (bytes)  7 errno
{{?offscale}}# {{offscale_data}}: blocks above the top of the y axis, drawn on its edge
{{?offscale}}#   in their input's colour (one line per block, or per bucket of
{{?offscale}}#   consecutive blocks as in the data files): 1 input  2 position (GB)
{{?offscale}}#   3 position (% of its device)  4 highest MB/s  5 blocks

array data[{{count}}]
array label[{{count}}]
{{inputs}}
{{?optical}}one_x = {{one_x}}  # 1x {{media}} in MB/s: the right axis is MB/s / one_x
{{?unreadable}}unreadable_data = '{{unreadable_data}}'
{{?offscale}}offscale_data = '{{offscale_data}}'
{{?marks}}band_top = {{band_top}}  # MB/s: the top of the y axis (shaded bands, marks on the edge)

set title '{{title}}' noenhanced
set xlabel 'position (% of device)' noenhanced
set ylabel 'read rate (MB/s, 10^6 B/s)' noenhanced
{{?optical}}set y2label 'speed ({{media}} X, 1x = {{one_x}} MB/s)' noenhanced
set xrange [0:100]
set yrange [0:{{y_max}}]
{{?optical}}set link y2 via y / one_x inverse y * one_x
{{?optical}}set ytics nomirror
{{?optical}}set y2tics
set grid xtics ytics
set key bottom left box opaque noenhanced

{{output}}
{{?one_layer}}plot for [i = 1:|data|] data[i] using 2:3 with lines lw 2 lc i title label[i]
{{?layers}}plot \
{{?unreadable}}  unreadable_data using (($4 + $5) / 2):(band_top / 2):(($5 - $4) / 2):(band_top / 2) with boxxyerror fs transparent solid 0.3 border lc rgb '#ce1256' lc rgb '#f768a1' title '{{unreadable_title}}', \
{{?layers}}  for [i = 1:|data|] data[i] using 2:3 with lines lw 2 lc i title label[i], \
{{?offscale}}  offscale_data using 3:(band_top):1 with points pt 9 ps 1.4 lc variable title '{{offscale_title}}', \

{{more_outputs}}
