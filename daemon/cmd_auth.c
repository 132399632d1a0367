/*
 * cmd_auth.c: the auth commands (mapmon(8), AUTHENTICATION), with Ceph's
 * words: the arguments "entity" and "caps" (service and cap strings in
 * pairs), checked by the table; the monitor core checks the names and the
 * caps, and answers as Ceph's AuthMonitor does.  Once the removal of an
 * entity or a new key of it is committed, its open connections are
 * closed on every monitor as it applies the commit (cmd_auth_commit):
 * the old key stops working at once, for sessions made with it too.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mapmon.h"
#include "daemon/cmd_priv.h"
#include "net/server.h"

/* The "caps" strings of cmd (checked: an array of strings), borrowed. */
static const char **
cmd_auth_caps_of(json_t *cmd, size_t *n)
{
	json_t *a = json_object_get(cmd, "caps"), *v;
	const char **caps;
	size_t i;

	*n = json_array_size(a);
	caps = xcalloc(*n ? *n : 1, sizeof *caps);
	json_array_foreach(a, i, v)
		caps[i] = json_string_value(v);
	return caps;
}

void
cmd_auth_add(struct cmd_req *r, json_t *cmd)
{
	size_t n;
	const char **caps = cmd_auth_caps_of(cmd, &n);

	mon_auth_add(r->ctx->mon, cmd_get_str(cmd, "entity"), caps, n, NULL,
	    cmd_done, r);
	free(caps);
}

/* A change of the entity and caps of cmd, answered once committed. */
static void
cmd_auth_change(struct cmd_req *r, json_t *cmd,
    void (*fn)(struct mon *, const char *, const char *const *, size_t,
	mon_done_cb *, void *))
{
	size_t n;
	const char **caps = cmd_auth_caps_of(cmd, &n);

	fn(r->ctx->mon, cmd_get_str(cmd, "entity"), caps, n, cmd_done, r);
	free(caps);
}

void
cmd_auth_get_or_create(struct cmd_req *r, json_t *cmd)
{
	cmd_auth_change(r, cmd, mon_auth_get_or_create);
}

void
cmd_auth_caps(struct cmd_req *r, json_t *cmd)
{
	cmd_auth_change(r, cmd, mon_auth_caps);
}

void
cmd_auth_get(struct cmd_req *r, json_t *cmd)
{
	cmd_answer_read(r, cmd, "entity", mon_auth_get_json);
}

void
cmd_auth_get_key(struct cmd_req *r, json_t *cmd)
{
	cmd_answer_read(r, cmd, "entity", mon_auth_get_key_json);
}

/*
 * The words only for the plain form, as Ceph's AuthMonitor says them (a
 * "format" other than plain: none).
 */
void
cmd_auth_ls(struct cmd_req *r, json_t *cmd)
{
	const char *format = json_string_value(json_object_get(cmd, "format"));
	json_t *data = mon_auth_ls_json(r->ctx->mon);
	const char *status = "";

	if (format == NULL || strcmp(format, "plain") == 0)
		status = json_array_size(json_object_get(data, "auth_dump")) >
			0 ?
		    "installed auth entries:" :
		    "no installed auth entries!";
	cmd_reply(r, 0, status, data);
}

void
cmd_auth_rm(struct cmd_req *r, json_t *cmd)
{
	mon_auth_rm(r->ctx->mon, cmd_get_str(cmd, "entity"), cmd_done, r);
}

void
cmd_auth_rotate(struct cmd_req *r, json_t *cmd)
{
	mon_auth_rotate(r->ctx->mon, cmd_get_str(cmd, "entity"), cmd_done, r);
}

/*
 * Every monitor closes its own sessions of an entity whose key a commit
 * ended, as it applies it: the leader that took the command and each
 * follower alike.  The writers of the commit are answered before the
 * notify: one that asked about itself on this monitor still gets its
 * reply (its connection closes once that has been written).
 */
void
cmd_auth_commit(struct cmd_ctx *ctx, const struct mon_commit_info *info)
{
	size_t i, n;

	if (ctx->server == NULL)
		return;
	for (i = 0; i < info->nauth_ended; i++)
		if ((n = server_close_entity(ctx->server,
			 info->auth_ended[i])) > 0)
			log_info("auth: closed %zu connection%s of %s", n,
			    n == 1 ? "" : "s", info->auth_ended[i]);
}
