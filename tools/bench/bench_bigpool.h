/*
 * bench_bigpool.h: `mapmon-bench bigpool` (mapmon-bench(1)): how the
 * monitor answers `status` while it does large allowed work (pools of
 * 65,536 PGs created and deleted, pg_num grown, the store compacted)
 * under a steady PG report load, and how long SIGTERM takes to stop it at
 * a random moment of that work.
 */
#ifndef BENCH_BIGPOOL_H
#define BENCH_BIGPOOL_H

/*
 * The subcommand: argv[0] is "bigpool", the options follow (see
 * mapmon-bench(1)).  Prints markdown tables, writes bigpool.csv,
 * bigpool_kills.csv and bigpool.json under -o DIR.  Returns 0; 1 when a
 * run failed, or a monitor stopped by SIGTERM did not exit 0 or came back
 * with a state that is not the whole change or none of it (or lost an
 * acknowledged one); 64 on a usage error.
 */
int bench_bigpool_main(int argc, char **argv);

#endif /* BENCH_BIGPOOL_H */
