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

/* The key named in cmd, or -1 after answering r. */
static int
cmd_admin_key(struct cmd_req *r, json_t *cmd)
{
	const char *key = cmd_get_str(cmd, "key");
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

void
cmd_admin_config_get(struct cmd_req *r, json_t *cmd)
{
	json_t *o;
	int k;

	if ((k = cmd_admin_key(r, cmd)) == -1)
		return;
	o = cmd_admin_key_json(r->ctx->conf, (enum conf_key)k, 0);
	cmd_reply(r, 0, json_string_value(json_object_get(o, "value")), o);
}

void
cmd_admin_config_set(struct cmd_req *r, json_t *cmd)
{
	struct cmd_ctx *ctx = r->ctx;
	char name[128], *old, *cause = NULL;
	int k;

	if ((k = cmd_admin_key(r, cmd)) == -1)
		return;
	conf_fullname((enum conf_key)k, name, sizeof name);
	if (!conf_options[k].runtime) {
		cmd_replyf(r, -EINVAL, NULL, "%s cannot change at run time; "
		    "edit the file and restart", name);
		return;
	}
	old = conf_format(ctx->conf, (enum conf_key)k);
	if (conf_set(ctx->conf, (enum conf_key)k, cmd_get_str(cmd, "value"),
	    &cause) == -1) {
		cmd_reply(r, -EINVAL, cause, NULL);
		free(cause);
		free(old);
		return;
	}
	/* A value the file would refuse next to the others is refused here. */
	if (conf_check(ctx->conf, &cause) == -1) {
		cmd_replyf(r, -EINVAL, NULL, "%s = %s refused: %s", name,
		    cmd_get_str(cmd, "value"), cause);
		free(cause);
		cause = NULL;
		if (conf_set(ctx->conf, (enum conf_key)k, old, &cause) == -1) {
			log_warnx("config set: cannot restore %s = '%s': %s",
			    name, old, cause);
			free(cause);
		}
		free(old);
		return;
	}
	if (ctx->apply != NULL)
		ctx->apply(ctx->apply_arg);
	log_info("config set: %s changed from '%s' to '%s'", name, old,
	    cmd_get_str(cmd, "value"));
	free(old);
	cmd_replyf(r, 0, cmd_admin_key_json(ctx->conf, (enum conf_key)k, 0),
	    "%s = %s", name, cmd_get_str(cmd, "value"));
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
}

int
cmd_admin_free(struct cmd_ctx *ctx, int64_t deadline)
{
	struct timespec ts;
	int64_t left;
	int error;

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
	return 0;
}
