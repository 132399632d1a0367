/*
 * bench_cold.h: `mapmon-bench coldstart` (mapmon-bench(1)): bring-up and restart
 * of the real mapmond over PG counts and store set-ups, and the 2013
 * failure reproduced at the store level.
 */
#ifndef BENCH_COLD_H
#define BENCH_COLD_H

/*
 * The subcommand: argv[0] is "coldstart", the options follow (see
 * mapmon-bench(1)).  Prints the tables on stdout, writes coldstart.csv,
 * store2013.csv, coldstart.json and the plot (its data and gnuplot script,
 * and the SVG when gnuplot is installed) under -o DIR.  Returns the exit
 * status: 0, 1 when a run failed, 64 on a usage error.
 */
int bench_cold_main(int argc, char **argv);

#endif /* BENCH_COLD_H */
