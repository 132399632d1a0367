/*
 * bench_pgreport.c: how long the monitor takes to parse one PG report of N
 * PGs in its JSON form (frame_parse_json + pgreport_from_json, what the
 * daemon runs for a REQUEST) and in its binary form (pgreport_decode, for
 * a BINARY_REQUEST).  The stats look like a live cluster's: every field
 * set, three OSDs in up and acting.
 *
 *	test/unit/bench_pgreport [N [ROUNDS]]	(default 65536 PGs, 5 rounds)
 *
 * Prints the message sizes and, for each form, the best round's time,
 * per PG and in MB/s.  Exits 1 if a form fails to parse.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "map/pg.h"
#include "map/pgreport.h"
#include "net/frame.h"

static double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
bench_fill(struct pg_stat *st, uint32_t i)
{
	int64_t t = 1796000000000000LL + (int64_t)i * 1000;

	pg_stat_init(st, (struct pg_id){ 1 + i / 4096, i % 4096 });
	st->state = PG_STATE_ACTIVE | PG_STATE_CLEAN;
	st->version_epoch = 40;
	st->version_v = 1000 + i;
	st->reported_epoch = 41;
	st->reported_seq = 5000 + i;
	st->created = 3;
	st->last_epoch_clean = 40;
	st->mapping_epoch = 39;
	st->up_len = st->acting_len = 3;
	st->up[0] = st->acting[0] = (int32_t)(i % 100);
	st->up[1] = st->acting[1] = (int32_t)((i + 1) % 100);
	st->up[2] = st->acting[2] = (int32_t)((i + 2) % 100);
	st->up_primary = st->acting_primary = st->up[0];
	st->last_fresh = st->last_change = st->last_active = t;
	st->last_peered = st->last_clean = st->last_became_active = t;
	st->last_unstale = st->last_scrub_stamp = st->last_deep_scrub_stamp = t;
	st->log_size = st->ondisk_log_size = 3000;
	st->num_bytes = 4194304LL * (i % 500);
	st->num_objects = i % 500;
	st->num_object_copies = 3 * (i % 500);
	st->num_read = 12345 + i;
	st->num_read_kb = 98765 + i;
	st->num_write = 2345 + i;
	st->num_write_kb = 8765 + i;
	st->num_omap_bytes = 77;
	st->num_omap_keys = 7;
}

int
main(int argc, char **argv)
{
	struct enc_buf bin = { 0 };
	struct pg_stat *pgs, *out;
	json_t *msg, *arr, *parsed;
	char *text, *cause = NULL;
	size_t tlen, n, i, got;
	int32_t osd;
	int rounds, r;
	double t0, best_json = 1e9, best_bin = 1e9, t;

	n = argc > 1 ? strtoul(argv[1], NULL, 10) : 65536;
	rounds = argc > 2 ? atoi(argv[2]) : 5;
	if (n == 0 || rounds <= 0) {
		fprintf(stderr, "usage: bench_pgreport [N [ROUNDS]]\n");
		return 64;
	}
	pgs = xcalloc(n, sizeof *pgs);
	arr = json_array();
	enc_buf_put_u16(&bin, FRAME_BINARY_PG_REPORT);
	enc_buf_put_u32(&bin, 0);
	enc_buf_put_u32(&bin, (uint32_t)n);
	for (i = 0; i < n; i++) {
		bench_fill(&pgs[i], (uint32_t)i);
		json_array_append_new(arr, pg_stat_to_json(&pgs[i]));
		pg_stat_encode(&pgs[i], &bin);
	}
	msg = json_pack("{s:s, s:i, s:o}", "prefix", "pg report", "osd", 0,
	    "pgs", arr);
	text = frame_dump_json(msg, &tlen);
	json_decref(msg);

	for (r = 0; r < rounds; r++) {
		t0 = bench_now();
		if ((parsed = frame_parse_json(text, tlen, &cause)) == NULL ||
		    pgreport_from_json(json_object_get(parsed, "pgs"), &out,
		    &got, &cause) == -1) {
			fprintf(stderr, "JSON: %s\n", cause);
			return 1;
		}
		json_decref(parsed);
		t = bench_now() - t0;
		if (got != n || memcmp(&out[n - 1], &pgs[n - 1],
		    sizeof *out) != 0) {
			fprintf(stderr, "JSON: the stats differ\n");
			return 1;
		}
		free(out);
		if (t < best_json)
			best_json = t;

		t0 = bench_now();
		if (pgreport_decode(bin.data, bin.len, &osd, &out, &got,
		    &cause) == -1) {
			fprintf(stderr, "binary: %s\n", cause);
			return 1;
		}
		t = bench_now() - t0;
		if (got != n || memcmp(&out[n - 1], &pgs[n - 1],
		    sizeof *out) != 0) {
			fprintf(stderr, "binary: the stats differ\n");
			return 1;
		}
		free(out);
		if (t < best_bin)
			best_bin = t;
	}
	printf("pg report of %zu PGs, best of %d rounds\n", n, rounds);
	printf("  JSON:   %9zu bytes (%4zu per PG)  %8.1f ms  %6.2f us/PG  "
	    "%7.1f MB/s\n", tlen, tlen / n, best_json * 1e3,
	    best_json * 1e6 / (double)n, (double)tlen / best_json / 1e6);
	printf("  binary: %9zu bytes (%4zu per PG)  %8.1f ms  %6.2f us/PG  "
	    "%7.1f MB/s\n", bin.len, bin.len / n, best_bin * 1e3,
	    best_bin * 1e6 / (double)n, (double)bin.len / best_bin / 1e6);
	printf("  binary is %.1fx faster to parse\n", best_json / best_bin);
	free(text);
	free(pgs);
	enc_buf_free(&bin);
	return 0;
}
