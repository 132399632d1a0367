/*
 * cmd_mon.c: the commands on the monitor's maps.  Arguments were checked
 * against the table before any of these runs, so a handler reads them
 * without checking their types again; what only the maps can tell (a pool
 * that does not exist) the monitor answers.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "daemon/cmd_priv.h"
#include "daemon/quorum.h"
#include "mon/mon_quorum.h"
#include "daemon/sub.h"
#include "map/statfs.h"
#include "net/frame.h"
#include "net/server.h"

void
cmd_mon_status(struct cmd_req *r, json_t *cmd)
{
	json_t *st = mon_status_json(r->ctx->mon);

	(void)cmd;
	cmd_reply(r, 0, json_string_value(json_object_get(json_object_get(st,
	    "health"), "status")), st);
}

void
cmd_mon_health(struct cmd_req *r, json_t *cmd)
{
	json_t *h = mon_health_json(r->ctx->mon, cmd_has(cmd, "detail"));

	cmd_reply(r, 0, json_string_value(json_object_get(h, "status")), h);
}

void
cmd_mon_health_mute(struct cmd_req *r, json_t *cmd)
{
	mon_health_mute(r->ctx->mon, cmd_get_str(cmd, "code"),
	    cmd_get_str(cmd, "ttl"),
	    json_is_true(json_object_get(cmd, "sticky")), cmd_done, r);
}

void
cmd_mon_health_unmute(struct cmd_req *r, json_t *cmd)
{
	mon_health_unmute(r->ctx->mon, cmd_get_str(cmd, "code"), cmd_done, r);
}

void
cmd_mon_version(struct cmd_req *r, json_t *cmd)
{
	(void)cmd;
	/* Ceph's line is "ceph version 16.2.15 (...) pacific (stable)". */
	cmd_reply(r, 0, "mapmon version " PACKAGE_VERSION,
	    json_pack("{s:s, "
		      "s:s, s:i}",
		"version", "mapmon version " PACKAGE_VERSION, "package_version",
		PACKAGE_VERSION, "protocol", FRAME_PROTOCOL));
}

/*
 * mon stat of a quorum, in Ceph's words: "e1: 3 mons at {a=ADDR,...},
 * election epoch 7, leader 1 b, quorum 0,1,2 a,b,c"; takes mons.
 */
static void
cmd_mon_stat_quorum(struct cmd_req *r, const struct monmap *mm,
    const struct mon_quorum_view *v, json_t *mons)
{
	json_t *names = json_array(), *quorum = json_array();
	char at[MONMAP_MAX_MONS * (MONMAP_NAME_MAX + MONMAP_ADDR_MAX + 2)];
	char ranks[MONMAP_MAX_MONS * 4],
	    qnames[MONMAP_MAX_MONS * (MONMAP_NAME_MAX + 1)];
	size_t i, o1 = 0, o2 = 0, o3 = 0;
	const char *leader = v->leader >= 0 && (size_t)v->leader < mm->nmons ?
	    mm->mons[v->leader].name :
	    "";

	at[0] = ranks[0] = qnames[0] = '\0';
	for (i = 0; i < mm->nmons; i++) {
		o1 += (size_t)snprintf(at + o1, sizeof at - o1, "%s%s=%s",
		    i ? "," : "", mm->mons[i].name, mm->mons[i].addr);
		if (!v->in[i])
			continue;
		json_array_append_new(names, json_string(mm->mons[i].name));
		json_array_append_new(quorum,
		    json_pack("{s:I, s:s}", "rank", (json_int_t)i, "name",
			mm->mons[i].name));
		o2 += (size_t)snprintf(ranks + o2, sizeof ranks - o2, "%s%zu",
		    o2 ? "," : "", i);
		o3 += (size_t)snprintf(qnames + o3, sizeof qnames - o3, "%s%s",
		    o3 ? "," : "", mm->mons[i].name);
	}
	cmd_replyf(r, 0,
	    json_pack("{s:I, s:I, s:s, s:o, s:I, s:s, s:o, s:o}", "epoch",
		(json_int_t)mm->epoch, "num_mons", (json_int_t)mm->nmons,
		"leader", leader, "quorum", quorum, "election_epoch",
		(json_int_t)v->term, "fsid", mm->fsid, "quorum_names", names,
		"mons", mons),
	    "e%u: %zu mons at {%s}, election epoch %llu, leader %d %s, "
	    "quorum %s %s",
	    mm->epoch, mm->nmons, at, (unsigned long long)v->term, v->leader,
	    v->leader >= 0 ? leader : "(none)", ranks, qnames);
}

void
cmd_mon_stat(struct cmd_req *r, json_t *cmd)
{
	const struct monmap *mm = mon_monmap(r->ctx->mon);
	json_t *names = json_array(), *quorum = json_array(), *full, *mons;
	struct mon_quorum_view v;
	size_t i;

	(void)cmd;
	/* Ceph's quorum: {"rank", "name"} each; the first is the leader. */
	for (i = 0; i < mm->nmons; i++) {
		json_array_append_new(names, json_string(mm->mons[i].name));
		json_array_append_new(quorum,
		    json_pack("{s:I, s:s}", "rank", (json_int_t)i, "name",
			mm->mons[i].name));
	}
	full = monmap_to_json(mm);
	mons = json_incref(json_object_get(full, "mons"));
	json_decref(full);
	if (mons == NULL)
		mons = json_array();
	if (mon_quorum_get_view(r->ctx->mon, &v) == 0) {
		cmd_mon_stat_quorum(r, mm, &v, mons);
		json_decref(names);
		json_decref(quorum);
		return;
	}
	cmd_replyf(r, 0,
	    json_pack("{s:I, s:I, s:s, s:o, s:I, s:s, s:o, s:o}", "epoch",
		(json_int_t)mm->epoch, "num_mons", (json_int_t)mm->nmons,
		"leader", mm->nmons > 0 ? mm->mons[0].name : "", "quorum",
		quorum, "election_epoch", (json_int_t)1, "fsid", mm->fsid,
		"quorum_names", names, "mons", mons),
	    "e%u: %zu mons, quorum %s", mm->epoch, mm->nmons,
	    mm->nmons > 0 ? mm->mons[0].name : "");
}

/* Ceph's mon dump: the monmap, and the ranks in quorum ("quorum"). */
void
cmd_mon_dump(struct cmd_req *r, json_t *cmd)
{
	const struct monmap *mm = mon_monmap(r->ctx->mon);
	json_t *o = monmap_to_json(mm), *quorum = json_array();
	struct mon_quorum_view v;
	size_t i;

	(void)cmd;
	/* One monitor is its own quorum; several serve the leader's view. */
	if (mon_quorum_get_view(r->ctx->mon, &v) == -1) {
		memset(&v, 0, sizeof v);
		v.in[0] = mm->nmons > 0;
	}
	for (i = 0; i < mm->nmons && i < MONMAP_MAX_MONS; i++)
		if (v.in[i])
			json_array_append_new(quorum,
			    json_integer((json_int_t)i));
	json_object_set_new(o, "quorum", quorum);
	cmd_replyf(r, 0, o, "dumped monmap epoch %u", mm->epoch);
}

void
cmd_mon_osd_create(struct cmd_req *r, json_t *cmd)
{
	mon_osd_create(r->ctx->mon, (int32_t)cmd_get_int(cmd, "id", -1),
	    cmd_done, r);
}

void
cmd_mon_osd_boot(struct cmd_req *r, json_t *cmd)
{
	const char *loc[CMD_LOC_MAX];
	size_t nloc;

	if (cmd_get_loc(r, cmd, "args", loc, &nloc) == -1)
		return;
	mon_osd_boot_at(r->ctx->mon, cmd_get_osd(cmd, "id", 0),
	    cmd_get_str(cmd, "addr"), loc, nloc, cmd_done, r);
}

void
cmd_mon_osd_beacon(struct cmd_req *r, json_t *cmd)
{
	struct statfs_osd st;
	json_t *v = json_object_get(cmd, "statfs");
	char *cause = NULL;

	if (v != NULL && statfs_from_json(v, &st, &cause) == -1) {
		cmd_reply(r, -EINVAL, cause, NULL);
		free(cause);
		return;
	}
	mon_osd_beacon(r->ctx->mon, (int32_t)cmd_get_int(cmd, "id", 0),
	    v != NULL ? &st : NULL, cmd_done, r);
}

void
cmd_mon_osd_failure(struct cmd_req *r, json_t *cmd)
{
	mon_osd_failure(r->ctx->mon, (int32_t)cmd_get_int(cmd, "target", 0),
	    (int32_t)cmd_get_int(cmd, "reporter", 0),
	    json_number_value(json_object_get(cmd, "failed_for")),
	    json_is_true(json_object_get(cmd, "cancel")), cmd_done, r);
}

void
cmd_mon_osd_mark_me_down(struct cmd_req *r, json_t *cmd)
{
	mon_osd_mark_me_down(r->ctx->mon, (int32_t)cmd_get_int(cmd, "id", 0),
	    cmd_done, r);
}

void
cmd_mon_df(struct cmd_req *r, json_t *cmd)
{
	(void)cmd;
	cmd_reply(r, 0, "df", mon_df_json(r->ctx->mon));
}

void
cmd_mon_osd_df(struct cmd_req *r, json_t *cmd)
{
	(void)cmd;
	cmd_reply(r, 0, "osd df", mon_osd_df_json(r->ctx->mon));
}

static void
cmd_mon_osd_set_ratio(struct cmd_req *r, json_t *cmd, enum mon_ratio which)
{
	mon_osd_set_ratio(r->ctx->mon, which,
	    json_number_value(json_object_get(cmd, "ratio")), cmd_done, r);
}

void
cmd_mon_osd_set_full_ratio(struct cmd_req *r, json_t *cmd)
{
	cmd_mon_osd_set_ratio(r, cmd, MON_RATIO_FULL);
}

void
cmd_mon_osd_set_backfillfull_ratio(struct cmd_req *r, json_t *cmd)
{
	cmd_mon_osd_set_ratio(r, cmd, MON_RATIO_BACKFILLFULL);
}

void
cmd_mon_osd_set_nearfull_ratio(struct cmd_req *r, json_t *cmd)
{
	cmd_mon_osd_set_ratio(r, cmd, MON_RATIO_NEARFULL);
}

/* `osd down', `osd in', `osd out' and `osd rm' of the "ids" list. */
static void
cmd_mon_osd_list(struct cmd_req *r, json_t *cmd,
    void (*op)(struct mon *, const int32_t *, size_t, mon_done_cb *, void *))
{
	size_t n;
	int32_t *ids = cmd_get_osds(cmd, "ids", &n);

	op(r->ctx->mon, ids, n, cmd_done, r);
	free(ids);
}

void
cmd_mon_osd_down(struct cmd_req *r, json_t *cmd)
{
	cmd_mon_osd_list(r, cmd, mon_osd_down);
}

void
cmd_mon_osd_in(struct cmd_req *r, json_t *cmd)
{
	cmd_mon_osd_list(r, cmd, mon_osd_in);
}

void
cmd_mon_osd_out(struct cmd_req *r, json_t *cmd)
{
	cmd_mon_osd_list(r, cmd, mon_osd_out);
}

void
cmd_mon_osd_rm(struct cmd_req *r, json_t *cmd)
{
	cmd_mon_osd_list(r, cmd, mon_osd_rm);
}

void
cmd_mon_osd_reweight(struct cmd_req *r, json_t *cmd)
{
	mon_osd_reweight(r->ctx->mon, cmd_get_osd(cmd, "id", 0),
	    json_number_value(json_object_get(cmd, "weight")), cmd_done, r);
}

/*
 * The map of the "epoch" argument (the committed one when absent) into
 * *om; 0, or the refusal answered.
 */
static int
cmd_mon_osdmap_at(struct cmd_req *r, json_t *cmd, struct osdmap *om)
{
	char *status = NULL;
	int rc;

	osdmap_init(om);
	rc = mon_osdmap_at(r->ctx->mon, (uint32_t)cmd_get_int(cmd, "epoch", 0),
	    om, &status);
	if (rc != 0)
		cmd_reply(r, rc, status, NULL);
	free(status);
	return rc;
}

void
cmd_mon_osd_tree(struct cmd_req *r, json_t *cmd)
{
	static const struct {
		const char *word;
		unsigned bit;
	} states[] = { { "up", MON_TREE_UP }, { "down", MON_TREE_DOWN },
		{ "in", MON_TREE_IN }, { "out", MON_TREE_OUT } };
	struct osdmap om;
	unsigned mask = 0;
	json_t *v;
	size_t i, k;

	json_array_foreach(json_object_get(cmd, "states"), i, v)
		for (k = 0; k < nitems(states); k++)
			if (strcmp(json_string_value(v), states[k].word) == 0)
				mask |= states[k].bit;
	if (cmd_mon_osdmap_at(r, cmd, &om) != 0)
		return;
	cmd_reply(r, 0, "osd tree", mon_osd_tree_of_json(&om, mask));
	osdmap_clear(&om);
}

void
cmd_mon_osd_dump(struct cmd_req *r, json_t *cmd)
{
	struct osdmap om;

	if (cmd_mon_osdmap_at(r, cmd, &om) != 0)
		return;
	cmd_replyf(r, 0, osdmap_to_json(&om), "dumped osdmap epoch %u",
	    om.epoch);
	osdmap_clear(&om);
}

void
cmd_mon_osd_getmap(struct cmd_req *r, json_t *cmd)
{
	struct osdmap om;

	if (cmd_mon_osdmap_at(r, cmd, &om) != 0)
		return;
	cmd_replyf(r, 0, osdmap_to_json(&om), "got osdmap epoch %u", om.epoch);
	osdmap_clear(&om);
}

void
cmd_mon_osd_ls(struct cmd_req *r, json_t *cmd)
{
	struct osdmap om;
	json_t *a;
	uint32_t k;

	if (cmd_mon_osdmap_at(r, cmd, &om) != 0)
		return;
	a = json_array();
	for (k = 0; k < om.max_osd; k++)
		if (om.osds[k].exists)
			json_array_append_new(a, json_integer((json_int_t)k));
	cmd_replyf(r, 0, a, "%zu osds", json_array_size(a));
	osdmap_clear(&om);
}

void
cmd_mon_osd_find(struct cmd_req *r, json_t *cmd)
{
	json_t *out = NULL;
	char *status = NULL;
	int rc;

	rc = mon_osd_find_json(r->ctx->mon, cmd_get_osd(cmd, "id", 0), &out,
	    &status);
	cmd_answer(r, rc, out, status);
}

void
cmd_mon_osd_pause(struct cmd_req *r, json_t *cmd)
{
	(void)cmd;
	mon_osd_set_flag(r->ctx->mon, "pause", 1, cmd_done, r);
}

void
cmd_mon_osd_unpause(struct cmd_req *r, json_t *cmd)
{
	(void)cmd;
	mon_osd_set_flag(r->ctx->mon, "pause", 0, cmd_done, r);
}

void
cmd_mon_log(struct cmd_req *r, json_t *cmd)
{
	json_t *v;
	char *text = xstrdup(""), *t;
	size_t i;

	/* Ceph joins the words with a space each. */
	json_array_foreach(json_object_get(cmd, "logtext"), i, v) {
		xasprintf(&t, "%s%s%s", text, i ? " " : "",
		    json_string_value(v));
		free(text);
		text = t;
	}
	mon_log_text(r->ctx->mon, text, cmd_done, r);
	free(text);
}

void
cmd_mon_fsid(struct cmd_req *r, json_t *cmd)
{
	const char *fsid = mon_monmap(r->ctx->mon)->fsid;

	(void)cmd;
	cmd_reply(r, 0, fsid, json_pack("{s:s}", "fsid", fsid));
}

void
cmd_mon_report(struct cmd_req *r, json_t *cmd)
{
	json_t *a = json_object_get(cmd, "tags"), *v;
	const char **tags;
	size_t i, n = json_array_size(a);

	tags = xcalloc(n ? n : 1, sizeof *tags);
	json_array_foreach(a, i, v)
		tags[i] = json_string_value(v);
	cmd_reply(r, 0, "report", mon_report_json(r->ctx->mon, tags, n));
	free(tags);
}

void
cmd_mon_osd_stat(struct cmd_req *r, json_t *cmd)
{
	json_t *s = mon_osd_stat_json(r->ctx->mon);

	(void)cmd;
	cmd_replyf(r, 0, s, "%lld osds: %lld up, %lld in; epoch e%lld",
	    (long long)json_integer_value(json_object_get(s, "num_osds")),
	    (long long)json_integer_value(json_object_get(s, "num_up_osds")),
	    (long long)json_integer_value(json_object_get(s, "num_in_osds")),
	    (long long)json_integer_value(json_object_get(s, "epoch")));
}

void
cmd_mon_osd_set(struct cmd_req *r, json_t *cmd)
{
	mon_osd_set_flag(r->ctx->mon, cmd_get_str(cmd, "key"), 1, cmd_done,
	    r);
}

void
cmd_mon_osd_unset(struct cmd_req *r, json_t *cmd)
{
	mon_osd_set_flag(r->ctx->mon, cmd_get_str(cmd, "key"), 0, cmd_done,
	    r);
}

void
cmd_mon_pool_create(struct cmd_req *r, json_t *cmd)
{
	const char *type = cmd_get_str(cmd, "pool_type");

	/* Ceph's other type; mapmon places replicas only (mapmon(8)). */
	if (type != NULL && strcmp(type, "erasure") == 0) {
		cmd_reply(r, -EOPNOTSUPP,
		    "erasure-coded pools are not "
		    "supported: mapmon's pools are replicated",
		    NULL);
		return;
	}
	mon_pool_create(r->ctx->mon, cmd_get_str(cmd, "pool"),
	    cmd_get_int(cmd, "pg_num", 0), cmd_get_int(cmd, "pgp_num", 0),
	    cmd_get_int(cmd, "size", 0), cmd_get_str(cmd, "rule"), cmd_done, r);
}

void
cmd_mon_pool_ls(struct cmd_req *r, json_t *cmd)
{
	json_t *a = mon_pool_ls_json(r->ctx->mon, cmd_has(cmd, "detail"));

	cmd_replyf(r, 0, a, "%zu pools", json_array_size(a));
}

void
cmd_mon_pool_rename(struct cmd_req *r, json_t *cmd)
{
	mon_pool_rename(r->ctx->mon, cmd_get_str(cmd, "srcpool"),
	    cmd_get_str(cmd, "destpool"), cmd_done, r);
}

void
cmd_mon_pool_delete(struct cmd_req *r, json_t *cmd)
{
	mon_pool_delete(r->ctx->mon, cmd_get_str(cmd, "pool"),
	    cmd_get_str(cmd, "pool2"),
	    json_is_true(json_object_get(cmd, "yes_i_really_really_mean_it")),
	    cmd_done, r);
}

void
cmd_mon_pool_set(struct cmd_req *r, json_t *cmd)
{
	char val[128];

	mon_pool_set(r->ctx->mon, cmd_get_str(cmd, "pool"),
	    cmd_get_str(cmd, "var"), cmd_get_value(cmd, "val", val, sizeof val),
	    json_is_true(json_object_get(cmd, "yes_i_really_mean_it")),
	    cmd_done, r);
}

void
cmd_mon_pool_app_enable(struct cmd_req *r, json_t *cmd)
{
	mon_pool_application(r->ctx->mon, 1, cmd_get_str(cmd, "pool"),
	    cmd_get_str(cmd, "app"),
	    json_is_true(json_object_get(cmd, "yes_i_really_mean_it")),
	    cmd_done, r);
}

void
cmd_mon_pool_app_disable(struct cmd_req *r, json_t *cmd)
{
	mon_pool_application(r->ctx->mon, 0, cmd_get_str(cmd, "pool"),
	    cmd_get_str(cmd, "app"),
	    json_is_true(json_object_get(cmd, "yes_i_really_mean_it")),
	    cmd_done, r);
}

void
cmd_mon_pool_app_get(struct cmd_req *r, json_t *cmd)
{
	json_t *out = NULL;
	char *status = NULL;
	int rc;

	rc = mon_pool_application_get_json(r->ctx->mon,
	    cmd_get_str(cmd, "pool"), cmd_get_str(cmd, "app"),
	    cmd_get_str(cmd, "key"), &out, &status);
	cmd_answer(r, rc, out, status);
}

void
cmd_mon_pool_get(struct cmd_req *r, json_t *cmd)
{
	json_t *out = NULL;
	char *status = NULL;
	int rc;

	rc = mon_pool_get_json(r->ctx->mon, cmd_get_str(cmd, "pool"),
	    cmd_get_str(cmd, "var"), &out, &status);
	cmd_answer(r, rc, out, status);
}

void
cmd_mon_pg_stat(struct cmd_req *r, json_t *cmd)
{
	json_t *s = mon_pg_stat_json(r->ctx->mon);

	(void)cmd;
	cmd_replyf(r, 0, s, "v%lld: %lld pgs",
	    (long long)json_integer_value(json_object_get(s, "version")),
	    (long long)json_integer_value(json_object_get(s, "num_pgs")));
}

/*
 * A listing of PGs goes out as the monitor writes it, a slice per piece of
 * a reply in parts (server_reply_stream()): the server asks for the next
 * slice once the last has been written out, so that neither the text nor
 * the loop is held for the whole listing.
 */
struct cmd_mon_listing {
	struct cmd_req *r;
	struct mon_pg_walk *w;
	struct pg_text t; /* its stamp and state cache; no buffer */
};

static int
cmd_mon_listing_fill(void *arg, struct enc_buf *out, char **status)
{
	struct cmd_mon_listing *l = arg;
	int done;

	/* The writer appends to the server's buffer, lent for the call. */
	l->t.buf = *out;
	done = mon_pg_walk_next(l->w, &l->t, status);
	*out = l->t.buf;
	memset(&l->t.buf, 0, sizeof l->t.buf);
	return done;
}

static void
cmd_mon_listing_free(struct cmd_mon_listing *l)
{
	mon_pg_walk_free(l->w);
	pg_text_free(&l->t);
	free(l);
}

static void
cmd_mon_listing_done(void *arg, int rc)
{
	struct cmd_mon_listing *l = arg;

	cmd_req_end(l->r, rc);
	cmd_mon_listing_free(l);
}

static const struct server_stream_ops cmd_mon_listing_ops = {
	.fill = cmd_mon_listing_fill,
	.done = cmd_mon_listing_done,
};

/* Answer r with walk w's listing; or with rc and status, when rc < 0. */
static void
cmd_mon_listing(struct cmd_req *r, int rc, struct mon_pg_walk *w, char *status)
{
	struct cmd_mon_listing *l;

	if (rc != 0) {
		cmd_reply(r, rc, status, NULL);
		free(status);
		return;
	}
	l = xcalloc(1, sizeof *l);
	l->r = r;
	l->w = w;
	pg_text_init(&l->t);
	if (r->ctx->server == NULL ||
	    server_reply_stream(r->ctx->server, r->conn, r->id,
		&cmd_mon_listing_ops, l) == -1)
		cmd_mon_listing_done(l, 0); /* the connection has gone */
}

/* The strings of cmd's array key (checked), in a new array of *n. */
static const char **
cmd_mon_strings(json_t *cmd, const char *key, size_t *n)
{
	json_t *a = json_object_get(cmd, key), *v;
	const char **out;
	size_t i;

	*n = json_array_size(a);
	out = xcalloc(*n ? *n : 1, sizeof *out);
	json_array_foreach(a, i, v)
		out[i] = json_string_value(v);
	return out;
}

void
cmd_mon_pg_dump(struct cmd_req *r, json_t *cmd)
{
	struct mon_pg_walk *w = NULL;
	const char **what;
	char *status = NULL;
	size_t n;
	int rc;

	what = cmd_mon_strings(cmd, "dumpcontents", &n);
	rc = mon_pg_dump_walk(r->ctx->mon, what, n, &w, &status);
	free(what);
	cmd_mon_listing(r, rc, w, status);
}

/* `pg ls' and its kin: q's pool and OSD set, the states from cmd. */
static void
cmd_mon_pg_ls_query(struct cmd_req *r, json_t *cmd, struct mon_pg_ls *q)
{
	struct mon_pg_walk *w = NULL;
	char *status = NULL;
	int rc;

	q->states = cmd_mon_strings(cmd, "states", &q->nstates);
	rc = mon_pg_ls_walk(r->ctx->mon, q, &w, &status);
	free((void *)q->states);
	cmd_mon_listing(r, rc, w, status);
}

void
cmd_mon_pg_ls(struct cmd_req *r, json_t *cmd)
{
	struct mon_pg_ls q = { .pool_id = cmd_get_int(cmd, "pool", -1),
		.pool = cmd_get_str(cmd, "poolstr"),
		.osd = -1 };

	cmd_mon_pg_ls_query(r, cmd, &q);
}

void
cmd_mon_pg_ls_by_pool(struct cmd_req *r, json_t *cmd)
{
	struct mon_pg_ls q = { .pool_id = -1,
		.pool = cmd_get_str(cmd, "poolstr"),
		.pool_by_name = 1,
		.osd = -1 };

	cmd_mon_pg_ls_query(r, cmd, &q);
}

void
cmd_mon_pg_ls_by_primary(struct cmd_req *r, json_t *cmd)
{
	struct mon_pg_ls q = { .pool_id = cmd_get_int(cmd, "pool", -1),
		.osd = cmd_get_osd(cmd, "osd", 0),
		.primary = 1 };

	cmd_mon_pg_ls_query(r, cmd, &q);
}

void
cmd_mon_pg_ls_by_osd(struct cmd_req *r, json_t *cmd)
{
	struct mon_pg_ls q = { .pool_id = cmd_get_int(cmd, "pool", -1),
		.osd = cmd_get_osd(cmd, "osd", 0) };

	cmd_mon_pg_ls_query(r, cmd, &q);
}

void
cmd_mon_pg_query(struct cmd_req *r, json_t *cmd)
{
	cmd_answer_read(r, cmd, "pgid", mon_pg_query_json);
}

void
cmd_mon_pg_map(struct cmd_req *r, json_t *cmd)
{
	cmd_answer_read(r, cmd, "pgid", mon_pg_map_json);
}

void
cmd_mon_pg_dump_stuck(struct cmd_req *r, json_t *cmd)
{
	struct mon_pg_walk *w = NULL;
	const char **what;
	char *status = NULL;
	int64_t threshold = cmd_get_int(cmd, "threshold", -1);
	size_t n;
	int rc;

	what = cmd_mon_strings(cmd, "stuckops", &n);
	/*
	 * Ceph takes any int; below 0 its cutoff is ahead of every stamp,
	 * as at 0: every PG in the states.
	 */
	rc = mon_pg_dump_stuck_walk(r->ctx->mon, what, n,
	    threshold < 0 && cmd_has(cmd, "threshold") ? 0 : threshold, &w,
	    &status);
	free(what);
	cmd_mon_listing(r, rc, w, status);
}

void
cmd_mon_log_last(struct cmd_req *r, json_t *cmd)
{
	json_t *a;

	static const char *const levels[] = { "debug", "info", "sec", "warn",
		"error" };
	/* mapmon writes no security entries: "sec" is warn or worse. */
	static const int severity[] = { MON_LOG_DEBUG, MON_LOG_INFO,
		MON_LOG_WARN, MON_LOG_WARN, MON_LOG_ERROR };
	const char *level = cmd_get_str(cmd, "level");
	const char *channel = cmd_get_str(cmd, "channel");
	size_t i, k = 1;

	/*
	 * Ceph's defaults: 20 entries of info or worse of the cluster
	 * channel, mapmon's only one.
	 */
	for (i = 0; level != NULL && i < nitems(levels); i++)
		if (strcmp(level, levels[i]) == 0)
			k = i;
	a = mon_log_tail_json(r->ctx->mon, (size_t)cmd_get_int(cmd, "num", 20),
	    severity[k],
	    channel == NULL || strcmp(channel, "*") == 0 ||
		strcmp(channel, "cluster") == 0);
	cmd_replyf(r, 0, a, "%zu entries", json_array_size(a));
}

void
cmd_mon_subscribe(struct cmd_req *r, json_t *cmd)
{
	struct cmd_ctx *ctx = r->ctx;
	struct sub_one *one;
	const char *what = cmd_get_str(cmd, "what");
	char *status = NULL;
	int rc = 0;

	/* A commit being applied is pushed to the others before this starts. */
	mon_settle(ctx->mon);
	one = sub_add(ctx->sub, r->conn, r->id, sub_what_parse(what),
	    cmd_has(cmd, "start"), cmd_get_int(cmd, "start", 0), &rc,
	    &status);
	if (one == NULL) {
		cmd_reply(r, rc, status, NULL);
		free(status);
		return;
	}
	/* The reply leaves first, so the client knows the id of the pushes. */
	cmd_replyf(r, 0, NULL, "subscribed to %s", what);
	sub_start(ctx->sub, one);
}

/*
 * Ceph's quorum_status: election epoch, quorum ranks and names, leader,
 * age and the monmap; with several monitors also "raft", the engine's
 * figures (mapmon(8)).
 */
void
cmd_quorum_status(struct cmd_req *r, json_t *cmd)
{
	const struct monmap *mm = mon_monmap(r->ctx->mon);
	struct quorum *q = quorum_current();
	json_t *o, *st;

	(void)cmd;
	if (q != NULL) {
		cmd_reply(r, 0, "", quorum_status_json(q, mm));
		return;
	}
	/* One monitor: its own quorum, as `status' says it. */
	st = mon_status_json(r->ctx->mon);
	o = json_pack("{s:I, s:[I], s:[s], s:s, s:O, s:o}", "election_epoch",
	    (json_int_t)1, "quorum", (json_int_t)0, "quorum_names",
	    mm->mons[0].name, "quorum_leader_name", mm->mons[0].name,
	    "quorum_age", json_object_get(st, "quorum_age"), "monmap",
	    monmap_to_json(mm));
	json_decref(st);
	cmd_reply(r, 0, "", o);
}
