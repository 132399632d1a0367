/*
 * test_quorum.c: the core's side of several monitors (mon/mon_quorum.h) on
 * real stores, without the engine: two monitors of one monmap, a leader
 * whose sealed proposals are captured as the engine would take them, and
 * a follower; the captured entries are handed back as committed, in order,
 * to both.  Compiled once per store backend.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "mon/mon.h"
#include "map/statfs.h"
#include "mon/keys.h"
#include "mon/mon_quorum.h"

#ifndef TEST_BACKEND
#define TEST_BACKEND "lmdb"
#endif

#define NMON 2
#define MAX_ENTRIES 256

static char tmpdir[] = "/tmp/test_quorum.XXXXXX";
static char dirs[NMON][256];
static struct event_base *base;
static struct mon *mons[NMON];
static struct mon_params params;

/* The entries the leader proposed, as the engine would hold them. */
static struct {
	uint64_t seq;
	uint8_t *buf;
	size_t len;
} entries[MAX_ENTRIES];
static size_t nentries;
static int refuse_next;

struct answer {
	int done;
	int rc;
	char status[512];
	json_t *data;
};

static void
answer_cb(void *arg, int rc, const char *status, json_t *data)
{
	struct answer *a = arg;

	a->done = 1;
	a->rc = rc;
	snprintf(a->status, sizeof a->status, "%s", status ? status : "");
	a->data = data;
}

/* Proposals handed as several entries. */
static size_t nsplit;

static int
capture(void *arg, uint64_t seq, const struct mon_quorum_part *parts,
    size_t nparts, char **cause)
{
	size_t i;

	(void)arg;
	if (refuse_next) {
		refuse_next = 0;
		xasprintf(cause, "not the leader (test)");
		return -1;
	}
	cr_assert_gt(nparts, 0);
	nsplit += nparts > 1;
	for (i = 0; i < nparts; i++) {
		cr_assert_lt(nentries, MAX_ENTRIES);
		cr_assert_leq(parts[i].len, MON_QUORUM_ENTRY_MAX);
		cr_assert_eq(parts[i].len % 8, 0,
		    "entries are whole 8-byte words");
		entries[nentries].seq = seq;
		entries[nentries].buf = xmalloc(parts[i].len);
		memcpy(entries[nentries].buf, parts[i].buf, parts[i].len);
		entries[nentries].len = parts[i].len;
		nentries++;
	}
	return 0;
}

static void
turn(void)
{
	struct timeval tv = { 0, 5000 };

	event_base_loopexit(base, &tv);
	event_base_loop(base, EVLOOP_ONCE);
}

/* Run the loop for ms milliseconds, whatever comes. */
static void
turn_for(int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	event_base_loopexit(base, &tv);
	event_base_loop(base, 0);
}

static void
wait_for(struct answer *a)
{
	int i;

	for (i = 0; !a->done && i < 4000; i++)
		turn();
	cr_assert(a->done, "no answer within 20 s");
}

/*
 * Turn the loop until the leader proposed an entry past the first
 * `before` (its seal runs on the codec thread, so it may take turns).
 */
static void
wait_proposed(size_t before)
{
	int i;

	for (i = 0; nentries == before && i < 4000; i++)
		turn();
	cr_assert_gt(nentries, before, "no entry proposed within 20 s");
}

/* Turn the loop until both monitors applied entry n. */
static void
wait_applied(uint64_t n)
{
	struct mon_quorum_info in;
	int i, k, all;

	for (i = 0; i < 4000; i++) {
		all = 1;
		for (k = 0; k < NMON; k++) {
			cr_assert_eq(mon_quorum_info(mons[k], &in), 0);
			all &= in.applied_index >= n;
		}
		if (all)
			return;
		turn();
	}
	for (k = 0; k < NMON; k++) {
		mon_quorum_info(mons[k], &in);
		cr_log_error("mon %d: role %d ready %d applied %llu committed "
			     "%llu backlog %llu idle %d",
		    k, (int)in.role, in.ready,
		    (unsigned long long)in.applied_index,
		    (unsigned long long)in.committed_index,
		    (unsigned long long)in.backlog, mon_idle(mons[k]));
	}
	cr_assert_fail("entry %llu not applied by both within 20 s",
	    (unsigned long long)n);
}

static struct store *
open_store(int k)
{
	struct store_options so;
	struct store *s;
	char *path, *cause = NULL;
	int rc;

	store_options_defaults(&so);
	so.backend = TEST_BACKEND;
	so.sync = STORE_SYNC_NONE;
	path = mon_store_path(dirs[k]);
	rc = store_open(path, &so, 0, &s, &cause);
	free(path);
	cr_assert_eq(rc, 0, "store_open: %s", cause ? cause : "?");
	return s;
}

/* Open monitor k with replication on, as a follower of monitor 0. */
static void
open_mon(int k)
{
	char *cause = NULL;

	mons[k] = mon_open(base, open_store(k), &params, NULL, NULL, &cause);
	cr_assert_not_null(mons[k], "mon_open: %s", cause ? cause : "?");
	cr_assert_eq(mon_quorum_enable(mons[k], capture, NULL, &cause), 0, "%s",
	    cause ? cause : "?");
	mon_quorum_set_role(mons[k], MON_QUORUM_FOLLOWER, 1, "a",
	    "127.0.0.1:6788");
}

static void
close_mons(void)
{
	int k;

	for (k = 0; k < NMON; k++) {
		if (mons[k] == NULL)
			continue;
		mon_stop(mons[k], INT64_MAX);
		mon_free(mons[k]);
		mons[k] = NULL;
	}
}

/* Monitor 0 leads, ready. */
static void
lead(void)
{
	mon_quorum_set_role(mons[0], MON_QUORUM_LEADER, 1, "a",
	    "127.0.0.1:6788");
	mon_quorum_leader_ready(mons[0]);
}

/*
 * Hand entries [from, nentries) to both monitors as committed, and wait
 * for them; returns the count handed (more may be proposed meanwhile).
 */
static size_t
commit_all(size_t from)
{
	char *cause = NULL;
	size_t i, n = nentries;
	int k;

	for (i = from; i < n; i++)
		for (k = 0; k < NMON; k++)
			cr_assert_eq(mon_quorum_commit(mons[k], i + 1,
					 entries[i].buf, entries[i].len,
					 &cause),
			    0, "%s", cause ? cause : "?");
	wait_applied(n);
	return n;
}

/* Whether the leader, monitor 0, is encoding a proposal. */
static int
sealing(void)
{
	struct mon_quorum_info in;

	return mon_quorum_info(mons[0], &in) == 0 && in.sealing;
}

/*
 * Be the engine until a is answered: every entry the leader proposes
 * (the health's cluster log lines too) is committed on both, in order;
 * and on until no proposal is being encoded (its entry comes on a later
 * turn, from the codec thread), the entries of all committed.
 */
static void
drive(struct answer *a)
{
	size_t done = 0;
	int i;

	for (i = 0; (!a->done || sealing()) && i < 4000; i++) {
		if (done < nentries)
			done = commit_all(done);
		turn();
	}
	cr_assert(a->done, "no answer within 20 s");
	cr_assert(!sealing(), "a proposal still sealed after 20 s");
	commit_all(done);
}

static void
setup(void)
{
	struct store_options so;
	struct monmap mm;
	uint8_t akey[MON_AUTH_KEY_LEN], mkey[MON_AUTH_KEY_LEN];
	char *cause = NULL;
	int k;

	log_init("test_quorum", 1000);
	cr_assert_not_null(mkdtemp(tmpdir));
	base = event_base_new();
	mon_params_defaults(&params);
	params.propose_interval_ms = 1;
	store_options_defaults(&so);
	so.backend = TEST_BACKEND;
	so.sync = STORE_SYNC_NONE;
	cr_assert_eq(monmap_create(&mm, "a", "127.0.0.1:6788", &cause), 0);
	snprintf(mm.mons[1].name, sizeof mm.mons[1].name, "b");
	snprintf(mm.mons[1].addr, sizeof mm.mons[1].addr, "127.0.0.1:6790");
	snprintf(mm.mons[2].name, sizeof mm.mons[2].name, "c");
	snprintf(mm.mons[2].addr, sizeof mm.mons[2].addr, "127.0.0.1:6792");
	mm.nmons = 3;
	memset(akey, 1, sizeof akey);
	memset(mkey, 2, sizeof mkey);
	for (k = 0; k < NMON; k++) {
		snprintf(dirs[k], sizeof dirs[k], "%s/%c", tmpdir, 'a' + k);
		cr_assert_eq(
		    mon_mkfs_quorum(dirs[k], &so, &mm, akey, mkey, &cause), 0,
		    "mkfs: %s", cause ? cause : "?");
	}
	for (k = 0; k < NMON; k++)
		open_mon(k);
}

static void
teardown(void)
{
	char cmd[300];
	size_t i;

	close_mons();
	for (i = 0; i < nentries; i++)
		free(entries[i].buf);
	nentries = 0;
	nsplit = 0;
	event_base_free(base);
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	(void)!system(cmd);
}

TestSuite(quorum, .init = setup, .fini = teardown, .timeout = 120);

/* Every record of the two stores, compared (the monitors closed). */
static void
assert_stores_equal(void)
{
	struct store *s[NMON];
	struct store_iter *it[NMON];
	const void *key[NMON], *val[NMON];
	size_t klen[NMON], vlen[NMON], n = 0;
	char *cause = NULL;
	int r[NMON], k;

	for (k = 0; k < NMON; k++) {
		s[k] = open_store(k);
		it[k] = store_iter_new(s[k], NULL, 0, NULL, 0, &cause);
		cr_assert_not_null(it[k], "%s", cause ? cause : "?");
	}
	for (;;) {
		for (k = 0; k < NMON; k++)
			r[k] = store_iter_next(it[k], &key[k], &klen[k],
			    &val[k], &vlen[k]);
		cr_assert_eq(r[0], r[1], "record %zu: one store ends first", n);
		if (r[0] != 1)
			break;
		cr_assert(klen[0] == klen[1] &&
			memcmp(key[0], key[1], klen[0]) == 0,
		    "record %zu: different keys", n);
		cr_assert(vlen[0] == vlen[1] &&
			memcmp(val[0], val[1], vlen[0]) == 0,
		    "record %zu: different values", n);
		n++;
	}
	cr_assert_eq(r[0], 0);
	cr_assert_gt(n, 10);
	for (k = 0; k < NMON; k++) {
		store_iter_free(it[k]);
		store_close(s[k]);
	}
}

Test(quorum, the_leaders_entries_make_the_same_store_on_both)
{
	struct answer a = { 0 }, b = { 0 }, c = { 0 };
	const struct osdmap *om;

	lead();
	mon_osd_create(mons[0], -1, answer_cb, &a);
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &b);
	/* Not answered before its entry is committed. */
	wait_proposed(0);
	turn();
	cr_assert(!a.done && !b.done, "answered before the commit");
	drive(&a);
	drive(&b);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	cr_assert_eq(b.rc, 0, "%s", b.status);
	json_decref(a.data);
	json_decref(b.data);

	/* A second commit on top, and its answer. */
	mon_pool_create(mons[0], "two", 8, 0, 0, NULL, answer_cb, &c);
	drive(&c);
	cr_assert_eq(c.rc, 0, "%s", c.status);
	json_decref(c.data);

	/*
	 * A pool's application and a new hierarchy: the follower applies
	 * them from the entry, crush_version counted as the leader counts
	 * it as it seals (the stores compare equal below).
	 */
	memset(&c, 0, sizeof c);
	mon_pool_application(mons[0], 1, "two", "rbd", 0, answer_cb, &c);
	drive(&c);
	cr_assert_eq(c.rc, 0, "%s", c.status);
	json_decref(c.data);
	memset(&c, 0, sizeof c);
	mon_crush_op(mons[0],
	    &(struct mon_crush_req){ .op = MON_CRUSH_ADD_BUCKET,
		.name = "h9",
		.type = "host" },
	    answer_cb, &c);
	drive(&c);
	cr_assert_eq(c.rc, 0, "%s", c.status);
	json_decref(c.data);

	/* The follower has what the leader has, PGs made by itself. */
	om = mon_osdmap(mons[1]);
	cr_assert_eq(om->epoch, mon_osdmap(mons[0])->epoch);
	cr_assert_eq(om->npools, 2);
	cr_assert_eq(om->max_osd, 1);
	cr_assert_str_eq(osdmap_pool_by_name(om, "two")->apps[0], "rbd");
	cr_assert_gt(om->crush_version, 1);
	cr_assert_eq(om->crush_version, mon_osdmap(mons[0])->crush_version);
	close_mons();
	assert_stores_equal();
}

Test(quorum, a_follower_refuses_writes_naming_the_leader)
{
	struct answer a = { 0 };

	mon_pool_create(mons[1], "rbd", 16, 0, 0, NULL, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EAGAIN);
	cr_assert(strstr(a.status, "not the leader: mon.a") != NULL, "%s",
	    a.status);
	cr_assert_str_eq(
	    json_string_value(json_object_get(a.data, "leader_addr")),
	    "127.0.0.1:6788");
	cr_assert(json_is_true(json_object_get(a.data, "retry")));
	json_decref(a.data);
	cr_assert_eq(nentries, 0);
	cr_assert_eq(mon_osdmap(mons[1])->npools, 0);
}

Test(quorum, out_of_quorum_refuses_and_a_new_leader_waits_for_its_barrier)
{
	struct answer a = { 0 }, b = { 0 };

	mon_quorum_set_role(mons[0], MON_QUORUM_NONE, 2, NULL, NULL);
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EAGAIN);
	cr_assert(strstr(a.status, "no quorum") != NULL, "%s", a.status);
	/* Nothing changed: a client may send it again (mapmon-protocol(7)). */
	cr_assert(json_is_true(json_object_get(a.data, "retry")));
	cr_assert_null(json_object_get(a.data, "leader_addr"));
	json_decref(a.data);

	/* Elected, its barrier not back: still refused. */
	mon_quorum_set_role(mons[0], MON_QUORUM_LEADER, 3, "a",
	    "127.0.0.1:6788");
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &b);
	wait_for(&b);
	cr_assert_eq(b.rc, -EAGAIN);
	cr_assert(strstr(b.status, "just elected") != NULL, "%s", b.status);
	cr_assert(json_is_true(json_object_get(b.data, "retry")));
	json_decref(b.data);
	cr_assert_eq(nentries, 0);
}

Test(quorum, a_lost_leadership_answers_outcome_unknown)
{
	struct answer a = { 0 };

	lead();
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &a);
	wait_proposed(0);
	cr_assert_eq(nentries, 1);
	cr_assert(!a.done);
	mon_quorum_failed(mons[0], entries[0].seq, "leadership lost");
	cr_assert(a.done);
	cr_assert_eq(a.rc, -ETIMEDOUT);
	cr_assert(strncmp(a.status, "outcome unknown", 15) == 0, "%s",
	    a.status);
	/* It may still commit under the next leader: then it is applied. */
	mon_quorum_set_role(mons[0], MON_QUORUM_FOLLOWER, 2, "b",
	    "127.0.0.1:6790");
	commit_all(0);
	cr_assert_eq(mon_osdmap(mons[0])->npools, 1);
	cr_assert_eq(mon_osdmap(mons[1])->npools, 1);
}

/*
 * Ceph's idempotent answer ("pool 'rbd' already exists", rc 0) stands on
 * the working state: while what made it is only replicating, it waits
 * for its commit, and a lead lost before that answers no one 0.
 */
Test(quorum, an_idempotent_answer_waits_for_what_it_stands_on)
{
	struct answer a = { 0 }, b = { 0 }, c = { 0 };
	int i;

	lead();
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &a);
	wait_proposed(0);
	cr_assert_eq(nentries, 1);
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &b);
	turn();
	cr_assert(!b.done, "answered %d '%s' before the pool was committed",
	    b.rc, b.status);
	mon_quorum_set_role(mons[0], MON_QUORUM_FOLLOWER, 2, "b",
	    "127.0.0.1:6790");
	cr_assert(a.done && b.done);
	cr_assert_eq(a.rc, -ETIMEDOUT, "%s", a.status);
	cr_assert_neq(b.rc, 0, "the retry was told the pool exists: %s",
	    b.status);
	cr_assert_eq(mon_osdmap(mons[0])->npools, 0);
	/* What the answers carried (a refusal names the leader). */
	json_decref(a.data);
	json_decref(b.data);

	/* Leading again, with the entry lost: the pool is made anew. */
	for (i = 0; i < (int)nentries; i++)
		free(entries[i].buf);
	nentries = 0;
	lead();
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &c);
	drive(&c);
	cr_assert_eq(c.rc, 0, "%s", c.status);
	cr_assert_str_eq(c.status, "pool 'rbd' created");
	cr_assert_eq(mon_osdmap(mons[0])->npools, 1);
	json_decref(c.data);
}

/*
 * An idempotent answer is the ready leader's: a follower, a monitor out
 * of quorum and a leader just elected may be behind (here the follower
 * has not applied the last reweight), and an answer 0 from their state
 * would acknowledge a value that a later write replaced.
 */
Test(quorum, only_the_ready_leader_gives_an_idempotent_answer)
{
	struct answer a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 }, e = { 0 },
		      f = { 0 };
	char *cause = NULL;
	size_t done, i;
	int k;

	lead();
	mon_osd_create(mons[0], -1, answer_cb, &a);
	drive(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	json_decref(a.data);
	mon_osd_reweight(mons[0], 0, 0.5, answer_cb, &b);
	drive(&b);
	cr_assert_eq(b.rc, 0, "%s", b.status);
	json_decref(b.data);
	/* 0.25 committed and applied on the leader only: the follower trails. */
	done = nentries;
	mon_osd_reweight(mons[0], 0, 0.25, answer_cb, &c);
	for (k = 0; !c.done && k < 4000; k++) {
		for (i = done; i < nentries; i++)
			cr_assert_eq(mon_quorum_commit(mons[0], i + 1,
					 entries[i].buf, entries[i].len,
					 &cause),
			    0, "%s", cause ? cause : "?");
		done = nentries;
		turn();
	}
	cr_assert(c.done);
	cr_assert_eq(c.rc, 0, "%s", c.status);
	json_decref(c.data);
	cr_assert_eq(osdmap_osd(mon_osdmap(mons[0]), 0)->reweight, 0x4000);
	cr_assert_eq(osdmap_osd(mon_osdmap(mons[1]), 0)->reweight, 0x8000);

	mon_osd_reweight(mons[1], 0, 0.5, answer_cb, &d);
	wait_for(&d);
	cr_assert_eq(d.rc, -EAGAIN,
	    "the follower answered %d '%s' from its "
	    "state",
	    d.rc, d.status);
	cr_assert(strstr(d.status, "not the leader: mon.a") != NULL, "%s",
	    d.status);
	json_decref(d.data);

	mon_quorum_set_role(mons[1], MON_QUORUM_NONE, 2, NULL, NULL);
	mon_osd_reweight(mons[1], 0, 0.5, answer_cb, &e);
	wait_for(&e);
	cr_assert_eq(e.rc, -EAGAIN, "out of quorum, it answered %d '%s'", e.rc,
	    e.status);
	cr_assert(strstr(e.status, "no quorum") != NULL, "%s", e.status);
	json_decref(e.data);

	/* Elected, the log of the earlier term not applied: refused too. */
	mon_quorum_set_role(mons[1], MON_QUORUM_LEADER, 3, "b",
	    "127.0.0.1:6790");
	mon_osd_reweight(mons[1], 0, 0.5, answer_cb, &f);
	wait_for(&f);
	cr_assert_eq(f.rc, -EAGAIN, "just elected, it answered %d '%s'", f.rc,
	    f.status);
	cr_assert(strstr(f.status, "just elected") != NULL, "%s", f.status);
	json_decref(f.data);
	cr_assert_eq(nentries, done, "a refused write proposed nothing");
}

Test(quorum, a_refused_proposal_is_answered_and_changes_nothing)
{
	struct answer a = { 0 }, b = { 0 };

	lead();
	refuse_next = 1;
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &a);
	wait_for(&a);
	cr_assert_eq(a.rc, -EAGAIN);
	cr_assert(strstr(a.status, "not the leader (test)") != NULL, "%s",
	    a.status);
	cr_assert(json_is_true(json_object_get(a.data, "retry")));
	json_decref(a.data);
	/* The working map forgot it: the same pool is made again. */
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &b);
	drive(&b);
	cr_assert_eq(b.rc, 0, "%s", b.status);
	json_decref(b.data);
}

Test(quorum, a_restart_skips_what_the_store_holds)
{
	struct answer a = { 0 };
	struct mon_quorum_info in;
	char *cause = NULL;
	uint32_t epoch;

	lead();
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &a);
	drive(&a);
	json_decref(a.data);
	epoch = mon_osdmap(mons[1])->epoch;
	close_mons();

	/* The engine applies the whole log again after a start. */
	open_mon(0);
	open_mon(1);
	cr_assert_eq(mon_quorum_info(mons[1], &in), 0);
	cr_assert_eq(in.applied_index, nentries);
	commit_all(0);
	cr_assert_eq(mon_osdmap(mons[1])->epoch, epoch);
	cr_assert_eq(mon_osdmap(mons[1])->npools, 1);

	/* Not a mapmon entry: refused, nothing queued. */
	cr_assert_eq(
	    mon_quorum_commit(mons[1], nentries + 1, "garbage!", 8, &cause),
	    -1);
	cr_assert(strstr(cause, "not a mapmon entry") != NULL, "%s", cause);
	free(cause);
}

/* Hand entries [from, nentries) to monitor k only, as committed. */
static size_t
commit_to(int k, size_t from)
{
	char *cause = NULL;
	size_t i, n = nentries;

	for (i = from; i < n; i++)
		cr_assert_eq(mon_quorum_commit(mons[k], i + 1, entries[i].buf,
				 entries[i].len, &cause),
		    0, "%s", cause ? cause : "?");
	return n;
}

/* Propose a pool on the leader and wait until its entry is captured. */
static void
propose_pool(const char *name, struct answer *a)
{
	size_t before = nentries;

	mon_pool_create(mons[0], name, 8, 0, 0, NULL, answer_cb, a);
	wait_proposed(before);
}

Test(quorum, a_snapshot_is_a_descriptor_and_a_restart_restores_it_as_is)
{
	struct answer a = { 0 };
	uint64_t index, from;
	uint8_t *desc;
	void *p;
	size_t len;
	char *cause = NULL;

	lead();
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &a);
	drive(&a);
	json_decref(a.data);

	/* Everything is in the store: the descriptor is a few words. */
	cr_assert_eq(mon_quorum_snapshot(mons[0], nentries, &p, &len, &cause),
	    0, "%s", cause ? cause : "?");
	desc = p;
	cr_assert_leq(len, 80);
	cr_assert_eq(len % 8, 0);
	cr_assert_eq(memcmp(desc, "MQS1", 4), 0);

	/* An entry that is neither applied nor held cannot be covered. */
	cr_assert_eq(
	    mon_quorum_snapshot(mons[0], nentries + 1, &p, &len, &cause), -1);
	cr_assert(strstr(cause, "neither applied nor held") != NULL, "%s",
	    cause);
	free(cause);
	cause = NULL;

	/* A monitor that has the entry restores it as a no-op. */
	cr_assert_eq(
	    mon_quorum_restore(mons[1], desc, len, &index, &from, &cause), 0,
	    "%s", cause ? cause : "?");
	cr_assert_eq(index, nentries);
	cr_assert_eq(from, nentries);
	cr_assert_eq(mon_quorum_syncing(mons[1], NULL), 0);

	/* Another cluster's, or not a descriptor: refused. */
	desc[8] ^= 1;
	cr_assert_eq(
	    mon_quorum_restore(mons[1], desc, len, &index, &from, &cause), -1);
	cr_assert(strstr(cause, "snapshot of cluster") != NULL, "%s", cause);
	free(cause);
	cause = NULL;
	desc[0] = 'X';
	cr_assert_eq(
	    mon_quorum_restore(mons[1], desc, len, &index, &from, &cause), -1);
	cr_assert(strstr(cause, "not a mapmon snapshot") != NULL, "%s", cause);
	free(cause);
	cause = NULL;
	cr_assert_eq(
	    mon_quorum_restore(mons[1], desc, 12, &index, &from, &cause), -1);
	free(cause);
	free(desc);
}

Test(quorum, a_restore_applies_the_entries_the_descriptor_carries)
{
	struct answer a = { 0 }, c = { 0 };
	uint64_t index, from;
	size_t n1, n2;
	void *desc;
	size_t len;
	char *cause = NULL;

	lead();
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &a);
	drive(&a);
	json_decref(a.data);
	n1 = nentries;

	/* Committed on the leader, not yet in its store: carried. */
	propose_pool("two", &c);
	n2 = commit_to(0, n1);
	cr_assert_eq(mon_quorum_snapshot(mons[0], n2, &desc, &len, &cause), 0,
	    "%s", cause ? cause : "?");
	cr_assert_gt(len, 64, "the entries are not in the descriptor");

	/* The follower never got them as entries: the descriptor has them. */
	cr_assert_eq(
	    mon_quorum_restore(mons[1], desc, len, &index, &from, &cause), 0,
	    "%s", cause ? cause : "?");
	free(desc);
	cr_assert_eq(index, n2);
	cr_assert_eq(from, n1);
	wait_for(&c);
	cr_assert_eq(c.rc, 0, "%s", c.status);
	json_decref(c.data);
	wait_applied(n2);
	cr_assert_eq(mon_osdmap(mons[1])->npools, 2);
	close_mons();
	assert_stores_equal();
}

Test(quorum, a_store_behind_the_snapshot_is_replaced_by_a_copy)
{
	struct answer a = { 0 }, c = { 0 };
	struct store_options so;
	struct store *copy;
	struct mon_quorum_info in;
	uint64_t index, from, awaited;
	size_t n1, n2;
	void *desc;
	size_t len;
	char copydir[300], *cause = NULL;
	int i;

	lead();
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &a);
	drive(&a);
	json_decref(a.data);
	n1 = nentries;

	/* The follower misses an entry the leader applies. */
	propose_pool("two", &c);
	n2 = commit_to(0, n1);
	wait_for(&c);
	json_decref(c.data);
	for (i = 0; i < 4000; i++) {
		cr_assert_eq(mon_quorum_info(mons[0], &in), 0);
		if (in.applied_index >= n2)
			break;
		turn();
	}
	cr_assert_eq(mon_quorum_snapshot(mons[0], n2, &desc, &len, &cause), 0,
	    "%s", cause ? cause : "?");

	/* Its store is behind the descriptor: it waits for a copy. */
	cr_assert_eq(
	    mon_quorum_restore(mons[1], desc, len, &index, &from, &cause), 1,
	    "%s", cause ? cause : "?");
	free(desc);
	cr_assert_eq(from, n2);
	cr_assert_eq(mon_quorum_syncing(mons[1], &awaited), 1);
	cr_assert_eq(awaited, n2);

	/* A copy of the leader's store, put in place and reloaded. */
	store_options_defaults(&so);
	so.backend = TEST_BACKEND;
	so.sync = STORE_SYNC_NONE;
	snprintf(copydir, sizeof copydir, "%s/copy", tmpdir);
	cr_assert_eq(store_open(copydir, &so, STORE_CREATE, &copy, &cause), 0,
	    "%s", cause ? cause : "?");
	cr_assert_eq(store_copy(mon_store(mons[0]), copy, NULL, NULL, &cause),
	    0, "%s", cause ? cause : "?");
	store_close(copy);
	cr_assert_eq(mon_quorum_synced(mons[1], copydir, &so, &cause), 0, "%s",
	    cause ? cause : "?");
	cr_assert_eq(mon_quorum_syncing(mons[1], NULL), 0);
	cr_assert_eq(mon_quorum_info(mons[1], &in), 0);
	cr_assert_eq(in.applied_index, n2);
	cr_assert_eq(in.syncs, 1);
	cr_assert_eq(mon_osdmap(mons[1])->npools, 2);
	cr_assert_eq(mon_osdmap(mons[1])->epoch, mon_osdmap(mons[0])->epoch);

	/* Entries after it apply on top, on both. */
	memset(&c, 0, sizeof c);
	mon_pool_create(mons[0], "three", 8, 0, 0, NULL, answer_cb, &c);
	drive(&c);
	cr_assert_eq(c.rc, 0, "%s", c.status);
	json_decref(c.data);
	cr_assert_eq(mon_osdmap(mons[1])->npools, 3);
	close_mons();
	assert_stores_equal();
}

/*
 * Big proposals: a pool of 65,536 PGs and an OSD booting under them, whose
 * commit re-places every PG (each PG's stat, some 50 bytes, goes in the
 * entry: 3 MiB, three parts and more).  Returns the index (0-based) of the
 * boot's first entry, once some are captured (not committed); *a answers
 * the boot.
 */
static size_t
boot_under_big_pool(struct answer *a, int compress)
{
	struct answer c = { 0 }, p = { 0 };
	size_t first;
	int k;

	params.max_pg_per_osd = 1000000;
	params.compress_entries = compress;
	for (k = 0; k < NMON; k++)
		mon_set_params(mons[k], &params);
	lead();
	mon_osd_create(mons[0], -1, answer_cb, &c);
	drive(&c);
	cr_assert_eq(c.rc, 0, "%s", c.status);
	json_decref(c.data);
	mon_pool_create(mons[0], "big", 65536, 0, 0, NULL, answer_cb, &p);
	drive(&p);
	cr_assert_eq(p.rc, 0, "%s", p.status);
	json_decref(p.data);
	first = nentries;
	mon_osd_boot(mons[0], 0, "127.0.0.1:6800", answer_cb, a);
	wait_proposed(first);
	return first;
}

/*
 * That boot uncompressed: far over MON_QUORUM_ENTRY_MAX, so it goes as
 * several parts (compressed, it would fit one entry).
 */
static size_t
propose_big_boot(struct answer *a)
{
	size_t first = boot_under_big_pool(a, 0);
	int i;

	cr_assert_eq(nsplit, 1, "the boot was not split (%zu entries)",
	    nentries - first);
	cr_assert_geq(nentries - first, 3, "%zu parts", nentries - first);
	for (i = (int)first; i < (int)nentries; i++)
		cr_assert_eq(memcmp(entries[i].buf, "MQP1", 4), 0);
	return first;
}

static size_t
quorum_stat(int k, int what)
{
	struct mon_quorum_info in;

	cr_assert_eq(mon_quorum_info(mons[k], &in), 0);
	return what == 0 ? in.applied_index :
	    what == 1	 ? in.committed_index :
	    what == 2	 ? in.parts_dropped :
			   in.proposals_split;
}

Test(quorum, a_proposal_over_the_entry_limit_goes_in_parts_applied_once)
{
	struct answer a = { 0 };
	size_t first, n;
	int k;

	first = propose_big_boot(&a);
	n = nentries;
	/* All parts but the last: nothing applied, the writer waits. */
	for (k = 0; k < NMON; k++)
		for (size_t i = first; i + 1 < n; i++)
			cr_assert_eq(mon_quorum_commit(mons[k], i + 1,
					 entries[i].buf, entries[i].len, NULL),
			    0);
	for (int i = 0; i < 20; i++)
		turn();
	cr_assert(!a.done, "answered before its last part");
	for (k = 0; k < NMON; k++) {
		cr_assert_eq(quorum_stat(k, 0), first);
		cr_assert_eq(quorum_stat(k, 1), n - 1);
		cr_assert_eq(mon_osdmap(mons[k])->osds[0].up, 0);
	}
	/* The last part: applied once, as one commit, on both. */
	commit_all(n - 1);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	json_decref(a.data);
	for (k = 0; k < NMON; k++) {
		cr_assert_eq(quorum_stat(k, 0), n);
		cr_assert_neq(mon_osdmap(mons[k])->osds[0].up, 0);
		cr_assert_eq(mon_osdmap(mons[k])->epoch,
		    mon_osdmap(mons[0])->epoch);
	}
	cr_assert_eq(quorum_stat(0, 3), 1);
	close_mons();
	assert_stores_equal();
}

/*
 * The same boot compressed (the default): one entry, "MQZ1", far smaller
 * than the parts it would be, which the follower decompresses to the
 * leader's store.
 */
Test(quorum, a_big_proposal_goes_compressed_and_applies_alike)
{
	struct answer a = { 0 };
	struct mon_quorum_info in;
	size_t first;
	int k;

	first = boot_under_big_pool(&a, 1);
	cr_assert_eq(nentries - first, 1, "the boot is %zu entries",
	    nentries - first);
	cr_assert_eq(memcmp(entries[first].buf, "MQZ1", 4), 0);
	cr_assert_eq(mon_quorum_info(mons[0], &in), 0);
	cr_assert_gt(in.entry_raw_bytes_total, 8 * in.entry_bytes_total,
	    "%llu bytes for %llu before compression",
	    (unsigned long long)in.entry_bytes_total,
	    (unsigned long long)in.entry_raw_bytes_total);
	cr_assert_lt(entries[first].len, 1024 * 1024);
	commit_all(first);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	json_decref(a.data);
	for (k = 0; k < NMON; k++) {
		cr_assert_eq(quorum_stat(k, 0), first + 1);
		cr_assert_neq(mon_osdmap(mons[k])->osds[0].up, 0);
		cr_assert_eq(mon_osdmap(mons[k])->epoch,
		    mon_osdmap(mons[0])->epoch);
	}
	close_mons();
	assert_stores_equal();
}

/*
 * A follower decodes another monitor's large entry on its codec thread
 * and ends with the same store; the leader applies its own entry without
 * decoding.
 */
Test(quorum, a_follower_decodes_a_large_entry_on_its_codec_thread)
{
	struct answer a = { 0 };
	struct mon_quorum_info in;
	size_t first;
	int k;

	first = boot_under_big_pool(&a, 1);
	cr_assert_eq(nentries - first, 1);
	commit_all(first);
	wait_for(&a);
	cr_assert_eq(a.rc, 0, "%s", a.status);
	json_decref(a.data);
	wait_applied(first + 1);
	for (k = 0; k < NMON; k++)
		cr_assert_neq(mon_osdmap(mons[k])->osds[0].up, 0);
	cr_assert_eq(mon_quorum_info(mons[1], &in), 0);
	/* The pool's creation and the boot that re-places its PGs. */
	cr_assert_geq(in.decodes, 2, "%llu decodes",
	    (unsigned long long)in.decodes);
	cr_assert_gt(in.decode_us, 0);
	cr_assert_eq(mon_quorum_info(mons[0], &in), 0);
	cr_assert_eq(in.decodes, 0);
	close_mons();
	assert_stores_equal();
}

Test(quorum, a_restart_between_parts_rebuilds_them_from_the_log)
{
	struct answer a = { 0 };
	uint64_t index, from;
	size_t first, n;
	void *desc;
	size_t len;
	char *cause = NULL;
	uint32_t epoch;

	first = propose_big_boot(&a);
	n = nentries;
	epoch = mon_osdmap(mons[0])->epoch;
	/* Two parts committed on both; the follower takes a snapshot. */
	for (int k = 0; k < NMON; k++)
		for (size_t i = first; i < first + 2; i++)
			cr_assert_eq(mon_quorum_commit(mons[k], i + 1,
					 entries[i].buf, entries[i].len, NULL),
			    0);
	for (int i = 0; i < 20; i++)
		turn();
	cr_assert_eq(
	    mon_quorum_snapshot(mons[1], first + 2, &desc, &len, &cause), 0,
	    "%s", cause ? cause : "?");
	cr_assert_gt(len, 2 * (MON_QUORUM_ENTRY_MAX - 64),
	    "the descriptor lacks the parts: %zu bytes", len);
	close_mons();
	cr_assert(a.done);
	cr_assert_eq(a.rc, -ETIMEDOUT, "%s", a.status);

	/*
	 * The leader replays its log; the follower restores the snapshot
	 * (the parts not in its store), then the rest comes.
	 */
	open_mon(0);
	open_mon(1);
	cr_assert_eq(quorum_stat(1, 0), first);
	cr_assert_eq(
	    mon_quorum_restore(mons[1], desc, len, &index, &from, &cause), 0,
	    "%s", cause ? cause : "?");
	free(desc);
	cr_assert_eq(index, first + 2);
	cr_assert_eq(from, first);
	commit_to(0, 0);
	for (size_t i = first + 2; i < n; i++)
		cr_assert_eq(mon_quorum_commit(mons[1], i + 1, entries[i].buf,
				 entries[i].len, NULL),
		    0);
	wait_applied(n);
	for (int k = 0; k < NMON; k++) {
		cr_assert_eq(mon_osdmap(mons[k])->epoch, epoch + 1);
		cr_assert_neq(mon_osdmap(mons[k])->osds[0].up, 0);
	}
	close_mons();
	assert_stores_equal();
}

Test(quorum, parts_a_lost_leader_never_completed_are_dropped_on_all)
{
	struct answer a = { 0 }, b = { 0 };
	size_t first, i;
	uint32_t epoch;
	int k;

	first = propose_big_boot(&a);
	epoch = mon_osdmap(mons[0])->epoch;
	/* Two parts commit; the leader goes; the rest never will. */
	for (k = 0; k < NMON; k++)
		for (i = first; i < first + 2; i++)
			cr_assert_eq(mon_quorum_commit(mons[k], i + 1,
					 entries[i].buf, entries[i].len, NULL),
			    0);
	for (i = 0; i < 20; i++)
		turn();
	mon_quorum_set_role(mons[0], MON_QUORUM_FOLLOWER, 2, "b",
	    "127.0.0.1:6790");
	cr_assert(a.done);
	cr_assert_eq(a.rc, -ETIMEDOUT, "%s", a.status);
	for (i = first + 2; i < nentries; i++)
		free(entries[i].buf);
	nentries = first + 2;

	/* The new leader takes writes with the parts waiting before it. */
	mon_quorum_set_role(mons[1], MON_QUORUM_LEADER, 2, "b",
	    "127.0.0.1:6790");
	mon_quorum_leader_ready(mons[1]);
	mon_pool_create(mons[1], "after", 8, 0, 0, NULL, answer_cb, &b);
	wait_proposed(first + 2);
	for (i = 0; !b.done && i < 100; i++)
		commit_all(first + 2);
	wait_for(&b);
	cr_assert_eq(b.rc, 0, "%s", b.status);
	json_decref(b.data);
	for (k = 0; k < NMON; k++) {
		cr_assert_eq(quorum_stat(k, 2), 2, "mon %d dropped %zu", k,
		    quorum_stat(k, 2));
		cr_assert_eq(quorum_stat(k, 0), nentries);
		cr_assert_eq(mon_osdmap(mons[k])->epoch, epoch + 1);
		cr_assert_eq(mon_osdmap(mons[k])->osds[0].up, 0);
		cr_assert_eq(mon_osdmap(mons[k])->npools, 2);
	}
	close_mons();
	assert_stores_equal();

	/* A restart drops them again, alike: the stores stay equal. */
	open_mon(0);
	open_mon(1);
	commit_all(0);
	close_mons();
	assert_stores_equal();
}

Test(quorum, a_bad_part_entry_is_refused)
{
	struct answer a = { 0 };
	uint8_t *bad;
	size_t first;
	char *cause = NULL;

	first = propose_big_boot(&a);
	bad = xmalloc(entries[first].len);
	memcpy(bad, entries[first].buf, entries[first].len);
	bad[39] = 9; /* 9 parts, for a proposal of fewer bytes */
	cr_assert_eq(mon_quorum_commit(mons[1], first + 1, bad,
			 entries[first].len, &cause),
	    -1);
	cr_assert(strstr(cause, "part 1 of") != NULL, "%s", cause);
	free(cause);
	cause = NULL;
	cr_assert_eq(mon_quorum_commit(mons[1], first + 1, bad, 40, &cause),
	    -1);
	cr_assert(strstr(cause, "truncated") != NULL, "%s", cause);
	free(cause);
	free(bad);
	mon_quorum_set_role(mons[0], MON_QUORUM_FOLLOWER, 2, "b",
	    "127.0.0.1:6790");
}

/*
 * Entries committed while the copy is fetched wait; those the copy does
 * not hold apply on top of it once it is in place (the copy is older than
 * the newest committed entry: the provider had not applied them yet).
 */
Test(quorum, entries_committed_during_a_copy_apply_on_top_of_it)
{
	struct answer a = { 0 }, c = { 0 }, d = { 0 };
	struct store_options so;
	struct store *copy;
	struct mon_quorum_info in;
	uint64_t index, from;
	size_t n1, n2, n3;
	void *desc;
	size_t len;
	char copydir[300], *cause = NULL;
	int i;

	lead();
	mon_pool_create(mons[0], "rbd", 16, 0, 0, NULL, answer_cb, &a);
	drive(&a);
	json_decref(a.data);
	n1 = nentries;
	propose_pool("two", &c);
	n2 = commit_to(0, n1);
	wait_for(&c);
	json_decref(c.data);
	for (i = 0; i < 4000; i++) {
		cr_assert_eq(mon_quorum_info(mons[0], &in), 0);
		if (in.applied_index >= n2)
			break;
		turn();
	}
	cr_assert_eq(mon_quorum_snapshot(mons[0], n2, &desc, &len, &cause), 0,
	    "%s", cause ? cause : "?");
	cr_assert_eq(
	    mon_quorum_restore(mons[1], desc, len, &index, &from, &cause), 1,
	    "%s", cause ? cause : "?");
	free(desc);

	/* The copy: the leader's store now, at entry n2. */
	store_options_defaults(&so);
	so.backend = TEST_BACKEND;
	so.sync = STORE_SYNC_NONE;
	snprintf(copydir, sizeof copydir, "%s/copy", tmpdir);
	cr_assert_eq(store_open(copydir, &so, STORE_CREATE, &copy, &cause), 0,
	    "%s", cause ? cause : "?");
	cr_assert_eq(store_copy(mon_store(mons[0]), copy, NULL, NULL, &cause),
	    0, "%s", cause ? cause : "?");
	store_close(copy);

	/* Meanwhile more entries commit, on both: the follower queues them. */
	propose_pool("three", &d);
	n3 = commit_to(0, n2);
	commit_to(1, n2);
	wait_for(&d);
	json_decref(d.data);
	for (i = 0; i < 20; i++)
		turn();
	cr_assert_eq(mon_osdmap(mons[1])->npools, 1,
	    "applied while syncing: %u", mon_osdmap(mons[1])->npools);

	cr_assert_eq(mon_quorum_synced(mons[1], copydir, &so, &cause), 0, "%s",
	    cause ? cause : "?");
	wait_applied(n3);
	cr_assert_eq(mon_osdmap(mons[1])->npools, 3);
	cr_assert_eq(mon_osdmap(mons[1])->epoch, mon_osdmap(mons[0])->epoch);

	memset(&c, 0, sizeof c);
	mon_pool_create(mons[0], "four", 8, 0, 0, NULL, answer_cb, &c);
	drive(&c);
	cr_assert_eq(c.rc, 0, "%s", c.status);
	json_decref(c.data);
	cr_assert_eq(mon_osdmap(mons[1])->npools, 4);
	close_mons();
	assert_stores_equal();
}

/* Write a on the leader and be the engine until it is answered, rc 0. */
static void
drive_ok(struct answer *a)
{
	drive(a);
	cr_assert_eq(a->rc, 0, "%s", a->status);
	json_decref(a->data);
	memset(a, 0, sizeof *a);
}

/* The `df' of monitor k, as text (the caller frees it). */
static char *
df_text(int k)
{
	json_t *df = mon_df_json(mons[k]);
	char *s = json_dumps(df, JSON_SORT_KEYS | JSON_COMPACT);

	json_decref(df);
	return s;
}

static uint64_t
df_total(int k)
{
	json_t *df = mon_df_json(mons[k]);
	uint64_t total = (uint64_t)json_integer_value(
	    json_object_get(json_object_get(df, "stats"), "total_bytes"));

	json_decref(df);
	return total;
}

/* Be the engine until the follower's `df' says total bytes. */
static void
drive_until_total(uint64_t total)
{
	size_t done = 0;
	int i;

	for (i = 0; df_total(1) != total && i < 4000; i++) {
		if (done < nentries)
			done = commit_all(done);
		turn();
	}
	cr_assert_eq(df_total(1), total, "the follower's df: %llu bytes",
	    (unsigned long long)df_total(1));
	commit_all(done);
}

/*
 * Issue 18: the OSDs' capacity, which only the leader's beacons give, is
 * carried by commits to the follower and into both stores; a restarted
 * follower has it at once, and an OSD's removal takes it everywhere.
 */
Test(quorum, the_capacity_of_the_leaders_beacons_is_on_every_monitor)
{
	struct statfs_osd st = { .total = 1000ULL << 30,
		.used = 100ULL << 30,
		.avail = 900ULL << 30 };
	struct answer a = { 0 };
	char *t0, *t1;
	int32_t id = 1;
	int k;

	params.capacity_interval_ms = 50;
	for (k = 0; k < NMON; k++)
		mon_set_params(mons[k], &params);
	lead();
	for (k = 0; k < 2; k++) {
		mon_osd_create(mons[0], -1, answer_cb, &a);
		drive_ok(&a);
		mon_osd_boot(mons[0], k, "127.0.0.1:6800", answer_cb, &a);
		drive_ok(&a);
	}

	/* Nothing else commits: the capacity timer's commit carries it. */
	mon_osd_beacon(mons[0], 0, &st, answer_cb, &a);
	cr_assert(a.done && a.rc == 0, "%s", a.status);
	memset(&a, 0, sizeof a);
	cr_assert_eq(df_total(0), st.total, "the leader counts it at once");
	cr_assert_eq(df_total(1), 0);
	drive_until_total(st.total);

	/* Another change goes with the next commit, a pool's here. */
	st.used = st.total - st.avail;
	mon_osd_beacon(mons[0], 1, &st, answer_cb, &a);
	memset(&a, 0, sizeof a);
	mon_pool_create(mons[0], "rbd", 8, 0, 0, NULL, answer_cb, &a);
	drive_ok(&a);
	cr_assert_eq(df_total(1), 2 * st.total);
	t0 = df_text(0);
	t1 = df_text(1);
	cr_assert_str_eq(t1, t0);
	free(t1);

	/* A restarted follower has it from its store. */
	mon_stop(mons[1], INT64_MAX);
	mon_free(mons[1]);
	open_mon(1);
	t1 = df_text(1);
	cr_assert_str_eq(t1, t0, "after a restart: %s", t1);
	free(t0);
	free(t1);

	/* A leader that steps down forgets what no commit carried. */
	st.avail /= 2;
	st.used = st.total - st.avail;
	mon_osd_beacon(mons[0], 0, &st, answer_cb, &a);
	memset(&a, 0, sizeof a);
	t0 = df_text(0);
	t1 = df_text(1);
	cr_assert_str_neq(t0, t1, "the beacon did not count on the leader");
	free(t0);
	free(t1);
	mon_quorum_set_role(mons[0], MON_QUORUM_FOLLOWER, 2, "b",
	    "127.0.0.1:6790");
	t0 = df_text(0);
	t1 = df_text(1);
	cr_assert_str_eq(t0, t1, "the stepped-down leader: %s", t0);
	free(t0);
	free(t1);
	lead();

	/* A removed OSD's capacity is gone everywhere, its record too. */
	mon_osd_down(mons[0], &id, 1, answer_cb, &a);
	drive_ok(&a);
	mon_osd_rm(mons[0], &id, 1, answer_cb, &a);
	drive_ok(&a);
	for (k = 0; k < NMON; k++)
		cr_assert_eq(df_total(k), st.total, "monitor %d", k);
	close_mons();
	assert_stores_equal();
	{
		struct store *s = open_store(1);
		uint8_t key[KEYS_STATFS_LEN];
		void *val;
		size_t vlen;
		char *cause = NULL;

		keys_statfs(key, 1);
		cr_assert_eq(store_get(s, key, sizeof key, &val, &vlen, &cause),
		    STORE_NOTFOUND);
		keys_statfs(key, 0);
		cr_assert_eq(store_get(s, key, sizeof key, &val, &vlen, &cause),
		    0, "%s", cause ? cause : "?");
		free(val);
		store_close(s);
	}
}

/* The MON_DOWN summary monitor k's health gives, or "" (none). */
static void
mon_down_of(int k, char *out, size_t len)
{
	json_t *h = mon_health_json(mons[k], 0), *sum;

	sum = json_object_get(
	    json_object_get(json_object_get(h, "checks"), "MON_DOWN"),
	    "summary");
	snprintf(out, len, "%s",
	    sum != NULL ? json_string_value(json_object_get(sum, "message")) :
			  "");
	json_decref(h);
}

/* The quorum names `status' of monitor k gives, joined by commas. */
static void
status_quorum_of(int k, char *out, size_t len, uint64_t *epoch)
{
	json_t *st = mon_status_json(mons[k]), *n;
	size_t i, off = 0;

	out[0] = '\0';
	json_array_foreach(json_object_get(st, "quorum_names"), i, n)
		off += (size_t)snprintf(out + off, len - off, "%s%s",
		    i ? "," : "", json_string_value(n));
	*epoch = (uint64_t)json_integer_value(
	    json_object_get(st, "election_epoch"));
	json_decref(st);
}

/* The engine's view of a monitor: leader rank 0 in term, ranks in. */
static void
engine_view(int k, uint64_t term, int64_t since, int complete, const int *in)
{
	struct mon_quorum_view v;
	int i;

	memset(&v, 0, sizeof v);
	v.self = k;
	v.leader = 0;
	v.complete = complete;
	v.term = term;
	v.since = since;
	for (i = 0; i < 3; i++) {
		v.in[i] = in[i];
		v.nin += (size_t)in[i];
	}
	mon_quorum_set_view(mons[k], &v);
}

/*
 * Be the engine until the follower serves a view of n ranks, and no
 * proposal is being encoded.
 */
static void
drive_until_view(size_t n, int complete)
{
	struct mon_quorum_view v;
	size_t done = 0;
	int i;

	for (i = 0; i < 4000; i++) {
		cr_assert_eq(mon_quorum_get_view(mons[1], &v), 0);
		if (v.nin == n && v.complete == complete && !sealing())
			break;
		if (done < nentries)
			done = commit_all(done);
		turn();
	}
	cr_assert(v.nin == n && v.complete == complete,
	    "the follower serves %zu ranks (complete %d), not %zu", v.nin,
	    v.complete, n);
	commit_all(done);
}

/*
 * Issue 18: a follower hears its leader only, so it serves the leader's
 * view, replicated in commits: the same quorum, election epoch, age and
 * MON_DOWN as the leader; none once it knows no leader; and after a
 * restart (the view is in memory only) from the commit the leader makes
 * when the monitor connects anew.
 */
Test(quorum, every_monitor_serves_the_leaders_view_of_the_quorum)
{
	static const int all[3] = { 1, 1, 1 }, ab[3] = { 1, 1, 0 };
	const int64_t since = 1700000000000000LL;
	struct mon_quorum_view v;
	struct mon_quorum_info in;
	char names[64], down[128];
	uint64_t epoch;
	size_t n;

	engine_view(1, 1, since + 5000000, 0, ab);
	status_quorum_of(1, names, sizeof names, &epoch);
	cr_assert_str_eq(names, "a,b", "before any view commit: its own");
	cr_assert_eq(mon_quorum_get_view(mons[1], &v), 0);
	cr_assert_eq(v.complete, 0);

	lead();
	engine_view(0, 1, since, 1, all);
	drive_until_view(3, 1);
	for (n = 0; n < NMON; n++) {
		status_quorum_of((int)n, names, sizeof names, &epoch);
		cr_assert_str_eq(names, "a,b,c", "monitor %zu: %s", n, names);
		cr_assert_eq(epoch, 1);
		mon_down_of((int)n, down, sizeof down);
		cr_assert_str_eq(down, "", "monitor %zu: %s", n, down);
	}
	cr_assert_eq(mon_quorum_get_view(mons[1], &v), 0);
	cr_assert_eq(v.since, since, "the leader's election, for the age");
	cr_assert_eq(v.self, 1);
	cr_assert_eq(v.leader, 0);

	/* c goes: the leader's view, then the follower's, say so. */
	engine_view(0, 1, since, 1, ab);
	drive_until_view(2, 1);
	for (n = 0; n < NMON; n++) {
		status_quorum_of((int)n, names, sizeof names, &epoch);
		cr_assert_str_eq(names, "a,b", "monitor %zu: %s", n, names);
		mon_down_of((int)n, down, sizeof down);
		cr_assert_str_eq(down, "1/3 mons down, quorum a,b",
		    "monitor %zu: '%s'", n, down);
	}
	/* An unchanged view makes no commit (nor a proposal on its way). */
	n = nentries;
	engine_view(0, 1, since, 1, ab);
	turn_for(100);
	cr_assert(!sealing());
	cr_assert_eq(nentries, n);

	/* c is back. */
	engine_view(0, 1, since, 1, all);
	drive_until_view(3, 1);
	mon_down_of(1, down, sizeof down);
	cr_assert_str_eq(down, "");

	/* No leader known: out of quorum, no view of the old one. */
	mon_quorum_set_role(mons[1], MON_QUORUM_NONE, 2, NULL, NULL);
	memset(&v, 0, sizeof v);
	v.self = 1;
	v.leader = -1;
	v.term = 2;
	mon_quorum_set_view(mons[1], &v);
	status_quorum_of(1, names, sizeof names, &epoch);
	cr_assert_str_eq(names, "", "out of quorum: %s", names);
	mon_down_of(1, down, sizeof down);
	cr_assert_str_eq(down, "");
	/* The same leader and term again: its view is still the last. */
	mon_quorum_set_role(mons[1], MON_QUORUM_FOLLOWER, 1, "a",
	    "127.0.0.1:6788");
	engine_view(1, 1, since + 9000000, 0, ab);
	status_quorum_of(1, names, sizeof names, &epoch);
	cr_assert_str_eq(names, "a,b,c");

	/*
	 * A restarted follower has no view (memory only) until the leader,
	 * which it connects to anew, replicates it again.
	 */
	mon_stop(mons[1], INT64_MAX);
	mon_free(mons[1]);
	open_mon(1);
	engine_view(1, 1, since + 9000000, 0, ab);
	status_quorum_of(1, names, sizeof names, &epoch);
	cr_assert_str_eq(names, "a,b", "restarted: %s", names);
	mon_quorum_view_resend(mons[0]);
	drive_until_view(3, 1);
	status_quorum_of(1, names, sizeof names, &epoch);
	cr_assert_str_eq(names, "a,b,c");

	/* A view that leaves the follower out is not its to serve. */
	engine_view(0, 1, since, 1, (const int[3]){ 1, 0, 1 });
	drive_until_view(2, 0);
	status_quorum_of(1, names, sizeof names, &epoch);
	cr_assert_str_eq(names, "a,b", "counted out: its own view, %s", names);

	/* Another term: the old term's view is not served. */
	engine_view(0, 1, since, 1, all);
	drive_until_view(3, 1);
	mon_quorum_set_role(mons[1], MON_QUORUM_FOLLOWER, 3, "a",
	    "127.0.0.1:6788");
	engine_view(1, 3, since + 9000000, 0, ab);
	cr_assert_eq(mon_quorum_get_view(mons[1], &v), 0);
	cr_assert(v.complete == 0 && v.nin == 2, "term 3 with term 1's view");

	cr_assert_eq(mon_quorum_info(mons[1], &in), 0);
	close_mons();
	assert_stores_equal();
}
