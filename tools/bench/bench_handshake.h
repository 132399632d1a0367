/*
 * bench_handshake.h: `mapmon-bench handshake` (mapmon-bench(1)): what the
 * handshake of mapmon-protocol(7) costs a client, against a mapmond of its
 * own, with authentication (the default) and without (--no-auth).
 */
#ifndef BENCH_HANDSHAKE_H
#define BENCH_HANDSHAKE_H

/*
 * The subcommand: argv[0] is "handshake", the options follow.  Prints a
 * markdown table and writes handshake.csv under -o DIR.  Returns 0, 1 when
 * a run failed, 64 on a usage error.
 */
int bench_handshake_main(int argc, char **argv);

#endif /* BENCH_HANDSHAKE_H */
