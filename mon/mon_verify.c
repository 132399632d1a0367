/*
 * mon_verify.c: the invariants of a monitor's store, checked offline by
 * `mapmon-store verify` (and by the crash tests):
 *
 *  - the commit record, the monmap, every osdmap (full and incremental),
 *    pgmap incremental, cluster log entry and PG record decodes, and says
 *    what its key says (epoch, version, sequence number, PG id);
 *  - osdmap epochs, pgmap versions and log entries are exactly the
 *    contiguous ranges the commit record names, nothing missing, no extra;
 *  - every PG of every pool of the latest osdmap has its record, and there
 *    is no other PG record;
 *  - every auth entity has a good name and caps that parse;
 *  - every OSD capacity record decodes and is of an OSD of the newest
 *    osdmap (a removal deletes it in the same commit);
 *  - the derived figures built as the monitor builds them at cold start
 *    equal a recount.
 * Each problem is reported once, as one line naming the key.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "mon/keys.h"
#include "mon/mon_record.h"
#include "mon/mon_quorum.h"
#include "mon/mon_verify.h"
#include "map/statfs.h"

struct verify {
	struct store *s;
	mon_verify_cb *cb;
	void *arg;
	struct mon_verify_counts *n;
	struct mon_rec rec;
	struct osdmap osdmap;	/* the newest full map */
};

static void
verify_problem(struct verify *v, const void *key, size_t klen,
    const char *fmt, ...) printflike(4, 5);

static void
verify_problem(struct verify *v, const void *key, size_t klen,
    const char *fmt, ...)
{
	va_list ap;
	char *text, *k, *line;

	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	if (key != NULL) {
		k = store_key_escape(key, klen);
		xasprintf(&line, "record %s: %s", k, text);
		free(k);
	} else
		line = xstrdup(text);
	v->n->problems++;
	v->cb(v->arg, line);
	free(line);
	free(text);
}

/* Walk one prefix; f checks each record, returns 0 or -1 (reported). */
static int
verify_scan(struct verify *v, uint8_t prefix,
    void (*f)(struct verify *, const uint8_t *, size_t, const void *, size_t,
    void *), void *farg)
{
	struct store_iter *it;
	const void *k, *val;
	size_t klen, vlen;
	uint8_t lo = prefix, hi = (uint8_t)(prefix + 1);
	char *cause = NULL;
	int rc;

	if ((it = store_iter_new(v->s, &lo, 1, &hi, 1, &cause)) == NULL) {
		verify_problem(v, NULL, 0, "%s", cause);
		free(cause);
		return -1;
	}
	while ((rc = store_iter_next(it, &k, &klen, &val, &vlen)) == 1)
		f(v, k, klen, val, vlen, farg);
	if (rc < 0)
		verify_problem(v, NULL, 0, "scan of prefix '%c': %s", prefix,
		    store_iter_cause(it) ? store_iter_cause(it) :
		    store_strerror(rc));
	store_iter_free(it);
	return rc < 0 ? -1 : 0;
}

/* Sequence checks: the numbers seen must be exactly first..last. */
struct verify_seq {
	const char *what;
	uint64_t first, last, expect;
	int broken;
};

static void
verify_seq_next(struct verify *v, struct verify_seq *q, uint64_t n,
    const void *key, size_t klen)
{
	if (q->broken)
		return;
	if (n < q->first || n > q->last) {
		verify_problem(v, key, klen, "%s %llu outside the committed "
		    "range %llu..%llu", q->what, (unsigned long long)n,
		    (unsigned long long)q->first, (unsigned long long)q->last);
		q->broken = 1;
	} else if (n != q->expect) {
		verify_problem(v, key, klen, "%s %llu follows %llu: %s missing",
		    q->what, (unsigned long long)n,
		    (unsigned long long)q->expect - 1, q->what);
		q->broken = 1;
	} else
		q->expect = n + 1;
}

static void
verify_seq_end(struct verify *v, struct verify_seq *q)
{
	if (!q->broken && q->first <= q->last && q->expect != q->last + 1)
		verify_problem(v, NULL, 0, "%s %llu..%llu missing (committed "
		    "up to %llu)", q->what, (unsigned long long)q->expect,
		    (unsigned long long)q->last, (unsigned long long)q->last);
}

static void
verify_osdmap(struct verify *v, const uint8_t *k, size_t klen,
    const void *val, size_t vlen, void *arg)
{
	struct verify_seq *q = arg;
	struct osdmap m;
	char *cause = NULL;
	uint32_t epoch;

	v->n->osdmaps++;
	if (klen != KEYS_EPOCH_LEN) {
		verify_problem(v, k, klen, "key of the wrong length");
		return;
	}
	epoch = enc_get_be32(k + 1);
	osdmap_init(&m);
	if (osdmap_decode(val, vlen, &m, &cause) == -1) {
		verify_problem(v, k, klen, "%s", cause);
		free(cause);
	} else if (m.epoch != epoch)
		verify_problem(v, k, klen, "holds epoch %u", m.epoch);
	else if (epoch == v->rec.osdmap_epoch) {
		osdmap_clear(&v->osdmap);
		v->osdmap = m;
		osdmap_init(&m);
	}
	osdmap_clear(&m);
	verify_seq_next(v, q, epoch, k, klen);
}

static void
verify_osdmap_inc(struct verify *v, const uint8_t *k, size_t klen,
    const void *val, size_t vlen, void *arg)
{
	struct verify_seq *q = arg;
	struct osdmap_inc inc;
	char *cause = NULL;
	uint32_t epoch;

	v->n->incrementals++;
	if (klen != KEYS_EPOCH_LEN) {
		verify_problem(v, k, klen, "key of the wrong length");
		return;
	}
	epoch = enc_get_be32(k + 1);
	if (osdmap_inc_decode(val, vlen, &inc, &cause) == -1) {
		verify_problem(v, k, klen, "%s", cause);
		free(cause);
	} else {
		if (inc.epoch != epoch)
			verify_problem(v, k, klen, "holds epoch %u", inc.epoch);
		osdmap_inc_clear(&inc);
	}
	verify_seq_next(v, q, epoch, k, klen);
}

struct verify_pginc {
	struct verify_seq seq;
	uint64_t version;	/* the version whose chunks are being read */
	uint32_t next_chunk;
};

static void
verify_pginc(struct verify *v, const uint8_t *k, size_t klen,
    mapmon_unused const void *val, size_t vlen, void *arg)
{
	struct verify_pginc *q = arg;
	uint64_t version;
	uint32_t chunk;

	v->n->pgincs++;
	if (klen != KEYS_PGINC_LEN) {
		verify_problem(v, k, klen, "key of the wrong length");
		return;
	}
	version = enc_get_be64(k + 1);
	chunk = enc_get_be32(k + 9);
	if (vlen % 8 != 0 || vlen / 8 > KEYS_PGINC_CHUNK)
		verify_problem(v, k, klen, "pgmap incremental of %zu bytes is "
		    "not a list of at most %d PG ids", vlen, KEYS_PGINC_CHUNK);
	if (chunk == 0) {
		q->version = version;
		q->next_chunk = 1;
		verify_seq_next(v, &q->seq, version, k, klen);
	} else if (version != q->version || chunk != q->next_chunk++)
		verify_problem(v, k, klen, "chunk %u of version %llu out of "
		    "order", chunk, (unsigned long long)version);
}

static void
verify_log(struct verify *v, const uint8_t *k, size_t klen, const void *val,
    size_t vlen, void *arg)
{
	struct verify_seq *q = arg;
	struct mon_log_entry e;
	char *cause = NULL;
	uint64_t seq;

	v->n->log_entries++;
	if (klen != KEYS_LOG_LEN) {
		verify_problem(v, k, klen, "key of the wrong length");
		return;
	}
	seq = enc_get_be64(k + 1);
	if (mon_record_log_decode(val, vlen, &e, &cause) == -1) {
		verify_problem(v, k, klen, "%s", cause);
		free(cause);
	} else {
		if (e.seq != seq)
			verify_problem(v, k, klen, "holds entry %llu",
			    (unsigned long long)e.seq);
		free(e.message);
	}
	verify_seq_next(v, q, seq, k, klen);
}

/* Auth entities: the name of the key, the record, caps that parse. */
static void
verify_auth(struct verify *v, const uint8_t *k, size_t klen, const void *val,
    size_t vlen, void *arg)
{
	struct mon_auth_entity e;
	char name[KEYS_AUTH_MAX], *cause = NULL;
	size_t i;

	(void)arg;
	v->n->auth_entities++;
	if (klen < 2 || klen > KEYS_AUTH_MAX) {
		verify_problem(v, k, klen, "key of the wrong length");
		return;
	}
	memcpy(name, k + 1, klen - 1);
	name[klen - 1] = '\0';
	if (mon_record_auth_decode(name, val, vlen, &e, &cause) == -1) {
		verify_problem(v, k, klen, "%s", cause);
		free(cause);
		return;
	}
	for (i = 0; i < e.ncaps; i++) {
		if (mon_auth_cap_parse(e.caps[i].service, e.caps[i].cap, NULL,
			&cause) == -1) {
			verify_problem(v, k, klen, "%s", cause);
			free(cause);
			cause = NULL;
		}
	}
	mon_auth_entity_clear(&e);
}

/* Capacity records: the key of an OSD the map has, a good statfs. */
static void
verify_statfs(struct verify *v, const uint8_t *k, size_t klen, const void *val,
    size_t vlen, void *arg)
{
	struct statfs_osd st;
	char *cause = NULL;
	int32_t id;

	(void)arg;
	v->n->capacities++;
	if (klen != KEYS_STATFS_LEN) {
		verify_problem(v, k, klen, "key of the wrong length");
		return;
	}
	id = (int32_t)enc_get_be32(k + 1);
	if (mon_record_statfs_decode(val, vlen, &st, &cause) == -1) {
		verify_problem(v, k, klen, "%s", cause);
		free(cause);
		return;
	}
	if (osdmap_osd(&v->osdmap, id) == NULL)
		verify_problem(v, k, klen,
		    "capacity of osd.%d, which osdmap "
		    "epoch %u does not have",
		    id, v->osdmap.epoch);
}

/* PG records: decode; each belongs to a pool of the map; count per pool. */
struct verify_pgs {
	uint64_t *seen;		/* per pool of v->osdmap */
	size_t pi;
};

static void
verify_pg(struct verify *v, const uint8_t *k, size_t klen, const void *val,
    size_t vlen, void *arg)
{
	struct verify_pgs *q = arg;
	struct enc_reader r;
	struct pg_stat st;
	char *cause = NULL;
	uint32_t pool, seed;

	v->n->pgs++;
	if (klen != KEYS_PG_LEN) {
		verify_problem(v, k, klen, "key of the wrong length");
		return;
	}
	pool = enc_get_be32(k + 1);
	seed = enc_get_be32(k + 5);
	enc_reader_init(&r, val, vlen);
	if (pg_stat_decode(&r, &st, &cause) == -1) {
		verify_problem(v, k, klen, "%s", cause);
		free(cause);
		return;
	}
	if (r.left != 0 || st.pgid.pool != pool || st.pgid.seed != seed)
		verify_problem(v, k, klen, "record of PG %u.%x under this key",
		    st.pgid.pool, st.pgid.seed);
	while (q->pi < v->osdmap.npools && v->osdmap.pools[q->pi].id < pool)
		q->pi++;
	if (q->pi == v->osdmap.npools || v->osdmap.pools[q->pi].id != pool ||
	    seed >= v->osdmap.pools[q->pi].pg_num) {
		verify_problem(v, k, klen, "PG %u.%x belongs to no pool of "
		    "osdmap epoch %u", pool, seed, v->osdmap.epoch);
		return;
	}
	q->seen[q->pi]++;
}

int
mon_verify(struct store *s, mon_verify_cb *cb, void *arg,
    struct mon_verify_counts *counts)
{
	struct verify v;
	struct verify_seq oseq, iseq, lseq;
	struct verify_pginc pseq;
	struct verify_pgs pgs;
	struct monmap mm;
	uint8_t key = KEYS_COMMIT;
	void *val;
	size_t vlen, i;
	char *cause = NULL;
	int rc;

	memset(&v, 0, sizeof v);
	memset(counts, 0, sizeof *counts);
	v.s = s;
	v.cb = cb;
	v.arg = arg;
	v.n = counts;
	osdmap_init(&v.osdmap);

	if ((rc = store_get(s, &key, 1, &val, &vlen, &cause)) != 0) {
		verify_problem(&v, &key, 1, "%s", rc == STORE_NOTFOUND ?
		    "the commit record is missing" : cause);
		free(cause);
		return -1;
	}
	rc = mon_record_commit_decode(val, vlen, &v.rec, &cause);
	free(val);
	if (rc == -1) {
		verify_problem(&v, &key, 1, "%s", cause);
		free(cause);
		return -1;
	}
	key = KEYS_MUTES;
	if ((rc = store_get(s, &key, 1, &val, &vlen, &cause)) == 0) {
		struct mon_mute *mutes;
		size_t nmutes;

		if (mon_record_mutes_decode(val, vlen, &mutes, &nmutes,
			&cause) == -1) {
			verify_problem(&v, &key, 1, "%s", cause);
			free(cause);
		} else {
			for (i = 0; i < nmutes; i++)
				free(mutes[i].summary);
			free(mutes);
		}
		free(val);
	} else if (rc != STORE_NOTFOUND) {
		verify_problem(&v, &key, 1, "%s", cause);
		free(cause);
	}
	key = KEYS_QUORUM;
	if ((rc = store_get(s, &key, 1, &val, &vlen, &cause)) == 0) {
		uint64_t qi, qt;

		if (mon_quorum_record_decode(val, vlen, &qi, &qt, &cause) ==
		    -1) {
			verify_problem(&v, &key, 1, "%s", cause);
			free(cause);
		}
		free(val);
	} else if (rc != STORE_NOTFOUND) {
		verify_problem(&v, &key, 1, "%s", cause);
		free(cause);
	}
	key = KEYS_MONMAP;
	if ((rc = store_get(s, &key, 1, &val, &vlen, &cause)) != 0) {
		verify_problem(&v, &key, 1, "%s", rc == STORE_NOTFOUND ?
		    "the monmap is missing" : cause);
		free(cause);
	} else {
		if (monmap_decode(val, vlen, &mm, &cause) == -1) {
			verify_problem(&v, &key, 1, "%s", cause);
			free(cause);
		}
		free(val);
	}

	oseq = (struct verify_seq){ "osdmap epoch", v.rec.osdmap_first,
	    v.rec.osdmap_epoch, v.rec.osdmap_first, 0 };
	iseq = oseq;
	iseq.what = "osdmap incremental";
	lseq = (struct verify_seq){ "cluster log entry", v.rec.log_first,
	    v.rec.log_last, v.rec.log_first, 0 };
	memset(&pseq, 0, sizeof pseq);
	pseq.seq = (struct verify_seq){ "pgmap version", v.rec.pgmap_first,
	    v.rec.pgmap_version, v.rec.pgmap_first, 0 };
	if (v.rec.pgmap_first == 0)
		pseq.seq.first = 1;	/* no version yet: expect none */
	verify_scan(&v, KEYS_OSDMAP, verify_osdmap, &oseq);
	verify_seq_end(&v, &oseq);
	verify_scan(&v, KEYS_OSDMAP_INC, verify_osdmap_inc, &iseq);
	verify_seq_end(&v, &iseq);
	verify_scan(&v, KEYS_PGINC, verify_pginc, &pseq);
	verify_seq_end(&v, &pseq.seq);
	if (v.rec.log_last > 0) {
		verify_scan(&v, KEYS_LOG, verify_log, &lseq);
		verify_seq_end(&v, &lseq);
	}

	verify_scan(&v, KEYS_AUTH, verify_auth, NULL);
	verify_scan(&v, KEYS_STATFS, verify_statfs, NULL);

	memset(&pgs, 0, sizeof pgs);
	pgs.seen = xcalloc(v.osdmap.npools + 1, sizeof *pgs.seen);
	verify_scan(&v, KEYS_PG, verify_pg, &pgs);
	for (i = 0; i < v.osdmap.npools; i++)
		if (pgs.seen[i] != v.osdmap.pools[i].pg_num)
			verify_problem(&v, NULL, 0, "pool %u '%s' has %u PGs "
			    "but %llu PG records", v.osdmap.pools[i].id,
			    v.osdmap.pools[i].name, v.osdmap.pools[i].pg_num,
			    (unsigned long long)pgs.seen[i]);
	free(pgs.seen);
	counts->osdmap_epoch = v.rec.osdmap_epoch;
	counts->pgmap_version = v.rec.pgmap_version;
	osdmap_clear(&v.osdmap);
	return counts->problems == 0 ? 0 : -1;
}
