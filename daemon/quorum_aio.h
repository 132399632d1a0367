/*
 * quorum_aio.h: the io_destroy() of C-Raft's log segments made off the
 * loop thread (quorum_aio.c says how, BENCHMARKS.md why).
 *
 * It defines syscall() for the whole process: it is in libdaemon.a, and
 * so in mapmond and the command fuzzers, which link the daemon's layer
 * (metrics.c reports the count below, which pulls it in).
 */
#ifndef MAPMON_QUORUM_AIO_H
#define MAPMON_QUORUM_AIO_H

/*
 * Waits for every context handed to a thread to be ended, and joins the
 * threads: called once C-Raft's I/O is closed, before the process exits.
 */
void quorum_aio_drain(void);

/* AIO contexts handed to a thread of their own since the start. */
unsigned long long quorum_aio_deferred_total(void);

#endif
