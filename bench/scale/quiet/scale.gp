# gnuplot scale.gp: scale-time.svg and scale-memory.svg from scale.dat
# (BENCHMARKS.md, "Scale on the quiet machine, and writemap").
set terminal svg size 760,460 background '#ffffff'
set logscale xy
set grid
set key outside right top Left reverse
set xlabel 'PGs (256 OSDs)'
set xtics ("221,568" 221568, "1,048,576" 1048576)
set xrange [180000:1300000]
set output 'scale-time.svg'
set title 'mapmond bring-up and restart to READY'
set ylabel 'seconds (log scale)'
plot 'scale.dat' index 0 using 1:2 with linespoints lw 2 lc 1 dt 1 title 'lmdb bring-up', \
     'scale.dat' index 1 using 1:2 with linespoints lw 2 lc 2 dt 1 title 'lmdb-writemap bring-up', \
     'scale.dat' index 2 using 1:2 with linespoints lw 2 lc 3 dt 1 title 'leveldb-mapmon bring-up', \
     'scale.dat' index 0 using 1:3 with linespoints lw 2 lc 1 dt 2 title 'lmdb restart', \
     'scale.dat' index 1 using 1:3 with linespoints lw 2 lc 2 dt 2 title 'lmdb-writemap restart', \
     'scale.dat' index 2 using 1:3 with linespoints lw 2 lc 3 dt 2 title 'leveldb-mapmon restart', \
     10 with lines lc 0 dt 3 title 'target 10 s (1,048,576)'
set output 'scale-memory.svg'
set title 'mapmond memory at the bring-up (MiB)'
set ylabel 'MiB (log scale)'
plot 'scale.dat' index 0 using 1:4 with linespoints lw 2 lc 1 dt 1 title 'lmdb VmHWM', \
     'scale.dat' index 1 using 1:4 with linespoints lw 2 lc 2 dt 1 title 'lmdb-writemap VmHWM', \
     'scale.dat' index 2 using 1:4 with linespoints lw 2 lc 3 dt 1 title 'leveldb-mapmon VmHWM', \
     'scale.dat' index 0 using 1:5 with linespoints lw 2 lc 1 dt 2 title 'lmdb RssAnon', \
     'scale.dat' index 1 using 1:5 with linespoints lw 2 lc 2 dt 2 title 'lmdb-writemap RssAnon', \
     'scale.dat' index 2 using 1:5 with linespoints lw 2 lc 3 dt 2 title 'leveldb-mapmon RssAnon', \
     1430 with lines lc 0 dt 3 title 'target 1.5 GB'
