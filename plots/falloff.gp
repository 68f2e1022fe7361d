#% Template of the falloff plot (zcav plot --kind falloff). Lines starting
#% with '#%' are dropped; {{name}} is replaced by a value; a line starting
#% with {{?flag}} is kept only when the flag is set. See lib/zcav/report/plot/template.cc.
# zcav falloff plot: read rate against position on the device.
# Render again (in this directory):  gnuplot {{script}}
# Edit anything below: titles, colours, ranges. The data files are plain
# text; lines starting with '#' are comments.
#
# Units: MB = 10^6 B, GB = 10^9 B, MB/s = 10^6 B/s.
# {{data}}: one line per block (the block's middle):
#   1 position (GB)  2 position (% of device)  3 median MB/s across passes
#   4 min MB/s  5 max MB/s across passes (equal to 3 when not known)
{{?zones}}# {{zones_data}}: one line per detected zone:
{{?zones}}#   1 start (GB)  2 end (GB)  3 start (%)  4 end (%)  5 median MB/s  6 label
{{?jitter}}# {{jitter_data}}: each zone's jitter, the 5th to 95th percentile of its
{{?jitter}}#   blocks' rates, shaded behind the curve, one line per zone:
{{?jitter}}#   1 start (GB)  2 end (GB)  3 p5 MB/s  4 p95 MB/s
{{?outliers}}# {{outliers_data}}: blocks far off their neighbours:
{{?outliers}}#   1 position (GB)  2 position (% of device)  3 MB/s
{{?dips}}# {{dips_data}}: blocks in recurring short dips (one line per block, or per
{{?dips}}#   bucket as in {{data}}):
{{?dips}}#   1 position (GB)  2 position (% of device)  3 lowest MB/s  4 blocks
{{?offscale}}# {{offscale_data}}: blocks above the top of the y axis, drawn on its edge
{{?offscale}}#   (one line per block, or per bucket as in {{data}}):
{{?offscale}}#   1 position (GB)  2 position (% of device)  3 highest MB/s  4 blocks
{{?unreadable}}# {{unreadable_data}}: ranges that failed to read after a retry, shaded
{{?unreadable}}#   (a blank line in {{data}} breaks the curve where their blocks are missing):
{{?unreadable}}#   1 start (GB)  2 end (GB)  3 start (%)  4 end (%)  5 length (bytes)  6 errno
{{?slow}}# {{slow_data}}: places read far slower than the chunks before them (a disk
{{?slow}}#   retrying), merged across passes, marked on the top edge:
{{?slow}}#   1 start (GB)  2 end (GB)  3 start (%)  4 end (%)  5 times found (one
{{?slow}}#   per pass that found it)  6 longest (ms)
{{?temperature}}# {{temperature_data}}: the drive's temperature while it was read,
{{?temperature}}#   drawn on the right axis; one line per reading, a blank line between passes:
{{?temperature}}#   1 position (GB)  2 position (% of device)  3 degrees C  4 pass  5 seconds into the run

data = '{{data}}'
{{?zones}}zones_data = '{{zones_data}}'
{{?jitter}}jitter_data = '{{jitter_data}}'
{{?outliers}}outliers_data = '{{outliers_data}}'
{{?dips}}dips_data = '{{dips_data}}'
{{?offscale}}offscale_data = '{{offscale_data}}'
{{?unreadable}}unreadable_data = '{{unreadable_data}}'
{{?slow}}slow_data = '{{slow_data}}'
{{?temperature}}temperature_data = '{{temperature_data}}'
{{?marks}}band_top = {{band_top}}  # MB/s: the top of the y axis (shaded bands, marks on the edge)
device_gb = {{device_gb}}  # device size in GB: the top axis is % of it
{{?optical}}one_x = {{one_x}}  # 1x {{media}} in MB/s: the right axis is MB/s / one_x

set title '{{title}}' noenhanced
set xlabel '{{xlabel}}' noenhanced
set x2label 'position (% of device)' noenhanced
set ylabel '{{ylabel}}' noenhanced
{{?cliff}}set arrow from {{cliff_gb}}, graph 0 to {{cliff_gb}}, graph 1 nohead dt 2 lw 2 lc rgb '#cb181d'  # the write cache's cliff
{{?cliff}}set label '{{cliff_label}}' at {{cliff_gb}}, graph 0.96 offset 0.6,0 tc rgb '#cb181d' noenhanced
{{?optical}}set y2label 'speed ({{media}} X, 1x = {{one_x}} MB/s)' noenhanced
set xrange [{{x_min}}:{{x_max}}]
set link x2 via x / device_gb * 100 inverse x * device_gb / 100
set xtics nomirror
set x2tics 10  # every 10 % of the device
set yrange [0:{{y_max}}]
{{?optical}}set link y2 via y / one_x inverse y * one_x
{{?optical}}set ytics nomirror
{{?optical}}set y2tics {{x_step}}  # X-speed steps
{{?temperature}}set y2label 'drive temperature (degrees C)' noenhanced
{{?temperature}}set y2range [{{t_min}}:{{t_max}}]
{{?temperature}}set ytics nomirror
{{?temperature}}set y2tics
set grid xtics ytics
set key bottom left box opaque
set style fill transparent solid 0.5 noborder

{{output}}
plot \
{{?unreadable}}  unreadable_data using (($1 + $2) / 2):(band_top / 2):(($2 - $1) / 2):(band_top / 2) with boxxyerror fs transparent solid 0.3 border lc rgb '#ce1256' lc rgb '#f768a1' title '{{unreadable_title}}', \
{{?jitter}}  jitter_data using (($1 + $2) / 2):(($3 + $4) / 2):(($2 - $1) / 2):(($4 - $3) / 2) with boxxyerror fs transparent solid 0.35 noborder lc rgb '#fdae6b' title '{{jitter_title}}', \
{{?band}}  data using 1:4:5 with filledcurves lc rgb '#9ecae1' title 'min-max across passes', \
  data using 1:3 with {{curve_style}} lc rgb '#08519c' title '{{curve_title}}', \
{{?zones}}  zones_data using 1:5:($2 - $1):(0) with vectors nohead lw 3 lc rgb '#d94801' title '{{zones_title}}', \
{{?zones}}  zones_data using (($1 + $2) / 2):5:6 with labels offset 0,0.8 font ',8' tc rgb '#a63603' notitle, \
{{?outliers}}  outliers_data using 1:3 with points pt 7 ps 0.9 lc rgb '#cb181d' title 'outliers', \
{{?dips}}  dips_data using 1:3 with points pt 10 ps 0.9 lc rgb '#1b9e77' title '{{dips_title}}', \
{{?offscale}}  offscale_data using 1:(band_top) with points pt 9 ps 1.4 lc rgb '#cb181d' title '{{offscale_title}}', \
{{?slow}}  slow_data using (($1 + $2) / 2):(band_top * 0.97) with points pt 11 ps 1.4 lc rgb '#6a3d9a' title '{{slow_title}}', \
{{?temperature}}  temperature_data using 1:3 axes x1y2 with linespoints dt 2 lw 1.5 pt 7 ps 0.4 lc rgb '#e31a1c' title '{{temperature_title}}', \

{{more_outputs}}
