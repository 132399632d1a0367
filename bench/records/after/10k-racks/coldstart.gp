set terminal svg size 760,460 background '#ffffff'
set output 'coldstart.svg'
set title 'mapmond cold start'
set xlabel 'PGs'
set ylabel 'seconds (log scale)'
set logscale y
set grid
set key outside right top Left reverse
set xrange [0:*]
set xtics (221568)
plot 'coldstart.dat' index 0 with linespoints lw 2 lc 1 dt 1 title 'lmdb bring-up', \
     'coldstart.dat' index 1 with linespoints lw 2 lc 2 dt 1 title 'lmdb-writemap bring-up', \
     'coldstart.dat' index 2 with linespoints lw 2 lc 1 dt 2 title 'lmdb restart READY', \
     'coldstart.dat' index 3 with linespoints lw 2 lc 2 dt 2 title 'lmdb-writemap restart READY'
