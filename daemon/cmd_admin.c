/*
 * cmd_admin.c: the daemon's own commands: its debug log, its config, its
 * counters and its store.
 *
 * `store compact` runs store_compact() on a thread of its own: LevelDB
 * compacting the whole key range can take seconds, and the loop must not
 * wait for it (on LMDB it returns at once).  It compacts the store a key
 * range after another (mon_compact_ranges(): a few megabytes each), so
 * that a shutdown stops it between two rather than waiting for the whole.
 * The thread hands its result back through an eventfd, as the committer
 * does, and the request is answered on the loop.
 */
#include "config.h"

#include <sys/eventfd.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "common/suggest.h"
#include "conf/conf.h"
#include "daemon/cmd_priv.h"
#include "daemon/forward.h"
#include "daemon/sub.h"
#include "net/server.h"

static void
cmd_admin_log_entry(const struct log_entry_view *v, void *arg)
{
	json_t *a = arg;
	char stamp[STAMP_BUFSIZE];
	int64_t us;

	us = (int64_t)v->stamp.tv_sec * 1000000 + v->stamp.tv_nsec / 1000;
	json_array_append_new(a, json_pack("{s:s, s:I, s:s, s:i, s:s%}",
	    "stamp", stamp_format(us, stamp, sizeof stamp), "thread",
	    (json_int_t)v->tid, "subsys", v->subsys_name, "level", v->level,
	    "message", v->text, v->len));
}

void
cmd_admin_log_dump(struct cmd_req *r, json_t *cmd)
{
	json_t *a = json_array();

	(void)cmd;
	log_recent_foreach(cmd_admin_log_entry, a);
	cmd_replyf(r, 0, a, "%zu recent entries", json_array_size(a));
}

static json_t *
cmd_admin_key_json(const struct conf *c, enum conf_key k, int with_default)
{
	char name[128], *value;
	json_t *o;

	conf_fullname(k, name, sizeof name);
	value = conf_format(c, k);
	o = json_pack("{s:s, s:s, s:b}", "name", name, "value", value,
	    "runtime", conf_options[k].runtime);
	if (with_default)
		json_object_set_new(o, "default",
		    json_string(conf_options[k].def));
	free(value);
	return o;
}

void
cmd_admin_config_show(struct cmd_req *r, json_t *cmd)
{
	json_t *a = json_array();
	int k;

	(void)cmd;
	for (k = 0; k < CONF_NKEYS; k++)
		json_array_append_new(a, cmd_admin_key_json(r->ctx->conf,
		    (enum conf_key)k, 1));
	cmd_replyf(r, 0, a, "%d keys", CONF_NKEYS);
}

/*
 * Ceph's names of the options that are mapmon's keys (the same option:
 * src/common/options.cc), and the unit of Ceph's value where it differs
 * (Ceph counts those durations in seconds; mapmon writes "10m").
 */
enum cmd_conf_unit { CMD_CONF_SAME, CMD_CONF_SECS, CMD_CONF_FSECS };
static const struct {
	const char *name;
	enum conf_key key;
	enum cmd_conf_unit unit;
} cmd_conf_ceph[] = {
	{ "mon_allow_pool_delete", CONF_MON_ALLOW_POOL_DELETE, CMD_CONF_SAME },
	{ "mon_allow_pool_size_one", CONF_MON_ALLOW_POOL_SIZE_ONE,
	    CMD_CONF_SAME },
	{ "mon_osd_down_out_interval", CONF_MON_OSD_DOWN_OUT_INTERVAL,
	    CMD_CONF_SECS },
	{ "osd_heartbeat_grace", CONF_MON_OSD_HEARTBEAT_GRACE, CMD_CONF_SECS },
	{ "mon_osd_min_down_reporters", CONF_MON_OSD_MIN_DOWN_REPORTERS,
	    CMD_CONF_SAME },
	{ "mon_osd_reporter_subtree_level", CONF_MON_OSD_REPORTER_SUBTREE_LEVEL,
	    CMD_CONF_SAME },
	{ "mon_osd_report_timeout", CONF_MON_OSD_REPORT_TIMEOUT,
	    CMD_CONF_SECS },
	{ "mon_osd_min_in_ratio", CONF_MON_OSD_MIN_IN_RATIO, CMD_CONF_SAME },
	{ "mon_pg_stuck_threshold", CONF_MON_PG_STUCK_THRESHOLD,
	    CMD_CONF_SECS },
	{ "mon_data_size_warn", CONF_MON_DATA_SIZE_WARN, CMD_CONF_SAME },
	{ "mon_data_avail_warn", CONF_MON_DATA_AVAIL_WARN, CMD_CONF_SAME },
	{ "mon_data_avail_crit", CONF_MON_DATA_AVAIL_CRIT, CMD_CONF_SAME },
	{ "mon_log_max", CONF_MON_LOG_MAX_ENTRIES, CMD_CONF_SAME },
	{ "mon_min_osdmap_epochs", CONF_MON_MIN_EPOCHS, CMD_CONF_SAME },
	{ "mon_max_pool_pg_num", CONF_MON_MAX_POOL_PG_NUM, CMD_CONF_SAME },
	{ "mon_max_pg_per_osd", CONF_MON_MAX_PG_PER_OSD, CMD_CONF_SAME },
	{ "mon_max_osd", CONF_MON_MAX_OSD, CMD_CONF_SAME },
	{ "osd_pool_default_pg_num", CONF_MON_OSD_POOL_DEFAULT_PG_NUM,
	    CMD_CONF_SAME },
	{ "osd_pool_default_size", CONF_MON_OSD_POOL_DEFAULT_SIZE,
	    CMD_CONF_SAME },
	{ "paxos_propose_interval", CONF_MON_PROPOSE_INTERVAL, CMD_CONF_FSECS },
	{ "mon_data", CONF_MON_DATA, CMD_CONF_SAME },
	{ "log_file", CONF_LOG_FILE, CMD_CONF_SAME },
	{ "log_max_recent", CONF_LOG_MAX_RECENT, CMD_CONF_SAME },
	{ "debug_mon", CONF_LOG_DEBUG_MON, CMD_CONF_SAME },
};

/* The name config dump shows for k: Ceph's, else SECTION.KEY. */
static const char *
cmd_conf_name(enum conf_key k, char *buf, size_t len, enum cmd_conf_unit *u)
{
	size_t i;

	*u = CMD_CONF_SAME;
	for (i = 0; i < nitems(cmd_conf_ceph); i++)
		if (cmd_conf_ceph[i].key == k) {
			*u = cmd_conf_ceph[i].unit;
			return cmd_conf_ceph[i].name;
		}
	return conf_fullname(k, buf, len);
}

/*
 * The key NAME names, in Ceph's form (ConfFile::normalize_key_name():
 * '-' and ' ' are '_'): one of Ceph's names above, mapmon's SECTION.KEY,
 * or a key name that only one section has; -1 for none.
 */
static int
cmd_conf_lookup(const char *name, enum cmd_conf_unit *u)
{
	char norm[128], *p;
	size_t i;
	int k, found = -1;

	*u = CMD_CONF_SAME;
	snprintf(norm, sizeof norm, "%s", name);
	for (p = norm; *p != '\0'; p++)
		if (*p == '-' || *p == ' ')
			*p = '_';
	for (i = 0; i < nitems(cmd_conf_ceph); i++)
		if (strcmp(cmd_conf_ceph[i].name, norm) == 0) {
			*u = cmd_conf_ceph[i].unit;
			return (int)cmd_conf_ceph[i].key;
		}
	if ((k = conf_find(norm)) != -1)
		return k;
	for (k = 0; k < CONF_NKEYS; k++)
		if (strcmp(conf_options[k].name, norm) == 0) {
			if (found != -1)
				return -1;
			found = k;
		}
	return found;
}

/* k's value as Ceph writes it (seconds where Ceph counts seconds). */
static char *
cmd_conf_value(const struct conf *c, enum conf_key k, enum cmd_conf_unit u)
{
	int64_t ms;
	char *s;

	if (u == CMD_CONF_SAME)
		return conf_format(c, k);
	ms = conf_int(c, k);
	if (u == CMD_CONF_SECS && ms % 1000 == 0)
		xasprintf(&s, "%lld", (long long)(ms / 1000));
	else
		xasprintf(&s, "%g", (double)ms / 1000);
	return s;
}

/*
 * VALUE in mapmon's form: a bare number of seconds where Ceph counts
 * seconds becomes "Ns" ("Nms"); mapmon's own "10m" is taken as well.
 * Caller frees.
 */
static char *
cmd_conf_parse(const char *value, enum cmd_conf_unit u)
{
	char *end, *s;
	double d;

	if (u != CMD_CONF_SAME && *value != '\0') {
		errno = 0;
		d = strtod(value, &end);
		if (*end == '\0' && errno == 0 && d >= 0 && d < 1e12 &&
		    (u == CMD_CONF_FSECS ||
			strspn(value, "0123456789") == strlen(value))) {
			xasprintf(&s, "%lldms", (long long)(d * 1000 + 0.5));
			return s;
		}
	}
	return xstrdup(value);
}

/*
 * Ceph's WHO, as ConfigMap::parse_mask() takes it: 1 for this monitor
 * (global, mon, mon.NAME), 0 for another entity (mapmon keeps the
 * monitors' config only, each in the monitor itself), -1 for no entity.
 */
static int
cmd_conf_who(const struct cmd_ctx *ctx, const char *who)
{
	static const char *const types[] = { "mon", "mgr", "osd", "mds",
		"client", NULL };
	const char *dot;
	size_t i, n;

	if (strcmp(who, "global") == 0 || strcmp(who, "mon") == 0)
		return 1;
	if (strncmp(who, "mon.", 4) == 0 &&
	    strcmp(who + 4, conf_str(ctx->conf, CONF_MON_NAME)) == 0)
		return 1;
	dot = strchr(who, '.');
	n = dot != NULL ? (size_t)(dot - who) : strcspn(who, "/");
	for (i = 0; types[i] != NULL; i++)
		if (strlen(types[i]) == n && strncmp(who, types[i], n) == 0 &&
		    (dot == NULL || dot[1] != '\0'))
			return 0;
	return -1;
}

/* cmd_conf_who(), answering r (EINVAL) when WHO is not this monitor. */
static int
cmd_conf_who_check(struct cmd_req *r, const char *who, const char *what)
{
	const char *me = conf_str(r->ctx->conf, CONF_MON_NAME);

	switch (cmd_conf_who(r->ctx, who)) {
	case 1:
		return 0;
	case 0:
		cmd_replyf(r, -EINVAL, NULL,
		    "mapmon keeps the config of its "
		    "monitors only, each in the monitor itself: WHO is "
		    "global, mon or mon.%s here, not '%.64s'",
		    me, who);
		return -1;
	default:
		cmd_replyf(r, -EINVAL, NULL, "unrecognized %s '%.64s'", what,
		    who);
		return -1;
	}
}

/* Whether k holds a value config set put there (and SIGHUP left). */
static int
cmd_conf_is_set(const struct cmd_ctx *ctx, enum conf_key k)
{
	const struct cmd_conf_set *cs = &ctx->conf_sets[k];
	char *cur;
	int same;

	if (cs->value == NULL)
		return 0;
	cur = conf_format(ctx->conf, k);
	same = strcmp(cur, cs->value) == 0;
	free(cur);
	return same;
}

static void
cmd_conf_forget(struct cmd_ctx *ctx, enum conf_key k)
{
	struct cmd_conf_set *cs = &ctx->conf_sets[k];

	free(cs->who);
	free(cs->value);
	free(cs->prior);
	memset(cs, 0, sizeof *cs);
}

/* The key named in key (SECTION.KEY), or -1 after answering r. */
static int
cmd_admin_key(struct cmd_req *r, const char *key)
{
	struct suggest sg;
	char name[128];
	int k, best = -1;

	if ((k = conf_find(key)) != -1)
		return k;
	suggest_init(&sg, key);
	for (k = 0; k < CONF_NKEYS; k++) {
		conf_fullname((enum conf_key)k, name, sizeof name);
		if (suggest_offer(&sg, name))
			best = k;
	}
	if (best != -1) {
		conf_fullname((enum conf_key)best, name, sizeof name);
		cmd_replyf(r, -ENOENT, NULL, "no config key '%.128s'; did you "
		    "mean '%s'?", key, name);
	} else
		cmd_replyf(r, -ENOENT, NULL, "no config key '%.128s' (keys are "
		    "SECTION.KEY, as in log.debug_mon)", key);
	return -1;
}

/*
 * mapmon's own form, SECTION.KEY: given as "key", or as Ceph's WHO alone
 * when it is not a WHO of this monitor (`config get mon.propose_interval`).
 */
static const char *
cmd_conf_own_key(struct cmd_ctx *ctx, json_t *cmd)
{
	const char *who = cmd_get_str(cmd, "who");

	if (cmd_has(cmd, "key"))
		return cmd_get_str(cmd, "key");
	if (who != NULL && !cmd_has(cmd, "name") &&
	    (conf_find(who) != -1 ||
		(strchr(who, '.') != NULL && cmd_conf_who(ctx, who) != 1)))
		return who;
	return NULL;
}

/* One option of config dump and config get WHO, as Ceph's dump() writes. */
static json_t *
cmd_conf_entry(const struct cmd_ctx *ctx, enum conf_key k, const char *name,
    enum cmd_conf_unit u)
{
	char *value = cmd_conf_value(ctx->conf, k, u);
	json_t *o;

	o = json_pack("{s:s, s:s, s:s, s:s, s:b, s:s}", "section",
	    ctx->conf_sets[k].who, "name", name, "value", value, "level",
	    "advanced", "can_update_at_runtime", conf_options[k].runtime,
	    "mask", "");
	free(value);
	return o;
}

static int
cmd_conf_entry_cmp(const void *a, const void *b)
{
	const json_t *x = *(const json_t *const *)a;
	const json_t *y = *(const json_t *const *)b;
	const char *sx = json_string_value(json_object_get(x, "section"));
	const char *sy = json_string_value(json_object_get(y, "section"));
	int rx, ry;

	/* Ceph's order: global, the type (mon), the ids (mon.a); by name. */
	rx = strcmp(sx, "global") == 0 ? 0 : strchr(sx, '.') == NULL ? 1 : 2;
	ry = strcmp(sy, "global") == 0 ? 0 : strchr(sy, '.') == NULL ? 1 : 2;
	if (rx != ry)
		return rx - ry;
	if (strcmp(sx, sy) != 0)
		return strcmp(sx, sy);
	return strcmp(json_string_value(json_object_get(x, "name")),
	    json_string_value(json_object_get(y, "name")));
}

/* The options config set holds, in Ceph's order of config dump. */
static json_t *
cmd_conf_entries(const struct cmd_ctx *ctx)
{
	json_t *list[CONF_NKEYS], *a;
	enum cmd_conf_unit u;
	char buf[128];
	const char *name;
	size_t n = 0, i;
	int k;

	for (k = 0; k < CONF_NKEYS; k++) {
		if (!cmd_conf_is_set(ctx, (enum conf_key)k))
			continue;
		name = cmd_conf_name((enum conf_key)k, buf, sizeof buf, &u);
		list[n++] = cmd_conf_entry(ctx, (enum conf_key)k, name, u);
	}
	qsort(list, n, sizeof list[0], cmd_conf_entry_cmp);
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, list[i]);
	return a;
}

void
cmd_admin_config_get(struct cmd_req *r, json_t *cmd)
{
	const char *key, *who, *name;
	enum cmd_conf_unit u;
	json_t *o, *a, *e;
	char *value;
	size_t i;
	int k;

	if ((key = cmd_conf_own_key(r->ctx, cmd)) != NULL) {
		if ((k = cmd_admin_key(r, key)) == -1)
			return;
		o = cmd_admin_key_json(r->ctx->conf, (enum conf_key)k, 0);
		cmd_reply(r, 0, json_string_value(json_object_get(o, "value")),
		    o);
		return;
	}
	if ((who = cmd_get_str(cmd, "who")) == NULL) {
		cmd_reply(r, -EINVAL,
		    "config get: missing WHO (usage: config "
		    "get WHO [NAME])",
		    NULL);
		return;
	}
	if (cmd_conf_who_check(r, who, "entity") == -1)
		return;
	if ((name = cmd_get_str(cmd, "name")) == NULL) {
		/* ConfigMonitor: WHO's values, an object by option name. */
		a = cmd_conf_entries(r->ctx);
		o = json_object();
		json_array_foreach(a, i, e) {
			json_object_set(o,
			    json_string_value(json_object_get(e, "name")), e);
			json_object_del(e, "name");
		}
		json_decref(a);
		cmd_reply(r, 0, "", o);
		return;
	}
	/* Ceph: "unrecognized key", ENOENT (ConfigMonitor, config get). */
	if ((k = cmd_conf_lookup(name, &u)) == -1) {
		cmd_replyf(r, -ENOENT, NULL, "unrecognized key '%.128s'", name);
		return;
	}
	value = cmd_conf_value(r->ctx->conf, (enum conf_key)k, u);
	o = json_pack("{s:s, s:s, s:b}", "name", name, "value", value,
	    "runtime", conf_options[k].runtime);
	free(value);
	cmd_reply(r, 0, "", o);
}

/*
 * Set key k to text (mapmon's form), as config set asked for WHO; 0, or
 * an errno with *status (caller frees).  ceph_form: Ceph's words for a
 * value that does not parse.
 */
static int
cmd_conf_set_key(struct cmd_ctx *ctx, enum conf_key k, const char *text,
    const char *who, int ceph_form, char **status)
{
	struct cmd_conf_set *cs = &ctx->conf_sets[k];
	char name[128], *old, *cause = NULL;

	conf_fullname(k, name, sizeof name);
	if (!conf_options[k].runtime) {
		xasprintf(status,
		    "%s cannot change at run time; edit the file "
		    "and restart",
		    name);
		return -EINVAL;
	}
	old = conf_format(ctx->conf, k);
	if (conf_set(ctx->conf, k, text, &cause) == -1) {
		if (ceph_form)
			xasprintf(status, "error parsing value: %s", cause);
		else
			*status = xstrdup(cause);
		free(cause);
		free(old);
		return -EINVAL;
	}
	/* A value the file would refuse next to the others is refused here. */
	if (conf_check(ctx->conf, &cause) == -1) {
		xasprintf(status, "%s = %s refused: %s", name, text, cause);
		free(cause);
		cause = NULL;
		if (conf_set(ctx->conf, k, old, &cause) == -1) {
			log_warnx("config set: cannot restore %s = '%s': %s",
			    name, old, cause);
			free(cause);
		}
		free(old);
		return -EINVAL;
	}
	if (ctx->apply != NULL)
		ctx->apply(ctx->apply_arg);
	log_info("config set: %s changed from '%s' to '%s'", name, old, text);
	/* What config rm goes back to: the value before the first set. */
	if (!cmd_conf_is_set(ctx, k)) {
		cmd_conf_forget(ctx, k);
		cs->prior = old;
	} else
		free(old);
	free(cs->who);
	free(cs->value);
	cs->who = xstrdup(who);
	cs->value = conf_format(ctx->conf, k);
	return 0;
}

void
cmd_admin_config_set(struct cmd_req *r, json_t *cmd)
{
	struct cmd_ctx *ctx = r->ctx;
	const char *key, *who, *name, *value;
	enum cmd_conf_unit u;
	char fullname[128], *status = NULL, *text;
	int k, rc;

	who = cmd_get_str(cmd, "who");
	name = cmd_get_str(cmd, "name");
	value = cmd_get_str(cmd, "value");
	/* mapmon's own form: SECTION.KEY VALUE (the CLI's WHO NAME). */
	key = cmd_get_str(cmd, "key");
	if (key == NULL && value == NULL && who != NULL && name != NULL &&
	    (conf_find(who) != -1 || cmd_conf_who(ctx, who) == -1)) {
		key = who;
		value = name;
	}
	if (key != NULL) {
		if (value == NULL) {
			cmd_reply(r, -EINVAL,
			    "config set: missing VALUE "
			    "(usage: config set SECTION.KEY VALUE)",
			    NULL);
			return;
		}
		if ((k = cmd_admin_key(r, key)) == -1)
			return;
		conf_fullname((enum conf_key)k, fullname, sizeof fullname);
		rc = cmd_conf_set_key(ctx, (enum conf_key)k, value, "mon", 0,
		    &status);
		if (rc != 0)
			cmd_reply(r, rc, status, NULL);
		else
			cmd_replyf(r, 0,
			    cmd_admin_key_json(ctx->conf, (enum conf_key)k, 0),
			    "%s = %s", fullname, value);
		free(status);
		return;
	}
	if (who == NULL || name == NULL || value == NULL) {
		cmd_reply(r, -EINVAL,
		    "config set: missing argument (usage: "
		    "config set WHO NAME VALUE)",
		    NULL);
		return;
	}
	/* Ceph's order of checks: the option, its value, then WHO. */
	if ((k = cmd_conf_lookup(name, &u)) == -1) {
		cmd_replyf(r, -EINVAL, NULL,
		    "unrecognized config option "
		    "'%.128s'",
		    name);
		return;
	}
	if (cmd_conf_who_check(r, who, "config target") == -1)
		return;
	text = cmd_conf_parse(value, u);
	rc = cmd_conf_set_key(ctx, (enum conf_key)k, text, who, 1, &status);
	free(text);
	/* Ceph says nothing on success. */
	cmd_reply(r, rc, rc != 0 ? status : "", NULL);
	free(status);
}

void
cmd_admin_config_rm(struct cmd_req *r, json_t *cmd)
{
	struct cmd_ctx *ctx = r->ctx;
	struct cmd_conf_set *cs;
	enum cmd_conf_unit u;
	char fullname[128], *cause = NULL;
	int k;

	if (cmd_conf_who_check(r, cmd_get_str(cmd, "who"), "config target") ==
	    -1)
		return;
	/* Ceph: removing what is not set, or no option at all, is 0. */
	k = cmd_conf_lookup(cmd_get_str(cmd, "name"), &u);
	if (k == -1 || !cmd_conf_is_set(ctx, (enum conf_key)k)) {
		if (k != -1)
			cmd_conf_forget(ctx, (enum conf_key)k);
		cmd_reply(r, 0, "", NULL);
		return;
	}
	cs = &ctx->conf_sets[k];
	conf_fullname((enum conf_key)k, fullname, sizeof fullname);
	if (conf_set(ctx->conf, (enum conf_key)k, cs->prior, &cause) == -1) {
		cmd_replyf(r, -EINVAL, NULL,
		    "config rm: cannot restore %s = "
		    "'%s': %s",
		    fullname, cs->prior, cause);
		free(cause);
		return;
	}
	if (ctx->apply != NULL)
		ctx->apply(ctx->apply_arg);
	log_info("config rm: %s back to '%s'", fullname, cs->prior);
	cmd_conf_forget(ctx, (enum conf_key)k);
	cmd_reply(r, 0, "", NULL);
}

void
cmd_admin_config_dump(struct cmd_req *r, json_t *cmd)
{
	(void)cmd;
	cmd_reply(r, 0, "", cmd_conf_entries(r->ctx));
}

void
cmd_admin_perf_dump(struct cmd_req *r, json_t *cmd)
{
	struct cmd_ctx *ctx = r->ctx;
	struct mon_perf p;
	struct server_stats ss;
	json_t *hist, *out;
	uint64_t nsubs = 0, pushes = 0;
	size_t i;

	(void)cmd;
	mon_perf(ctx->mon, &p);
	hist = json_array();
	for (i = 0; i < nitems(p.commit_hist); i++)
		json_array_append_new(hist,
		    json_integer((json_int_t)p.commit_hist[i]));
	memset(&ss, 0, sizeof ss);
	if (ctx->server != NULL)
		server_stats(ctx->server, &ss);
	sub_stats(ctx->sub, &nsubs, &pushes);
	out = json_pack("{s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
	    "s:I, s:o}, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
	    "s:I, s:I}, "
	    "s:{s:I, s:I}, s:{s:I}, s:o}",
	    "mon",
	    "commits", (json_int_t)p.commits,
	    "commit_failures", (json_int_t)p.commit_failures,
	    "commit_us_total", (json_int_t)p.commit_us_total,
	    "commit_us_max", (json_int_t)p.commit_us_max,
	    "proposals_ops_total", (json_int_t)p.proposals_ops_total,
	    "pg_updates", (json_int_t)p.pg_updates,
	    "osdmap_epochs", (json_int_t)p.osdmap_epochs,
	    "trimmed_epochs", (json_int_t)p.trimmed_epochs,
	    "trimmed_versions", (json_int_t)p.trimmed_versions,
	    "sliced_applies", (json_int_t)p.sliced_applies,
	    "commit_hist_ms_log2", hist,
	    "server",
	    "connections", (json_int_t)ss.connections,
	    "accepted", (json_int_t)ss.accepted,
	    "rejected", (json_int_t)ss.rejected,
	    "frames_in", (json_int_t)ss.frames_in,
	    "frames_out", (json_int_t)ss.frames_out,
	    "bytes_in", (json_int_t)ss.bytes_in,
	    "bytes_out", (json_int_t)ss.bytes_out,
	    "closed_slow", (json_int_t)ss.closed_slow,
	    "closed_idle", (json_int_t)ss.closed_idle,
	    "closed_bad", (json_int_t)ss.closed_bad,
	    "partial_bytes", (json_int_t)ss.partial_bytes,
	    "partial_granted", (json_int_t)ss.partial_granted,
	    "partial_paused", (json_int_t)ss.partial_paused,
	    "subscriptions",
	    "active", (json_int_t)nsubs, "pushes", (json_int_t)pushes,
	    "log", "gathered", (json_int_t)log_gathered_count(),
	    "commands", cmd_counters_json());
	if (ctx->fwd != NULL) {
		struct forward_stats fs;

		forward_stats(ctx->fwd, &fs);
		json_object_set_new(out, "forward",
		    json_pack("{s:I, s:I, s:I, s:I}", "forwarded",
			(json_int_t)fs.forwarded, "outcome_unknown",
			(json_int_t)fs.unknown, "linearizable_reads",
			(json_int_t)fs.read_indexes, "apply_wait_us_max",
			(json_int_t)fs.apply_wait_us_max));
	}
	/* The PG reports held back for a full proposal (mapmond(8)). */
	json_object_set_new(json_object_get(out, "server"), "pg_reports_held",
	    json_integer((json_int_t)ss.binary_held));
	cmd_reply(r, 0, "perf counters", out);
}

void
cmd_admin_store_stat(struct cmd_req *r, json_t *cmd)
{
	json_t *out = NULL;
	char *status = NULL;
	int rc;

	(void)cmd;
	rc = mon_store_stat_json(r->ctx->mon, &out, &status);
	cmd_reply(r, rc, status, rc == 0 ? out : NULL);
	if (rc != 0)
		json_decref(out);
	free(status);
}

static void *
cmd_admin_compact_main(void *arg)
{
	struct cmd_ctx *ctx = arg;
	const struct mon_key_range *r;
	uint64_t one = 1;
	int64_t start = stamp_mono();
	size_t i;

	mon_thread_normal("compaction");
	for (i = 0; i < ctx->ncompact_ranges && ctx->compact_rc == 0; i++) {
		if (atomic_load(&ctx->compact_stop)) {
			ctx->compact_rc = -1;
			ctx->compact_cause = xstrdup("the monitor stops");
			break;
		}
		r = &ctx->compact_ranges[i];
		ctx->compact_rc = store_compact(mon_store(ctx->mon),
		    r->lolen ? r->lo : NULL, r->lolen, r->hilen ? r->hi : NULL,
		    r->hilen, &ctx->compact_cause);
	}
	ctx->compact_us = stamp_mono() - start;
	if (write(ctx->compact_fd, &one, sizeof one) != sizeof one)
		log_warn("store compact: eventfd write");
	return NULL;
}

/* The loop's half: the thread is done; answer. */
static void
cmd_admin_compact_done(evutil_socket_t fd, short what, void *arg)
{
	struct cmd_ctx *ctx = arg;
	uint64_t n;

	(void)what;
	if (read(fd, &n, sizeof n) != sizeof n)
		return;
	if (!ctx->compact_running)
		return;
	pthread_join(ctx->compact_thread, NULL);
	ctx->compact_running = 0;
	if (ctx->compact_rc != 0) {
		cmd_replyf(ctx->compact_req, -EIO, NULL, "store compact: %s",
		    ctx->compact_cause ? ctx->compact_cause : "failed");
		log_warnx("store compact failed: %s", ctx->compact_cause ?
		    ctx->compact_cause : "unknown error");
	} else {
		log_info("store compacted in %lld ms",
		    (long long)(ctx->compact_us / 1000));
		cmd_replyf(ctx->compact_req, 0, json_pack("{s:I}", "us",
		    (json_int_t)ctx->compact_us), "compacted in %lld ms",
		    (long long)(ctx->compact_us / 1000));
	}
	ctx->compact_req = NULL;
	free(ctx->compact_cause);
	ctx->compact_cause = NULL;
	free(ctx->compact_ranges);
	ctx->compact_ranges = NULL;
}

void
cmd_admin_store_compact(struct cmd_req *r, json_t *cmd)
{
	struct cmd_ctx *ctx = r->ctx;
	int error;

	(void)cmd;
	if (ctx->compact_running) {
		cmd_reply(r, -EBUSY, "a compaction is already running", NULL);
		return;
	}
	ctx->compact_req = r;
	ctx->compact_rc = 0;
	ctx->compact_cause = NULL;
	ctx->ncompact_ranges = mon_compact_ranges(ctx->mon,
	    &ctx->compact_ranges);
	ctx->compact_running = 1;
	log_info("store compact: started (%zu key ranges)",
	    ctx->ncompact_ranges);
	if ((error = pthread_create(&ctx->compact_thread, NULL,
	    cmd_admin_compact_main, ctx)) != 0) {
		ctx->compact_running = 0;
		ctx->compact_req = NULL;
		free(ctx->compact_ranges);
		ctx->compact_ranges = NULL;
		cmd_replyf(r, -EAGAIN, NULL, "store compact: cannot start a "
		    "thread: %s", strerror(error));
	}
}

void
cmd_admin_init(struct cmd_ctx *ctx)
{
	if ((ctx->compact_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) == -1)
		fatal("eventfd");
	ctx->compact_event = event_new(ctx->base, ctx->compact_fd,
	    EV_READ | EV_PERSIST, cmd_admin_compact_done, ctx);
	if (ctx->compact_event == NULL ||
	    event_add(ctx->compact_event, NULL) == -1)
		fatalx("cannot add the compaction event");
	ctx->conf_sets = xcalloc(CONF_NKEYS, sizeof *ctx->conf_sets);
}

int
cmd_admin_free(struct cmd_ctx *ctx, int64_t deadline)
{
	struct timespec ts;
	int64_t left;
	int error, k;

	if (ctx->compact_running) {
		atomic_store(&ctx->compact_stop, 1);
		if (deadline == INT64_MAX)
			pthread_join(ctx->compact_thread, NULL);
		else {
			/* The join's deadline is on the wall clock. */
			clock_gettime(CLOCK_REALTIME, &ts);
			left = deadline - stamp_mono();
			if (left < 0)
				left = 0;
			ts.tv_sec += (time_t)(left / 1000000);
			ts.tv_nsec += (long)(left % 1000000) * 1000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			error = pthread_timedjoin_np(ctx->compact_thread, NULL,
			    &ts);
			if (error != 0)
				return -1;
		}
		ctx->compact_running = 0;
		/* The loop has stopped: drop the request unanswered. */
		free(ctx->compact_req);
		free(ctx->compact_cause);
		free(ctx->compact_ranges);
	}
	event_free(ctx->compact_event);
	close(ctx->compact_fd);
	for (k = 0; k < CONF_NKEYS; k++)
		cmd_conf_forget(ctx, (enum conf_key)k);
	free(ctx->conf_sets);
	ctx->conf_sets = NULL;
	return 0;
}
