/*
 * commits.c: the LMDB commit of BENCHMARKS.md "Store writes in key order",
 * at the store layer (store/store.h), no monitor: a table of 221,568
 * records of 490 bytes under PG-like keys (a type byte, the pool and the
 * PG's seed big-endian), then ten commits of 98,000 of them drawn at
 * random (the size of a proposal under full ingest), each timed.  Built by
 * hand from a build directory, against that build's libraries:
 *
 *   gcc -O2 -I.. -I. ../bench/storeorder/commits.c store/libstore.a \
 *       common/libcommon.a -llmdb -lleveldb -lstdc++ -lpthread -lm \
 *       -lcrypto -lzstd -o commits
 *   ./commits DIR lmdb SYNC      (SYNC 0: durable commits, 1: none)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store.h"

#define TABLE 221568
#define COMMIT 98000
#define ROUNDS 10

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void
key(uint8_t *k, unsigned int i)
{
	unsigned int pool = i / 65536 + 1, ps = i % 65536;

	k[0] = 0x10;
	k[1] = (uint8_t)(pool >> 24);
	k[2] = (uint8_t)(pool >> 16);
	k[3] = (uint8_t)(pool >> 8);
	k[4] = (uint8_t)pool;
	k[5] = (uint8_t)(ps >> 24);
	k[6] = (uint8_t)(ps >> 16);
	k[7] = (uint8_t)(ps >> 8);
	k[8] = (uint8_t)ps;
}

int
main(int argc, char **argv)
{
	struct store_options o;
	struct store_batch *b;
	struct store *s;
	unsigned int i, j, r, t, seed = 1, *perm;
	uint8_t k[9], v[490];
	double t0, d, total = 0;
	char *cause = NULL;

	if (argc != 4) {
		fprintf(stderr, "usage: commits DIR BACKEND SYNC\n");
		return 64;
	}
	store_options_defaults(&o);
	o.backend = argv[2];
	o.sync = (enum store_sync)atoi(argv[3]);
	if (store_open(argv[1], &o, STORE_CREATE, &s, &cause) != 0) {
		fprintf(stderr, "commits: %s\n", cause);
		return 1;
	}
	b = store_batch_new();
	memset(v, 7, sizeof v);
	for (i = 0; i < TABLE; i++) {
		key(k, i);
		store_batch_put(b, k, sizeof k, v, sizeof v);
	}
	if (store_commit(s, b, &cause) != 0) {
		fprintf(stderr, "commits: %s\n", cause);
		return 1;
	}
	perm = malloc(TABLE * sizeof *perm);
	for (r = 0; r < ROUNDS; r++) {
		store_batch_clear(b);
		for (i = 0; i < TABLE; i++)
			perm[i] = i;
		for (i = TABLE - 1; i > 0; i--) {
			j = (unsigned int)rand_r(&seed) % (i + 1);
			t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		v[0] = (uint8_t)r;
		for (i = 0; i < COMMIT; i++) {
			key(k, perm[i]);
			store_batch_put(b, k, sizeof k, v, sizeof v);
		}
		t0 = now();
		if (store_commit(s, b, &cause) != 0) {
			fprintf(stderr, "commits: %s\n", cause);
			return 1;
		}
		d = now() - t0;
		total += d;
		printf("%.3f ", d);
	}
	printf("| mean %.3f s\n", total / ROUNDS);
	free(perm);
	store_batch_free(b);
	store_close(s);
	return 0;
}
