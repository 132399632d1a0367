/*
 * bench_log.h: the cost of a log call (`mapmon-bench log`, mapmon-bench(1)).
 */
#ifndef BENCH_LOG_H
#define BENCH_LOG_H

#include <stdio.h>

/*
 * Measures the nanoseconds per dout() call of each case, over `iterations`
 * calls per run, five runs each, and prints the median of each case to out:
 *
 *	# mapmon-bench log: 5 runs of 1000000 calls, median ns per call
 *	case ns_per_call
 *	disabled 0.31
 *	gathered 38.50
 *	gathered_2threads 61.20
 *	written 905.10
 *	written_gathered 950.00
 *
 * disabled: the level is off (0/0), nothing is evaluated; gathered: 0/20,
 * into a ring of 10000 entries (gathered_2threads: two threads at once,
 * per call of each); written: 20/0 to /dev/null; written_gathered: 20/20.
 * Every call carries four arguments (two ints, a string, a long long).
 *
 * It reconfigures the process's logging (log_init with a new ring, levels,
 * target) and leaves it with no ring, levels 0/0 and stderr as the target:
 * it is meant for the benchmark process.  iterations below 1 count as 1.
 * Returns 0, or -1 after printing a "# error: ..." line when /dev/null
 * cannot be opened.
 */
int bench_log_run(FILE *out, int iterations);

#endif /* BENCH_LOG_H */
