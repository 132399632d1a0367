/*
 * bench_filesize.h: `mapmon-bench filesize`, the store's size on disk
 * during a long full-rate ingest against its live data (mapmon-bench(1)).
 */
#ifndef BENCH_FILESIZE_H
#define BENCH_FILESIZE_H

/*
 * Run it with argv[0] "filesize"; prints the report on stdout, writes
 * filesize.csv and filesize.json into -o DIR.  Returns the exit status:
 * 0, 1 when the run failed, 64 for a usage error.
 */
int bench_filesize_main(int argc, char **argv);

#endif /* BENCH_FILESIZE_H */
