/*
 * bench_detect.h: `mapmon-bench detect` (mapmon-bench(1)): how fast the
 * real mapmond notices dead OSDs under a full PG report load, and how fast
 * their PGs reach a pgmap subscriber on new up sets; that it marks no live
 * OSD down meanwhile; and `status` latency all along.
 */
#ifndef BENCH_DETECT_H
#define BENCH_DETECT_H

/*
 * The subcommand: argv[0] is "detect", the options follow (see
 * mapmon-bench(1)).  Prints a markdown table, writes detect.csv,
 * detect.json and the plot (detect.dat, detect.gp, and detect.svg when
 * gnuplot is installed) under -o DIR.  Returns 0, 1 when the run failed
 * or an OSD was marked down while alive, 64 on a usage error.
 */
int bench_detect_main(int argc, char **argv);

#endif /* BENCH_DETECT_H */
