set terminal svg size 760,460 background '#ffffff'
set output 'detect.svg'
set title 'PGs moved by a kill or a revival, not yet on their new up set'
set xlabel 'seconds since the map change reached a subscriber'
set ylabel 'PGs'
set logscale y
set grid
set key below Left reverse
set xrange [0:*]
plot 'detect.dat' index 0 with steps lw 2 lc 2 dt 1 title 'kill osd.255 (2532 PGs): committed, full load', \
     'detect.dat' index 1 with steps lw 2 lc 3 dt 1 title 'kill a host osd.0-7 (20207 PGs): committed, full load', \
     'detect.dat' index 2 with steps lw 2 lc 4 dt 1 title 'revive osd.0-7,osd.255 (22493 PGs): committed, full load', \
     'detect.dat' index 3 with steps lw 2 lc 2 dt 2 title 'kill osd.255 (2532 PGs): pushed, lighter load', \
     'detect.dat' index 4 with steps lw 2 lc 3 dt 2 title 'kill a host osd.0-7 (20207 PGs): pushed, lighter load', \
     'detect.dat' index 5 with steps lw 2 lc 4 dt 2 title 'revive osd.0-7,osd.255 (22493 PGs): pushed, lighter load'
