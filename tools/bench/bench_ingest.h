/*
 * bench_ingest.h: `mapmon-bench ingest` (mapmon-bench(1)): sustained PG
 * updates per second into the real mapmond over TCP, durable (sync =
 * commit), with `status` latency measured during the load, once per
 * debug level setting (0/0 and 0/20 for every subsystem by default).
 */
#ifndef BENCH_INGEST_H
#define BENCH_INGEST_H

/*
 * The subcommand: argv[0] is "ingest", the options follow (see
 * mapmon-bench(1)).  Prints a markdown table, writes ingest.csv and
 * ingest.json under -o DIR.  Returns 0, 1 when a run failed, 64 on a usage
 * error.
 */
int bench_ingest_main(int argc, char **argv);

#endif /* BENCH_INGEST_H */
