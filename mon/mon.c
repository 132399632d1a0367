/*
 * mon.c: making a store (mkfs), cold start, and the monitor's life.
 *
 * Cold start reads, in order: the commit record, the monmap, the full
 * osdmap of the committed epoch, every PG record in one ordered range scan
 * (each decoded straight into its pool's array), and the newest cluster log
 * entries; the derived figures are built as the PGs are placed.  No value
 * read is over KEYS_VALUE_MAX.  Every record is checked: a missing or
 * corrupt one stops the start with its key named.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/keys.h"
#include "mon/mon_priv.h"
#include "mon/mon_quorum.h"

#define MON_PROGRESS_EVERY 8192

void
mon_params_defaults(struct mon_params *p)
{
	p->propose_interval_ms = 20;
	p->propose_max_ops = 65536;
	p->min_epochs = 500;
	p->pg_stale_timeout_ms = 60 * 1000;
	p->pg_stuck_threshold_ms = 60 * 1000;
	p->osd_down_out_interval_ms = 600 * 1000;
	p->osd_heartbeat_grace_ms = 20 * 1000;
	p->osd_min_down_reporters = 2;
	p->osd_reporter_subtree_level = CRUSH_TYPE_HOST;
	p->osd_report_timeout_ms = 900 * 1000;
	p->osd_min_in_ratio = 0.75;
	p->data_size_warn = 15LL << 30;
	p->data_avail_warn = 30;
	p->data_avail_crit = 5;
	p->log_max_entries = 10000;
	p->max_pool_pg_num = 65536;
	p->max_pg_per_osd = 250;
	p->max_pgs = 262144;
	p->max_osd = 10000;
	p->osd_pool_default_pg_num = 32;
	p->osd_pool_default_size = 3;
	p->allow_pool_delete = 0;
	p->allow_pool_size_one = 0;
	p->capacity_interval_ms = 5000;
	p->compress_entries = 1;
}

char *
mon_store_path(const char *data_dir)
{
	char *path;

	xasprintf(&path, "%s/store", data_dir);
	return path;
}

/* Read one record that must exist; a cause names its key. */
static int
mon_get(struct store *s, const void *key, size_t klen, void **val,
    size_t *vlen, const char *what, char **cause)
{
	char *k, *why = NULL;
	int rc;

	rc = store_get(s, key, klen, val, vlen, &why);
	if (rc == 0)
		return 0;
	k = store_key_escape(key, klen);
	if (rc == STORE_NOTFOUND)
		xasprintf(cause, "%s: the %s (key %s) is missing",
		    store_path(s), what, k);
	else
		xasprintf(cause, "%s", why ? why : store_strerror(rc));
	free(k);
	free(why);
	return -1;
}

/* Put the first entities of a store, client.admin and mon., in b. */
static int
mon_mkfs_entities(struct store_batch *b, const uint8_t *admin_key,
    const uint8_t *mon_key, char **cause)
{
	static const char *const names[] = { "client.admin", "mon." };
	struct mon_auth_cap cap = { (char *)"mon", (char *)"allow *" };
	struct mon_auth_entity e;
	struct enc_buf enc = { 0 };
	uint8_t key[KEYS_AUTH_MAX];
	size_t i;

	for (i = 0; i < nitems(names); i++) {
		memset(&e, 0, sizeof e);
		e.name = (char *)names[i];
		e.caps = &cap;
		e.ncaps = 1;
		if (i == 0)
			memcpy(e.key, admin_key, MON_AUTH_KEY_LEN);
		else if (mon_key != NULL)
			memcpy(e.key, mon_key, MON_AUTH_KEY_LEN);
		else if (RAND_bytes(e.key, MON_AUTH_KEY_LEN) != 1) {
			xasprintf(cause,
			    "cannot make the key of mon.: the "
			    "system's random generator failed");
			enc_buf_free(&enc);
			return -1;
		}
		enc_buf_reset(&enc);
		mon_record_auth_encode(&e, &enc);
		OPENSSL_cleanse(e.key, sizeof e.key);
		store_batch_put(b, key, keys_auth(key, e.name), enc.data,
		    enc.len);
	}
	OPENSSL_cleanse(enc.data, enc.len);
	enc_buf_free(&enc);
	return 0;
}

int
mon_mkfs(const char *data_dir, const struct store_options *opts,
    const char *name, const char *addr, char **fsid_out, char **cause)
{
	uint8_t key[MON_AUTH_KEY_LEN];
	int rc;

	if (RAND_bytes(key, sizeof key) != 1) {
		xasprintf(cause,
		    "cannot make the admin key: the system's "
		    "random generator failed");
		return -1;
	}
	rc = mon_mkfs_auth(data_dir, opts, name, addr, key, fsid_out, cause);
	OPENSSL_cleanse(key, sizeof key);
	return rc;
}

/*
 * The store of a new monitor of map mm: the same records from the same
 * map and keys (mon_key NULL: a random one), whichever monitor it is.
 */
static int
mon_mkfs_store(const char *data_dir, const struct store_options *opts,
    const struct monmap *mmp, const uint8_t *admin_key, const uint8_t *mon_key,
    char **cause)
{
	struct store *s;
	struct store_batch *b;
	struct monmap mm;
	struct osdmap om;
	struct osdmap_inc inc;
	struct mon_rec rec;
	struct mon_log_entry e;
	struct enc_buf enc = { 0 };
	uint8_t key[KEYS_LOG_LEN];
	char *path, *why = NULL;
	int rc;

	if (mkdir(data_dir, 0700) == -1 && errno != EEXIST) {
		xasprintf(cause, "%s: %s", data_dir, strerror(errno));
		return -1;
	}
	mm = *mmp;
	path = mon_store_path(data_dir);
	rc = store_open(path, opts, STORE_CREATE, &s, &why);
	free(path);
	if (rc != 0) {
		*cause = why;
		return -1;
	}

	b = store_batch_new();
	monmap_encode(&mm, &enc);
	key[0] = KEYS_MONMAP;
	store_batch_put(b, key, 1, enc.data, enc.len);

	/* Epoch 1: the empty map, made by an empty incremental. */
	osdmap_init(&om);
	om.created = om.modified = mm.created;
	snprintf(om.fsid, sizeof om.fsid, "%s", mm.fsid);
	/* Ceph's first hierarchy: root default, rule replicated_rule. */
	osdmap_set_crush(&om, crush_new_default());
	/* The empty map's 1, and one for the incremental's hierarchy. */
	om.crush_version++;
	osdmap_inc_init(&inc, 1);
	inc.modified = mm.created;
	osdmap_inc_set_crush(&inc, om.crush);
	om.epoch = 1;
	enc_buf_reset(&enc);
	osdmap_encode(&om, &enc);
	keys_epoch(key, KEYS_OSDMAP, 1);
	store_batch_put(b, key, KEYS_EPOCH_LEN, enc.data, enc.len);
	enc_buf_reset(&enc);
	osdmap_inc_encode(&inc, &enc);
	keys_epoch(key, KEYS_OSDMAP_INC, 1);
	store_batch_put(b, key, KEYS_EPOCH_LEN, enc.data, enc.len);

	memset(&e, 0, sizeof e);
	e.seq = 1;
	e.stamp = mm.created;
	e.severity = MON_LOG_INFO;
	if (mm.nmons == 1)
		xasprintf(&e.message, "mkfs %s: monitor %s at %s", mm.fsid,
		    mm.mons[0].name, mm.mons[0].addr);
	else {
		struct enc_buf names = { 0 };
		size_t i;

		for (i = 0; i < mm.nmons; i++) {
			if (i > 0)
				enc_buf_put_bytes(&names, ",", 1);
			enc_buf_put_bytes(&names, mm.mons[i].name,
			    strlen(mm.mons[i].name));
		}
		enc_buf_put_bytes(&names, "", 1);
		xasprintf(&e.message, "mkfs %s: monitors %s", mm.fsid,
		    (const char *)names.data);
		enc_buf_free(&names);
	}
	enc_buf_reset(&enc);
	mon_record_log_encode(&e, &enc);
	free(e.message);
	keys_log(key, 1);
	store_batch_put(b, key, KEYS_LOG_LEN, enc.data, enc.len);

	memset(&rec, 0, sizeof rec);
	rec.osdmap_epoch = rec.osdmap_first = 1;
	rec.log_first = rec.log_last = 1;
	rec.stamp = mm.created;
	enc_buf_reset(&enc);
	mon_record_commit_encode(&rec, &enc);
	key[0] = KEYS_COMMIT;
	store_batch_put(b, key, 1, enc.data, enc.len);

	if (mon_mkfs_entities(b, admin_key, mon_key, cause) == -1) {
		store_batch_free(b);
		enc_buf_free(&enc);
		osdmap_inc_clear(&inc);
		osdmap_clear(&om);
		store_close(s);
		return -1;
	}
	rc = store_commit(s, b, &why);
	store_batch_free(b);
	enc_buf_free(&enc);
	osdmap_inc_clear(&inc);
	osdmap_clear(&om);
	store_close(s);
	if (rc != 0) {
		*cause = why;
		return -1;
	}
	return 0;
}

int
mon_mkfs_auth(const char *data_dir, const struct store_options *opts,
    const char *name, const char *addr, const uint8_t *admin_key,
    char **fsid_out, char **cause)
{
	struct monmap mm;

	if (monmap_create(&mm, name, addr, cause) == -1)
		return -1;
	if (mon_mkfs_store(data_dir, opts, &mm, admin_key, NULL, cause) == -1)
		return -1;
	if (fsid_out != NULL)
		*fsid_out = xstrdup(mm.fsid);
	return 0;
}

int
mon_mkfs_quorum(const char *data_dir, const struct store_options *opts,
    const struct monmap *mm, const uint8_t *admin_key, const uint8_t *mon_key,
    char **cause)
{
	return mon_mkfs_store(data_dir, opts, mm, admin_key, mon_key, cause);
}

/*
 * The PG records into the pools' arrays.  The key range is cut in two at
 * the middle PG and each half is read by its own ordered scan, one on a
 * second thread: a restart is bound by reading and decoding the records
 * (the pages of 100 MB at 221,568 PGs), and both cores share that work.
 * The halves write disjoint seeds.  Each half also counts the derived
 * figures of its PGs into its own tally, while each PG is still in the
 * core's cache (a pass over the 96 MB of stats after the load cost 8 to
 * 15 ms on one core); the tallies are merged once both are done.  Progress
 * is reported from this thread only, from a shared counter.
 */
struct mon_load_part {
	struct mon *m;
	struct pg_stat **arrays;
	uint8_t **seen;
	struct pgmap tally;		/* the figures of this half's PGs */
	uint8_t lo[KEYS_PG_LEN], hi[KEYS_PG_LEN];
	size_t lolen, hilen;
	_Atomic uint64_t *done;
	mon_progress_cb *progress;	/* NULL on the second thread */
	void *parg;
	uint64_t total;
	char *cause;			/* the first problem, or NULL */
};

static void *
mon_load_part_run(void *arg)
{
	struct mon_load_part *lp = arg;
	struct mon *m = lp->m;
	struct store_iter *it;
	struct enc_reader r;
	const void *key, *val;
	size_t klen, vlen, pi = 0;
	uint32_t pool, seed;
	uint64_t n = 0;
	char *why = NULL;
	int rc;

	if ((it = store_iter_new(m->store, lp->lo, lp->lolen, lp->hi,
	    lp->hilen, &why)) == NULL) {
		lp->cause = why;
		return NULL;
	}
	while ((rc = store_iter_next(it, &key, &klen, &val, &vlen)) == 1) {
		if (klen != KEYS_PG_LEN) {
			store_key_corrupt(&lp->cause, store_path(m->store), key,
			    klen, "PG key of the wrong length");
			goto out;
		}
		pool = enc_get_be32((const uint8_t *)key + 1);
		seed = enc_get_be32((const uint8_t *)key + 5);
		/* Records come in key order: pools in id order. */
		while (pi < m->osdmap.npools && m->osdmap.pools[pi].id < pool)
			pi++;
		if (pi == m->osdmap.npools || m->osdmap.pools[pi].id != pool ||
		    seed >= m->osdmap.pools[pi].pg_num) {
			store_key_corrupt(&lp->cause, store_path(m->store), key,
			    klen, "a PG of no pool of the osdmap (or past its "
			    "pg_num)");
			goto out;
		}
		enc_reader_init(&r, val, vlen);
		if (pg_stat_decode(&r, &lp->arrays[pi][seed], &why) == -1 ||
		    r.left != 0 || lp->arrays[pi][seed].pgid.pool != pool ||
		    lp->arrays[pi][seed].pgid.seed != seed) {
			store_key_corrupt(&lp->cause, store_path(m->store), key,
			    klen, "%s", why != NULL ? why :
			    "record does not match its key");
			free(why);
			goto out;
		}
		lp->seen[pi][seed] = 1;
		pgmap_tally_add(&lp->tally, pi, &lp->arrays[pi][seed]);
		if (++n % MON_PROGRESS_EVERY == 0) {
			uint64_t d = atomic_fetch_add(lp->done,
			    MON_PROGRESS_EVERY) + MON_PROGRESS_EVERY;

			if (lp->progress != NULL)
				lp->progress(lp->parg, "pgs", d, lp->total);
		}
	}
	if (rc < 0)
		xasprintf(&lp->cause, "%s: scanning PG records: %s",
		    store_path(m->store), store_iter_cause(it) ?
		    store_iter_cause(it) : store_strerror(rc));
out:
	atomic_fetch_add(lp->done, n % MON_PROGRESS_EVERY);
	store_iter_free(it);
	return NULL;
}

static int
mon_load_pgs(struct mon *m, mon_progress_cb *progress, void *parg,
    char **cause)
{
	struct mon_load_part part[2];
	struct pg_stat **arrays;
	uint8_t **seen;
	uint32_t *ids;
	_Atomic uint64_t done = 0;
	uint64_t total = 0, mid, before;
	size_t i, nparts;
	uint32_t s;
	char pgname[32];
	pthread_t thread;
	int threaded = 0, ret = -1;

	for (i = 0; i < m->osdmap.npools; i++)
		total += m->osdmap.pools[i].pg_num;
	arrays = xcalloc(m->osdmap.npools ? m->osdmap.npools : 1,
	    sizeof *arrays);
	seen = xcalloc(m->osdmap.npools ? m->osdmap.npools : 1,
	    sizeof *seen);
	ids = xcalloc(m->osdmap.npools ? m->osdmap.npools : 1, sizeof *ids);
	for (i = 0; i < m->osdmap.npools; i++) {
		ids[i] = m->osdmap.pools[i].id;
		arrays[i] = xreallocarray(NULL, m->osdmap.pools[i].pg_num,
		    sizeof **arrays);
		seen[i] = xcalloc(m->osdmap.pools[i].pg_num, 1);
	}
	if (progress != NULL)
		progress(parg, "pgs", 0, total);

	memset(part, 0, sizeof part);
	for (i = 0; i < 2; i++) {
		part[i].m = m;
		part[i].arrays = arrays;
		part[i].seen = seen;
		part[i].done = &done;
		part[i].parg = parg;
		part[i].total = total;
		pgmap_tally_init(&part[i].tally, ids, m->osdmap.npools);
	}
	part[0].progress = progress;
	part[0].lo[0] = KEYS_PG;
	part[0].lolen = 1;
	part[1].hi[0] = KEYS_PG + 1;
	part[1].hilen = 1;
	nparts = 1;
	if (total >= 2 * MON_PROGRESS_EVERY) {
		/* Cut at the key of the middle PG. */
		mid = total / 2;
		for (i = 0, before = 0; before + m->osdmap.pools[i].pg_num <=
		    mid; i++)
			before += m->osdmap.pools[i].pg_num;
		keys_pg(part[0].hi, m->osdmap.pools[i].id,
		    (uint32_t)(mid - before));
		part[0].hilen = KEYS_PG_LEN;
		memcpy(part[1].lo, part[0].hi, KEYS_PG_LEN);
		part[1].lolen = KEYS_PG_LEN;
		nparts = 2;
		threaded = pthread_create(&thread, NULL, mon_load_part_run,
		    &part[1]) == 0;
	} else {
		part[0].hi[0] = KEYS_PG + 1;
		part[0].hilen = 1;
	}
	mon_load_part_run(&part[0]);
	if (threaded)
		pthread_join(thread, NULL);
	else if (nparts == 2)
		mon_load_part_run(&part[1]);
	if (part[0].cause != NULL || part[1].cause != NULL) {
		/* The first problem in key order. */
		*cause = part[0].cause != NULL ? part[0].cause : part[1].cause;
		free(part[0].cause != NULL ? part[1].cause : NULL);
		goto out;
	}

	for (i = 0; i < m->osdmap.npools; i++) {
		for (s = 0; s < m->osdmap.pools[i].pg_num; s++) {
			if (seen[i][s])
				continue;
			pg_id_format((struct pg_id){ m->osdmap.pools[i].id, s },
			    pgname, sizeof pgname);
			xasprintf(cause, "%s: PG %s of pool '%s' has no record",
			    store_path(m->store), pgname,
			    m->osdmap.pools[i].name);
			goto out;
		}
	}
	for (i = 0; i < m->osdmap.npools; i++) {
		pgmap_pool_attach(&m->pgmap, m->osdmap.pools[i].id,
		    m->osdmap.pools[i].pg_num, arrays[i]);
		arrays[i] = NULL;
	}
	for (i = 0; i < 2; i++)
		pgmap_tally_merge(&m->pgmap, &part[i].tally);
	if (progress != NULL)
		progress(parg, "pgs", atomic_load(&done), total);
	ret = 0;
out:
	for (i = 0; i < m->osdmap.npools; i++) {
		free(arrays[i]);
		free(seen[i]);
	}
	free(arrays);
	free(seen);
	free(ids);
	for (i = 0; i < 2; i++)
		pgmap_clear(&part[i].tally);
	return ret;
}

/* The newest log_max_entries cluster log entries. */
static int
mon_load_clog(struct mon *m, char **cause)
{
	struct store_iter *it;
	struct mon_log_entry e;
	uint8_t lo[KEYS_LOG_LEN], hi[1] = { KEYS_LOG + 1 };
	const void *key, *val;
	size_t klen, vlen;
	uint64_t first = m->rec.log_first;
	char *why = NULL;
	int rc;

	if (m->rec.log_last >= (uint64_t)m->params.log_max_entries &&
	    m->rec.log_last - (uint64_t)m->params.log_max_entries + 1 > first)
		first = m->rec.log_last - (uint64_t)m->params.log_max_entries +
		    1;
	keys_log(lo, first);
	if ((it = store_iter_new(m->store, lo, sizeof lo, hi, 1, &why)) ==
	    NULL) {
		*cause = why;
		return -1;
	}
	while ((rc = store_iter_next(it, &key, &klen, &val, &vlen)) == 1) {
		if (mon_record_log_decode(val, vlen, &e, &why) == -1 ||
		    klen != KEYS_LOG_LEN ||
		    e.seq != enc_get_be64((const uint8_t *)key + 1)) {
			/* Named before the iterator goes: key is its memory. */
			store_key_corrupt(cause, store_path(m->store), key,
			    klen, "%s", why != NULL ? why :
			    "entry does not match its key");
			free(why);
			store_iter_free(it);
			return -1;
		}
		mon_clog_append(m, &e);
		free(e.message);
	}
	return mon_scan_end(m, it, rc, "the cluster log", cause);
}

int
mon_scan_end(struct mon *m, struct store_iter *it, int rc, const char *what,
    char **cause)
{
	if (rc < 0)
		xasprintf(cause, "%s: scanning %s: %s", store_path(m->store),
		    what,
		    store_iter_cause(it) ? store_iter_cause(it) :
					   store_strerror(rc));
	store_iter_free(it);
	return rc < 0 ? -1 : 0;
}

/*
 * The monitor's worker threads (the committer, the codec thread of
 * mon_quorum.c) are nicer than the loop by MON_THREAD_NICE: on a
 * machine with more busy threads than cores, the loop thread (every reply)
 * then gets a core back sooner when it wakes, while a worker (batched
 * writes, paced by their own acknowledgments) only batches more.  Measured
 * with the committer: status p99 during ingest 5.5 -> 4.0 ms, the same
 * rate (BENCHMARKS.md).
 */
#define MON_THREAD_NICE 5

/*
 * The event loop may run at SCHED_RR ([mon] realtime_priority), and a
 * thread it starts shares that: right for C-Raft's disk I/O, which the
 * loop waits on, and wrong for bulk work, which would take the cores from
 * the monitors' loops.  Such a thread calls this first.
 */
void
mon_thread_normal(const char *thread)
{
	struct sched_param sp;

	if (sched_getscheduler(0) == SCHED_OTHER)
		return;
	memset(&sp, 0, sizeof sp);
	if (sched_setscheduler(0, SCHED_OTHER, &sp) == -1)
		log_warn("%s thread: cannot leave real-time priority", thread);
}

void
mon_renice_thread(const char *thread)
{
	id_t tid = (id_t)syscall(SYS_gettid);
	int was;

	mon_thread_normal(thread);
	errno = 0;
	was = getpriority(PRIO_PROCESS, tid);
	if (errno != 0 ||
	    setpriority(PRIO_PROCESS, tid,
		was + MON_THREAD_NICE > 19 ? 19 : was + MON_THREAD_NICE) == -1)
		log_warn("%s thread: cannot lower its priority", thread);
}

/*
 * The commit pipeline: the loop's events, then the committer thread (which
 * makes its own buffers).  What is made before a failure is freed by
 * mon_pipeline_stop().
 */
static int
mon_pipeline_start(struct mon *m, char **cause)
{
	pthread_condattr_t ca;
	int rc;

	if (mon_apply_init(m, cause) == -1 || mon_stage_init(m, cause) == -1)
		return -1;
	pthread_mutex_init(&m->lock, NULL);
	/* The shutdown waits on it by a deadline of stamp_mono(). */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->cond, &ca);
	pthread_condattr_destroy(&ca);
	if ((rc = pthread_create(&m->thread, NULL, mon_committer_main,
	    m)) != 0) {
		pthread_mutex_destroy(&m->lock);
		pthread_cond_destroy(&m->cond);
		xasprintf(cause, "pthread_create: %s", strerror(rc));
		return -1;
	}
	m->thread_started = 1;
	return 0;
}

/* Commit what is in flight and pending, end the thread, free the events. */
static void
mon_pipeline_stop(struct mon *m)
{
	if (m->thread_started) {
		mon_apply_drain(m, INT64_MAX);
		pthread_mutex_lock(&m->lock);
		m->stopping = 1;
		pthread_cond_broadcast(&m->cond);
		pthread_mutex_unlock(&m->lock);
		pthread_join(m->thread, NULL);
		pthread_mutex_destroy(&m->lock);
		pthread_cond_destroy(&m->cond);
		m->thread_started = 0;
	}
	mon_stage_clear(m);
	mon_apply_clear(m);
}

static void
mon_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mon *m = arg;
	int64_t mono = stamp_mono();

	(void)fd;
	(void)what;
	mon_mark_stale(m, mono);
	mon_live_tick(m, mono, stamp_now());
	mon_proposal_spare_trim(m, mono);
	if (mono - m->disk_checked_mono >= 5 * 1000000LL)
		mon_disk_check(m);
	mon_stage_health(m);
}

/*
 * Read the committed state from m->store into m's empty maps: the commit
 * record, the monmap, the full osdmap of the committed epoch, the PGs, the
 * cluster log, the mutes, the auth entities and the OSDs' capacities.  0,
 * or -1 with *cause naming the record.
 */
static int
mon_load_state(struct mon *m, mon_progress_cb *progress, void *parg,
    char **cause)
{
	uint8_t key[KEYS_EPOCH_LEN];
	void *val;
	size_t vlen;
	char *why = NULL;

	key[0] = KEYS_COMMIT;
	if (mon_get(m->store, key, 1, &val, &vlen, "commit record", cause) ==
	    -1)
		return -1;
	if (mon_record_commit_decode(val, vlen, &m->rec, &why) == -1) {
		free(val);
		store_key_corrupt(cause, store_path(m->store), key, 1, "%s",
		    why);
		free(why);
		return -1;
	}
	free(val);

	key[0] = KEYS_MONMAP;
	if (mon_get(m->store, key, 1, &val, &vlen, "monmap", cause) == -1)
		return -1;
	if (monmap_decode(val, vlen, &m->monmap, &why) == -1) {
		free(val);
		store_key_corrupt(cause, store_path(m->store), key, 1, "%s",
		    why);
		free(why);
		return -1;
	}
	free(val);

	keys_epoch(key, KEYS_OSDMAP, m->rec.osdmap_epoch);
	if (mon_get(m->store, key, sizeof key, &val, &vlen,
		"full osdmap of the "
		"committed epoch",
		cause) == -1)
		return -1;
	if (osdmap_decode(val, vlen, &m->osdmap, &why) == -1 ||
	    m->osdmap.epoch != m->rec.osdmap_epoch) {
		free(val);
		if (why == NULL)
			xasprintf(&why, "holds epoch %u, not %u",
			    m->osdmap.epoch, m->rec.osdmap_epoch);
		store_key_corrupt(cause, store_path(m->store), key, sizeof key,
		    "%s", why);
		free(why);
		return -1;
	}
	free(val);
	m->placement = osdmap_place_new(&m->osdmap);
	osdmap_copy(&m->work, &m->osdmap);

	if (mon_load_pgs(m, progress, parg, cause) == -1)
		return -1;
	m->pgmap.version = m->rec.pgmap_version;
	m->pgmap.stamp = m->rec.stamp;
	if (mon_load_clog(m, cause) == -1 || mon_mute_load(m, cause) == -1)
		return -1;
	if (mon_auth_load(m, cause) == -1)
		return -1;
	if (mon_capacity_load(m, cause) == -1)
		return -1;
	return 0;
}

struct mon *
mon_open(struct event_base *base, struct store *store,
    const struct mon_params *params, mon_progress_cb *progress, void *parg,
    char **cause)
{
	struct mon *m;
	struct timeval tv = { 1, 0 };
	int64_t t0 = stamp_mono();

	m = xcalloc(1, sizeof *m);
	m->base = base;
	m->store = store;
	m->params = *params;
	m->wake_fd = -1;
	osdmap_init(&m->osdmap);
	osdmap_init(&m->work);
	pgmap_init(&m->pgmap);
	m->next_seq = 1;
	m->start_mono = t0;

	if (mon_load_state(m, progress, parg, cause) == -1)
		goto fail;

	if (mon_pipeline_start(m, cause) == -1 || mon_live_init(m, cause) == -1)
		goto fail;
	m->tick = event_new(base, -1, EV_PERSIST, mon_tick_cb, m);
	if (m->tick == NULL || event_add(m->tick, &tv) == -1) {
		xasprintf(cause, "cannot add the monitor's timer");
		goto fail;
	}
	mon_disk_check(m);
	mon_capacity_open(m);
	mon_crush_open(m);
	/* The health of the loaded state is what the log last said. */
	mon_health_eval(m, 0, &m->checks, &m->nchecks);
	log_info("loaded epoch %u, version %llu: %u osds, %zu pools, %llu pgs "
	    "in %lld ms", m->osdmap.epoch,
	    (unsigned long long)m->pgmap.version, m->osdmap.max_osd,
	    m->osdmap.npools, (unsigned long long)m->pgmap.sums.num_pgs,
	    (long long)(stamp_mono() - t0) / 1000);
	return m;
fail:
	m->store = NULL;	/* the caller's on failure */
	mon_free(m);
	return NULL;
}

int
mon_reload(struct mon *m, const char *dir, const struct store_options *opts,
    char **cause)
{
	char *path = xstrdup(store_path(m->store));
	int64_t t0 = stamp_mono();
	/* The entities before: whose key the new store ends (the notify). */
	struct mon_auth_entity *old_auth = m->auth;
	size_t old_nauth = m->nauth;
	int rc;

	/* Nothing in flight: the committer ends, the store is closed. */
	mon_pipeline_stop(m);
	mon_live_clear(m);
	mon_capacity_clear(m);
	osdmap_place_free(m->placement);
	m->placement = NULL;
	osdmap_clear(&m->osdmap);
	osdmap_clear(&m->work);
	pgmap_clear(&m->pgmap);
	mon_health_free(m->checks, m->nchecks);
	m->checks = NULL;
	m->nchecks = 0;
	mon_mute_free(m->mutes, m->nmutes);
	m->mutes = NULL;
	m->nmutes = 0;
	mon_clog_clear(m);
	m->auth = NULL;
	m->nauth = 0;
	mon_auth_clear(m);
	store_close(m->store);
	m->store = NULL;
	osdmap_init(&m->osdmap);
	osdmap_init(&m->work);
	pgmap_init(&m->pgmap);

	/* One atomic exchange: the store is either the old or the new. */
	if (renameat2(AT_FDCWD, dir, AT_FDCWD, path, RENAME_EXCHANGE) == -1) {
		xasprintf(cause, "exchanging %s and %s: %s", dir, path,
		    strerror(errno));
		goto fail;
	}
	if ((rc = store_open(path, opts, 0, &m->store, cause)) != 0)
		goto fail;
	/* The mailbox of the committer to come: empty, not stopping. */
	m->stopping = 0;
	m->to_commit = m->committed = NULL;
	if (mon_load_state(m, NULL, NULL, cause) == -1 ||
	    mon_pipeline_start(m, cause) == -1 || mon_live_init(m, cause) == -1)
		goto fail;
	m->start_mono = stamp_mono();
	mon_disk_check(m);
	mon_capacity_open(m);
	mon_crush_open(m);
	mon_health_eval(m, 0, &m->checks, &m->nchecks);
	log_info("store %s replaced: epoch %u, version %llu: %u osds, %zu "
		 "pools, %llu pgs, loaded in %lld ms",
	    path, m->osdmap.epoch, (unsigned long long)m->pgmap.version,
	    m->osdmap.max_osd, m->osdmap.npools,
	    (unsigned long long)m->pgmap.sums.num_pgs,
	    (long long)(stamp_mono() - t0) / 1000);
	free(path);
	mon_auth_ended_since(m, old_auth, old_nauth);
	if (m->notify != NULL) {
		struct mon_commit_info info;

		/*
		 * No incremental and no PG list leads from the old state
		 * to this one: subscribers hear of the health only, and
		 * the next commits as usual (mapmond(8), SNAPSHOTS); the
		 * sessions of entities the new store removed or gave
		 * another key end.
		 */
		memset(&info, 0, sizeof info);
		info.auth_ended = (const char *const *)m->auth_ended;
		info.nauth_ended = m->nauth_ended;
		m->notify(m->notify_arg, &info);
	}
	mon_auth_ended_clear(m);
	return 0;
fail:
	free(path);
	/* Unusable now (the caller stops): the old entities are freed. */
	mon_auth_ended_since(m, old_auth, old_nauth);
	mon_auth_ended_clear(m);
	return -1;
}

int
mon_stop(struct mon *m, int64_t deadline)
{
	int rc = 0;

	/* Several monitors: what is not committed yet is not waited for. */
	mon_quorum_stop(m);
	if (m->thread_started)
		rc = mon_apply_drain(m, deadline);
	/* The loop may run on (the last answers): nothing new is sealed. */
	m->stopped = 1;
	if (m->tick != NULL)
		event_del(m->tick);
	mon_live_stop(m);
	return rc;
}

void
mon_free(struct mon *m)
{
	if (m == NULL)
		return;
	mon_pipeline_stop(m);
	mon_quorum_clear(m);
	if (m->tick != NULL)
		event_free(m->tick);
	store_close(m->store);
	osdmap_place_free(m->placement);
	osdmap_clear(&m->osdmap);
	osdmap_clear(&m->work);
	pgmap_clear(&m->pgmap);
	mon_health_free(m->checks, m->nchecks);
	mon_mute_free(m->mutes, m->nmutes);
	mon_clog_clear(m);
	mon_auth_clear(m);
	free(m->store_error_text);
	mon_live_clear(m);
	mon_capacity_clear(m);
	free(m);
}

void
mon_set_params(struct mon *m, const struct mon_params *p)
{
	m->params = *p;
	mon_live_poke(m);
	mon_stage_propose(m);
}

void
mon_set_notify(struct mon *m, mon_notify_cb *cb, void *arg)
{
	m->notify = cb;
	m->notify_arg = arg;
}

int
mon_reports_full(const struct mon *m)
{
	return m->pending != NULL &&
	    (int64_t)m->pending->ops >= MON_PENDING_HOLD(m);
}

void
mon_set_room(struct mon *m, mon_room_cb *cb, void *arg)
{
	m->room = cb;
	m->room_arg = arg;
}

const struct monmap *
mon_monmap(const struct mon *m)
{
	return &m->monmap;
}

const struct osdmap *
mon_osdmap(const struct mon *m)
{
	return &m->osdmap;
}

const struct pgmap *
mon_pgmap(const struct mon *m)
{
	return &m->pgmap;
}

struct store *
mon_store(const struct mon *m)
{
	return m->store;
}

uint64_t
mon_pgmap_version(const struct mon *m)
{
	return m->pgmap.version;
}

void
mon_perf(const struct mon *m, struct mon_perf *out)
{
	*out = m->perf;
}

int
mon_check_derived(struct mon *m, char **cause)
{
	struct pgmap fresh;
	char why[256];
	int ok;

	mon_settle(m);
	pgmap_recount(&m->pgmap, &fresh);
	ok = pgmap_figures_equal(&m->pgmap, &fresh, why, sizeof why);
	free(fresh.pools);
	free(fresh.states);
	free(fresh.osd);
	if (!ok) {
		xasprintf(cause, "derived figures differ from a recount: %s",
		    why);
		return -1;
	}
	return mon_capacity_check(m, cause);
}
