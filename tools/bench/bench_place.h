/*
 * bench_place.h: placement's speed (`mapmon-bench placement`,
 * mapmon-bench(1)): the flat function the monitor uses today and the
 * hierarchy's (map/crush.h), side by side in one run.
 */
#ifndef BENCH_PLACE_H
#define BENCH_PLACE_H

/*
 * `mapmon-bench placement [options]`: parses its options (a bad one prints
 * why and exits 64), runs, prints the table to stdout; returns the exit
 * status.
 */
int bench_place_main(int argc, char **argv);

#endif /* BENCH_PLACE_H */
