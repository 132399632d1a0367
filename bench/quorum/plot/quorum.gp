# quorum.gp: bring-up against PGs on one monitor and on three, from the
# medians of mapmon-bench coldstart --mons 1 and --mons 3 (mons1/ and
# mons3/ here; the commands are in log.txt).  cd bench/quorum/plot &&
# gnuplot quorum.gp draws quorum.svg.  BENCHMARKS.md, "A quorum of
# monitors through mapmon-bench".
set terminal svg size 760,460 background '#ffffff'
set output 'quorum.svg'
set title 'bring-up to every PG active+clean: one monitor and a quorum of three'
set xlabel 'PGs'
set ylabel 'seconds'
set grid
set key left top
set xrange [0:240000]
set yrange [0:*]
set xtics (55392, 110784, 221568)
med(dir, su) = sprintf("< awk -F, '$1 == \"%s\" && $3 == \"median\" { print $2, $4 }' %s/coldstart.csv", su, dir)
plot med('mons1', 'lmdb') with linespoints lw 2 lc 1 dt 1 title 'lmdb, 1 monitor', \
     med('mons3', 'lmdb') with linespoints lw 2 lc 1 dt 2 title 'lmdb, 3 monitors', \
     med('mons1', 'leveldb-mapmon') with linespoints lw 2 lc 2 dt 1 title 'leveldb-mapmon, 1 monitor', \
     med('mons3', 'leveldb-mapmon') with linespoints lw 2 lc 2 dt 2 title 'leveldb-mapmon, 3 monitors', \
     6 with lines lw 1 lc rgb '#888888' dt 3 title 'wanted at 221,568 PGs: 6 s'
