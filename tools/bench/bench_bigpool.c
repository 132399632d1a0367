/*
 * bench_bigpool.c: `mapmon-bench bigpool` (mapmon-bench(1)).
 *
 * Per store set-up, in a temporary directory with a generated config on a
 * free 127.0.0.1 port: a fresh mapmond, the simulated OSDs of
 * tools/bench/osd_sim.h (in this process, on this process's event loop)
 * boot, bring --pgs PGs in --pools pools to active+clean and keep
 * reporting every one of them every --interval ms.  Then, while a thread
 * of its own (bench_probe_start()) sends `status` every --probe-ms, the
 * phases run one after the other:
 *
 *   steady          the load alone, for twice --settle;
 *   create #i,      a pool of --pool-pgs PGs created, then deleted,
 *   delete #i       --rounds times;
 *   create small,   a pool of --grow-from PGs, its pg_num grown to
 *   grow,           --pool-pgs, then deleted;
 *   delete grown
 *   compact         `store compact`.
 *
 * A phase lasts from its command until its reply (the time reported as
 * "command s"), then until the simulator has every PG active+clean again
 * and --settle seconds have passed since the reply; each `status` counts in
 * the phase it was sent in.
 *
 * Then --kills times, at a random moment: the monitor (restarted if need
 * be) is made ready for one of create, delete, grow and compact in turn
 * (the pools "kbig" and "kgrow" made or removed through their own
 * commands first), the simulator reports for half a second, the command is
 * sent and SIGTERM follows after a delay drawn uniformly from 0 to 1.5
 * times what that command took in the phases above.  The time from SIGTERM
 * to the exit is taken (the exit polled every millisecond, this loop
 * reading the monitor's last answers meanwhile); then the monitor is
 * started again and the change checked: the pool whole or absent (pg_num
 * as before or as asked, `pg stat` counting every PG of every pool), and
 * there if the command was answered before the exit.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/mapmon.h"
#include "net/client.h"
#include "tools/bench/bench_bigpool.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/osd_sim.h"

#define BIGPOOL_MAX_SETUPS 8
#define BIGPOOL_MAX_ROUNDS 16
#define BIGPOOL_MAX_PHASES (2 * BIGPOOL_MAX_ROUNDS + 5)
#define BIGPOOL_MAX_KILLS 64
#define BIGPOOL_TICK_MS 10

struct bigpool_opts {
	size_t nsetups;
	const struct bench_setup *setups[BIGPOOL_MAX_SETUPS];
	struct bench_shape shape; /* the steady load's OSDs and pools */
	long pgs;		  /* the steady load's PGs */
	long pool_pgs;
	int rounds;
	long grow_from;
	int kills;
	int interval_ms;
	int probe_ms;
	double settle;
	double timeout; /* per phase */
	long seed;
	const char *outdir;
	char *mapmond;
	char *mon_conf; /* lines added to the generated config */
};

struct bigpool_phase {
	char name[32];
	double command_s; /* command to reply; < 0: no command */
	double t0, t1;	  /* the probes sent in [t0, t1) count */
	size_t n;
	double p50, p99, max;
};

/* The commands the kills interrupt, in turn. */
enum bigpool_op {
	BIGPOOL_CREATE,
	BIGPOOL_DELETE,
	BIGPOOL_GROW,
	BIGPOOL_COMPACT,
	BIGPOOL_NOPS
};
static const char *const bigpool_op_names[BIGPOOL_NOPS] = {
	[BIGPOOL_CREATE] = "create",
	[BIGPOOL_DELETE] = "delete",
	[BIGPOOL_GROW] = "grow",
	[BIGPOOL_COMPACT] = "compact",
};

struct bigpool_kill {
	enum bigpool_op op;
	double delay_ms; /* command sent to SIGTERM */
	double exit_s;	 /* SIGTERM to exit */
	int status;	 /* exit status; 128 + N: killed by N */
	int acked;	 /* answered 0 before the exit */
	int changed;	 /* after the restart: the change is in */
	char *problem;	 /* what is wrong afterwards, or NULL */
};

struct bigpool_result {
	const struct bench_setup *setup;
	struct bigpool_phase phases[BIGPOOL_MAX_PHASES];
	size_t nphases;
	struct bigpool_kill kills[BIGPOOL_MAX_KILLS];
	size_t nkills;
	double op_s[BIGPOOL_NOPS]; /* the slowest of each in the phases */
	char *error;
};

/* One monitor's run, on this thread's event loop. */
struct bigpool_run {
	const struct bigpool_opts *o;
	struct bench_mon *bm;
	struct event_base *base;
	struct osd_sim *sim;
	struct mclient *admin;
	struct event *tick;
	int killing; /* the monitor is expected to go */
	char *error; /* the first failure */

	/* The step in progress (bigpool_step()). */
	long want_pgs; /* < 0: do not wait for active+clean */
	double settle;
	double deadline;
	int sent, replied, rc;
	double t_sent, t_reply;
	int booted;
	int admin_gone;
};

static void bigpool_fail(struct bigpool_run *r, const char *fmt, ...)
    printflike(2, 3);

static void
bigpool_fail(struct bigpool_run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->error == NULL) {
		va_start(ap, fmt);
		xvasprintf(&r->error, fmt, ap);
		va_end(ap);
	}
	event_base_loopbreak(r->base);
}

static void
bigpool_sim_event(void *arg, enum osd_sim_event ev, const char *msg)
{
	struct bigpool_run *r = arg;
	struct osd_sim_stats st;

	switch (ev) {
	case OSD_SIM_BOOTED:
		r->booted = 1;
		break;
	case OSD_SIM_CLEAN:
		break;
	case OSD_SIM_ERROR:
		osd_sim_stats(r->sim, &st);
		if (st.dead && !r->killing)
			bigpool_fail(r, "osd-sim: %s", msg);
		break;
	case OSD_SIM_NOTICE:
	case OSD_SIM_STOPPED:
		break;
	}
}

static void
bigpool_admin_error(void *arg, int err, const char *msg)
{
	struct bigpool_run *r = arg;

	r->admin_gone = 1;
	if (!r->killing)
		bigpool_fail(r, "%s (%s)", msg, strerror(-err));
}

static void
bigpool_reply(void *arg, int rc, const char *status, mapmon_unused json_t *data)
{
	struct bigpool_run *r = arg;

	if (rc == -ECANCELED)
		return;
	r->replied = 1;
	r->rc = rc;
	r->t_reply = bench_now();
	if (rc < 0 && !r->killing)
		bigpool_fail(r, "%s", status);
}

/* Whether the step in progress is over. */
static int
bigpool_step_done(struct bigpool_run *r, double now)
{
	struct osd_sim_stats st;

	if (!r->booted || (r->sent && !r->replied))
		return 0;
	if (now < (r->sent ? r->t_reply : r->t_sent) + r->settle)
		return 0;
	if (r->want_pgs < 0)
		return 1;
	osd_sim_stats(r->sim, &st);
	return (long)st.npgs == r->want_pgs && st.nclean == st.npgs;
}

static void
bigpool_tick(mapmon_unused evutil_socket_t fd, mapmon_unused short what,
    void *arg)
{
	struct bigpool_run *r = arg;
	double now = bench_now();

	if (bigpool_step_done(r, now))
		event_base_loopbreak(r->base);
	else if (now > r->deadline)
		bigpool_fail(r, "a step took more than %.0f s", r->o->timeout);
}

/* The simulator and the admin connection, on r's loop. */
static int
bigpool_connect(struct bigpool_run *r, char **cause)
{
	struct osd_sim_params sp;
	struct timeval tv = { 0, BIGPOOL_TICK_MS * 1000 };

	osd_sim_params_defaults(&sp);
	sp.addr = r->bm->addr;
	sp.nosds = r->o->shape.osds;
	sp.window = r->o->shape.window;
	sp.batch = r->o->shape.batch;
	sp.live_interval_ms = r->o->interval_ms;
	r->booted = 0;
	r->admin_gone = 0;
	r->killing = 0;
	if ((r->sim = osd_sim_new(r->base, &sp, bigpool_sim_event, r, cause)) ==
	    NULL)
		return -1;
	r->admin = mclient_new(r->base, r->bm->addr, 5000, NULL,
	    bigpool_admin_error, r);
	mclient_set_name(r->admin, "client.bench");
	evtimer_add(r->tick, &tv);
	return 0;
}

static void
bigpool_disconnect(struct bigpool_run *r)
{
	evtimer_del(r->tick);
	osd_sim_free(r->sim);
	r->sim = NULL;
	mclient_free(r->admin);
	r->admin = NULL;
}

/*
 * Send cmd (NULL: none) and run the loop until its reply, want_pgs PGs
 * active+clean in the simulator (< 0: not waited for) and settle seconds
 * after the reply.  0, or -1 with r->error.
 */
static int
bigpool_step(struct bigpool_run *r, json_t *cmd, long want_pgs, double settle)
{
	r->want_pgs = want_pgs;
	r->settle = settle;
	r->sent = cmd != NULL;
	r->replied = 0;
	r->t_sent = bench_now();
	r->deadline = r->t_sent + r->o->timeout;
	if (cmd != NULL &&
	    mclient_request(r->admin, cmd, bigpool_reply, r) == -1)
		bigpool_fail(r, "the admin connection is gone");
	else
		event_base_dispatch(r->base);
	json_decref(cmd);
	return r->error != NULL ? -1 : 0;
}

static json_t *
bigpool_create_cmd(const char *name, long pg_num)
{
	return json_pack("{s:s, s:s, s:I, s:i}", "prefix", "osd pool create",
	    "pool", name, "pg_num", (json_int_t)pg_num, "size", 3);
}

static json_t *
bigpool_delete_cmd(const char *name)
{
	return json_pack("{s:s, s:s, s:s, s:b}", "prefix", "osd pool delete",
	    "pool", name, "pool2", name, "yes_i_really_really_mean_it", 1);
}

static json_t *
bigpool_grow_cmd(const char *name, long pg_num)
{
	return json_pack("{s:s, s:s, s:s, s:I}", "prefix", "osd pool set",
	    "pool", name, "var", "pg_num", "val", (json_int_t)pg_num);
}

static json_t *
bigpool_compact_cmd(void)
{
	return json_pack("{s:s}", "prefix", "store compact");
}

/* Run one measured phase; its window and command time go to ph. */
static int
bigpool_phase(struct bigpool_run *r, struct bigpool_phase *ph, const char *name,
    json_t *cmd, long want_pgs, double settle)
{
	int had_cmd = cmd != NULL;

	snprintf(ph->name, sizeof ph->name, "%s", name);
	if (bigpool_step(r, cmd, want_pgs, settle) == -1)
		return -1;
	ph->t0 = r->t_sent;
	ph->t1 = bench_now();
	ph->command_s = had_cmd ? r->t_reply - r->t_sent : -1;
	return 0;
}

/* The probes sent within each phase's window: their percentiles. */
static void
bigpool_tally(struct bigpool_result *res, const double *sent, const double *ms,
    size_t n)
{
	struct bigpool_phase *ph;
	double *v = xreallocarray(NULL, n ? n : 1, sizeof *v);
	size_t i, k;

	for (i = 0; i < res->nphases; i++) {
		ph = &res->phases[i];
		for (k = 0, ph->n = 0; k < n; k++)
			if (sent[k] >= ph->t0 && sent[k] < ph->t1)
				v[ph->n++] = ms[k];
		ph->p50 = bench_percentile(v, ph->n, 50);
		ph->p99 = bench_percentile(v, ph->n, 99);
		ph->max = bench_percentile(v, ph->n, 100);
	}
	free(v);
}

/* The measured phases; the slowest command of each kind into res->op_s. */
static int
bigpool_phases(struct bigpool_run *r, struct bigpool_result *res)
{
	const struct bigpool_opts *o = r->o;
	struct bigpool_phase *ph;
	char name[32], pool[32];
	int i;

#define BIGPOOL_PHASE(label, cmd, want, op)                                    \
	do {                                                                   \
		ph = &res->phases[res->nphases];                               \
		if (bigpool_phase(r, ph, (label), (cmd), (want), o->settle) == \
		    -1)                                                        \
			return -1;                                             \
		res->nphases++;                                                \
		if ((op) >= 0 && ph->command_s > res->op_s[(op)])              \
			res->op_s[(op)] = ph->command_s;                       \
	} while (0)
	ph = &res->phases[res->nphases];
	if (bigpool_phase(r, ph, "steady", NULL, o->pgs, 2 * o->settle) == -1)
		return -1;
	res->nphases++;
	for (i = 1; i <= o->rounds; i++) {
		snprintf(pool, sizeof pool, "big%d", i);
		snprintf(name, sizeof name, "create #%d", i);
		BIGPOOL_PHASE(name, bigpool_create_cmd(pool, o->pool_pgs),
		    o->pgs + o->pool_pgs, BIGPOOL_CREATE);
		snprintf(name, sizeof name, "delete #%d", i);
		BIGPOOL_PHASE(name, bigpool_delete_cmd(pool), o->pgs,
		    BIGPOOL_DELETE);
	}
	BIGPOOL_PHASE("create small", bigpool_create_cmd("grow", o->grow_from),
	    o->pgs + o->grow_from, -1);
	BIGPOOL_PHASE("grow", bigpool_grow_cmd("grow", o->pool_pgs),
	    o->pgs + o->pool_pgs, BIGPOOL_GROW);
	BIGPOOL_PHASE("delete grown", bigpool_delete_cmd("grow"), o->pgs,
	    BIGPOOL_DELETE);
	BIGPOOL_PHASE("compact", bigpool_compact_cmd(), o->pgs,
	    BIGPOOL_COMPACT);
#undef BIGPOOL_PHASE
	return 0;
}

/* One blocking command (no simulator running); -1 with *cause. */
static int
bigpool_call(struct bigpool_run *r, json_t *cmd, json_t **data, char **cause)
{
	char *text = json_dumps(cmd, JSON_COMPACT);
	int rc;

	json_decref(cmd);
	rc = bench_call(r->bm->addr, text, data, cause);
	free(text);
	return rc < 0 ? -1 : 0;
}

/*
 * The pools now: *big and *grow get the pg_num of kbig and kgrow (0 when
 * absent), *sum the pg_num of every pool, *pgs what `pg stat` counts.
 */
static int
bigpool_pools(struct bigpool_run *r, long *big, long *grow, long *sum,
    long *pgs, char **cause)
{
	json_t *ls, *stat, *p, *cmd;
	const char *name;
	size_t i;
	long n;

	cmd = json_pack("{s:s, s:s}", "prefix", "osd pool ls", "detail",
	    "detail");
	if (bigpool_call(r, cmd, &ls, cause) == -1)
		return -1;
	cmd = json_pack("{s:s}", "prefix", "pg stat");
	if (bigpool_call(r, cmd, &stat, cause) == -1) {
		json_decref(ls);
		return -1;
	}
	*big = *grow = *sum = 0;
	json_array_foreach(ls, i, p) {
		name = json_string_value(json_object_get(p, "pool_name"));
		n = (long)json_integer_value(json_object_get(p, "pg_num"));
		*sum += n;
		if (name != NULL && strcmp(name, "kbig") == 0)
			*big = n;
		if (name != NULL && strcmp(name, "kgrow") == 0)
			*grow = n;
	}
	*pgs = (long)json_integer_value(json_object_get(stat, "num_pgs"));
	json_decref(ls);
	json_decref(stat);
	return 0;
}

/*
 * Make the store ready for op: kbig absent for a create, present for a
 * delete; kgrow at --grow-from for a grow; at most one large pool.
 */
static int
bigpool_prepare(struct bigpool_run *r, enum bigpool_op op, char **cause)
{
	const struct bigpool_opts *o = r->o;
	json_t *cmds[4];
	long big, grow, sum, pgs;
	size_t i, n = 0;
	int rc = 0;

	if (bigpool_pools(r, &big, &grow, &sum, &pgs, cause) == -1)
		return -1;
	if (grow != 0 && (op != BIGPOOL_GROW || grow != o->grow_from))
		cmds[n++] = bigpool_delete_cmd("kgrow");
	if (big != 0 && op != BIGPOOL_DELETE)
		cmds[n++] = bigpool_delete_cmd("kbig");
	if (big == 0 && op == BIGPOOL_DELETE)
		cmds[n++] = bigpool_create_cmd("kbig", o->pool_pgs);
	if (op == BIGPOOL_GROW && grow != o->grow_from)
		cmds[n++] = bigpool_create_cmd("kgrow", o->grow_from);
	for (i = 0; i < n; i++) {
		if (rc == 0)
			rc = bigpool_call(r, cmds[i], NULL, cause);
		else
			json_decref(cmds[i]);
	}
	return rc;
}

/* Run r's loop for about a millisecond. */
static void
bigpool_run_ms(struct bigpool_run *r)
{
	static const struct timeval ms = { 0, 1000 };

	event_base_loopexit(r->base, &ms);
	event_base_dispatch(r->base);
}

/* After the restart: is the change whole or absent, and there if acked? */
static void
bigpool_check(struct bigpool_run *r, struct bigpool_kill *k)
{
	const struct bigpool_opts *o = r->o;
	long big, grow, sum, pgs;
	char *cause = NULL;

	if (bigpool_pools(r, &big, &grow, &sum, &pgs, &cause) == -1) {
		xasprintf(&k->problem, "after the restart: %s", cause);
		free(cause);
		return;
	}
	if (pgs != sum) {
		xasprintf(&k->problem, "pg stat counts %ld PGs, the pools %ld",
		    pgs, sum);
		return;
	}
	switch (k->op) {
	case BIGPOOL_CREATE:
		k->changed = big != 0;
		if (big != 0 && big != o->pool_pgs)
			xasprintf(&k->problem, "kbig has %ld PGs", big);
		break;
	case BIGPOOL_DELETE:
		k->changed = big == 0;
		if (big != 0 && big != o->pool_pgs)
			xasprintf(&k->problem, "kbig has %ld PGs", big);
		break;
	case BIGPOOL_GROW:
		k->changed = grow == o->pool_pgs;
		if (grow != o->pool_pgs && grow != o->grow_from)
			xasprintf(&k->problem, "kgrow has %ld PGs", grow);
		break;
	default:
		k->changed = 1;
		break;
	}
	if (k->problem == NULL && k->acked && !k->changed)
		xasprintf(&k->problem, "the %s was acknowledged and is lost",
		    bigpool_op_names[k->op]);
}

/*
 * One kill: the monitor running and ready for k->op, the load for half a
 * second, the command, SIGTERM after the delay; the exit timed; restarted
 * and checked.  -1 with r->error when the bench itself fails.
 */
static int
bigpool_kill(struct bigpool_run *r, struct bigpool_result *res,
    struct bigpool_kill *k)
{
	json_t *cmd;
	double t_sig, end;
	char *cause = NULL;
	int st = 0;

	if (bigpool_prepare(r, k->op, &cause) == -1) {
		bigpool_fail(r, "before a kill: %s", cause);
		free(cause);
		return -1;
	}
	if (bigpool_connect(r, &cause) == -1) {
		bigpool_fail(r, "%s", cause);
		free(cause);
		return -1;
	}
	if (bigpool_step(r, NULL, -1, 0.5) == -1)
		return -1;
	switch (k->op) {
	case BIGPOOL_CREATE:
		cmd = bigpool_create_cmd("kbig", r->o->pool_pgs);
		break;
	case BIGPOOL_DELETE:
		cmd = bigpool_delete_cmd("kbig");
		break;
	case BIGPOOL_GROW:
		cmd = bigpool_grow_cmd("kgrow", r->o->pool_pgs);
		break;
	default:
		cmd = bigpool_compact_cmd();
		break;
	}
	k->delay_ms = drand48() * 1.5e3 *
	    (res->op_s[k->op] > 0 ? res->op_s[k->op] : 0.1);
	r->replied = 0;
	r->killing = 1;
	r->t_sent = bench_now();
	mclient_request(r->admin, cmd, bigpool_reply, r);
	json_decref(cmd);

	/* The loop runs on, a millisecond at a time: the answers are read. */
	while ((bench_now() - r->t_sent) * 1e3 < k->delay_ms)
		bigpool_run_ms(r);
	kill(r->bm->pid, SIGTERM);
	t_sig = bench_now();
	for (end = t_sig + 60;
	     !bench_mon_exited(r->bm, &st) && bench_now() < end;)
		bigpool_run_ms(r);
	k->exit_s = bench_now() - t_sig;
	if (r->bm->pid != -1) {
		bigpool_fail(r, "mapmond did not exit within 60 s of SIGTERM");
		return -1;
	}
	k->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	/* What the monitor sent before it went is still to be read. */
	for (end = bench_now() + 1; !r->admin_gone && bench_now() < end;)
		bigpool_run_ms(r);
	k->acked = r->replied && r->rc == 0;
	bigpool_disconnect(r);

	if (bench_mon_start(r->bm, &cause) == -1 ||
	    bench_mon_wait_ready(r->bm, 60, &cause) == -1) {
		xasprintf(&k->problem, "no restart: %s", cause);
		free(cause);
		return 0;
	}
	bigpool_check(r, k);
	return 0;
}

/*
 * The simulated OSDs (this thread) yield to the `status' probe and to the
 * monitor: on a machine of few cores they would delay the probes
 * themselves, which a cluster's OSDs, on machines of their own, do not.
 */
#define BIGPOOL_SIM_NICE 5

/*
 * One set-up: a monitor, the phases, the kills; on a thread of its own,
 * which lowers its priority once the probe thread (made at the usual
 * priority, as threads inherit their maker's) runs.
 */
static void
bigpool_one(const struct bigpool_opts *o, struct bigpool_result *res)
{
	struct bigpool_run r;
	struct bench_probe *probe = NULL;
	const double *sent, *ms;
	json_t *cmd;
	char name[32], *cause = NULL, *extra;
	size_t n;
	long each, left;
	int i, last, failed;

	memset(&r, 0, sizeof r);
	r.o = o;
	extra = bench_limits_conf(o->pgs, &o->shape, o->mon_conf);
	r.bm = bench_mon_run(o->mapmond, res->setup, extra, 0, &cause);
	free(extra);
	if (r.bm == NULL)
		goto fail;
	r.base = event_base_new();
	r.tick = event_new(r.base, -1, EV_PERSIST, bigpool_tick, &r);
	if (bigpool_connect(&r, &cause) == -1)
		goto fail;
	/* Every OSD up first. */
	if (bigpool_step(&r, NULL, -1, 0) == -1)
		goto fail_run;

	/*
	 * The steady load: its pools, split evenly, the last the rest; once
	 * the last is made, every PG active+clean.
	 */
	each = o->pgs / o->shape.pools;
	for (i = 0, left = o->pgs; i < o->shape.pools; i++, left -= each) {
		last = i == o->shape.pools - 1;
		snprintf(name, sizeof name, "load%d", i);
		cmd = bigpool_create_cmd(name, last ? left : each);
		if (bigpool_step(&r, cmd, last ? o->pgs : -1, 0) == -1)
			goto fail_run;
	}
	probe = bench_probe_start(r.bm->addr, o->probe_ms, 0, &cause);
	if (probe == NULL)
		goto fail;
	/* On Linux nice() lowers the calling thread alone. */
	errno = 0;
	if (nice(BIGPOOL_SIM_NICE) == -1 && errno != 0)
		fprintf(stderr, "mapmon-bench: nice: %s\n", strerror(errno));
	if (bigpool_phases(&r, res) == -1)
		goto fail_run;
	n = bench_probe_stop(probe, &sent, &ms, &failed);
	if (failed) {
		cause = xstrdup("status probe: a status failed");
		goto fail;
	}
	bigpool_tally(res, sent, ms, n);
	bench_probe_free(probe);
	probe = NULL;
	bigpool_disconnect(&r);

	for (i = 0; i < o->kills; i++) {
		res->kills[i].op = (enum bigpool_op)(i % BIGPOOL_NOPS);
		if (bigpool_kill(&r, res, &res->kills[i]) == -1)
			goto fail_run;
		res->nkills++;
		/* No restart: nothing more to kill. */
		if (r.bm->pid == -1)
			break;
	}
	bigpool_disconnect(&r);
	goto out;
fail_run:
	cause = r.error;
	r.error = NULL;
fail:
	res->error = cause;
out:
	bench_probe_free(probe);
	if (r.base != NULL) {
		bigpool_disconnect(&r);
		event_free(r.tick);
		event_base_free(r.base);
	}
	free(r.error);
	bench_mon_free(r.bm);
}

struct bigpool_job {
	const struct bigpool_opts *o;
	struct bigpool_result *res;
};

static void *
bigpool_job_main(void *arg)
{
	struct bigpool_job *j = arg;

	bigpool_one(j->o, j->res);
	return NULL;
}

static mapmon_dead void
bigpool_usage(int code)
{
	fprintf(code == 0 ? stdout : stderr,
	    "usage: mapmon-bench bigpool [--setups LIST] [--osds N] "
	    "[--pools N] [--pgs N]\n"
	    "           [--pool-pgs N] [--rounds N] [--grow-from N] "
	    "[--kills N] [--seed N]\n"
	    "           [--interval MS] [--probe-ms MS] [--settle S] "
	    "[--window W] [--batch B]\n"
	    "           [-o DIR] [--mapmond PATH] [--mon-conf FILE]\n"
	    "  set-ups: %s\n",
	    bench_setup_names());
	exit(code);
}

static int
bigpool_parse_setups(struct bigpool_opts *o, char *arg)
{
	const struct bench_setup *su;
	char *w, *save = NULL;

	o->nsetups = 0;
	for (w = strtok_r(arg, ",", &save); w != NULL;
	     w = strtok_r(NULL, ",", &save)) {
		if ((su = bench_setup_find(w)) == NULL) {
			fprintf(stderr,
			    "mapmon-bench: --setups: unknown "
			    "set-up '%s' (%s)\n",
			    w, bench_setup_names());
			return -1;
		}
		if (o->nsetups == BIGPOOL_MAX_SETUPS)
			return -1;
		o->setups[o->nsetups++] = su;
	}
	return o->nsetups > 0 ? 0 : -1;
}

/* What the restart found, in words. */
static const char *
bigpool_after(const struct bigpool_kill *k)
{
	if (k->problem != NULL)
		return k->problem;
	if (k->op == BIGPOOL_COMPACT)
		return "consistent";
	return k->changed ? "changed, whole" : "unchanged";
}

static void
bigpool_print(const struct bigpool_opts *o, struct bigpool_result *res)
{
	const struct bigpool_phase *ph;
	const struct bigpool_kill *k;
	double slowest;
	size_t i, j;

	printf("## mapmon-bench bigpool\n\n");
	printf(
	    "sync = commit; %d simulated OSDs reporting %ld PGs (%d pools "
	    "of size 3) every %d ms; pools of %ld PGs (size 3) created and "
	    "deleted %d times, one grown from %ld to %ld PGs, `store "
	    "compact`; `status` every %d ms on its own connection, counted "
	    "in the phase it was sent in (from the command until its reply, "
	    "then until every PG is active+clean and %.1f s have passed)\n\n",
	    o->shape.osds, o->pgs, o->shape.pools, o->interval_ms, o->pool_pgs,
	    o->rounds, o->grow_from, o->pool_pgs, o->probe_ms, o->settle);
	printf("| set-up | phase | command s | status n | p50 ms | p99 ms | "
	       "max ms |\n|---|---|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < o->nsetups; i++) {
		if (res[i].error != NULL)
			printf("| %s | failed: %s | | | | | |\n",
			    res[i].setup->name, res[i].error);
		for (j = 0; j < res[i].nphases; j++) {
			ph = &res[i].phases[j];
			if (ph->command_s < 0)
				printf("| %s | %s | | %zu | %.3f | %.3f | "
				       "%.3f |\n",
				    res[i].setup->name, ph->name, ph->n,
				    ph->p50, ph->p99, ph->max);
			else
				printf("| %s | %s | %.3f | %zu | %.3f | %.3f | "
				       "%.3f |\n",
				    res[i].setup->name, ph->name, ph->command_s,
				    ph->n, ph->p50, ph->p99, ph->max);
		}
	}
	printf("\n### SIGTERM at a random moment (seed %ld)\n\n", o->seed);
	printf("| set-up | during | SIGTERM after ms | exit s | exit status "
	       "| acknowledged | after the restart |\n"
	       "|---|---|---:|---:|---:|---|---|\n");
	for (i = 0; i < o->nsetups; i++) {
		slowest = 0;
		for (j = 0; j < res[i].nkills; j++) {
			k = &res[i].kills[j];
			if (k->exit_s > slowest)
				slowest = k->exit_s;
			printf("| %s | %s | %.0f | %.3f | %d | %s | %s |\n",
			    res[i].setup->name, bigpool_op_names[k->op],
			    k->delay_ms, k->exit_s, k->status,
			    k->acked ? "yes" : "no", bigpool_after(k));
		}
		if (res[i].nkills > 0)
			printf("| %s | slowest exit | | %.3f | | | |\n",
			    res[i].setup->name, slowest);
	}
	fflush(stdout);
}

/* A JSON string of text, or null when it is NULL (a new reference). */
static json_t *
bigpool_json_text(const char *text)
{
	return text != NULL ? json_string(text) : json_null();
}

static int
bigpool_write(const struct bigpool_opts *o, const struct bigpool_result *res)
{
	const struct bigpool_phase *ph;
	const struct bigpool_kill *k;
	json_t *doc, *setups, *phases, *kills, *o1;
	FILE *f, *fk;
	char *path, *pathk;
	size_t i, j;
	int r = 0;

	xasprintf(&path, "%s/bigpool.csv", o->outdir);
	xasprintf(&pathk, "%s/bigpool_kills.csv", o->outdir);
	f = fopen(path, "w");
	fk = fopen(pathk, "w");
	if (f == NULL || fk == NULL) {
		fprintf(stderr, "mapmon-bench: %s: %s\n",
		    f == NULL ? path : pathk, strerror(errno));
		if (f != NULL)
			fclose(f);
		if (fk != NULL)
			fclose(fk);
		free(path);
		free(pathk);
		return -1;
	}
	fprintf(f,
	    "setup,phase,command_s,status_n,status_p50_ms,"
	    "status_p99_ms,status_max_ms\n");
	fprintf(fk,
	    "setup,during,sigterm_after_ms,exit_s,exit_status,"
	    "acknowledged,changed,problem\n");
	setups = json_array();
	for (i = 0; i < o->nsetups; i++) {
		phases = json_array();
		for (j = 0; j < res[i].nphases; j++) {
			ph = &res[i].phases[j];
			fprintf(f, "%s,%s,%.3f,%zu,%.3f,%.3f,%.3f\n",
			    res[i].setup->name, ph->name, ph->command_s, ph->n,
			    ph->p50, ph->p99, ph->max);
			o1 = json_pack("{s:s, s:f, s:I, s:f, s:f, s:f}",
			    "phase", ph->name, "command_s", ph->command_s,
			    "status_n", (json_int_t)ph->n, "status_p50_ms",
			    ph->p50, "status_p99_ms", ph->p99, "status_max_ms",
			    ph->max);
			json_array_append_new(phases, o1);
		}
		kills = json_array();
		for (j = 0; j < res[i].nkills; j++) {
			k = &res[i].kills[j];
			fprintf(fk, "%s,%s,%.0f,%.3f,%d,%d,%d,%s\n",
			    res[i].setup->name, bigpool_op_names[k->op],
			    k->delay_ms, k->exit_s, k->status, k->acked,
			    k->changed, k->problem != NULL ? k->problem : "");
			o1 = json_pack("{s:s, s:f, s:f, s:i, s:b, s:b, s:o}",
			    "during", bigpool_op_names[k->op],
			    "sigterm_after_ms", k->delay_ms, "exit_s",
			    k->exit_s, "exit_status", k->status, "acknowledged",
			    k->acked, "changed", k->changed, "problem",
			    bigpool_json_text(k->problem));
			json_array_append_new(kills, o1);
		}
		o1 = json_pack("{s:s, s:o, s:o, s:o}", "setup",
		    res[i].setup->name, "phases", phases, "kills", kills,
		    "error", bigpool_json_text(res[i].error));
		json_array_append_new(setups, o1);
	}
	fclose(f);
	fclose(fk);
	free(path);
	free(pathk);
	doc = json_pack("{s:i, s:I, s:i, s:I, s:i, s:I, s:i, s:i, s:i, s:f, "
			"s:I, s:o}",
	    "osds", o->shape.osds, "pgs", (json_int_t)o->pgs, "pools",
	    o->shape.pools, "pool_pgs", (json_int_t)o->pool_pgs, "rounds",
	    o->rounds, "grow_from", (json_int_t)o->grow_from, "kills", o->kills,
	    "interval_ms", o->interval_ms, "probe_ms", o->probe_ms, "settle_s",
	    o->settle, "seed", (json_int_t)o->seed, "setups", setups);
	xasprintf(&path, "%s/bigpool.json", o->outdir);
	if (json_dump_file(doc, path, JSON_INDENT(1) | JSON_SORT_KEYS) != 0) {
		fprintf(stderr, "mapmon-bench: %s: cannot write\n", path);
		r = -1;
	}
	json_decref(doc);
	free(path);
	return r;
}

int
bench_bigpool_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "setups", required_argument, NULL, 'S' },
		{ "osds", required_argument, NULL, 'n' },
		{ "pools", required_argument, NULL, 'p' },
		{ "window", required_argument, NULL, 'w' },
		{ "batch", required_argument, NULL, 'b' },
		{ "pgs", required_argument, NULL, 'P' },
		{ "pool-pgs", required_argument, NULL, 'G' },
		{ "rounds", required_argument, NULL, 'R' },
		{ "grow-from", required_argument, NULL, 'F' },
		{ "kills", required_argument, NULL, 'K' },
		{ "seed", required_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ "probe-ms", required_argument, NULL, 'q' },
		{ "settle", required_argument, NULL, 'T' },
		{ "mapmond", required_argument, NULL, 'M' },
		{ "mon-conf", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bigpool_opts o;
	struct bigpool_result res[BIGPOOL_MAX_SETUPS];
	struct bigpool_job job;
	pthread_t thread;
	struct bench_run_opts ro;
	char defsetups[] = "lmdb,leveldb-mapmon", *setups = defsetups;
	char label[64];
	size_t i, j;
	int ch, code, error, failed = 0;

	memset(&o, 0, sizeof o);
	memset(res, 0, sizeof res);
	bench_shape_defaults(&o.shape);
	o.shape.osds = 1024;
	o.pgs = 16384;
	o.pool_pgs = 65536;
	o.rounds = 3;
	o.grow_from = 1024;
	o.kills = 8;
	o.interval_ms = 1000;
	o.probe_ms = 2;
	o.settle = 1;
	o.timeout = 300;
	o.seed = 1;
	bench_run_opts_defaults(&ro);
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'S':
			setups = optarg;
			break;
		case 'P':
			o.pgs = bench_arg_long("--pgs", optarg, 1, 1048576);
			break;
		case 'G':
			o.pool_pgs = bench_arg_long("--pool-pgs", optarg, 2,
			    1048576);
			break;
		case 'R':
			o.rounds = (int)bench_arg_long("--rounds", optarg, 0,
			    BIGPOOL_MAX_ROUNDS);
			break;
		case 'F':
			o.grow_from = bench_arg_long("--grow-from", optarg, 1,
			    1048575);
			break;
		case 'K':
			o.kills = (int)bench_arg_long("--kills", optarg, 0,
			    BIGPOOL_MAX_KILLS);
			break;
		case 's':
			o.seed = bench_arg_long("--seed", optarg, 0, LONG_MAX);
			break;
		case 'i':
			o.interval_ms = (int)bench_arg_long("--interval",
			    optarg, 0, 60000);
			break;
		case 'q':
			o.probe_ms = (int)bench_arg_long("--probe-ms", optarg,
			    1, 10000);
			break;
		case 'T':
			o.settle = (double)bench_arg_long("--settle", optarg, 0,
			    3600);
			break;
		case 'h':
			bigpool_usage(0);
		default:
			if (!bench_shape_opt(&o.shape, ch, optarg) &&
			    !bench_run_opt(&ro, ch, optarg))
				bigpool_usage(MAPMON_EXIT_USAGE);
		}
	}
	o.mon_conf = ro.mon_conf;
	o.outdir = ro.outdir;
	if (optind != argc || o.pgs < o.shape.pools ||
	    o.grow_from >= o.pool_pgs || bigpool_parse_setups(&o, setups) == -1)
		bigpool_usage(MAPMON_EXIT_USAGE);
	if ((o.mapmond = bench_run_mapmond(&ro, &code)) == NULL)
		return code;
	signal(SIGPIPE, SIG_IGN);
	srand48(o.seed);

	for (i = 0; i < o.nsetups; i++) {
		res[i].setup = o.setups[i];
		snprintf(label, sizeof label, "bigpool %s", o.setups[i]->name);
		bench_progress(label, i, o.nsetups);
		job.o = &o;
		job.res = &res[i];
		if ((error = pthread_create(&thread, NULL, bigpool_job_main,
			 &job)) != 0) {
			xasprintf(&res[i].error, "pthread_create: %s",
			    strerror(error));
		} else
			pthread_join(thread, NULL);
		if (res[i].error != NULL) {
			bench_progress_done();
			fprintf(stderr, "mapmon-bench: bigpool %s: %s\n",
			    o.setups[i]->name, res[i].error);
			failed = 1;
		}
		for (j = 0; j < res[i].nkills; j++)
			if (res[i].kills[j].status != 0 ||
			    res[i].kills[j].problem != NULL)
				failed = 1;
	}
	bench_progress_done();
	bigpool_print(&o, res);
	if (bigpool_write(&o, res) == -1)
		failed = 1;
	for (i = 0; i < o.nsetups; i++) {
		free(res[i].error);
		for (j = 0; j < res[i].nkills; j++)
			free(res[i].kills[j].problem);
	}
	free(o.mapmond);
	free(o.mon_conf);
	return failed ? 1 : 0;
}
