/* bench_log.c: nanoseconds per dout() call, disabled, gathered, written. */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "tools/bench/bench_log.h"

#define BENCH_LOG_RUNS 5
#define BENCH_LOG_RING 10000

static const char *const bench_log_states[] = {
	"active+clean", "peering", "active+degraded", "stale",
};

static uint64_t
bench_log_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/*
 * The measured loop: one dout() per iteration.  The empty asm with a memory
 * clobber stops the compiler from hoisting the level test out of the loop
 * (which would time an empty loop), as the code around a real call site
 * does.
 */
static double
bench_log_loop(int iterations)
{
	uint64_t t0, t1;
	int i;

	t0 = bench_log_now();
	for (i = 0; i < iterations; i++) {
		dout(LOG_MON, 10, "pg %u.%x is %s at epoch %llu", (unsigned)i & 7,
		    (unsigned)i, bench_log_states[i & 3],
		    (unsigned long long)i + 1000);
		__asm__ volatile("" ::: "memory");
	}
	t1 = bench_log_now();
	return (double)(t1 - t0) / iterations;
}

static void *
bench_log_thread(void *arg)
{
	double *ns = arg;

	*ns = bench_log_loop((int)*ns);
	return NULL;
}

/* Two threads gathering at once: the ring's shared counter under contention. */
static double
bench_log_loop2(int iterations)
{
	pthread_t th;
	double other = iterations, mine;

	if (pthread_create(&th, NULL, bench_log_thread, &other) != 0)
		return bench_log_loop(iterations);
	mine = bench_log_loop(iterations);
	pthread_join(th, NULL);
	return (mine + other) / 2;
}

static int
bench_log_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
bench_log_median(int file_level, int gather_level, int threads,
    int iterations)
{
	double ns[BENCH_LOG_RUNS];
	int r;

	log_set_level(LOG_MON, file_level, gather_level);
	bench_log_loop(iterations / 10 + 1);	/* warm up: parse, fault in */
	for (r = 0; r < BENCH_LOG_RUNS; r++)
		ns[r] = threads > 1 ? bench_log_loop2(iterations) :
		    bench_log_loop(iterations);
	qsort(ns, BENCH_LOG_RUNS, sizeof ns[0], bench_log_cmp);
	return ns[BENCH_LOG_RUNS / 2];
}

int
bench_log_run(FILE *out, int iterations)
{
	static const struct {
		const char *name;
		int file_level, gather_level, threads;
		int slow;	/* a system call per call: fewer iterations */
	} cases[] = {
		{"disabled", 0, 0, 1, 0},
		{"gathered", 0, 20, 1, 0},
		{"gathered_2threads", 0, 20, 2, 0},
		{"written", 20, 0, 1, 1},
		{"written_gathered", 20, 20, 1, 1},
	};
	char *cause = NULL;
	size_t i;
	int n;

	if (iterations < 1)
		iterations = 1;
	log_init("mapmon-bench", BENCH_LOG_RING);
	if (log_open("/dev/null", &cause) != 0) {
		fprintf(out, "# error: %s\n", cause);
		free(cause);
		log_init("mapmon-bench", 0);
		return -1;
	}
	fprintf(out, "# mapmon-bench log: %d runs of %d calls (%d when "
	    "written), median ns per call\n", BENCH_LOG_RUNS, iterations,
	    iterations / 10 + 1);
	fprintf(out, "case ns_per_call\n");
	for (i = 0; i < nitems(cases); i++) {
		n = cases[i].slow ? iterations / 10 + 1 : iterations;
		fprintf(out, "%s %.2f\n", cases[i].name,
		    bench_log_median(cases[i].file_level,
		    cases[i].gather_level, cases[i].threads, n));
	}
	log_set_level(LOG_MON, 0, 0);
	log_open("stderr", NULL);
	log_init("mapmon-bench", 0);
	return 0;
}
