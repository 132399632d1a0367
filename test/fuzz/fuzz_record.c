/*
 * fuzz_record.c: libFuzzer target for every decoder a store record goes
 * through at cold start, in `mapmon-store verify` and in subscriptions.
 *
 * The first byte is the record's key prefix (mon/keys.h), the rest its
 * value:
 *
 *	'P'  PG stat records, concatenated (pg_stat_decode, as a PG record
 *	     and as the body of a binary `pg report` reads them)
 *	'O'  full osdmap (osdmap_decode), then its JSON and placement
 *	'I'  osdmap incremental (osdmap_inc_decode), applied to an empty map
 *	     of the epoch before
 *	'M'  monmap (monmap_decode)
 *	'C'  commit record (mon_record_commit_decode)
 *	'L'  cluster log entry (mon_record_log_decode)
 *
 * Other first bytes are ignored.  A record that decodes must re-encode to
 * a fixed point: encode(decode(x)) decoded and encoded again gives the same
 * bytes, or the target aborts (a finding).
 *
 *	test/fuzz/fuzz_record -max_len=65536 NEWDIR test/fuzz/record
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/enc.h"
#include "mon/keys.h"
#include "mon/mon_priv.h"
#include "mon/mon_record.h"
#include "map/monmap.h"
#include "map/osdmap.h"
#include "map/pg.h"
#include "map/placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort unless a and b hold the same bytes. */
static void
fuzz_record_same(const struct enc_buf *a, const struct enc_buf *b)
{
	if (a->len != b->len || (a->len > 0 &&
	    memcmp(a->data, b->data, a->len) != 0))
		abort();
}

static void
fuzz_record_pg(const uint8_t *p, size_t len)
{
	struct enc_reader r, r2;
	struct enc_buf b1 = { 0 }, b2 = { 0 };
	struct pg_stat st, st2;
	struct pg_text text;
	char *cause = NULL, *dump;
	json_t *j;

	pg_text_init(&text);
	enc_reader_init(&r, p, len);
	while (r.left > 0) {
		if (pg_stat_decode(&r, &st, &cause) == -1) {
			if (cause == NULL || !r.failed)
				abort();
			free(cause);
			break;
		}
		enc_buf_reset(&b1);
		enc_buf_reset(&b2);
		pg_stat_encode(&st, &b1);
		if (b1.len != pg_stat_encoded_size(&st))
			abort();
		enc_reader_init(&r2, b1.data, b1.len);
		if (pg_stat_decode(&r2, &st2, &cause) != 0 || r2.left != 0)
			abort();
		pg_stat_encode(&st2, &b2);
		fuzz_record_same(&b1, &b2);
		/* The pushes' text form is jansson's text, byte for byte. */
		j = pg_stat_to_json(&st);
		dump = json_dumps(j, JSON_COMPACT);
		enc_buf_reset(&text.buf);
		pg_text_stat(&text, &st);
		if (dump == NULL || text.buf.len != strlen(dump) ||
		    memcmp(text.buf.data, dump, text.buf.len) != 0)
			abort();
		free(dump);
		json_decref(j);
	}
	enc_buf_free(&b1);
	enc_buf_free(&b2);
	pg_text_free(&text);
}

static void
fuzz_record_osdmap(const uint8_t *p, size_t len)
{
	struct osdmap m, m2;
	struct enc_buf b1 = { 0 }, b2 = { 0 };
	struct osdmap_place *pl;
	char *cause = NULL;
	json_t *j;

	osdmap_init(&m);
	osdmap_init(&m2);
	if (osdmap_decode(p, len, &m, &cause) == -1) {
		if (cause == NULL)
			abort();
		free(cause);
		osdmap_clear(&m);
		osdmap_clear(&m2);
		return;
	}
	osdmap_encode(&m, &b1);
	if (osdmap_decode(b1.data, b1.len, &m2, &cause) != 0)
		abort();
	osdmap_encode(&m2, &b2);
	fuzz_record_same(&b1, &b2);
	j = osdmap_to_json(&m);
	json_decref(j);
	pl = osdmap_place_new(&m);
	osdmap_place_free(pl);
	enc_buf_free(&b1);
	enc_buf_free(&b2);
	osdmap_clear(&m);
	osdmap_clear(&m2);
}

static void
fuzz_record_inc(const uint8_t *p, size_t len)
{
	struct osdmap_inc inc, inc2;
	struct osdmap m;
	struct enc_buf b1 = { 0 }, b2 = { 0 };
	char *cause = NULL;
	json_t *j;

	if (osdmap_inc_decode(p, len, &inc, &cause) == -1) {
		if (cause == NULL)
			abort();
		free(cause);
		return;
	}
	osdmap_inc_encode(&inc, &b1);
	if (osdmap_inc_decode(b1.data, b1.len, &inc2, &cause) != 0)
		abort();
	osdmap_inc_encode(&inc2, &b2);
	fuzz_record_same(&b1, &b2);
	osdmap_inc_clear(&inc2);
	j = osdmap_inc_to_json(&inc);
	json_decref(j);

	/* A subscriber applies what it decodes to the map it holds. */
	osdmap_init(&m);
	m.epoch = inc.epoch - 1;
	if (osdmap_apply(&m, &inc, &cause) == -1) {
		if (cause == NULL)
			abort();
		free(cause);
	} else if (m.epoch != inc.epoch)
		abort();
	osdmap_clear(&m);
	osdmap_inc_clear(&inc);
	enc_buf_free(&b1);
	enc_buf_free(&b2);
}

static void
fuzz_record_monmap(const uint8_t *p, size_t len)
{
	struct monmap m, m2;
	struct enc_buf b1 = { 0 }, b2 = { 0 };
	char *cause = NULL;
	json_t *j;

	if (monmap_decode(p, len, &m, &cause) == -1) {
		if (cause == NULL)
			abort();
		free(cause);
		return;
	}
	monmap_encode(&m, &b1);
	if (monmap_decode(b1.data, b1.len, &m2, &cause) != 0)
		abort();
	monmap_encode(&m2, &b2);
	fuzz_record_same(&b1, &b2);
	j = monmap_to_json(&m);
	json_decref(j);
	enc_buf_free(&b1);
	enc_buf_free(&b2);
}

static void
fuzz_record_commit(const uint8_t *p, size_t len)
{
	struct mon_rec r, r2;
	struct enc_buf b1 = { 0 }, b2 = { 0 };
	char *cause = NULL;

	if (mon_record_commit_decode(p, len, &r, &cause) == -1) {
		if (cause == NULL)
			abort();
		free(cause);
		return;
	}
	mon_record_commit_encode(&r, &b1);
	if (mon_record_commit_decode(b1.data, b1.len, &r2, &cause) != 0)
		abort();
	mon_record_commit_encode(&r2, &b2);
	fuzz_record_same(&b1, &b2);
	enc_buf_free(&b1);
	enc_buf_free(&b2);
}

static void
fuzz_record_log(const uint8_t *p, size_t len)
{
	struct mon_log_entry e, e2;
	struct enc_buf b1 = { 0 }, b2 = { 0 };
	char *cause = NULL;

	if (mon_record_log_decode(p, len, &e, &cause) == -1) {
		if (cause == NULL || e.message != NULL)
			abort();
		free(cause);
		return;
	}
	(void)mon_log_severity_name(e.severity);
	mon_record_log_encode(&e, &b1);
	if (mon_record_log_decode(b1.data, b1.len, &e2, &cause) != 0)
		abort();
	mon_record_log_encode(&e2, &b2);
	fuzz_record_same(&b1, &b2);
	free(e2.message);
	free(e.message);
	enc_buf_free(&b1);
	enc_buf_free(&b2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0]) {
	case KEYS_PG:
		fuzz_record_pg(data + 1, size - 1);
		break;
	case KEYS_OSDMAP:
		fuzz_record_osdmap(data + 1, size - 1);
		break;
	case KEYS_OSDMAP_INC:
		fuzz_record_inc(data + 1, size - 1);
		break;
	case KEYS_MONMAP:
		fuzz_record_monmap(data + 1, size - 1);
		break;
	case KEYS_COMMIT:
		fuzz_record_commit(data + 1, size - 1);
		break;
	case KEYS_LOG:
		fuzz_record_log(data + 1, size - 1);
		break;
	}
	return 0;
}
